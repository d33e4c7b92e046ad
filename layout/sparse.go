package layout

import "fmt"

// Sparse holds vectors by their non-zero features, for dimensions at which
// a Matrix, which stores every feature of every slot, does not fit: hashed
// text has millions of features and a few tens set per vector.
//
// Each slot keeps its (index, value) pairs in increasing index order, and
// each feature keeps its postings, the slots that have it, so that a sparse
// query reaches the vectors sharing its features without visiting the
// others. Append, Replace and SwapRemove cost O(nnz) of the vectors they
// touch, whatever the dimension: every entry knows where its posting is,
// and every posting knows its entry. Slots are numbered as in a Matrix
// (swap-remove keeps them dense) and the capacity grows by whole tiles, so
// that per-slot data of callers (weights, kernel values) keeps the shape it
// has with a Matrix.
type Sparse struct {
	dim      int
	n        int
	rows     []entries       // one per slot; len is the capacity, slots ≥ n are empty
	norms    []float64       // squared norm per slot, zero past n
	lists    map[int32]int32 // feature → its posting list in postings
	postings [][]Posting
	spare    []int32 // posting lists that no feature uses, kept for reuse
}

// entries are one stored vector: its non-zero features, and for each the
// posting list and the position in it that refer back to it.
type entries struct {
	idx  []int32
	val  []float32
	list []int32 // list[k]: the posting list of feature idx[k]
	at   []int32 // at[k]: the position of this slot's posting in that list
}

// Posting is one stored vector's value of one feature.
type Posting struct {
	Slot  int32   // the vector
	Value float32 // its value of the feature
	k     int32   // the feature's position among the vector's entries
}

// NewSparse returns an empty sparse store for vectors of dimension dim
// with room for capacity vectors before it has to grow. Feature indices
// are int32, so dim is at most 2³¹.
func NewSparse(dim, capacity int) (*Sparse, error) {
	if dim <= 0 || dim > 1<<31 {
		return nil, fmt.Errorf("layout: sparse dimension must be in [1, 2^31], got %d", dim)
	}
	if capacity < 0 {
		return nil, fmt.Errorf("layout: capacity must not be negative, got %d", capacity)
	}
	slots := TilesFor(capacity) * Lanes
	return &Sparse{
		dim:   dim,
		rows:  make([]entries, slots),
		norms: make([]float64, slots),
		lists: make(map[int32]int32),
	}, nil
}

// Len returns the number of stored vectors.
func (s *Sparse) Len() int { return s.n }

// Dim returns the dimension of the stored vectors.
func (s *Sparse) Dim() int { return s.dim }

// Cap returns the number of vectors the store holds before it grows: a
// whole number of tiles, as a Matrix's.
func (s *Sparse) Cap() int { return len(s.rows) }

// Padded returns Len rounded up to whole tiles, the length of Norms.
func (s *Sparse) Padded() int { return TilesFor(s.n) * Lanes }

// Row returns the non-zero features of vector i: indices in increasing
// order and their values. The slices alias the store: read them, never
// write them, and not after the next change.
func (s *Sparse) Row(i int) (idx []int32, val []float32) {
	s.check(i)
	r := &s.rows[i]
	return r.idx, r.val
}

// Norm returns the squared norm of vector i (see Norms).
func (s *Sparse) Norm(i int) float64 {
	s.check(i)
	return s.norms[i]
}

// Norms returns the squared norm of every slot in use, padding included
// (zero). Each is computed in float64 from the float32 values with
// compensated summation: the squares are exact in float64 and the sum errs
// by at most 3·2⁻⁵³ of itself however many features the vector has, which
// lets a caller bound the error of the norm expansion without knowing them.
func (s *Sparse) Norms() []float64 { return s.norms[:s.Padded()] }

// Postings returns the stored vectors whose feature j is non-zero, in no
// particular order. The slice aliases the store, as Row's.
func (s *Sparse) Postings(j int32) []Posting {
	if l, ok := s.lists[j]; ok {
		return s.postings[l]
	}
	return nil
}

// Append stores the vector whose non-zero features are val at the 0-based
// indices idx (strictly increasing, each < Dim) and returns its index.
// Zero values are stored as given: callers that want only non-zeros pass
// only non-zeros.
func (s *Sparse) Append(idx []int32, val []float32) int {
	s.checkVector(idx, val)
	if s.n == len(s.rows) {
		s.grow()
	}
	s.n++
	s.store(s.n-1, idx, val)
	return s.n - 1
}

// Replace overwrites vector i with the vector given as in Append; the
// other vectors keep their slots.
func (s *Sparse) Replace(i int, idx []int32, val []float32) {
	s.check(i)
	s.checkVector(idx, val)
	s.unlink(i)
	s.store(i, idx, val)
}

// SwapRemove deletes vector i by moving the last vector into its slot, as
// Matrix.SwapRemove does, and returns the former index of the vector that
// moved, or -1 when i was the last one.
func (s *Sparse) SwapRemove(i int) (moved int) {
	s.check(i)
	last := s.n - 1
	s.unlink(i)
	moved = -1
	if i != last {
		r := s.rows[last]
		for k, l := range r.list {
			s.postings[l][r.at[k]].Slot = int32(i)
		}
		// The removed vector's buffers go to the freed slot for reuse.
		s.rows[i], s.rows[last] = r, s.rows[i]
		s.norms[i] = s.norms[last]
		moved = last
	}
	s.rows[last].truncate()
	s.norms[last] = 0
	s.n = last
	return moved
}

// Reset removes every vector, keeping the allocations.
func (s *Sparse) Reset() {
	for i := range s.n {
		s.rows[i].truncate()
	}
	clear(s.norms[:s.Padded()])
	for _, l := range s.lists {
		s.postings[l] = s.postings[l][:0]
		s.spare = append(s.spare, l)
	}
	clear(s.lists)
	s.n = 0
}

// Clone returns a copy of s with room for exactly Padded vectors, its
// entries and postings packed into a few allocations: a snapshot that
// will not change.
func (s *Sparse) Clone() *Sparse {
	slots := s.Padded()
	c := &Sparse{
		dim:      s.dim,
		n:        s.n,
		rows:     make([]entries, slots),
		norms:    append([]float64(nil), s.norms[:slots]...),
		lists:    make(map[int32]int32, len(s.lists)),
		postings: make([][]Posting, 0, len(s.lists)),
	}
	nnz := 0
	for _, r := range s.rows[:s.n] {
		nnz += len(r.idx)
	}
	// Posting lists are renumbered densely; entries follow the renumbering.
	renumber := make([]int32, len(s.postings))
	posts := make([]Posting, 0, nnz)
	for j, l := range s.lists {
		from := len(posts)
		posts = append(posts, s.postings[l]...)
		renumber[l] = int32(len(c.postings))
		c.lists[j] = renumber[l]
		c.postings = append(c.postings, posts[from:len(posts):len(posts)])
	}
	idx, val := make([]int32, 0, nnz), make([]float32, 0, nnz)
	list, at := make([]int32, 0, nnz), make([]int32, 0, nnz)
	for i, r := range s.rows[:s.n] {
		from := len(idx)
		idx, val, at = append(idx, r.idx...), append(val, r.val...), append(at, r.at...)
		for _, l := range r.list {
			list = append(list, renumber[l])
		}
		to := len(idx)
		c.rows[i] = entries{idx: idx[from:to:to], val: val[from:to:to], list: list[from:to:to], at: at[from:to:to]}
	}
	return c
}

// store writes the vector (idx, val) into the empty slot i and links it
// into the postings of its features.
func (s *Sparse) store(i int, idx []int32, val []float32) {
	r := &s.rows[i]
	r.idx = append(r.idx[:0], idx...)
	r.val = append(r.val[:0], val...)
	r.list = resize32(r.list, len(idx))
	r.at = resize32(r.at, len(idx))
	for k, j := range idx {
		l, ok := s.lists[j]
		if !ok {
			l = s.newList()
			s.lists[j] = l
		}
		r.list[k] = l
		r.at[k] = int32(len(s.postings[l]))
		s.postings[l] = append(s.postings[l], Posting{Slot: int32(i), Value: val[k], k: int32(k)})
	}
	s.norms[i] = sqNorm(val)
}

// unlink removes vector i's postings, each by moving the last posting of
// its list into its place and telling that posting's entry where it went.
// A list left empty is forgotten by its feature and kept for reuse.
func (s *Sparse) unlink(i int) {
	r := &s.rows[i]
	for k, l := range r.list {
		list := s.postings[l]
		last := len(list) - 1
		if pos := r.at[k]; int(pos) != last {
			p := list[last]
			list[pos] = p
			s.rows[p.Slot].at[p.k] = pos
		}
		s.postings[l] = list[:last]
		if last == 0 {
			delete(s.lists, r.idx[k])
			s.spare = append(s.spare, l)
		}
	}
	r.truncate()
}

// newList returns an empty posting list, a spare one if there is one.
func (s *Sparse) newList() int32 {
	if n := len(s.spare); n > 0 {
		l := s.spare[n-1]
		s.spare = s.spare[:n-1]
		return l
	}
	s.postings = append(s.postings, nil)
	return int32(len(s.postings) - 1)
}

// grow doubles the number of tiles of slots.
func (s *Sparse) grow() {
	slots := max(2*TilesFor(s.n), 1) * Lanes
	rows := make([]entries, slots)
	copy(rows, s.rows)
	norms := make([]float64, slots)
	copy(norms, s.norms)
	s.rows, s.norms = rows, norms
}

func (r *entries) truncate() {
	r.idx, r.val, r.list, r.at = r.idx[:0], r.val[:0], r.list[:0], r.at[:0]
}

func (s *Sparse) check(i int) {
	if i < 0 || i >= s.n {
		panic(fmt.Sprintf("layout: vector %d out of range [0,%d)", i, s.n))
	}
}

// checkVector panics unless (idx, val) is a vector of the store's
// dimension with strictly increasing indices.
func (s *Sparse) checkVector(idx []int32, val []float32) {
	if len(idx) != len(val) {
		panic(fmt.Sprintf("layout: %d indices for %d values", len(idx), len(val)))
	}
	prev := int64(-1)
	for _, j := range idx {
		if int64(j) <= prev || int(j) >= s.dim {
			panic(fmt.Sprintf("layout: feature %d after %d, out of order or out of range [0,%d)", j, prev, s.dim))
		}
		prev = int64(j)
	}
}

// sqNorm returns Σ v² in float64 by Neumaier's compensated summation: each
// square of a float32 is exact in float64, and for these non-negative
// terms the result errs by at most 2·2⁻⁵³ of the sum plus n·2⁻¹⁰⁶ of it, so
// 3·2⁻⁵³ for any n below 2⁵².
func sqNorm(val []float32) float64 {
	var sum, comp float64
	for _, v := range val {
		sq := float64(v) * float64(v)
		t := sum + sq
		if sum >= sq {
			comp += (sum - t) + sq
		} else {
			comp += (sq - t) + sum
		}
		sum = t
	}
	return sum + comp
}

func resize32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}
