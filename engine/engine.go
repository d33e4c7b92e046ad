// Package engine evaluates Gaussian kernel expansions over a budget of
// support vectors: f(x) = Σᵢ wᵢ·κ(x, sᵢ) with κ(x,y) = exp(−‖x−y‖²/(2σ²)).
//
// A Set is the mutable support set a learner trains: vectors in a tiled
// layout.Matrix, one or more float32 weight columns kept aligned with it
// through swap-remove deletion, and scratch buffers so that scoring allocates
// nothing. A Model is an immutable snapshot of a Set, safe for concurrent
// prediction. The arithmetic runs in package simd on the implementation chosen
// for the CPU.
//
// Sparse queries (a few non-zeros out of many features) take a path that
// touches only their non-zero features, through the norm expansion
// ‖x−s‖² = ‖s‖² + ‖x‖² − 2·x·s. That expansion cancels catastrophically in
// float32 when norms are large next to distances, so it is used only when it
// is exact (integer data, as in binary features) or provably within 1e-6 of
// the direct computation in every kernel value; otherwise the query is
// densified and distances are computed directly.
package engine

import (
	"fmt"
	"math"

	"github.com/bogd-project/bogd/layout"
	"github.com/bogd-project/bogd/simd"
)

// Options configure a Set.
type Options struct {
	// Capacity is the number of vectors to allocate room for; the set grows
	// past it when needed. A budgeted learner passes its budget.
	Capacity int
	// Columns is the number of weight columns (default 1). Learners that keep
	// two groups of weights with separate scale factors use two.
	Columns int
}

// Set is a mutable support set: vectors, their weight columns and scratch.
// It is not safe for concurrent use; Snapshot gives a Model that is.
type Set struct {
	view
	m       *layout.Matrix
	weights [][]float32 // per column, one weight per slot of m's capacity
	buf     []float32   // distances, then kernel values, of the last query
	factor  float64     // true kernel values are factor·buf (see evaluate)
	dense   []float32   // scratch to densify sparse queries
}

// view is what scoring needs: the stored tiles and norms, and the facts about
// the stored values that decide whether the sparse path is exact.
type view struct {
	dim      int
	sigma    float64
	scale    float32 // −1/(2σ²)
	maxNorm  float64 // upper bound of the stored squared norms
	integral bool    // every stored value is an integer
}

// New returns an empty set for vectors of dimension dim and the Gaussian
// kernel of width sigma.
func New(dim int, sigma float64, opt Options) (*Set, error) {
	if err := simd.EnvError(); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if !(sigma >= 1e-15 && sigma <= 1e15) {
		// −1/(2σ²) must be a finite, non-zero float32.
		return nil, fmt.Errorf("engine: kernel width sigma must be in [1e-15, 1e15], got %v", sigma)
	}
	if opt.Columns == 0 {
		opt.Columns = 1
	}
	if opt.Columns < 0 {
		return nil, fmt.Errorf("engine: %d weight columns", opt.Columns)
	}
	m, err := layout.New(dim, opt.Capacity)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	s := &Set{
		view:    view{dim: dim, sigma: sigma, scale: float32(-1 / (2 * sigma * sigma)), integral: true},
		m:       m,
		weights: make([][]float32, opt.Columns),
		dense:   make([]float32, dim),
		factor:  1,
	}
	s.fit()
	return s, nil
}

// fit sizes the per-slot arrays to the matrix capacity.
func (s *Set) fit() {
	n := s.m.Cap()
	if len(s.buf) == n {
		return
	}
	for c, w := range s.weights {
		s.weights[c] = append(w, make([]float32, n-len(w))...)
	}
	s.buf = make([]float32, n)
}

// Len returns the number of support vectors.
func (s *Set) Len() int { return s.m.Len() }

// Dim returns the dimension of the vectors.
func (s *Set) Dim() int { return s.dim }

// Sigma returns the kernel width.
func (s *Set) Sigma() float64 { return s.sigma }

// Columns returns the number of weight columns.
func (s *Set) Columns() int { return len(s.weights) }

// Add stores x with the given weights, one per column (missing ones are
// zero), and returns its index.
func (s *Set) Add(x Vector, w ...float32) (int, error) {
	if err := x.Validate(s.dim); err != nil {
		return 0, fmt.Errorf("engine: add: %w", err)
	}
	if len(w) > len(s.weights) {
		return 0, fmt.Errorf("engine: add: %d weights for %d columns", len(w), len(s.weights))
	}
	var i int
	if x.IsSparse() {
		i = s.m.AppendSparse(x.Index, x.Value)
	} else {
		i = s.m.Append(x.Dense)
	}
	s.fit()
	for c := range s.weights {
		s.weights[c][i] = 0
	}
	for c, v := range w {
		s.weights[c][i] = v
	}
	norm, integral := x.sqNorm()
	s.maxNorm = max(s.maxNorm, norm)
	s.integral = s.integral && integral
	return i, nil
}

// Remove deletes vector i by moving the last vector into its slot, along with
// its weights. It returns the former index of the moved vector, or -1 when i
// was the last one, so callers can apply the same swap to their own
// per-vector data.
func (s *Set) Remove(i int) (moved int) {
	last := s.m.Len() - 1
	moved = s.m.SwapRemove(i)
	for _, w := range s.weights {
		w[i] = w[last]
		w[last] = 0
	}
	if s.m.Len() == 0 {
		s.maxNorm, s.integral = 0, true
	}
	return moved
}

// Reset removes every vector.
func (s *Set) Reset() {
	for _, w := range s.weights {
		clear(w[:s.m.Padded()])
	}
	s.m.Reset()
	s.maxNorm, s.integral = 0, true
}

// Weights returns weight column c, one entry per stored vector. The slice
// aliases the set: writing it changes the weights (slots past Len must stay
// zero, which writing only the first Len entries guarantees).
func (s *Set) Weights(c int) []float32 { return s.weights[c][:s.m.Len()] }

// Vector copies support vector i into dst (resized to Dim) and returns it.
func (s *Set) Vector(i int, dst []float32) []float32 { return s.m.Row(i, dst) }

// Score computes the kernel value of x with every support vector and returns
// Σᵢ wᵢ·κ(x, sᵢ) over weight column 0. The kernel values stay available
// through Kernels and Sum until the next call.
func (s *Set) Score(x Vector) (float64, error) {
	if err := x.Validate(s.dim); err != nil {
		return 0, fmt.Errorf("engine: score: %w", err)
	}
	var sum float32
	sum, s.factor = s.view.evaluate(s.buf[:s.m.Padded()], x, s.m, s.dense, s.weights[0], s.m.Len())
	return s.factor * float64(sum), nil
}

// Kernels returns the kernel values of the x of the last Score, one per
// vector, divided by KernelFactor. The slice aliases scratch that the next
// Score overwrites, and is stale once vectors are added or removed.
func (s *Set) Kernels() []float32 { return s.buf[:s.m.Len()] }

// KernelFactor is the factor that turns Kernels into κ(x, sᵢ). It is 1
// unless every kernel value of the last Score was below float32's range:
// then the values are kept relative to the largest one (see evaluate).
func (s *Set) KernelFactor() float64 { return s.factor }

// Sum returns Σᵢ wᵢ·κ(x, sᵢ) over weight column c for the x of the last
// Score; Sum(0) is what Score returned.
func (s *Set) Sum(c int) float64 {
	n := s.m.Padded()
	return s.factor * float64(simd.Dot(s.buf[:n], s.weights[c][:n]))
}

// evaluate writes the kernel values of x into buf (padded) and returns
// Σᵢ w[i]·buf[i] and the factor that turns buf into true kernel values.
//
// When x is far from every stored vector (raw features: spambase, σ = 8),
// every exp(−‖x−sᵢ‖²/(2σ²)) lies below float32's range, yet the sign of
// their sum decides the prediction. So the exponent is shifted by the
// nearest distance d_min whenever the largest kernel value would come near
// the bottom of the range: f = exp(−d_min/(2σ²))·Σᵢ wᵢ·exp(−(dᵢ−d_min)/(2σ²)),
// the factor in float64. Finding d_min is one SIMD pass over the distances
// (about 23 ns at B = 1000); the shift itself rides in the exponential's FMA.
func (v *view) evaluate(buf []float32, x Vector, src tileSource, dense, w []float32, n int) (sum float32, factor float64) {
	if n == 0 {
		return 0, 1
	}
	v.distances(buf, x, src, dense)
	var offset float32
	if nearest := simd.Min(buf[:n]); v.scale*nearest < simd.ExpMin+10 {
		if math.IsInf(float64(nearest), 1) {
			// Even the nearest distance overflows float32 (features near
			// 1e19 and beyond): every kernel value is 0 in any precision.
			clear(buf)
			return 0, 1
		}
		offset = -v.scale * nearest
	}
	return simd.GaussianSum(buf, w, v.scale, offset), math.Exp(-float64(offset))
}

// distances writes ‖x − sᵢ‖² for every slot of m into buf, choosing the
// sparse path when it is cheaper and exact enough.
func (v *view) distances(buf []float32, x Vector, m tileSource, dense []float32) {
	if x.IsSparse() && 2*(len(x.Index)+1) <= v.dim {
		xnorm, integral := x.sqNorm()
		if v.sparseExact(xnorm, integral, len(x.Index)) {
			simd.SqDistSparse(buf, m.Norms(), x.Index, x.Value, float32(xnorm), m.Tiles(), v.dim)
			return
		}
	}
	simd.SqDist(buf, x.densify(dense, v.dim), m.Tiles(), v.dim)
}

// sparseExact reports whether the float32 norm expansion is good to 1e-6 in
// every kernel value for a query of squared norm xnorm with nnz non-zeros.
// Every partial sum of the expansion is bounded by S = 2·(max‖s‖² + ‖x‖²).
// With integers and S < 2²⁴ every step is exact. Otherwise each of the nnz+3
// rounded steps (stored norm, query norm, products and sums) errs by at most
// 2⁻²⁴·S, and a kernel value moves by at most |scale| times the distance error.
func (v *view) sparseExact(xnorm float64, integral bool, nnz int) bool {
	bound := 2 * (v.maxNorm + xnorm)
	if integral && v.integral && bound < 1<<24 {
		return true
	}
	return float64(nnz+3)*bound*0x1p-24*float64(-v.scale) <= 1e-6
}

// tileSource is the storage distances reads: a layout.Matrix or a Model's
// frozen copy.
type tileSource interface {
	Tiles() []float32
	Norms() []float32
}
