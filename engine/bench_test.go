package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/internal/cputime"
	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// benchImpls runs f as sub-benchmark impl=<name> for every implementation
// (simdtest: one the CPU lacks is skipped by name).
func benchImpls(b *testing.B, f func(b *testing.B)) {
	simdtest.ForEachImplB(b, func(b *testing.B, _ simd.Impl) { f(b) })
}

// benchSet fills a set with budget random vectors of dimension dim.
func benchSet(b *testing.B, budget, dim int, density float64, gen func(*rand.Rand) float32) (*Set, *rand.Rand) {
	rng := rand.New(rand.NewPCG(uint64(budget), uint64(dim)))
	set, err := New(dim, 8, Options{Capacity: budget})
	if err != nil {
		b.Fatal(err)
	}
	for range budget {
		set.Add(sparseOf(randomPoint(rng, dim, density, func() float32 { return gen(rng) })), float32(rng.NormFloat64()))
	}
	return set, rng
}

// BenchmarkScore measures one f(x) over a full budget with a dense query:
// the quantity the whole project is judged on. Beside the time, cpu-ns/op
// is the time on the benchmark's own thread (package cputime): on a shared
// machine, the figure to compare. Coordinates have variance
// 2σ²/d, so that ‖x−s‖²/(2σ²) ≈ 2 and kernel values sit near e⁻² whatever
// d: the ordinary single-pass path, not the far-query fallback.
func BenchmarkScore(b *testing.B) {
	benchImpls(b, func(b *testing.B) {
		for _, budget := range []int{100, 500, 1000, 2000} {
			for _, dim := range []int{8, 22, 57, 300} {
				b.Run(fmt.Sprintf("budget=%d/dim=%d", budget, dim), func(b *testing.B) {
					spread := math.Sqrt(2 * 8 * 8 / float64(dim))
					gauss := func(r *rand.Rand) float32 { return float32(r.NormFloat64() * spread) }
					set, rng := benchSet(b, budget, dim, 1, gauss)
					x := Dense(randomPoint(rng, dim, 1, func() float32 { return gauss(rng) }))
					var sc Scratch
					b.ReportAllocs()
					cpu := cputime.Start()
					for b.Loop() {
						score(set, &sc, x)
					}
					cpu.Report(b, float64(b.N), "op")
				})
			}
		}
	})
}

// BenchmarkScoreSparse is w8a's shape: 300 binary features, about 12 set per
// example, so the sparse path applies.
func BenchmarkScoreSparse(b *testing.B) {
	one := func(*rand.Rand) float32 { return 1 }
	benchImpls(b, func(b *testing.B) {
		for _, budget := range []int{200, 600} {
			b.Run(fmt.Sprintf("budget=%d/dim=300/nnz=12", budget), func(b *testing.B) {
				set, rng := benchSet(b, budget, 300, 0.04, one)
				x := sparseOf(randomPoint(rng, 300, 0.04, func() float32 { return 1 }))
				var sc Scratch
				b.ReportAllocs()
				for b.Loop() {
					score(set, &sc, x)
				}
			})
		}
	})
}

// BenchmarkModelScoreBatch scores 256 queries against a frozen model.
func BenchmarkModelScoreBatch(b *testing.B) {
	gauss := func(r *rand.Rand) float32 { return float32(r.NormFloat64() * 4) }
	benchImpls(b, func(b *testing.B) {
		set, rng := benchSet(b, 1000, 8, 1, gauss)
		model, _ := set.Snapshot(1)
		xs := make([]Vector, 256)
		for i := range xs {
			xs[i] = Dense(randomPoint(rng, 8, 1, func() float32 { return gauss(rng) }))
		}
		out := make([]float64, len(xs))
		b.ReportAllocs()
		for b.Loop() {
			model.ScoreBatch(context.Background(), xs, out)
		}
	})
}
