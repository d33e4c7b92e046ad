package simd_test

import (
	"math"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// expSweep calls f with consecutive chunks of every step-th float32 from lo
// to hi (both included), walking the bit patterns: for a range of one sign
// the patterns are monotonic in the values.
func expSweep(lo, hi float32, step uint32, f func(src []float32)) {
	a, b := math.Float32bits(lo), math.Float32bits(hi)
	if a > b {
		a, b = b, a
	}
	chunk := make([]float32, 0, 1<<14)
	for bits := uint64(a); bits <= uint64(b); bits += uint64(step) {
		chunk = append(chunk, math.Float32frombits(uint32(bits)))
		if len(chunk) == cap(chunk) {
			f(chunk)
			chunk = chunk[:0]
		}
	}
	chunk = append(chunk, lo, hi)
	f(chunk)
}

// TestExpAccuracy checks the relative error of every implementation against
// math.Exp on every 64th float32 of [ExpMin, 0] and [0, ExpMax] and on the
// endpoints: at most 2e-7 (Exp's documented bound; the float32 rounding
// alone is up to 6e-8).
func TestExpAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("17M values per implementation")
	}
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		var worst float64
		var worstAt float32
		dst := make([]float32, 1<<14+2)
		negZero := float32(math.Copysign(0, -1))
		for _, rng := range [][2]float32{{simd.ExpMin, negZero}, {0, simd.ExpMax}} {
			expSweep(rng[0], rng[1], 64, func(src []float32) {
				simd.Exp(dst[:len(src)], src)
				for i, x := range src {
					want := math.Exp(float64(x))
					e := math.Abs(float64(dst[i])-want) / want
					if !(e <= worst) { // NaN counts as worst
						worst, worstAt = e, x
					}
				}
			})
		}
		t.Logf("max relative error %.3g (%.2f ulp of 2⁻²⁴) at x = %v", worst, worst/u32, worstAt)
		if !(worst <= 2e-7) {
			t.Errorf("relative error %.3g at x = %v exceeds 2e-7", worst, worstAt)
		}
	})
}

// TestExpRange checks the results outside the accurate range: no
// implementation returns NaN, Inf or a denormal for finite arguments (on a
// log-spaced sweep of [−1e30, 1e30] and around the bounds); below ExpMin
// (−Inf included) every one returns exactly +0, at ExpMin a normal value,
// and at or above ExpMax (+Inf included) the clamped e^ExpMax.
func TestExpRange(t *testing.T) {
	var src []float32
	for _, sign := range []float32{1, -1} {
		expSweep(1e-30, 1e30, 1<<14, func(c []float32) {
			for _, x := range c {
				src = append(src, sign*x)
			}
		})
	}
	below := []float32{math.Nextafter32(simd.ExpMin, -100), -87.33654, -87.5, -88, -100, -103.97, -104, -1e4, -math.MaxFloat32, float32(math.Inf(-1))}
	above := []float32{simd.ExpMax, math.Nextafter32(simd.ExpMax, 100), 88.5, 88.72284, 89, 1e4, math.MaxFloat32, float32(math.Inf(1))}
	src = append(append(append(src, simd.ExpMin), below...), above...)
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		dst := make([]float32, len(src))
		simd.Exp(dst, src)
		highest := dst[len(dst)-len(above)]
		for i, x := range src {
			y := dst[i]
			switch {
			case x < simd.ExpMin:
				if y != 0 || math.Signbit(float64(y)) {
					t.Fatalf("exp(%v) = %v: want +0 below ExpMin", x, y)
				}
			case math.IsNaN(float64(y)) || math.IsInf(float64(y), 0) || y < 0x1p-126:
				t.Fatalf("exp(%v) = %v: want a normal positive float32", x, y)
			case x >= simd.ExpMax && y != highest:
				t.Fatalf("exp(%v) = %v: want the clamped exp(ExpMax) = %v", x, y, highest)
			}
		}
	})
}
