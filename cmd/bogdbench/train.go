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
	"github.com/bogd-project/bogd/engine"
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
	shuffle := fs.Bool("shuffle", false, "learn the rows in a random order, a new one each pass (seeded by --shuffle-seed), rather than in file order (the rows are then held in memory): a file sorted by its labels is otherwise learnt one class after another")
	shuffleSeed := fs.Uint64("shuffle-seed", 1, "seed of the --shuffle orders")
	test := fs.String("test", "", "after training, judge the model on the labelled rows of this file, held out (predicted, never learnt): mistake rate or MSE beside the trivial predictor's, AUC, log loss, calibration")
	quiet := fs.Bool("q", false, "quiet: no progress and no summary on stderr (warnings and errors still)")
	algo := fs.String("algo", bogd.Auto.String(), "the algorithm: "+algorithmNames()+"; auto, the default, has nothing to tune: it weighs kernels of six widths around --sigma and step sizes itself")
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
	var src rowSource
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
		if src, err = sourceToContinue(path, stdin, l, *passes, *shuffle, opt.MaxRows, warn); err != nil {
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
		if st == engine.DenseStorage {
			opt.MaxIndex = denseIndexLimit(a, *budget)
		}
		lf.lambdaGiven = given["lambda"]
		data, err := df.open(path, stdin, opt, a, lf.lambdaGiven, *passes, *shuffle, warn, log)
		if err != nil {
			return err
		}
		src = data.src
		if lf.sigma, err = width.resolveSample(data.sample, log); err != nil {
			return err
		}
		lambda := 0.0 // a stream's, when the algorithm does not read it
		if lf.lambdaGiven || data.src.rows > 0 {
			if lambda, err = parseLambda(lf.lambda, data.src.rows); err != nil {
				return usagef("--lambda: %v", err)
			}
		}
		cfg := lf.config(a, *budget, data.head, lambda)
		cfg.Seed, cfg.Storage = *seed, st
		cfg.Calibrate = *calibrate && cfg.Task != task.Regression
		if claim := bogd.Memory(a, cfg, 0); claim > bogd.DefaultMaxMemory {
			return usagef("%v at budget %d over %d features would claim %d MiB, more than a model may (%d MiB): a smaller --budget, --storage sparse, or --hash",
				a, *budget, cfg.Dim, claim>>20, bogd.DefaultMaxMemory>>20)
		}
		if l, err = bogd.New(a, cfg); errors.Is(err, bogd.ErrConfig) {
			return usageError{err}
		} else if err != nil {
			return err
		}
		if err := l.SetInput(data.in); err != nil {
			return err
		}
		logf("%s", describeLearner(l))
		switch {
		case *shuffle:
			logf("%s: %d rows, %d features, %s, each in a random order (--shuffle, seed %d)", src.name, src.rows, data.head.Dim, experiment.Plural(*passes, "pass", "passes"), *shuffleSeed)
		case src.rows > 0:
			logf("%s: %d rows, %d features, %s in file order", src.name, src.rows, data.head.Dim, experiment.Plural(*passes, "pass", "passes"))
		default:
			logf("%s: a stream of rows of %d features, learnt as they come (Ctrl-C ends it and saves)", src.name, data.head.Dim)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var progress io.Writer
	if !*quiet {
		progress = stderr
	}
	if *shuffle {
		src = src.shuffled(*shuffleSeed)
	}
	done, err := trainPasses(ctx, l, src, *passes, progress, warn)
	if err != nil {
		return err
	}
	stop() // a second Ctrl-C ends the process
	if w := notBeaten(done.summary, "progressive validation"); w != "" {
		warn(w + " (try a smaller --eta, another --sigma, or bogdbench tune)")
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
	var interrupted error
	if done.interrupted {
		interrupted = fmt.Errorf("interrupted after %d examples", done.seen)
		if src.rows == 0 { // a stream ends where it is stopped
			logf("%v: the stream ends there", interrupted)
			interrupted = nil
		}
	}
	if *save == "" {
		return interrupted
	}
	if err := saveModel(*save, l, *force || sameFile(*save, *from)); err != nil {
		return err
	}
	logf("saved the %v learner (%d support vectors) to %s", l.Algorithm(), l.SupportVectors(), *save)
	if interrupted != nil {
		return fmt.Errorf("%w: the learner of those is saved to %s", interrupted, *save)
	}
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

// sourceToContinue is where the rows that continue training l come from:
// labels of l's task (binary files may hold 0/1; a class must be one of
// l's), features hashed and scaled as for l's training, those beyond its
// dimension ignored (with a warning). A file, and a stream learnt once,
// are read row by row; a stream of more passes, and any rows to shuffle,
// are held, within maxRows.
func sourceToContinue(path string, stdin io.Reader, l *bogd.Learner, passes int, shuffle bool, maxRows int, warn func(string)) (rowSource, error) {
	cfg, in := l.Config(), l.Input()
	tk := task.Regression // classes are checked against the model's
	if cfg.Task == task.Binary {
		tk = task.Binary
	}
	opt := dataset.Options{Task: tk, HashBits: in.HashBits, Warn: warn, MaxRows: maxRows}
	var classes []int
	if cfg.Task == task.Multiclass {
		classes = cfg.Classes
	}
	rp := newRowPrep(cfg.Dim, in, classes)
	switch {
	case shuffle: // held below, to be learnt in any order
	case !isStream(path):
		// Count the rows (and find the file's errors) before learning.
		s, err := dataset.OpenScanner(path, opt)
		if err != nil {
			return rowSource{}, err
		}
		for s.Scan() {
		}
		if err := errors.Join(s.Err(), s.Close()); err != nil {
			return rowSource{}, err
		}
		return warnBeyond(fileSource(path, s.Rows(), opt, rp), rp, warn), nil
	case passes == 1:
		return warnBeyond(streamSource(path, stdin, opt, rp), rp, warn), nil
	}
	rows, err := readData(path, stdin, opt)
	if errors.Is(err, dataset.ErrHeldLimit) && shuffle {
		return rowSource{}, fmt.Errorf("%w (--shuffle holds the rows)", err)
	} else if errors.Is(err, dataset.ErrHeldLimit) {
		return rowSource{}, streamHint(err, []string{"--passes 1"})
	} else if err != nil {
		return rowSource{}, err
	}
	if cfg.Task == task.Multiclass {
		for i, y := range rows.Labels {
			if y != math.Trunc(y) || !slices.Contains(classes, int(y)) {
				return rowSource{}, fmt.Errorf("%s: label %v is not one of the model's classes %v", rows.Where(i), y, classes)
			}
		}
		rows.Task, rows.Classes = task.Multiclass, classes
	}
	if rows, err = prepare(rows, l, warn); err != nil {
		return rowSource{}, err
	}
	return memorySource(rows), nil
}

// warnBeyond gives, at the end of src's first pass, the warning about the
// features beyond the model's dimension that rp dropped.
func warnBeyond(src rowSource, rp *rowPrep, warn func(string)) rowSource {
	open, warned := src.open, false
	src.open = func() (rowPass, error) {
		p, err := open()
		if err != nil || warned {
			return p, err
		}
		warned = true
		return &closeHook{rowPass: p, hook: func() {
			if rp.clipped.Features > 0 {
				warn(clippedWarning(src.name, rp.clipped))
			}
		}}, nil
	}
	return src
}

// closeHook runs hook when its pass closes.
type closeHook struct {
	rowPass
	hook func()
}

func (c *closeHook) close() error {
	c.hook()
	return c.rowPass.close()
}

// describeLearner says what a learner is and runs with.
func describeLearner(l *bogd.Learner) string {
	c := l.Config()
	s := fmt.Sprintf("%v %v", c.Task, l.Algorithm())
	if l.Algorithm().Budgeted() {
		s += fmt.Sprintf(", budget %d", c.Budget)
	}
	if l.Algorithm() == bogd.Auto {
		s += fmt.Sprintf(", widths %.6g·2^k (k = 1 … −4) and the linear kernel over %d random features", c.Sigma, c.Features)
	} else {
		s += fmt.Sprintf(", σ = %.6g", c.Sigma)
	}
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

// trained is what trainPasses did.
type trained struct {
	seen        int  // examples learnt
	interrupted bool // ctx ended the passes (SIGINT, SIGTERM) after them
	// summary judges the predictions made before each update, beside the
	// trivial predictor's (on the scale the learner learns).
	summary eval.Summary
}

// trainPasses feeds the rows of src to l in its order, passes times, each
// row predicted before it is learnt (progressive validation), holding no
// more rows than src does, and judges the predictions (eval: beside the
// trivial predictor's). With a progress writer, it prints the progressive
// validation there at doubling example counts, as Vowpal Wabbit does: the
// examples seen, the mistake rate (MSE) so far and since the line before,
// the support vectors and the examples per second; then a summary. After
// the first pass, warn hears whether the labels came sorted (unless src
// shuffles). When ctx ends, it stops after the example it is learning
// (checked every 256) and reports what it learnt: the learner is whole.
func trainPasses(ctx context.Context, l *bogd.Learner, src rowSource, passes int, progress io.Writer, warn func(string)) (trained, error) {
	// The rows are prepared: the evaluation is on the scale learnt.
	ev := eval.New(l.Config(), prep.Input{})
	order := newLabelOrder(l.Config().Task)
	regression := l.Config().Task == task.Regression
	metric := "mistakes %"
	if regression {
		metric = "MSE"
	}
	if progress != nil {
		fmt.Fprintf(progress, "%12s %5s %12s %12s %16s %12s\n", "examples", "pass", metric, "since last", "support vectors", "examples/s")
	}
	var res trained
	var lastSeen, mistakes, lastMistakes int
	var squared, lastSquared float64
	start := time.Now()
	next := 1 // the next count to report
	line := func(pass int) {
		seen := res.seen
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
	pass := 0
	for pass < passes && !res.interrupted {
		pass++
		p, err := src.open()
		if err != nil {
			return res, err
		}
		for p.next() {
			if res.seen&255 == 255 && ctx.Err() != nil {
				res.interrupted = true
				break
			}
			y, idx, val := p.row()
			step, err := l.Learn(engine.Sparse(idx, val), y)
			if err != nil {
				p.close()
				return res, fmt.Errorf("%s: %w", p.where(), err)
			}
			res.seen++
			ev.Add(y, step.Prediction)
			if pass == 1 {
				order.add(y)
			}
			if regression {
				r := y - step.Label
				if math.IsNaN(r*r) || math.IsInf(r*r, 0) {
					p.close()
					return res, fmt.Errorf("%s (example %d): the squared error is not finite: the learner diverged (try a smaller --eta); nothing saved", p.where(), res.seen)
				}
				squared += r * r
			} else if step.Mistake {
				mistakes++
			}
			if progress != nil && res.seen == next {
				line(pass)
				next *= 2
			}
		}
		if err := errors.Join(p.err(), p.close()); err != nil {
			return res, err
		}
		if how, sorted := order.sortedBy(); pass == 1 && !src.random && sorted {
			warn(fmt.Sprintf("%s: the labels come sorted: %s. Learnt in this order, the model sees one class (or range of targets) after another, and its mistake rate (MSE) is not that of a shuffled stream: --shuffle learns in a random order", src.name, how))
		}
	}
	if res.seen == 0 {
		return res, fmt.Errorf("%s: interrupted before the first example: nothing learnt", src.name)
	}
	res.summary = ev.Summary()
	if progress == nil {
		return res, nil
	}
	if res.seen != lastSeen {
		line(pass)
	}
	elapsed := time.Since(start)
	fmt.Fprintf(progress, "bogdbench train: %d examples in %.3g s (%.0f/s, %.3g s per pass): %s, %d support vectors\n",
		res.seen, elapsed.Seconds(), float64(res.seen)/elapsed.Seconds(), elapsed.Seconds()/float64(pass), progressiveSummary(res.summary), l.SupportVectors())
	return res, nil
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
