package layout

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sparseOf returns the non-zero features of v.
func sparseOf(v []float32) (idx []int32, val []float32) {
	for j, x := range v {
		if x != 0 {
			idx, val = append(idx, int32(j)), append(val, x)
		}
	}
	return idx, val
}

// checkSparse compares the store with the model: entries, norms, padding,
// and the postings, which must hold exactly one posting per stored entry,
// pointing back at it.
func checkSparse(t *testing.T, s *Sparse, want *model) {
	t.Helper()
	if s.Len() != len(want.rows) {
		t.Fatalf("Len %d, want %d", s.Len(), len(want.rows))
	}
	entries := 0
	for i, w := range want.rows {
		idx, val := s.Row(i)
		wi, wv := sparseOf(w)
		if !slices.Equal(idx, wi) || !slices.Equal(val, wv) {
			t.Fatalf("vector %d: %v %v, want %v %v", i, idx, val, wi, wv)
		}
		var norm float64 // a plain sum, within (n−1)·2⁻⁵³ of the exact one
		for _, v := range wv {
			norm += float64(v) * float64(v)
		}
		if math.Abs(s.Norm(i)-norm) > float64(len(wv)+3)*0x1p-53*norm {
			t.Fatalf("norm %d = %v, want %v", i, s.Norm(i), norm)
		}
		entries += len(idx)
	}
	// Each posting points at the entry of its slot that names its feature,
	// list and position, and each entry has exactly one.
	seen := map[[2]int32]bool{}
	for j, l := range s.lists {
		list := s.Postings(j)
		if len(list) == 0 {
			t.Fatalf("feature %d keeps an empty posting list", j)
		}
		for pos, p := range list {
			if int(p.Slot) >= s.Len() {
				t.Fatalf("feature %d has a posting of slot %d of %d", j, p.Slot, s.Len())
			}
			r := &s.rows[p.Slot]
			if r.idx[p.k] != j || r.val[p.k] != p.Value || r.list[p.k] != l || int(r.at[p.k]) != pos {
				t.Fatalf("posting %+v of feature %d does not match its entry", p, j)
			}
			key := [2]int32{p.Slot, p.k}
			if seen[key] {
				t.Fatalf("entry %v has two postings", key)
			}
			seen[key] = true
		}
	}
	if len(seen) != entries {
		t.Fatalf("%d postings for %d entries", len(seen), entries)
	}
	if p := s.Postings(int32(s.dim)); p != nil {
		t.Fatalf("a feature no vector has has postings %v", p)
	}
	for i := s.Len(); i < s.Cap(); i++ {
		if len(s.rows[i].idx) != 0 || s.norms[i] != 0 {
			t.Fatalf("padding slot %d holds %v, norm %v", i, s.rows[i].idx, s.norms[i])
		}
	}
	if len(s.Norms()) != s.Padded() || s.Padded()%Lanes != 0 || s.Cap()%Lanes != 0 {
		t.Fatalf("norms %d, padded %d, cap %d", len(s.Norms()), s.Padded(), s.Cap())
	}
}

// TestSparseAgainstModel: random appends, replacements and swap-removals
// leave the store equal to the obvious model, and so do a Reset and a
// Clone (which must not share storage with the original).
func TestSparseAgainstModel(t *testing.T) {
	for _, dim := range []int{1, 3, 22, 300} {
		rng := rand.New(rand.NewPCG(uint64(dim), 2))
		s, err := NewSparse(dim, 5) // small capacity: growth is exercised
		if err != nil {
			t.Fatal(err)
		}
		want := &model{}
		for step := range 800 {
			switch r := rng.IntN(6); {
			case len(want.rows) > 0 && r < 2:
				i := rng.IntN(len(want.rows))
				last := len(want.rows) - 1
				moved := s.SwapRemove(i)
				if (i == last && moved != -1) || (i != last && moved != last) {
					t.Fatalf("SwapRemove(%d) of %d moved %d", i, last+1, moved)
				}
				want.swapRemove(i)
			case len(want.rows) > 0 && r == 2:
				i := rng.IntN(len(want.rows))
				v := randomVector(rng, dim)
				idx, val := sparseOf(v)
				s.Replace(i, idx, val)
				want.rows[i] = v
			default:
				v := randomVector(rng, dim)
				if got := s.Append(sparseOf(v)); got != len(want.rows) {
					t.Fatalf("Append returned %d, want %d", got, len(want.rows))
				}
				want.rows = append(want.rows, v)
			}
			if step%7 == 0 {
				checkSparse(t, s, want)
			}
		}
		checkSparse(t, s, want)
		c := s.Clone()
		checkSparse(t, c, want)
		if c.Cap() != s.Padded() {
			t.Fatalf("clone capacity %d, want %d", c.Cap(), s.Padded())
		}
		if len(want.rows) > 1 {
			c.SwapRemove(0)
			c.Append(sparseOf(randomVector(rng, dim)))
			checkSparse(t, s, want) // the original is untouched
		}
		s.Reset()
		checkSparse(t, s, &model{})
		s.Append(sparseOf(want.rows[0]))
		checkSparse(t, s, &model{rows: want.rows[:1]})
	}
}

// TestSparseSwapRemoveTouchesOnlyItsVectors: in dimension 2³¹ with 1000
// vectors, a swap-remove changes the entries and postings of the removed
// and the moved vector only (every other posting list keeps its contents
// and order, every other entry its storage), and a remove and append in
// steady state allocate nothing: its work is O(nnz) of the two vectors.
func TestSparseSwapRemoveTouchesOnlyItsVectors(t *testing.T) {
	const dim = 1 << 31
	rng := rand.New(rand.NewPCG(3, 4))
	s, err := NewSparse(dim, 1000)
	if err != nil {
		t.Fatal(err)
	}
	vector := func() ([]int32, []float32) { // 20 features, some shared by many vectors
		var idx []int32
		for len(idx) < 20 {
			j := int32(rng.IntN(dim))
			if len(idx)%4 == 0 {
				j = int32(rng.IntN(50))
			}
			if !slices.Contains(idx, j) {
				idx = append(idx, j)
			}
		}
		slices.Sort(idx)
		val := make([]float32, len(idx))
		for k := range val {
			val[k] = float32(1 + rng.IntN(5))
		}
		return idx, val
	}
	for range 1000 {
		s.Append(vector())
	}
	const removed = 123
	last := s.Len() - 1
	involved := map[int32]bool{}
	for _, i := range []int{removed, last} {
		idx, _ := s.Row(i)
		for _, j := range idx {
			involved[j] = true
		}
	}
	before := map[int32][]Posting{}
	for j, l := range s.lists {
		if !involved[j] {
			before[j] = slices.Clone(s.postings[l])
		}
	}
	other := &s.rows[500].idx[0]
	s.SwapRemove(removed)
	for j, list := range before {
		if !slices.Equal(s.Postings(j), list) {
			t.Fatalf("feature %d, shared with neither vector, had its postings changed", j)
		}
	}
	if &s.rows[500].idx[0] != other {
		t.Fatal("an uninvolved vector's entries moved")
	}
	// Fresh vectors, as a stream brings: appending one vector again and
	// again would grow its features' posting lists instead.
	type vec struct {
		idx []int32
		val []float32
	}
	fresh := make([]vec, 200)
	for k := range fresh {
		fresh[k].idx, fresh[k].val = vector()
	}
	next := 0
	if a := testing.AllocsPerRun(len(fresh)-1, func() {
		s.SwapRemove(rng.IntN(s.Len()))
		s.Append(fresh[next].idx, fresh[next].val)
		next++
	}); a != 0 {
		t.Fatalf("%v allocations per remove and append", a)
	}
}

func TestSparseErrors(t *testing.T) {
	for _, c := range []struct{ dim, capacity int }{{0, 1}, {1<<31 + 1, 1}, {3, -1}} {
		if _, err := NewSparse(c.dim, c.capacity); err == nil {
			t.Errorf("NewSparse(%d, %d) accepted", c.dim, c.capacity)
		}
	}
	s, _ := NewSparse(4, 0)
	for _, v := range []struct {
		idx []int32
		val []float32
	}{
		{[]int32{0, 4}, []float32{1, 1}},
		{[]int32{2, 2}, []float32{1, 1}},
		{[]int32{-1}, []float32{1}},
		{[]int32{1}, nil},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Append(%v, %v) did not panic", v.idx, v.val)
				}
			}()
			s.Append(v.idx, v.val)
		}()
	}
	if s.Len() != 0 || len(s.lists) != 0 {
		t.Fatal("a refused vector was stored")
	}
}

// TestSparseNormIsCompensated: a million squares of 0.1 and one of 1e4
// sum to within 3·2⁻⁵³ of their float64 value (computed exactly here with
// the sum of the small ones in one product), where a plain float64 sum
// drifts by far more.
func TestSparseNormIsCompensated(t *testing.T) {
	const n = 1 << 20
	val := make([]float32, n+1)
	for k := range val {
		val[k] = 0.1
	}
	val[0] = 1e4
	small := float64(float32(0.1)) * float64(float32(0.1))
	want := 1e8 + n*small // exact: n is a power of two
	got := sqNorm(val)
	if math.Abs(got-want) > 3*0x1p-53*want {
		t.Fatalf("norm %v, want %v (off by %.3g relative)", got, want, math.Abs(got-want)/want)
	}
	var plain float64
	for _, v := range val {
		plain += float64(v) * float64(v)
	}
	if math.Abs(plain-want) <= 3*0x1p-53*want {
		t.Fatal("the plain sum is as good: the test shows nothing")
	}
}

func BenchmarkSparseSwapRemoveAppend(b *testing.B) {
	for _, dim := range []int{300, 4_000_000, 1 << 31} {
		for _, budget := range []int{100, 1000} {
			b.Run(fmt.Sprintf("dim=%d/budget=%d/nnz=20", dim, budget), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				s, _ := NewSparse(dim, budget)
				rows := make([][]int32, 64)
				val := make([]float32, 20)
				for k := range val {
					val[k] = 1
				}
				for r := range rows {
					for len(rows[r]) < 20 {
						rows[r] = append(rows[r], int32(rng.IntN(dim)))
						slices.Sort(rows[r])
						rows[r] = slices.Compact(rows[r])
					}
				}
				for i := range budget {
					s.Append(rows[i%len(rows)], val)
				}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					s.SwapRemove(i % budget)
					s.Append(rows[i%len(rows)], val)
				}
			})
		}
	}
}
