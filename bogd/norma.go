package bogd

import (
	"math"

	"github.com/bogd-project/bogd/engine"
)

// norma is NORMA for regression with the ν-trick of Kivinen, Smola and
// Williamson (2004): the ε of the ε-insensitive absolute loss adapts so that
// about a fraction ν of the examples update. As the authors' Epsilon.m, on
// each example with residual r = y − f(x) (f before this step):
//
//   - f ← (1−λη)f;
//   - if |r| > ε: f ← f + η·sgn(r)·κ(x,·) and ε ← ε + (1−ν)η;
//   - else ε ← ε − νη.
//
// ε starts at Config.Epsilon and may become negative. Without a budget.
type norma struct {
	base
	eps float64 // the current ε
}

func (l *norma) learn(x *engine.Vector, t target) (updated bool, err error) {
	j, err := l.observe(x, t)
	if err != nil {
		return false, err
	}
	l.shrink(1 - l.cfg.Eta*l.cfg.Lambda)
	if math.Abs(j.residual) <= l.eps {
		l.eps -= l.cfg.Nu * l.cfg.Eta
		return false, nil
	}
	l.eps += (1 - l.cfg.Nu) * l.cfg.Eta
	_, err = l.add(l.cfg.Eta, j.dir)
	return true, err
}
