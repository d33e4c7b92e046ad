package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestOnePassMatchesTwoPhase: at the budgets that view.evaluate scores in
// one pass (simd.ScoreTiles) and past them, Evaluate gives bit for bit the
// sums, kernel values and factor of the two-phase kernels, which a scratch
// marked far takes first: for every column count around the vector code's
// fused columns (NOGD's 21 included), near queries, far ones (every kernel
// value below float32's range, so the one-pass result is discarded),
// queries equal to a stored vector, and dense and sparse queries (a sparse
// one of few non-zeros takes the norm expansion instead).
func TestOnePassMatchesTwoPhase(t *testing.T) {
	eachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(41, 42))
		for _, budget := range []int{1, 15, 16, 17, 100, 255, 256, 257} {
			for _, cols := range []int{1, 2, 3, 8, 11, 21} {
				dim := []int{1, 8, 22}[rng.IntN(3)]
				set, err := New(dim, 8, Options{Capacity: budget, Columns: cols, Storage: DenseStorage})
				if err != nil {
					t.Fatal(err)
				}
				spread := float32(math.Sqrt(2 * 8 * 8 / float64(dim)))
				gauss := func() float32 { return float32(rng.NormFloat64()) * spread }
				for range budget {
					w := make([]float32, cols)
					for c := range w {
						w[c] = float32(rng.NormFloat64())
					}
					if _, err := set.Add(Dense(randomPoint(rng, dim, 1, gauss)), w...); err != nil {
						t.Fatal(err)
					}
				}
				var queries []Vector
				for range 6 {
					queries = append(queries, Dense(randomPoint(rng, dim, 1, gauss)))
				}
				far := randomPoint(rng, dim, 1, func() float32 { return 1000 * gauss() })
				queries = append(queries, Dense(far), sparseOf(far), Dense(set.Vector(rng.IntN(budget), nil)),
					sparseOf(randomPoint(rng, dim, 0.2, gauss)), sparseOf(randomPoint(rng, dim, 1, gauss)))
				var onePass, twoPhase Scratch
				for q, x := range queries {
					what := fmt.Sprintf("budget=%d cols=%d dim=%d query %d", budget, cols, dim, q)
					got := make([]float64, cols)
					want := make([]float64, cols)
					onePass.far = false
					if err := set.Evaluate(&onePass, x, got); err != nil {
						t.Fatal(err)
					}
					twoPhase.far = true
					if err := set.Evaluate(&twoPhase, x, want); err != nil {
						t.Fatal(err)
					}
					sameEvaluation(t, what, &onePass, &twoPhase, got, want)
				}
			}
		}
	})
}

// TestFarRunsKeepTheirBits: a scratch that meets far and near queries in
// any order (the far flag sending the ones after a far query to the
// two-phase kernels first) gives each query the bits a fresh scratch gives
// it.
func TestFarRunsKeepTheirBits(t *testing.T) {
	eachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(43, 44))
		const dim, budget = 8, 100
		set, err := New(dim, 8, Options{Capacity: budget, Columns: 2})
		if err != nil {
			t.Fatal(err)
		}
		for range budget {
			set.Add(Dense(randomPoint(rng, dim, 1, func() float32 { return float32(rng.NormFloat64() * 5) })), float32(rng.NormFloat64()), 1)
		}
		var shared Scratch
		for q := range 200 {
			scale := 5.0
			if rng.IntN(3) == 0 {
				scale = 500 // every kernel value underflows: the shift
			}
			x := Dense(randomPoint(rng, dim, 1, func() float32 { return float32(rng.NormFloat64() * scale) }))
			got, want := make([]float64, 2), make([]float64, 2)
			var fresh Scratch
			if err := set.Evaluate(&shared, x, got); err != nil {
				t.Fatal(err)
			}
			if err := set.Evaluate(&fresh, x, want); err != nil {
				t.Fatal(err)
			}
			sameEvaluation(t, fmt.Sprintf("query %d (scale %v)", q, scale), &shared, &fresh, got, want)
		}
	})
}

// sameEvaluation fails unless two evaluations of one query gave the same
// bits: sums, kernel values and factor.
func sameEvaluation(t *testing.T, what string, a, b *Scratch, sa, sb []float64) {
	t.Helper()
	ka, fa := a.Kernels()
	kb, fb := b.Kernels()
	if math.Float64bits(fa) != math.Float64bits(fb) || len(ka) != len(kb) {
		t.Fatalf("%s: factor %v of %d kernels, want %v of %d", what, fa, len(ka), fb, len(kb))
	}
	for i := range ka {
		if math.Float32bits(ka[i]) != math.Float32bits(kb[i]) {
			t.Fatalf("%s: kernel %d is %v, want %v", what, i, ka[i], kb[i])
		}
	}
	for c := range sa {
		if math.Float64bits(sa[c]) != math.Float64bits(sb[c]) {
			t.Fatalf("%s: column %d sums to %v, want %v", what, c, sa[c], sb[c])
		}
	}
}
