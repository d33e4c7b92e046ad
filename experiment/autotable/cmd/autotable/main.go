// Command autotable makes the auto learner's target table in benchmarks/results/auto.
//
// It is run from the repository root:
//
//	go run ./experiment/autotable/cmd/autotable --resume
//
// Every pass is kept in auto-runs.jsonl as it finishes, so an interrupted
// run continues with --resume; the report (auto.md, auto.jsonl) is written
// when every pass is there.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bogd-project/bogd/experiment/autotable"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "autotable:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("autotable", flag.ContinueOnError)
	datasets := fs.String("datasets", "../shared/datasets", "the shared datasets directory")
	only := fs.String("only", "", "comma-separated data sets (default: all)")
	out := fs.String("out", "benchmarks/results/auto", "output directory")
	budget := fs.Int("budget", 100, "budget of every learner")
	runs := fs.Int("runs", 3, "held-out permutations")
	selectRuns := fs.Int("select-runs", 2, "selection permutations per grid point")
	workers := fs.Int("workers", runtime.NumCPU(), "passes run in parallel")
	resume := fs.Bool("resume", false, "continue the results file in --out")
	prune := fs.Bool("prune", false, "then rewrite the results file to the passes the table reads")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sets := autotable.Datasets
	if *only != "" {
		var err error
		if sets, err = autotable.Lookup(strings.Split(*only, ",")); err != nil {
			return err
		}
	}
	results := filepath.Join(*out, "auto-runs.jsonl")
	o := &autotable.Options{
		DatasetsDir: *datasets, Datasets: sets, Budget: *budget, Runs: *runs, SelectRuns: *selectRuns,
		Seed: 1, SelectSeed: 1 + 1<<32, Workers: *workers, Results: results, Resume: *resume,
		Progress: &progress{}, Warn: func(msg string) { fmt.Fprintln(os.Stderr, "autotable: warning:", msg) },
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tab, err := autotable.Run(ctx, o)
	if err != nil {
		return err
	}
	if *prune {
		if err := tab.Prune(results); err != nil {
			return err
		}
	}
	line := "go run ./experiment/autotable/cmd/autotable " + strings.Join(args, " ")
	return autotable.WriteReport(*out, tab, autotable.Meta{CommandLine: strings.TrimSpace(line), Results: filepath.Base(results), Workers: *workers})
}

// progress logs each phase and every tenth of its jobs.
type progress struct {
	mu          sync.Mutex
	phase       string
	todo, done  int
	start       time.Time
	lastPercent int
}

func (p *progress) Start(phase string, todo, done int, _ float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase, p.todo, p.done, p.start, p.lastPercent = phase, todo, 0, time.Now(), 0
	fmt.Fprintf(os.Stderr, "autotable: %s: %d passes to run, %d already in the results\n", phase, todo, done)
}

func (p *progress) Finished(float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if pc := 100 * p.done / max(1, p.todo); pc >= p.lastPercent+10 {
		p.lastPercent = pc - pc%10
		fmt.Fprintf(os.Stderr, "autotable: %s: %d%% (%d of %d) after %s\n", p.phase, pc, p.done, p.todo, time.Since(p.start).Round(time.Second))
	}
}

func (p *progress) Stop() {}
