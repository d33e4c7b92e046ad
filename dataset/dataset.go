package dataset

// Dataset holds n labelled examples in compressed sparse row form with
// 0-based feature indices.
type Dataset struct {
	Name   string    // base name of the file, or the name given to Read
	Dim    int       // number of features: Options.Dim if set, else the largest 1-based index seen
	Labels []int8    // -1 or +1, one per row
	RowPtr []int     // len n+1; row i is Index[RowPtr[i]:RowPtr[i+1]]
	Index  []int32   // 0-based feature indices, strictly increasing within a row
	Value  []float32 // finite, non-zero values parallel to Index
}

// Len returns the number of rows (examples).
func (d *Dataset) Len() int { return len(d.Labels) }

// Row returns the feature indices and values of row i as views into the
// dataset (no copy); the caller must not modify them.
func (d *Dataset) Row(i int) (idx []int32, val []float32) {
	a, b := d.RowPtr[i], d.RowPtr[i+1]
	return d.Index[a:b:b], d.Value[a:b:b]
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
	idx, val := d.Row(i)
	for k, j := range idx {
		dst[j] = val[k]
	}
	return dst
}

// Subset returns a new dataset made of the given rows in the given order
// (rows may repeat); it is how a permutation from ReadOrders is applied.
// Name and Dim are kept. The result shares no memory with d.
// It panics if a row is out of range, like a slice index.
func (d *Dataset) Subset(rows []int) *Dataset {
	nnz := 0
	for _, r := range rows {
		nnz += d.RowPtr[r+1] - d.RowPtr[r]
	}
	s := &Dataset{
		Name:   d.Name,
		Dim:    d.Dim,
		Labels: make([]int8, len(rows)),
		RowPtr: make([]int, len(rows)+1),
		Index:  make([]int32, 0, nnz),
		Value:  make([]float32, 0, nnz),
	}
	for k, r := range rows {
		s.Labels[k] = d.Labels[r]
		idx, val := d.Row(r)
		s.Index = append(s.Index, idx...)
		s.Value = append(s.Value, val...)
		s.RowPtr[k+1] = len(s.Index)
	}
	return s
}
