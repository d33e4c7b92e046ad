package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/simd"
)

// storageKinds are the data of the storage tests: values, density and σ,
// from binary features to raw values whose norms defeat the expansion.
var storageKinds = []struct {
	name    string
	density float64
	gen     func(rng *rand.Rand) float32
	sigma   float64
}{
	{"binary-sparse", 0.04, func(*rand.Rand) float32 { return 1 }, 8},
	{"counts-sparse", 0.1, func(r *rand.Rand) float32 { return float32(1 + r.IntN(9)) }, 2},
	{"gaussian-dense", 1, func(r *rand.Rand) float32 { return float32(r.NormFloat64() * 4) }, 8},
	{"scaled-sparse", 0.05, func(r *rand.Rand) float32 { return float32(r.Float64()*2 - 1) }, 1},
	{"raw-large-sparse", 0.05, func(r *rand.Rand) float32 { return float32(r.Float64() * 15841) }, 8},
	{"raw-huge-sigma1", 0.05, func(r *rand.Rand) float32 { return float32(1e4 + r.Float64()*1e4) }, 1},
}

// storagePair is one set per storage, fed the same operations, and the
// float64 copy of their vectors and column-0 weights.
type storagePair struct {
	dense, sparse *Set
	vectors       [][]float32
	weights       []float64
}

// newStoragePair builds the two sets and applies n random additions (dense
// or sparse form), replacements and removals.
func newStoragePair(t *testing.T, dim int, sigma float64, n int, rng *rand.Rand, point func() []float32) *storagePair {
	t.Helper()
	p := &storagePair{}
	var err error
	if p.dense, err = New(dim, sigma, Options{Capacity: 4, Columns: 2, Storage: DenseStorage}); err != nil {
		t.Fatal(err)
	}
	if p.sparse, err = New(dim, sigma, Options{Capacity: 4, Columns: 2, Storage: SparseStorage}); err != nil {
		t.Fatal(err)
	}
	each := func(f func(s *Set) error) {
		for _, s := range []*Set{p.dense, p.sparse} {
			if err := f(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	for step := range n {
		x := point()
		w0, w1 := float32(rng.NormFloat64()), float32(rng.NormFloat64())
		form := Dense(x)
		if step%2 == 0 {
			form = sparseOf(x)
		}
		switch r := rng.IntN(8); {
		case r == 0 && len(p.vectors) > 0:
			i := rng.IntN(len(p.vectors))
			var moved [2]int
			for k, s := range []*Set{p.dense, p.sparse} {
				moved[k] = s.Remove(i)
			}
			if moved[0] != moved[1] {
				t.Fatalf("Remove(%d) moved %d and %d", i, moved[0], moved[1])
			}
			last := len(p.vectors) - 1
			p.vectors[i], p.weights[i] = p.vectors[last], p.weights[last]
			p.vectors, p.weights = p.vectors[:last], p.weights[:last]
		case r == 1 && len(p.vectors) > 0:
			i := rng.IntN(len(p.vectors))
			each(func(s *Set) error { return s.Replace(i, form, w0, w1) })
			p.vectors[i], p.weights[i] = x, float64(w0)
		default:
			each(func(s *Set) error { _, err := s.Add(form, w0, w1); return err })
			p.vectors, p.weights = append(p.vectors, x), append(p.weights, float64(w0))
		}
	}
	return p
}

// sparseStorageTol bounds the error of sparse storage's float32 kernel
// value whose true value is k = e^a, for a query of nnz non-zeros: the
// distance is computed in float64 and rounded to float32 once (2⁻²⁴ of
// it), the exponent is formed with at most two more roundings (product and
// offset, as kernelTol says), exp errs by 2e-7 relative, and the float64
// distance errs by at most (2·nnz+3)·2⁻⁵³·S when the expansion was taken
// (S = 2·(max‖s‖² + ‖x‖²)), by (nnz + nnz(s))·2⁻⁵³ of itself when summed
// directly (at most 2·dim roundings here). The distance error moves a by
// |scale| times itself.
func sparseStorageTol(k float64, v *view, xnorm float64, nnz, dim int, expansion bool) float64 {
	a := -math.Log(k)
	exponent := 4 * 0x1p-24 * a
	if expansion {
		exponent += float64(-v.scale) * float64(2*nnz+3) * 0x1p-53 * 2 * (v.maxNorm + xnorm)
	} else {
		exponent += float64(2*dim) * 0x1p-53 * a
	}
	return k * (2e-7 + math.Expm1(exponent))
}

// TestStoragesAgree: dense and sparse storage fed the same additions,
// replacements and removals give, for dense and sparse queries and every
// implementation, kernel values within their error bounds of the float64
// values (sparse storage within the bound derived for it, which the
// kinds push from exact integers to norms beyond the expansion), the same
// bits wherever no rounding differs (ExactKernels, Vector, Bounds, the
// support vectors, removals' moves), and Models that score as their sets.
func TestStoragesAgree(t *testing.T) {
	eachImpl(t, func(t *testing.T) {
		var paths [2]int // queries of sparse storage by fallback, expansion
		for _, kind := range storageKinds {
			for _, dim := range []int{1, 8, 57, 300} {
				rng := rand.New(rand.NewPCG(uint64(dim), 11))
				point := func() []float32 { return randomPoint(rng, dim, kind.density, func() float32 { return kind.gen(rng) }) }
				p := newStoragePair(t, dim, kind.sigma, 70, rng, point)
				checkStoragePair(t, kind.name, p, rng, point, &paths)
			}
		}
		if paths[0] == 0 || paths[1] == 0 {
			t.Fatalf("%d queries took the direct sum, %d the expansion: both must be tested", paths[0], paths[1])
		}
	})
}

// checkStoragePair compares p's sets on random queries and near
// duplicates of stored vectors, counting in paths the sparse-storage
// queries that summed directly and those that took the expansion.
func checkStoragePair(t *testing.T, name string, p *storagePair, rng *rand.Rand, point func() []float32, paths *[2]int) {
	t.Helper()
	dim := p.dense.Dim()
	if p.dense.Len() != len(p.vectors) || p.sparse.Len() != len(p.vectors) {
		t.Fatalf("%s: %d and %d vectors, want %d", name, p.dense.Len(), p.sparse.Len(), len(p.vectors))
	}
	dn, di := p.dense.Bounds()
	sn, si := p.sparse.Bounds()
	if dn != sn || di != si {
		t.Fatalf("%s: bounds (%v, %v) and (%v, %v)", name, dn, di, sn, si)
	}
	var dbuf, sbuf []float32
	var sv Vector
	for i, want := range p.vectors {
		dbuf, sbuf = p.dense.Vector(i, dbuf), p.sparse.Vector(i, sbuf)
		if !slices.Equal(dbuf, want) || !slices.Equal(sbuf, want) {
			t.Fatalf("%s: vector %d differs", name, i)
		}
		sv = p.sparse.SupportVector(i, sv)
		nz := sparseOf(want)
		if !sv.IsSparse() || !slices.Equal(sv.Index, nz.Index) || !slices.Equal(sv.Value, nz.Value) {
			t.Fatalf("%s: sparse support vector %d is %+v, want %+v", name, i, sv, nz)
		}
		if dv := p.dense.SupportVector(i, Vector{}); dv.IsSparse() || !slices.Equal(dv.Dense, want) {
			t.Fatalf("%s: dense support vector %d is %+v", name, i, dv)
		}
		if p.dense.WeightColumn(1)[i] != p.sparse.WeightColumn(1)[i] {
			t.Fatalf("%s: weights of vector %d differ", name, i)
		}
	}
	models := [2]*Model{}
	for k, s := range []*Set{p.dense, p.sparse} {
		var err error
		if models[k], err = s.SnapshotLinear([][]float64{{1, 0}}); err != nil {
			t.Fatal(err)
		}
	}
	for q := range 12 {
		x := point()
		if q < 4 && len(p.vectors) > 0 { // near a stored vector: distances small next to norms
			x = slices.Clone(p.vectors[rng.IntN(len(p.vectors))])
			x[rng.IntN(dim)] += 0.5
		}
		want, kv := reference(x, p.vectors, p.weights, p.dense.Sigma())
		for _, query := range []Vector{Dense(x), sparseOf(x)} {
			f := [2]float64{}
			var sc [2]Scratch
			for k, s := range []*Set{p.dense, p.sparse} {
				var err error
				if f[k], err = score(s, &sc[k], query); err != nil {
					t.Fatal(err)
				}
				if m, _ := models[k].Score(query); m != f[k] {
					t.Fatalf("%s: %v storage: set %v, its model %v", name, s.Storage(), f[k], m)
				}
			}
			xnorm, integral := query.sqNorm()
			nnz := len(sparseOf(x).Index)
			expansion := p.sparse.expansionExact(xnorm, integral, 2*nnz+3, float64Bits)
			if expansion {
				paths[1]++
			} else {
				paths[0]++
			}
			var fTol [2]float64
			var kernels [2][]float32
			var factors [2]float64
			for k := range sc {
				kernels[k], factors[k] = sc[k].Kernels()
			}
			for i := range kv {
				floor := math.Exp(simd.ExpMin)
				tols := [2]float64{
					kernelTol(kv[i], dim, query.IsSparse()) + factors[0]*floor,
					sparseStorageTol(kv[i], &p.sparse.view, xnorm, nnz, dim, expansion) + factors[1]*floor,
				}
				for k, s := range []*Set{p.dense, p.sparse} {
					got := factors[k] * float64(kernels[k][i])
					if math.Abs(got-kv[i]) > tols[k] {
						t.Fatalf("%s dim %d query %d sparse=%v, %v storage (expansion %v): κ[%d] = %v, want %v ± %.3g",
							name, dim, q, query.IsSparse(), s.Storage(), expansion, i, got, kv[i], tols[k])
					}
					fTol[k] += math.Abs(p.weights[i]) * (tols[k] + float64(len(kv)/16+20)*0x1p-24*kv[i])
				}
			}
			for k := range f {
				if math.Abs(f[k]-want) > fTol[k] {
					t.Fatalf("%s dim %d query %d: f = %v with storage %d, want %v ± %.3g", name, dim, q, f[k], k, want, fTol[k])
				}
			}
			de, err := p.dense.ExactKernels(query, nil)
			if err != nil {
				t.Fatal(err)
			}
			se, err := p.sparse.ExactKernels(query, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(de, se) {
				t.Fatalf("%s: exact kernels differ:\n%v\n%v", name, de, se)
			}
		}
	}
}

// TestStoragesAgreeBitwiseOnIntegers: on integer data whose partial sums
// stay below 2²⁴ both storages compute every distance exactly, so scores,
// kernel values and column sums are the same bits, for every
// implementation.
func TestStoragesAgreeBitwiseOnIntegers(t *testing.T) {
	eachImpl(t, func(t *testing.T) {
		for _, dim := range []int{3, 40, 300} {
			rng := rand.New(rand.NewPCG(uint64(dim), 12))
			point := func() []float32 {
				return randomPoint(rng, dim, 0.1, func() float32 { return float32(rng.IntN(7) - 3) })
			}
			p := newStoragePair(t, dim, 3, 90, rng, point)
			for range 20 {
				x := point()
				for _, query := range []Vector{Dense(x), sparseOf(x)} {
					var got [2][2]float64
					var sc [2]Scratch
					for k, s := range []*Set{p.dense, p.sparse} {
						if err := s.Evaluate(&sc[k], query, got[k][:]); err != nil {
							t.Fatal(err)
						}
					}
					var sums [2][1]float64
					for k, s := range []*Set{p.dense, p.sparse} {
						s.Sums(&sc[k], 1, sums[k][:])
					}
					dk, df := sc[0].Kernels()
					sk, sf := sc[1].Kernels()
					if got[0] != got[1] || sums[0] != sums[1] || !slices.Equal(dk, sk) || df != sf {
						t.Fatalf("dim %d: scores %v and %v, sums %v and %v differ", dim, got[0], got[1], sums[0], sums[1])
					}
				}
			}
		}
	})
}

// TestSparseStorageFallsBackBeyondTheExpansion: values near 1e7 and σ = 1,
// where the float64 expansion would err by about 1 in a distance of 1
// (S·2⁻⁵³ ≈ 0.1 per rounding), yet kernel values of near duplicates come
// out to float32 accuracy: the direct sum replaced the expansion.
func TestSparseStorageFallsBackBeyondTheExpansion(t *testing.T) {
	eachImpl(t, func(t *testing.T) {
		const dim = 1000
		s, err := New(dim, 1, Options{Storage: SparseStorage})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(13, 13))
		var vectors [][]float32
		for range 30 {
			x := randomPoint(rng, dim, 0.02, func() float32 { return float32(1e7 + rng.Float64()) })
			vectors = append(vectors, x)
			if _, err := s.Add(sparseOf(x), 1); err != nil {
				t.Fatal(err)
			}
		}
		var sc Scratch
		for i, v := range vectors {
			x := slices.Clone(v)
			x[slices.IndexFunc(x, func(f float32) bool { return f != 0 })] += 1
			xs := sparseOf(x)
			xnorm, integral := xs.sqNorm()
			if s.expansionExact(xnorm, integral, 2*len(xs.Index)+3, float64Bits) {
				t.Fatal("the expansion is allowed here: the test shows nothing")
			}
			if _, err := score(s, &sc, xs); err != nil {
				t.Fatal(err)
			}
			_, kv := reference(x, vectors, make([]float64, len(vectors)), 1)
			kernels, factor := sc.Kernels()
			got := factor * float64(kernels[i])
			if tol := sparseStorageTol(kv[i], &s.view, xnorm, len(xs.Index), dim, false); math.Abs(got-kv[i]) > tol {
				t.Fatalf("κ of vector %d = %v, want %v ± %.3g", i, got, kv[i], tol)
			}
		}
	})
}

// TestSparseStorageHoldsNoDenseBuffer: in dimension 2²⁶ (256 MB for one
// dense vector), a sparse-storage set adds, replaces, removes, scores
// sparse queries through Evaluate (of one and two columns), ExactKernels and a
// Model, restores its bounds and copies support vectors, allocating well
// under 1 MB in all: nothing of the dimension's size.
func TestSparseStorageHoldsNoDenseBuffer(t *testing.T) {
	const dim = 1 << 26
	rng := rand.New(rand.NewPCG(14, 14))
	point := func() Vector {
		idx := make([]int32, 0, 20)
		for len(idx) < 20 {
			if j := int32(rng.IntN(dim)); !slices.Contains(idx, j) {
				idx = append(idx, j)
			}
		}
		slices.Sort(idx)
		val := make([]float32, len(idx))
		for k := range val {
			val[k] = float32(1 + rng.IntN(3))
		}
		return Sparse(idx, val)
	}
	queries := make([]Vector, 300)
	for k := range queries {
		queries[k] = point()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := New(dim, 4, Options{Capacity: 100, Columns: 2})
	if err != nil {
		t.Fatal(err)
	}
	if s.Storage() != SparseStorage {
		t.Fatalf("dimension %d stores %v", dim, s.Storage())
	}
	sums := make([]float64, 2)
	var sv Vector
	var sc Scratch
	for k, x := range queries {
		if _, err := score(s, &sc, x); err != nil {
			t.Fatal(err)
		}
		if err := s.Evaluate(&sc, x, sums); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ExactKernels(x, nil); err != nil {
			t.Fatal(err)
		}
		if s.Len() == 100 {
			s.Remove(rng.IntN(100))
		}
		if k%10 == 0 && s.Len() > 0 {
			if err := s.Replace(0, x, 1); err != nil {
				t.Fatal(err)
			}
			sv = s.SupportVector(0, sv)
		} else if _, err := s.Add(x, 1, -1); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetBounds(s.Bounds()); err != nil {
		t.Fatal(err)
	}
	m, err := s.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(queries))
	if err := m.ScoreBatch(context.Background(), queries, out); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
		t.Fatalf("%d bytes allocated", grown)
	}
}

func TestStorageChoice(t *testing.T) {
	for _, c := range []struct {
		opt  Storage
		dim  int
		want Storage
	}{
		{AutoStorage, 300, DenseStorage},
		{AutoStorage, SparseDim - 1, DenseStorage},
		{AutoStorage, SparseDim, SparseStorage},
		{AutoStorage, 4_000_000, SparseStorage},
		{DenseStorage, 4_000_000, DenseStorage},
		{SparseStorage, 3, SparseStorage},
	} {
		capacity := 1
		if c.want == DenseStorage && c.dim > 1<<16 {
			capacity = 0 // no tile of 4 million features
		}
		s, err := New(c.dim, 1, Options{Storage: c.opt, Capacity: capacity})
		if err != nil {
			t.Fatal(err)
		}
		if s.Storage() != c.want {
			t.Errorf("%v at dimension %d stores %v, want %v", c.opt, c.dim, s.Storage(), c.want)
		}
		m, _ := s.Snapshot(1)
		if m.Storage() != c.want {
			t.Errorf("its model stores %v", m.Storage())
		}
		if got, err := ParseStorage(c.want.String()); err != nil || got != c.want {
			t.Errorf("ParseStorage(%q) = %v, %v", c.want.String(), got, err)
		}
	}
	if _, err := New(3, 1, Options{Storage: numStorages}); err == nil || !strings.Contains(err.Error(), "Storage(3)") {
		t.Errorf("an unknown storage: %v", err)
	}
	if _, err := ParseStorage("tiles"); err == nil {
		t.Error("ParseStorage accepted tiles")
	}
	if _, err := New(1<<31+1, 1, Options{Storage: SparseStorage}); err == nil {
		t.Error("sparse storage accepted dimension 2³¹+1")
	}
}
