package simd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// The golden ratio and the number of steps of MergeSearch.
const (
	mergeGamma = 0.618033988749894848
	mergeSteps = 22
)

// mergeInterval is the interval MergeSearch searches for a candidate.
func mergeInterval(a1, a2 float32) (lo, hi float64) {
	switch {
	case a1*a2 > 0:
		return 0, 1
	case a1 > 0:
		return 1, 6
	}
	return -5, 0
}

// mergeExps returns the exponents A = (x−1)²·lk and B = x²·lk of the merge
// objective f(x) = a1·e^A + a2·e^B at x, and M = max(A, B).
func mergeExps(lk float32, x float64) (a, b, m float64) {
	a = (x - 1) * (x - 1) * float64(lk)
	b = x * x * float64(lk)
	return a, b, max(a, b)
}

// mergeScaled returns f(x)·e^(−m0): the merge objective on the scale e^m0
// (f itself underflows in float64 for far pairs). On that scale a term
// may overflow: ±Inf, unless its weight is 0.
func mergeScaled(a1, a2, lk float32, x, m0 float64) float64 {
	a, b, _ := mergeExps(lk, x)
	var f float64
	for _, t := range [2][2]float64{{float64(a1), a}, {float64(a2), b}} {
		if t[0] != 0 {
			f += t[0] * math.Exp(t[1]-m0)
		}
	}
	return f
}

// refMergeSearch is MergeSearch's procedure in float64 (mergeSearch32 of
// the package with math.Exp): golden-section steps from the same
// interval, comparing the values at the interior points exactly (scaled
// by their exponents, as the float32 code does, so that nothing underflows
// first). It returns h (the middle of the last bracket) and the width of
// the last bracket. lk must not be −Inf or NaN.
func refMergeSearch(a1, a2, lk float32) (h, width float64) {
	A1, A2 := float64(a1), float64(a2)
	value := func(x float64) (m, v float64) {
		a, b, m := mergeExps(lk, x)
		e := math.Exp(-math.Abs(b - a))
		if b-a <= 0 {
			return m, A2*e + A1
		}
		return m, A1*e + A2
	}
	atLeast := func(mp, vp, mq, vq float64) bool {
		d := mp - mq
		e := math.Exp(-math.Abs(d))
		if d <= 0 {
			return vp*e >= vq
		}
		return vp >= vq*e
	}
	lo, hi := mergeInterval(a1, a2)
	w := hi - lo
	mp, vp := value(hi - mergeGamma*w)
	mq, vq := value(lo + mergeGamma*w)
	for range mergeSteps {
		w := hi - lo
		if atLeast(mp, vp, mq, vq) {
			hi = lo + mergeGamma*w
			mq, vq = mp, vp
			mp, vp = value(lo + (2*mergeGamma-1)*w)
		} else {
			lo = hi - mergeGamma*w
			mp, vp = mq, vq
			mq, vq = value(hi - (2*mergeGamma-1)*w)
		}
	}
	return (lo + hi) / 2, hi - lo
}

// A mergeCase is a candidate with what its checks need, computed once for
// every implementation.
type mergeCase struct {
	a1, a2, lk float32
	want       float64 // the reference's h
	lo, hi     float64 // the interval
	m0         float64 // the exponent of the objective at want: values are on the scale e^m0
	fWant, tol float64 // the scaled objective at want, and how far below it the found h may be
	// unimodal is set when the objective has one maximum on the
	// interval (beyond tol); then [near0, near1] are the points where it
	// is within tol of fWant, widened by the last bracket.
	unimodal     bool
	near0, near1 float64
}

// newMergeCase runs refMergeSearch and derives the tolerances.
//
// The float32 search decides each step by comparing two values e^M·v; each
// carries a relative error of at most 2e-7 from an exponential and 4u from
// the roundings of v and the products that scale it, and the scale factor
// e^(−|ΔM|) carries 2e-7 more and the rounding of both exponents, 3u·|M|
// each (three roundings of a product). The smaller term of a value carries
// its exponents' rounding too, 3u·(|A| + |B|) times the term. So a
// comparison errs by at most ε = 4e-7 + 8u + 6u·|M| + 3u·(|A| + |B|)·s/S
// of the scale S = Σ|aᵢ|·e^(expᵢ − M) near the reference's h (s the smaller
// term), and a golden-section search whose comparisons err by ε·S ends
// where the objective is within 2ε·S of the exact search's maximum. Each
// search ends in a bracket of width w, h its middle: their values may
// also differ by the objective's fall over w from the reference's h.
func newMergeCase(a1, a2, lk float32) mergeCase {
	c := mergeCase{a1: a1, a2: a2, lk: lk}
	var w float64
	c.want, w = refMergeSearch(a1, a2, lk)
	c.lo, c.hi = mergeInterval(a1, a2)
	a, b, m := mergeExps(lk, c.want)
	c.m0 = m
	t1, t2 := math.Abs(float64(a1))*math.Exp(a-m), math.Abs(float64(a2))*math.Exp(b-m)
	scale := t1 + t2
	eps := 4e-7 + 8*u32 + 6*u32*math.Abs(m) + 3*u32*(math.Abs(a)+math.Abs(b))*min(t1, t2)/max(scale, math.SmallestNonzeroFloat64)
	c.fWant = mergeScaled(a1, a2, lk, c.want, m)
	fall := c.fWant - min(c.f(max(c.want-w, c.lo)), c.f(min(c.want+w, c.hi)))
	c.tol = 2*eps*scale + max(fall, 0)

	// Unimodality on a grid of the interval: peaks that rise and fall by
	// more than tol.
	const grid = 4000
	step := (c.hi - c.lo) / grid
	peaks, dir, ref := 0, 0, math.Inf(-1)
	for i := 0; i <= grid; i++ {
		f := c.f(c.lo + float64(i)*step)
		switch {
		case dir >= 0 && f > ref:
			ref = f
		case dir >= 0 && f < ref-c.tol:
			peaks++
			dir, ref = -1, f
		case dir < 0 && f < ref:
			ref = f
		case dir < 0 && f > ref+c.tol:
			dir, ref = 1, f
		}
	}
	if dir >= 0 {
		peaks++
	}
	if c.unimodal = peaks == 1; c.unimodal {
		c.near0 = c.edge(-1) - w
		c.near1 = c.edge(1) + w
	}
	return c
}

// f is the objective at x on the case's scale.
func (c *mergeCase) f(x float64) float64 { return mergeScaled(c.a1, c.a2, c.lk, x, c.m0) }

// edge returns how far from want, toward dir (±1), the objective stays
// within tol of fWant (a unimodal objective falls monotonically from its
// maximum, near want): by bisection between want and the interval's end.
func (c *mergeCase) edge(dir float64) float64 {
	in, out := c.want, c.hi
	if dir < 0 {
		out = c.lo
	}
	if c.f(out) >= c.fWant-c.tol {
		return out
	}
	for range 60 {
		mid := (in + out) / 2
		if c.f(mid) >= c.fWant-c.tol {
			in = mid
		} else {
			out = mid
		}
	}
	return in
}

// check fails tb unless h is what the case allows: in the interval, the
// objective within tol of the reference's value, and, for a unimodal
// objective, within the points where it is (widened by the last bracket).
// lk = −Inf gives exactly 1 or 0.
func (c *mergeCase) check(tb testing.TB, what string, h float32) {
	tb.Helper()
	if math.IsInf(float64(c.lk), -1) {
		want := float32(0)
		if math.Abs(float64(c.a1)) >= math.Abs(float64(c.a2)) {
			want = 1
		}
		if h != want {
			tb.Fatalf("%s: a1=%v a2=%v lk=−Inf: h = %v, want %v", what, c.a1, c.a2, h, want)
		}
		return
	}
	x := float64(h)
	desc := fmt.Sprintf("%s: a1=%v a2=%v lk=%v: h = %v, reference %v", what, c.a1, c.a2, c.lk, h, c.want)
	if !(x >= c.lo && x <= c.hi) {
		tb.Fatalf("%s: outside [%v, %v]", desc, c.lo, c.hi)
	}
	if f := c.f(x); !(f >= c.fWant-c.tol) {
		tb.Fatalf("%s: objective %v below the reference's %v by %.3g, more than %.3g (scaled by e^%v)", desc, f, c.fWant, c.fWant-f, c.tol, c.m0)
	}
	if c.unimodal && !(x >= c.near0 && x <= c.near1) {
		tb.Fatalf("%s: unimodal objective, h outside [%v, %v] where it is within %.3g of the maximum", desc, c.near0, c.near1, c.tol)
	}
}

// mergeKinds generate the candidates of a test: weights as BSGD's merge
// makes them (bench_test.go's mergeInputs) or extreme ones, and lk from
// identical points (0) to far pairs and orthogonal ones (−Inf).
var mergeKinds = []struct {
	name string
	gen  func(r *rand.Rand) (a1, a2, lk float32)
}{
	{"near", func(r *rand.Rand) (float32, float32, float32) { return mergeWeights(r, -0.1*r.ExpFloat64()) }},
	{"typical", func(r *rand.Rand) (float32, float32, float32) { return mergeWeights(r, -3*r.ExpFloat64()) }},
	{"far", func(r *rand.Rand) (float32, float32, float32) { return mergeWeights(r, -math.Pow(10, 1+4*r.Float64())) }},
	{"identical", func(r *rand.Rand) (float32, float32, float32) { return mergeWeights(r, 0) }},
	{"orthogonal", func(r *rand.Rand) (float32, float32, float32) { return mergeWeights(r, math.Inf(-1)) }},
	{"tiny", func(r *rand.Rand) (float32, float32, float32) { return mergeWeights(r, -1e-30*r.Float64()) }},
	// One weight 0, or both equal (ties between the ends of [0, 1]).
	{"zero", func(r *rand.Rand) (float32, float32, float32) {
		a := float32(r.NormFloat64())
		if r.IntN(2) == 0 {
			return a, 0, float32(-10 * r.Float64())
		}
		return 0, a, float32(-10 * r.Float64())
	}},
	{"equal", func(r *rand.Rand) (float32, float32, float32) {
		a := float32(r.NormFloat64())
		return a, a, float32(-20 * r.Float64())
	}},
}

// mergeWeights returns BSGD's weights of a random pair and lk.
func mergeWeights(r *rand.Rand, lk float64) (a1, a2, lkf float32) {
	a1s, a2s, _ := mergeInputs(r, 1)
	return a1s[0], a2s[0], float32(lk)
}

func TestEquivMergeSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	lengths := vectorCounts()
	if !testing.Short() {
		lengths = append(lengths, 1000, 2003)
	}
	type test struct {
		what  string
		cases []mergeCase
	}
	var tests []test
	for skew, n := range lengths {
		kind := mergeKinds[skew%len(mergeKinds)]
		cases := make([]mergeCase, n)
		for i := range cases {
			k := kind
			if i%3 == 1 { // a mix of kinds in every vector
				k = mergeKinds[r.IntN(len(mergeKinds))]
			}
			cases[i] = newMergeCase(k.gen(r))
		}
		tests = append(tests, test{fmt.Sprintf("%s n=%d skew=%d", kind.name, n, skew), cases})
	}
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		for skew, tc := range tests {
			checkMergeSearch(t, tc.what, tc.cases, skew)
		}
	})
}

// checkMergeSearch runs MergeSearch on guarded, misaligned (by skew) copies
// of the cases' inputs and checks every h (mergeCase.check).
func checkMergeSearch(tb testing.TB, what string, cases []mergeCase, skew int) {
	tb.Helper()
	a1, a2, lk := make([]float32, len(cases)), make([]float32, len(cases)), make([]float32, len(cases))
	for i, c := range cases {
		a1[i], a2[i], lk[i] = c.a1, c.a2, c.lk
	}
	g1 := newGuarded(a1, nan[float32](), skew)
	g2 := newGuarded(a2, nan[float32](), skew+1)
	gk := newGuarded(lk, nan[float32](), skew+2)
	h := newOutput[float32](len(cases), skew+3)
	simd.MergeSearch(h.s(), g1.s(), g2.s(), gk.s())
	h.check(tb, what+" h")
	g1.checkInput(tb, what+" a1")
	g2.checkInput(tb, what+" a2")
	gk.checkInput(tb, what+" lk")
	for i := range cases {
		cases[i].check(tb, fmt.Sprintf("%s candidate %d", what, i), h.s()[i])
	}
}

// TestMergeSearchNaN: a NaN in a1, a2 or lk gives a NaN h, for that
// candidate only.
func TestMergeSearchNaN(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		for _, n := range []int{1, 15, 16, 17, 40} {
			for _, in := range []string{"a1", "a2", "lk"} {
				for _, p := range []int{0, n / 2, n - 1} {
					r := rand.New(rand.NewPCG(uint64(n), uint64(p)))
					a1, a2, lk := mergeInputs(r, n)
					map[string][]float32{"a1": a1, "a2": a2, "lk": lk}[in][p] = nan[float32]()
					h := make([]float32, n)
					simd.MergeSearch(h, a1, a2, lk)
					for i, v := range h {
						if (i == p) != (v != v) {
							t.Fatalf("n=%d, NaN in %s[%d]: h[%d] = %v", n, in, p, i, v)
						}
					}
				}
			}
		}
	})
}

// TestMergeSearchArgs: inputs shorter than h are a programming error.
func TestMergeSearchArgs(t *testing.T) {
	for _, c := range [][4]int{{3, 2, 3, 3}, {3, 3, 2, 3}, {17, 17, 17, 16}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("MergeSearch with lengths %v did not panic", c)
				}
			}()
			simd.MergeSearch(make([]float32, c[0]), make([]float32, c[1]), make([]float32, c[2]), make([]float32, c[3]))
		}()
	}
	simd.MergeSearch(nil, nil, nil, nil) // no candidates: nothing to do
}

func FuzzMergeSearch(f *testing.F) {
	f.Add([]byte{17, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{40, 0, 0xff, 0x7f, 12, 0, 0x80, 3, 9})
	f.Add([]byte{1, 0, 0, 0, 0, 0xc0, 0xff, 20})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n := d.intn(70)
		cases := make([]mergeCase, n)
		for i := range cases {
			// Weights from 2⁻¹⁶ to 2²³ (BSGD's are about 1, and up to
			// 10⁴·|α| where α_m + α_n is 0), lk from −2⁻²⁰ to −2³⁰ or
			// one of 0 and −Inf.
			a1, a2 := d.value(-31, -8), d.value(-31, -8)
			lk := -float32(math.Abs(d.value64(-36, 15)))
			switch d.byte() % 16 {
			case 0:
				lk = 0
			case 1:
				lk = float32(math.Inf(-1))
			}
			cases[i] = newMergeCase(a1, a2, lk)
		}
		skew := d.intn(4)
		simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
			checkMergeSearch(t, "fuzz input", cases, skew)
		})
	})
}

// TestMergeSearchBeatsUnscaled documents why the values are kept scaled:
// for far pairs the unscaled float64 objective of MergeSearch64 underflows
// at the interior points and its search ends where
// the objective is nearly 0, while MergeSearch finds the maximum near an
// end of the interval.
func TestMergeSearchBeatsUnscaled(t *testing.T) {
	// [−5, 0]: a1 < 0 < a2; the maximum is a2's near 0. At lk = −300 the
	// first interior points −3.09 and −1.91 have exponents below −1000.
	a1, a2, lk := float32(-0.5), float32(1.5), float32(-300)
	h64 := simd.MergeSearch64(float64(a1), float64(a2), math.Exp(float64(lk)))
	c := newMergeCase(a1, a2, lk)
	if f := c.f(h64); f >= c.fWant-c.tol {
		t.Fatalf("the unscaled search found h = %v with objective %v, the reference %v: expected it to fail", h64, f, c.fWant)
	}
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		var h [1]float32
		simd.MergeSearch(h[:], []float32{a1}, []float32{a2}, []float32{lk})
		c.check(t, "far pair", h[0])
		t.Logf("h = %v (unscaled float64 search: %v)", h[0], h64)
	})
}

// TestMergeSearch64: BudgetedSVM's float64 search ends, within its
// tolerance, at a local maximum of the merge objective in its interval
// (the objective may have two: golden section finds one of them), for
// weights made as a merge makes them.
func TestMergeSearch64(t *testing.T) {
	a1s, a2s, lks := mergeInputs(rand.New(rand.NewPCG(5, 5)), 2000)
	for i := range a1s {
		a1, a2, k := float64(a1s[i]), float64(a2s[i]), math.Exp(float64(lks[i]))
		h := simd.MergeSearch64(a1, a2, k)
		lo, hi := mergeInterval(a1s[i], a2s[i])
		obj := func(x float64) float64 { return a1*math.Pow(k, (1-x)*(1-x)) + a2*math.Pow(k, x*x) }
		const step = 1e-3
		tol := 1e-6 * (math.Abs(a1) + math.Abs(a2))
		if h < lo || h > hi ||
			h-step > lo && obj(h-step) > obj(h)+tol || h+step < hi && obj(h+step) > obj(h)+tol {
			t.Fatalf("a1=%v a2=%v k=%v: h=%v (objective %v) is no local maximum on [%v, %v]: %v at −%v, %v at +%v",
				a1, a2, k, h, obj(h), lo, hi, obj(h-step), step, obj(h+step), step)
		}
	}
	if h := simd.MergeSearch64(0.5, -2, 0); h != 0 {
		t.Errorf("orthogonal points, |a2| larger: h = %v, want 0", h)
	}
	if h := simd.MergeSearch64(2, 0.5, 0); h != 1 {
		t.Errorf("orthogonal points, |a1| larger: h = %v, want 1", h)
	}
}
