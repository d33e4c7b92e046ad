package bogd

import "github.com/bogd-project/bogd/engine"

// ogd is kernel online gradient descent on the regularised hinge loss
// (Kivinen, Smola, Williamson 2001, "NORMA"; the paper's Eq. 2), without a
// budget: every step f ← (1−ηλ)f, and when y·f(x) < 1 also
// f ← f + η·y·κ(x,·).
//
// The authors' OGD.m never reads λ (no shrink at all); with Lambda = 0 this
// rule is exactly theirs. The shrink applies every step because it is the
// gradient of the regulariser λ/2‖f‖², which does not depend on the loss.
type ogd struct{ base }

func (l *ogd) Observe(x engine.Vector, y int) (Outcome, error) {
	out, err := l.observe(x, y)
	if err != nil {
		return out, err
	}
	l.shrink(1 - l.cfg.Eta*l.cfg.Lambda)
	if float64(y)*out.Score < 1 {
		out.Updated = true
		_, err = l.add(x, l.cfg.Eta*float64(y))
	}
	return out, err
}
