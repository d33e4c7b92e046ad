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
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/simd"
)

// row is one line of `bogdbench run` output; its JSON form is the documented
// interface for scripts.
type row struct {
	Dataset            string  `json:"dataset"`
	Algorithm          string  `json:"algorithm"`
	Budget             int     `json:"budget"` // 0 for algorithms without a budget
	Runs               int     `json:"runs"`
	MistakeRateMean    float64 `json:"mistake_rate_mean"`
	MistakeRateStd     float64 `json:"mistake_rate_std"`
	SupportVectorsMean float64 `json:"support_vectors_mean"`
	SecondsMean        float64 `json:"seconds_mean"`
	Eta                float64 `json:"eta"`
	Lambda             float64 `json:"lambda"`
	Gamma              float64 `json:"gamma"`
	Sigma              float64 `json:"sigma"`
	SIMD               string  `json:"simd"`
}

func runCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", stderr)
	dataPath := fs.String("data", "", "LIBSVM data file, plain or gzip (required)")
	algos := fs.String("algo", "bogd,bogd++,rbp,forgetron,projectron,projectron++,perceptron,ogd", "comma-separated algorithms")
	budgets := fs.String("budget", "100", "comma-separated budgets")
	runs := fs.Int("runs", 20, "random permutations per (algorithm, budget)")
	seed := fs.Uint64("seed", 1, "seed of the permutations and the learners' random choices")
	sigma := fs.Float64("sigma", 8, "Gaussian kernel width: exp(-||x-y||^2/(2 sigma^2))")
	eta := fs.Float64("eta", 0.2, "step size (OGD, BOGD, BOGD++)")
	lambdaFlag := fs.String("lambda", "1/T^2", "regularisation (OGD, BOGD, BOGD++); 1/T^2 uses the number of rows T")
	gamma := fs.Float64("gamma", 10, "weight cap factor: weights stay <= gamma*eta (BOGD, BOGD++)")
	projection := fs.String("projection", "clip", "BOGD/BOGD++ projection: clip (each weight, the paper's Eq. 10) or rescale (all weights, the authors' code)")
	orderPath := fs.String("order", "", "file of fixed orders (one comma-separated 1-based permutation per line) instead of random permutations")
	format := fs.String("format", "table", "output format: table or json")
	savePath := fs.String("save", "", "save the learner of the last run to this model file (needs one algorithm and one budget)")
	plotDir := fs.String("plot", "", "write figures of the run into this directory (created if missing), PNG and SVG: the online mistake rate (mean over the runs) for each budget, and the mistake rate against seconds per pass")
	force := fs.Bool("force", false, "overwrite an existing model file (--save) and existing figure files (--plot); without it they are kept and the command fails")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dataPath == "" {
		return usagef("--data is required")
	}
	if *format != "table" && *format != "json" {
		return usagef("--format must be table or json, got %q", *format)
	}
	if *runs < 1 {
		return usagef("--runs must be at least 1, got %d", *runs)
	}
	algorithms, err := parseAlgorithms(*algos)
	if err != nil {
		return usageError{err}
	}
	budgetList, err := parseBudgets("--budget", *budgets)
	if err != nil {
		return err
	}
	proj, err := experiment.ParseProjection(*projection)
	if err != nil {
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
	for _, a := range algorithms {
		if !slices.Contains(figs.Algorithms, a) {
			figs.Algorithms = append(figs.Algorithms, a)
		}
	}
	if err := checkPlotDir(*plotDir, figs, *force); err != nil {
		return err
	}
	if err := simd.EnvError(); err != nil {
		return err
	}

	data, err := dataset.ReadFile(*dataPath, dataset.Options{Task: dataset.Binary, Warn: func(msg string) {
		fmt.Fprintf(stderr, "bogdbench run: warning: %s\n", msg)
	}})
	if err != nil {
		return err
	}
	lambda, err := parseLambda(*lambdaFlag, data.Len())
	if err != nil {
		return usagef("--lambda: %v", err)
	}
	orders, err := loadOrders(*orderPath, data.Len(), *runs, *seed)
	if err != nil {
		return err
	}
	var at []int // checkpoints of the online curves, with --plot
	if *plotDir != "" {
		at = experiment.Checkpoints(data.Len())
	}

	var rows []row
	var saved bogd.Learner
	for _, algo := range algorithms {
		cellBudgets := budgetList
		if !algo.Budgeted() {
			cellBudgets = []int{0} // one row: the budget does not apply
		}
		for _, budget := range cellBudgets {
			cfg := bogd.Config{Dim: data.Dim, Budget: budget, Sigma: *sigma, Eta: *eta, Lambda: lambda, Gamma: *gamma, Projection: proj}
			passes := make([]experiment.Result, len(orders))
			for r, order := range orders {
				cfg.Seed = experiment.LearnerSeed(*seed, r)
				l, err := bogd.New(algo, cfg)
				if err != nil {
					return err
				}
				if passes[r], err = experiment.Pass(context.Background(), experiment.Classifier(l, data), order, at); err != nil {
					return err
				}
				saved = l // the last run's is saved
			}
			s := experiment.Summarize(passes, data.Len())
			if at != nil {
				curves := make([][]int, len(passes))
				for r, p := range passes {
					curves[r] = p.Checkpoints
				}
				figs.Cells[experiment.FigureKey{Algo: algo, Budget: budget}] = experiment.FigureData{
					Curve: experiment.MeanCurve(data.Len(), curves), Mistake: s.MistakeRate, Seconds: s.Seconds,
				}
			}
			rows = append(rows, row{
				Dataset: name, Algorithm: algo.String(), Budget: budget, Runs: s.Runs,
				MistakeRateMean: s.MistakeRate, MistakeRateStd: s.MistakeRateStd,
				SupportVectorsMean: s.SupportVectors, SecondsMean: s.Seconds,
				Eta: *eta, Lambda: lambda, Gamma: *gamma, Sigma: *sigma, SIMD: simd.Active().String(),
			})
		}
	}
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
		saveErr = saveLast(*savePath, *force, saved, stderr)
	}
	return errors.Join(plotErr, saveErr)
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
	fmt.Fprintln(tw, "dataset\talgorithm\tbudget\truns\tmistakes (%)\t± std\tSVs\tseconds/pass\teta\tlambda\tgamma\tsigma\t")
	for _, r := range rows {
		budget := "-"
		if r.Budget > 0 {
			budget = strconv.Itoa(r.Budget)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.3f\t%.3f\t%.1f\t%.4f\t%g\t%.3g\t%g\t%g\t\n",
			r.Dataset, r.Algorithm, budget, r.Runs, r.MistakeRateMean, r.MistakeRateStd,
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
