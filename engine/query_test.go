package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAddQueryIsAdd: storing the query of the last evaluation (AddQuery,
// ReplaceQuery) gives the set Add and Replace give it with the same
// vectors and weights, on both storages and with dense and sparse queries:
// the same stored vectors, weights and bounds, and the same bits for
// every later evaluation.
func TestAddQueryIsAdd(t *testing.T) {
	for _, storage := range []Storage{DenseStorage, SparseStorage} {
		t.Run(fmt.Sprint(storage), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(51, 52))
			const dim, cols, budget = 9, 2, 20
			gauss := func() float32 { return float32(rng.NormFloat64()) }
			byQuery, byAdd := twoSets(t, dim, 3, Options{Capacity: budget, Columns: cols, Storage: storage})
			var sc Scratch
			got := make([]float64, cols)
			for k := range 3 * budget {
				x := Dense(randomPoint(rng, dim, 1, gauss))
				if k%2 == 1 {
					x = sparseOf(randomPoint(rng, dim, 0.4, gauss))
				}
				w := []float32{gauss(), gauss()}[:k%cols+1]
				if err := byQuery.Evaluate(&sc, x, got); err != nil {
					t.Fatal(err)
				}
				if k < budget {
					i, err := byQuery.AddQuery(&sc, w...)
					if err != nil {
						t.Fatalf("query %d: AddQuery: %v", k, err)
					}
					if j, err := byAdd.Add(x, w...); err != nil || j != i {
						t.Fatalf("query %d: Add gives index %d (%v), AddQuery %d", k, j, err, i)
					}
				} else {
					i := rng.IntN(budget)
					if err := byQuery.ReplaceQuery(i, &sc, w...); err != nil {
						t.Fatalf("query %d: ReplaceQuery: %v", k, err)
					}
					if err := byAdd.Replace(i, x, w...); err != nil {
						t.Fatal(err)
					}
				}
				what := fmt.Sprintf("after query %d", k)
				sameSets(t, what, byQuery, byAdd)
				sameSums(t, what, byQuery, byAdd, Dense(randomPoint(rng, dim, 1, gauss)))
			}
		})
	}
}

// sameSets fails unless a and b hold the same vectors, weights and bounds.
func sameSets(t *testing.T, what string, a, b *Set) {
	t.Helper()
	if a.Len() != b.Len() {
		t.Fatalf("%s: %d vectors, want %d", what, a.Len(), b.Len())
	}
	for i := range a.Len() {
		if va, vb := a.Vector(i, nil), b.Vector(i, nil); !slices.Equal(va, vb) {
			t.Fatalf("%s: vector %d is %v, want %v", what, i, va, vb)
		}
	}
	for c := range 2 {
		if wa, wb := a.WeightColumn(c), b.WeightColumn(c); !slices.Equal(wa, wb) {
			t.Fatalf("%s: weight column %d is %v, want %v", what, c, wa, wb)
		}
	}
	if a.maxNorm != b.maxNorm || a.integral != b.integral {
		t.Fatalf("%s: bounds (%v, %v), want (%v, %v)", what, a.maxNorm, a.integral, b.maxNorm, b.integral)
	}
}

// TestFullRowsStoreAsDense: a sparse row with every feature set is stored
// as its values (denseVectors.add and replace take it as a dense one):
// the same tiles, float32 norms and bounds as the dense row itself, and
// the same bits for later evaluations, with rows of 7 features, some set
// in full, added and then put in the place of others.
func TestFullRowsStoreAsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	const dim, budget = 7, 40
	gauss := func() float32 { return float32(rng.NormFloat64() * 3) }
	sparse, dense := twoSets(t, dim, 4, Options{Capacity: budget, Columns: 2, Storage: DenseStorage})
	full := 0
	for k := range 2 * budget {
		x := randomPoint(rng, dim, 0.9, gauss)
		sx := sparseOf(x)
		if len(sx.Index) == dim {
			full++
		}
		w := []float32{gauss(), gauss()}
		if k < budget {
			if _, err := sparse.Add(sx, w...); err != nil {
				t.Fatal(err)
			}
			if _, err := dense.Add(Dense(x), w...); err != nil {
				t.Fatal(err)
			}
		} else {
			i := rng.IntN(budget)
			if err := sparse.Replace(i, sx, w...); err != nil {
				t.Fatal(err)
			}
			if err := dense.Replace(i, Dense(x), w...); err != nil {
				t.Fatal(err)
			}
		}
		sameSets(t, fmt.Sprintf("after row %d", k), sparse, dense)
		if a, b := sparse.vs.(denseVectors).Norms(), dense.vs.(denseVectors).Norms(); !slices.Equal(a, b) {
			t.Fatalf("after row %d: norms %v, want %v", k, a, b)
		}
	}
	if full == 0 || full == 2*budget {
		t.Fatalf("%d of %d rows full: the test needs both kinds", full, 2*budget)
	}
	for k := range 20 {
		sameSums(t, fmt.Sprintf("query %d", k), sparse, dense, sparseOf(randomPoint(rng, dim, 1, gauss)))
	}
}

// twoSets returns two empty sets made alike.
func twoSets(t *testing.T, dim int, sigma float64, opt Options) (*Set, *Set) {
	t.Helper()
	a, err := New(dim, sigma, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(dim, sigma, opt)
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

// sameSums fails unless a and b give q the same bits in every column sum.
func sameSums(t *testing.T, what string, a, b *Set, q Vector) {
	t.Helper()
	var sc Scratch
	got, want := make([]float64, a.Columns()), make([]float64, b.Columns())
	if err := a.Evaluate(&sc, q, got); err != nil {
		t.Fatal(err)
	}
	if err := b.Evaluate(&sc, q, want); err != nil {
		t.Fatal(err)
	}
	for c := range got {
		if math.Float64bits(got[c]) != math.Float64bits(want[c]) {
			t.Fatalf("%s: sum %d is %v, want %v", what, c, got[c], want[c])
		}
	}
}

// TestAddQueryRefuses: AddQuery and ReplaceQuery store nothing from a
// scratch that holds no valid query of the set's dimension (never used,
// its last query refused, released, or evaluated on a set of another
// dimension), with more weights than columns, or (ReplaceQuery) at an
// index out of range.
func TestAddQueryRefuses(t *testing.T) {
	set, err := New(3, 1, Options{Capacity: 4, Columns: 1})
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(4, 1, Options{Capacity: 4, Columns: 1})
	if err != nil {
		t.Fatal(err)
	}
	good := Dense([]float32{1, 2, 3})
	if _, err := set.Add(good, 1); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		prepare func(sc *Scratch) *Scratch
		weights []float32
		index   int
	}{
		{"a new scratch", func(sc *Scratch) *Scratch { return sc }, nil, 0},
		{"a refused query", func(sc *Scratch) *Scratch {
			if set.Evaluate(sc, good, nil) != nil || set.Evaluate(sc, Dense([]float32{1, float32(math.NaN()), 3}), nil) == nil {
				t.Fatal("the NaN query was not refused")
			}
			return sc
		}, nil, 0},
		{"a released scratch", func(*Scratch) *Scratch {
			sc := set.Borrow()
			if err := set.Evaluate(sc, good, nil); err != nil {
				t.Fatal(err)
			}
			set.Release(sc)
			return sc
		}, nil, 0},
		{"another dimension", func(sc *Scratch) *Scratch {
			if err := other.Evaluate(sc, Dense([]float32{1, 2, 3, 4}), nil); err != nil {
				t.Fatal(err)
			}
			return sc
		}, nil, 0},
		{"too many weights", func(sc *Scratch) *Scratch {
			if err := set.Evaluate(sc, good, nil); err != nil {
				t.Fatal(err)
			}
			return sc
		}, []float32{1, 2}, 0},
		{"index out of range", func(sc *Scratch) *Scratch {
			if err := set.Evaluate(sc, good, nil); err != nil {
				t.Fatal(err)
			}
			return sc
		}, nil, 1},
	} {
		sc := c.prepare(new(Scratch))
		if c.index == 0 {
			if _, err := set.AddQuery(sc, c.weights...); err == nil {
				t.Errorf("%s: AddQuery stored it", c.name)
			}
		}
		if err := set.ReplaceQuery(c.index, sc, c.weights...); err == nil {
			t.Errorf("%s: ReplaceQuery stored it", c.name)
		}
		if set.Len() != 1 {
			t.Fatalf("%s: %d vectors, want 1", c.name, set.Len())
		}
	}
}
