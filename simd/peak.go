package simd

import "time"

// PeakFLOPS measures the floating-point throughput the active
// implementation reaches on one core, in flops per second: the bound the
// kernels' GFLOP/s are compared with, measured instead of assumed from a
// clock rate.
//
// It times a loop of independent multiply-add chains (fmaLoop: fused
// multiply-adds on full-width registers for avx2 and avx512, a pure-Go
// loop of scalar multiply-adds for generic, which the compiler fuses only
// from GOAMD64=v3), counting 2 flops per lane and multiply-add. A
// calibration sizes the batches to about 1 ms each; the result is the
// loop's flops divided by the elapsed time of the fastest of 9 batches.
// The fastest, not the median: other work on the core only ever slows a
// batch down, and on a shared machine it can slow most of them. It takes
// about 15 ms.
func PeakFLOPS() float64 {
	const (
		batches = 9
		target  = time.Millisecond
	)
	n := 1
	for {
		d := timeFMA(n)
		if d >= target/4 || n >= 1<<40 {
			n = max(1, int(float64(n)*float64(target)/float64(d)))
			break
		}
		n *= 4
	}
	var best float64
	for range batches {
		best = max(best, float64(n)*float64(fmaFlops())/timeFMA(n).Seconds())
	}
	return best
}

// fmaSink keeps the result of the timed loops, so that the generic loop
// cannot be optimized away.
var fmaSink float32

// timeFMA runs n iterations of fmaLoop and returns the time taken. With
// mul = 1 and add = 1 every chain counts up by one per iteration: the
// values stay normal (they stop growing at 2²⁴, which does not slow FMAs
// down).
func timeFMA(n int) time.Duration {
	start := time.Now()
	fmaSink += fmaLoop(n, 1, 1, fmaSink)
	return max(time.Since(start), 1)
}
