package bogd

import (
	"context"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/prep"
)

// Predictor is a frozen copy of a learner: its model, its calibration, its
// task, its classes and its input preparation. It predicts exactly what the
// learner predicted when Learner.Predictor made it, never changes, and is
// safe for any number of goroutines, also while the learner goes on
// learning: what a service publishes to answer predictions. PredictRow
// takes the raw rows a service receives and answers on the label's scale,
// as `bogdbench predict` and `bogdbench serve` do.
type Predictor struct {
	b  *base      // of a copy of the learner that nothing ever trains
	in prep.Input // the learner's
}

// Predictor returns a frozen copy of the learner's present state. Making it
// copies the model (through the model format, so it predicts exactly as a
// saved and loaded learner); it may run while other goroutines predict, not
// while the learner learns. A learner whose weights overflowed to infinity
// (a step size far too large) has no Predictor: it cannot be saved either.
func (l *Learner) Predictor() (*Predictor, error) {
	data, err := encode(l.b, l.in)
	if err != nil {
		return nil, err
	}
	frozen, err := decode(data, 0)
	if err != nil {
		return nil, err
	}
	return &Predictor{b: frozen.b, in: frozen.in}, nil
}

// Predict predicts x, a row already prepared, as Learner.Predict: a
// regression's Label is on the scale the model learnt.
func (p *Predictor) Predict(x engine.Vector) (Prediction, error) { return p.b.predict(x) }

// PredictRow prepares the raw features of a row (p.Input().Prepare: keys
// are 1-based indices, or names when the input hashes them) into row, and
// predicts it: a regression's Label on the label's scale (the input's
// scaling undone; Score stays f(x)), a classifier's as Predict. row is the
// caller's working memory, one per goroutine; afterwards it holds the
// prepared row, and in row.Ignored the features beyond the model's
// dimension. A row that cannot be prepared is an error wrapping
// prep.ErrRow.
func (p *Predictor) PredictRow(row *prep.Row, features []prep.Feature) (Prediction, error) {
	if err := p.in.Prepare(row, features, p.b.cfg.Dim); err != nil {
		return Prediction{}, err
	}
	pred, err := p.b.predict(engine.Sparse(row.Index, row.Value))
	if err != nil {
		return Prediction{}, err
	}
	pred.Label = p.in.Unlabel(pred.Label)
	return pred, nil
}

// Input returns how raw rows are prepared for it (Learner.SetInput).
func (p *Predictor) Input() prep.Input { return p.in }

// PredictBatch predicts every x, as Learner.PredictBatch.
func (p *Predictor) PredictBatch(ctx context.Context, xs []engine.Vector, dst []Prediction) ([]Prediction, error) {
	return p.b.predictBatch(ctx, xs, dst)
}

// Algorithm returns the algorithm of the learner it was made from.
func (p *Predictor) Algorithm() Algorithm { return p.b.algo }

// Config returns the configuration of the learner it was made from: its
// Task, Classes, Dim, Calibrate and the rest.
func (p *Predictor) Config() Config { return p.b.config() }

// SupportVectors returns the number of support vectors it holds.
func (p *Predictor) SupportVectors() int { return p.b.set.Len() }

// Calibration returns a copy of its calibration of scores into
// probabilities, or nil when the learner does not calibrate.
func (p *Predictor) Calibration() *Calibration {
	if p.b.cal == nil {
		return nil
	}
	return p.b.cal.clone()
}
