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
// Representation: the weights that reached the cap γη grow no further, and
// all survivors scale by the same factor, so weights live in two columns:
// column 1 holds the capped ones, all equal to base.group, column 0 the free
// ones with the global factor base.scale. A max-heap over the free weights
// finds those that cross γη, so a step costs O(log B) besides f(x).
type uniform struct {
	base
	capped []bool // per slot: the weight lives in column 1
	free   *maxHeap
}

func newUniform(b base) *uniform {
	l := &uniform{base: b, capped: make([]bool, b.cfg.Budget)}
	l.free = newMaxHeap(b.cfg.Budget, func(slot int32) float32 {
		return float32(math.Abs(float64(l.set.Weights(0)[slot])))
	})
	return l
}

func (l *uniform) Observe(x engine.Vector, y int) (Outcome, error) {
	out, err := l.observe(x, y)
	if err != nil {
		return out, err
	}
	lr := 1 - l.cfg.Eta*l.cfg.Lambda
	if float64(y)*out.Score > 1 {
		l.scaleAll(lr)
		return out, nil
	}
	out.Updated = true
	budget := l.cfg.Budget
	if l.set.Len() < budget {
		l.scaleAll(lr)
	} else {
		l.discard(l.rng.IntN(budget))
		l.scaleAll(lr * float64(budget) / float64(budget-1))
	}
	i, err := l.add(x, float64(y)*min(l.cfg.Eta, l.cfg.Gamma*l.cfg.Eta))
	if err != nil {
		return out, err
	}
	l.capped[i] = false
	l.free.push(i)
	l.project()
	return out, nil
}

// scaleAll multiplies every weight by factor.
func (l *uniform) scaleAll(factor float64) {
	l.shrink(factor)
	l.group *= factor
}

// discard removes support vector i, keeping the heap and flags aligned with
// the swap-remove.
func (l *uniform) discard(i int) {
	l.free.remove(i)
	moved := l.set.Remove(i)
	if moved >= 0 {
		l.free.rename(moved, i)
		l.capped[i] = l.capped[moved]
	}
}

// project brings every weight back to at most γη.
func (l *uniform) project() {
	limit := l.cfg.Gamma * l.cfg.Eta
	if l.cfg.Projection == RescaleAll {
		largest := l.group
		if l.free.len() > 0 {
			largest = max(largest, l.alpha(l.free.top()))
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
	w0, w1 := l.set.Weights(0), l.set.Weights(1)
	for l.free.len() > 0 {
		i := l.free.top()
		// The tolerance stops the loop at a weight clipped in place below,
		// whose float32 division may land a hair above the cap.
		if l.alpha(i) <= limit*(1+1e-6) {
			break
		}
		sign := float32(math.Copysign(1, float64(w0[i])))
		if l.group == limit {
			// Join the capped column: its value is exactly the cap.
			l.free.remove(i)
			w0[i], w1[i] = 0, sign
			l.capped[i] = true
			continue
		}
		// The capped weights shrank below the cap after they were capped,
		// so this one cannot join them: clip it in place.
		w0[i] = sign * float32(limit/l.scale)
		l.free.fix(i)
	}
}

// alpha returns the weight (without sign) of free support vector i.
func (l *uniform) alpha(i int) float64 {
	return l.scale * math.Abs(float64(l.set.Weights(0)[i]))
}
