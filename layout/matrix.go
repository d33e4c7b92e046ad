// Package layout stores support vectors for the kernel routines.
//
// It holds them in a tiled structure-of-arrays matrix of float32 in one
// contiguous allocation (Matrix), or, when the dimension is too large to store
// every feature, as each vector's non-zero features with an index from feature
// to vectors (Sparse).
//
// A Matrix groups vectors in tiles of Lanes (16) slots. Inside a tile the storage is
// feature-major: feature j of the 16 vectors of tile t is the run
//
//	data[(t*dim + j)*Lanes : (t*dim + j + 1)*Lanes]
//
// so a SIMD kernel reads one 16-wide row per feature (one AVX-512 register, two
// AVX2 registers) and never needs a masked tail: slots past Len are kept zero.
// A swap-remove touches a single tile row per matrix (d×64 contiguous bytes)
// instead of d columns that are capacity×4 bytes apart, which is what a plain
// feature-major layout would cost at d ≥ 22. It also costs d float32 per
// slot whatever the vector: a Sparse stores only the non-zeros, and its
// swap-remove touches only the entries of the two vectors involved.
package layout

import "fmt"

// Lanes is the number of vector slots in one tile: the width of an AVX-512
// float32 register.
const Lanes = 16

// Matrix holds up to Cap() vectors of dimension Dim() and grows on demand.
// Slot i of the matrix is vector i; SwapRemove keeps the slots dense.
type Matrix struct {
	dim   int
	n     int
	data  []float32 // tiles × dim × Lanes; slots ≥ n are zero
	norms []float32 // squared Euclidean norm per slot, zero past n
}

// New returns an empty matrix for vectors of dimension dim with room for
// capacity vectors before it has to grow.
func New(dim, capacity int) (*Matrix, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("layout: dimension must be positive, got %d", dim)
	}
	if capacity < 0 {
		return nil, fmt.Errorf("layout: capacity must not be negative, got %d", capacity)
	}
	tiles := TilesFor(capacity)
	return &Matrix{
		dim:   dim,
		data:  make([]float32, tiles*dim*Lanes),
		norms: make([]float32, tiles*Lanes),
	}, nil
}

// TilesFor returns the number of tiles that hold n vectors.
func TilesFor(n int) int { return (n + Lanes - 1) / Lanes }

// Len returns the number of stored vectors.
func (m *Matrix) Len() int { return m.n }

// Dim returns the dimension of the stored vectors.
func (m *Matrix) Dim() int { return m.dim }

// Cap returns the number of vectors the matrix holds before it grows.
func (m *Matrix) Cap() int { return len(m.norms) }

// Padded returns Len rounded up to whole tiles: the number of slots a kernel
// processes and the length of Norms.
func (m *Matrix) Padded() int { return TilesFor(m.n) * Lanes }

// Tiles returns the tiles in use (Padded()/Lanes of them, Dim()*Lanes floats
// each). The slice aliases the matrix: kernels read it, nobody writes it.
func (m *Matrix) Tiles() []float32 { return m.data[:TilesFor(m.n)*m.dim*Lanes] }

// Norms returns the squared norm of every slot in use, padding included (zero).
func (m *Matrix) Norms() []float32 { return m.norms[:m.Padded()] }

// offset returns the index in data of feature 0 of slot i; feature j is at
// offset + j*Lanes.
func (m *Matrix) offset(i int) int {
	u := uint(i) // i ≥ 0: unsigned, the division is a shift
	return int(u/Lanes)*m.dim*Lanes + int(u%Lanes)
}

// At returns feature j of vector i.
func (m *Matrix) At(i, j int) float32 {
	m.check(i)
	if j < 0 || j >= m.dim {
		panic(fmt.Sprintf("layout: feature %d out of range [0,%d)", j, m.dim))
	}
	return m.data[m.offset(i)+j*Lanes]
}

// Row copies vector i into dst (resized to Dim) and returns it.
func (m *Matrix) Row(i int, dst []float32) []float32 {
	m.check(i)
	dst = resize(dst, m.dim)
	off := m.offset(i)
	for j := range dst {
		dst[j] = m.data[off+j*Lanes]
	}
	return dst
}

// Norm returns the squared norm of vector i.
func (m *Matrix) Norm(i int) float32 {
	m.check(i)
	return m.norms[i]
}

// Append stores the dense vector x (len(x) must be Dim) and returns its
// index and its squared norm: the float64 sum of x's squares in order,
// which Norms keeps rounded to float32 (a caller that bounds the norms
// needs it unrounded, and need not sum it again).
func (m *Matrix) Append(x []float32) (i int, sqNorm float64) {
	if len(x) != m.dim {
		panic(fmt.Sprintf("layout: appending a vector of length %d to a matrix of dimension %d", len(x), m.dim))
	}
	i = m.grow()
	return i, m.store(i, x)
}

// AppendSparse stores the vector whose non-zero features are val at the
// 0-based indices idx (each < Dim) and returns its index and its squared
// norm, as Append does (the squares of val in order).
func (m *Matrix) AppendSparse(idx []int32, val []float32) (i int, sqNorm float64) {
	if len(idx) != len(val) {
		panic(fmt.Sprintf("layout: %d indices for %d values", len(idx), len(val)))
	}
	for _, j := range idx {
		if j < 0 || int(j) >= m.dim {
			panic(fmt.Sprintf("layout: feature %d out of range [0,%d)", j, m.dim))
		}
	}
	i = m.grow()                 // the slot is zero: only the non-zeros need writing
	data := m.data[m.offset(i):] // read once: the stores below could alias m
	val = val[:len(idx)]
	for k, j := range idx {
		data[int(j)*Lanes] = val[k]
		sqNorm += float64(val[k]) * float64(val[k])
	}
	m.norms[i] = float32(sqNorm)
	return i, sqNorm
}

// Replace overwrites vector i with the dense vector x (len(x) must be Dim)
// and returns its squared norm, as Append does: the other vectors keep
// their slots.
func (m *Matrix) Replace(i int, x []float32) (sqNorm float64) {
	m.check(i)
	if len(x) != m.dim {
		panic(fmt.Sprintf("layout: replacing with a vector of length %d in a matrix of dimension %d", len(x), m.dim))
	}
	return m.store(i, x)
}

// store writes the dense vector x into slot i and its norm, and returns
// the norm unrounded.
func (m *Matrix) store(i int, x []float32) (sqNorm float64) {
	data := m.data[m.offset(i):] // read once: the stores below could alias m
	for j, v := range x {
		data[j*Lanes] = v
		sqNorm += float64(v) * float64(v)
	}
	m.norms[i] = float32(sqNorm)
	return sqNorm
}

// SwapRemove deletes vector i by moving the last vector into its slot. It
// returns the former index of the vector that moved (Len()-1 before the call),
// or -1 when i was the last vector and nothing moved, so that callers can keep
// per-vector metadata aligned with the same swap.
func (m *Matrix) SwapRemove(i int) (moved int) {
	m.check(i)
	last := m.n - 1
	// The rows are read once: the stores below could alias m. When i is
	// the last slot they are the same row, and the loop only clears it.
	end := (m.dim-1)*Lanes + 1
	dst, src := m.data[m.offset(i):][:end], m.data[m.offset(last):][:end]
	for j := 0; j < end; j += Lanes {
		dst[j], src[j] = src[j], 0
	}
	m.norms[i], m.norms[last] = m.norms[last], 0
	m.n = last
	if i == last {
		return -1
	}
	return last
}

// Clone returns a copy of m with room for exactly Padded vectors: a
// snapshot that will not change.
func (m *Matrix) Clone() *Matrix {
	return &Matrix{
		dim:   m.dim,
		n:     m.n,
		data:  append([]float32(nil), m.Tiles()...),
		norms: append([]float32(nil), m.Norms()...),
	}
}

// Reset removes every vector, keeping the allocation.
func (m *Matrix) Reset() {
	clear(m.data[:TilesFor(m.n)*m.dim*Lanes])
	clear(m.norms[:m.Padded()])
	m.n = 0
}

// grow makes room for one more vector and returns its (zeroed) slot.
func (m *Matrix) grow() int {
	if m.n == len(m.norms) {
		tiles := max(2*TilesFor(m.n), 1)
		data := make([]float32, tiles*m.dim*Lanes)
		copy(data, m.data) // tiles are self-contained: growth appends tiles
		norms := make([]float32, tiles*Lanes)
		copy(norms, m.norms)
		m.data, m.norms = data, norms
	}
	m.n++
	return m.n - 1
}

func (m *Matrix) check(i int) {
	if i < 0 || i >= m.n {
		panic(fmt.Sprintf("layout: vector %d out of range [0,%d)", i, m.n))
	}
}

func resize(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}
