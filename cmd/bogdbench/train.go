package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/eval"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/simd"
	"github.com/bogd-project/bogd/task"
)

// trainCommand is `bogdbench train`: one learner over the rows of a file
// or of standard input, in file order, for one or more passes, printing
// progressive validation (every row is predicted before it is learnt) at
// doubling example counts, then saving the learner. With --model it
// continues a saved learner, exactly as if it had never stopped.
func trainCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("train", stderr)
	data := fs.String("data", "", "LIBSVM rows, plain or gzip: a file, or - for standard input (the default when it is not a terminal)")
	from := fs.String("model", "", "continue training this saved model, with its algorithm, parameters, task, classes and input preparation (hashing, scaling): the flags that set those cannot be given with it")
	save := fs.String("save", "", "save the learner to this model file (atomically; an existing file needs --force, unless it is the --model continued), with its hashing and scaling")
	force := fs.Bool("force", false, "overwrite an existing --save file")
	passes := fs.Int("passes", 1, "passes over the data, each in file order (or a random one: --shuffle)")
	shuffle := fs.Bool("shuffle", false, "learn the rows in a random order, a new one each pass (seeded by --shuffle-seed), rather than in file order: a file sorted by its labels is otherwise learnt one class after another")
	shuffleSeed := fs.Uint64("shuffle-seed", 1, "seed of the --shuffle orders")
	test := fs.String("test", "", "after training, judge the model on the labelled rows of this file, held out (predicted, never learnt): mistake rate or MSE beside the trivial predictor's, AUC, log loss, calibration")
	quiet := fs.Bool("q", false, "quiet: no progress and no summary on stderr (warnings and errors still)")
	algo := fs.String("algo", "bogd++", "the algorithm: "+algorithmNames())
	budget := fs.Int("budget", 100, "maximum support vectors (budgeted algorithms)")
	seed := fs.Uint64("seed", 1, "seed of the learner's random choices")
	lf := addLearnerFlags(fs)
	width := kernelWidth{auto: true}
	fs.Var(&width, "sigma", sigmaHelp)
	calibrate := fs.Bool("calibrate", true, "classifiers: fit probabilities online (Platt scaling, its softmax form for classes), so that predict and serve give them; --calibrate=false to turn off")
	storage := fs.String("storage", "auto", storageHelp)
	df := addDataFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	given := set(fs)
	if *passes < 1 {
		return usagef("--passes must be at least 1, got %d", *passes)
	}
	if *force && *save == "" {
		return usagef("--force needs --save")
	}
	opt, err := df.options()
	if err != nil {
		return err
	}
	path, err := dataPath(*data, stdin)
	if err != nil {
		return err
	}
	if *test == "-" && path == "-" {
		return usagef("--test - and the training data both read standard input: give one a file")
	}
	logf := func(format string, args ...any) {
		if !*quiet {
			fmt.Fprintf(stderr, "bogdbench train: "+format+"\n", args...)
		}
	}
	log := func(msg string) { logf("%s", msg) }
	warn := func(msg string) { fmt.Fprintf(stderr, "bogdbench train: warning: %s\n", msg) }

	var l *bogd.Learner
	var rows *dataset.Dataset
	if *from != "" {
		if fixed := learnerFlagsGiven(given); len(fixed) > 0 {
			return usagef("--model continues a saved model with its own settings: %s cannot be given with it", fixed[0])
		}
		if err := checkSave(*save, *from, *force); err != nil {
			return err
		}
		if err := simd.EnvError(); err != nil {
			return err
		}
		if l, err = loadModel(*from, log); err != nil {
			return err
		}
		if rows, err = readToContinue(path, stdin, l, warn); err != nil {
			return err
		}
		logf("continuing %s: %s", *from, describeLearner(l))
	} else {
		a, err := bogd.ParseAlgorithm(*algo)
		if err != nil {
			return usagef("--algo: %v", err)
		}
		if *budget < 2 {
			return usagef("--budget: a budget must be at least 2, got %d", *budget)
		}
		if lf.projection, err = experiment.ParseProjection(lf.projectionName); err != nil {
			return usagef("--projection: %v", err)
		}
		st, err := parseStorage(*storage)
		if err != nil {
			return err
		}
		if err := checkSave(*save, "", *force); err != nil {
			return err
		}
		if err := simd.EnvError(); err != nil {
			return err
		}
		var in prep.Input
		if rows, in, err = df.read(path, stdin, opt, warn, log); err != nil {
			return err
		}
		lf.lambdaGiven = given["lambda"]
		if lf.sigma, err = width.resolve(rows, log); err != nil {
			return err
		}
		lambda, err := parseLambda(lf.lambda, rows.Len())
		if err != nil {
			return usagef("--lambda: %v", err)
		}
		cfg := lf.config(a, *budget, rows, lambda)
		cfg.Seed, cfg.Storage = *seed, st
		cfg.Calibrate = *calibrate && cfg.Task != task.Regression
		if l, err = bogd.New(a, cfg); errors.Is(err, bogd.ErrConfig) {
			return usageError{err}
		} else if err != nil {
			return err
		}
		if err := l.SetInput(in); err != nil {
			return err
		}
		logf("%s", describeLearner(l))
	}
	var order func(pass int) []int
	if *shuffle {
		order = func(pass int) []int { return passOrder(rows.Len(), pass, true, *shuffleSeed) }
		logf("%s: %d rows, %d features, %s, each in a random order (--shuffle, seed %d)", rows.Name, rows.Len(), rows.Dim, experiment.Plural(*passes, "pass", "passes"), *shuffleSeed)
	} else {
		logf("%s: %d rows, %d features, %s in file order", rows.Name, rows.Len(), rows.Dim, experiment.Plural(*passes, "pass", "passes"))
		check := newLabelOrder(l.Config().Task)
		for _, y := range rows.Labels {
			check.add(y)
		}
		if how, sorted := check.sortedBy(); sorted {
			warn(fmt.Sprintf("%s: the labels come sorted: %s. Learnt in this order, the model sees one class (or range of targets) after another, and its mistake rate (MSE) is not that of a shuffled stream: --shuffle learns in a random order", rows.Name, how))
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var progress io.Writer
	if !*quiet {
		progress = stderr
	}
	s, err := trainPasses(ctx, l, rows, *passes, order, progress)
	if err != nil {
		return err
	}
	if w := notBeaten(s, "progressive validation"); w != "" {
		warn(w + " (try a smaller --eta, --sigma auto, or bogdbench tune)")
	}
	if *test != "" {
		var out io.Writer = stderr
		if *quiet {
			out = io.Discard
		}
		s, err := testModel(l, *test, stdin, out, warn)
		if err != nil {
			return err
		}
		if w := notBeaten(s, "held out ("+*test+")"); w != "" {
			warn(w)
		}
	}
	if *save == "" {
		return nil
	}
	if err := saveModel(*save, l, *force || sameFile(*save, *from)); err != nil {
		return err
	}
	logf("saved the %v learner (%d support vectors) to %s", l.Algorithm(), l.SupportVectors(), *save)
	return nil
}

// learnerFlagsGiven lists the flags given that set what a saved model
// already fixes.
func learnerFlagsGiven(given map[string]bool) []string {
	var out []string
	for _, name := range []string{"algo", "budget", "seed", "sigma", "eta", "lambda", "gamma", "epsilon", "nu", "C", "rank", "features", "projection", "calibrate", "storage", "task", "scale", "hash", "dim"} {
		if given[name] {
			out = append(out, "--"+name)
		}
	}
	return out
}

// checkSave checks --save before any work (see checkSavePath); the model
// being continued may be replaced without --force: that is what
// `--model M --save M` asks.
func checkSave(save, continued string, force bool) error {
	return checkSavePath(save, force || sameFile(save, continued))
}

// sameFile reports whether paths a and b name one existing file.
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// readToContinue reads the rows that continue training l: labels of l's
// task (binary files may hold 0/1; a class must be one of l's), features
// hashed and scaled as for l's training, those beyond its dimension
// ignored with a warning.
func readToContinue(path string, stdin io.Reader, l *bogd.Learner, warn func(string)) (*dataset.Dataset, error) {
	cfg := l.Config()
	tk := task.Regression // classes are checked against the model's below
	if cfg.Task == task.Binary {
		tk = task.Binary
	}
	rows, err := readData(path, stdin, dataset.Options{Task: tk, HashBits: l.Input().HashBits, Warn: warn})
	if err != nil {
		return nil, err
	}
	if cfg.Task == task.Multiclass {
		classes := cfg.Classes
		for i, y := range rows.Labels {
			if y != math.Trunc(y) || !slices.Contains(classes, int(y)) {
				return nil, fmt.Errorf("%s: label %v is not one of the model's classes %v", rows.Where(i), y, classes)
			}
		}
		rows.Task, rows.Classes = task.Multiclass, classes
	}
	return prepare(rows, l, warn)
}

// describeLearner says what a learner is and runs with.
func describeLearner(l *bogd.Learner) string {
	c := l.Config()
	s := fmt.Sprintf("%v %v", c.Task, l.Algorithm())
	if l.Algorithm().Budgeted() {
		s += fmt.Sprintf(", budget %d", c.Budget)
	}
	s += fmt.Sprintf(", σ = %.6g", c.Sigma)
	read := l.Algorithm().Params(c.Task)
	if read.Has(bogd.ParamEta) {
		s += fmt.Sprintf(", η = %.6g", c.Eta)
	}
	if read.Has(bogd.ParamLambda) {
		s += fmt.Sprintf(", λ = %.6g", c.Lambda)
	}
	if read.Has(bogd.ParamGamma) {
		s += fmt.Sprintf(", γ = %.6g", c.Gamma)
	}
	if read.Has(bogd.ParamC) {
		s += fmt.Sprintf(", C = %.6g", c.C)
	}
	if c.Task == task.Regression {
		s += fmt.Sprintf(", ε = %.6g", c.Epsilon)
	}
	if c.Task == task.Multiclass {
		s += fmt.Sprintf(", classes %v", c.Classes)
	}
	if storage, err := c.Storage.Resolve(c.Dim); err == nil {
		s += fmt.Sprintf(", %v storage", storage)
	}
	if c.Calibrate {
		s += ", calibrated"
	}
	return s
}

// trainPasses feeds the rows of data to l, passes times, in file order or
// in order(pass) (pass from 1), each row predicted before it is learnt
// (experiment.Pass), and returns the evaluation of those predictions
// (eval.Summary: beside the trivial predictor's). With a progress writer,
// it prints the progressive validation there at doubling example
// counts, as Vowpal Wabbit does: the examples seen, the mistake rate
// (MSE) so far and since the line before, the support vectors and the
// examples per second; then a summary.
func trainPasses(ctx context.Context, l *bogd.Learner, data *dataset.Dataset, passes int, order func(pass int) []int, progress io.Writer) (eval.Summary, error) {
	// The rows are prepared already: the evaluation is on the scale the
	// learner learns.
	ev := eval.New(l.Config(), prep.Input{})
	bound := experiment.BindJudged(l, data, ev.Add)
	regression := l.Config().Task == task.Regression
	metric := "mistakes %"
	if regression {
		metric = "MSE"
	}
	if progress != nil {
		fmt.Fprintf(progress, "%12s %5s %12s %12s %16s %12s\n", "examples", "pass", metric, "since last", "support vectors", "examples/s")
	}
	var seen, lastSeen, mistakes, lastMistakes int
	var squared, lastSquared float64
	start := time.Now()
	next := 1 // the next count to report
	line := func(pass int) {
		rate := func(m int, sq float64, n int) float64 {
			if regression {
				return sq / float64(n)
			}
			return 100 * float64(m) / float64(n)
		}
		format := "%12d %5d %12.3f %12.3f %16d %12.0f\n"
		if regression {
			format = "%12d %5d %12.6g %12.6g %16d %12.0f\n"
		}
		fmt.Fprintf(progress, format, seen, pass,
			rate(mistakes, squared, seen), rate(mistakes-lastMistakes, squared-lastSquared, seen-lastSeen),
			l.SupportVectors(), float64(seen)/time.Since(start).Seconds())
		lastSeen, lastMistakes, lastSquared = seen, mistakes, squared
	}
	n := data.Len()
	for pass := 1; pass <= passes; pass++ {
		rows := passOrder(n, pass, false, 0)
		if order != nil {
			rows = order(pass)
		}
		for at := 0; at < n; {
			end := n
			if progress != nil {
				end = min(n, at+next-seen)
			}
			res, err := experiment.Pass(ctx, bound, rows[at:end], nil)
			if errors.Is(err, context.Canceled) {
				return eval.Summary{}, fmt.Errorf("interrupted after %d examples: nothing saved", seen)
			} else if err != nil {
				return eval.Summary{}, err
			}
			if res.DivergedAt > 0 {
				return eval.Summary{}, fmt.Errorf("%s (example %d): the squared error is not finite: the learner diverged (try a smaller --eta); nothing saved",
					data.Where(rows[at+res.DivergedAt-1]), seen+res.DivergedAt)
			}
			seen += end - at
			mistakes += res.Mistakes
			squared += res.SquaredError
			at = end
			if progress != nil && seen == next {
				line(pass)
				next *= 2
			}
		}
		if progress != nil && pass == passes && seen != lastSeen {
			line(pass)
		}
	}
	s := ev.Summary()
	if progress != nil {
		elapsed := time.Since(start)
		fmt.Fprintf(progress, "bogdbench train: %d examples in %.3g s (%.0f/s, %.3g s per pass): %s, %d support vectors\n",
			seen, elapsed.Seconds(), float64(seen)/elapsed.Seconds(), elapsed.Seconds()/float64(passes), progressiveSummary(s), l.SupportVectors())
	}
	return s, nil
}

// progressiveSummary says what the progressive validation s found, beside
// the trivial predictor's.
func progressiveSummary(s eval.Summary) string {
	if s.MSE != nil {
		return fmt.Sprintf("MSE %.6g (progressive validation; the trivial predictor, the mean of the labels before each: %.6g)", *s.MSE, *s.BaselineMSE)
	}
	out := fmt.Sprintf("mistake rate %.3f%% (progressive validation; the trivial predictor, the most frequent label before each: %.3f%%)", *s.MistakeRate, *s.BaselineMistakeRate)
	if s.AUC != nil {
		out += fmt.Sprintf(", AUC %.4f", *s.AUC)
	}
	if s.LogLoss != nil {
		out += fmt.Sprintf(", log loss %.4f", *s.LogLoss)
	}
	return out
}

// algorithmNames lists the algorithms for help texts.
func algorithmNames() string {
	var names []string
	for _, a := range bogd.Algorithms() {
		names = append(names, a.String())
	}
	return strings.Join(names, ", ")
}
