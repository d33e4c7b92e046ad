package engine

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// hashedRows draws n sparse rows of nnz distinct features in dimension
// dim, a quarter of them among 200 common ones (frequent words), values
// small integer counts, as hashed text gives.
func hashedRows(rng *rand.Rand, n, dim, nnz int) []Vector {
	rows := make([]Vector, n)
	for r := range rows {
		idx := make([]int32, 0, nnz)
		for len(idx) < nnz {
			j := int32(rng.IntN(dim))
			if len(idx)%4 == 0 {
				j = int32(rng.IntN(min(200, dim)))
			}
			if !slices.Contains(idx, j) {
				idx = append(idx, j)
			}
		}
		slices.Sort(idx)
		val := make([]float32, nnz)
		for k := range val {
			val[k] = float32(1 + rng.IntN(3))
		}
		rows[r] = Sparse(idx, val)
	}
	return rows
}

// binaryRows draws n rows of w8a's shape: each of dim binary features set
// with probability density.
func binaryRows(rng *rand.Rand, n, dim int, density float64) []Vector {
	rows := make([]Vector, n)
	for r := range rows {
		rows[r] = sparseOf(randomPoint(rng, dim, density, func() float32 { return 1 }))
	}
	return rows
}

// streamStep is one step of a learner that updates on every example, the
// worst case of a pass: score the row, add it, and at the budget remove a
// random vector.
func streamStep(b *testing.B, set *Set, sc *Scratch, x Vector, budget int, rng *rand.Rand) {
	f, err := score(set, sc, x)
	if err != nil {
		b.Fatal(err)
	}
	if set.Len() == budget {
		set.Remove(rng.IntN(budget))
	}
	if _, err := set.Add(x, float32(1-f)); err != nil {
		b.Fatal(err)
	}
}

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkSparseSet is the case: 3,000 rows of 20 non-zeros
// (hashed text) in dimension 4,000,000 at budget 100, stored sparsely
// (AutoStorage's choice). op=score is one f(x) over a full budget;
// op=pass is a whole simulated pass in which every row updates (score,
// add, remove at the budget), the target being ≤ 0.2 s per pass and
// ≤ 100 MB. set-bytes is the live heap the set holds after the pass.
// Dense storage would hold 16 MB per slot, 1.8 GB in all, and spend
// about 60 ms on each removal.
func BenchmarkSparseSet(b *testing.B) {
	const dim, budget, nnz, rows = 4_000_000, 100, 20, 3000
	benchImpls(b, func(b *testing.B) {
		rng := rand.New(rand.NewPCG(4, 4))
		data := hashedRows(rng, rows, dim, nnz)
		b.Run("op=score", func(b *testing.B) {
			set, err := New(dim, 4, Options{Capacity: budget})
			if err != nil {
				b.Fatal(err)
			}
			for _, x := range data[:budget] {
				set.Add(x, 1)
			}
			var sc Scratch
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				score(set, &sc, data[budget+i%(rows-budget)])
			}
		})
		b.Run("op=pass", func(b *testing.B) {
			b.ReportAllocs()
			var held uint64
			var sc Scratch
			for b.Loop() {
				before := heapInUse()
				set, err := New(dim, 4, Options{Capacity: budget})
				if err != nil {
					b.Fatal(err)
				}
				for _, x := range data {
					streamStep(b, set, &sc, x, budget, rng)
				}
				b.StopTimer()
				held = heapInUse() - before
				runtime.KeepAlive(set)
				b.StartTimer()
			}
			b.ReportMetric(float64(held), "set-bytes")
		})
	})
}

// BenchmarkStorage sets dense and sparse storage side by side on sparse
// rows: op=score is one f(x) over a full budget, op=step one step of a
// learner that updates on every example (score, remove, add). shape=w8a
// is w8a's (300 binary features, about 12 set); shape=hashed/dim=… are
// 20 non-zeros in growing dimensions and shape=gaussian dense data, the
// two sides of SparseDim.
// set-bytes is the live heap of the set.
func BenchmarkStorage(b *testing.B) {
	type shape struct {
		name    string
		dim     int
		budgets []int
		rows    func(rng *rand.Rand, n int) []Vector
	}
	gauss := func(dim int) func(rng *rand.Rand, n int) []Vector {
		return func(rng *rand.Rand, n int) []Vector {
			rows := make([]Vector, n)
			for r := range rows {
				rows[r] = Dense(randomPoint(rng, dim, 1, func() float32 { return float32(rng.NormFloat64()) }))
			}
			return rows
		}
	}
	shapes := []shape{
		{"w8a", 300, []int{200, 600}, func(rng *rand.Rand, n int) []Vector { return binaryRows(rng, n, 300, 0.04) }},
		{"gaussian/dim=1024", 1024, []int{200}, gauss(1024)},
	}
	for _, dim := range []int{1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18} {
		shapes = append(shapes, shape{fmt.Sprintf("hashed/dim=%d", dim), dim, []int{200, 1000},
			func(rng *rand.Rand, n int) []Vector { return hashedRows(rng, n, dim, 20) }})
	}
	benchImpls(b, func(b *testing.B) {
		for _, sh := range shapes {
			for _, budget := range sh.budgets {
				if sh.dim*budget > 1<<26 {
					continue // dense storage would hold over 256 MB
				}
				rng := rand.New(rand.NewPCG(uint64(sh.dim), uint64(budget)))
				data := sh.rows(rng, budget+1000)
				for _, storage := range []Storage{DenseStorage, SparseStorage} {
					before := heapInUse()
					set, err := New(sh.dim, 4, Options{Capacity: budget, Storage: storage})
					if err != nil {
						b.Fatal(err)
					}
					for _, x := range data[:budget] {
						set.Add(x, 1)
					}
					held := float64(heapInUse() - before)
					name := fmt.Sprintf("shape=%s/budget=%d/storage=%v", sh.name, budget, storage)
					var sc Scratch
					b.Run(name+"/op=score", func(b *testing.B) {
						b.ReportAllocs()
						for i := 0; b.Loop(); i++ {
							score(set, &sc, data[budget+i%1000])
						}
						b.ReportMetric(held, "set-bytes")
					})
					b.Run(name+"/op=step", func(b *testing.B) {
						b.ReportAllocs()
						for i := 0; b.Loop(); i++ {
							streamStep(b, set, &sc, data[budget+i%1000], budget, rng)
						}
					})
				}
			}
		}
	})
}
