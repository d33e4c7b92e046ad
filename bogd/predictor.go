package bogd

import (
	"context"

	"github.com/bogd-project/bogd/engine"
)

// Predictor is a frozen copy of a learner: its model, its calibration, its
// task and its classes. It predicts exactly what the learner predicted when
// Learner.Predictor made it, never changes, and is safe for any number of
// goroutines, also while the learner goes on learning: what a service
// publishes to answer predictions.
type Predictor struct {
	b *base // of a copy of the learner that nothing ever trains
}

// Predictor returns a frozen copy of the learner's present state. Making it
// copies the model (through the model format, so it predicts exactly as a
// saved and loaded learner); it may run while other goroutines predict, not
// while the learner learns. A learner whose weights overflowed to infinity
// (a step size far too large) has no Predictor: it cannot be saved either.
func (l *Learner) Predictor() (*Predictor, error) {
	data, err := encode(l.b)
	if err != nil {
		return nil, err
	}
	frozen, err := decode(data, 0)
	if err != nil {
		return nil, err
	}
	return &Predictor{b: frozen.b}, nil
}

// Predict predicts x, as Learner.Predict.
func (p *Predictor) Predict(x engine.Vector) (Prediction, error) { return p.b.predict(x) }

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
