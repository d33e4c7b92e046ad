package dataset

import (
	"math"
	"slices"

	"github.com/bogd-project/bogd/simd"
)

// rowStore holds the rows of a compact data set (Compact); RowTo gives
// them in the form Read gives: 0-based indices, strictly increasing, and
// non-zero values.
type rowStore interface {
	// rowTo returns row i's features, decoded into buf where the row is
	// not stored in that form.
	rowTo(i int, buf *RowBuffer) ([]int32, []float32)
	nnz(i int) int
	bytes() int64 // the memory of the rows
	// prefetch is Dataset.Prefetch but for the labels.
	prefetch(bounds, values int)
}

// Compact returns d with its rows stored in the smallest of these forms,
// d itself unchanged (the labels are shared): dense float32 rows, Dim
// values each and no indices, when that is smaller (nearly every feature
// set); else per non-zero an index of 1, 2 or 4 bytes (Dim up to 2⁸, 2¹⁶,
// or more) and its float32 value, no values at all when every one is 1
// (binary features), and a 4-byte offset per row. Line numbers go when
// they are the rows' own (a file without blank or comment lines). A data
// set that the protocols permute is held for the whole run: labels and
// lines included, codrna takes 5.0 bytes per non-zero instead of 11.0
// (dense rows), w8a 3.0 instead of 10.1 (2-byte indices, no values), dna
// 1.3 instead of 8.5 (1-byte indices, no values); HeldBytes is the form
// Read holds.
//
// The result's RowPtr, Index and Value are nil: its rows are read with
// RowTo (Row panics), and Subset, Dense, MinMax and Prepare give data
// sets of the form Read gives. A data set whose offsets do not fit
// 32 bits, or that holds no row, is returned as it is.
func (d *Dataset) Compact() *Dataset {
	if d.rows != nil || d.Len() == 0 || len(d.Index) > math.MaxUint32 {
		return d
	}
	c := *d
	c.RowPtr, c.Index, c.Value = nil, nil, nil
	plain := d.lines != nil
	for i, l := range d.lines {
		if l != i+1 {
			plain = false
			break
		}
	}
	if plain {
		c.lines, c.plainLines = nil, true
	}
	ones := true
	for _, v := range d.Value {
		if v != 1 {
			ones = false
			break
		}
	}
	n, nnz := int64(d.Len()), int64(len(d.Index))
	indexBytes := int64(4)
	switch {
	case d.Dim <= 1<<8:
		indexBytes = 1
	case d.Dim <= 1<<16:
		indexBytes = 2
	}
	sparse := 4*n + nnz*indexBytes
	if !ones {
		sparse += 4 * nnz
	}
	if dense := 4 * n * int64(d.Dim); dense < sparse {
		c.rows = newDenseRows(d)
		return &c
	}
	switch indexBytes {
	case 1:
		c.rows = newSparseRows[uint8](d, ones)
	case 2:
		c.rows = newSparseRows[uint16](d, ones)
	default:
		c.rows = newSparseRows[int32](d, ones)
	}
	return &c
}

// Bytes returns the memory, in bytes, that d's rows and labels take: the
// form Read gives (HeldBytes), or the compact one.
func (d *Dataset) Bytes() int64 {
	if d.rows == nil {
		return HeldBytes(d.Len(), len(d.Index))
	}
	b := 8*int64(d.Len()) + d.rows.bytes()
	if !d.plainLines {
		b += 8 * int64(len(d.lines))
	}
	return b
}

// NonZeros returns the number of non-zero features of d's rows.
func (d *Dataset) NonZeros() int {
	if d.rows == nil {
		return len(d.Index)
	}
	n := 0
	for i := range d.Len() {
		n += d.rows.nnz(i)
	}
	return n
}

// denseRows holds every feature of every row: zeros are absent features.
type denseRows struct {
	dim  int
	val  []float32
	full []uint64 // bit i%64 of full[i/64]: row i has every feature
	iota []int32  // 0, 1, …, dim−1: the indices of a full row
}

func newDenseRows(d *Dataset) *denseRows {
	r := &denseRows{dim: d.Dim, val: make([]float32, d.Len()*d.Dim), full: make([]uint64, (d.Len()+63)/64), iota: make([]int32, d.Dim)}
	for j := range r.iota {
		r.iota[j] = int32(j)
	}
	for i := range d.Len() {
		idx, val := d.Row(i)
		row := r.val[i*d.Dim:]
		for k, j := range idx {
			row[j] = val[k]
		}
		if len(idx) == d.Dim {
			r.full[i/64] |= 1 << (i % 64)
		}
	}
	return r
}

// rowTo returns a full row as it is stored (codrna's rows, nearly all):
// its values and the shared indices 0, 1, …, no copy. Another row is
// decoded into buf: every feature written and the non-zero ones kept, no
// branch per feature.
func (r *denseRows) rowTo(i int, buf *RowBuffer) ([]int32, []float32) {
	row := r.val[i*r.dim : (i+1)*r.dim : (i+1)*r.dim]
	if r.full[i/64]&(1<<(i%64)) != 0 {
		return r.iota, row
	}
	idx, val := slices.Grow(buf.idx[:0], len(row))[:len(row)], slices.Grow(buf.val[:0], len(row))[:len(row)]
	n := 0
	for j, v := range row {
		idx[n], val[n] = int32(j), v
		if v != 0 {
			n++
		}
	}
	buf.idx, buf.val = idx, val
	return idx[:n], val[:n]
}

func (r *denseRows) nnz(i int) int {
	n := 0
	for _, v := range r.val[i*r.dim : (i+1)*r.dim] {
		if v != 0 {
			n++
		}
	}
	return n
}

func (r *denseRows) bytes() int64 { return 4*int64(len(r.val)+len(r.iota)) + 8*int64(len(r.full)) }

// prefetch asks for row values's values: dense rows have no bounds.
func (r *denseRows) prefetch(_, values int) {
	const perLine = 16 // float32 values in a 64-byte cache line
	for k := values * r.dim; k < (values+1)*r.dim; k += perLine {
		simd.Prefetch(r.val, k) // nothing out of range, values −1 included
	}
}

// sparseRows holds each row's non-zeros with indices of type I; val is nil
// when every value is 1.
type sparseRows[I uint8 | uint16 | int32] struct {
	ptr []uint32 // len n+1; row i is idx[ptr[i]:ptr[i+1]]
	idx []I
	val []float32
}

func newSparseRows[I uint8 | uint16 | int32](d *Dataset, ones bool) *sparseRows[I] {
	r := &sparseRows[I]{ptr: make([]uint32, d.Len()+1), idx: make([]I, len(d.Index))}
	for k, j := range d.Index {
		r.idx[k] = I(j)
	}
	for i, p := range d.RowPtr {
		r.ptr[i] = uint32(p)
	}
	if !ones {
		r.val = append([]float32(nil), d.Value...)
	}
	return r
}

func (r *sparseRows[I]) rowTo(i int, buf *RowBuffer) ([]int32, []float32) {
	a, b := r.ptr[i], r.ptr[i+1]
	m := int(b - a)
	idx := slices.Grow(buf.idx[:0], m)[:m]
	for k, j := range r.idx[a:b] {
		idx[k] = int32(j)
	}
	buf.idx = idx
	if r.val != nil {
		return idx, r.val[a:b:b]
	}
	val := slices.Grow(buf.val[:0], m)[:m]
	for k := range val {
		val[k] = 1
	}
	buf.val = val
	return idx, val
}

func (r *sparseRows[I]) nnz(i int) int { return int(r.ptr[i+1] - r.ptr[i]) }

func (r *sparseRows[I]) bytes() int64 {
	var zero I
	size := int64(1)
	switch any(zero).(type) {
	case uint16:
		size = 2
	case int32:
		size = 4
	}
	return 4*int64(len(r.ptr)) + size*int64(len(r.idx)) + 4*int64(len(r.val))
}

func (r *sparseRows[I]) prefetch(bounds, values int) {
	simd.Prefetch(r.ptr, bounds)
	if uint(values) >= uint(len(r.ptr)-1) {
		return
	}
	a := int(r.ptr[values])
	simd.Prefetch(r.idx, a)
	if r.val != nil {
		simd.Prefetch(r.val, a)
	}
}
