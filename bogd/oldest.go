package bogd

import "github.com/bogd-project/bogd/engine"

// oldest is BOGDOldest, the LSOKL toolbox's multi-class and regression
// "BOGD" (multiclass/BOGD.m, regression/BOGD.m): on every example
// f ← (1−λη)f; when the loss has a gradient (as OGD's, see ogd) the oldest
// support vector is dropped if the budget is full, and x is added with
// coefficient min(η·g, γη) along the update direction. There is no unbiased
// rescaling of the survivors, which is why it trails BOGD: it is here for
// comparison.
//
// The toolbox clips every coefficient to at most ηγ after the step (with
// γ = ∞ in its multi-class driver, and no clip in regression). Old
// coefficients only shrink, so only the new one can exceed the cap: it is
// clipped in magnitude here (the Euclidean projection onto |α| ≤ γη, where
// the toolbox's min() leaves negative coefficients alone). The binary form
// follows the multi-class rule (update when y·f(x) < 1), which the toolbox
// does not have.
type oldest struct {
	base
	age fifo
}

func newOldest(b base) *oldest { return &oldest{base: b, age: newFIFO(b.cfg.Budget)} }

func (l *oldest) learn(x *engine.Vector, t target) (updated bool, err error) {
	j, err := l.observe(x, t)
	if err != nil {
		return false, err
	}
	l.shrink(1 - l.cfg.Eta*l.cfg.Lambda)
	if !l.labels.violated(j, false) {
		return false, nil
	}
	if l.set.Len() == l.cfg.Budget {
		l.age.pop(l.remove(l.age.oldest()))
	}
	i, err := l.add(min(l.cfg.Eta*l.labels.gradient(j), l.cfg.Gamma*l.cfg.Eta), j.dir)
	if err != nil {
		return false, err
	}
	l.age.push(i, l.set.Len())
	return true, nil
}
