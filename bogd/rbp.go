package bogd

import "github.com/bogd-project/bogd/engine"

// rbp is the Randomized Budget Perceptron (Cavallanti, Cesa-Bianchi,
// Gentile 2007): on a mistake, if the budget is full, discard a support
// vector drawn uniformly at random, then add x with coefficient y. As the
// authors' RBP.m: the new example is never the one discarded.
type rbp struct{ base }

func (l *rbp) Observe(x engine.Vector, y int) (Outcome, error) {
	out, err := l.observe(x, y)
	if err != nil || !out.Mistake {
		return out, err
	}
	out.Updated = true
	if l.set.Len() == l.cfg.Budget {
		l.set.Remove(l.rng.IntN(l.set.Len()))
	}
	_, err = l.add(x, float64(y))
	return out, err
}
