package eval

import (
	"math"

	"github.com/bogd-project/bogd/task"
)

// Trivial is the simplest online predictor of a task, the baseline a
// model must beat to have learnt anything from the features: in
// classification it predicts the most frequent label among those it has
// learnt (of equal counts, the one that reached the count first; before
// any label, none: NaN, a mistake), in regression their mean (0 before
// the first, where every learner starts too). It sees the labels alone,
// one at a time, as a learner sees the rows.
type Trivial struct {
	regression bool
	counts     map[float64]*int // one lookup a row: a pass's every row learns
	best       float64          // the most frequent label, NaN before any
	bestCount  int
	n          int
	mean       float64
}

// NewTrivial returns the trivial predictor of task t, before any label.
func NewTrivial(t task.Task) *Trivial {
	if t == task.Regression {
		return &Trivial{regression: true}
	}
	return &Trivial{counts: map[float64]*int{}, best: math.NaN()}
}

// Predict is the prediction for the next row.
func (t *Trivial) Predict() float64 {
	if t.regression {
		return t.mean
	}
	return t.best
}

// Learn takes the label of a row, after Predict.
func (t *Trivial) Learn(y float64) {
	t.n++
	if t.regression {
		t.mean += (y - t.mean) / float64(t.n)
		return
	}
	c := t.counts[y]
	if c == nil {
		c = new(int)
		t.counts[y] = c
	}
	*c++
	if math.IsNaN(t.best) || *c > t.bestCount {
		t.best, t.bestCount = y, *c
	}
}

// trivialScore sums the losses of a Trivial on the rows it is fed.
type trivialScore struct {
	*Trivial
	mistakes int
	squared  float64
}

// add judges the prediction for a row of label y, then learns y.
func (s *trivialScore) add(y float64) {
	p := s.Predict()
	if s.regression {
		s.squared += (y - p) * (y - p)
	} else if p != y {
		s.mistakes++
	}
	s.Learn(y)
}
