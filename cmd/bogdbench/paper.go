package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/experiment/paper"
	"github.com/bogd-project/bogd/simd"
)

// paperDatasets is the paper's dataset table, by the name kernels.go uses.
var paperDatasets = paper.Datasets

// newRunsDir is where a `paper` run without --out puts its results: a new
// directory per run, so that a reproduction recomputes rather than reads
// (and rewrites) an older one.
const newRunsDir = "benchmarks/results/runs"

func paperCommand(args []string, stdout, stderr io.Writer) error {
	opt, err := parsePaperFlags(args, stderr)
	if err != nil {
		return err
	}
	if err := simd.EnvError(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills at once
	}()
	start := time.Now()
	stats, err := paper.Run(ctx, opt)
	if opt.Phase != paper.PhaseTables {
		fmt.Fprintf(stderr, "paper: ran %d jobs (%d were already done) in %s\n", stats.Ran, stats.Skipped, time.Since(start).Round(time.Millisecond))
	}
	if err != nil {
		return paperAdvice(opt, err)
	}
	if opt.Phase == paper.PhaseAll || opt.Phase == paper.PhaseTables {
		fmt.Fprintf(stdout, "wrote %s (results in %s)\n", filepath.Join(opt.OutDir, paper.ReportName), opt.Results)
	} else {
		fmt.Fprintf(stdout, "%s phase done: results in %s\n", opt.Phase, opt.Results)
	}
	return nil
}

// paperAdvice adds to an error of a `paper` run what to do about it.
func paperAdvice(opt *paper.Options, err error) error {
	resume := opt.CommandLine
	if !strings.Contains(resume, "--resume") {
		resume += " --resume"
	}
	if !strings.Contains(resume, "--out") && !strings.Contains(resume, "--results") {
		resume += " --out " + opt.OutDir
	}
	var inc *experiment.IncompleteError
	switch {
	case errors.Is(err, experiment.ErrInterrupted):
		return fmt.Errorf("%w; to continue, run `%s`", err, resume)
	case errors.As(err, &inc):
		return fmt.Errorf("%w in %s; run `bogdbench paper --phase %s` (every shard) and merge its results first",
			err, strings.Join(append([]string{opt.Results}, opt.Read...), ", "), inc.Phase)
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%w: pass --resume to continue that run, or choose another --out", err)
	case errors.Is(err, paper.ErrMissingData):
		return fmt.Errorf("%w; pass --datasets DIR or restrict the datasets with --only", err)
	}
	return err
}

// parsePaperFlags turns the command line of `paper` into options.
func parsePaperFlags(args []string, stderr io.Writer) (*paper.Options, error) {
	fs := newFlags("paper", stderr)
	datasetsDir := fs.String("datasets", "../shared/datasets", "directory of the dataset files (w8a is w7a.svm.gz)")
	only := fs.String("only", "", "comma-separated datasets to run (default: all six; --quick: "+strings.Join(paper.QuickDatasets, ",")+")")
	algos := fs.String("algo", "", "comma-separated algorithms (default: all eight)")
	budgets := fs.String("budgets", "", "comma-separated budgets for every chosen dataset instead of Table 3's")
	runs := fs.Int("runs", 20, "reported random permutations per cell (--quick: 5)")
	selectRuns := fs.Int("select-runs", 3, "selection permutations per grid point, disjoint from the reported ones (--quick: 2)")
	gridName := fs.String("grid", "full", "parameter grid: full (the paper's), quick or tiny (--quick: quick)")
	seed := fs.Uint64("seed", 1, "seed of the reported permutations: permutation(seed, r), learnerSeed(seed, r), as `bogdbench run --seed`")
	selectSeed := fs.Uint64("select-seed", 1+1<<32, "seed of the selection permutations; must differ from --seed")
	sigma := fs.Float64("sigma", 8, "Gaussian kernel width")
	projection := fs.String("projection", "clip", "BOGD/BOGD++ projection: clip or rescale")
	skip := fs.String("skip", "", "comma-separated dataset:algorithm pairs to leave out (--quick: "+strings.Join(paper.QuickSkip, ",")+")")
	workers := fs.Int("workers", runtime.NumCPU(), "passes run in parallel")
	shardFlag := fs.String("shard", "", "run only slice k of n of the phase's sorted job list (k/n, 0-based; needs --phase select or report)")
	phase := fs.String("phase", paper.PhaseAll, "all, select, report or tables")
	out := fs.String("out", "", "directory of paper.md, the plots and the results (default: a new directory "+newRunsDir+"/[quick-]YYYYMMDD-HHMMSS)")
	results := fs.String("results", "", "results file, one JSON line per job (default OUT/paper-runs.jsonl); an existing one needs --resume")
	resume := fs.Bool("resume", false, "continue the run in --out (or --results): skip the jobs it holds, append the others, rewrite paper.md and the plots")
	read := fs.String("read", "", "comma-separated extra results files to read (never written), e.g. merged selection results")
	plots := fs.Bool("plots", true, "write PNG and SVG plots")
	quick := fs.Bool("quick", false, "fewer runs, a coarse grid, the smaller datasets")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *quick {
		if !set["runs"] {
			*runs = 5
		}
		if !set["select-runs"] {
			*selectRuns = 2
		}
		if !set["grid"] {
			*gridName = "quick"
		}
		if !set["only"] {
			*only = strings.Join(paper.QuickDatasets, ",")
		}
		if !set["skip"] {
			*skip = strings.Join(paper.QuickSkip, ",")
		}
	}
	if *out == "" {
		switch {
		case *resume:
			return nil, usagef("--resume needs --out (or --results): the run to continue")
		case *phase == paper.PhaseTables && *results == "":
			return nil, usagef("--phase tables needs --out (or --results): the run to tabulate")
		}
		name := time.Now().UTC().Format("20060102-150405")
		if *quick {
			name = "quick-" + name
		}
		*out = filepath.Join(newRunsDir, name)
	}
	if *results == "" {
		*results = filepath.Join(*out, "paper-runs.jsonl")
	}
	opt := &paper.Options{
		DatasetsDir: *datasetsDir, Runs: *runs, SelectRuns: *selectRuns, Seed: *seed, SelectSeed: *selectSeed,
		Sigma: *sigma, Workers: *workers, Phase: *phase, Results: *results, Resume: *resume,
		OutDir: *out, Plots: *plots, Quick: *quick,
		CommandLine: strings.Join(append([]string{"bogdbench paper"}, args...), " "),
		Progress:    newProgress(stderr),
		Warn:        func(msg string) { fmt.Fprintf(stderr, "paper: warning: %s\n", msg) },
	}
	if err := configurePaper(opt, *only, *algos, *budgets, *gridName, *projection, *shardFlag, *read, *skip); err != nil {
		return nil, err
	}
	return opt, nil
}

// configurePaper checks and fills the options from the command-line strings.
func configurePaper(o *paper.Options, only, algos, budgets, gridName, projection, shardFlag, read, skip string) error {
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
	switch o.Phase {
	case paper.PhaseAll, paper.PhaseSelect, paper.PhaseReport, paper.PhaseTables:
	default:
		return usagef("--phase must be all, select, report or tables, got %q", o.Phase)
	}
	if shardFlag != "" {
		s, err := experiment.ParseShard(shardFlag)
		if err != nil {
			return usagef("--shard: %v", err)
		}
		if s.N > 1 && o.Phase != paper.PhaseSelect && o.Phase != paper.PhaseReport {
			return usagef("--shard needs --phase select or --phase report: the report jobs of a cell depend on its merged selection results")
		}
		o.Shard = s
	}
	if read != "" {
		o.Read = strings.Split(read, ",")
	}
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
	switch {
	case o.Runs < 1:
		return usagef("--runs must be at least 1, got %d", o.Runs)
	case o.SelectRuns < 1:
		return usagef("--select-runs must be at least 1, got %d", o.SelectRuns)
	case o.Seed == o.SelectSeed:
		return usagef("--seed and --select-seed must differ: selection must never see the reported permutations")
	case o.Workers < 1:
		return usagef("--workers must be at least 1, got %d", o.Workers)
	case !(o.Sigma > 0):
		return usagef("--sigma must be positive, got %v", o.Sigma)
	}
	return nil
}
