package main

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/experiment/lsokl"
)

func lsoklCommand(args []string, stdout, stderr io.Writer) error {
	opt, err := parseLSOKLFlags(args, stderr)
	if err != nil {
		return err
	}
	return runStudy(study{
		name: "lsokl", command: opt.CommandLine, outDir: opt.OutDir, report: filepath.Join(opt.OutDir, lsokl.ReportName), exec: &opt.Execution,
		run: func(ctx context.Context) (experiment.Stats, error) { return lsokl.Run(ctx, opt) },
	}, stdout, stderr)
}

// parseLSOKLFlags turns the command line of `lsokl` into options.
func parseLSOKLFlags(args []string, stderr io.Writer) (*lsokl.Options, error) {
	fs := newFlags("lsokl", stderr)
	sf := addStudyFlags(fs, "lsokl", lsokl.ReportName)
	tableName := fs.String("table", "", "the table to reproduce: multiclass (Table 7), regression (Table 9) or binary (Table 5) (required)")
	datasetsDir := fs.String("datasets", "../shared/datasets", "directory of the dataset files (multiclass/ and regression/ below it)")
	only := fs.String("only", "", "comma-separated datasets of the table to run (default: all; --quick: those of at most 10,000 rows)")
	algos := fs.String("algo", "", "comma-separated algorithms of the table (default: all its rows)")
	budgets := fs.String("budgets", "", "comma-separated budgets for every dataset instead of the paper's")
	gridName := fs.String("grid", "full", "parameter grid: full, or quick (the paper's η and the toolbox's other settings; --quick: quick)")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if *tableName == "" {
		return nil, usagef("--table is required: multiclass, regression or binary")
	}
	table, err := lsokl.Lookup(*tableName)
	if err != nil {
		return nil, usagef("--table: %v", err)
	}
	if given := set(fs); *sf.quick && !given["grid"] {
		*gridName = "quick"
	}
	exec, out, err := sf.execution(fs, stderr)
	if err != nil {
		return nil, err
	}
	opt := &lsokl.Options{
		Table: table, DatasetsDir: *datasetsDir, Runs: *sf.runs, SelectRuns: *sf.selectRuns,
		Seed: *sf.seed, SelectSeed: *sf.selectSeed, Quick: *sf.quick,
		Execution: exec, OutDir: out, Plots: *sf.plots, CommandLine: commandLine("lsokl", args),
	}
	switch *gridName {
	case "full":
		opt.Grid = table.Grid
	case "quick":
		opt.Grid = table.QuickGrid()
	default:
		return nil, usagef("--grid must be full or quick, got %q", *gridName)
	}
	if *only == "" {
		for _, d := range table.Datasets {
			if !opt.Quick || d.Rows <= lsokl.QuickRows {
				opt.Datasets = append(opt.Datasets, d)
			}
		}
	}
	for _, name := range strings.Split(*only, ",") {
		d, ok := table.Dataset(strings.TrimSpace(name))
		if *only != "" && !ok {
			var names []string
			for _, d := range table.Datasets {
				names = append(names, d.Name)
			}
			return nil, usagef("--only: Table %d has no dataset %q (want some of %s)", table.Number, name, strings.Join(names, ", "))
		}
		if ok {
			opt.Datasets = append(opt.Datasets, d)
		}
	}
	if *budgets != "" {
		if opt.Budgets, err = parseBudgets("--budgets", *budgets); err != nil {
			return nil, err
		}
	}
	// An algorithm of the table that this build lacks is an error naming
	// it, not a usage error: the table cannot be made.
	if *algos == "" {
		if opt.Algorithms, err = table.ParseAlgorithms(); err != nil {
			return nil, err
		}
	} else {
		if opt.Algorithms, err = parseAlgorithms(*algos); err != nil {
			return nil, usageError{err}
		}
		for _, a := range opt.Algorithms {
			if !slices.Contains(table.Algorithms, a.String()) {
				return nil, usagef("--algo: %v is not a row of Table %d (%s)", a, table.Number, strings.Join(table.Algorithms, ", "))
			}
		}
		slices.SortStableFunc(opt.Algorithms, func(a, b bogd.Algorithm) int {
			return slices.Index(table.Algorithms, a.String()) - slices.Index(table.Algorithms, b.String())
		})
		opt.Algorithms = slices.Compact(opt.Algorithms)
	}
	return opt, nil
}
