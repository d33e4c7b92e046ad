package layout

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// model is the obvious representation the matrix must behave like.
type model struct{ rows [][]float32 }

func (m *model) swapRemove(i int) {
	last := len(m.rows) - 1
	m.rows[i] = m.rows[last]
	m.rows = m.rows[:last]
}

func randomVector(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for j := range v {
		if rng.IntN(3) > 0 { // leave some zeros
			v[j] = float32(rng.NormFloat64() * 100)
		}
	}
	return v
}

// check compares the matrix with the model, including the zero padding and
// the cached norms.
func check(t *testing.T, m *Matrix, want *model) {
	t.Helper()
	if m.Len() != len(want.rows) {
		t.Fatalf("Len %d, want %d", m.Len(), len(want.rows))
	}
	var row []float32
	for i, w := range want.rows {
		row = m.Row(i, row)
		var norm float64
		for j := range w {
			if row[j] != w[j] || m.At(i, j) != w[j] {
				t.Fatalf("vector %d feature %d = %v, want %v", i, j, row[j], w[j])
			}
			norm += float64(w[j]) * float64(w[j])
		}
		if m.Norm(i) != float32(norm) {
			t.Fatalf("norm %d = %v, want %v", i, m.Norm(i), float32(norm))
		}
	}
	// Every slot past Len, in the used tiles and beyond, must be zero.
	for i := m.Len(); i < m.Cap(); i++ {
		off := m.offset(i)
		for j := 0; j < m.dim; j++ {
			if v := m.data[off+j*Lanes]; v != 0 {
				t.Fatalf("padding slot %d feature %d = %v", i, j, v)
			}
		}
		if m.norms[i] != 0 {
			t.Fatalf("padding norm %d = %v", i, m.norms[i])
		}
	}
	if len(m.Tiles()) != m.Padded()*m.Dim() || len(m.Norms()) != m.Padded() || m.Padded()%Lanes != 0 {
		t.Fatalf("tiles %d, norms %d, padded %d", len(m.Tiles()), len(m.Norms()), m.Padded())
	}
}

func TestMatrixAgainstModel(t *testing.T) {
	for _, dim := range []int{1, 3, 8, 22, 57} {
		rng := rand.New(rand.NewPCG(uint64(dim), 1))
		m, err := New(dim, 5) // small capacity: growth is exercised
		if err != nil {
			t.Fatal(err)
		}
		want := &model{}
		for step := range 600 {
			switch {
			case len(want.rows) > 0 && rng.IntN(3) == 0:
				i := rng.IntN(len(want.rows))
				last := len(want.rows) - 1
				moved := m.SwapRemove(i)
				if (i == last && moved != -1) || (i != last && moved != last) {
					t.Fatalf("SwapRemove(%d) of %d moved %d", i, last+1, moved)
				}
				want.swapRemove(i)
			case rng.IntN(2) == 0:
				v := randomVector(rng, dim)
				if got, norm := m.Append(v); got != len(want.rows) || norm != sqSum(v) {
					t.Fatalf("Append returned %d and norm %v, want %d and %v", got, norm, len(want.rows), sqSum(v))
				}
				want.rows = append(want.rows, v)
			default:
				v := randomVector(rng, dim)
				var idx []int32
				var val []float32
				for j, x := range v {
					if x != 0 {
						idx = append(idx, int32(j))
						val = append(val, x)
					}
				}
				if got, norm := m.AppendSparse(idx, val); got != len(want.rows) || norm != sqSum(v) {
					t.Fatalf("AppendSparse returned %d and norm %v, want %d and %v", got, norm, len(want.rows), sqSum(v))
				}
				want.rows = append(want.rows, v)
			}
			if step%7 == 0 {
				check(t, m, want)
			}
		}
		check(t, m, want)
		c := m.Clone() // a copy of its own
		check(t, c, want)
		if c.Cap() != m.Padded() {
			t.Fatalf("clone capacity %d, want %d", c.Cap(), m.Padded())
		}
		if len(want.rows) > 0 {
			c.SwapRemove(0)
			check(t, m, want)
		}
		m.Reset()
		check(t, m, &model{})
	}
}

func TestMatrixTileLayout(t *testing.T) {
	m, _ := New(3, 0)
	for i := range 20 {
		m.Append([]float32{float32(i), float32(100 + i), float32(200 + i)})
	}
	tiles := m.Tiles()
	// Vector 17 is lane 1 of tile 1; feature 2 of it sits at (1·3+2)·16+1.
	if got := tiles[(1*3+2)*Lanes+1]; got != 217 {
		t.Fatalf("tile layout: got %v, want 217", got)
	}
	if m.Padded() != 32 || len(tiles) != 32*3 {
		t.Fatalf("padded %d, tiles %d", m.Padded(), len(tiles))
	}
}

func TestMatrixErrors(t *testing.T) {
	if _, err := New(0, 10); err == nil {
		t.Fatal("dimension 0 accepted")
	}
	if _, err := New(3, -1); err == nil {
		t.Fatal("negative capacity accepted")
	}
}

func TestSteadyStateDoesNotAllocate(t *testing.T) {
	m, _ := New(8, 100)
	v := make([]float32, 8)
	for range 100 {
		m.Append(v)
	}
	allocs := testing.AllocsPerRun(100, func() {
		m.SwapRemove(17)
		m.Append(v)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per remove+append", allocs)
	}
}

func BenchmarkSwapRemoveAppend(b *testing.B) {
	for _, dim := range []int{8, 22, 300} {
		b.Run(fmt.Sprintf("dim=%d", dim), func(b *testing.B) {
			m, _ := New(dim, 1000)
			v := make([]float32, dim)
			for range 1000 {
				m.Append(v)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				m.SwapRemove(i % 1000)
				m.Append(v)
			}
		})
	}
}

// sqSum is the squared norm Append returns: x's squares summed in float64,
// in order.
func sqSum(x []float32) float64 {
	var sum float64
	for _, v := range x {
		sum += float64(v) * float64(v)
	}
	return sum
}
