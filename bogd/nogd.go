package bogd

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/layout"
	"github.com/bogd-project/bogd/simd"
)

// nogd is NOGD, Nyström online gradient descent (Lu, Hoi, Wang, Zhao, Liu,
// "Large Scale Online Kernel Learning", JMLR 17, 2016), as the LSOKL
// toolbox's NysGD.m (binary, regression) and NyGD.m (multi-class) run it.
//
// Phase 1 is kernel OGD without regularisation: an example whose loss has a
// gradient (see ogd: y·f < 1, the multi-class hinge loss > 0, |y − f| > ε)
// adds x with η·g along the update direction, while fewer than B support
// vectors are stored. They become the landmarks.
//
// The first such example that arrives with B landmarks stored triggers the
// transition, as the toolbox: K̂ = K(SV, SV) (B×B), its k largest
// eigenpairs (V, D), M = D^(−1/2)·Vᵀ (k×B), and the linear model
// w = α·pinv(M) = α·V·D^(1/2) (one row per output), the projection of the
// phase-1 function onto the k-dimensional Nyström space; then the same step
// is applied in that space, w ← w + η·g·z with z = M·k_t, k_t the kernel
// values computed for the prediction. The example is not stored.
//
// Phase 2 predicts f = w·z(x), z(x) = M·K(SV, x), and updates
// w ← w + η·g·z(x) on the same condition.
//
// Implementation: the landmarks stay in the engine's set, whose columns are
// K "landmark weights" (one per output) followed by M's k rows. In phase 1
// the landmark weights are α. Phase 2 scores in one of two forms, fixed by
// k·B (landmarkForm):
//
//   - Small k·B: the kernel pass also sums M's rows (engine.Set.Evaluate
//     over K + k columns), z(x) = M·K(SV, x) from it, f = w·z(x), and an
//     update adds to w with that same z. The landmark weights are zero.
//   - Large k·B: the landmark weights are β_c = Mᵀ·w_c, so that
//     f_c(x) = w_c·M·K(SV, x) = β_c·K(SV, x) is one kernel pass over K
//     columns, as every other learner's score, rather than the k×B product
//     M·K(SV, x) per example (at B = 1000 and k = 200 that product was three
//     quarters of a pass). z = M·k_t is formed only when an example updates,
//     and the updated outputs' β are then recomputed from w: two passes over
//     M, in a copy Mᵀ laid out landmark by landmark (mt), whose rows z
//     gathers where k_t is non-zero (simd.AxpyRows: far landmarks' kernel
//     values are exactly 0; on codrna at σ = 8, B = 1000, an update's k_t
//     is 35% non-zero on average, at most half), and whose every row β's
//     pass reads. Phase 2 then reads mt alone: M's rows in the set's
//     columns stay for persistence (rule 3 summed them for z when over a
//     third of k_t was non-zero, and the two copies of M, 1.6 MB at
//     B = 1000, did not fit in a 1 MB L2 together).
//
// Two passes over M per update against one per example pay from about
// k·B = 10⁴ on. CPU time a row of phase 2, this form against the first, on
// codrna (σ = 8, 23–49% of the rows update): 950 against 710–910 ns at
// B = 100, 1.36–1.44 against 1.86–1.88 µs at B = 300, 6.6–6.9 against
// 10.2–10.9 µs at B = 1000; on satimage at B = 200 (59% update two
// classes) 1.87 against 1.37 µs. With rule 4's gather, a pass in this
// form took 1.07–1.10× the first's on codrna at B = 100, 0.92× at B = 150
// and 0.74× at B = 200; at B = 200 0.82× on w7a but 1.03× on satimage and
// 1.17× on spambase: where the crossing lies depends on the data.
//
// w (float64) is the state in both; mt and β are derived from M and w, so
// that a loaded model computes the same bits.
//
// K̂ is computed in float64 (engine.Set.ExactKernels) and its top k
// eigenpairs come from randomized subspace iteration (topEigen), its start
// block drawn from Config.Seed; the toolbox's eigs (ARPACK) is not used
// because it fails to converge on matrices close to the identity
// (lsokl-rules.md). Eigenvalues at or below 10⁻¹⁰ of the largest are
// dropped (their D^(−1/2) would amplify rounding without bound; the toolbox
// divides by them): the rank is then lower than k, and M's other rows are
// zero.
type nogd struct {
	base
	rank   int           // k
	kept   int           // M's non-zero rows: the first kept of them
	phase2 bool          // the transition has happened
	w      []float64     // phase 2: the linear model, rank per output: w_{c,r} at c·rank + r
	mt     []float32     // phase 2: Mᵀ, B rows of stride kept rounded up to whole lanes, the padding zero
	w32    []float32     // scratch: w_c rounded, for β_c; then z in float32
	row    engine.Vector // scratch: one landmark
	// eigenHook, when set (tests only), replaces topEigen in the transition.
	eigenHook func(a []float64, n, k int) (values, vectors []float64, err error)
}

func newNOGD(b base) *nogd {
	return &nogd{base: b, rank: b.cfg.Rank, w: make([]float64, b.outputs*b.cfg.Rank), w32: make([]float32, lanesOf(b.cfg.Rank))}
}

func (l *nogd) learn(x *engine.Vector, t target) (updated bool, err error) {
	j, err := l.observe(x, t)
	if err != nil || !l.labels.violated(j, false) {
		return false, err
	}
	step := l.cfg.Eta * l.labels.gradient(j)
	if !l.phase2 && l.set.Len() < l.cfg.Budget {
		i, err := l.set.AddQuery(&l.scratch)
		if err != nil {
			return false, fmt.Errorf("%v: %w", l.algo, err)
		}
		for c := range l.outputs {
			l.set.WeightColumn(c)[i] = float32(step * j.dir.sign(c))
		}
		return true, nil
	}
	transition := !l.phase2
	if transition {
		if err := l.transition(); err != nil {
			return false, err
		}
	}
	var z []float64
	switch {
	case l.landmarkForm():
		z = l.nystromFeatures()
	case transition: // this example's pass summed α only
		z = l.sums[l.outputs : l.outputs+l.kept]
		l.set.Sums(&l.scratch, l.outputs, z)
	default: // this example's pass summed M's rows too
		z = l.sums[l.outputs : l.outputs+l.kept]
	}
	for c := range l.outputs {
		if s := j.dir.sign(c); s != 0 {
			w := l.w[c*l.rank : c*l.rank+l.kept]
			for r, v := range z {
				w[r] += step * s * v
			}
			if l.landmarkForm() {
				l.landmarkWeights(c)
			}
		}
	}
	return true, nil
}

// customScores is the kernel expansion over the landmark weights (α in
// phase 1, β in phase 2's landmark form), or phase 2's w·M·K(SV, x).
func (l *nogd) customScores(sc *engine.Scratch, x engine.Vector, f, sums []float64) error {
	if !l.phase2 || l.landmarkForm() {
		if err := l.set.Evaluate(sc, x, f[:l.outputs]); err != nil {
			return fmt.Errorf("%v: %w", l.algo, err)
		}
		return nil
	}
	if err := l.set.Evaluate(sc, x, sums[:l.outputs+l.kept]); err != nil {
		return fmt.Errorf("%v: %w", l.algo, err)
	}
	z := sums[l.outputs : l.outputs+l.kept]
	for c := range l.outputs {
		var sum float64
		for r, v := range l.w[c*l.rank : c*l.rank+l.kept] {
			sum += v * z[r]
		}
		f[c] = sum
	}
	return nil
}

// landmarkForm reports whether phase 2 scores by the landmark weights β
// (see the type's comment): from k·B = landmarkFormFrom on.
func (l *nogd) landmarkForm() bool { return l.rank*l.cfg.Budget >= landmarkFormFrom }

// landmarkFormFrom is the k·B from which phase 2 scores by β.
const landmarkFormFrom = 10000

// nystromFeatures returns z = M·k_t (its first kept elements) for the
// kernel values of this example's pass on the learner's scratch: the sum,
// in float32, of mt's rows of the landmarks with a non-zero kernel value.
func (l *nogd) nystromFeatures() []float64 {
	z := l.sums[l.outputs : l.outputs+l.kept]
	k, factor := l.scratch.Kernels()
	clear(l.w32) // mt's stride long
	simd.AxpyRows(l.w32, k, l.mt, len(l.w32))
	for r := range z {
		z[r] = factor * float64(l.w32[r])
	}
	return z
}

// landmarkWeights sets output c's landmark weights to β_c = Mᵀ·w_c, w_c
// rounded to float32: one simd.DotColumns pass over mt.
func (l *nogd) landmarkWeights(c int) {
	for r, v := range l.w[c*l.rank : c*l.rank+l.kept] {
		l.w32[r] = float32(v)
	}
	clear(l.w32[l.kept:])
	simd.DotColumns(l.set.WeightColumn(c), l.w32, l.mt, len(l.w32))
}

// transpose fills mt from M's first kept rows and sizes w32 to its stride.
func (l *nogd) transpose() {
	n, stride := l.set.Len(), lanesOf(l.kept)
	l.w32 = l.w32[:stride]
	l.mt = make([]float32, n*stride)
	for r := range l.kept {
		for i, v := range l.set.WeightColumn(l.outputs + r) {
			l.mt[i*stride+r] = v
		}
	}
}

// nystromCut is the fraction of the largest eigenvalue at or below which
// the transition drops an eigenpair (see the type's comment).
const nystromCut = 1e-10

// lanesOf rounds n up to whole SIMD lanes.
func lanesOf(n int) int { return (n + layout.Lanes - 1) &^ (layout.Lanes - 1) }

// transition builds the Nyström map from the landmarks and projects the
// phase-1 function onto it (see the type's comment).
func (l *nogd) transition() error {
	gram, err := l.landmarkGram()
	if err != nil {
		return err
	}
	n, k := l.set.Len(), l.rank // k ≤ B = n
	var values, vectors []float64
	if l.eigenHook != nil {
		values, vectors, err = l.eigenHook(gram, n, k)
	} else {
		values, vectors, err = topEigen(gram, n, k, rand.New(rand.NewPCG(l.cfg.Seed, nystromStream)))
	}
	if err != nil {
		return fmt.Errorf("%v: the %d×%d landmark kernel matrix: %w", l.algo, n, n, err)
	}
	for r := range k {
		if values[r] <= nystromCut*values[0] {
			break // this and every smaller eigenvalue: M's rows stay zero
		}
		root := math.Sqrt(values[r])
		m := l.set.WeightColumn(l.outputs + r)
		for i := range n {
			v := vectors[i*k+r]
			m[i] = float32(v / root)
			// w_{c,r} = Σᵢ α_{c,i}·V_{i,r}·√D_r
			for c := range l.outputs {
				l.w[c*l.rank+r] += float64(l.set.WeightColumn(c)[i]) * v * root
			}
		}
		l.kept = r + 1
	}
	l.phase2 = true
	l.landmarkWeightsAll()
	return nil
}

// landmarkWeightsAll sets every output's landmark weights for phase 2: β
// (with mt) in the landmark form, else zero.
func (l *nogd) landmarkWeightsAll() {
	if !l.landmarkForm() {
		for c := range l.outputs {
			clear(l.set.WeightColumn(c))
		}
		return
	}
	l.transpose()
	for c := range l.outputs {
		l.landmarkWeights(c)
	}
}

// landmarkGram returns K̂, the landmarks' kernel matrix (n×n row-major,
// n = Len), in float64.
func (l *nogd) landmarkGram() ([]float64, error) {
	n := l.set.Len()
	gram := make([]float64, n*n)
	for i := range n {
		l.row = l.set.SupportVector(i, l.row)
		if _, err := l.set.ExactKernels(l.row, gram[i*n:(i+1)*n]); err != nil {
			return nil, fmt.Errorf("%v: %w", l.algo, err)
		}
	}
	return gram, nil
}

// restorePhase2 derives what a learner loaded in phase 2 does not store:
// the number of M's non-zero rows and every output's β. It fails when the
// non-zero rows are not the first ones.
func (l *nogd) restorePhase2() error {
	l.kept = 0
	for r := range l.rank {
		if !slicesNonZero(l.set.WeightColumn(l.outputs + r)) {
			break
		}
		l.kept = r + 1
	}
	for r := l.kept; r < l.rank; r++ {
		if slicesNonZero(l.set.WeightColumn(l.outputs + r)) {
			return fmt.Errorf("the Nyström row %d is non-zero after the zero row %d", r, l.kept)
		}
	}
	for r := l.kept; r < l.rank; r++ {
		for c := range l.outputs {
			if l.w[c*l.rank+r] != 0 {
				return fmt.Errorf("output %d has the coefficient %v on the zero Nyström row %d", c, l.w[c*l.rank+r], r)
			}
		}
	}
	if !l.landmarkForm() {
		for c := range l.outputs {
			if slicesNonZero(l.set.WeightColumn(c)) {
				return fmt.Errorf("output %d has landmark weights in phase 2, whose scores do not read them at k·B = %d", c, l.rank*l.cfg.Budget)
			}
		}
		return nil
	}
	l.landmarkWeightsAll()
	return nil
}
