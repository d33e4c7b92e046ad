package bogd

import "github.com/bogd-project/bogd/engine"

// perceptron is the kernel Perceptron (Rosenblatt 1958), without a budget:
// on a mistake (sgn(f(x)) ≠ y, sgn(0) = +1) it adds x with coefficient y.
// Identical to the authors' perceptron.m.
type perceptron struct{ base }

func (l *perceptron) Observe(x engine.Vector, y int) (Outcome, error) {
	out, err := l.observe(x, y)
	if err != nil || !out.Mistake {
		return out, err
	}
	out.Updated = true
	_, err = l.add(x, float64(y))
	return out, err
}
