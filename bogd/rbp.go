package bogd

import "github.com/bogd-project/bogd/engine"

// rbp is the Randomized Budget Perceptron (Cavallanti, Cesa-Bianchi,
// Gentile 2007): the Perceptron's update (of every task, see perceptron),
// but if the budget is full a support vector drawn uniformly at random is
// discarded first. As the authors' RBP.m: the new example is never the one
// discarded.
type rbp struct{ base }

func (l *rbp) learn(x *engine.Vector, t target) (updated bool, err error) {
	j, err := l.observe(x, t)
	if err != nil || !l.labels.wrong(j) {
		return false, err
	}
	if l.set.Len() == l.cfg.Budget {
		l.remove(l.rng.IntN(l.set.Len()))
	}
	_, err = l.add(l.mistakeStep(), j.dir)
	return true, err
}
