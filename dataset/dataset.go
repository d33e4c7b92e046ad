package dataset

import (
	"github.com/bogd-project/bogd/task"

	"slices"
	"strconv"

	"github.com/bogd-project/bogd/simd"
)

// Dataset holds n labelled examples in compressed sparse row form with
// 0-based feature indices.
type Dataset struct {
	Name string    // base name of the file, or the name given to Read
	Dim  int       // number of features: Options.Dim if set, else 2^HashBits when hashing, else the largest 1-based index seen
	Task task.Task // what the labels are for, as resolved by Read or Resolve (never Auto then)
	// Labels holds one label per row: −1 or +1 (Binary), one of Classes
	// (Multiclass) or a finite real target (Regression).
	Labels  []float64
	Classes []int     // Multiclass: the distinct labels, ascending; nil otherwise
	RowPtr  []int     // len n+1; row i is Index[RowPtr[i]:RowPtr[i+1]]
	Index   []int32   // 0-based feature indices, strictly increasing within a row
	Value   []float32 // finite, non-zero values parallel to Index
	// Unlabelled reports rows read without labels (Options.Unlabelled):
	// every label is NaN.
	Unlabelled bool

	lines   []int // the line of each row in its file, for errors found after reading (nil: unknown)
	zeroOne bool  // the file's labels were 0/1, mapped to −1/+1 (Resolve starts again from 0/1)

	rows       rowStore // the rows of a compact data set (Compact), which has no RowPtr, Index and Value
	plainLines bool     // row i is on line i+1 (Compact drops such lines)
}

// Len returns the number of rows (examples).
func (d *Dataset) Len() int { return len(d.Labels) }

// line returns the line of row i in its file, 0 when unknown.
func (d *Dataset) line(i int) int {
	switch {
	case d.plainLines:
		return i + 1
	case d.lines == nil:
		return 0
	}
	return d.lines[i]
}

// Where names row i for a message about it: "file:line" as a ParseError
// names it when the row came from a file (a subset keeps its rows'
// lines), else "name row i+1".
func (d *Dataset) Where(i int) string {
	if line := d.line(i); line > 0 {
		return d.Name + ":" + strconv.Itoa(line)
	}
	return d.Name + " row " + strconv.Itoa(i+1)
}

// Row returns the feature indices and values of row i as views into the
// dataset (no copy); the caller must not modify them. A compact data set
// (Compact) has no such views: it panics; RowTo reads any data set.
func (d *Dataset) Row(i int) (idx []int32, val []float32) {
	if d.rows != nil {
		panic("dataset: Row of a compact data set (use RowTo)")
	}
	a, b := d.RowPtr[i], d.RowPtr[i+1]
	return d.Index[a:b:b], d.Value[a:b:b]
}

// RowBuffer is the memory RowTo decodes rows into, reused row after row.
// The zero value is ready to use.
type RowBuffer struct {
	idx []int32
	val []float32
}

// RowTo returns the feature indices and values of row i, for reading only:
// views into the data set where it holds the row in that form (Row's,
// and a compact data set's rows stored as they are read), else the row
// decoded into buf, grown as needed. They are valid until the next RowTo
// on buf. Reusing one buffer row after row, it reads any data set
// without allocating.
func (d *Dataset) RowTo(i int, buf *RowBuffer) ([]int32, []float32) {
	if d.rows == nil {
		return d.Row(i)
	}
	return d.rows.rowTo(i, buf)
}

// Prefetch asks the processor to start loading row bounds's label and the
// offsets of its non-zeros, and row values's non-zeros (indices and values,
// every cache line of them, found through its offsets), and returns
// without waiting for them; a row out of range asks for nothing. A pass
// over rows in a random order over data larger than the cache would
// otherwise wait on memory at every row: some rows before it reads a row
// it asks for the row's bounds, and a few rows later, when the offsets are
// in the cache, for its values, one call a step.
func (d *Dataset) Prefetch(bounds, values int) {
	simd.Prefetch(d.Labels, bounds)
	if d.rows != nil {
		d.rows.prefetch(bounds, values)
		return
	}
	simd.Prefetch(d.RowPtr, bounds)
	if uint(values) >= uint(d.Len()) {
		return
	}
	const perLine = 16 // 4-byte indices and values in a 64-byte cache line
	a, b := d.RowPtr[values], d.RowPtr[values+1]
	for k := a; k < b; k += perLine {
		simd.Prefetch(d.Index, k)
		simd.Prefetch(d.Value, k)
	}
	if b > a { // the last element's line, when the row straddles one more
		simd.Prefetch(d.Index, b-1)
		simd.Prefetch(d.Value, b-1)
	}
}

// Dense writes row i as a dense vector of length Dim into dst, which is
// resized (reallocated only if its capacity is too small), zero-filled and
// then scattered into. It returns the resized slice.
func (d *Dataset) Dense(i int, dst []float32) []float32 {
	if cap(dst) >= d.Dim {
		dst = dst[:d.Dim]
		clear(dst)
	} else {
		dst = make([]float32, d.Dim)
	}
	idx, val := d.RowTo(i, new(RowBuffer))
	for k, j := range idx {
		dst[j] = val[k]
	}
	return dst
}

// Subset returns a new dataset made of the given rows in the given order
// (rows may repeat); it is how a permutation from ReadOrders is applied.
// Name, Dim, Task and Classes are kept. The result shares no memory with d.
// It panics if a row is out of range, like a slice index.
func (d *Dataset) Subset(rows []int) *Dataset {
	nnz := 0
	for _, r := range rows {
		if d.rows != nil {
			nnz += d.rows.nnz(r)
		} else {
			nnz += d.RowPtr[r+1] - d.RowPtr[r]
		}
	}
	s := &Dataset{
		Name:    d.Name,
		Dim:     d.Dim,
		Task:    d.Task,
		Labels:  make([]float64, len(rows)),
		Classes: slices.Clone(d.Classes),
		RowPtr:  make([]int, len(rows)+1),
		Index:   make([]int32, 0, nnz),
		Value:   make([]float32, 0, nnz),
		zeroOne: d.zeroOne,
	}
	if d.lines != nil || d.plainLines {
		s.lines = make([]int, len(rows))
	}
	var buf RowBuffer
	for k, r := range rows {
		s.Labels[k] = d.Labels[r]
		if s.lines != nil {
			s.lines[k] = d.line(r)
		}
		idx, val := d.RowTo(r, &buf)
		s.Index = append(s.Index, idx...)
		s.Value = append(s.Value, val...)
		s.RowPtr[k+1] = len(s.Index)
	}
	return s
}
