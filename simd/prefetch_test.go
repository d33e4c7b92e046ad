package simd_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// TestPrefetch asks every implementation for each element of a guarded,
// misaligned buffer and for indices past both its ends: nothing may change
// (the guards are checked too) and nothing may fault or panic.
func TestPrefetch(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		r := rand.New(rand.NewPCG(27, 28))
		for skew := range 4 {
			for _, n := range []int{0, 1, 15, 16, 17, 100} {
				init := randVecs(r, 1, n, r.Float32)[0]
				g := newGuarded(init, nan[float32](), skew)
				for i := -2; i < n+2; i++ {
					simd.Prefetch(g.s(), i)
				}
				g.checkInput(t, fmt.Sprintf("n=%d skew=%d", n, skew))
			}
		}
		simd.Prefetch([]int(nil), 0)
		simd.Prefetch(make([]struct{}, 3), 1)
	})
}

// BenchmarkGather measures the reads a pass over rows in a random order
// makes, per row: a row of 8 float32 values from 64 MB (more than the
// cache) at a random place, summed, with each row asked for 8 rows ahead
// (prefetch=true) or not. The generic implementation asks for nothing.
func BenchmarkGather(b *testing.B) {
	const rowLen, rows = 8, 1 << 21
	data := make([]float32, rowLen*rows)
	for i := range data {
		data[i] = float32(i % 7)
	}
	order := rand.New(rand.NewPCG(29, 30)).Perm(rows)
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		for _, ahead := range []bool{false, true} {
			b.Run(fmt.Sprintf("prefetch=%v", ahead), func(b *testing.B) {
				var sink float32
				for b.Loop() {
					for i, row := range order {
						if ahead && i+8 < len(order) {
							simd.Prefetch(data, order[i+8]*rowLen)
						}
						for _, v := range data[row*rowLen : (row+1)*rowLen] {
							sink += v
						}
					}
				}
				if sink != sink {
					b.Fatal("NaN")
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
			})
		}
	})
}
