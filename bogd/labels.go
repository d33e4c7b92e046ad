package bogd

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/bogd-project/bogd/task"
)

// pattern is the direction of an update that adds a support vector with a
// scalar weight: +1 on output pos, −1 on output neg (−1: no such output).
// A binary example of label +1 has {0, −1}, of label −1 {−1, 0}; a
// multi-class max-score update {y, s} (the true class and the highest-scoring
// wrong one); a regression update the sign of the residual. Learners whose
// coefficients are a scalar times a pattern (every one but the Projectrons)
// keep one pattern per support vector.
type pattern struct{ pos, neg int32 }

// sign returns the pattern's coefficient on output o: +1, −1 or 0.
func (p pattern) sign(o int) float64 {
	switch int32(o) {
	case p.pos:
		return 1
	case p.neg:
		return -1
	}
	return 0
}

// lead is an output on which the pattern is non-zero: where a weight's
// magnitude can be read.
func (p pattern) lead() int {
	if p.pos >= 0 {
		return int(p.pos)
	}
	return int(p.neg)
}

// signed returns the pattern of one output (binary, regression) for a
// coefficient of sign s.
func signed(s float64) pattern {
	if s < 0 {
		return pattern{pos: -1, neg: 0}
	}
	return pattern{pos: 0, neg: -1}
}

// target is a label as the learners see it: a class index (binary: the
// label ±1 itself, multi-class: the index of the label in Config.Classes)
// or a real value.
type target struct {
	class int
	value float64
}

// judgment is what a task makes of the scores of an example before the
// update: the prediction, whether it is wrong, and the direction and size
// of a loss-driven update.
type judgment struct {
	predicted int     // classification: the predicted label (binary) or class index
	mistake   bool    // classification: predicted ≠ true
	margin    float64 // classification: y·f (binary), f_y − f_s (multi-class)
	residual  float64 // regression: y − f
	dir       pattern // the update direction: {y, s}, the label's sign, or the residual's
}

// judge applies the task's prediction rule to the scores f of an example
// of label t.
func (l *labels) judge(f []float64, t target) judgment {
	switch l.task {
	case task.Binary:
		y := t.class
		return judgment{predicted: sign(f[0]), mistake: sign(f[0]) != y, margin: float64(y) * f[0], dir: signed(float64(y))}
	case task.Multiclass:
		best, runnerUp := argmax(f, -1), argmax(f, t.class)
		return judgment{
			predicted: best, mistake: best != t.class,
			margin: f[t.class] - f[runnerUp],
			dir:    pattern{pos: int32(t.class), neg: int32(runnerUp)},
		}
	}
	r := t.value - f[0]
	return judgment{residual: r, dir: signed(r)}
}

// argmax returns the index of the largest f[c] over c ≠ skip, the lowest
// index on ties (as MATLAB's max).
func argmax[T cmp.Ordered](f []T, skip int) int {
	best := -1
	for c, v := range f {
		if c != skip && (best < 0 || v > f[best]) {
			best = c
		}
	}
	return best
}

// sign is the binary prediction rule: sgn(f) with sgn(0) = +1.
func sign(f float64) int {
	if f < 0 {
		return -1
	}
	return 1
}

// labels turns a task's labels into targets and scores into predictions.
type labels struct {
	task    task.Task
	classes []int // multi-class: the label of each output, ascending
	epsilon float64
}

// outputs is the number of scores per example.
func (l *labels) outputs() int {
	if l.task == task.Multiclass {
		return len(l.classes)
	}
	return 1
}

// target checks a label of the task and converts it.
func (l *labels) target(y float64) (target, error) {
	switch l.task {
	case task.Binary:
		if y != 1 && y != -1 {
			return target{}, fmt.Errorf("label must be -1 or +1, got %v", y)
		}
		return target{class: int(y)}, nil
	case task.Multiclass:
		if y == math.Trunc(y) && math.Abs(y) <= math.MaxInt32 {
			if c, ok := slices.BinarySearch(l.classes, int(y)); ok {
				return target{class: c}, nil
			}
		}
		return target{}, fmt.Errorf("label %v is not one of the %d classes %v", y, len(l.classes), l.classes)
	}
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return target{}, fmt.Errorf("label %v is not a finite number", y)
	}
	return target{value: y}, nil
}

// violated reports whether an example's loss asks a loss-driven update
// (OGD, BOGD and their kin): a margin below 1 (or at most 1 when inclusive,
// as BOGD.m's y·f ≤ 1) in classification, a residual beyond ε in
// regression.
func (l *labels) violated(j judgment, inclusive bool) bool {
	switch {
	case l.task == task.Regression:
		return math.Abs(j.residual) > l.epsilon
	case inclusive:
		return j.margin <= 1
	}
	return j.margin < 1
}

// wrong reports whether an example asks a mistake-driven update (the
// Perceptron and its budgeted kin): a wrong label in classification, a
// residual beyond ε in regression.
func (l *labels) wrong(j judgment) bool {
	if l.task == task.Regression {
		return math.Abs(j.residual) > l.epsilon
	}
	return j.mistake
}

// gradient is the size of a loss-driven step along j.dir before η: 1 for
// the hinge losses, |y − f| for regression's ε-insensitive squared loss.
func (l *labels) gradient(j judgment) float64 {
	if l.task == task.Regression {
		return math.Abs(j.residual)
	}
	return 1
}
