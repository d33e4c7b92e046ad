package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/experiment/paper"
)

// paperDatasets is the paper's dataset table, by the name kernels.go uses.
var paperDatasets = paper.Datasets

func paperCommand(args []string, stdout, stderr io.Writer) error {
	opt, err := parsePaperFlags(args, stderr)
	if err != nil {
		return err
	}
	return runStudy(study{
		name: "paper", command: opt.CommandLine, outDir: opt.OutDir, report: filepath.Join(opt.OutDir, paper.ReportName), exec: &opt.Execution,
		run: func(ctx context.Context) (experiment.Stats, error) { return paper.Run(ctx, opt) },
	}, stdout, stderr)
}

// parsePaperFlags turns the command line of `paper` into options.
func parsePaperFlags(args []string, stderr io.Writer) (*paper.Options, error) {
	fs := newFlags("paper", stderr)
	sf := addStudyFlags(fs, "paper", paper.ReportName)
	datasetsDir := fs.String("datasets", "../shared/datasets", "directory of the dataset files (w8a is w7a.svm.gz)")
	only := fs.String("only", "", "comma-separated datasets to run (default: all six; --quick: "+strings.Join(paper.QuickDatasets, ",")+")")
	algos := fs.String("algo", "", "comma-separated algorithms (default: all eight)")
	budgets := fs.String("budgets", "", "comma-separated budgets for every chosen dataset instead of Table 3's")
	gridName := fs.String("grid", "full", "parameter grid: full (the paper's), quick or tiny (--quick: quick)")
	sigma := fs.Float64("sigma", 8, "Gaussian kernel width")
	projection := fs.String("projection", "clip", "BOGD/BOGD++ projection: clip or rescale")
	skip := fs.String("skip", "", "comma-separated dataset:algorithm pairs to leave out (--quick: "+strings.Join(paper.QuickSkip, ",")+")")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if given := set(fs); *sf.quick {
		if !given["grid"] {
			*gridName = "quick"
		}
		if !given["only"] {
			*only = strings.Join(paper.QuickDatasets, ",")
		}
		if !given["skip"] {
			*skip = strings.Join(paper.QuickSkip, ",")
		}
	}
	exec, out, err := sf.execution(fs, stderr)
	if err != nil {
		return nil, err
	}
	opt := &paper.Options{
		DatasetsDir: *datasetsDir, Runs: *sf.runs, SelectRuns: *sf.selectRuns, Seed: *sf.seed, SelectSeed: *sf.selectSeed,
		Sigma: *sigma, Execution: exec, OutDir: out, Plots: *sf.plots, Quick: *sf.quick,
		CommandLine: commandLine("paper", args),
	}
	if err := configurePaper(opt, *only, *algos, *budgets, *gridName, *projection, *skip); err != nil {
		return nil, err
	}
	return opt, nil
}

// configurePaper checks and fills the options from the command-line strings.
func configurePaper(o *paper.Options, only, algos, budgets, gridName, projection, skip string) error {
	if only == "" {
		o.Datasets = append([]paper.Dataset(nil), paper.Datasets...)
	} else {
		for _, name := range strings.Split(only, ",") {
			d, ok := paper.Lookup(strings.TrimSpace(name))
			if !ok {
				var names []string
				for _, d := range paper.Datasets {
					names = append(names, d.Name)
				}
				return usagef("--only: unknown dataset %q (want some of %s)", name, strings.Join(names, ", "))
			}
			o.Datasets = append(o.Datasets, d)
		}
	}
	if budgets != "" {
		bs, err := parseBudgets("--budgets", budgets)
		if err != nil {
			return err
		}
		for i := range o.Datasets {
			o.Datasets[i].Budgets = bs
		}
	}
	o.Algorithms = paper.Algorithms
	if algos != "" {
		list, err := parseAlgorithms(algos)
		if err != nil {
			return usageError{err}
		}
		o.Algorithms = list
	}
	g, ok := paper.Grids[gridName]
	if !ok {
		return usagef("--grid must be full, quick or tiny, got %q", gridName)
	}
	o.Grid = g
	proj, err := experiment.ParseProjection(projection)
	if err != nil {
		return usagef("--projection: %v", err)
	}
	o.Projection = proj
	if skip != "" {
		for _, pair := range strings.Split(skip, ",") {
			ds, algo, ok := strings.Cut(strings.TrimSpace(pair), ":")
			a, err := bogd.ParseAlgorithm(algo)
			if _, known := paper.Lookup(ds); !ok || !known || err != nil {
				return usagef("--skip: %q is not dataset:algorithm", pair)
			}
			o.Skip = append(o.Skip, ds+":"+a.String())
		}
	}
	if !(o.Sigma > 0) {
		return usagef("--sigma must be positive, got %v", o.Sigma)
	}
	return nil
}
