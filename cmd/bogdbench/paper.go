package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/simd"
)

// The `paper` command reproduces Tables 2 and 3 of the BOGD paper. Its work
// is a list of jobs, one online pass each, in two phases:
//
//  1. select: for every cell (dataset, algorithm, budget) whose algorithm has
//     parameters, every point of the parameter grid runs over SelectRuns
//     permutations of the selection stream (seed SelectSeed);
//  2. report: every cell runs its selected parameters over Runs permutations
//     of the report stream (seed Seed), exactly as `bogdbench run --seed Seed`
//     would with those parameters.
//
// Every finished job is appended to the results file at once, so that an
// interrupted run resumes where it stopped, and shards of the job list can
// run on different machines and be merged.

// params is one point of the parameter grid; unused parameters are 0.
type params struct {
	Eta, LambdaT2, Gamma float64
}

// grid is the parameter grid of the selection phase.
type grid struct {
	Name                 string
	LambdaT2, Eta, Gamma []float64
}

func pow2s(lo, hi int) []float64 {
	var out []float64
	for k := lo; k <= hi; k++ {
		out = append(out, math.Ldexp(1, k))
	}
	return out
}

// grids: "full" is the paper's (§3.2), "quick" a coarse one, "tiny" for tests.
var grids = map[string]grid{
	"full":  {"full", pow2s(-3, 3), pow2s(-3, 3), pow2s(0, 4)},
	"quick": {"quick", []float64{1}, []float64{0.125, 0.5, 2}, []float64{1, 4, 16}},
	"tiny":  {"tiny", []float64{1}, []float64{0.25, 1}, []float64{1, 4}},
}

// points lists the grid points for algorithm a, in the order that breaks
// ties of the selection (λ, then η, then γ, ascending): BOGD and BOGD++ use
// λ, η and γ, OGD λ and η, the others nothing (one point, all zero).
func (g grid) points(a bogd.Algorithm) []params {
	switch a {
	case bogd.BOGD, bogd.BOGDpp:
		var out []params
		for _, l := range g.LambdaT2 {
			for _, e := range g.Eta {
				for _, c := range g.Gamma {
					out = append(out, params{Eta: e, LambdaT2: l, Gamma: c})
				}
			}
		}
		return out
	case bogd.OGD:
		var out []params
		for _, l := range g.LambdaT2 {
			for _, e := range g.Eta {
				out = append(out, params{Eta: e, LambdaT2: l})
			}
		}
		return out
	}
	return []params{{}}
}

// cell is one entry of Table 2 or 3.
type cell struct {
	Dataset string // the paper's name
	Algo    bogd.Algorithm
	Budget  int // 0 for Perceptron and OGD
}

func (c cell) String() string {
	if c.Budget == 0 {
		return fmt.Sprintf("%s/%s", c.Dataset, c.Algo)
	}
	return fmt.Sprintf("%s/%s/B=%d", c.Dataset, c.Algo, c.Budget)
}

// shard is the slice k (0-based) of n of a job list.
type shard struct{ K, N int }

func (s shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

func parseShard(s string) (shard, error) {
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return shard{}, fmt.Errorf("--shard must be k/n with 0 <= k < n, got %q", s)
	}
	return shard{k, n}, nil
}

// paperOptions is the whole configuration of a `paper` run.
type paperOptions struct {
	DatasetsDir string
	Datasets    []paperDataset // with Budgets possibly overridden
	Algorithms  []bogd.Algorithm
	Runs        int // reported permutations per cell
	SelectRuns  int // selection permutations per grid point
	Grid        grid
	Seed        uint64 // report stream
	SelectSeed  uint64 // selection stream
	Sigma       float64
	Projection  bogd.Projection
	// Skip lists the (dataset, algorithm) pairs left out, as
	// "dataset:algorithm".
	Skip        []string
	Workers     int
	Shard       shard
	Phase       string // all, select, report, tables
	Results     string
	Read        []string // extra read-only results files
	OutDir      string
	Plots       bool
	Quick       bool
	CommandLine string
	Stderr      io.Writer
	Progress    bool // draw a progress bar on Stderr

	afterSave func() // tests: called after every saved job
}

// skipped reports whether the configuration leaves algorithm a out on
// dataset d.
func (o *paperOptions) skipped(d paperDataset, a bogd.Algorithm) bool {
	return slices.Contains(o.Skip, d.Name+":"+a.String())
}

// cells lists the cells of the configuration in table order.
func (o *paperOptions) cells() []cell {
	var out []cell
	for _, d := range o.Datasets {
		for _, a := range paperAlgorithms {
			if !slices.Contains(o.Algorithms, a) || o.skipped(d, a) {
				continue
			}
			if !a.Budgeted() {
				out = append(out, cell{d.Name, a, 0})
				continue
			}
			for _, b := range d.Budgets {
				out = append(out, cell{d.Name, a, b})
			}
		}
	}
	return out
}

// job is one pass to run.
type job struct {
	Cell   cell
	Params params
	Key    jobKey
	Cost   float64 // relative estimate, for scheduling and the ETA
}

func (o *paperOptions) newJob(c cell, p params, stream string, run int, seed uint64) job {
	proj := ""
	if c.Algo == bogd.BOGD || c.Algo == bogd.BOGDpp {
		proj = projectionName(o.Projection)
	}
	return job{
		Cell: c, Params: p,
		Key: jobKey{
			Dataset: c.Dataset, Algorithm: c.Algo.String(), Budget: c.Budget,
			Eta: p.Eta, LambdaT2: p.LambdaT2, Gamma: p.Gamma,
			Stream: stream, Run: run, Seed: seed, Sigma: o.Sigma, Projection: proj,
		},
		Cost: jobCost(c),
	}
}

func projectionName(p bogd.Projection) string {
	if p == bogd.RescaleAll {
		return "rescale"
	}
	return "clip"
}

// jobCost estimates the relative time of one pass: rows times the support
// vectors scored per row, times the cost of an update.
func jobCost(c cell) float64 {
	d, _ := lookupDataset(c.Dataset)
	n, b := float64(d.Rows), float64(c.Budget)
	switch c.Algo {
	case bogd.Perceptron:
		return n * n * 0.15
	case bogd.OGD:
		return n * n * 0.4
	case bogd.Projectron:
		return n * b * (1 + b/4)
	case bogd.ProjectronPP:
		return n * b * (1 + b/2)
	case bogd.BOGDpp:
		return 2 * n * b
	}
	return n * b
}

// selectJobs lists every selection job of the configuration, in key order.
// Cells whose algorithm has a single grid point need no selection.
func (o *paperOptions) selectJobs() []job {
	var out []job
	for _, c := range o.cells() {
		points := o.Grid.points(c.Algo)
		if len(points) < 2 {
			continue
		}
		for _, p := range points {
			for r := range o.SelectRuns {
				out = append(out, o.newJob(c, p, streamSelect, r, o.SelectSeed))
			}
		}
	}
	sortJobs(out)
	return out
}

// selection is the outcome of the selection phase for one cell.
type selection struct {
	Params params
	Mean   float64 // mean mistake rate (%) over the selection runs; NaN without a grid
	Runs   int     // selection runs per grid point (0 without a grid)
}

// gridMean is the mean mistake rate (%) of one grid point over the
// selection runs of a cell; Complete is false when some runs have no record.
type gridMean struct {
	Params   params
	Mean     float64
	Complete bool
}

// gridMeans returns the selection-stream mean of every grid point of cell
// c, reading only records of the selection stream, and counts the selection
// jobs without a record.
func (o *paperOptions) gridMeans(c cell, rs *resultSet) (means []gridMean, missing int) {
	for _, p := range o.Grid.points(c.Algo) {
		var sum float64
		g := gridMean{Params: p, Complete: true}
		for r := range o.SelectRuns {
			rec, ok := rs.get(o.newJob(c, p, streamSelect, r, o.SelectSeed).Key)
			if !ok {
				missing++
				g.Complete = false
				continue
			}
			sum += 100 * float64(rec.Mistakes) / float64(rec.Rows)
		}
		g.Mean = sum / float64(o.SelectRuns)
		means = append(means, g)
	}
	return means, missing
}

// selectParams picks the grid point with the lowest mean mistake rate over
// the selection runs of cell c (the first of equal ones, in the order of
// grid.points). missing counts the selection jobs without a record.
func (o *paperOptions) selectParams(c cell, rs *resultSet) (sel selection, missing int) {
	points := o.Grid.points(c.Algo)
	if len(points) < 2 {
		return selection{Params: points[0], Mean: math.NaN()}, 0
	}
	means, missing := o.gridMeans(c, rs)
	sel = selection{Mean: math.Inf(1), Runs: o.SelectRuns}
	for _, g := range means {
		if g.Complete && g.Mean < sel.Mean {
			sel.Params, sel.Mean = g.Params, g.Mean
		}
	}
	return sel, missing
}

// selections returns the selection of every cell, or an error naming the
// cells whose selection runs are incomplete.
func (o *paperOptions) selections(rs *resultSet) (map[cell]selection, error) {
	out := map[cell]selection{}
	var incomplete []string
	total := 0
	for _, c := range o.cells() {
		sel, missing := o.selectParams(c, rs)
		if missing > 0 {
			incomplete = append(incomplete, fmt.Sprintf("%v (%d missing)", c, missing))
			total += missing
			continue
		}
		out[c] = sel
	}
	if len(incomplete) > 0 {
		if len(incomplete) > 5 {
			incomplete = append(incomplete[:5], fmt.Sprintf("and %d more cells", len(incomplete)-5))
		}
		return nil, fmt.Errorf("%d selection results are missing from %s: %s; run `bogdbench paper --phase select` (every shard) and merge its results first",
			total, strings.Join(append([]string{o.Results}, o.Read...), ", "), strings.Join(incomplete, ", "))
	}
	return out, nil
}

// reportJobs lists every report job, in key order, given the selections.
func (o *paperOptions) reportJobs(sels map[cell]selection) []job {
	var out []job
	for _, c := range o.cells() {
		for r := range o.Runs {
			out = append(out, o.reportJob(c, sels[c], r))
		}
	}
	sortJobs(out)
	return out
}

// reportJob is reported run r of cell c with its selected parameters.
func (o *paperOptions) reportJob(c cell, sel selection, r int) job {
	return o.newJob(c, sel.Params, streamReport, r, o.Seed)
}

func sortJobs(jobs []job) {
	slices.SortFunc(jobs, func(a, b job) int { return compareKeys(a.Key, b.Key) })
}

// shardJobs keeps job i of the sorted list when i mod n = k.
func shardJobs(jobs []job, s shard) []job {
	if s.N <= 1 {
		return jobs
	}
	var out []job
	for i, j := range jobs {
		if i%s.N == s.K {
			out = append(out, j)
		}
	}
	return out
}

// checkpointCount is the number of points of the online mistake-rate curves.
const checkpointCount = 100

// checkpoints returns the positions ⌈k·n/K⌉, k = 1..K, K = min(100, n).
func checkpoints(n int) []int {
	k := min(checkpointCount, n)
	out := make([]int, k)
	for i := range out {
		out[i] = ((i+1)*n + k - 1) / k
	}
	return out
}

// errInterrupted marks a run stopped by its context (Ctrl-C).
var errInterrupted = errors.New("interrupted")

// paperStats counts the jobs of a run.
type paperStats struct {
	Ran, Skipped int // jobs run now; jobs already in the results
}

// runJobs runs the jobs that have no record yet on opt.Workers goroutines,
// most expensive first, saving each result as it finishes. When ctx is
// cancelled, no new job starts, running passes stop early and are dropped,
// and the error wraps errInterrupted.
func runJobs(ctx context.Context, opt *paperOptions, phase string, jobs []job, data map[string]*dataset.Dataset, st *resultStore) (paperStats, error) {
	var todo []job
	var stats paperStats
	var totalCost float64
	for _, j := range jobs {
		if _, ok := st.get(j.Key); ok {
			stats.Skipped++
			continue
		}
		todo = append(todo, j)
		totalCost += j.Cost
	}
	fmt.Fprintf(opt.Stderr, "paper: %s: %d jobs to run, %d already in the results\n", phase, len(todo), stats.Skipped)
	if len(todo) == 0 {
		return stats, nil
	}
	slices.SortStableFunc(todo, func(a, b job) int { return -cmpFloat(a.Cost, b.Cost) })

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	bar := newProgress(opt.Stderr, phase, len(todo), totalCost, opt.Progress)
	feed := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range max(1, opt.Workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range feed {
				rec, err := runJob(ctx, opt, j, data[j.Cell.Dataset])
				if err == nil {
					err = st.save(rec)
				}
				if err != nil {
					if ctx.Err() == nil {
						cancel(fmt.Errorf("%v: %w", j.Key, err))
					}
					continue
				}
				mu.Lock()
				stats.Ran++
				mu.Unlock()
				bar.add(j.Cost)
				if opt.afterSave != nil {
					opt.afterSave()
				}
			}
		}()
	}
feeding:
	for _, j := range todo {
		select {
		case feed <- j:
		case <-ctx.Done():
			break feeding
		}
	}
	close(feed)
	wg.Wait()
	bar.finish()
	if ctx.Err() != nil {
		cause := context.Cause(ctx)
		if errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded) {
			return stats, fmt.Errorf("%w: %d of %d %s jobs finished now and saved in %s; run the same command again to resume",
				errInterrupted, stats.Ran, len(todo), phase, opt.Results)
		}
		return stats, cause
	}
	return stats, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// runJob runs one pass and returns its record.
func runJob(ctx context.Context, opt *paperOptions, j job, data *dataset.Dataset) (*record, error) {
	n := data.Len()
	lambda := j.Params.LambdaT2 / (float64(n) * float64(n))
	cfg := bogd.Config{
		Dim: data.Dim, Budget: j.Cell.Budget, Sigma: opt.Sigma,
		Eta: j.Params.Eta, Lambda: lambda, Gamma: j.Params.Gamma,
		Seed: learnerSeed(j.Key.Seed, j.Key.Run), Projection: opt.Projection,
	}
	var at []int
	if j.Key.Stream == streamReport {
		at = checkpoints(n)
	}
	p, err := runPass(ctx, j.Cell.Algo, cfg, data, permutation(j.Key.Seed, j.Key.Run, n), at)
	if err != nil {
		return nil, err
	}
	k := j.Key
	return &record{
		Dataset: k.Dataset, Algorithm: k.Algorithm, Budget: k.Budget,
		Eta: k.Eta, LambdaT2: k.LambdaT2, Gamma: k.Gamma,
		Stream: k.Stream, Run: k.Run, Seed: k.Seed, Sigma: k.Sigma, Projection: k.Projection,
		Rows: n, Lambda: lambda, Mistakes: p.Mistakes, SupportVectors: p.SupportVectors,
		Seconds: p.Seconds, Checkpoints: p.Checkpoints, SIMD: simd.Active().String(),
	}, nil
}

// loadPaperData reads the configured datasets concurrently, failing with
// the names of every missing file first.
func loadPaperData(opt *paperOptions) (map[string]*dataset.Dataset, error) {
	var missing []string
	for _, d := range opt.Datasets {
		path := filepath.Join(opt.DatasetsDir, d.File)
		if _, err := os.Stat(path); err != nil {
			missing = append(missing, fmt.Sprintf("%s (the paper's %s)", path, d.Name))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing dataset files: %s; pass --datasets DIR or restrict the datasets with --only", strings.Join(missing, ", "))
	}
	out := map[string]*dataset.Dataset{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(opt.Datasets))
	for i, d := range opt.Datasets {
		wg.Go(func() {
			data, err := dataset.ReadFile(filepath.Join(opt.DatasetsDir, d.File), dataset.Options{})
			if err != nil {
				errs[i] = err
				return
			}
			if data.Len() != d.Rows || data.Dim > d.Features {
				fmt.Fprintf(opt.Stderr, "paper: warning: %s has %d rows and %d features, the paper's %s %d and %d\n",
					d.File, data.Len(), data.Dim, d.Name, d.Rows, d.Features)
			}
			data.Dim = max(data.Dim, d.Features)
			mu.Lock()
			out[d.Name] = data
			mu.Unlock()
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// checkRows refuses results made from a dataset of another size.
func checkRows(rs *resultSet, data map[string]*dataset.Dataset) error {
	for k, r := range rs.recs {
		if d, ok := data[k.Dataset]; ok && d.Len() != r.Rows {
			return fmt.Errorf("results for %s were made from %d rows, but the dataset file has %d: use another --results file", k.Dataset, r.Rows, d.Len())
		}
	}
	return nil
}

// runPaper runs the configured phase(s).
func runPaper(ctx context.Context, opt *paperOptions) (paperStats, error) {
	var total paperStats
	st, err := openStore(opt.Results, opt.Read, func(msg string) { fmt.Fprintf(opt.Stderr, "paper: warning: %s\n", msg) })
	if err != nil {
		return total, err
	}
	defer st.close()

	var data map[string]*dataset.Dataset
	if opt.Phase != "tables" {
		if data, err = loadPaperData(opt); err != nil {
			return total, err
		}
		if err := checkRows(st.resultSet, data); err != nil {
			return total, err
		}
	}
	add := func(s paperStats) { total.Ran += s.Ran; total.Skipped += s.Skipped }

	if opt.Phase == "all" || opt.Phase == "select" {
		jobs := shardJobs(opt.selectJobs(), opt.Shard)
		s, err := runJobs(ctx, opt, "select", jobs, data, st)
		add(s)
		if err != nil {
			return total, err
		}
	}
	if opt.Phase == "all" || opt.Phase == "report" {
		sels, err := opt.selections(st.resultSet)
		if err != nil {
			return total, err
		}
		jobs := shardJobs(opt.reportJobs(sels), opt.Shard)
		s, err := runJobs(ctx, opt, "report", jobs, data, st)
		add(s)
		if err != nil {
			return total, err
		}
	}
	if opt.Phase == "all" || opt.Phase == "tables" {
		tables, err := collectTables(opt, st.resultSet)
		if err != nil {
			return total, err
		}
		if err := writePaperReport(opt, tables); err != nil {
			return total, err
		}
	}
	return total, nil
}

// quickDatasets are the datasets of --quick.
var quickDatasets = []string{"german", "spambase", "w8a", "magic04"}

// quickSkip leaves Projectron and Projectron++ out where one pass takes
// from seconds (magic04, B=500) to minutes: their updates cost O(B²).
const quickSkip = "magic04:projectron,magic04:projectron++,ijcnn1:projectron,ijcnn1:projectron++,codrna:projectron,codrna:projectron++"

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
	stats, err := runPaper(ctx, opt)
	if opt.Phase != "tables" {
		fmt.Fprintf(stderr, "paper: ran %d jobs (%d were already done) in %s\n", stats.Ran, stats.Skipped, time.Since(start).Round(time.Millisecond))
	}
	if err != nil {
		return err
	}
	if opt.Phase == "all" || opt.Phase == "tables" {
		fmt.Fprintf(stdout, "wrote %s (results in %s)\n", filepath.Join(opt.OutDir, "paper.md"), opt.Results)
	} else {
		fmt.Fprintf(stdout, "%s phase done: results in %s\n", opt.Phase, opt.Results)
	}
	return nil
}

// parsePaperFlags turns the command line of `paper` into options.
func parsePaperFlags(args []string, stderr io.Writer) (*paperOptions, error) {
	fs := newFlags("paper", stderr)
	datasetsDir := fs.String("datasets", "../shared/datasets", "directory of the dataset files (see paperDatasets: w8a is w7a.svm.gz)")
	only := fs.String("only", "", "comma-separated datasets to run (default: all six; --quick: "+strings.Join(quickDatasets, ",")+")")
	algos := fs.String("algo", "", "comma-separated algorithms (default: all eight)")
	budgets := fs.String("budgets", "", "comma-separated budgets for every chosen dataset instead of Table 3's")
	runs := fs.Int("runs", 20, "reported random permutations per cell (--quick: 5)")
	selectRuns := fs.Int("select-runs", 3, "selection permutations per grid point, disjoint from the reported ones (--quick: 2)")
	gridName := fs.String("grid", "full", "parameter grid: full (the paper's), quick or tiny (--quick: quick)")
	seed := fs.Uint64("seed", 1, "seed of the reported permutations: permutation(seed, r), learnerSeed(seed, r), as `bogdbench run --seed`")
	selectSeed := fs.Uint64("select-seed", 1+1<<32, "seed of the selection permutations; must differ from --seed")
	sigma := fs.Float64("sigma", 8, "Gaussian kernel width")
	projection := fs.String("projection", "clip", "BOGD/BOGD++ projection: clip or rescale")
	skip := fs.String("skip", "", "comma-separated dataset:algorithm pairs to leave out (--quick: "+quickSkip+")")
	workers := fs.Int("workers", runtime.NumCPU(), "passes run in parallel")
	shardFlag := fs.String("shard", "", "run only slice k of n of the phase's sorted job list (k/n, 0-based; needs --phase select or report)")
	phase := fs.String("phase", "all", "all, select, report or tables")
	out := fs.String("out", "", "directory of paper.md and the plots (default benchmarks/results, --quick: benchmarks/results/quick)")
	results := fs.String("results", "", "results file, one JSON line per job, appended and resumed (default OUT/paper-runs.jsonl)")
	read := fs.String("read", "", "comma-separated extra results files to read (never written), e.g. merged selection results")
	plots := fs.Bool("plots", true, "write PNG and SVG plots")
	quick := fs.Bool("quick", false, "fewer runs, a coarse grid, the smaller datasets; results in benchmarks/results/quick")
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
			*only = strings.Join(quickDatasets, ",")
		}
		if !set["skip"] {
			*skip = quickSkip
		}
	}
	if *out == "" {
		*out = filepath.Join("benchmarks", "results")
		if *quick {
			*out = filepath.Join(*out, "quick")
		}
	}
	if *results == "" {
		*results = filepath.Join(*out, "paper-runs.jsonl")
	}
	opt := &paperOptions{
		DatasetsDir: *datasetsDir, Runs: *runs, SelectRuns: *selectRuns, Seed: *seed, SelectSeed: *selectSeed,
		Sigma: *sigma, Workers: *workers, Phase: *phase, Results: *results,
		OutDir: *out, Plots: *plots, Quick: *quick, Stderr: stderr, Progress: isTerminal(stderr),
		CommandLine: "bogdbench paper " + strings.Join(args, " "),
	}
	if err := opt.configure(*only, *algos, *budgets, *gridName, *projection, *shardFlag, *read, *skip); err != nil {
		return nil, err
	}
	return opt, nil
}

// configure checks and fills the options from the command-line strings.
func (o *paperOptions) configure(only, algos, budgets, gridName, projection, shardFlag, read, skip string) error {
	if only == "" {
		o.Datasets = append([]paperDataset(nil), paperDatasets...)
	} else {
		for _, name := range strings.Split(only, ",") {
			d, ok := lookupDataset(strings.TrimSpace(name))
			if !ok {
				var names []string
				for _, d := range paperDatasets {
					names = append(names, d.Name)
				}
				return usagef("--only: unknown dataset %q (want some of %s)", name, strings.Join(names, ", "))
			}
			o.Datasets = append(o.Datasets, d)
		}
	}
	if budgets != "" {
		bs, err := parseInts(budgets)
		if err != nil {
			return usagef("--budgets: %v", err)
		}
		for _, b := range bs {
			if b < 2 {
				return usagef("--budgets: a budget must be at least 2, got %d", b)
			}
		}
		for i := range o.Datasets {
			o.Datasets[i].Budgets = bs
		}
	}
	o.Algorithms = paperAlgorithms
	if algos != "" {
		list, err := parseAlgorithms(algos)
		if err != nil {
			return usageError{err}
		}
		o.Algorithms = list
	}
	g, ok := grids[gridName]
	if !ok {
		return usagef("--grid must be full, quick or tiny, got %q", gridName)
	}
	o.Grid = g
	proj, err := parseProjection(projection)
	if err != nil {
		return usageError{err}
	}
	o.Projection = proj
	switch o.Phase {
	case "all", "select", "report", "tables":
	default:
		return usagef("--phase must be all, select, report or tables, got %q", o.Phase)
	}
	if shardFlag != "" {
		s, err := parseShard(shardFlag)
		if err != nil {
			return usageError{err}
		}
		if s.N > 1 && o.Phase != "select" && o.Phase != "report" {
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
			if _, known := lookupDataset(ds); !ok || !known || err != nil {
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
