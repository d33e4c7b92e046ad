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

	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/simd"
)

// newRunsDir is where a study (`paper`, `lsokl`) run without --out puts
// its results: a new directory per run, so that a reproduction recomputes
// rather than reads (and rewrites) an older one.
const newRunsDir = "benchmarks/results/runs"

// studyFlags are the flags every study command has: what is computed
// (runs, seeds) and how and where (phases, shards, workers, files).
type studyFlags struct {
	name                   string // the command
	runs, selectRuns       *int
	seed, selectSeed       *uint64
	workers                *int
	shard, phase           *string
	out, results, read     *string
	resume, plots, quick   *bool
	quickRuns, quickSelect int // --runs and --select-runs of --quick
}

// addStudyFlags defines the study flags of command name on fs; report is
// the report's file name, for the help texts.
func addStudyFlags(fs *flag.FlagSet, name, report string) *studyFlags {
	return &studyFlags{
		name:       name,
		runs:       fs.Int("runs", 20, "reported random permutations per cell (--quick: 5)"),
		selectRuns: fs.Int("select-runs", 3, "selection permutations per grid point, disjoint from the reported ones (--quick: 2)"),
		seed:       fs.Uint64("seed", 1, "seed of the reported permutations: permutation(seed, r), learnerSeed(seed, r), as `bogdbench run --seed`"),
		selectSeed: fs.Uint64("select-seed", 1+1<<32, "seed of the selection permutations; must differ from --seed"),
		workers:    fs.Int("workers", runtime.NumCPU(), "passes run in parallel"),
		shard:      fs.String("shard", "", shardHelp),
		phase:      fs.String("phase", experiment.PhaseAll, "all, select, report or tables"),
		out:        fs.String("out", "", "directory of "+report+", the plots and the results (default: a new directory "+newRunsDir+"/[quick-]YYYYMMDD-HHMMSS)"),
		results:    fs.String("results", "", "results file, one JSON line per job (default OUT/"+name+"-runs.jsonl; with a shard k of n, OUT/"+name+"-PHASE-k-of-n.jsonl); an existing one needs --resume"),
		resume:     fs.Bool("resume", false, "continue the run in --out (or --results): skip the jobs it holds, append the others, rewrite "+report+" and the plots"),
		read:       fs.String("read", "", readHelp),
		plots:      fs.Bool("plots", true, "write PNG and SVG plots"),
		quick:      fs.Bool("quick", false, "fewer runs, a coarse grid, the smaller datasets"),
		quickRuns:  5, quickSelect: 2,
	}
}

// The help of --shard and --read, for the studies and tune.
const (
	shardHelp = "run only slice k of n of the phase's sorted job list: k/n (0-based), or auto: the task of a Slurm job array (" +
		experiment.EnvSlurmTaskID + " of " + experiment.EnvSlurmTaskCount + ", from " + experiment.EnvSlurmTaskMin +
		") or of a Kubernetes Indexed Job (" + experiment.EnvCompletionIdx + " of " + experiment.EnvShards + "); needs --phase select or report"
	readHelp = "comma-separated extra results files to read (never written), e.g. the selection shards; an entry with * ? or [ is a pattern (quote it) and must match some file"
)

// parseShard reads --shard (k/n, or auto: from the scheduler's
// environment); a shard of more than one needs phase select or report.
func parseShard(value, phase string) (experiment.Shard, error) {
	var s experiment.Shard
	switch value {
	case "":
		return s, nil
	case "auto":
		var err error
		if s, err = experiment.SchedulerShard(os.Getenv); err != nil {
			return s, fmt.Errorf("--shard auto: %w", err)
		}
	default:
		var err error
		if s, err = experiment.ParseShard(value); err != nil {
			return s, usagef("--shard: %v", err)
		}
	}
	if s.N > 1 && phase != experiment.PhaseSelect && phase != experiment.PhaseReport {
		return s, usagef("--shard needs --phase select or --phase report: the report jobs of a cell depend on its merged selection results")
	}
	return s, nil
}

// resultsName is the default results file of command name: one per shard
// of a phase, so that the tasks of an array, which share a directory, each
// write their own (an array of one task too: its merge step reads the
// shards' names).
func resultsName(name, phase string, s experiment.Shard) string {
	if s.N > 0 && (phase == experiment.PhaseSelect || phase == experiment.PhaseReport) {
		return fmt.Sprintf("%s-%s-%d-of-%d.jsonl", name, phase, s.K, s.N)
	}
	return name + "-runs.jsonl"
}

// readFiles reads --read: comma-separated files, each entry with a glob
// character a pattern that must match some file (a scheduler's task reads
// every shard's selection file without a shell to expand the names).
func readFiles(list string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	var out []string
	for _, entry := range strings.Split(list, ",") {
		if !strings.ContainsAny(entry, "*?[") {
			out = append(out, entry)
			continue
		}
		matches, err := filepath.Glob(entry)
		if err != nil {
			return nil, usagef("--read %q: %v", entry, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("--read %q matches no file", entry)
		}
		out = append(out, matches...)
	}
	return out, nil
}

// set lists the flags given on the command line.
func set(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}

// execution checks the study flags (after fs.Parse) and returns how the
// study runs and its output directory. With --quick, flags not given get
// their quick values.
func (f *studyFlags) execution(fs *flag.FlagSet, stderr io.Writer) (experiment.Execution, string, error) {
	given := set(fs)
	if *f.quick {
		if !given["runs"] {
			*f.runs = f.quickRuns
		}
		if !given["select-runs"] {
			*f.selectRuns = f.quickSelect
		}
	}
	e := experiment.Execution{
		Phase: *f.phase, Workers: *f.workers, Resume: *f.resume,
		Progress: newProgress(stderr, f.name),
		Warn:     func(msg string) { fmt.Fprintf(stderr, "%s: warning: %s\n", f.name, msg) },
	}
	out := *f.out
	if out == "" {
		switch {
		case *f.resume:
			return e, "", usagef("--resume needs --out (or --results): the run to continue")
		case *f.phase == experiment.PhaseTables && *f.results == "":
			return e, "", usagef("--phase tables needs --out (or --results): the run to tabulate")
		}
		name := time.Now().UTC().Format("20060102-150405")
		if *f.quick {
			name = "quick-" + name
		}
		out = filepath.Join(newRunsDir, name)
	}
	switch e.Phase {
	case experiment.PhaseAll, experiment.PhaseSelect, experiment.PhaseReport, experiment.PhaseTables:
	default:
		return e, "", usagef("--phase must be all, select, report or tables, got %q", e.Phase)
	}
	var err error
	if e.Shard, err = parseShard(*f.shard, e.Phase); err != nil {
		return e, "", err
	}
	e.Results = *f.results
	if e.Results == "" {
		e.Results = filepath.Join(out, resultsName(f.name, e.Phase, e.Shard))
	}
	if e.Read, err = readFiles(*f.read); err != nil {
		return e, "", err
	}
	switch {
	case *f.runs < 1:
		return e, "", usagef("--runs must be at least 1, got %d", *f.runs)
	case *f.selectRuns < 1:
		return e, "", usagef("--select-runs must be at least 1, got %d", *f.selectRuns)
	case *f.seed == *f.selectSeed:
		return e, "", usagef("--seed and --select-seed must differ: selection must never see the reported permutations")
	case e.Workers < 1:
		return e, "", usagef("--workers must be at least 1, got %d", e.Workers)
	}
	return e, out, nil
}

// commandLine is the command as the report's header names it.
func commandLine(name string, args []string) string {
	return strings.Join(append([]string{"bogdbench " + name}, args...), " ")
}

// study is a study command's parsed configuration: what runStudy needs.
type study struct {
	name, command, outDir, report string // the command, its line, the output directory, the report's path
	exec                          *experiment.Execution
	run                           func(context.Context) (experiment.Stats, error)
}

// runStudy runs a study until done or interrupted (Ctrl-C, SIGTERM: a
// second one kills at once) and says what it did (the report, written by
// the phases all and tables), or what to do about its error.
func runStudy(s study, stdout, stderr io.Writer) error {
	if err := s.execute(stdout, stderr); err != nil {
		return studyAdvice(s.name, s.command, s.outDir, s.exec, err)
	}
	return nil
}

func (s study) execute(stdout, stderr io.Writer) error {
	name, e, run, report := s.name, s.exec, s.run, s.report
	if err := simd.EnvError(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	start := time.Now()
	stats, err := run(ctx)
	if e.Phase != experiment.PhaseTables {
		fmt.Fprintf(stderr, "%s: ran %d jobs (%d were already done) in %s\n", name, stats.Ran, stats.Skipped, time.Since(start).Round(time.Millisecond))
	}
	if err != nil {
		return err
	}
	if e.Phase == experiment.PhaseAll || e.Phase == experiment.PhaseTables {
		fmt.Fprintf(stdout, "wrote %s (results in %s)\n", report, e.Results)
	} else {
		fmt.Fprintf(stdout, "%s phase done: results in %s\n", e.Phase, e.Results)
	}
	return nil
}

// studyAdvice adds to an error of a study run what to do about it: the
// command line to resume, the phase to run first, the flag to pass.
func studyAdvice(name, command, outDir string, e *experiment.Execution, err error) error {
	resume := command
	if !strings.Contains(resume, "--resume") {
		resume += " --resume"
	}
	if !strings.Contains(resume, "--out") && !strings.Contains(resume, "--results") {
		resume += " --out " + outDir
	}
	var inc *experiment.IncompleteError
	switch {
	case errors.Is(err, experiment.ErrInterrupted):
		return fmt.Errorf("%w; to continue, run `%s`", err, resume)
	case errors.As(err, &inc):
		return fmt.Errorf("%w in %s; run `bogdbench %s --phase %s` (every shard) and merge its results first",
			err, strings.Join(append([]string{e.Results}, e.Read...), ", "), name, inc.Phase)
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%w: pass --resume to continue that run, or choose another --out", err)
	case errors.Is(err, experiment.ErrMissingData):
		return fmt.Errorf("%w; pass --datasets DIR or restrict the datasets with --only", err)
	}
	return err
}
