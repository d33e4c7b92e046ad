package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
)

// The exact squared distances of both storages are the bits of
// simdtest.SqDist64 (the squared distance ExactKernels documents), for
// dense and sparse queries, in every SIMD implementation, over every tail
// length of the last tile (dense storage takes whole tiles and a
// partial one separately) and after removals.
func TestExactDistancesBits(t *testing.T) {
	eachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(23, 24))
		// Features over many orders of magnitude: differences, squares
		// and sums all round.
		gen := func() float32 { return float32(math.Ldexp(rng.NormFloat64(), rng.IntN(40)-20)) }
		for _, dim := range []int{1, 3, 8, 22, 180} {
			for _, n := range []int{0, 1, 15, 16, 17, 33, 70, 200} {
				sets := map[Storage]*Set{}
				for _, storage := range []Storage{DenseStorage, SparseStorage} {
					s, err := New(dim, 2, Options{Capacity: 4, Storage: storage})
					if err != nil {
						t.Fatal(err)
					}
					sets[storage] = s
				}
				var vectors [][]float32
				for range n + 3 {
					v := randomPoint(rng, dim, 0.8, gen)
					for _, s := range sets {
						if _, err := s.Add(Dense(v)); err != nil {
							t.Fatal(err)
						}
					}
					vectors = append(vectors, v)
				}
				for range 3 {
					i := rng.IntN(len(vectors))
					for _, s := range sets {
						s.Remove(i)
					}
					vectors[i] = vectors[len(vectors)-1]
					vectors = vectors[:len(vectors)-1]
				}
				x := randomPoint(rng, dim, 0.7, gen)
				for storage, s := range sets {
					for _, q := range []Vector{Dense(x), sparseOf(x)} {
						// One value past Len must stay as it was.
						dst := make([]float64, len(vectors)+1)
						dst[len(vectors)] = -1
						s.vs.sqDists(&q, dst[:len(vectors)], &s.work)
						what := fmt.Sprintf("%v dim=%d n=%d sparse query %v", storage, dim, len(vectors), q.IsSparse())
						if dst[len(vectors)] != -1 {
							t.Fatalf("%s: the value past the vectors was overwritten with %v", what, dst[len(vectors)])
						}
						for i, v := range vectors {
							if want := simdtest.SqDist64(x, v); math.Float64bits(dst[i]) != math.Float64bits(want) {
								t.Fatalf("%s: distance %d = %v, want %v (%#x against %#x)", what, i, dst[i], want, math.Float64bits(dst[i]), math.Float64bits(want))
							}
						}
					}
				}
			}
		}
	})
}

// BenchmarkExactKernels measures the exact kernel values of a full
// budget with a dense query in dense storage (the Projectrons' call per
// example), and the squared distances alone: on dna (180 features, a
// budget of 200) and two small dimensions.
func BenchmarkExactKernels(b *testing.B) {
	benchImpls(b, func(b *testing.B) {
		for _, shape := range [][2]int{{200, 180}, {100, 16}, {1000, 8}} {
			budget, dim := shape[0], shape[1]
			spread := math.Sqrt(2 * 8 * 8 / float64(dim))
			gauss := func(r *rand.Rand) float32 { return float32(r.NormFloat64() * spread) }
			set, rng := benchSet(b, budget, dim, 1, gauss)
			x := Dense(randomPoint(rng, dim, 1, func() float32 { return gauss(rng) }))
			dst := make([]float64, budget)
			b.Run(fmt.Sprintf("op=sqdists/budget=%d/dim=%d", budget, dim), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					set.vs.sqDists(&x, dst, &set.work)
				}
			})
			b.Run(fmt.Sprintf("op=exactkernels/budget=%d/dim=%d", budget, dim), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := set.ExactKernels(x, dst); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}
