package bogd

import "github.com/bogd-project/bogd/engine"

// ogd is kernel online gradient descent on a regularised loss (Kivinen,
// Smola, Williamson 2001, "NORMA"; the paper's Eq. 2), without a budget:
// every step f ← (1−ηλ)f, and when the loss has a gradient also
// f ← f + η·g·κ(x,·) along the update direction:
//
//   - binary: hinge loss, y·f(x) < 1, g = y;
//   - multi-class: the multi-class hinge loss max(0, 1 − (f_y − f_s)) > 0,
//     g = +1 on class y, −1 on the highest-scoring wrong class s;
//   - regression: the ε-insensitive squared loss, |y − f(x)| > ε,
//     g = y − f(x).
//
// The authors' OGD.m never reads λ (no shrink at all); with Lambda = 0 this
// rule is exactly theirs in every task. The shrink applies every step because
// it is the gradient of the regulariser λ/2‖f‖², which does not depend on
// the loss.
type ogd struct{ base }

func (l *ogd) learn(x *engine.Vector, t target) (updated bool, err error) {
	j, err := l.observe(x, t)
	if err != nil {
		return false, err
	}
	l.shrink(1 - l.cfg.Eta*l.cfg.Lambda)
	if !l.labels.violated(j, false) {
		return false, nil
	}
	_, err = l.add(l.cfg.Eta*l.labels.gradient(j), j.dir)
	return true, err
}
