package bogd

import (
	"math"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/simd"
	"github.com/bogd-project/bogd/task"
)

// bpas is BPA-S, the simple budgeted passive-aggressive algorithm (Wang and
// Vucetic, "Online Passive-Aggressive Algorithms on a Budget", AISTATS
// 2010), as the LSOKL toolbox's BPAs.m runs it in binary and multi-class.
//
// An example with loss ℓ > 0 updates, ℓ being the hinge loss 1 − y·f(x)
// (binary) or 1 − (f_y − f_s) (multi-class, s the highest-scoring wrong
// class). The PA-I step is τ = min(C, ℓ/‖g‖²) along the update direction g
// (g = y, ‖g‖² = κ(x,x) = 1; multi-class +1 on y, −1 on s, ‖g‖² = 2). Below
// the budget x is added with coefficients τ·g. At the budget, for every
// support vector r, with k_r = κ(x, x_r) and α_r its coefficients:
//
//	β_r = α_r·k_r + τ·g          (r's function projected onto κ(x,·), plus the step)
//	d_r = ‖α_r‖² + ‖β_r‖² − 2·k_r·α_r·β_r   (‖α_r κ(x_r,·) + τg κ(x,·) − β_r κ(x,·)‖²)
//	f_r = f(x) − α_r·k_r + β_r   (the scores at x once r is replaced)
//	Q_r = d_r/2 + C·ℓ(f_r)
//
// and the r of least Q_r (the first on ties) is replaced by x with
// coefficients β_r, in its slot: the others keep theirs. ℓ(f_r) uses the
// example's own y; its runner-up is recomputed from f_r, the direction g
// keeps the original s (as BPAs.m).
//
// Regression (no toolbox form; ours, by the same recipe with the
// ε-insensitive absolute loss of PA-I regression): ℓ = |y − f(x)| − ε,
// g = sgn(y − f(x)), ‖g‖² = 1, and ℓ(f_r) = |y − f_r| − ε.
//
// Coefficients are kept in float64 (the weights are float32 copies), and
// the global scale stays 1: BPA-S never shrinks.
type bpas struct {
	base
	alpha          []float64 // K coefficients per support vector: α_{i,c} at i·K + c
	beta, fr, step []float64 // scratch: β_r and f_r of one candidate, τ·g
	costs          []float64 // scratch: Q_r of every support vector (one output)
}

func newBPAS(b base) *bpas {
	return &bpas{base: b, alpha: make([]float64, b.cfg.Budget*b.outputs), beta: make([]float64, b.outputs), fr: make([]float64, b.outputs), step: make([]float64, b.outputs), costs: make([]float64, b.cfg.Budget)}
}

func (l *bpas) learn(x *engine.Vector, t target) (updated bool, err error) {
	j, err := l.observe(x, t)
	if err != nil {
		return false, err
	}
	loss, g2 := l.paLoss(l.scores, t), 1.0
	if l.labels.task == task.Multiclass {
		g2 = 2
	}
	if !(loss > 0) {
		return false, nil
	}
	tau := min(l.cfg.C, loss/g2)
	k, step := l.outputs, l.step
	for c := range k {
		step[c] = tau * j.dir.sign(c)
	}
	if n := l.set.Len(); n < l.cfg.Budget {
		i, err := l.set.AddQuery(&l.scratch)
		if err != nil {
			return false, err
		}
		l.write(i, func(c int) float64 { return step[c] })
		return true, nil
	}
	best := l.cheapest(t, step)
	kernels, factor := l.scratch.Kernels()
	kr := factor * float64(kernels[best])
	a, beta := l.alpha[best*k:(best+1)*k], l.beta
	for c := range k {
		beta[c] = a[c]*kr + step[c]
	}
	if err := l.set.ReplaceQuery(best, &l.scratch); err != nil {
		return false, err
	}
	l.write(best, func(c int) float64 { return beta[c] })
	return true, nil
}

// cheapest returns the support vector r of least Q_r for the example t
// and the step τ·g (see bpas), the first on ties.
func (l *bpas) cheapest(t target, step []float64) int {
	kernels, factor := l.scratch.Kernels()
	k, c := l.outputs, l.cfg.C
	best, bestQ := -1, math.Inf(1)
	if k == 1 {
		// The same arithmetic as below for one output, one support vector
		// per vector lane: the least cost, then its first holder. The
		// loss 1 − y·f_r is 1 + (−y)·f_r exactly, and |y − f_r| − ε is
		// |y + (−1)·f_r| − ε.
		n := len(kernels)
		cost := simd.PACost{Factor: factor, Step: step[0], Score: l.scores[0], Offset: 1, Slope: -float64(t.class), C: c}
		if l.labels.task != task.Binary {
			cost.Offset, cost.Slope, cost.Epsilon, cost.Abs = t.value, -1, l.labels.epsilon, true
		}
		best, _ = simd.PACosts(l.costs[:n], kernels, l.alpha[:n], cost)
		return best
	}
	beta, fr := l.beta, l.fr
	for r, kv := range kernels {
		kr := factor * float64(kv)
		a := l.alpha[r*k : (r+1)*k]
		var aa, bb, ab float64
		for o := range k {
			beta[o] = a[o]*kr + step[o]
			fr[o] = l.scores[o] - a[o]*kr + beta[o]
			aa += a[o] * a[o]
			bb += beta[o] * beta[o]
			ab += a[o] * beta[o]
		}
		if q := (aa+bb-2*kr*ab)/2 + c*max(0, l.paLoss(fr, t)); q < bestQ {
			best, bestQ = r, q
		}
	}
	return best
}

// paLoss is the loss of scores f at the example t: the hinge losses of
// classification (the multi-class one against the best wrong class of f),
// or |y − f| − ε in regression.
func (l *bpas) paLoss(f []float64, t target) float64 {
	switch l.labels.task {
	case task.Binary:
		return 1 - float64(t.class)*f[0]
	case task.Multiclass:
		return 1 - (f[t.class] - f[argmax(f, t.class)])
	}
	return math.Abs(t.value-f[0]) - l.labels.epsilon
}

// write sets support vector i's coefficients to coef(c) for every output.
func (l *bpas) write(i int, coef func(c int) float64) {
	for c := range l.outputs {
		v := coef(c)
		l.alpha[i*l.outputs+c] = v
		l.set.WeightColumn(c)[i] = float32(v)
	}
}
