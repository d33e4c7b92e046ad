package bogd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/engine"
)

// Helpers shared by the Forgetron and Projectron tests.

// sigmaPow2 makes κ(a, b) = 2^(−‖a−b‖²): 2σ² = 1/ln 2.
var sigmaPow2 = 1 / math.Sqrt(2*math.Ln2)

func fpNew(t testing.TB, a Algorithm, cfg Config) *Learner {
	t.Helper()
	l, err := New(a, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func fpVec(x []float64) engine.Vector {
	v := make([]float32, len(x))
	for i, e := range x {
		v[i] = float32(e)
	}
	return engine.Dense(v)
}

func fpObserve(t testing.TB, l *Learner, x []float64, y int) outcome {
	t.Helper()
	out, err := l.observe(fpVec(x), y)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fpPredict(t testing.TB, l *Learner, x []float64) float64 {
	t.Helper()
	f, err := l.score(fpVec(x))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fpKernel is the Gaussian kernel in float64 on points rounded to float32 as
// the learners store them.
func fpKernel(a, b []float64, sigma float64) float64 {
	s := 0.0
	for i := range a {
		d := float64(float32(a[i])) - float64(float32(b[i]))
		s += d * d
	}
	return math.Exp(-s / (2 * sigma * sigma))
}

func fpSign(f float64) int {
	if f < 0 {
		return -1
	}
	return 1
}

func fpClose(t testing.TB, what string, got, want float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > 1e-5 {
		t.Fatalf("%s = %.9g, want %.9g", what, got, want)
	}
}

// refForgetron is forgetron.m written out in float64 with plain slices: SV
// in arrival order, add, shrink all B+1, drop the first. phi picks φ from
// A, Bq, C.
type refForgetron struct {
	b, m  int
	sigma float64
	q     float64
	sv    [][]float64
	alpha []float64
	ys    []int
	phi   func(a, bq, c float64) float64
}

func (r *refForgetron) f(x []float64) float64 {
	s := 0.0
	for i, v := range r.sv {
		s += r.alpha[i] * fpKernel(v, x, r.sigma)
	}
	return s
}

func (r *refForgetron) observe(x []float64, y int) float64 {
	f := r.f(x)
	if fpSign(f) != y {
		r.m++
	}
	if float64(y)*f > 0 {
		return f
	}
	full := len(r.sv) == r.b
	r.sv = append(r.sv, x)
	r.alpha = append(r.alpha, float64(y))
	r.ys = append(r.ys, y)
	if !full {
		return f
	}
	yr := float64(r.ys[0])
	mu := yr * r.f(r.sv[0])
	delta := r.alpha[0] / yr
	a, bq, c := delta*delta-2*delta*mu, 2*delta, r.q-15.0/32*float64(r.m)
	phi := r.phi(a, bq, c)
	for i := range r.alpha {
		r.alpha[i] *= phi
	}
	r.q += (delta*phi)*(delta*phi) + 2*delta*phi*(1-phi*mu)
	r.sv, r.alpha, r.ys = r.sv[1:], r.alpha[1:], r.ys[1:]
	return f
}

// paperPhi is the paper's φ, written as the textbook case analysis (not the
// product's single formula): the largest φ in [0, 1] with aφ² + bqφ + c ≤ 0.
func paperPhi(a, bq, c float64) float64 {
	if bq == 0 || a+bq+c <= 0 {
		return 1
	}
	var phi float64
	switch {
	case a == 0:
		phi = -c / bq
	default: // the root where the quadratic crosses zero going up, for either sign of a
		phi = (-bq + math.Sqrt(bq*bq-4*a*c)) / (2 * a)
	}
	return math.Max(0, math.Min(1, phi))
}

// matlabPhi is forgetron.m lines 81–95, with MATLAB's min/max, which ignore
// NaN. The A < 0 branch takes the wrong root.
func matlabPhi(a, bq, c float64) float64 {
	mmin := func(x, y float64) float64 {
		if math.IsNaN(x) {
			return y
		}
		return math.Min(x, y)
	}
	mmax := func(x, y float64) float64 {
		if math.IsNaN(x) {
			return y
		}
		return math.Max(x, y)
	}
	switch {
	case a == 0:
		return mmax(mmin(-c/bq, 1), 0)
	case a > 0:
		if a+bq+c <= 0 {
			return 1
		}
		return (-bq + math.Sqrt(bq*bq-4*a*c)) / (2 * a)
	default:
		if a+bq+c <= 0 {
			return 1
		}
		return (-bq - math.Sqrt(bq*bq-4*a*c)) / (2 * a)
	}
}

func TestForgetronPhi(t *testing.T) {
	for _, c := range []struct{ a, bq, c, want float64 }{
		{1, 2, -5, 1},                 // φ = 1 feasible
		{0, 2, -1, 0.5},               // linear: −C/Bq
		{0, 2, -3, 1},                 // linear, clipped by the φ = 1 test
		{1, 2, -1, -1 + math.Sqrt(2)}, // A > 0: (−2 + √8)/2
		{-0.125, 2, -45.0 / 32, 8 - math.Sqrt(211)/2}, // A < 0: the smaller root
		{1, 2, 0, 0},   // C = 0: only φ = 0
		{1, 2, 0.5, 0}, // C > 0: nothing feasible, clip to 0
		{0, 0, 1, 1},   // δ = 0
		{0, 0, -1, 1},
	} {
		got := forgetronPhi(c.a, c.bq, c.c)
		if math.Abs(got-c.want) > 1e-15 {
			t.Errorf("forgetronPhi(%v, %v, %v) = %v, want %v", c.a, c.bq, c.c, got, c.want)
		}
		if p := paperPhi(c.a, c.bq, c.c); math.Abs(got-p) > 1e-15 {
			t.Errorf("forgetronPhi(%v, %v, %v) = %v, textbook rule %v", c.a, c.bq, c.c, got, p)
		}
	}
	// Random quadratics: the result is feasible and φ+ε is not (maximality).
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		delta := rng.Float64()
		mu := 4*rng.Float64() - 2
		a, bq, c := delta*delta-2*delta*mu, 2*delta, -rng.Float64()*3
		phi := forgetronPhi(a, bq, c)
		g := func(p float64) float64 { return a*p*p + bq*p + c }
		if phi < 0 || phi > 1 || g(phi) > 1e-12 {
			t.Fatalf("a=%v bq=%v c=%v: φ=%v infeasible, g=%v", a, bq, c, phi, g(phi))
		}
		if phi < 1 && g(min(phi+1e-9, 1)) <= 0 {
			t.Fatalf("a=%v bq=%v c=%v: φ=%v not maximal", a, bq, c, phi)
		}
	}
}

// TestForgetronByHand: Budget 2, 1-D points, κ(a, b) = 2^(−(a−b)²).
func TestForgetronByHand(t *testing.T) {
	cfg := Config{Dim: 1, Budget: 2, Sigma: sigmaPow2}
	l := fpNew(t, Forgetron, cfg)
	fg := l.b.rule.(*forgetron)
	var seen [][3]float64
	fg.phiHook = func(a, bq, c, phi float64) float64 {
		seen = append(seen, [3]float64{a, bq, c})
		return phi
	}
	ref := &refForgetron{b: 2, sigma: sigmaPow2, phi: paperPhi}
	step := func(x float64, y int, wantScore float64, wantMistake bool, wantSV int) {
		t.Helper()
		out := fpObserve(t, l, []float64{x}, y)
		rf := ref.observe([]float64{x}, y)
		fpClose(t, "score", out.Score, wantScore)
		fpClose(t, "reference score", rf, wantScore)
		if out.Mistake != wantMistake || !out.Updated || l.SupportVectors() != wantSV {
			t.Fatalf("x=%v y=%v: %+v, %d SVs; want mistake %v, updated, %d SVs", x, y, out, l.SupportVectors(), wantMistake, wantSV)
		}
	}
	// f = 0 with y = +1: no mistake, but y·f ≤ 0 updates (forgetron.m's test).
	step(0, +1, 0, false, 1)
	// f(0) = +1 now: a −1 there is a mistake; x = 0 is stored twice.
	step(0, -1, 1, true, 2)
	// f = 1 − 1 = 0 everywhere: a y = −1 at x = 2 is a mistake (M = 2), and
	// the budget is full: r = the first x = 0 (y_r = +1, δ = 1).
	// f'(x_r) = 1 − 1 − κ(0,2) = −1/16, μ = −1/16, A = 1 + 1/8, Bq = 2,
	// C = −15/16: A + Bq + C > 0, so φ is the positive root.
	step(2, -1, 0, true, 2)
	a, bq, c := 1.125, 2.0, -15.0/16
	phi1 := (-bq + math.Sqrt(bq*bq-4*a*c)) / (2 * a)
	if len(seen) != 1 || math.Abs(seen[0][0]-a) > 1e-6 || seen[0][1] != bq || seen[0][2] != c {
		t.Fatalf("hook saw %v, want [%v %v %v]", seen, a, bq, c)
	}
	// Now α = {0: −φ, 2: −φ}.
	fpClose(t, "f(1)", fpPredict(t, l, []float64{1}), -phi1)
	fpClose(t, "f(0)", fpPredict(t, l, []float64{0}), -phi1*(1+1.0/16))
	// A mistake at x = 1, y = +1 (M = 3): r = the x = 0 stored with y = −1,
	// δ = φ1, f'(0) = −φ1(1 + 1/16) + κ(0,1) = −17φ1/16 + 1/2.
	q1 := phi1*phi1 + 2*phi1*(1-phi1*(-1.0/16))
	step(1, +1, -phi1, true, 2)
	mu := -(-17*phi1/16 + 0.5)
	a, bq, c = phi1*phi1-2*phi1*mu, 2*phi1, q1-15.0/32*3
	phi2 := paperPhi(a, bq, c)
	if len(seen) != 2 || math.Abs(seen[1][0]-a) > 1e-6 || math.Abs(seen[1][1]-bq) > 1e-6 || math.Abs(seen[1][2]-c) > 1e-6 {
		t.Fatalf("hook saw %v, want [%v %v %v]", seen[1], a, bq, c)
	}
	// α = {2: −φ1φ2, 1: +φ2}.
	for _, x := range []float64{0, 1, 1.5, 2, 3} {
		want := -phi1*phi2*math.Exp2(-(x-2)*(x-2)) + phi2*math.Exp2(-(x-1)*(x-1))
		fpClose(t, "f", fpPredict(t, l, []float64{x}), want)
		fpClose(t, "reference f", ref.f([]float64{x}), want)
	}
	// A correct prediction with margin changes nothing.
	if out := fpObserve(t, l, []float64{1}, +1); out.Updated || out.Mistake {
		t.Fatalf("correct round: %+v", out)
	}
}

// TestForgetronWrongRootBranch drives forgetron.m's A < 0 branch: f(2) =
// 7/16 after −1 at 0 and +1 at 1, so a −1 at 2 gives μ = 9/16 > δ/2 and
// A = −1/8, Bq = 2, C = −45/32 (M = 3). The paper's φ is 8 − √211/2 ≈ 0.737;
// forgetron.m takes 8 + √211/2 ≈ 15.26.
func TestForgetronWrongRootBranch(t *testing.T) {
	for _, matlab := range []bool{false, true} {
		l := fpNew(t, Forgetron, Config{Dim: 1, Budget: 2, Sigma: sigmaPow2})
		var got []float64
		l.b.rule.(*forgetron).phiHook = func(a, bq, c, phi float64) float64 {
			if matlab {
				phi = matlabPhi(a, bq, c)
			}
			got = append(got, a, bq, c, phi)
			return phi
		}
		fpObserve(t, l, []float64{0}, -1)
		fpObserve(t, l, []float64{1}, +1)
		out := fpObserve(t, l, []float64{2}, -1)
		fpClose(t, "score", out.Score, 7.0/16)
		want := 8 - math.Sqrt(211)/2
		if matlab {
			want = 8 + math.Sqrt(211)/2
		}
		if len(got) != 4 {
			t.Fatalf("hook calls: %v", got)
		}
		fpClose(t, "A", got[0], -0.125)
		fpClose(t, "C", got[2], -45.0/32)
		fpClose(t, "φ", got[3], want)
		// α = {1: φ, 2: −φ}.
		fpClose(t, "f(1)", fpPredict(t, l, []float64{1}), want*(1-0.5))
		fpClose(t, "f(2)", fpPredict(t, l, []float64{2}), want*(0.5-1))
	}
}

// fpData draws n 2-D points on a small grid (so exact repeats happen) with
// labels from a noisy circle.
func fpData(seed uint64, n int) ([][]float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	xs := make([][]float64, n)
	ys := make([]int, n)
	for i := range xs {
		x := []float64{float64(rng.IntN(13)) / 4, float64(rng.IntN(13)) / 4}
		y := -1
		if (x[0]-1.5)*(x[0]-1.5)+(x[1]-1.5)*(x[1]-1.5) < 1.2 {
			y = 1
		}
		if rng.IntN(10) == 0 {
			y = -y
		}
		xs[i], ys[i] = x, y
	}
	return xs, ys
}

// TestForgetronMatchesReference follows the float64 reference step by step
// on data with exact repeats, both with the paper's φ and with forgetron.m's.
func TestForgetronMatchesReference(t *testing.T) {
	for _, matlab := range []bool{false, true} {
		xs, ys := fpData(3, 400)
		cfg := Config{Dim: 2, Budget: 5, Sigma: 0.7}
		l := fpNew(t, Forgetron, cfg)
		ref := &refForgetron{b: 5, sigma: 0.7, phi: paperPhi}
		removals, wrong := 0, 0
		l.b.rule.(*forgetron).phiHook = func(a, bq, c, phi float64) float64 {
			removals++
			if mp := matlabPhi(a, bq, c); math.Abs(mp-phi) > 1e-12 {
				wrong++
			}
			if matlab {
				return matlabPhi(a, bq, c)
			}
			return phi
		}
		if matlab {
			ref.phi = matlabPhi
		}
		for i, x := range xs {
			out := fpObserve(t, l, x, ys[i])
			want := ref.observe(x, ys[i])
			if math.Abs(out.Score-want) > 1e-5*(1+math.Abs(want)) {
				t.Fatalf("matlab=%v step %d: score %.9g, reference %.9g", matlab, i, out.Score, want)
			}
			if l.SupportVectors() != len(ref.sv) {
				t.Fatalf("step %d: %d SVs, reference %d", i, l.SupportVectors(), len(ref.sv))
			}
		}
		if removals < 50 {
			t.Fatalf("only %d removal steps: the test does not exercise the budget", removals)
		}
		t.Logf("matlab=%v: %d removals, forgetron.m's φ differs on %d", matlab, removals, wrong)
		// The stored vectors are the reference's, which keeps arrival order:
		// the FIFO survived the swap-removes.
		m, _ := l.snapshot()
		if m.Len() != len(ref.sv) {
			t.Fatalf("snapshot has %d vectors", m.Len())
		}
		used := make([]bool, len(ref.sv))
		var buf []float32
		for i := range m.Len() {
			buf = m.Vector(i, buf)
			found := false
			for j, v := range ref.sv {
				if !used[j] && float32(v[0]) == buf[0] && float32(v[1]) == buf[1] &&
					math.Abs(float64(m.Weight(0, i))-ref.alpha[j]) <= 1e-5 {
					used[j], found = true, true
					break
				}
			}
			if !found {
				t.Fatalf("stored vector %v (weight %v) is not among the reference's", buf, m.Weight(0, i))
			}
		}
	}
}

// TestForgetronFIFO checks the age bookkeeping directly: with distinct
// points and every round an update, the stored vectors are always the last
// Budget ones.
func TestForgetronFIFO(t *testing.T) {
	const b = 7
	l := fpNew(t, Forgetron, Config{Dim: 1, Budget: b, Sigma: 0.01})
	var buf []float32
	for i := range 60 {
		// Far-apart points: f ≈ 0, and y = −sgn(f) makes every round an
		// update.
		x := []float64{float64(i)}
		if out := fpObserve(t, l, x, -fpSign(fpPredict(t, l, x))); !out.Updated {
			t.Fatalf("step %d not updated", i)
		}
		fg := l.b.rule.(*forgetron)
		n := l.SupportVectors()
		if n != min(i+1, b) {
			t.Fatalf("step %d: %d SVs", i, n)
		}
		for k := range n {
			slot := fg.age.slot(k)
			buf = fg.set.Vector(slot, buf)
			if want := float32(i + 1 - n + k); buf[0] != want {
				t.Fatalf("step %d: %d-th oldest is %v, want %v", i, k, buf[0], want)
			}
			if fg.age.pos[slot] != (fg.age.head+k)%b {
				t.Fatalf("step %d: pos out of sync", i)
			}
		}
	}
}
