package bogd

import (
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/task"
)

// perceptron is the kernel Perceptron (Rosenblatt 1958), without a budget.
// On a mistake (binary: sgn(f(x)) ≠ y with sgn(0) = +1; multi-class: the
// argmax is not y) it adds x with coefficient y (binary), or +1 on class y
// and −1 on the highest-scoring wrong class s (multi-class, the max-score
// update). In regression it adds x with η·sgn(y − f(x)) when |y − f(x)| > ε
// (the ε-insensitive absolute loss's subgradient step). Identical to the
// authors' perceptron.m in every task.
type perceptron struct{ base }

func (l *perceptron) learn(x *engine.Vector, t target) (updated bool, err error) {
	j, err := l.observe(x, t)
	if err != nil || !l.labels.wrong(j) {
		return false, err
	}
	_, err = l.add(l.mistakeStep(), j.dir)
	return true, err
}

// mistakeStep is the coefficient a mistake-driven rule adds: 1 in
// classification, η in regression (the toolbox's eta_perceptron).
func (b *base) mistakeStep() float64 {
	if b.labels.task == task.Regression {
		return b.cfg.Eta
	}
	return 1
}
