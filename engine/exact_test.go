package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ExactKernels must equal the float64 reference to the last bits: same
// formula, same stored values, over every tail length and after removals.
func TestExactKernelsMatchReference(t *testing.T) {
	eachStorage(t, func(t *testing.T, storage Storage) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, dim := range []int{1, 3, 8, 22} {
			for _, n := range []int{0, 1, 15, 16, 17, 33, 70} {
				s, err := New(dim, 2, Options{Capacity: 4, Storage: storage})
				if err != nil {
					t.Fatal(err)
				}
				var vectors [][]float32
				for range n + 3 {
					v := randomPoint(rng, dim, 0.7, func() float32 { return float32(rng.NormFloat64() * 3) })
					if _, err := s.Add(Dense(v)); err != nil {
						t.Fatal(err)
					}
					vectors = append(vectors, v)
				}
				for range 3 { // swap-remove keeps the slots in step
					i := rng.IntN(len(vectors))
					s.Remove(i)
					vectors[i] = vectors[len(vectors)-1]
					vectors = vectors[:len(vectors)-1]
				}
				x := randomPoint(rng, dim, 0.5, func() float32 { return float32(rng.NormFloat64() * 3) })
				_, want := reference(x, vectors, make([]float64, len(vectors)), 2)
				for _, q := range []Vector{Dense(x), sparseOf(x)} {
					got, err := s.ExactKernels(q, nil)
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != len(want) {
						t.Fatalf("dim %d n %d: %d values, want %d", dim, n, len(got), len(want))
					}
					for i := range want {
						if math.Abs(got[i]-want[i]) > 1e-15 {
							t.Fatalf("dim %d n %d sparse %v: κ[%d] = %v, want %v", dim, n, q.IsSparse(), i, got[i], want[i])
						}
					}
				}
			}
		}
	})
}

// Where float32 kernels are off by 1e-7, ExactKernels is not: two stored
// vectors 1e-3 apart in a feature of magnitude 500 (codrna's first feature).
func TestExactKernelsResolveNearDuplicates(t *testing.T) {
	eachStorage(t, func(t *testing.T, storage Storage) {
		s, err := New(2, 8, Options{Storage: storage})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range [][]float32{{-500, 0.125}, {-500, 0.126}} {
			if _, err := s.Add(Dense(v)); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.ExactKernels(Dense([]float32{-499, 0.1255}), make([]float64, 0, 2))
		if err != nil {
			t.Fatal(err)
		}
		want := func(second float32) float64 { // the first features differ by 1
			d := float64(float32(0.1255)) - float64(second)
			return math.Exp(-(1 + d*d) / 128)
		}
		if got[0] != want(0.125) || got[1] != want(0.126) {
			t.Fatalf("got %v", got)
		}
		if got[0] == got[1] {
			t.Fatal("the two kernel values must differ")
		}
		if _, err := s.ExactKernels(Dense([]float32{1}), nil); err == nil {
			t.Fatal("a query of the wrong dimension must fail")
		}
	})
}
