package simd_test

import (
	"math"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// TestFMALoop: with mul 1 and add 1 every lane of every chain of the peak
// loop counts up by one per iteration, so n iterations add n·FMAFlops/2 to
// the sum (exactly, while it stays below 2²⁴): the loop runs the number of
// iterations and the lanes its flop count claims.
func TestFMALoop(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		lanes := simd.FMAFlops() / 2
		base := simd.FMALoop(0, 1, 1, 3)
		for _, n := range []int{1, 2, 7, 100} {
			if got, want := simd.FMALoop(n, 1, 1, 3)-base, float32(n*lanes); got != want {
				t.Errorf("%d iterations added %v, want %v (%d lanes)", n, got, want, lanes)
			}
		}
		// Every lane starts at the seed when add is 0.
		if got, want := simd.FMALoop(5, 1, 0, 0.5), float32(lanes)/2; got != want {
			t.Errorf("seed 0.5, add 0: sum %v, want %v", got, want)
		}
	})
}

func TestPeakFLOPS(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		p := simd.PeakFLOPS()
		t.Logf("%.1f GFLOP/s", p/1e9)
		if !(p > 0) || math.IsInf(p, 0) {
			t.Errorf("PeakFLOPS() = %v, want a positive finite rate", p)
		}
	})
}
