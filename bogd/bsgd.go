package bogd

import (
	"fmt"
	"math"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/simd"
)

// bsgd is BSGD with merging (Wang, Crammer, Vucetic, "Breaking the Curse of
// Kernelization: Budgeted Stochastic Gradient Descent for Large-Scale SVM
// Training", JMLR 13, 2012), as the authors' BudgetedSVM toolbox
// (src/bsgd.cpp, trainBSGD and computeKmax) runs it, in one pass.
//
// It is Pegasos: at step t every coefficient shrinks by 1 − 1/t (the step
// size 1/(λt) of the regularised loss), and an example whose loss has a
// gradient (binary y·f(x) < 1; multi-class f_y − f_s < 1, +1 on y and −1 on
// the best wrong class s, BudgetedSVM's multi-class rule; regression
// |y − f(x)| > ε, the ε-insensitive absolute loss of SVR, along
// sgn(y − f(x)): a squared loss's unbounded gradient over 1/(λt) makes
// Pegasos diverge) is added with coefficients ±1/(λt). When that makes
// B + 1 vectors, two are merged into one:
//
//   - m is the vector of smallest ‖α_m‖, the lowest slot among those within
//     10⁻⁵ (relative) of the smallest: Pegasos leaves every vector never
//     merged with the same weight 1/(λt) in exact arithmetic, so rounding
//     alone would otherwise decide among them;
//   - for every other n, with k = κ(x_m, x_n), the merged point is
//     z = h·x_m + (1−h)·x_n, whose kernel values are κ(x_m, z) = k^((1−h)²)
//     and κ(x_n, z) = k^(h²) (Gaussian kernel), and h maximises
//     a₁·k^((1−h)²) + a₂·k^(h²) with BudgetedSVM's weights a₁ = Σ_c α_{m,c}/d_c,
//     a₂ = Σ_c α_{n,c}/d_c, d_c = α_{m,c} + α_{n,c} (10⁻⁴ where 0, see
//     mergeDenominator): over
//     [0, 1] when a₁a₂ > 0, else over [1, 6] (a₁ > 0) or [−5, 0], by golden-
//     section search to a tolerance of 10⁻⁴;
//   - z's coefficients are α_z = α_m·k^((1−h)²) + α_n·k^(h²), the projection
//     of α_m κ(x_m,·) + α_n κ(x_n,·) onto κ(z,·), and the weight degradation
//     is Σ_c α_{m,c}² + α_{n,c}² + 2k·α_{m,c}α_{n,c} − α_{z,c}²;
//   - the n of least degradation (the lowest slot within rounding of it) is
//     merged with m: z takes m's slot, n goes.
//
// A new example identical to a stored vector (κ = 1 to 8 digits, as
// BudgetedSVM checks) is merged into it by adding coefficients.
//
// Where this differs from BudgetedSVM: its first example gets coefficients
// ±1 rather than ±1/λ (here every example gets g/(λt)); it clips h at 0
// after computing the merged kernel values with the unclipped h (here both
// use the clipped h); the binary form is one output with label ±1 (its
// binary form is two classes, a margin of twice the score); and the
// partner is chosen by a float32 search over all candidates at once
// (simd.MergeSearch, 16 per AVX-512 register), where it searches each in
// float64 in turn. The chosen partner's h is then searched again in
// float64, so the merge is BudgetedSVM's; only near-ties of degradation
// (within float32 rounding of the objective) can choose differently.
type bsgd struct {
	base
	t      int       // examples seen
	same   int       // the stored vector identical to the current example, or −1
	norms  []float64 // scratch: ‖α_i‖² per slot
	loss   []float64 // scratch: the degradation of each merge
	k      []float64 // scratch: κ(x_m, x_n) per slot
	search mergeScratch
	row    engine.Vector // x_m, the smallest vector
	other  engine.Vector // x_n, its partner
	z      engine.Vector // the merged point
	alpha  []float64
}

func newBSGD(b base) *bsgd {
	n := b.cfg.Budget + 1
	return &bsgd{
		base: b, norms: make([]float64, n), loss: make([]float64, n), k: make([]float64, n),
		search: newMergeScratch(n), alpha: make([]float64, 2*b.outputs),
	}
}

// identical is the kernel value above which BudgetedSVM takes two vectors
// for the same one (it rounds κ to 8 digits).
const identical = 1 - 0.5e-8

func (l *bsgd) learn(x *engine.Vector, t target) (updated bool, err error) {
	j, err := l.observe(x, t)
	if err != nil {
		return false, err
	}
	l.same = -1
	if n := l.set.Len(); n > 0 {
		kernels, factor := l.scratch.Kernels()
		for i, kv := range kernels[:n] {
			if factor*float64(kv) >= identical {
				l.same = i
			}
		}
	}
	l.t++
	l.shrink(1 - 1/float64(l.t))
	if !l.labels.violated(j, false) {
		return false, nil
	}
	a := 1 / (l.cfg.Lambda * float64(l.t))
	i, err := l.set.AddQuery(&l.scratch)
	if err != nil {
		return false, fmt.Errorf("%v: %w", l.algo, err)
	}
	l.setFree(i, a, j.dir)
	if l.set.Len() > l.cfg.Budget {
		if err := l.merge(); err != nil {
			return false, err
		}
	}
	return true, nil
}

// coef returns the coefficient of slot i on output c.
func (l *bsgd) coef(i, c int) float64 { return l.scale * float64(l.set.WeightColumn(c)[i]) }

// merge brings B+1 support vectors back to B (see the type's comment).
func (l *bsgd) merge() error {
	n, k := l.set.Len(), l.outputs
	if l.same >= 0 {
		// The newest vector (slot n−1) duplicates slot same.
		last := n - 1
		for c := range k {
			l.set.WeightColumn(c)[l.same] += l.set.WeightColumn(c)[last]
		}
		l.set.Remove(last)
		return nil
	}
	for i := range n {
		var sq float64
		for c := range k {
			sq += l.coef(i, c) * l.coef(i, c)
		}
		l.norms[i] = sq
	}
	m := smallest(l.norms[:n])
	l.row = l.set.SupportVector(m, l.row)
	var f [1]float64 // unread: the evaluation is for its kernel values
	if err := l.set.Evaluate(&l.scratch, l.row, f[:]); err != nil {
		return fmt.Errorf("%v: %w", l.algo, err)
	}
	kernels, factor := l.scratch.Kernels()
	for i := range n {
		l.k[i] = factor * float64(kernels[i])
		a1, a2 := l.mergeWeights(m, i)
		l.search.set(i, a1, a2, l.k[i])
	}
	l.search.run(n)
	loss := l.loss[:n] // the degradation of merging m with each
	least := math.Inf(1)
	for i := range n {
		if i == m {
			loss[i] = math.Inf(1)
			continue
		}
		kz1, kz2 := mergedKernels(l.k[i], l.search.result(i))
		var sum float64
		for c := range k {
			am, an := l.coef(m, c), l.coef(i, c)
			z := am*kz1 + an*kz2
			sum += am*am + an*an + 2*l.k[i]*am*an - z*z
		}
		loss[i] = sum
		least = min(least, sum)
	}
	// The lowest slot within rounding of the least degradation: repeated
	// examples make exact ties.
	best := 0
	for loss[best] > least+1e-9*l.norms[m] {
		best++
	}
	// The merge itself takes BudgetedSVM's h, searched again in float64
	// for this one partner: the float32 search chose it, but finds h only
	// to within √ε₃₂ of the flat maximum.
	a1, a2 := l.mergeWeights(m, best)
	h := max(simd.MergeSearch64(a1, a2, l.k[best]), 0)
	kz1, kz2 := mergedKernels(l.k[best], h)
	l.other = l.set.SupportVector(best, l.other)
	l.z = combine(l.z, h, l.row, 1-h, l.other)
	alpha := l.alpha[:k]
	for c := range k {
		alpha[c] = l.coef(m, c)*kz1 + l.coef(best, c)*kz2
	}
	if err := l.set.Replace(m, l.z); err != nil {
		return fmt.Errorf("%v: %w", l.algo, err)
	}
	for c := range k {
		l.set.WeightColumn(c)[m] = float32(alpha[c] / l.scale)
	}
	l.set.Remove(best)
	return nil
}

// mergeWeights returns BudgetedSVM's weights a₁, a₂ of merging slot m
// with slot n.
func (l *bsgd) mergeWeights(m, n int) (a1, a2 float64) {
	for c := range l.outputs {
		am, an := l.coef(m, c), l.coef(n, c)
		d := mergeDenominator(am, an)
		a1 += am / d
		a2 += an / d
	}
	return a1, a2
}

// mergeDenominator is BudgetedSVM's d = α_m + α_n of the merge weights,
// 10⁻⁴ where d is 0. A d within rounding of 0 (10⁻⁵ of |α_m| + |α_n|) counts
// as 0 too: Pegasos gives vectors of opposite signs equal weights, whose
// sum is 0 in exact arithmetic, and the sign of its rounding would decide
// on which side of the pair the merged point goes.
func mergeDenominator(am, an float64) float64 {
	if d := am + an; math.Abs(d) > 1e-5*(math.Abs(am)+math.Abs(an)) {
		return d
	}
	return 1e-4
}

// smallest returns the lowest index whose value is within 10⁻⁵ (relative)
// of the smallest of norms.
func smallest(norms []float64) int {
	least := math.Inf(1)
	for _, v := range norms {
		least = min(least, v)
	}
	for i, v := range norms {
		if v <= least*(1+1e-5) {
			return i
		}
	}
	return 0
}

// combine returns a·x + b·y in dst's storage (reused): dense when x and y
// are dense, else sparse over the union of their non-zero features (both
// sorted by index), so that a merge costs O(non-zeros) with sparse storage.
func combine(dst engine.Vector, a float64, x engine.Vector, b float64, y engine.Vector) engine.Vector {
	if !x.IsSparse() && !y.IsSparse() {
		z := dst.Dense[:0]
		for f := range x.Dense {
			z = append(z, float32(a*float64(x.Dense[f])+b*float64(y.Dense[f])))
		}
		return engine.Dense(z)
	}
	idx, val := dst.Index[:0], dst.Value[:0]
	i, j := 0, 0
	for i < len(x.Index) || j < len(y.Index) {
		var f int32
		var v float64
		switch {
		case j == len(y.Index) || i < len(x.Index) && x.Index[i] < y.Index[j]:
			f, v = x.Index[i], a*float64(x.Value[i])
			i++
		case i == len(x.Index) || y.Index[j] < x.Index[i]:
			f, v = y.Index[j], b*float64(y.Value[j])
			j++
		default:
			f, v = x.Index[i], a*float64(x.Value[i])+b*float64(y.Value[j])
			i, j = i+1, j+1
		}
		if w := float32(v); w != 0 {
			idx, val = append(idx, f), append(val, w)
		}
	}
	return engine.Sparse(idx, val)
}

// mergedKernels returns κ(x_m, z) = k^((1−h)²) and κ(x_n, z) = k^(h²) for
// a partner of kernel value k merged at h.
func mergedKernels(k, h float64) (kz1, kz2 float64) {
	return math.Pow(k, (1-h)*(1-h)), math.Pow(k, h*h)
}

// mergeScratch holds the inputs and results of the partner search, one
// candidate per slot, in simd.MergeSearch's float32 form.
type mergeScratch struct {
	h, a1, a2, lk []float32
}

func newMergeScratch(n int) mergeScratch {
	return mergeScratch{h: make([]float32, n), a1: make([]float32, n), a2: make([]float32, n), lk: make([]float32, n)}
}

// set stores candidate i's weights and kernel value k (0 for orthogonal
// points, whose log is −Inf).
func (s *mergeScratch) set(i int, a1, a2, k float64) {
	s.a1[i], s.a2[i], s.lk[i] = float32(a1), float32(a2), float32(min(math.Log(k), 0))
}

// run searches the first n candidates' h (see simd.MergeSearch).
func (s *mergeScratch) run(n int) { simd.MergeSearch(s.h[:n], s.a1[:n], s.a2[:n], s.lk[:n]) }

// result is candidate i's h.
func (s *mergeScratch) result(i int) float64 { return float64(s.h[i]) }
