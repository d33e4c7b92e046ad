package bogd

import (
	"math"

	"github.com/bogd-project/bogd/engine"
)

// forgetron is the self-tuned Forgetron (Dekel, Shalev-Shwartz, Singer,
// "The Forgetron: a kernel-based Perceptron on a budget", SIAM J. Comput.
// 37(5), 2008; NIPS 2005) as the authors' forgetron.m runs it.
//
// Every round with y·f(x) ≤ 0 updates. This is forgetron.m's test: unlike
// the mistake test it also updates when f(x) = 0 and y = +1, a round that
// counts no mistake. The update adds x with coefficient y. If the budget
// was not full before the round, that is all. Otherwise let r be the oldest
// support vector (first in, first out), δ = |α_r| its current coefficient,
// μ = y_r·f'(x_r), where f' = f + y·κ(x,·) is the hypothesis with x
// included and before shrinking, and M the number of mistakes so far, this
// round included. The shrink factor φ is the largest value in [0, 1] with
//
//	Q + Ψ(δφ, φμ) ≤ (15/32)·M,  Ψ(λ, ν) = λ² + 2λ − 2λν,
//
// that is A·φ² + Bq·φ + C ≤ 0 with A = δ² − 2δμ, Bq = 2δ and
// C = Q − (15/32)·M. Every coefficient, the new one included, is multiplied
// by φ (an O(1) change of the global scale), Q grows by
// Ψ(δφ, φμ) = (δφ)² + 2δφ(1 − φμ), and r is removed. Q starts at 0.
//
// Implementation: f'(x_r) = f(x_r) + y·κ(x, x_r) takes one more kernel
// evaluation, with r's own vector as the query. r is removed before x is
// stored, which gives the same classifier as forgetron.m's add, scale, drop
// and keeps the set within its budget.
//
// Deliberate differences from forgetron.m, all in how φ is chosen (its
// lines 81–95). The rule above is the paper's.
//   - A < 0 with φ = 1 infeasible: forgetron.m takes (−Bq − √(Bq²−4AC))/(2A).
//     That is the larger root of a downward-opening parabola, and it is > 1,
//     so the weights are scaled up and the constraint is broken. The paper's
//     φ is the root in (0, 1), (−Bq + √(Bq²−4AC))/(2A). This only happens when
//     μ > δ/2 and Q is already close to (15/32)·M. On german (B = 100,
//     σ = 8, the authors' 20 orders), forgetron.m takes that root on 53 of
//     its 5647 removal steps, in every order. The mean mistake rate is
//     38.19% with its root and 38.11% with the paper's.
//   - A > 0: forgetron.m does not clip its root. When C ≥ 0 the root is ≤ 0
//     and zeroes or flips every weight. C ≥ 0 can only happen on a round with
//     f = 0 and y = +1 that follows a step reaching Q = (15/32)·M. Here φ is
//     clipped to [0, 1].
//   - δ = 0 (every weight was zeroed by an earlier φ = 0): forgetron.m
//     divides by zero. Here φ = 1, since removing r then changes nothing and
//     no shrink is needed. A NaN from rounding gives φ = 0.
//
// A φ below 1 is computed as −2C/(Bq + √(Bq² − 4AC)). Algebraically this is
// the root forgetron.m takes when A > 0 or A = 0, and the paper's root when
// A < 0, and it has no cancellation when A is small.
type forgetron struct {
	base
	mistakes int     // M: rounds with sgn(f) ≠ y so far
	q        float64 // Q: the accumulated removal deviation

	// FIFO of the stored vectors by age, kept aligned with the set's
	// swap-remove: ring[(head+k) mod Budget] is the slot of the k-th oldest
	// vector and pos[slot] its position in ring.
	ring, pos []int
	head      int
	labels    []int8    // y of the vector in each slot
	buf       []float32 // the oldest vector, densified for the second query

	// phiHook, when set (tests only), sees A, Bq, C and the chosen φ of
	// every removal step and returns the φ to use.
	phiHook func(a, bq, c, phi float64) float64
}

func newForgetron(b base) *forgetron {
	n := b.cfg.Budget
	return &forgetron{
		base:   b,
		ring:   make([]int, n),
		pos:    make([]int, n),
		labels: make([]int8, n),
		buf:    make([]float32, b.cfg.Dim),
	}
}

func (l *forgetron) Observe(x engine.Vector, y int) (Outcome, error) {
	out, err := l.observe(x, y)
	if err != nil {
		return out, err
	}
	if out.Mistake {
		l.mistakes++
	}
	if float64(y)*out.Score > 0 {
		return out, nil
	}
	out.Updated = true
	if l.set.Len() < l.cfg.Budget {
		return out, l.push(x, y, float64(y))
	}

	r := l.ring[l.head]
	yr := float64(l.labels[r])
	kxr := l.set.KernelFactor() * float64(l.set.Kernels()[r]) // κ(x, x_r), before the next Score overwrites it
	delta := yr * l.scale * float64(l.set.Weights(0)[r])
	l.buf = l.set.Vector(r, l.buf)
	fr, err := l.score(engine.Dense(l.buf))
	if err != nil {
		return out, err
	}
	mu := yr * (fr + float64(y)*kxr)
	a := delta*delta - 2*delta*mu
	bq := 2 * delta
	c := l.q - 15.0/32.0*float64(l.mistakes)
	phi := forgetronPhi(a, bq, c)
	if l.phiHook != nil {
		phi = l.phiHook(a, bq, c, phi)
	}
	l.q += (delta*phi)*(delta*phi) + 2*delta*phi*(1-phi*mu)
	l.shrink(phi)
	l.removeOldest()
	return out, l.push(x, y, phi*float64(y))
}

// forgetronPhi returns the largest φ in [0, 1] with a·φ² + bq·φ + c ≤ 0,
// or 0 when none exists. bq = 2δ ≥ 0; bq = 0 gives 1 (see the type's
// comment).
func forgetronPhi(a, bq, c float64) float64 {
	if !(bq > 0) || a+bq+c <= 0 {
		return 1
	}
	// φ = 1 is infeasible. When c < 0 the quadratic changes sign exactly
	// once in (0, 1), at this root, whatever the sign of a. When c ≥ 0 the
	// root is ≤ 0: no φ in (0, 1] is feasible.
	phi := -2 * c / (bq + math.Sqrt(max(bq*bq-4*a*c, 0)))
	if !(phi > 0) {
		return 0
	}
	return min(phi, 1)
}

// push stores x as the newest support vector with coefficient coef.
func (l *forgetron) push(x engine.Vector, y int, coef float64) error {
	i, err := l.add(x, coef)
	if err != nil {
		return err
	}
	p := (l.head + l.set.Len() - 1) % l.cfg.Budget
	l.ring[p], l.pos[i] = i, p
	l.labels[i] = int8(y)
	return nil
}

// removeOldest deletes the oldest support vector, moving the FIFO entry of
// the vector that the swap-remove relocates.
func (l *forgetron) removeOldest() {
	r := l.ring[l.head]
	if moved := l.set.Remove(r); moved >= 0 {
		p := l.pos[moved]
		l.ring[p], l.pos[r] = r, p
		l.labels[r] = l.labels[moved]
	}
	l.head = (l.head + 1) % l.cfg.Budget
}
