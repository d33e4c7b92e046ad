package engine

import (
	"fmt"
	"sync"

	"github.com/bogd-project/bogd/layout"
)

// Model is an immutable snapshot of a support set with one combined weight
// per vector: f(x) = Σᵢ wᵢ·κ(x, sᵢ). It is safe for concurrent use by any
// number of goroutines; each call borrows scratch from a pool, so scoring
// allocates nothing in steady state.
type Model struct {
	view
	n       int
	tiles   []float32
	norms   []float32
	weights []float32 // padded, zero past n
	scratch sync.Pool // of *modelScratch
}

type modelScratch struct {
	buf, dense []float32
}

// Snapshot freezes the set into a Model whose weight for vector i is
// Σ_c scales[c]·w_c[i], computed in float64: learners that keep global scale
// factors per weight column fold them in here. Missing scales count as 1.
func (s *Set) Snapshot(scales ...float64) (*Model, error) {
	if len(scales) > len(s.weights) {
		return nil, fmt.Errorf("engine: snapshot: %d scales for %d columns", len(scales), len(s.weights))
	}
	padded := s.m.Padded()
	w := make([]float32, padded)
	for i := range s.m.Len() {
		var sum float64
		for c, col := range s.weights {
			scale := 1.0
			if c < len(scales) {
				scale = scales[c]
			}
			sum += scale * float64(col[i])
		}
		w[i] = float32(sum)
	}
	return &Model{
		view:    s.view,
		n:       s.m.Len(),
		tiles:   append([]float32(nil), s.m.Tiles()...),
		norms:   append([]float32(nil), s.m.Norms()...),
		weights: w,
	}, nil
}

// NewModel builds a Model from explicit support vectors (dense, each of
// length dim) and weights, as a model loader does.
func NewModel(dim int, sigma float64, vectors []Vector, weights []float64) (*Model, error) {
	if len(vectors) != len(weights) {
		return nil, fmt.Errorf("engine: %d vectors and %d weights", len(vectors), len(weights))
	}
	s, err := New(dim, sigma, Options{Capacity: len(vectors)})
	if err != nil {
		return nil, err
	}
	for i, x := range vectors {
		if _, err := s.Add(x, float32(weights[i])); err != nil {
			return nil, fmt.Errorf("engine: support vector %d: %w", i, err)
		}
	}
	return s.Snapshot()
}

// Len returns the number of support vectors.
func (m *Model) Len() int { return m.n }

// Dim returns the dimension of the vectors.
func (m *Model) Dim() int { return m.dim }

// Sigma returns the kernel width.
func (m *Model) Sigma() float64 { return m.sigma }

// Weight returns the weight of support vector i.
func (m *Model) Weight(i int) float32 { return m.weights[:m.n][i] }

// Vector copies support vector i into dst (resized to Dim) and returns it.
func (m *Model) Vector(i int, dst []float32) []float32 {
	if i < 0 || i >= m.n {
		panic(fmt.Sprintf("engine: support vector %d out of range [0,%d)", i, m.n))
	}
	if cap(dst) < m.dim {
		dst = make([]float32, m.dim)
	}
	dst = dst[:m.dim]
	off := (i/layout.Lanes)*m.dim*layout.Lanes + i%layout.Lanes
	for j := range dst {
		dst[j] = m.tiles[off+j*layout.Lanes]
	}
	return dst
}

// Tiles and Norms expose the frozen storage to the distance kernels.
func (m *Model) Tiles() []float32 { return m.tiles }

// Norms returns the squared norms of the frozen slots.
func (m *Model) Norms() []float32 { return m.norms }

// Score returns f(x).
func (m *Model) Score(x Vector) (float64, error) {
	if err := x.Validate(m.dim); err != nil {
		return 0, fmt.Errorf("engine: score: %w", err)
	}
	sc := m.borrow()
	defer m.scratch.Put(sc)
	return m.score(x, sc), nil
}

// ScoreBatch writes f(xs[k]) into out[k] (len(out) ≥ len(xs)).
func (m *Model) ScoreBatch(xs []Vector, out []float64) error {
	if len(out) < len(xs) {
		return fmt.Errorf("engine: %d outputs for %d queries", len(out), len(xs))
	}
	for k, x := range xs {
		if err := x.Validate(m.dim); err != nil {
			return fmt.Errorf("engine: score query %d: %w", k, err)
		}
	}
	sc := m.borrow()
	defer m.scratch.Put(sc)
	for k, x := range xs {
		out[k] = m.score(x, sc)
	}
	return nil
}

func (m *Model) score(x Vector, sc *modelScratch) float64 {
	buf := sc.buf[:len(m.weights)]
	sum, factor := m.view.evaluate(buf, x, m, sc.dense, m.weights, m.n)
	return factor * float64(sum)
}

func (m *Model) borrow() *modelScratch {
	if sc, ok := m.scratch.Get().(*modelScratch); ok {
		return sc
	}
	return &modelScratch{buf: make([]float32, len(m.weights)), dense: make([]float32, m.dim)}
}
