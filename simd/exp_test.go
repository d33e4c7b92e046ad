package simd

import (
	"math"
	"testing"
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
	impls := Available()
	worst := make([]float64, len(impls))
	worstAt := make([]float32, len(impls))
	dst := make([]float32, 1<<14+2)
	want := make([]float64, len(dst))
	prev := Active()
	defer Use(prev)
	negZero := float32(math.Copysign(0, -1))
	for _, rng := range [][2]float32{{ExpMin, negZero}, {0, ExpMax}} {
		expSweep(rng[0], rng[1], 64, func(src []float32) {
			for i, x := range src {
				want[i] = math.Exp(float64(x))
			}
			for k, impl := range impls {
				Use(impl)
				Exp(dst[:len(src)], src)
				for i, x := range src {
					e := math.Abs(float64(dst[i])-want[i]) / want[i]
					if !(e <= worst[k]) { // NaN counts as worst
						worst[k], worstAt[k] = e, x
					}
				}
			}
		})
	}
	for k, impl := range impls {
		t.Logf("%v: max relative error %.3g (%.2f ulp of 2⁻²⁴) at x = %v", impl, worst[k], worst[k]/u32, worstAt[k])
		if !(worst[k] <= 2e-7) {
			t.Errorf("%v: relative error %.3g at x = %v exceeds 2e-7", impl, worst[k], worstAt[k])
		}
	}
}

// TestExpRange checks that no implementation returns NaN, Inf, zero or a
// denormal for finite arguments: on a log-spaced sweep of [−1e30, 1e30],
// below ExpMin (clamped to e^ExpMin) and above ExpMax (clamped to e^ExpMax),
// and that ±Inf clamp the same way.
func TestExpRange(t *testing.T) {
	var src []float32
	for _, sign := range []float32{1, -1} {
		expSweep(1e-30, 1e30, 1<<14, func(c []float32) {
			for _, x := range c {
				src = append(src, sign*x)
			}
		})
	}
	below := []float32{ExpMin, math.Nextafter32(ExpMin, -100), -87.33654, -87.5, -88, -100, -103.97, -104, -1e4, -math.MaxFloat32, float32(math.Inf(-1))}
	above := []float32{ExpMax, math.Nextafter32(ExpMax, 100), 88.5, 88.72284, 89, 1e4, math.MaxFloat32, float32(math.Inf(1))}
	src = append(append(src, below...), above...)
	forEachImpl(t, func(t *testing.T, impl Impl) {
		dst := make([]float32, len(src))
		Exp(dst, src)
		lowest, highest := dst[len(dst)-len(below)-len(above)], dst[len(dst)-len(above)]
		for i, x := range src {
			y := dst[i]
			if math.IsNaN(float64(y)) || math.IsInf(float64(y), 0) || y < 0x1p-126 {
				t.Fatalf("exp(%v) = %v: want a normal positive float32", x, y)
			}
			if x <= ExpMin && y != lowest {
				t.Fatalf("exp(%v) = %v: want the clamped exp(ExpMin) = %v", x, y, lowest)
			}
			if x >= ExpMax && y != highest {
				t.Fatalf("exp(%v) = %v: want the clamped exp(ExpMax) = %v", x, y, highest)
			}
		}
	})
}
