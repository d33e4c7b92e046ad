package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/eval"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/experiment/lsokl"
	"github.com/bogd-project/bogd/experiment/paper"
	"github.com/bogd-project/bogd/simd"
	"github.com/bogd-project/bogd/task"
)

// tuneCommand is `bogdbench tune`: the studies' protocol on the user's
// data. Every grid point of every (algorithm, budget) runs over
// --select-runs random permutations of a selection stream; the point of
// the lowest mean mistake rate (MSE) is selected, and runs over --runs
// permutations of another stream, never seen by the selection: their
// mean is the held-out estimate. The grid varies what each algorithm
// reads of η, λ, γ and C, and the kernel width σ, and holds each
// algorithm's defaults; a selection on the edge of the grid extends it
// (--extend). The trivial predictor is a row of the table: the figure
// to beat. A learner that fails, or diverges at every grid point, is a
// row that says so; the others go on.
func tuneCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("tune", stderr)
	data := fs.String("data", "", "LIBSVM data file, plain or gzip, or - for standard input (required)")
	algos := fs.String("algo", bogd.Auto.String(), "comma-separated algorithms; auto, the default, has nothing to tune: its row is its held-out estimate at σ the median distance, the centre of the widths it weighs itself")
	budgets := fs.String("budget", "100", "comma-separated budgets")
	gridName := fs.String("grid", "quick", "quick or full: binary, the ICML 2012 paper's grids (full: λ·T², η ∈ 2^-3..2^3, γ ∈ 2^0..2^4) with BPA-S's C ∈ {0.1, 1, 10} (full: 10^-2..10^2); multi-class and regression, the LSOKL study's (quick: its η set with the toolbox's other settings, C ∈ {0.1, 1, 10}); every algorithm's own defaults added to its lists")
	sigmas := fs.String("sigma", "auto", "comma-separated kernel widths to select among, or auto: 8 and 1/8, 1/4, 1/2 and 1 times the median Euclidean distance between rows (all pairs of 1000 rows drawn with seed 1), as the LSOKL study")
	extend := fs.Int("extend", 3, "where a selected η, λ, γ, C or σ is the smallest or largest of its grid, try up to this many values beyond, one grid step each, while they select better (phase all only; 0: never)")
	selectRuns := fs.Int("select-runs", 3, "selection permutations per grid point")
	runs := fs.Int("runs", 5, "held-out permutations of the selected parameters")
	seed := fs.Uint64("seed", 1, "seed of the held-out permutations (and of the learner --save trains)")
	selectSeed := fs.Uint64("select-seed", 1+1<<32, "seed of the selection permutations; must differ from --seed")
	workers := fs.Int("workers", runtime.NumCPU(), "passes run in parallel")
	results := fs.String("results", "", "keep every pass in this results file (one JSON line each); an existing one needs --resume (default: a temporary file, removed; with --phase select or report, or tables without --read, tune-runs.jsonl, or tune-PHASE-k-of-n.jsonl for a shard k of n, in the working directory)")
	resume := fs.Bool("resume", false, "continue the --results file: its passes are not run again")
	phase := fs.String("phase", experiment.PhaseAll, "all; or, to spread the grid over a scheduler's tasks, select and report (each with --shard; report reads the selection shards with --read), then tables: the selection and table of one process from --read (and --results), and --save")
	shard := fs.String("shard", "", shardHelp)
	read := fs.String("read", "", readHelp)
	save := fs.String("save", "", "train a learner with the selected parameters over the data in file order (one pass) and save it here (needs one algorithm and one budget)")
	force := fs.Bool("force", false, "overwrite an existing --save file")
	quiet := fs.Bool("q", false, "quiet: no progress on stderr")
	calibrate := fs.Bool("calibrate", true, "--save, classifiers: fit probabilities online")
	storage := fs.String("storage", "auto", storageHelp)
	lf := new(learnerFlags)
	lf.addRuleFlags(fs)
	df := addDataFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *data == "" {
		return usagef("--data is required (- for standard input)")
	}
	opt, err := df.options()
	if err != nil {
		return err
	}
	algorithms, err := parseAlgorithms(*algos)
	if err != nil {
		return usageError{err}
	}
	budgetList, err := parseBudgets("--budget", *budgets)
	if err != nil {
		return err
	}
	if lf.projection, err = experiment.ParseProjection(lf.projectionName); err != nil {
		return usagef("--projection: %v", err)
	}
	st, err := parseStorage(*storage)
	if err != nil {
		return err
	}
	var widths []float64
	if *sigmas != "auto" {
		if widths, err = parsePositives(*sigmas); err != nil {
			return usagef("--sigma: %v", err)
		}
	}
	switch {
	case *gridName != "quick" && *gridName != "full":
		return usagef("--grid must be quick or full, got %q", *gridName)
	case *selectRuns < 1 || *runs < 1:
		return usagef("--select-runs and --runs must be at least 1")
	case *seed == *selectSeed:
		return usagef("--seed and --select-seed must differ: selection must never see the held-out permutations")
	case *workers < 1:
		return usagef("--workers must be at least 1, got %d", *workers)
	case *extend < 0:
		return usagef("--extend must be at least 0, got %d", *extend)
	case *phase != experiment.PhaseAll && *phase != experiment.PhaseSelect && *phase != experiment.PhaseReport && *phase != experiment.PhaseTables:
		return usagef("--phase must be all, select, report or tables, got %q", *phase)
	case *resume && *results == "" && *phase == experiment.PhaseAll:
		return usagef("--resume needs --results")
	case *save != "" && (*phase == experiment.PhaseSelect || *phase == experiment.PhaseReport):
		return usagef("--save needs --phase all or tables: the selection of every shard")
	case *save != "" && (len(algorithms) != 1 || len(budgetList) != 1):
		return usagef("--save needs exactly one algorithm and one budget")
	case *force && *save == "":
		return usagef("--force needs --save")
	}
	if err := checkSavePath(*save, *force); err != nil {
		return err
	}
	exec := experiment.Execution{Phase: *phase, Workers: *workers, Results: *results, Resume: *resume}
	if exec.Shard, err = parseShard(*shard, *phase); err != nil {
		return err
	}
	if exec.Read, err = readFiles(*read); err != nil {
		return err
	}
	if exec.Results == "" && (*phase == experiment.PhaseSelect || *phase == experiment.PhaseReport || *phase == experiment.PhaseTables && exec.Read == nil) {
		exec.Results = resultsName("tune", *phase, exec.Shard)
	}
	if err := simd.EnvError(); err != nil {
		return err
	}
	log := func(msg string) {
		if !*quiet {
			fmt.Fprintf(stderr, "bogdbench tune: %s\n", msg)
		}
	}
	warn := func(msg string) { fmt.Fprintf(stderr, "bogdbench tune: warning: %s\n", msg) }
	rows, in, err := df.read(*data, stdin, opt, warn, log)
	if err != nil {
		return err
	}
	rows = rows.Compact() // held for every pass of the grid
	tk := rows.Task
	sigma := 0.0 // of the points that set none: auto's centre, the median distance
	if widths == nil || slices.Contains(algorithms, bogd.Auto) {
		m, n := medianWidth(rows)
		sigma = m
		if widths == nil {
			widths = lsokl.Dataset{Median: m}.Widths()
			log(fmt.Sprintf("σ candidates %v: 8 and %v × %.4g, the median Euclidean distance over all pairs of %d rows (experiment.MedianDistance, seed %d), rounded to two digits",
				widths, lsokl.WidthFactors, m, n, lsokl.MedianSeed))
		}
	}
	name := "stdin"
	if *data != "-" {
		name = datasetName(*data)
	}
	plan := &experiment.Plan{
		Grid: tuneGrid(tk, *gridName), Runs: *runs, SelectRuns: *selectRuns, Seed: *seed, SelectSeed: *selectSeed,
		Sigma: cmp.Or(sigma, widths[0]), Projection: lf.projection, Task: tk, Nu: lf.nu, KeepGoing: true,
	}
	plan.Grid.Sigma = widths
	if tk == task.Regression {
		plan.Epsilon = lf.epsilon
	}
	if in.Scaling != nil {
		plan.Scaling = in.Scaling.Method()
	}
	for _, a := range algorithms {
		if !a.Supports(tk) {
			return usagef("--algo: %v is not defined for %v", a, tk)
		}
		if !a.Budgeted() {
			plan.Cells = append(plan.Cells, experiment.Cell{Dataset: name, Algo: a})
			continue
		}
		for _, b := range budgetList {
			plan.Cells = append(plan.Cells, experiment.Cell{Dataset: name, Algo: a, Budget: b})
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	base, err := tuneBaseline(ctx, plan, rows)
	if err != nil {
		return err
	}
	exec.Warn = warn
	if !*quiet {
		exec.Progress = newProgress(stderr, "bogdbench tune")
	}
	tuning, err := runTune(ctx, &exec, &experiment.Tuning{Plan: plan, Data: rows, Extend: *extend})
	if err != nil {
		return err
	}
	if *phase == experiment.PhaseSelect || *phase == experiment.PhaseReport {
		fmt.Fprintf(stdout, "%s phase done: results in %s\n", *phase, exec.Results)
		return nil
	}
	if err := writeTuneTable(stdout, tuning, base); err != nil {
		return err
	}
	best, ok := bestCell(tuning)
	if !ok {
		return fmt.Errorf("no learner has a result: nothing to train")
	}
	params := tuning.Selections[best].Params
	params.Sigma = cmp.Or(params.Sigma, plan.Sigma) // a point that sets none runs at the plan's
	fmt.Fprintf(stdout, "\ntrain with the selected parameters (the lowest held-out %s):\n  %s\n",
		map[bool]string{true: "MSE", false: "mistake rate"}[tk == task.Regression], trainCommandLine(*data, df, lf, best, params, tk))
	if *save == "" {
		return nil
	}
	l, err := bogd.New(best.Algo, tunedConfig(lf, best, params, rows, *seed, st, *calibrate))
	if err != nil {
		return err
	}
	log(fmt.Sprintf("training %s over %s in file order", describeLearner(l), rows.Name))
	var progress io.Writer
	if !*quiet {
		progress = stderr
	}
	if done, err := trainPasses(ctx, l, memorySource(rows), 1, progress, warn); err != nil {
		return err
	} else if done.interrupted {
		return fmt.Errorf("interrupted after %d examples of the final training: nothing saved", done.seen)
	}
	if err := l.SetInput(in); err != nil {
		return err
	}
	if err := saveModel(*save, l, *force); err != nil {
		return err
	}
	log(fmt.Sprintf("saved the %v learner (%d support vectors) to %s", l.Algorithm(), l.SupportVectors(), *save))
	return nil
}

// runTune runs the phase(s) of e for the tuning (Tuning.Run), into
// e.Results or, when phase all keeps no results file, a temporary one,
// removed on every way out but an interruption: then the error says where
// the passes it finished are kept. (A learner's failure, a panic
// included, is no way out: Tuning reports it and goes on.)
func runTune(ctx context.Context, e *experiment.Execution, tuning *experiment.Tuning) (*experiment.Tuning, error) {
	temporary, keep := "", false
	if e.Results == "" && e.Phase == experiment.PhaseAll {
		dir, err := os.MkdirTemp("", "bogdbench-tune-")
		if err != nil {
			return nil, err
		}
		temporary = dir
		defer func() {
			if !keep {
				os.RemoveAll(dir)
			}
		}()
		e.Results = filepath.Join(dir, "tune-runs.jsonl")
	}
	_, err := tuning.Run(ctx, e)
	if temporary != "" && errors.Is(err, experiment.ErrInterrupted) {
		// The passes it finished stay where the error says they are.
		keep = true
		err = fmt.Errorf("%w (kept: continue with --results %s --resume)", err, e.Results)
	}
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("%w: pass --resume to continue it", err)
	} else if err != nil {
		return nil, err
	}
	return tuning, nil
}

// tuneGrid is the grid of tune for task t: binary, the ICML 2012 paper's;
// multi-class and regression, the LSOKL study's; BPA-S's C over {0.1, 1,
// 10} in every quick grid (the full binary grid 10⁻²…10²), and every
// algorithm's own defaults in its lists.
func tuneGrid(t task.Task, name string) experiment.Grid {
	var g experiment.Grid
	switch t {
	case task.Multiclass, task.Regression:
		table := lsokl.Multiclass
		if t == task.Regression {
			table = lsokl.Regression
		}
		g = table.Grid
		if name == "quick" {
			g = table.QuickGrid()
			g.C = []float64{0.1, 1, 10}
		}
	default:
		g = paper.Grids[name]
		g.C = []float64{0.1, 1, 10}
		if name == "full" {
			g.C = []float64{0.01, 0.1, 1, 10, 100}
		}
	}
	g.Defaults = true
	return g
}

// explodeFactor is how many times the trivial predictor's MSE a
// regression pass's MSE may reach before it counts as diverged: its
// predictions have left the labels' range.
const explodeFactor = 100

// tuneBaseline runs the trivial predictor over the plan's held-out
// permutations (the table's row to beat) and, in regression, sets the
// plan's Explode from its MSE over the selection permutations.
func tuneBaseline(ctx context.Context, plan *experiment.Plan, rows *dataset.Dataset) (experiment.Summary, error) {
	if plan.Task == task.Regression {
		sel, err := plan.Trivial(ctx, rows, experiment.StreamSelect)
		if err != nil {
			return experiment.Summary{}, err
		}
		plan.Explode = explodeFactor * experiment.Summarize(sel, rows.Len(), plan.Task).Metric
	}
	held, err := plan.Trivial(ctx, rows, experiment.StreamReport)
	if err != nil {
		return experiment.Summary{}, err
	}
	return experiment.Summarize(held, rows.Len(), plan.Task), nil
}

// bestCell is the cell of the lowest held-out metric, failed cells left
// out; false when every cell failed.
func bestCell(t *experiment.Tuning) (experiment.Cell, bool) {
	var best experiment.Cell
	found, rows := false, t.Data.Len()
	for _, c := range t.Plan.Cells {
		if recs, ok := t.Reported[c]; ok && (!found || mean(recs, rows) < mean(t.Reported[best], rows)) {
			best, found = c, true
		}
	}
	return best, found
}

// mean is the mean metric of the records of a cell's held-out runs.
func mean(recs []*experiment.Record, rows int) float64 {
	return summarize(recs, rows).Metric
}

func summarize(recs []*experiment.Record, rows int) experiment.Summary {
	passes := make([]experiment.Result, len(recs))
	tk := task.Binary
	for i, r := range recs {
		passes[i] = r.Result
		tk, _ = experiment.ParseTaskName(r.Task)
	}
	return experiment.Summarize(passes, rows, tk)
}

// writeTuneTable writes, per cell, the selected parameters, their mean
// over the selection runs and the held-out estimate, with the trivial
// predictor's row (base, over the same held-out permutations) first;
// then what a reader must know: the learners that failed, diverged
// points, selections on an edge of their grid and the values tried
// beyond, and the learners that did not beat the trivial predictor.
func writeTuneTable(w io.Writer, t *experiment.Tuning, base experiment.Summary) error {
	plan, rows := t.Plan, t.Data.Len()
	metric, trivial := "mistakes %", "the most frequent label so far"
	if plan.Task == task.Regression {
		metric, trivial = "MSE", "the mean of the labels so far"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "algorithm\tbudget\tselected\tselection %s (%d runs)\theld-out %s (%d runs)\tSVs\tseconds/pass\n", metric, plan.SelectRuns, metric, plan.Runs)
	fmt.Fprintf(tw, "trivial\t-\t%s\t-\t%.5g ± %.3g\t0.0\t%.4f\n", trivial, base.Metric, base.MetricStd, base.Seconds)
	var notes, worse []string
	for _, c := range plan.Cells {
		budget := "-"
		if c.Budget > 0 {
			budget = strconv.Itoa(c.Budget)
		}
		if err, failed := plan.Failed()[c]; failed {
			fmt.Fprintf(tw, "%v\t%s\tfailed\t-\t-\t-\t-\n", c.Algo, budget)
			notes = append(notes, fmt.Sprintf("%v failed: %v", c.Algo, err))
			continue
		}
		sel := t.Selections[c]
		s := summarize(t.Reported[c], rows)
		selMean := "- (nothing to select)"
		if sel.Runs > 0 {
			selMean = fmt.Sprintf("%.5g", sel.Mean)
		}
		selected := sel.Params.Describe(c.Algo, plan.Task)
		if c.Algo == bogd.Auto {
			selected = fmt.Sprintf("σ=%.3g, the centre of its widths", plan.Sigma)
		}
		fmt.Fprintf(tw, "%v\t%s\t%s\t%s\t%.5g ± %.3g\t%.1f\t%.4f\n", c.Algo, budget, selected, selMean, s.Metric, s.MetricStd, s.SupportVectors, s.Seconds)
		notes = append(notes, tuneNotes(t, c, sel)...)
		if !eval.Beats(s.Metric, base.Metric) {
			worse = append(worse, c.Algo.String())
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(worse) > 0 {
		notes = append(notes, fmt.Sprintf("not better than the trivial predictor (%s, held-out %s %.5g) by %g%% of it: %s",
			trivial, metric, base.Metric, 100*eval.BeatMargin, strings.Join(worse, ", ")))
	}
	for _, n := range notes {
		if _, err := fmt.Fprintf(w, "note: %s\n", n); err != nil {
			return err
		}
	}
	return nil
}

// tuneNotes says what cell c's selection sel needs said: its diverged
// grid points, the values tried beyond the grid's edges, and the
// selected values still on an edge.
func tuneNotes(t *experiment.Tuning, c experiment.Cell, sel experiment.Selection) []string {
	var out []string
	if sel.Diverged > 0 {
		what := "its loss was not finite"
		if t.Plan.Explode > 0 {
			what = fmt.Sprintf("not finite, or an MSE above %d× the trivial predictor's", explodeFactor)
		}
		out = append(out, fmt.Sprintf("%v diverged at %d of %d grid points (%s): never selected", c.Algo, sel.Diverged, sel.Points, what))
	}
	diverged := 0
	for _, rec := range t.Reported[c] {
		if t.Plan.Diverged(rec) {
			diverged++
		}
	}
	if diverged > 0 {
		out = append(out, fmt.Sprintf("%v diverged in %d of its %d held-out runs with the selected parameters", c.Algo, diverged, len(t.Reported[c])))
	}
	if exts := t.Extensions[c]; len(exts) > 0 {
		var tried []string
		for _, x := range exts {
			outcome := "not better"
			if x.Taken {
				outcome = fmt.Sprintf("%.5g, selected", x.After)
			}
			tried = append(tried, fmt.Sprintf("%s = %.4g (%s)", x.Param, x.Next, outcome))
		}
		out = append(out, fmt.Sprintf("%v: selections on an edge of the grid; tried beyond: %s", c.Algo, strings.Join(tried, ", ")))
	}
	for _, e := range t.Edges[c] {
		hint := "--extend tries values beyond it in phase all"
		if e.Param == "σ" {
			hint = "give --sigma values beyond it"
		}
		if len(t.Extensions[c]) > 0 {
			hint = "still, after --extend"
		}
		out = append(out, fmt.Sprintf("%v: %v of its grid (%s)", c.Algo, e, hint))
	}
	return out
}

// tunedConfig is the configuration of a learner of cell c with the
// selected parameters p over data: what the tuning runs used (λ = λ·T²/T²
// or λ itself), with seed, storage and calibration, as train makes it.
func tunedConfig(lf *learnerFlags, c experiment.Cell, p experiment.Params, data *dataset.Dataset, seed uint64, st engine.Storage, calibrate bool) bogd.Config {
	f := *lf
	f.sigma, f.eta, f.gamma, f.c, f.lambdaGiven = p.Sigma, p.Eta, p.Gamma, p.C, true
	n := float64(data.Len())
	lambda := p.LambdaT2 / (n * n)
	switch {
	case p.AbsLambda != 0:
		lambda = p.AbsLambda
	case !c.Algo.Params(data.Task).Has(bogd.ParamLambda):
		// Unread, but kept in the model file: train's default 1/T², so
		// that the printed train command saves the same bytes.
		lambda = 1 / (n * n)
	}
	cfg := f.config(c.Algo, c.Budget, data, lambda)
	cfg.Seed, cfg.Storage = seed, st
	cfg.Calibrate = calibrate && cfg.Task != task.Regression
	return cfg
}

// trainCommandLine is the train command that trains cell c with the
// selected parameters p on the same data.
func trainCommandLine(data string, df *dataFlags, lf *learnerFlags, c experiment.Cell, p experiment.Params, t task.Task) string {
	args := []string{"bogdbench", "train", "--data", data, "--algo", c.Algo.String()}
	if c.Budget > 0 {
		args = append(args, "--budget", strconv.Itoa(c.Budget))
	}
	read := c.Algo.Params(t)
	if read.Has(bogd.ParamEta) {
		args = append(args, "--eta", fmt.Sprint(p.Eta))
	}
	if read.Has(bogd.ParamLambda) {
		if p.AbsLambda != 0 {
			args = append(args, "--lambda", fmt.Sprint(p.AbsLambda))
		} else {
			args = append(args, "--lambda", fmt.Sprintf("%g/T^2", p.LambdaT2))
		}
	}
	if read.Has(bogd.ParamGamma) {
		args = append(args, "--gamma", fmt.Sprint(p.Gamma))
	}
	if read.Has(bogd.ParamC) {
		args = append(args, "--C", fmt.Sprint(p.C))
	}
	args = append(args, "--sigma", fmt.Sprint(p.Sigma))
	if t == task.Regression {
		args = append(args, "--epsilon", fmt.Sprint(lf.epsilon))
	}
	if c.Algo == bogd.NORMA {
		args = append(args, "--nu", fmt.Sprint(lf.nu))
	}
	if (c.Algo == bogd.BOGD || c.Algo == bogd.BOGDpp) && lf.projection != bogd.ClipEach {
		args = append(args, "--projection", lf.projectionName)
	}
	if df.task != "auto" {
		args = append(args, "--task", df.task)
	}
	if df.scale != experiment.ScalingMaxAbs {
		args = append(args, "--scale", df.scale)
	}
	if df.hashBits > 0 {
		args = append(args, "--hash", strconv.Itoa(df.hashBits))
	}
	if df.dim > 0 {
		args = append(args, "--dim", strconv.Itoa(df.dim))
	}
	return strings.Join(args, " ")
}

// parsePositives reads a comma-separated list of positive numbers.
func parsePositives(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, v)
	}
	return out, nil
}
