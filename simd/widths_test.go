package simd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// doublingTol bounds what FourierWidths's level k adds to the error of the
// level before, measured from cos and sin of 2ᵏ times the float32
// projection (u = 2⁻²⁴). To first order an error vector (a, b) of a
// level's (cos θ, sin θ) becomes one of exactly twice its length in the
// next level: its component along (−sin θ, cos θ) is an error of the angle,
// which doubles, and its component along (cos θ, sin θ) one of the norm,
// which doubles too ((c² − s²)² + (2sc)² = (c² + s²)²). A component of the
// error is at most its length, at most √2 times the larger component; each
// step rounds s·s (u·s²) and c·c − s·s (u) in the cosine and (2s)·c (u) in
// the sine, under 2u in either. So the error of level k is within
// 2ᵏ·√2·(e₀ + 2u) for an error e₀ of level 0, plus second-order terms
// (products of errors, below 1e-10 here): levelTol writes it with 1.5 for √2.
func levelTol(e0 float64, k int) float64 {
	return math.Ldexp(1.5*(e0+2*u32), k)
}

// refWidths returns the float64 features of FourierWidths (the cosines,
// then the sines, of every slot of freqs, level after level) and their
// tolerances: the projection p_j, clamped as the kernels clamp it, times
// 2ᵏ; each within levelTol of refFourier's tolerance.
func refWidths(freqs [][]float32, idx []int32, val []float32, levels int) (want, tol []float64) {
	n := len(freqs)
	_, tol0 := refFourier(freqs, idx, val)
	for k := range levels {
		w := make([]float64, 2*n)
		t := make([]float64, 2*n)
		for j, u := range freqs {
			var p float64
			for i, f := range idx {
				p += float64(val[i]) * float64(u[f])
			}
			p = math.Ldexp(min(max(p, -sinCosMax), sinCosMax), k)
			w[n+j], w[j] = math.Sincos(p)
			t[j] = levelTol(tol0[j], k)
			t[n+j] = t[j]
		}
		want, tol = append(want, w...), append(tol, t...)
	}
	return want, tol
}

// widthLevels is the number of levels of a test case: 1 to 7, varied
// with skew.
func widthLevels(skew int) int { return 1 + skew%7 }

func TestEquivFourierWidths(t *testing.T) {
	eachCase(t, fourierKinds, 41, func(t *testing.T, c tileCase) {
		levels := widthLevels(c.skew)
		checkWidths(t, fmt.Sprintf("%s levels=%d", c.what, levels), c.vecs, denseIndices(c.dim), c.x, c.dim, levels, c.skew, false)
	})
}

func TestEquivFourierWidthsSparse(t *testing.T) {
	eachCase(t, fourierKinds, 43, func(t *testing.T, c tileCase) {
		idx, val := sparseQuery(c.r, c.x)
		levels := widthLevels(c.skew)
		checkWidths(t, fmt.Sprintf("%s nnz=%d levels=%d", c.what, len(idx), levels), c.vecs, idx, val, c.dim, levels, c.skew, true)
	})
}

// checkWidths runs FourierWidths (or, sparse, FourierWidthsSparse with the
// query's non-zeros idx and val; dense, val is the query) on guarded,
// misaligned (by skew) copies of the tiled frequencies freqs and the query,
// with an output one level and skew%3 elements longer than it fills,
// compares every feature with refWidths (the padding slots' exactly: cos 1,
// sin 0 at every level), checks that the rest of the output stayed, and
// returns the features.
func checkWidths(tb testing.TB, what string, freqs [][]float32, idx []int32, val []float32, dim, levels, skew int, sparse bool) []float32 {
	tb.Helper()
	all := padded(freqs, dim)
	n := 2 * len(all) * levels
	tiles := newGuarded(tiled(freqs, dim), nan[float32](), skew+2)
	dst := newGuarded(filled(n+2*len(all)+skew%3, outFill), outFill, skew+3)
	if sparse {
		ig := newGuarded(idx, int32(dim), skew)
		vg := newGuarded(val, nan[float32](), skew+1)
		simd.FourierWidthsSparse(dst.s(), ig.s(), vg.s(), tiles.s(), dim, levels)
		ig.checkInput(tb, what+" idx")
		vg.checkInput(tb, what+" val")
	} else {
		xg := newGuarded(val, nan[float32](), skew)
		simd.FourierWidths(dst.s(), xg.s(), tiles.s(), dim, levels)
		xg.checkInput(tb, what+" x")
	}
	dst.check(tb, what+" dst")
	tiles.checkInput(tb, what+" tiles")
	got := dst.s()
	want, tol := refWidths(all, idx, val, levels)
	for i, w := range want {
		k, j := i/(2*len(all)), i%(2*len(all))
		if j%len(all) >= len(freqs) {
			tol[i] = 0 // padding: p = 0 at every level
		}
		if !closeTo(got[i], w, tol[i]) {
			fn := "cos"
			if j >= len(all) {
				fn, j = "sin", j-len(all)
			}
			tb.Fatalf("%s: level %d %s of slot %d: got %v, want %v (tolerance %.3g)", what, k, fn, j, got[i], w, tol[i])
		}
	}
	for i, v := range got[n:] {
		if v != outFill {
			tb.Fatalf("%s: dst[%d] past the features changed to %v", what, n+i, v)
		}
	}
	return got[:n]
}

// TestFourierWidthsAccuracy measures, level by level, the largest error of
// every implementation against float64 on every 1009th float32 p in ±[0, 64]
// (|2⁵·p| up to 2048 radians), given exactly (dimension 1, x = 1): within
// levelTol of the sine's and cosine's own sinCosTol, and it logs the
// measured errors in units of 2⁻²⁴.
func TestFourierWidthsAccuracy(t *testing.T) {
	const levels = 6
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		worst := make([]float64, levels)
		p := make([]float32, 1<<14)
		dst := make([]float32, levels*2<<14)
		expSweep(0, 64, 1009, func(src []float32) {
			for _, sign := range []float32{1, -1} {
				n := (len(src) + lanes - 1) &^ (lanes - 1)
				for i := range p[:n] {
					p[i] = 0
					if i < len(src) {
						p[i] = sign * src[i]
					}
				}
				simd.FourierWidths(dst[:levels*2*n], []float32{1}, p[:n], 1, levels)
				for k := range levels {
					z := dst[k*2*n : (k+1)*2*n]
					for i, v := range p[:n] {
						s, c := math.Sincos(math.Ldexp(float64(v), k))
						if e := max(math.Abs(float64(z[n+i])-s), math.Abs(float64(z[i])-c)); !(e <= worst[k]) {
							worst[k] = e
							if e != e {
								worst[k] = math.Inf(1)
							}
						}
					}
				}
			}
		})
		for k, e := range worst {
			t.Logf("level %d: max absolute error %.3g (%.1f·2⁻²⁴)", k, e, e/u32)
			if tol := levelTol(sinCosTol, k); !(e <= tol) {
				t.Errorf("level %d: error %.3g exceeds %.3g", k, e, tol)
			}
		}
	})
}

// TestFourierWidthsArgs: the output must hold every level, levels ≥ 1,
// and sparse indices must be in range.
func TestFourierWidthsArgs(t *testing.T) {
	tiles := make([]float32, 2*16*3) // dimension 3, 2 tiles: 32 slots
	for _, c := range []struct {
		name string
		f    func()
		ok   bool
	}{
		{"dense", func() { simd.FourierWidths(make([]float32, 3*64), make([]float32, 3), tiles, 3, 3) }, true},
		{"dense one level", func() { simd.FourierWidths(make([]float32, 64), make([]float32, 3), tiles, 3, 1) }, true},
		{"dense no level", func() { simd.FourierWidths(make([]float32, 64), make([]float32, 3), tiles, 3, 0) }, false},
		{"dense short dst", func() { simd.FourierWidths(make([]float32, 3*64-1), make([]float32, 3), tiles, 3, 3) }, false},
		{"dense short x", func() { simd.FourierWidths(make([]float32, 3*64), make([]float32, 2), tiles, 3, 3) }, false},
		{"dense ragged tiles", func() { simd.FourierWidths(make([]float32, 3*64), make([]float32, 3), tiles[1:], 3, 3) }, false},
		{"dense no tiles", func() { simd.FourierWidths(nil, make([]float32, 3), nil, 3, 4) }, true},
		{"sparse", func() { simd.FourierWidthsSparse(make([]float32, 2*64), []int32{2}, []float32{1}, tiles, 3, 2) }, true},
		{"sparse short dst", func() { simd.FourierWidthsSparse(make([]float32, 2*64-16), []int32{2}, []float32{1}, tiles, 3, 2) }, false},
		{"sparse index", func() { simd.FourierWidthsSparse(make([]float32, 2*64), []int32{3}, []float32{1}, tiles, 3, 2) }, false},
		{"sparse values", func() { simd.FourierWidthsSparse(make([]float32, 2*64), []int32{0, 1}, []float32{1}, tiles, 3, 2) }, false},
	} {
		if p := panicOf(c.f); (p == nil) != c.ok {
			t.Errorf("%s: panic %v, want ok %v", c.name, p, c.ok)
		}
	}
}

// panicOf calls f and returns what it panicked with, or nil.
func panicOf(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// TestFourierWidthsMatchesFourierFeatures: level 0 is FourierFeatures bit
// for bit, and every level k is, within levelTol, FourierFeatures of the
// frequencies scaled by 2ᵏ (which is what the learners rely on).
func TestFourierWidthsMatchesFourierFeatures(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		r := rand.New(rand.NewPCG(5, 6))
		const dim, n, levels = 9, 40, 6
		freqs := randVecs(r, n, dim, func() float32 { return float32(r.NormFloat64() / 3) })
		x := randVecs(r, 1, dim, func() float32 { return 2*r.Float32() - 1 })[0]
		all := padded(freqs, dim)
		got := make([]float32, levels*2*len(all))
		simd.FourierWidths(got, x, tiled(freqs, dim), dim, levels)
		for k := range levels {
			scaled := make([][]float32, n)
			for j, u := range freqs {
				scaled[j] = make([]float32, dim)
				for i, v := range u {
					scaled[j][i] = float32(math.Ldexp(float64(v), k))
				}
			}
			want := make([]float32, 2*len(all))
			simd.FourierFeatures(want, x, tiled(scaled, dim), dim)
			level := got[k*2*len(all) : (k+1)*2*len(all)]
			for i, w := range want {
				d := math.Abs(float64(level[i] - w))
				if k == 0 && d != 0 || !(d <= 2*levelTol(sinCosTol+float64(dim+1)*u32*3, k)) {
					t.Fatalf("level %d feature %d: %v, FourierFeatures of the doubled frequencies %v", k, i, level[i], w)
				}
			}
		}
	})
}

// FuzzFourierWidths decodes frequencies, a query and a number of levels,
// and checks FourierWidths on the query and FourierWidthsSparse on every
// step-th of its features (ascending, as engine's sparse vectors), from
// none to all, against refWidths in every implementation.
func FuzzFourierWidths(f *testing.F) {
	f.Add([]byte{33, 0, 7, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 2})
	f.Add([]byte{50, 0, 4, 0, 0xff, 0x7f, 11, 0, 0x80, 3, 6})
	f.Add([]byte{2, 0, 11, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n, dim := d.intn(70), fuzzDims[d.intn(len(fuzzDims))]
		freqs, x := fuzzFourier(d, n, dim)
		levels := 1 + d.intn(7)
		var idx []int32
		var val []float32
		for j := d.intn(dim + 1); j < dim; j += 1 + d.intn(4) {
			idx, val = append(idx, int32(j)), append(val, x[j])
		}
		skew := d.intn(4)
		for _, sparse := range []bool{false, true} {
			qi, qv := denseIndices(dim), x
			if sparse {
				qi, qv = idx, val
			}
			_, tol := refWidths(padded(freqs, dim), qi, qv, levels)
			implsAgree(t, tol, func(t *testing.T) []float32 {
				return checkWidths(t, fmt.Sprintf("fuzz input (sparse %v)", sparse), freqs, qi, qv, dim, levels, skew, sparse)
			})
		}
	})
}
