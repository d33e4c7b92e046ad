//go:build !purego

package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// PROTOTYPE measurement: multi-output f(x) at B = 1000, d = 16.
func BenchmarkMultiOutput(b *testing.B) {
	const slots, dim = 1008, 16
	r := rand.New(rand.NewPCG(1, 2))
	tiles := make([]float32, slots*dim)
	for i := range tiles {
		tiles[i] = float32(r.NormFloat64())
	}
	x := make([]float32, dim)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	const stride = slots
	w := make([]float32, 26*stride)
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	buf := make([]float32, slots)
	scale := float32(-1.0 / 32)
	prev := Active()
	defer Use(prev)
	for _, impl := range []Impl{AVX2, AVX512} {
		Use(impl)
		fused := func(dst []float32) int {
			if impl == AVX512 {
				if len(dst) >= 10 {
					gaussianSumColumns10AVX512(dst[:10], buf, w, stride, scale, 0)
					return 10
				}
				gaussianSumColumns3AVX512(dst[:3], buf, w, stride, scale, 0)
				return 3
			}
			if len(dst) >= 5 {
				gaussianSumColumns5AVX2(dst[:5], buf, w, stride, scale, 0)
				return 5
			}
			gaussianSumColumns3AVX2(dst[:3], buf, w, stride, scale, 0)
			return 3
		}
		b.Run(fmt.Sprintf("impl=%v/binary", impl), func(b *testing.B) {
			var sink float32
			for b.Loop() {
				SqDist(buf, x, tiles, dim)
				sink += GaussianSum(buf, w[:slots], scale, 0)
			}
			_ = sink
		})
		for _, K := range []int{3, 10, 26} {
			dst := make([]float32, K)
			ref := make([]float32, K)
			SqDist(buf, x, tiles, dim)
			ref[0] = GaussianSum(buf, w[:slots], scale, 0)
			DotColumns(ref[1:], buf, w[stride:], stride)
			SqDist(buf, x, tiles, dim)
			f := fused(dst)
			DotColumns(dst[f:], buf, w[f*stride:], stride)
			for c := range dst {
				if math.Abs(float64(dst[c]-ref[c])) > 1e-3*math.Abs(float64(ref[c]))+1e-3 {
					b.Fatalf("K=%d column %d: fused %v, two-pass %v", K, c, dst[c], ref[c])
				}
			}
			b.Run(fmt.Sprintf("impl=%v/K=%d/design=twopass", impl, K), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					SqDist(buf, x, tiles, dim)
					dst[0] = GaussianSum(buf, w[:slots], scale, 0)
					DotColumns(dst[1:], buf, w[stride:], stride)
				}
			})
			b.Run(fmt.Sprintf("impl=%v/K=%d/design=fused", impl, K), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					SqDist(buf, x, tiles, dim)
					f := fused(dst)
					DotColumns(dst[f:], buf, w[f*stride:], stride)
				}
			})
		}
	}
}
