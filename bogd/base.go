package bogd

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/task"
)

// The implementation every algorithm shares: the support set and its
// scales, scoring, the prediction of a task, and the updates of weights.
//
// Support vectors and float32 weights live in an engine.Set, one weight
// column per output (K for K classes); learners keep global float64 scale
// factors so that a shrink of every weight costs O(1), renormalising before
// a scale under- or overflows.

// pcgStream is the second PCG seed word of every learner's random source.
const pcgStream = 0x62_6f_67_64

// build assembles a learner of a validated configuration around an empty
// support set with room for capacity vectors and the random source pcg.
func build(a Algorithm, cfg Config, capacity int, pcg *rand.PCG) (persistent, error) {
	cfg.Classes = slices.Clone(cfg.Classes)
	lab := labels{task: cfg.Task, classes: cfg.Classes, epsilon: cfg.Epsilon}
	k := lab.outputs()
	columns := columnsOf(a, cfg)
	set, err := engine.New(cfg.Dim, cfg.Sigma, engine.Options{Capacity: capacity, Columns: columns, Storage: cfg.Storage})
	if err != nil {
		return nil, fmt.Errorf("%v: %w", a, err)
	}
	b := base{
		cfg: cfg, algo: a, labels: lab, outputs: k, set: set, scale: 1, pcg: pcg, rng: rand.New(pcg),
		scores: make([]float64, k), sums: make([]float64, columns),
	}
	if cfg.Calibrate {
		b.cal, b.probs = newCalibration(k), make([]float64, k)
	}
	var l persistent
	switch a {
	case Perceptron:
		l = &perceptron{base: b}
	case OGD:
		l = &ogd{base: b}
	case NORMA:
		l = &norma{base: b, eps: cfg.Epsilon}
	case RBP:
		l = &rbp{base: b}
	case BOGD:
		l = newUniform(b)
	case BOGDpp:
		l = newNonUniform(b)
	case BOGDOldest:
		l = newOldest(b)
	case BPAS:
		l = newBPAS(b)
	case NOGD:
		l = newNOGD(b)
	case BSGDMerge:
		l = newBSGD(b)
	case FOGD:
		f, err := newFOGD(b)
		if err != nil {
			return nil, err
		}
		l = f
	case Auto:
		a, err := newAuto(b)
		if err != nil {
			return nil, err
		}
		l = a
	case Forgetron:
		l = newForgetron(b)
	default: // Projectron, ProjectronPP
		l = newProjectron(b)
	}
	l.core().rule = l
	l.core().custom, _ = l.(scorer)
	return l, nil
}

// rule is an algorithm's step: the part of a learner that differs between
// algorithms. learn scores x (base.observe, which leaves the scores in
// base.scores), judges it, updates, and reports whether the model changed
// beyond a uniform shrink. x comes by pointer, and goes on so (observe, the
// scratch's query): a Vector is ten words, and at small budgets every copy
// of it is a visible part of a step. A pointer through the interface
// escapes, so it points into memory that is already on the heap: the
// learner's own copy (base.query) or the caller's batch.
type rule interface {
	learn(x *engine.Vector, t target) (updated bool, err error)
}

// base is what every learner shares: the support set, the global scale of
// the first group of weight columns, the random source and the scratch.
type base struct {
	cfg     Config
	algo    Algorithm
	labels  labels
	outputs int // classes (multi-class) or 1
	set     *engine.Set
	scale   float64   // α = scale·w for weight columns 0..k−1
	group   float64   // α = group·w for weight columns k..2k−1, when there are
	pcg     *rand.PCG // the state of rng, kept for saving and restoring
	rng     *rand.Rand
	rule    persistent // the concrete learner: its step and its saved state
	custom  scorer     // rule, when its scores are its own (looked up once)

	// pat holds the pattern of every support vector of the learners whose
	// coefficients are a scalar times a pattern (add keeps it; the
	// Projectrons leave it empty), aligned with the set through remove.
	pat    []pattern
	scores []float64 // f_c(x) of the last observe
	judged judgment  // and their judgment
	sums   []float64 // column sums of one evaluation
	cal    *Calibration
	probs  []float64 // probabilities of the last Learn

	scratch engine.Scratch // the kernel values of the last evaluation, for the update
	query   engine.Vector  // Learn's x, where rule.learn can point (it holds x's slices until the next Learn, as scratch does)
}

// scorer is implemented by the learners whose scores are not the sums of
// their weight columns (NOGD's second phase): scoresWith calls it instead.
type scorer interface {
	customScores(sc *engine.Scratch, x engine.Vector, f, sums []float64) error
}

// scoresWith writes the scores of x into f on the scratch sc (sums holds
// one value per weight column, for the learner's use). With a scratch of
// its own a reader computes exactly what learning computes, without
// touching the learner; on the learner's own scratch the kernel values stay
// there for the update. x goes by pointer down to the engine's call: a
// Vector is ten words, and at small budgets each call that copies them on
// is a visible part of a step.
func (b *base) scoresWith(sc *engine.Scratch, x *engine.Vector, f, sums []float64) error {
	if b.custom != nil {
		return b.custom.customScores(sc, *x, f, sums)
	}
	return b.kernelScores(sc, x, f, sums)
}

// kernelScores evaluates f_c(x) = scale·Σᵢ w_{c,i}κ(x,sᵢ) + group·Σᵢ
// w_{k+c,i}κ(x,sᵢ) for every output c into f: the scores of every learner
// but NOGD in its second phase.
func (b *base) kernelScores(sc *engine.Scratch, x *engine.Vector, f, sums []float64) error {
	cols := b.set.Columns()
	if err := b.set.Evaluate(sc, *x, sums[:cols]); err != nil {
		return fmt.Errorf("%v: %w", b.algo, err)
	}
	for c := range b.outputs {
		f[c] = b.scale * sums[c]
		if cols > b.outputs {
			f[c] += b.group * sums[b.outputs+c]
		}
	}
	return nil
}

// observe scores x on the learner's own scratch (the kernel values stay there
// for the update) and judges the scores against t. The judgment is the
// learner's, valid until the next observe: a pointer, where a copy of its
// six words at every use would be a visible part of a step.
func (b *base) observe(x *engine.Vector, t target) (*judgment, error) {
	if err := b.scoresWith(&b.scratch, x, b.scores, b.sums); err != nil {
		return nil, err
	}
	b.labels.judge(&b.judged, b.scores, t)
	return &b.judged, nil
}

// learn predicts x, then learns it with label y (checked against the task).
// The step's Scores and Probabilities alias the learner's buffers. Not
// inlined: inlined into Learn, it copied the step that learnTo had just
// written field by field with wider loads, which the processor cannot
// forward (2–6% of a step at B = 100); returned from here, the step's
// words are read one by one.
//
//go:noinline
func (b *base) learn(x *engine.Vector, y float64) (st Step, err error) {
	b.query = *x
	err = b.learnTo(&st, &b.query, y)
	return st, err
}

// learnTo is learn, writing the step into *st, which it finds zero, field by
// field. A Step is ten words: returned in registers, its caller spills and
// copies it with loads wider than the spill's stores, which the processor
// cannot forward (4–5% of a BOGD-oldest pass at B = 100); written in place, as
// learnBatch does, there is no copy. x must stay where it is until learnTo
// returns (see rule).
func (b *base) learnTo(st *Step, x *engine.Vector, y float64) error {
	t, err := b.labels.target(y)
	if err != nil {
		return fmt.Errorf("%v: %w", b.algo, err)
	}
	updated, err := b.rule.learn(x, t)
	if err != nil {
		return err
	}
	var probs []float64
	if b.cal != nil {
		probs = b.cal.Probabilities(b.scores, b.probs)
	}
	b.predict(&st.Prediction, b.scores, probs)
	st.Mistake = b.labels.task != task.Regression && st.Label != y
	st.Updated = updated
	if b.cal != nil {
		b.cal.learn(b.scores, t.class, b.probs)
	}
	return nil
}

// predict writes into p what the task predicts from the scores f and, when
// the learner calibrates, the probabilities probs of every output (see
// Prediction): it keeps f and probs as Scores and Probabilities.
func (b *base) predict(p *Prediction, f, probs []float64) {
	switch b.labels.task {
	case task.Binary:
		p.Label, p.Score, p.Probability = float64(sign(f[0])), f[0], math.NaN()
		if probs != nil {
			p.Label, p.Probability = 1, probs[0]
			if probs[0] < 0.5 {
				p.Label, p.Probability = -1, 1-probs[0]
			}
		}
	case task.Multiclass:
		c := argmax(f, -1)
		p.Probability = math.NaN()
		if probs != nil {
			c = argmax(probs, -1)
			p.Probability = probs[c]
		}
		p.Label, p.Score, p.Scores, p.Probabilities = float64(b.labels.classes[c]), f[c], f, probs
	default:
		p.Label, p.Score, p.Probability = f[0], f[0], math.NaN()
	}
}

// prediction scores x on a scratch borrowed from the set, so that any number
// of goroutines may predict at once while nothing learns.
func (b *base) prediction(x engine.Vector) (p Prediction, err error) {
	scores := make([]float64, b.outputs)
	sc := b.set.Borrow()
	defer b.set.Release(sc)
	sums := make([]float64, b.set.Columns())
	if err := b.scoresWith(sc, &x, scores, sums); err != nil {
		return Prediction{}, err
	}
	var probs []float64
	if b.cal != nil {
		probs = b.cal.Probabilities(scores, nil)
	}
	b.predict(&p, scores, probs)
	return p, nil
}

// batchCheck is how many examples a batch call handles between looks at
// its context.
const batchCheck = 256

// learnBatch learns xs[i] with label ys[i] in order (see Learner.LearnBatch).
func (b *base) learnBatch(ctx context.Context, xs []engine.Vector, ys []float64, dst []Step) ([]Step, error) {
	if len(xs) != len(ys) {
		return dst[:0], fmt.Errorf("%v: %d examples and %d labels", b.algo, len(xs), len(ys))
	}
	dst = dst[:0]
	for i := range xs {
		if i%batchCheck == 0 && ctx.Err() != nil {
			return dst, ctx.Err()
		}
		dst = append(dst, Step{}) // written in place (see learnTo)
		st := &dst[i]
		if err := b.learnTo(st, &xs[i], ys[i]); err != nil {
			return dst[:i], fmt.Errorf("example %d: %w", i, err)
		}
		st.Scores, st.Probabilities = slices.Clone(st.Scores), slices.Clone(st.Probabilities)
	}
	return dst, nil
}

// predictBatch predicts every x into dst[:0] (see Learner.PredictBatch).
func (b *base) predictBatch(ctx context.Context, xs []engine.Vector, dst []Prediction) ([]Prediction, error) {
	dst = dst[:0]
	for i, x := range xs {
		if i%batchCheck == 0 && ctx.Err() != nil {
			return dst, ctx.Err()
		}
		p, err := b.prediction(x)
		if err != nil {
			return dst, fmt.Errorf("example %d: %w", i, err)
		}
		dst = append(dst, p)
	}
	return dst, nil
}

// config returns the configuration, sharing nothing with the learner.
func (b *base) config() Config {
	c := b.cfg
	c.Classes = slices.Clone(c.Classes)
	return c
}

// shrink multiplies every weight of the first column group by factor,
// renormalising the stored weights when the scale leaves the range where
// float32 weights stay accurate.
//
// Weights that fall below 1e-30 become exactly 0: they cannot matter next
// to a new weight of at least η ≥ 1e-20, and float32 denormals would make
// every later kernel sum crawl. It reports whether it rewrote the weights.
func (b *base) shrink(factor float64) (renormalized bool) {
	b.scale *= factor
	if b.scale < 1e-15 || b.scale > 1e15 {
		for c := range b.outputs {
			w := b.set.WeightColumn(c)
			for i := range w {
				if v := float64(w[i]) * b.scale; math.Abs(v) >= 1e-30 {
					w[i] = float32(v)
				} else {
					w[i] = 0
				}
			}
		}
		b.scale = 1
		return true
	}
	return false
}

// add stores the example of the last observe, still the query of the
// learner's scratch, with coefficient a (≥ 0, or any sign in a one-output
// pattern learner that passes signed) along the pattern p: a in column
// p.pos, −a in column p.neg, divided by the scale. It returns the
// example's index.
func (b *base) add(a float64, p pattern) (int, error) {
	i, err := b.set.AddQuery(&b.scratch)
	if err != nil {
		return 0, fmt.Errorf("%v: %w", b.algo, err)
	}
	b.setFree(i, a, p)
	for len(b.pat) <= i {
		b.pat = append(b.pat, pattern{})
	}
	b.pat[i] = p
	return i, nil
}

// setFree writes coefficient a along pattern p as the free (scaled) weight
// of slot i.
func (b *base) setFree(i int, a float64, p pattern) {
	if p.pos >= 0 {
		b.set.WeightColumn(int(p.pos))[i] = float32(a / b.scale)
	}
	if p.neg >= 0 {
		b.set.WeightColumn(int(p.neg))[i] = float32(-a / b.scale)
	}
}

// weight returns the magnitude of slot i's free weight (columns 0..k−1).
func (b *base) weight(i int) float64 {
	return b.scale * math.Abs(float64(b.set.WeightColumn(b.pat[i].lead())[i]))
}

// remove deletes support vector i, keeping the patterns aligned with the
// swap-remove; it returns the former index of the vector that moved into
// slot i, or -1.
func (b *base) remove(i int) (moved int) {
	moved = b.set.Remove(i)
	if moved >= 0 && moved < len(b.pat) {
		b.pat[i] = b.pat[moved]
	}
	return moved
}
