package engine

import (
	"fmt"

	"github.com/bogd-project/bogd/layout"
	"github.com/bogd-project/bogd/simd"
)

// Storage says how a Set keeps its support vectors (see the package
// documentation).
type Storage uint8

// The storages.
const (
	// AutoStorage stores vectors densely below SparseDim features and
	// sparsely from there on.
	AutoStorage Storage = iota
	// DenseStorage keeps every feature of every vector in float32 tiles
	// (layout.Matrix): Cap·Dim·4 bytes, SIMD distances.
	DenseStorage
	// SparseStorage keeps each vector's non-zero features and an index
	// from features to vectors (layout.Sparse): about 28 bytes per stored
	// non-zero, updates and sparse queries O(non-zeros) whatever Dim.
	SparseStorage
	numStorages
)

// SparseDim is the dimension from which AutoStorage stores vectors
// sparsely. The dimension alone cannot tell sparse data from dense, so the
// rule weighs the two mistakes (BenchmarkStorage, one AVX-512 core):
//
//   - sparse data in dense storage: with 20 non-zeros per row, a step of a
//     learner that updates on every example (score, remove, add) costs
//     3.6× sparse storage's at 4,096 features, 16–18× at 16,384 and
//     about 100× at 65,536, because a removal moves Dim floats; and it
//     holds Dim·4 bytes per slot (64 KB at 16,384). Below 4,096 features
//     dense storage is as fast or faster (2.5× at w8a's 300).
//   - dense data in sparse storage: about 10× slower to score and 7× the
//     memory at any dimension (1,024 features, budget 200).
//
// Dense vectors of 16,384 and more features are rare in kernel learning
// (hashed or bag-of-words features are the usual source of such
// dimensions), so the rule switches there. A learner that knows its data
// should choose explicitly.
const SparseDim = 1 << 14

var storageNames = [numStorages]string{"auto", "dense", "sparse"}

// String returns "auto", "dense" or "sparse".
func (s Storage) String() string {
	if s < numStorages {
		return storageNames[s]
	}
	return fmt.Sprintf("Storage(%d)", uint8(s))
}

// ParseStorage parses a storage name as String writes it.
func ParseStorage(name string) (Storage, error) {
	for s, n := range storageNames {
		if n == name {
			return Storage(s), nil
		}
	}
	return 0, fmt.Errorf("engine: unknown storage %q (want auto, dense or sparse)", name)
}

// Resolve turns AutoStorage into the storage it picks for dimension dim
// (the others are themselves).
func (s Storage) Resolve(dim int) (Storage, error) {
	switch {
	case s >= numStorages:
		return 0, fmt.Errorf("unknown %v", s)
	case s != AutoStorage:
		return s, nil
	case dim >= SparseDim:
		return SparseStorage, nil
	}
	return DenseStorage, nil
}

// vectors is where a Set or a Model keeps its support vectors: dense tiles
// or sparse entries, slots numbered alike. Slots past Len up to Padded are
// padding that kernels process with weight zero.
type vectors interface {
	Len() int
	Cap() int
	Padded() int
	SwapRemove(i int) (moved int)

	storage() Storage
	// add stores the valid x and returns its slot; replace overwrites
	// slot i with it. Both return its squared norm, x.sqSum(), for the
	// bounds. sc is room for converting x. Here and below x goes by
	// pointer, into a Scratch (on the heap): a Vector is ten words.
	add(x *Vector, sc *Scratch) (i int, sqNorm float64)
	replace(i int, x *Vector, sc *Scratch) (sqNorm float64)
	// dense copies vector i into dst, resized to the dimension.
	dense(i int, dst []float32) []float32
	// supportVector copies vector i in its stored form into buf's slices.
	supportVector(i int, buf Vector) Vector
	// sqNorm is Vector.sqNorm of vector i (sc is room for reading it).
	sqNorm(i int, sc *Scratch) (norm float64, integral bool)
	// distances writes ‖x − sᵢ‖² of every slot, padding included, into
	// buf, choosing the computation by the exactness rules of v: dense
	// storage as e says (view.expansionOf), sparse storage by its own.
	distances(v *view, buf []float32, x *Vector, sc *Scratch, e expansion)
	// sqDists writes ‖x − sᵢ‖² of every stored vector into dst, computed
	// in float64 directly from the stored float32 values, feature by
	// feature in increasing order (ExactKernels).
	sqDists(x *Vector, dst []float64, sc *Scratch)
	// frozen returns a copy that no later change of the original touches.
	frozen() vectors
}

// newVectors returns empty storage s for vectors of dimension dim with
// room for capacity of them.
func newVectors(s Storage, dim, capacity int) (vectors, error) {
	s, err := s.Resolve(dim)
	if err != nil {
		return nil, err
	}
	if s == SparseStorage {
		m, err := layout.NewSparse(dim, capacity)
		return sparseVectors{m}, err
	}
	m, err := layout.New(dim, capacity)
	return denseVectors{m}, err
}

// denseVectors is dense storage.
type denseVectors struct{ *layout.Matrix }

func (denseVectors) storage() Storage { return DenseStorage }

// add stores the valid x; a sparse x with every feature set (codrna's
// rows) is its values in order, stored as a dense one, without the
// scatter: the same floats and the same norm. The matrix sums the norm in
// x.sqSum's order.
func (d denseVectors) add(x *Vector, _ *Scratch) (i int, sqNorm float64) {
	switch {
	case !x.isSparse():
		return d.Append(x.Dense)
	case len(x.Index) == d.Dim():
		return d.Append(x.Value)
	}
	return d.AppendSparse(x.Index, x.Value)
}

func (d denseVectors) replace(i int, x *Vector, sc *Scratch) (sqNorm float64) {
	return d.Replace(i, sc.denseQuery(x, d.Dim()))
}

func (d denseVectors) dense(i int, dst []float32) []float32 { return d.Row(i, dst) }

func (d denseVectors) supportVector(i int, buf Vector) Vector { return Dense(d.Row(i, buf.Dense)) }

func (d denseVectors) sqNorm(i int, sc *Scratch) (float64, bool) {
	row := Dense(d.Row(i, sc.denseBuf(d.Dim())))
	return row.sqNorm()
}

func (d denseVectors) distances(v *view, buf []float32, x *Vector, sc *Scratch, e expansion) {
	if e.use {
		simd.SqDistSparse(buf, d.Norms(), x.Index, x.Value, float32(e.xnorm), d.Tiles(), v.dim)
		return
	}
	simd.SqDist(buf, sc.denseQuery(x, v.dim), d.Tiles(), v.dim)
}

// expansion is how dense storage takes the distances of one query: by the
// norm expansion over its non-zero features (use), from its squared norm
// xnorm, or directly. view.evaluate decides it once per query: its test
// reads every non-zero, as the squared norm does.
type expansion struct {
	use   bool
	xnorm float64
}

// expansionOf decides the expansion of the valid query x on dense
// storage: a sparse query of few non-zeros, 2·(nnz + 1) ≤ dim, whose
// expansion is exact enough. It inlines, so that most queries (dense ones,
// and sparse ones with half of their features set, codrna's rows) are told
// without a call; a valid query is sparse exactly when it has no dense
// slice.
func (v *view) expansionOf(x *Vector) expansion {
	if x.Dense != nil || len(x.Index) >= v.dim>>1 {
		return expansion{}
	}
	return v.sparseExpansion(x)
}

// sparseExpansion is expansionOf's test of the expansion's error for the
// sparse query x.
func (v *view) sparseExpansion(x *Vector) expansion {
	xnorm, integral := x.sqNorm()
	// The stored norm, the query norm, nnz products and the sums, each
	// rounded once in float32.
	return expansion{use: v.expansionExact(xnorm, integral, len(x.Index)+3, float32Bits), xnorm: xnorm}
}

// sqDists takes the distances of the whole tiles straight into dst and
// those of a last, partial tile through a buffer: dst holds Len values,
// the tiles Padded slots. simd.SqDist64 gives the bits of the scalar loop
// ExactKernels documents, in every implementation.
func (d denseVectors) sqDists(x *Vector, dst []float64, sc *Scratch) {
	dim := d.Dim()
	xs := x.densify(sc.denseBuf(dim))
	tiles := d.Tiles()
	full := len(dst) &^ (layout.Lanes - 1)
	simd.SqDist64(dst[:full], xs, tiles[:full*dim], dim)
	if full < len(dst) {
		var last [layout.Lanes]float64
		simd.SqDist64(last[:], xs, tiles[full*dim:(full+layout.Lanes)*dim], dim)
		copy(dst[full:], last[:])
	}
}

func (d denseVectors) frozen() vectors { return denseVectors{d.Clone()} }
