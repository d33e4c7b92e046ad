package bogd

import (
	"context"
	"math/rand/v2"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/prep"
)

// Learner is an online learner: one algorithm, one task, a Gaussian kernel.
// Every algorithm of every task is a Learner; New makes one, Load reads one
// that Save wrote.
//
// Concurrency: Predict, PredictBatch, Predictor, Algorithm, Config, Input,
// SupportVectors, Save and SaveFile may run on many goroutines at once
// while no Learn or LearnBatch runs; learning needs the learner to itself.
// To predict while it learns, publish Predictors: a Predictor never
// changes, and is always safe.
type Learner struct {
	b  *base
	in prep.Input // how raw rows become its rows (SetInput)
}

// Prediction is what a learner predicts for one example, with one meaning
// in every task, for Learner and Predictor alike.
//
// A calibrated classifier (Config.Calibrate) predicts the label it finds
// most probable: binary +1 exactly when P(+1) ≥ 0.5, multi-class the class
// of the largest probability. Without calibration a classifier predicts by
// its scores: binary the sign of f(x) (+1 when f(x) = 0), multi-class the
// class of the largest score. Ties go to the lowest class. A regressor
// predicts f(x).
//
// The algorithms' update rules judge by the scores (their sign, their
// argmax) whether or not the learner calibrates, as their papers do; the
// calibration changes what a learner predicts, never what it learns.
type Prediction struct {
	// Label is the predicted label: ±1 (binary), a class label
	// (multi-class) or the predicted value f(x) (regression).
	Label float64
	// Score is f(x) (binary, regression) or the predicted class's score.
	Score float64
	// Scores holds f_c(x) for every class, in Config.Classes order
	// (multi-class only).
	Scores []float64
	// Probability is the calibrated probability of Label, so at least 0.5
	// in binary classification (P(+1) is Probability when Label is +1,
	// else 1 − Probability); NaN when the learner does not calibrate.
	Probability float64
	// Probabilities holds every class's calibrated probability, in
	// Config.Classes order (multi-class, calibrated only).
	Probabilities []float64
}

// Step is the result of one Learn call: the prediction made before the
// update, and what the update did.
type Step struct {
	Prediction
	// Mistake reports, in classification, that the prediction's Label is
	// not the true label.
	Mistake bool
	// Updated reports that the model changed beyond a uniform shrink.
	Updated bool
}

// New returns a learner of cfg.Task running algorithm a. Zero fields of
// cfg take the defaults of Defaults; an invalid configuration is an error
// wrapping ErrConfig that names the algorithm and the field.
func New(a Algorithm, cfg Config) (*Learner, error) {
	cfg = cfg.withDefaults(a)
	if err := cfg.validate(a); err != nil {
		return nil, err
	}
	capacity := cfg.Budget
	if !a.Budgeted() {
		capacity = 1024
	}
	switch a {
	case BSGDMerge:
		capacity++ // a new vector joins before two merge
	case FOGD, Auto:
		capacity = 0 // no support vectors
	}
	l, err := build(a, cfg, capacity, rand.NewPCG(cfg.Seed, pcgStream))
	if err != nil {
		return nil, err
	}
	return &Learner{b: l.core()}, nil
}

// Learn predicts the label of x, then learns from its true label y: −1 or
// +1 (binary), one of Config.Classes (multi-class), a finite value
// (regression). The step's Scores and Probabilities are valid until the
// next Learn.
func (l *Learner) Learn(x engine.Vector, y float64) (Step, error) { return l.b.learn(x, y) }

// LearnBatch learns xs[i] with label ys[i] in order, as Learn, and returns
// the steps (appended to dst[:0]; each with scores of its own). It stops
// with ctx's error when ctx is done (checked every 256 examples), having
// learnt the examples before.
func (l *Learner) LearnBatch(ctx context.Context, xs []engine.Vector, ys []float64, dst []Step) ([]Step, error) {
	return l.b.learnBatch(ctx, xs, ys, dst)
}

// Predict predicts x without learning.
func (l *Learner) Predict(x engine.Vector) (Prediction, error) { return l.b.predict(x) }

// PredictBatch predicts every x, as Predict, into dst[:0]; it stops with
// ctx's error when ctx is done (checked every 256 examples).
func (l *Learner) PredictBatch(ctx context.Context, xs []engine.Vector, dst []Prediction) ([]Prediction, error) {
	return l.b.predictBatch(ctx, xs, dst)
}

// Algorithm returns the learner's algorithm.
func (l *Learner) Algorithm() Algorithm { return l.b.algo }

// Config returns the learner's configuration, every default filled and the
// task resolved.
func (l *Learner) Config() Config { return l.b.config() }

// SupportVectors returns the number of stored support vectors.
func (l *Learner) SupportVectors() int { return l.b.set.Len() }
