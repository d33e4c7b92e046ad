package simd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// sinCosTol is the absolute error FourierFeatures's sine and cosine may add
// to the values of the rounded projection p (u = 2⁻²⁴; |r| < 2, results in
// [−1, 1], |r| ≤ 1.66 for |p| ≤ 2²⁰):
//
//   - the reduced argument r = p − q·π is rounded once (|r| < 2: u), and π's
//     two float32 parts miss 3.6e-15 of it, under 0.02u at |q| ≤ 2²⁰/π;
//   - the polynomials' own error on |r| ≤ 1.7: 0.56u (sine), 0.12u (cosine);
//   - their evaluation: the sine rounds S (≤ 0.6u once multiplied by r³),
//     S·z (0.43u after ·r), the generic code also (S·z)·r (0.5u), and the
//     sum (0.5u): at most 3.1u; the cosine rounds C (0.26u after ·z²),
//     C·z − ½ (0.72u after ·z), the generic code also C·z (0.18u) and the
//     product by z (u), and the sum (0.5u): at most 3.8u.
//
// The sign flip is exact. Measured: 2.3u in the vector code, 3.0u in the
// generic code (TestSinCosAccuracy).
const sinCosTol = 4 * u32

// sinCosMax is the clamp of the projection, 2²⁰.
const sinCosMax = 1 << 20

// refSinCos returns the float64 sine and cosine of p clamped as
// FourierFeatures clamps it.
func refSinCos(p float64) (sin, cos float64) {
	return math.Sincos(min(max(p, -sinCosMax), sinCosMax))
}

// TestSinCosAccuracy checks the sine and cosine of every implementation
// against float64 on every 97th float32 p of ±[0, 2²⁰] (2²⁰ is where p is
// clamped), given exactly (dimension 1, x = 1: p is the stored value):
// within sinCosTol. It logs the largest error up to 2, 1e3, 1e5 and 2²⁰.
func TestSinCosAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("27M values per implementation")
	}
	limits := []float64{2, 1e3, 1e5, sinCosMax}
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		worst := make([]float64, len(limits)) // per range: up to limits[b]
		worstAt := make([]float32, len(limits))
		dst := make([]float32, 2<<14)
		p := make([]float32, 1<<14)
		expSweep(0, sinCosMax, 97, func(src []float32) {
			for _, sign := range []float32{1, -1} {
				n := (len(src) + lanes - 1) &^ (lanes - 1)
				for i := range p[:n] {
					p[i] = 0
					if i < len(src) {
						p[i] = sign * src[i]
					}
				}
				simd.FourierFeatures(dst[:2*n], []float32{1}, p[:n], 1)
				for i, v := range p[:n] {
					s, c := refSinCos(float64(v))
					e := max(math.Abs(float64(dst[n+i])-s), math.Abs(float64(dst[i])-c))
					if e != e {
						e = math.Inf(1) // NaN counts as worst
					}
					b := 0
					for math.Abs(float64(v)) > limits[b] {
						b++
					}
					if e > worst[b] {
						worst[b], worstAt[b] = e, v
					}
				}
			}
		})
		for b := 1; b < len(limits); b++ {
			if worst[b-1] > worst[b] {
				worst[b], worstAt[b] = worst[b-1], worstAt[b-1]
			}
		}
		for b, lim := range limits {
			t.Logf("|p| ≤ %g: max absolute error %.3g (%.2f·2⁻²⁴) at p = %v", lim, worst[b], worst[b]/u32, worstAt[b])
		}
		if b := len(limits) - 1; !(worst[b] <= sinCosTol) {
			t.Errorf("absolute error %.3g at p = %v exceeds %.3g", worst[b], worstAt[b], sinCosTol)
		}
	})
}

// TestSinCosClamp: projections beyond ±2²⁰ (infinities included) give the
// features of ±2²⁰ exactly, finite; NaN gives NaN.
func TestSinCosClamp(t *testing.T) {
	inf := float32(math.Inf(1))
	p := []float32{sinCosMax, -sinCosMax, math.Nextafter32(sinCosMax, inf), 3e6, 1e30, math.MaxFloat32, inf,
		-math.Nextafter32(sinCosMax, inf), -3e6, -1e30, -math.MaxFloat32, -inf, nan[float32](), 0, 0, 0}
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		dst := make([]float32, 2*len(p))
		simd.FourierFeatures(dst, []float32{1}, p, 1)
		cos, sin := dst[:len(p)], dst[len(p):]
		for i, v := range p {
			switch {
			case v != v:
				if cos[i] == cos[i] || sin[i] == sin[i] {
					t.Errorf("p = NaN: cos %v, sin %v, want NaN", cos[i], sin[i])
				}
			case math.Abs(float64(v)) > sinCosMax:
				b := 0 // the features of the bound of v's sign
				if v < 0 {
					b = 1
				}
				if cos[i] != cos[b] || sin[i] != sin[b] {
					t.Errorf("p = %v: cos %v, sin %v, want those of %v: %v, %v", v, cos[i], sin[i], p[b], cos[b], sin[b])
				}
			}
		}
		for b := range 2 {
			s, c := refSinCos(float64(p[b]))
			if math.Abs(float64(sin[b])-s) > sinCosTol || math.Abs(float64(cos[b])-c) > sinCosTol {
				t.Errorf("p = %v: cos %v, sin %v, want %v, %v", p[b], cos[b], sin[b], c, s)
			}
		}
	})
}

// fourierKinds generate frequencies and queries.
var fourierKinds = []dataKind{
	// Scaled features and σ = 1: |p| ≲ 10.
	{"scaled", func(r *rand.Rand, n, dim int) ([][]float32, []float32) {
		return randVecs(r, n, dim, func() float32 { return float32(r.NormFloat64()) }),
			randVecs(r, 1, dim, func() float32 { return 2*r.Float32() - 1 })[0]
	}},
	// Raw features up to 1e4 and σ = 8 (u ~ N(0, σ⁻²)): |p| up to
	// thousands.
	{"raw", func(r *rand.Rand, n, dim int) ([][]float32, []float32) {
		return randVecs(r, n, dim, func() float32 { return float32(r.NormFloat64() / 8) }),
			randVecs(r, 1, dim, func() float32 { return float32(r.IntN(10000)) + float32(r.IntN(8))/8 })[0]
	}},
	// A zero query: p = 0 exactly, cos 1 and sin 0.
	{"zero", func(r *rand.Rand, n, dim int) ([][]float32, []float32) {
		return randVecs(r, n, dim, func() float32 { return float32(r.NormFloat64()) }), make([]float32, dim)
	}},
	// Projections around and beyond the clamp at ±2²⁰.
	{"huge", func(r *rand.Rand, n, dim int) ([][]float32, []float32) {
		return randVecs(r, n, dim, func() float32 { return float32(r.NormFloat64() * 1e3) }),
			randVecs(r, 1, dim, func() float32 { return float32(r.NormFloat64() * 2e3) })[0]
	}},
}

func TestEquivFourierFeatures(t *testing.T) {
	eachCase(t, fourierKinds, 21, func(t *testing.T, c tileCase) {
		extra := c.skew % 3 // dst longer than needed: the rest stays
		checkFourier(t, c.what, c.vecs, c.x, c.dim, extra, c.skew)
	})
}

func TestEquivFourierFeaturesSparse(t *testing.T) {
	eachCase(t, fourierKinds, 23, func(t *testing.T, c tileCase) {
		idx, val := sparseQuery(c.r, c.x)
		checkFourierSparse(t, fmt.Sprintf("%s nnz=%d", c.what, len(idx)), c.vecs, idx, val, c.dim, c.skew)
	})
}

// refFourier returns the float64 features of the projections p_j =
// Σₖ val[k]·freqs[j][idx[k]] (a dense x has idx = 0, 1, …), in
// FourierFeatures's order (the cosines, then the sines), and their
// tolerances: the float32 projection, summed in order, is within
// (nnz+1)·u·Σₖ|val[k]·u_j| of p_j (a product and a sum rounded per term,
// or one FMA), which moves its sine and cosine by as much; then sinCosTol.
func refFourier(freqs [][]float32, idx []int32, val []float32) (want, tol []float64) {
	n := len(freqs)
	want = make([]float64, 2*n)
	tol = make([]float64, 2*n)
	for j, u := range freqs {
		var p, mag float64
		for k, f := range idx {
			term := float64(val[k]) * float64(u[f])
			p += term
			mag += math.Abs(term)
		}
		want[n+j], want[j] = refSinCos(p)
		tol[j] = 1.01*float64(len(idx)+1)*u32*mag + sinCosTol
		tol[n+j] = tol[j]
	}
	return want, tol
}

// denseIndices returns 0, 1, …, dim−1.
func denseIndices(dim int) []int32 {
	idx := make([]int32, dim)
	for j := range idx {
		idx[j] = int32(j)
	}
	return idx
}

// checkFourier runs FourierFeatures on guarded, misaligned (by skew) copies
// of the tiled frequencies freqs (padding slots zero) and x, with an output
// extra elements longer than the 2·slots it fills, compares every feature
// with refFourier (the padding slots' exactly: cos 0 = 1, sin 0 = 0), and
// returns the features.
func checkFourier(tb testing.TB, what string, freqs [][]float32, x []float32, dim, extra, skew int) []float32 {
	tb.Helper()
	all := padded(freqs, dim)
	xg := newGuarded(x, nan[float32](), skew)
	tiles := newGuarded(tiled(freqs, dim), nan[float32](), skew+1)
	dst := newGuarded(filled(2*len(all)+extra, outFill), outFill, skew+2)
	simd.FourierFeatures(dst.s(), xg.s(), tiles.s(), dim)
	dst.check(tb, what+" dst")
	xg.checkInput(tb, what+" x")
	tiles.checkInput(tb, what+" tiles")
	return checkFeatures(tb, what, dst.s(), all, len(freqs), denseIndices(dim), x)
}

// filled returns n copies of v.
func filled(n int, v float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// checkFourierSparse is checkFourier for FourierFeaturesSparse, with the
// guards of idx holding dim as checkSparse's do.
func checkFourierSparse(tb testing.TB, what string, freqs [][]float32, idx []int32, val []float32, dim, skew int) []float32 {
	tb.Helper()
	all := padded(freqs, dim)
	ig := newGuarded(idx, int32(dim), skew)
	vg := newGuarded(val, nan[float32](), skew+1)
	tiles := newGuarded(tiled(freqs, dim), nan[float32](), skew+2)
	dst := newOutput[float32](2*len(all), skew+3)
	simd.FourierFeaturesSparse(dst.s(), ig.s(), vg.s(), tiles.s(), dim)
	dst.check(tb, what+" dst")
	ig.checkInput(tb, what+" idx")
	vg.checkInput(tb, what+" val")
	tiles.checkInput(tb, what+" tiles")
	return checkFeatures(tb, what, dst.s(), all, len(freqs), idx, val)
}

// checkFeatures compares the features got (the cosines of the slots of
// all, then their sines, then untouched outFill) with refFourier and
// returns them without the tail.
func checkFeatures(tb testing.TB, what string, got []float32, all [][]float32, n int, idx []int32, val []float32) []float32 {
	tb.Helper()
	want, tol := refFourier(all, idx, val)
	for i, w := range want {
		if j := i % len(all); j >= n {
			tol[i] = 0 // padding: p = 0
		}
		if !closeTo(got[i], w, tol[i]) {
			fn, j := "cos", i
			if i >= len(all) {
				fn, j = "sin", i-len(all)
			}
			tb.Fatalf("%s: %s of slot %d: got %v, want %v (tolerance %.3g)", what, fn, j, got[i], w, tol[i])
		}
	}
	for i, v := range got[len(want):] {
		if v != outFill {
			tb.Fatalf("%s: dst[%d] past the features changed to %v", what, len(want)+i, v)
		}
	}
	return got[:len(want)]
}

// TestFourierArgs: the output must hold two features per slot, and sparse
// indices must be in range.
func TestFourierArgs(t *testing.T) {
	tiles := make([]float32, 2*16*3) // dimension 3, 2 tiles: 32 slots
	for _, c := range []struct {
		name string
		f    func()
		ok   bool
	}{
		{"dense", func() { simd.FourierFeatures(make([]float32, 64), make([]float32, 3), tiles, 3) }, true},
		{"dense short dst", func() { simd.FourierFeatures(make([]float32, 63), make([]float32, 3), tiles, 3) }, false},
		{"dense short x", func() { simd.FourierFeatures(make([]float32, 64), make([]float32, 2), tiles, 3) }, false},
		{"dense ragged tiles", func() { simd.FourierFeatures(make([]float32, 64), make([]float32, 3), tiles[1:], 3) }, false},
		{"sparse", func() { simd.FourierFeaturesSparse(make([]float32, 64), []int32{2}, []float32{1}, tiles, 3) }, true},
		{"sparse short dst", func() { simd.FourierFeaturesSparse(make([]float32, 40), []int32{2}, []float32{1}, tiles, 3) }, false},
		{"sparse index", func() { simd.FourierFeaturesSparse(make([]float32, 64), []int32{3}, []float32{1}, tiles, 3) }, false},
		{"sparse negative", func() { simd.FourierFeaturesSparse(make([]float32, 64), []int32{-1}, []float32{1}, tiles, 3) }, false},
		{"sparse values", func() { simd.FourierFeaturesSparse(make([]float32, 64), []int32{0, 1}, []float32{1}, tiles, 3) }, false},
	} {
		func() {
			defer func() {
				if p := recover(); (p == nil) != c.ok {
					t.Errorf("%s: panic %v, want ok %v", c.name, p, c.ok)
				}
			}()
			c.f()
		}()
	}
}

func TestEquivAxpy(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		skew := 0 // misalignment of the slices, varied over the cases
		r := rand.New(rand.NewPCG(25, 26))
		for _, n := range append(vectorCounts(), 1000, 4099) {
			for _, a := range []float32{0, 1, -0.375, float32(r.NormFloat64()), 1e-30, 1e30} {
				x := randVecs(r, 1, n, func() float32 { return float32(r.NormFloat64()) })[0]
				y := randVecs(r, 1, n+n%3, func() float32 { return float32(r.NormFloat64()) })[0] // longer than x by 0–2
				checkAxpy(t, fmt.Sprintf("n=%d a=%v skew=%d", n, a, skew), y, x, a, skew)
				skew++
			}
		}
	})
}

// refAxpy returns y[i] + a·x[i] for i < len(x), rounded once (as an FMA),
// and the tolerance of each: the generic code may round the product first
// (u·|a·x[i]|), and the float64 reference itself rounds twice; 2u·(|a·x[i]|
// + |result|) and a denormal's worth cover both.
func refAxpy(y, x []float32, a float32) (want, tol []float64) {
	want = make([]float64, len(x))
	tol = make([]float64, len(x))
	for i := range x {
		want[i] = math.FMA(float64(a), float64(x[i]), float64(y[i]))
		tol[i] = 2*u32*(math.Abs(float64(a)*float64(x[i]))+math.Abs(want[i])) + 0x1p-149
	}
	return want, tol
}

// checkAxpy runs Axpy on guarded, misaligned (by skew) copies of y and x
// (y may be longer: the rest must stay), compares y[:len(x)] with refAxpy
// and returns it. The guards of x are NaN; those of y outFill.
func checkAxpy(tb testing.TB, what string, y, x []float32, a float32, skew int) []float32 {
	tb.Helper()
	xg := newGuarded(x, nan[float32](), skew)
	yg := newGuarded(y, outFill, skew+1)
	simd.Axpy(yg.s(), xg.s(), a)
	xg.checkInput(tb, what+" x")
	yg.check(tb, what+" y")
	got := yg.s()
	for i, v := range got[len(x):] {
		if v != y[len(x)+i] {
			tb.Fatalf("%s: y[%d] past len(x) changed from %v to %v", what, len(x)+i, y[len(x)+i], v)
		}
	}
	want, tol := refAxpy(y, x, a)
	for i := range want {
		if !closeTo(got[i], want[i], tol[i]) {
			tb.Fatalf("%s: y[%d] = %v + %v·%v: got %v, want %v (tolerance %.3g)", what, i, y[i], a, x[i], got[i], want[i], tol[i])
		}
	}
	return got[:len(x)]
}

func TestAxpyShort(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Axpy with y shorter than x did not panic")
		}
	}()
	simd.Axpy(make([]float32, 16), make([]float32, 17), 1)
}
