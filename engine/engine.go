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
	"math/bits"
	"sync"

	"github.com/bogd-project/bogd/layout"
	"github.com/bogd-project/bogd/simd"
)

// Options configure a Set.
type Options struct {
	// Capacity is the number of vectors to allocate room for; the set grows
	// past it when needed. A budgeted learner passes its budget.
	Capacity int
	// Columns is the number of weight columns (default 1): one per output
	// (a multi-class learner keeps one per class), times the groups of
	// weights a learner scales separately (BOGD keeps two).
	Columns int
}

// Set is a mutable support set: vectors, their weight columns and the
// scratch of its own evaluations (Score, Kernels, Sum). Mutating methods
// (Add, Remove, Reset, writing Weights) and Score need exclusive access;
// ScoreWith on a borrowed Scratch may run on any number of goroutines at
// once while nothing mutates the set. Snapshot gives a Model that is safe
// for concurrent use while the set goes on changing.
type Set struct {
	view
	m       *layout.Matrix
	cols    int
	stride  int       // slots per weight column: the matrix capacity
	weights []float32 // column-major: column c is weights[c*stride : (c+1)*stride], zero past Len
	own     Scratch   // the scratch of Score, Kernels and Sum
	pool    sync.Pool // of *Scratch, for concurrent readers
}

// Scratch is the working memory of one evaluation: the kernel values of its
// query, the factor that scales them, and room to densify a sparse query.
// Concurrent readers of a Set each bring their own (Set.Borrow).
type Scratch struct {
	buf    []float32 // distances, then kernel values; one per slot of the set's capacity
	dense  []float32
	sums   []float32 // column sums of SumsWith
	factor float64   // true kernel values are factor·buf (see evaluate)
}

// sumBuf returns sc's float32 sums, n of them.
func (sc *Scratch) sumBuf(n int) []float32 {
	if cap(sc.sums) < n {
		sc.sums = make([]float32, n)
	}
	return sc.sums[:n]
}

// columnSums writes into dst the sums over the kernel values in sc of the
// len(dst) columns of w starting at w[0] (stride slots each), n slots
// each, times the kernel factor: one simd.DotColumns pass.
func (sc *Scratch) columnSums(dst []float64, w []float32, stride, n int) {
	sums := sc.sumBuf(len(dst))
	simd.DotColumns(sums, sc.buf[:n], w, stride)
	for c, v := range sums {
		dst[c] = sc.factor * float64(v)
	}
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
		view: view{dim: dim, sigma: sigma, scale: float32(-1 / (2 * sigma * sigma)), integral: true},
		m:    m,
		cols: opt.Columns,
	}
	s.fit()
	return s, nil
}

// fit sizes the weight columns and the own scratch to the matrix capacity.
func (s *Set) fit() {
	n := s.m.Cap()
	if s.stride == n && s.weights != nil {
		return
	}
	w := make([]float32, s.cols*n)
	for c := range s.cols {
		copy(w[c*n:], s.weights[c*s.stride:(c+1)*s.stride])
	}
	s.weights, s.stride = w, n
	s.own.fit(n, s.dim)
}

// fit sizes sc for a set of n slots of dimension dim.
func (sc *Scratch) fit(n, dim int) {
	if len(sc.buf) < n {
		sc.buf = make([]float32, n)
	}
	if len(sc.dense) < dim {
		sc.dense = make([]float32, dim)
	}
}

// Len returns the number of support vectors.
func (s *Set) Len() int { return s.m.Len() }

// Dim returns the dimension of the vectors.
func (s *Set) Dim() int { return s.dim }

// Sigma returns the kernel width.
func (s *Set) Sigma() float64 { return s.sigma }

// Columns returns the number of weight columns.
func (s *Set) Columns() int { return s.cols }

// Add stores x with the given weights, one per column (missing ones are
// zero), and returns its index.
func (s *Set) Add(x Vector, w ...float32) (int, error) {
	if err := x.Validate(s.dim); err != nil {
		return 0, fmt.Errorf("engine: add: %w", err)
	}
	if len(w) > s.cols {
		return 0, fmt.Errorf("engine: add: %d weights for %d columns", len(w), s.cols)
	}
	var i int
	if x.IsSparse() {
		i = s.m.AppendSparse(x.Index, x.Value)
	} else {
		i = s.m.Append(x.Dense)
	}
	s.fit()
	for c := range s.cols {
		s.weights[c*s.stride+i] = 0
	}
	for c, v := range w {
		s.weights[c*s.stride+i] = v
	}
	norm, integral := x.sqNorm()
	s.maxNorm = max(s.maxNorm, norm)
	s.integral = s.integral && integral
	return i, nil
}

// Replace overwrites support vector i with x and the given weights, one per
// column (missing ones are zero); every other vector keeps its slot. BPA-S
// puts a new example in the place of the vector it removes.
func (s *Set) Replace(i int, x Vector, w ...float32) error {
	if err := x.Validate(s.dim); err != nil {
		return fmt.Errorf("engine: replace: %w", err)
	}
	if len(w) > s.cols {
		return fmt.Errorf("engine: replace: %d weights for %d columns", len(w), s.cols)
	}
	if i < 0 || i >= s.m.Len() {
		return fmt.Errorf("engine: replace: vector %d out of range [0,%d)", i, s.m.Len())
	}
	s.m.Replace(i, x.densify(s.own.dense, s.dim))
	for c := range s.cols {
		s.weights[c*s.stride+i] = 0
	}
	for c, v := range w {
		s.weights[c*s.stride+i] = v
	}
	norm, integral := x.sqNorm()
	s.maxNorm = max(s.maxNorm, norm)
	s.integral = s.integral && integral
	return nil
}

// Remove deletes vector i by moving the last vector into its slot, along with
// its weights. It returns the former index of the moved vector, or -1 when i
// was the last one, so callers can apply the same swap to their own
// per-vector data.
func (s *Set) Remove(i int) (moved int) {
	last := s.m.Len() - 1
	moved = s.m.SwapRemove(i)
	for c := range s.cols {
		w := s.weights[c*s.stride : (c+1)*s.stride]
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
	for c := range s.cols {
		clear(s.weights[c*s.stride : c*s.stride+s.m.Padded()])
	}
	s.m.Reset()
	s.maxNorm, s.integral = 0, true
}

// Weights returns weight column c, one entry per stored vector. The slice
// aliases the set: writing it changes the weights (slots past Len must stay
// zero, which writing only the first Len entries guarantees).
func (s *Set) Weights(c int) []float32 {
	return s.weights[c*s.stride : c*s.stride+s.m.Len() : (c+1)*s.stride]
}

// column returns weight column c padded to whole tiles, as the kernels read it.
func (s *Set) column(c int) []float32 {
	return s.weights[c*s.stride : c*s.stride+s.m.Padded()]
}

// Vector copies support vector i into dst (resized to Dim) and returns it.
func (s *Set) Vector(i int, dst []float32) []float32 { return s.m.Row(i, dst) }

// Score computes the kernel value of x with every support vector and returns
// Σᵢ wᵢ·κ(x, sᵢ) over weight column 0. The kernel values stay available
// through Kernels, Sum and Sums until the next call.
func (s *Set) Score(x Vector) (float64, error) { return s.ScoreWith(&s.own, x) }

// ScoreWith is Score on the caller's scratch: it reads the set and writes
// only sc, so goroutines with scratches of their own may call it at once
// while nothing modifies the set. SumWith and SumsWith read its kernel
// values.
func (s *Set) ScoreWith(sc *Scratch, x Vector) (float64, error) {
	if err := x.Validate(s.dim); err != nil {
		return 0, fmt.Errorf("engine: score: %w", err)
	}
	sc.fit(s.m.Cap(), s.dim)
	var sum [1]float32
	sc.factor = s.view.evaluate(sc.buf[:s.m.Padded()], x, s.m, sc.dense, s.weights, s.stride, s.m.Len(), sum[:])
	return sc.factor * float64(sum[0]), nil
}

// ScoreColumnsWith computes the kernel values of x on sc, as ScoreWith,
// and writes Σᵢ w_{c,i}·κ(x, sᵢ) of columns c = 0, 1, … into dst, one per
// element, while the kernel values are in registers (simd.GaussianSumColumns):
// the scores of a multi-output learner in one pass.
func (s *Set) ScoreColumnsWith(sc *Scratch, x Vector, dst []float64) error {
	if err := x.Validate(s.dim); err != nil {
		return fmt.Errorf("engine: score: %w", err)
	}
	if len(dst) > s.cols {
		return fmt.Errorf("engine: score: %d sums of %d columns", len(dst), s.cols)
	}
	sc.fit(s.m.Cap(), s.dim)
	sums := sc.sumBuf(len(dst))
	sc.factor = s.view.evaluate(sc.buf[:s.m.Padded()], x, s.m, sc.dense, s.weights, s.stride, s.m.Len(), sums)
	for c, v := range sums {
		dst[c] = sc.factor * float64(v)
	}
	return nil
}

// OwnScratch returns the scratch of Score, Kernels and Sum, for code that
// evaluates through ScoreWith on either its own scratch or a borrowed one.
func (s *Set) OwnScratch() *Scratch { return &s.own }

// Borrow returns a scratch for ScoreWith from the set's pool; Release gives
// it back. Borrowing allocates only when the pool is empty.
func (s *Set) Borrow() *Scratch {
	if sc, ok := s.pool.Get().(*Scratch); ok {
		return sc
	}
	return new(Scratch)
}

// Release returns a scratch taken with Borrow.
func (s *Set) Release(sc *Scratch) { s.pool.Put(sc) }

// Kernels returns the kernel values of the x of the last Score, one per
// vector, divided by KernelFactor. The slice aliases scratch that the next
// Score overwrites, and is stale once vectors are added or removed.
func (s *Set) Kernels() []float32 { return s.own.buf[:s.m.Len()] }

// KernelFactor is the factor that turns Kernels into κ(x, sᵢ). It is 1
// unless every kernel value of the last Score was below float32's range:
// then the values are kept relative to the largest one (see evaluate).
func (s *Set) KernelFactor() float64 { return s.own.factor }

// Sum returns Σᵢ wᵢ·κ(x, sᵢ) over weight column c for the x of the last
// Score; Sum(0) is what Score returned.
func (s *Set) Sum(c int) float64 { return s.SumWith(&s.own, c) }

// SumWith is Sum for the x of the last ScoreWith on sc.
func (s *Set) SumWith(sc *Scratch, c int) float64 {
	n := s.m.Padded()
	return sc.factor * float64(simd.Dot(sc.buf[:n], s.column(c)))
}

// Sums writes Σᵢ wᵢ·κ(x, sᵢ) over the weight columns first, first+1, … into
// dst, one per element, for the x of the last Score: one pass over the
// kernel values for all the columns (simd.DotColumns).
func (s *Set) Sums(first int, dst []float64) { s.SumsWith(&s.own, first, dst) }

// SumsWith is Sums for the x of the last ScoreWith on sc.
func (s *Set) SumsWith(sc *Scratch, first int, dst []float64) {
	if first < 0 || first+len(dst) > s.cols {
		panic(fmt.Sprintf("engine: columns %d..%d of %d", first, first+len(dst)-1, s.cols))
	}
	if len(dst) > 0 {
		sc.columnSums(dst, s.weights[first*s.stride:], s.stride, s.m.Padded())
	}
}

// evaluate writes the kernel values of x into buf (padded), and into
// sums[c], for every c < len(sums), Σᵢ w[c·stride+i]·buf[i] (the columns'
// kernel expansions, in one pass: simd.GaussianSumColumns); it returns the
// factor that turns buf and sums into true values.
//
// When x is far from every stored vector (raw features: spambase, σ = 8),
// every exp(−‖x−sᵢ‖²/(2σ²)) lies below float32's range, yet the sign of
// their sum decides the prediction. So the exponent is shifted by the
// nearest distance d_min whenever the largest kernel value would come near
// the bottom of the range: f = exp(−d_min/(2σ²))·Σᵢ wᵢ·exp(−(dᵢ−d_min)/(2σ²)),
// the factor in float64. Finding d_min is one SIMD pass over the distances
// (about 23 ns at B = 1000); the shift itself rides in the exponential's FMA.
//
// "Near the bottom" is what floorMargin says: the exponential clamps its
// argument at ExpMin, so without the shift every vector beyond reach still
// adds its weight times e^ExpMin. The shift keeps those n floors below one
// float32 rounding of the largest term.
func (v *view) evaluate(buf []float32, x Vector, src tileSource, dense, w []float32, stride, n int, sums []float32) (factor float64) {
	if n == 0 {
		clear(sums)
		return 1
	}
	v.distances(buf, x, src, dense)
	var offset float32
	if nearest := simd.Min(buf[:n]); v.scale*nearest < simd.ExpMin+floorMargin(n) {
		if math.IsInf(float64(nearest), 1) {
			// Even the nearest distance overflows float32 (features near
			// 1e19 and beyond): every kernel value is 0 in any precision.
			clear(buf)
			clear(sums)
			return 1
		}
		offset = -v.scale * nearest
	}
	simd.GaussianSumColumns(sums, buf, w, stride, v.scale, offset)
	return math.Exp(-float64(offset))
}

// floorMargin is how far above ExpMin the largest exponent of n kernel
// values must lie for the unshifted sum to be exact to float32 precision:
// each value clamped at e^ExpMin errs by at most e^ExpMin, and n of them
// stay below 2⁻²⁴ of the largest value e^a when a ≥ ExpMin + ln n + 24·ln 2.
// bits.Len(n)·ln 2 bounds ln n from above without a logarithm per call.
func floorMargin(n int) float32 {
	return float32(bits.Len(uint(n))+24) * math.Ln2
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
