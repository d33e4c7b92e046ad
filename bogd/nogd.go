package bogd

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/bogd-project/bogd/engine"
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
// transition, exactly as the toolbox: K̂ = K(SV, SV) (B×B), its k largest
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
// α (K of them, one per output) followed by M's k rows, so that z(x) is one
// kernel pass and one simd.DotColumns over those rows. K̂ is computed in
// float64 (engine.Set.ExactKernels) and factorised by gonum's dense
// symmetric eigensolver; the toolbox's eigs (ARPACK) is not used because it
// fails to converge on matrices close to the identity (lsokl-rules.md).
// Eigenvalues at or below 10⁻¹⁰ of the largest are dropped (their D^(−1/2)
// would amplify rounding without bound; the toolbox divides by them): the
// rank is then lower than k, and M's other rows are zero.
type nogd struct {
	base
	rank   int           // k
	phase2 bool          // the transition has happened
	w      []float64     // phase 2: the linear model, rank per output: w_{c,r} at c·rank + r
	k      []float64     // scratch: exact kernel values of one landmark
	row    engine.Vector // scratch: one landmark
}

func newNOGD(b base) *nogd {
	return &nogd{base: b, rank: b.cfg.Rank, w: make([]float64, b.outputs*b.cfg.Rank)}
}

func (l *nogd) learn(x engine.Vector, t target) (updated bool, err error) {
	j, err := l.observe(&x, t)
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
	if !l.phase2 {
		if err := l.transition(); err != nil {
			return false, err
		}
	}
	z := l.sums[l.outputs:]
	l.set.Sums(&l.scratch, l.outputs, z) // M·k_t from this example's kernel pass
	for c := range l.outputs {
		if s := j.dir.sign(c); s != 0 {
			w := l.w[c*l.rank : (c+1)*l.rank]
			for r, v := range z {
				w[r] += step * s * v
			}
		}
	}
	return true, nil
}

// customScores is phase 1's kernel sums over the α columns, or phase 2's
// w·M·K(SV, x).
func (l *nogd) customScores(sc *engine.Scratch, x engine.Vector, f, sums []float64) error {
	if !l.phase2 {
		if err := l.set.Evaluate(sc, x, f[:l.outputs]); err != nil {
			return fmt.Errorf("%v: %w", l.algo, err)
		}
		return nil
	}
	if err := l.set.Evaluate(sc, x, sums); err != nil {
		return fmt.Errorf("%v: %w", l.algo, err)
	}
	z := sums[l.outputs:]
	for c := range l.outputs {
		w := l.w[c*l.rank : (c+1)*l.rank]
		var sum float64
		for r, v := range z {
			sum += w[r] * v
		}
		f[c] = sum
	}
	return nil
}

// transition builds the Nyström map from the landmarks and projects the
// phase-1 function onto it (see the type's comment).
func (l *nogd) transition() error {
	n := l.set.Len()
	gram := mat.NewSymDense(n, nil)
	for i := range n {
		l.row = l.set.SupportVector(i, l.row)
		k, err := l.set.ExactKernels(l.row, l.k)
		if err != nil {
			return fmt.Errorf("%v: %w", l.algo, err)
		}
		l.k = k
		for j := range i + 1 {
			gram.SetSym(i, j, k[j])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(gram, true) {
		return fmt.Errorf("%v: the eigendecomposition of the %d×%d landmark kernel matrix failed", l.algo, n, n)
	}
	values := eig.Values(nil) // ascending
	var vectors mat.Dense
	eig.VectorsTo(&vectors)
	largest := values[n-1]
	for r := range l.rank {
		e := n - 1 - r // the r-th largest eigenpair
		if r >= n || values[e] <= 1e-10*largest {
			break // this and every smaller eigenvalue: M's rows stay zero
		}
		root := math.Sqrt(values[e])
		m := l.set.WeightColumn(l.outputs + r)
		for i := range n {
			v := vectors.At(i, e)
			m[i] = float32(v / root)
			// w_{c,r} = Σᵢ α_{c,i}·V_{i,r}·√D_r
			for c := range l.outputs {
				l.w[c*l.rank+r] += float64(l.set.WeightColumn(c)[i]) * v * root
			}
		}
	}
	for c := range l.outputs {
		clear(l.set.WeightColumn(c))
	}
	l.phase2 = true
	return nil
}
