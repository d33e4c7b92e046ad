package bogd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/engine"
)

// refProjectron is projectron.m / proplus.m in float64 with the Gram matrix
// recomputed and solved by Gaussian elimination at every step (no inverse
// kept), plus the product's guards (‖δ‖² ≤ minDelta2 projects, P ≤ 0 skips).
type refProjectron struct {
	b         int
	sigma     float64
	plus      bool
	threshold float64
	sv        [][]float64
	alpha     []float64

	adds, projections, early, marginUpdates, marginSkips int
}

func (r *refProjectron) f(x []float64) float64 {
	s := 0.0
	for i, v := range r.sv {
		s += r.alpha[i] * fpKernel(v, x, r.sigma)
	}
	return s
}

// solve returns the Gram matrix K of the support vectors, k and d = K⁻¹k.
func (r *refProjectron) solve(x []float64) (gram [][]float64, k, d []float64) {
	m := len(r.sv)
	gram = make([][]float64, m)
	a := make([][]float64, m) // [K | k], eliminated in place
	k = make([]float64, m)
	for i := range m {
		gram[i] = make([]float64, m)
		for j := range m {
			gram[i][j] = fpKernel(r.sv[i], r.sv[j], r.sigma)
		}
		k[i] = fpKernel(r.sv[i], x, r.sigma)
		a[i] = append(append([]float64(nil), gram[i]...), k[i])
	}
	for c := range m {
		p := c
		for i := c + 1; i < m; i++ {
			if math.Abs(a[i][c]) > math.Abs(a[p][c]) {
				p = i
			}
		}
		a[c], a[p] = a[p], a[c]
		for i := c + 1; i < m; i++ {
			f := a[i][c] / a[c][c]
			for j := c; j <= m; j++ {
				a[i][j] -= f * a[c][j]
			}
		}
	}
	d = make([]float64, m)
	for i := m - 1; i >= 0; i-- {
		s := a[i][m]
		for j := i + 1; j < m; j++ {
			s -= a[i][j] * d[j]
		}
		d[i] = s / a[i][i]
	}
	return gram, k, d
}

func (r *refProjectron) observe(x []float64, y int) float64 {
	f := r.f(x)
	yf := float64(y)
	if fpSign(f) != y {
		if len(r.sv) == 0 {
			r.sv, r.alpha = append(r.sv, x), append(r.alpha, yf)
			r.adds++
			return f
		}
		_, k, d := r.solve(x)
		delta2 := 1.0
		for i := range k {
			delta2 -= k[i] * d[i]
		}
		if len(r.sv) < r.b && delta2 > minDelta2 && (r.threshold == 0 || math.Sqrt(delta2) > r.threshold) {
			r.sv, r.alpha = append(r.sv, x), append(r.alpha, yf)
			r.adds++
			return f
		}
		for i := range d {
			r.alpha[i] += yf * d[i]
		}
		r.projections++
		if len(r.sv) < r.b {
			r.early++
		}
		return f
	}
	loss := 1 - yf*f
	if !r.plus || !(loss > 0 && loss < 1) {
		return f
	}
	gram, k, d := r.solve(x)
	delta2, p := 1.0, 0.0
	for i := range k {
		delta2 -= k[i] * d[i]
		for j := range d {
			p += d[i] * gram[i][j] * d[j]
		}
	}
	if !(p > 0) {
		return f
	}
	u := 0.25 * math.Sqrt(float64(r.b+1)/math.Log(float64(r.b+1)))
	tau := math.Min(loss/p, 1)
	if beta := tau * (2*loss - tau*p - 2*u*math.Sqrt(math.Max(delta2, 0))); beta >= 0 {
		for i := range d {
			r.alpha[i] += yf * tau * d[i]
		}
		r.marginUpdates++
	} else {
		r.marginSkips++
	}
	return f
}

// TestProjectronByHand: Budget 2, 1-D points, κ(a, b) = 2^(−(a−b)²).
func TestProjectronByHand(t *testing.T) {
	for _, a := range []Algorithm{Projectron, ProjectronPP} {
		l := fpNew(t, a, Config{Dim: 1, Budget: 2, Sigma: sigmaPow2})
		step := func(x float64, y int, wantScore float64, wantMistake, wantUpdated bool, wantSV int) {
			t.Helper()
			out := fpObserve(t, l, []float64{x}, y)
			fpClose(t, a.String()+" score", out.Score, wantScore)
			if out.Mistake != wantMistake || out.Updated != wantUpdated || l.SupportVectors() != wantSV {
				t.Fatalf("%v x=%v y=%v: %+v with %d SVs; want mistake %v, updated %v, %d SVs",
					a, x, y, out, l.SupportVectors(), wantMistake, wantUpdated, wantSV)
			}
		}
		// f = 0 predicts +1: no mistake, and ℓ = 1 is not a margin error.
		step(0, +1, 0, false, false, 0)
		// The first mistake adds: α = {0: −1}, K⁻¹ = [1].
		step(0, -1, 0, true, true, 1)
		// f(1) = −1/2. d = 1/2, ‖δ‖² = 3/4 > 0: add. α = {0: −1, 1: 1},
		// K⁻¹ = [[4/3, −2/3], [−2/3, 4/3]].
		step(1, +1, -0.5, true, true, 2)
		// f(2) = −1/16 + 1/2 = 7/16, a mistake with a full budget: project.
		// k = (1/16, 1/2), d = K⁻¹k = (−1/4, 5/8), α ← α − d = (−3/4, 3/8).
		step(2, -1, 7.0/16, true, true, 2)
		fpClose(t, "f(2)", fpPredict(t, l, []float64{2}), -3.0/4/16+3.0/8/2)
		fpClose(t, "f(0)", fpPredict(t, l, []float64{0}), -3.0/4+3.0/8/2)
		// f(1) = −3/8 + 3/8 = 0: y = +1 is neither a mistake nor a margin error.
		step(1, +1, 0, false, false, 2)

		// x = 0.9, y = −1: f = −(3/4)κ₀ + (3/8)κ₁ < 0, a margin error.
		k0, k1 := math.Exp2(-0.81), math.Exp2(-0.01)
		f := -0.75*k0 + 0.375*k1
		d0, d1 := 4.0/3*k0-2.0/3*k1, -2.0/3*k0+4.0/3*k1
		delta := math.Sqrt(1 - k0*d0 - k1*d1)
		p := d0*d0 + d1*d1 + 2*0.5*d0*d1 // dᵀKd
		loss := 1 + f
		tau := math.Min(loss/p, 1)
		u := 0.25 * math.Sqrt(3/math.Log(3))
		beta := tau * (2*loss - tau*p - 2*u*delta)
		if !(beta > 0) {
			t.Fatalf("test setup: β = %v", beta)
		}
		if a == Projectron {
			step(0.9, -1, f, false, false, 2)
			fpClose(t, "f(0.9)", fpPredict(t, l, []float64{0.9}), f)
			continue
		}
		step(0.9, -1, f, false, true, 2)
		a0, a1 := -0.75-tau*d0, 0.375-tau*d1
		for _, x := range []float64{0, 0.9, 1, 2} {
			want := a0*math.Exp2(-x*x) + a1*math.Exp2(-(x-1)*(x-1))
			fpClose(t, "f after margin update", fpPredict(t, l, []float64{x}), want)
		}
	}
}

// TestProjectronPlusSkips: a margin error far from the support vectors
// (‖δ‖ ≈ 1) with a small loss has β < 0 and changes nothing.
func TestProjectronPlusSkips(t *testing.T) {
	l := fpNew(t, ProjectronPP, Config{Dim: 1, Budget: 3, Sigma: sigmaPow2})
	fpObserve(t, l, []float64{0}, -1)
	fpObserve(t, l, []float64{0}, -1) // f = −1: correct, y·f = 1, no margin error
	if l.SupportVectors() != 1 {
		t.Fatalf("%d SVs", l.SupportVectors())
	}
	// f(0.2) = −2^(−0.04) ≈ −0.973: y = −1 gives ℓ ≈ 0.027, ‖δ‖² = 1 − κ² ≈ 0.054.
	// β = τ(2ℓ − τP − 2U‖δ‖) < 0 with P = κ², τ = ℓ/P.
	k := math.Exp2(-0.04)
	loss := 1 - k
	tau := math.Min(loss/(k*k), 1)
	u := 0.25 * math.Sqrt(4/math.Log(4))
	if beta := tau * (2*loss - tau*k*k - 2*u*math.Sqrt(1-k*k)); !(beta < 0) {
		t.Fatalf("test setup: β = %v", beta)
	}
	out := fpObserve(t, l, []float64{0.2}, -1)
	if out.Mistake || out.Updated {
		t.Fatalf("%+v", out)
	}
	fpClose(t, "f(0)", fpPredict(t, l, []float64{0}), -1)
}

// TestProjectronMatchesReference follows the float64 reference (which
// solves with the Gram matrix instead of keeping its inverse) step by step on
// 2-D data with exact repeats.
func TestProjectronMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		a         Algorithm
		threshold float64
	}{{Projectron, 0}, {ProjectronPP, 0}, {Projectron, 0.8}, {ProjectronPP, 0.8}} {
		xs, ys := fpData(5, 300)
		const b = 6
		l := fpNew(t, tc.a, Config{Dim: 2, Budget: b, Sigma: 0.7, ProjectronThreshold: tc.threshold})
		ref := &refProjectron{b: b, sigma: 0.7, plus: tc.a == ProjectronPP, threshold: tc.threshold}
		for i, x := range xs {
			out := fpObserve(t, l, x, ys[i])
			want := ref.observe(x, ys[i])
			if math.Abs(out.Score-want) > 1e-5*(1+math.Abs(want)) {
				t.Fatalf("%v η=%v step %d: score %.9g, reference %.9g", tc.a, tc.threshold, i, out.Score, want)
			}
			if l.SupportVectors() != len(ref.sv) {
				t.Fatalf("%v step %d: %d SVs, reference %d", tc.a, i, l.SupportVectors(), len(ref.sv))
			}
		}
		t.Logf("%v η=%v: %d adds, %d projections (%d with room), %d margin updates, %d margin skips",
			tc.a, tc.threshold, ref.adds, ref.projections, ref.early, ref.marginUpdates, ref.marginSkips)
		if ref.projections == 0 || ref.adds != b && tc.threshold == 0 || (ref.early > 0) != (tc.threshold > 0) {
			t.Fatalf("the data does not exercise the branches")
		}
		if tc.a == ProjectronPP && (ref.marginUpdates == 0 || ref.marginSkips == 0) {
			t.Fatalf("the data does not exercise both margin branches")
		}
	}
}

// TestProjectronInverse: after several additions, the kept K⁻¹ times the
// Gram matrix of the stored vectors (recomputed here in float64) is I to
// float64 accuracy: the kernel values that build K⁻¹ are exact.
func TestProjectronInverse(t *testing.T) {
	const b = 12
	l := fpNew(t, ProjectronPP, Config{Dim: 3, Budget: b, Sigma: 1})
	rng := rand.New(rand.NewPCG(11, 12))
	for l.SupportVectors() < b {
		x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		y := 1 - 2*rng.IntN(2)
		fpObserve(t, l, x, y)
	}
	p := l.b.rule.(*projectron)
	vecs := make([][]float64, b)
	for i := range vecs {
		v := p.set.Vector(i, nil)
		vecs[i] = []float64{float64(v[0]), float64(v[1]), float64(v[2])}
	}
	for i := range b {
		for j := range b {
			s := 0.0
			for k := range b {
				s += p.kinv[tri(max(i, k))+min(i, k)] * fpKernel(vecs[k], vecs[j], 1)
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(s-want) > 1e-10 {
				t.Fatalf("(K⁻¹K)[%d][%d] = %v", i, j, s)
			}
		}
	}
}

// TestProjectronDuplicateGuard: a mistake on an exact repeat of a support
// vector while the budget has room is projected (‖δ‖ = 0), not added.
func TestProjectronDuplicateGuard(t *testing.T) {
	l := fpNew(t, Projectron, Config{Dim: 1, Budget: 5, Sigma: sigmaPow2})
	fpObserve(t, l, []float64{0}, -1)
	// f(0) = −1, so y = +1 is a mistake; d = 1, α ← −1 + 1 = 0.
	out := fpObserve(t, l, []float64{0}, +1)
	if !out.Mistake || !out.Updated || l.SupportVectors() != 1 {
		t.Fatalf("%+v with %d SVs", out, l.SupportVectors())
	}
	fpClose(t, "f(0)", fpPredict(t, l, []float64{0}), 0)
}

// TestProjectronThreshold: with η > 0 a mistaken point close to the span
// (‖δ‖ ≤ η) is projected although the budget has room.
func TestProjectronThreshold(t *testing.T) {
	for _, eta := range []float64{0, 0.5} {
		l := fpNew(t, Projectron, Config{Dim: 1, Budget: 5, Sigma: sigmaPow2, ProjectronThreshold: eta})
		fpObserve(t, l, []float64{0}, -1)
		// x = 0.3: κ = 2^(−0.09), ‖δ‖ = √(1 − κ²) ≈ 0.35.
		out := fpObserve(t, l, []float64{0.3}, +1)
		want := 2
		if eta > 0 {
			want = 1
		}
		if !out.Mistake || l.SupportVectors() != want {
			t.Fatalf("η=%v: %+v with %d SVs, want %d", eta, out, l.SupportVectors(), want)
		}
		if eta > 0 {
			k := math.Exp2(-0.09)
			fpClose(t, "f(0)", fpPredict(t, l, []float64{0}), -1+k)
		}
	}
}

// TestBudgetedRobust: on random data full of exact repeats and both labels
// for the same point, the budget holds, scores stay finite, and two runs
// agree exactly.
func TestBudgetedRobust(t *testing.T) {
	for _, a := range []Algorithm{Forgetron, Projectron, ProjectronPP} {
		run := func() []float64 {
			rng := rand.New(rand.NewPCG(21, 22))
			const b = 8
			l := fpNew(t, a, Config{Dim: 3, Budget: b, Sigma: 0.5})
			var scores []float64
			for i := range 3000 {
				x := []float64{float64(rng.IntN(3)), float64(rng.IntN(3)), float64(rng.IntN(2)) * 0.5}
				y := 1 - 2*rng.IntN(2)
				out := fpObserve(t, l, x, y)
				if math.IsNaN(out.Score) || math.IsInf(out.Score, 0) || math.Abs(out.Score) > 1e6 {
					t.Fatalf("%v step %d: score %v", a, i, out.Score)
				}
				if l.SupportVectors() > b {
					t.Fatalf("%v step %d: %d SVs", a, i, l.SupportVectors())
				}
				scores = append(scores, out.Score)
			}
			m, err := l.snapshot()
			if err != nil {
				t.Fatal(err)
			}
			for i := range m.Len() {
				if w := float64(m.Weight(0, i)); math.IsNaN(w) || math.IsInf(w, 0) {
					t.Fatalf("%v: weight %d is %v", a, i, w)
				}
			}
			return scores
		}
		s1, s2 := run(), run()
		for i := range s1 {
			if s1[i] != s2[i] {
				t.Fatalf("%v: runs differ at step %d: %v vs %v", a, i, s1[i], s2[i])
			}
		}
	}
}

// TestBudgetedNoAllocs: Observe allocates nothing once the budget is full.
func TestBudgetedNoAllocs(t *testing.T) {
	for _, a := range []Algorithm{Forgetron, Projectron, ProjectronPP} {
		const b, dim = 16, 5
		l := fpNew(t, a, Config{Dim: dim, Budget: b, Sigma: 1})
		rng := rand.New(rand.NewPCG(31, 32))
		const n = 64
		xs := make([]engine.Vector, n)
		ys := make([]int, n)
		for i := range xs {
			v := make([]float32, dim)
			for j := range v {
				v[j] = float32(rng.NormFloat64())
			}
			xs[i], ys[i] = engine.Dense(v), 1-2*rng.IntN(2)
		}
		for i := 0; l.SupportVectors() < b; i++ {
			if _, err := l.observe(xs[i%n], ys[i%n]); err != nil {
				t.Fatal(err)
			}
		}
		i := 0
		allocs := testing.AllocsPerRun(500, func() {
			if _, err := l.observe(xs[i%n], ys[i%n]); err != nil {
				t.Fatal(err)
			}
			i++
		})
		if allocs != 0 {
			t.Errorf("%v: %v allocations per Observe", a, allocs)
		}
	}
}
