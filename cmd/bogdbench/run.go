package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/eval"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/simd"
	"github.com/bogd-project/bogd/task"
)

// row is one line of `bogdbench run` output; its JSON form is the documented
// interface for scripts. Binary rows are as they were before tasks: the
// fields of the other tasks and of the later rules are left out. The
// trivial predictor's row (most frequent label, running mean) comes
// first in the table and last in JSON, where Trivial marks it.
type row struct {
	Dataset            string   `json:"dataset"`
	Algorithm          string   `json:"algorithm"`
	Trivial            bool     `json:"trivial,omitempty"`
	Budget             int      `json:"budget"` // 0 for algorithms without a budget
	Runs               int      `json:"runs"`
	Task               string   `json:"task,omitempty"`    // multiclass or regression
	Classes            []int    `json:"classes,omitempty"` // multiclass
	MistakeRateMean    *float64 `json:"mistake_rate_mean,omitempty"`
	MistakeRateStd     *float64 `json:"mistake_rate_std,omitempty"`
	MSEMean            *float64 `json:"mse_mean,omitempty"` // regression, in place of the mistake rate
	MSEStd             *float64 `json:"mse_std,omitempty"`
	SupportVectorsMean float64  `json:"support_vectors_mean"`
	SecondsMean        float64  `json:"seconds_mean"`
	CPUSecondsMean     float64  `json:"cpu_seconds_mean,omitempty"` // the pass's thread; 0 (left out) where the system does not tell it
	Eta                float64  `json:"eta"`
	Lambda             float64  `json:"lambda"`
	Gamma              float64  `json:"gamma"`
	Sigma              float64  `json:"sigma"`
	Epsilon            float64  `json:"epsilon,omitempty"`  // regression
	Nu                 float64  `json:"nu,omitempty"`       // NORMA
	C                  float64  `json:"c,omitempty"`        // BPA-S
	Rank               int      `json:"rank,omitempty"`     // NOGD
	Features           int      `json:"features,omitempty"` // FOGD
	Scale              string   `json:"scale,omitempty"`    // maxabs or minmax
	SIMD               string   `json:"simd"`
}

// defaultAlgorithms is the default of --algo: auto, the learner with
// nothing to tune.
const defaultAlgorithms = "auto"

func runCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", stderr)
	dataPath := fs.String("data", "", "LIBSVM data file, plain or gzip (required)")
	taskFlag := fs.String("task", "auto", "auto, binary, multiclass or regression; auto: labels in {-1,+1} or {0,1} are binary, integers with up to 1000 distinct values multi-class, anything else regression (the choice is printed)")
	scale := fs.String("scale", experiment.ScalingMaxAbs, scaleHelp)
	algos := fs.String("algo", defaultAlgorithms, "comma-separated algorithms (auto, the default, has nothing to tune; the ICML paper's eight: bogd,bogd++,rbp,forgetron,projectron,projectron++,perceptron,ogd)")
	budgets := fs.String("budget", "100", "comma-separated budgets")
	runs := fs.Int("runs", 20, "random permutations per (algorithm, budget)")
	seed := fs.Uint64("seed", 1, "seed of the permutations and the learners' random choices")
	f := addLearnerFlags(fs)
	width := kernelWidth{auto: true}
	fs.Var(&width, "sigma", sigmaHelp)
	orderPath := fs.String("order", "", "file of fixed orders (one comma-separated 1-based permutation per line) instead of random permutations")
	format := fs.String("format", "table", "output format: table or json")
	savePath := fs.String("save", "", "save the learner of the last run to this model file (needs one algorithm and one budget), with its --scale scaling, which predict and serve apply")
	plotDir := fs.String("plot", "", "write figures of the run into this directory (created if missing), PNG and SVG: the online mistake rate or MSE (mean over the runs) for each budget, and the metric against seconds per pass")
	force := fs.Bool("force", false, "overwrite an existing model file (--save) and existing figure files (--plot); without it they are kept and the command fails")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f.lambdaGiven = set(fs)["lambda"]
	if *dataPath == "" {
		return usagef("--data is required")
	}
	if *format != "table" && *format != "json" {
		return usagef("--format must be table or json, got %q", *format)
	}
	if *runs < 1 {
		return usagef("--runs must be at least 1, got %d", *runs)
	}
	tk, err := task.Parse(*taskFlag)
	if err != nil {
		return usagef("--task: %v", err)
	}
	if !validScale(*scale) {
		return usagef("--scale must be maxabs, minmax or none, got %q", *scale)
	}
	algorithms, err := parseAlgorithms(*algos)
	if err != nil {
		return usageError{err}
	}
	budgetList, err := parseBudgets("--budget", *budgets)
	if err != nil {
		return err
	}
	if f.projection, err = experiment.ParseProjection(f.projectionName); err != nil {
		return usagef("--projection: %v", err)
	}
	if *savePath != "" && (len(algorithms) != 1 || len(budgetList) != 1) {
		return usagef("--save needs exactly one algorithm and one budget")
	}
	if *force && *savePath == "" && *plotDir == "" {
		return usagef("--force needs --save or --plot")
	}
	if err := checkSavePath(*savePath, *force); err != nil {
		return err
	}
	name := datasetName(*dataPath)
	figs := experiment.FigureSet{Name: name, Budgets: slices.Compact(slices.Sorted(slices.Values(budgetList))), Cells: map[experiment.FigureKey]experiment.FigureData{}}
	if err := checkPlotDir(*plotDir, figs, *force); err != nil {
		return err
	}
	if err := simd.EnvError(); err != nil {
		return err
	}

	warn := func(msg string) { fmt.Fprintf(stderr, "bogdbench run: warning: %s\n", msg) }
	data, err := dataset.ReadFile(*dataPath, dataset.Options{Task: tk, Warn: warn})
	if err != nil {
		return err
	}
	learnerTask := data.Task
	if tk == task.Auto {
		fmt.Fprintf(stderr, "bogdbench run: --task auto: %s\n", describeTask(data))
	}
	var in prep.Input
	if data, in.Scaling, err = scaleData(data, *scale); err != nil {
		return err
	}
	if f.sigma, err = width.resolve(data, func(msg string) { fmt.Fprintf(stderr, "bogdbench run: %s\n", msg) }); err != nil {
		return err
	}
	data = data.Compact() // held for every run
	figs.Task = learnerTask
	for _, a := range algorithms {
		if !slices.Contains(figs.Algorithms, a) {
			figs.Algorithms = append(figs.Algorithms, a)
		}
	}
	lambda, err := parseLambda(f.lambda, data.Len())
	if err != nil {
		return usagef("--lambda: %v", err)
	}
	orders, err := loadOrders(*orderPath, data.Len(), *runs, *seed)
	if err != nil {
		return err
	}
	// Every configuration is checked before the first pass: a bad flag
	// fails at once, as a usage error.
	var cells []runCell
	for _, algo := range algorithms {
		cellBudgets := budgetList
		if !algo.Budgeted() {
			cellBudgets = []int{0} // one row: the budget does not apply
		}
		for _, budget := range cellBudgets {
			cfg := f.config(algo, budget, data, lambda)
			l, err := bogd.New(algo, cfg)
			if errors.Is(err, bogd.ErrConfig) {
				return usageError{err}
			} else if err != nil {
				return err
			}
			cells = append(cells, runCell{algo, budget, cfg, l.Config()})
		}
	}
	var at []int // checkpoints of the online curves, with --plot
	if *plotDir != "" {
		at = experiment.Checkpoints(data.Len())
	}

	var rows []row
	var saved *bogd.Learner
	for _, c := range cells {
		passes := make([]experiment.Result, len(orders))
		for r, order := range orders {
			cfg := c.cfg
			cfg.Seed = experiment.LearnerSeed(*seed, r)
			l, err := bogd.New(c.algo, cfg)
			if err != nil {
				return err
			}
			if passes[r], err = experiment.Pass(context.Background(), experiment.Bind(l, data), order, at); err != nil {
				return err
			}
			saved = l // the last run's is saved
		}
		s := experiment.Summarize(passes, data.Len(), learnerTask)
		if at != nil {
			figs.Cells[experiment.FigureKey{Algo: c.algo, Budget: c.budget}] = experiment.FigureData{
				Curve: experiment.MeanCurve(data.Len(), passes, learnerTask), Metric: s.Metric, Seconds: s.Seconds,
			}
		}
		rows = append(rows, c.row(name, data, s, *scale))
	}
	base, err := trivialRow(name, data, orders)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if !eval.Beats(r.metric(), base.metric()) {
			fmt.Fprintf(stderr, "bogdbench run: warning: %s (budget %d) is not better than the trivial predictor by %g%% of it: %.5g against its %.5g\n",
				r.Algorithm, r.Budget, 100*eval.BeatMargin, r.metric(), base.metric())
		}
	}
	rows = append(rows, base)
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rows)
	} else {
		err = writeTable(stdout, rows)
	}
	if err != nil {
		return err
	}
	// The runs are done: write the figures and the model independently, so
	// that a failure of one loses not the other.
	var plotErr, saveErr error
	if *plotDir != "" {
		plotErr = writeRunPlots(*plotDir, figs, *force, stderr)
	}
	if *savePath != "" {
		if saveErr = saved.SetInput(in); saveErr == nil {
			saveErr = saveLast(*savePath, *force, saved, stderr)
		}
	}
	return errors.Join(plotErr, saveErr)
}

// describeTask says what --task auto chose for data.
func describeTask(d *dataset.Dataset) string {
	switch d.Task {
	case task.Multiclass:
		return fmt.Sprintf("multiclass, %d classes %v", len(d.Classes), d.Classes)
	case task.Regression:
		return "regression"
	}
	return "binary"
}

// runCell is one (algorithm, budget) of `run`: the configuration of its
// learners (their seed aside), as given and as the learner completed it.
type runCell struct {
	algo      bogd.Algorithm
	budget    int
	cfg, used bogd.Config
}

// row is the output line of the cell's summary s; the parameters are
// those the learner ran with, the later rules' only where they apply.
func (c runCell) row(name string, data *dataset.Dataset, s experiment.Summary, scale string) row {
	u := c.used
	r := row{
		Dataset: name, Algorithm: c.algo.String(), Budget: c.budget, Runs: s.Runs,
		SupportVectorsMean: s.SupportVectors, SecondsMean: s.Seconds, CPUSecondsMean: s.CPUSeconds,
		Eta: u.Eta, Lambda: u.Lambda, Gamma: u.Gamma, Sigma: u.Sigma, SIMD: simd.Active().String(),
	}
	mean, std := s.Metric, s.MetricStd
	switch u.Task {
	case task.Regression:
		r.Task, r.MSEMean, r.MSEStd, r.Epsilon = u.Task.String(), &mean, &std, u.Epsilon
	case task.Multiclass:
		r.Task, r.Classes, r.MistakeRateMean, r.MistakeRateStd = u.Task.String(), data.Classes, &mean, &std
	default:
		r.MistakeRateMean, r.MistakeRateStd = &mean, &std
	}
	switch c.algo {
	case bogd.NORMA:
		r.Nu = u.Nu
	case bogd.NOGD:
		r.Rank = u.Rank
	}
	if c.algo.Params(u.Task).Has(bogd.ParamC) {
		r.C = u.C
	}
	if c.algo == bogd.FOGD {
		r.Features = u.Features
	}
	if scale != "none" {
		r.Scale = scale
	}
	return r
}

// trivialRow is the row of the trivial predictor (experiment.Trivial)
// over the runs' orders.
func trivialRow(name string, data *dataset.Dataset, orders [][]int) (row, error) {
	passes := make([]experiment.Result, len(orders))
	for r, order := range orders {
		var err error
		if passes[r], err = experiment.Pass(context.Background(), experiment.Trivial(data), order, nil); err != nil {
			return row{}, err
		}
	}
	s := experiment.Summarize(passes, data.Len(), data.Task)
	r := row{Dataset: name, Algorithm: "trivial", Trivial: true, Runs: s.Runs, SecondsMean: s.Seconds, CPUSecondsMean: s.CPUSeconds, SIMD: simd.Active().String()}
	mean, std := s.Metric, s.MetricStd
	switch data.Task {
	case task.Regression:
		r.Task, r.MSEMean, r.MSEStd = data.Task.String(), &mean, &std
	case task.Multiclass:
		r.Task, r.Classes, r.MistakeRateMean, r.MistakeRateStd = data.Task.String(), data.Classes, &mean, &std
	default:
		r.MistakeRateMean, r.MistakeRateStd = &mean, &std
	}
	return r, nil
}

// metric is the row's mean mistake rate or MSE.
func (r row) metric() float64 {
	if r.MSEMean != nil {
		return *r.MSEMean
	}
	return *r.MistakeRateMean
}

// checkPlotDir refuses, before any run, a --plot directory that is not a
// directory, and (without force) figure files of the run that exist.
func checkPlotDir(dir string, d experiment.FigureSet, force bool) error {
	if dir == "" {
		return nil
	}
	if fi, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil // created with the figures
	} else if err != nil {
		return fmt.Errorf("--plot: %w", err)
	} else if !fi.IsDir() {
		return fmt.Errorf("--plot %s: not a directory", dir)
	}
	if force {
		return nil
	}
	return forceHint(experiment.CheckFree(experiment.FigurePaths(dir, d.Name, d.Budgets)))
}

// writeRunPlots writes the figures of `run --plot` into dir.
func writeRunPlots(dir string, d experiment.FigureSet, force bool, stderr io.Writer) error {
	files, err := experiment.DrawFigures(dir, []experiment.FigureSet{d}, force)
	if err != nil {
		return forceHint(err)
	}
	fmt.Fprintf(stderr, "bogdbench run: wrote %d figures (PNG and SVG) of %s to %s\n", len(files), d.Name, dir)
	return nil
}

// loadOrders returns the orders of the runs: the first runs lines of the
// order file, or seeded random permutations.
func loadOrders(path string, n, runs int, seed uint64) ([][]int, error) {
	if path == "" {
		orders := make([][]int, runs)
		for r := range orders {
			orders[r] = experiment.Permutation(seed, r, n)
		}
		return orders, nil
	}
	orders, err := dataset.ReadOrders(path, n, runs)
	if err != nil {
		return nil, err
	}
	if len(orders) < runs {
		return nil, fmt.Errorf("%s: %d orders, --runs asks for %d", path, len(orders), runs)
	}
	return orders, nil
}

func writeTable(w io.Writer, rows []row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	metric := "mistakes (%)"
	if len(rows) > 0 && rows[0].MSEMean != nil {
		metric = "MSE"
	}
	fmt.Fprintf(tw, "dataset\talgorithm\tbudget\truns\t%s\t± std\tSVs\tseconds/pass\teta\tlambda\tgamma\tsigma\t\n", metric)
	if n := len(rows); n > 0 && rows[n-1].Trivial {
		// The figure to beat, first.
		r := rows[n-1]
		mean, std, format := r.MistakeRateMean, r.MistakeRateStd, "%.3f\t%.3f"
		if r.MSEMean != nil {
			mean, std, format = r.MSEMean, r.MSEStd, "%.5g\t%.3g"
		}
		fmt.Fprintf(tw, "%s\t%s\t-\t%d\t"+format+"\t0.0\t%.4f\t-\t-\t-\t-\t\n", r.Dataset, r.Algorithm, r.Runs, *mean, *std, r.SecondsMean)
		rows = rows[:n-1]
	}
	for _, r := range rows {
		budget := "-"
		if r.Budget > 0 {
			budget = strconv.Itoa(r.Budget)
		}
		mean, std := r.MistakeRateMean, r.MistakeRateStd
		format := "%.3f\t%.3f"
		if r.MSEMean != nil {
			mean, std, format = r.MSEMean, r.MSEStd, "%.5g\t%.3g"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t"+format+"\t%.1f\t%.4f\t%g\t%.3g\t%g\t%.6g\t\n",
			r.Dataset, r.Algorithm, budget, r.Runs, *mean, *std,
			r.SupportVectorsMean, r.SecondsMean, r.Eta, r.Lambda, r.Gamma, r.Sigma)
	}
	if len(rows) > 0 {
		fmt.Fprintf(tw, "simd: %s\n", rows[0].SIMD)
	}
	return tw.Flush()
}

// datasetName is the file name without directories and data extensions.
func datasetName(path string) string {
	name := filepath.Base(path)
	for _, ext := range []string{".gz", ".svm", ".libsvm", ".txt"} {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}

func parseAlgorithms(s string) ([]bogd.Algorithm, error) {
	var out []bogd.Algorithm
	for _, name := range strings.Split(s, ",") {
		a, err := bogd.ParseAlgorithm(name)
		if err != nil {
			return nil, fmt.Errorf("--algo: %w", err)
		}
		out = append(out, a)
	}
	return out, nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseBudgets reads a comma-separated list of budgets for flag name;
// every learner needs room for two support vectors.
func parseBudgets(name, s string) ([]int, error) {
	bs, err := parseInts(s)
	if err != nil {
		return nil, usagef("%s: %v", name, err)
	}
	for _, b := range bs {
		if b < 2 {
			return nil, usagef("%s: a budget must be at least 2, got %d", name, b)
		}
	}
	return bs, nil
}

// forceHint tells how to overwrite the files an error found in the way.
func forceHint(err error) error {
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	var ee *experiment.ExistsError
	if errors.As(err, &ee) && len(ee.Paths) > 1 {
		return fmt.Errorf("%w: pass --force to overwrite them", err)
	}
	return fmt.Errorf("%w: pass --force to overwrite it", err)
}

// parseLambda reads a number or "1/T^2" (also "c/T^2" for a constant c).
func parseLambda(s string, rows int) (float64, error) {
	t2 := float64(rows) * float64(rows)
	if c, ok := strings.CutSuffix(strings.ReplaceAll(s, " ", ""), "/T^2"); ok {
		v, err := strconv.ParseFloat(c, 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, fmt.Errorf("%q is not of the form c/T^2", s)
		}
		return v / t2, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}
