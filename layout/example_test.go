package layout_test

import (
	"fmt"

	"github.com/bogd-project/bogd/layout"
)

// A Matrix keeps its slots dense: removing a vector moves the last one
// into its place, and SwapRemove says which one moved so that a caller can
// move its own per-vector data alike.
func ExampleMatrix() {
	m, _ := layout.New(3, 16)
	m.Append([]float32{1, 2, 3})
	m.AppendSparse([]int32{2}, []float32{5}) // feature 2 (0-based) = 5
	m.Append([]float32{0, 1, 0})

	moved := m.SwapRemove(0)
	fmt.Println("moved", moved, "→ 0:", m.Row(0, nil), "norm", m.Norm(0))
	fmt.Println(m.Len(), "vectors in", m.Padded(), "slots")
	// Output:
	// moved 2 → 0: [0 1 0] norm 1
	// 2 vectors in 16 slots
}

// A Sparse store holds only non-zeros, and finds the vectors that share a
// feature through its postings.
func ExampleSparse() {
	s, _ := layout.NewSparse(4_000_000, 16)
	s.Append([]int32{3, 3_999_999}, []float32{1, 2})
	s.Append([]int32{3}, []float32{5})
	s.Append([]int32{8}, []float32{1})

	for _, p := range s.Postings(3) {
		fmt.Println("feature 3 of vector", p.Slot, "is", p.Value)
	}
	s.SwapRemove(0)
	idx, val := s.Row(0)
	fmt.Println("vector 0 is now", idx, val, "with norm", s.Norm(0))
	// Output:
	// feature 3 of vector 0 is 1
	// feature 3 of vector 1 is 5
	// vector 0 is now [8] [1] with norm 1
}
