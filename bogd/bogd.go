package bogd

import (
	"math"

	"github.com/bogd-project/bogd/engine"
)

// uniform is BOGD with uniform sampling (the paper's Algorithm 1 with
// pᵢ = 1/B). With hinge loss, on each example:
//
//   - if y·f(x) > 1: f ← (1−λη)f;
//   - else, below the budget: f ← (1−λη)f + η·y·κ(x,·);
//   - else, at the budget: discard one support vector drawn uniformly, scale
//     the survivors by (1−λη)·B/(B−1) (Eq. 10 with pᵢ = 1/B), add x with
//     weight η, and project: ClipEach (default) sets every weight above γη
//     to γη, the Euclidean projection onto Ω(ηγ) that Eq. (10) writes;
//     RescaleAll multiplies all weights by min(1, γη/maxᵢαᵢ) as BOGD.m does.
//
// The boundary y·f(x) = 1 updates, as in the authors' BOGD.m (the hinge
// loss has subgradient −1 there too). Where this differs from BOGD.m: the new
// weight is min(η, γη) rather than η (the projection applies to it; equal for
// γ ≥ 1), and the default projection clips each weight.
//
// Multi-class and regression: the step is OGD's (see ogd; binary and
// multi-class update when the margin is at most 1, regression when
// |y − f(x)| > ε), with the new coefficient min(η·g, γη) along the update
// direction, and the removal, rescaling and clip are the same. Every
// support vector's coefficients are then its weight αᵢ ≥ 0 times its
// pattern (+1 on class y, −1 on class s; or a sign), and only the weights
// are ever rescaled, so all of the above applies to αᵢ unchanged; clipping
// αᵢ at γη clips every coefficient to [−γη, γη]. (The toolbox's own
// multi-class and regression "BOGD" drops the oldest vector instead, without
// the unbiased rescaling: BOGDOldest.)
//
// Representation: the weights that reached the cap γη grow no further, and
// all survivors scale by the same factor, so weights live in two columns:
// column 1 holds the capped ones, all equal to base.group, column 0 the free
// ones with the global factor base.scale (columns k..2k−1 and 0..k−1 with k
// outputs, each holding the vector's pattern). freeWeights tracks the
// largest free weight, to find those that cross γη.
type uniform struct {
	base
	free *freeWeights // the slots whose weight is not capped (the others live in column 1)
}

func newUniform(b base) *uniform {
	return &uniform{base: b, free: newFreeWeights(b.cfg.Budget)}
}

// key is free slot i's key in freeWeights: its stored weight's magnitude.
func (l *uniform) key(i int32) float32 {
	return float32(math.Abs(float64(l.set.WeightColumn(l.pat[i].lead())[i])))
}

func (l *uniform) learn(x *engine.Vector, t target) (updated bool, err error) {
	j, err := l.observe(x, t)
	if err != nil {
		return false, err
	}
	lr := 1 - l.cfg.Eta*l.cfg.Lambda
	if !l.labels.violated(j, true) {
		l.scaleAll(lr)
		return false, nil
	}
	budget := l.cfg.Budget
	if l.set.Len() < budget {
		l.scaleAll(lr)
	} else {
		l.discard(l.rng.IntN(budget))
		l.scaleAll(lr * float64(budget) / float64(budget-1))
	}
	i, err := l.add(min(l.cfg.Eta*l.labels.gradient(j), l.cfg.Gamma*l.cfg.Eta), j.dir)
	if err != nil {
		return false, err
	}
	l.free.add(i, l.key(int32(i)))
	l.project()
	return true, nil
}

// scaleAll multiplies every weight by factor.
func (l *uniform) scaleAll(factor float64) {
	if l.shrink(factor) {
		l.free.refresh(l.key) // the stored weights changed: their keys
	}
	l.group *= factor
}

// discard removes support vector i, keeping the free weights aligned with
// the swap-remove.
func (l *uniform) discard(i int) {
	l.free.remove(i)
	moved := l.remove(i)
	if moved >= 0 {
		l.free.move(moved, i)
	}
}

// project brings every weight back to at most γη.
func (l *uniform) project() {
	limit := l.cfg.Gamma * l.cfg.Eta
	if l.cfg.Projection == RescaleAll {
		largest := l.group
		if l.free.len() > 0 {
			_, key := l.free.largest()
			largest = max(largest, l.alpha(key))
		}
		if largest > limit {
			l.scaleAll(limit / largest)
		}
		return
	}
	if l.free.len() == l.set.Len() {
		l.group = limit // no capped weights: the column starts at the cap
	}
	l.group = min(l.group, limit)
	for l.free.len() > 0 {
		i, key := l.free.largest()
		// The tolerance stops the loop at a weight clipped in place below,
		// whose float32 division may land a hair above the cap.
		if l.alpha(key) <= limit*(1+1e-6) {
			break
		}
		if l.group == limit {
			// Join the capped columns: their value is exactly the cap.
			l.free.remove(i)
			l.join(i)
			continue
		}
		// The capped weights shrank below the cap after they were capped,
		// so this one cannot join them: clip it in place.
		l.setFree(i, limit, l.pat[i])
		l.free.set(i, l.key(int32(i)))
	}
}

// alpha returns the weight (without sign) of a free support vector whose
// key in freeWeights is key: base.weight's, as the key is its stored weight's
// magnitude.
func (l *uniform) alpha(key float32) float64 { return l.scale * float64(key) }

// join moves slot i from the free weight columns to the group columns
// (capped in BOGD, the equal-weight group in BOGD++), where it holds its
// pattern: ±1 on the outputs of the pattern, scaled by base.group.
func (b *base) join(i int) {
	p := b.pat[i]
	for o := range b.outputs {
		if v := p.sign(o); v != 0 {
			b.set.WeightColumn(o)[i] = 0
			b.set.WeightColumn(b.outputs + o)[i] = float32(v)
		}
	}
}
