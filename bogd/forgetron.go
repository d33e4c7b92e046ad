package bogd

import (
	"math"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/task"
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
// The other tasks, as the toolbox's multiclass/forgetron.m and
// regression/forgetron.m run them:
//
//   - multi-class: a mistake (the argmax is not y) updates with the
//     max-score Perceptron step (+1 on class y, −1 on the highest-scoring
//     wrong class s); M counts mistakes; δ is the magnitude of r's
//     coefficients (its pattern is ±δ) and μ = f'_{y_r}(x_r), the score of
//     r's own class under f' (a score, not a margin, as the toolbox has it).
//   - regression: |y − f(x)| > ε updates with η·sgn(y − f(x)); M counts
//     those updates, this one included; δ = |α_r| and μ = |f'(x_r)|.
//
// Implementation: f'(x_r) = f(x_r) + (the new coefficient)·κ(x, x_r) takes
// one more kernel evaluation, with r's own vector as the query. r is
// removed before x is stored, which gives the same classifier as
// forgetron.m's add, scale, drop and keeps the set within its budget.
//
// A φ below 1 is computed as −2C/(Bq + √(Bq² − 4AC)). Algebraically this is
// the root forgetron.m takes when A > 0 or A = 0, and the paper's root when
// A < 0, and it has no cancellation when A is small.
type forgetron struct {
	base
	mistakes int     // M: mistakes (classification) or updates (regression) so far
	q        float64 // Q: the accumulated removal deviation

	age     fifo
	classOf []int32        // per slot: its example's label (binary ±1) or class index; 0 in regression
	buf     engine.Vector  // the oldest vector, for the second query
	fr      []float64      // the scores of the oldest vector
	frSums  []float64      // and their column sums
	frWork  engine.Scratch // the second query's, so that the learner's scratch keeps x for add

	// phiHook, when set (tests only), sees A, Bq, C and the chosen φ of
	// every removal step and returns the φ to use.
	phiHook func(a, bq, c, phi float64) float64
}

func newForgetron(b base) *forgetron {
	n := b.cfg.Budget
	return &forgetron{
		base:    b,
		age:     newFIFO(n),
		classOf: make([]int32, n),
		fr:      make([]float64, b.outputs),
		frSums:  make([]float64, b.set.Columns()),
	}
}

func (l *forgetron) learn(x *engine.Vector, t target) (updated bool, err error) {
	j, err := l.observe(x, t)
	if err != nil {
		return false, err
	}
	if l.labels.wrong(j) {
		l.mistakes++
	}
	// Binary: every round with y·f ≤ 0 updates, as forgetron.m (also
	// f = 0, y = +1, which is no mistake); the other tasks update on what
	// they count.
	if l.labels.task == task.Binary && j.margin > 0 || l.labels.task != task.Binary && !l.labels.wrong(j) {
		return false, nil
	}
	step := l.mistakeStep()
	if l.set.Len() < l.cfg.Budget {
		return true, l.push(t, step, j.dir)
	}

	r := l.age.oldest()
	kernels, factor := l.scratch.Kernels()
	kxr := factor * float64(kernels[r]) // κ(x, x_r)
	delta := l.weight(r)
	l.buf = l.set.SupportVector(r, l.buf)
	if err := l.scoresWith(&l.frWork, &l.buf, l.fr, l.frSums); err != nil {
		return false, err
	}
	var mu float64
	switch l.labels.task {
	case task.Binary:
		yr := float64(l.classOf[r])
		mu = yr * (l.fr[0] + step*j.dir.sign(0)*kxr)
	case task.Multiclass:
		yr := int(l.classOf[r])
		mu = l.fr[yr] + step*j.dir.sign(yr)*kxr
	default:
		mu = math.Abs(l.fr[0] + step*j.dir.sign(0)*kxr)
	}
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
	return true, l.push(t, phi*step, j.dir)
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

// push stores the example as the newest support vector with coefficient a
// along pattern p, remembering its label.
func (l *forgetron) push(t target, a float64, p pattern) error {
	i, err := l.add(a, p)
	if err != nil {
		return err
	}
	l.age.push(i, l.set.Len())
	l.classOf[i] = int32(t.class)
	return nil
}

// removeOldest deletes the oldest support vector, moving the FIFO entry and
// the label of the vector that the swap-remove relocates.
func (l *forgetron) removeOldest() {
	r := l.age.oldest()
	moved := l.remove(r)
	if moved >= 0 {
		l.classOf[r] = l.classOf[moved]
	}
	l.age.pop(moved)
}
