// Package engine evaluates Gaussian kernel expansions over a budget of
// support vectors: f(x) = Σᵢ wᵢ·κ(x, sᵢ) with κ(x,y) = exp(−‖x−y‖²/(2σ²)).
//
// A Set is the mutable support set a learner trains: vectors, one or more
// float32 weight columns kept aligned with them through swap-remove
// deletion, and scratch buffers so that scoring allocates nothing. A Model
// is an immutable snapshot of a Set, safe for concurrent prediction, that
// can be saved and loaded on its own (Model.Save, LoadModel). The
// arithmetic of the kernel values runs in package simd on the
// implementation chosen for the CPU.
//
// # Inputs
//
// A Vector is dense (Dense: every feature) or sparse (Sparse: the non-zero
// features by 0-based index, so feature "1" of a LIBSVM file is index 0).
//
// # Storage
//
// A Set keeps its vectors in one of two layouts (Options.Storage):
//
//   - dense (layout.Matrix): every feature of every vector in float32
//     tiles; distances in SIMD. The choice whenever the budget's dense
//     vectors fit in memory.
//   - sparse (layout.Sparse): each vector's non-zero features and, for
//     every feature, the vectors that have it; memory and updates
//     O(non-zeros) whatever the dimension. The choice for hashed text
//     and other data with millions of features and a few set per vector.
//
// AutoStorage, the default, picks by dimension (see SparseDim). Both give
// the same results up to the error bounds below, and on integer data whose
// partial sums stay below 2²⁴ (binary features, counts) the same bits.
//
// # Exactness
//
// Dense storage computes ‖x−s‖² directly in float32 for a dense query. A
// sparse query (a few non-zeros out of many features) takes a path that
// touches only its non-zero features, through the norm expansion
// ‖x−s‖² = ‖s‖² + ‖x‖² − 2·x·s. That expansion cancels catastrophically in
// float32 when norms are large next to distances, so it is used only when it
// is exact (integer data, as in binary features) or provably within 1e-6 of
// the direct computation in every kernel value; otherwise the query is
// densified and distances are computed directly.
//
// Sparse storage always uses the expansion, in float64 (norms, products
// and sums; the stored norms with compensated summation), under the same
// rule with float64's rounding: exact on integer data whose partial sums
// stay below 2⁵³, else used only when its error bound,
// (2·nnz+3)·2⁻⁵³·S·|scale| with nnz the query's non-zeros and
// S = 2·(max‖s‖² + ‖x‖²), is at most 1e-6 in every kernel value, which
// fails only for norms large next to σ² (at σ = 1 and 20 non-zeros, values
// beyond about 2,000). Otherwise each distance is the direct float64 sum
// over the union of the two vectors' features, exact to float64 rounding.
// Either way the distance is rounded to float32 once and the kernel values
// and sums run through the same SIMD code as dense storage's: a kernel
// value of sparse storage is within the expansion's bound (at most 1e-6,
// zero on integers) of the one the exact distance rounded to float32 gives.
package engine

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"sync"

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
	// Storage chooses how the vectors are stored (default AutoStorage:
	// by dimension).
	Storage Storage
}

// Set is a mutable support set: vectors, their weight columns and the
// scratch of its own evaluations (Score, Kernels, Sum). Mutating methods
// (Add, Remove, Reset, writing Weights) and Score need exclusive access;
// ScoreWith on a borrowed Scratch may run on any number of goroutines at
// once while nothing mutates the set. Snapshot gives a Model that is safe
// for concurrent use while the set goes on changing.
type Set struct {
	view
	vs      vectors
	cols    int
	stride  int       // slots per weight column: the storage capacity
	weights []float32 // column-major: column c is weights[c*stride : (c+1)*stride], zero past Len
	own     Scratch   // the scratch of Score, Kernels and Sum
	pool    sync.Pool // of *Scratch, for concurrent readers
}

// Scratch is the working memory of one evaluation: the kernel values of its
// query, the factor that scales them, and what the storage needs to read a
// query (a sparse query densified for dense storage, a query's non-zeros
// and dot products for sparse storage). Concurrent readers of a Set each
// bring their own (Set.Borrow). Nothing in it grows with the dimension
// but the densified query of dense storage, and with sparse storage the
// non-zeros of dense queries.
type Scratch struct {
	buf    []float32 // distances, then kernel values; one per slot of the set's capacity
	dense  []float32 // dense storage: a sparse query densified, grown on first use
	dots   []float64 // sparse storage: x·sᵢ per slot
	idx    []int32   // sparse storage: a query's non-zero features
	val    []float32
	sums   []float32 // column sums of SumsWith
	factor float64   // true kernel values are factor·buf (see evaluate)
}

// fit sizes sc for a set of n slots.
func (sc *Scratch) fit(n int) {
	if len(sc.buf) < n {
		sc.buf = make([]float32, n)
	}
}

// denseBuf returns room for one dense vector of dimension dim.
func (sc *Scratch) denseBuf(dim int) []float32 {
	if len(sc.dense) < dim {
		sc.dense = make([]float32, dim)
	}
	return sc.dense[:dim]
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

// view is what scoring needs besides the vectors: the kernel and the facts
// about the stored values that decide whether the norm expansion is exact.
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
	vs, err := newVectors(opt.Storage, dim, opt.Capacity)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	s := &Set{
		view: view{dim: dim, sigma: sigma, scale: float32(-1 / (2 * sigma * sigma)), integral: true},
		vs:   vs,
		cols: opt.Columns,
	}
	s.fit()
	return s, nil
}

// fit sizes the weight columns and the own scratch to the storage capacity.
func (s *Set) fit() {
	n := s.vs.Cap()
	if s.stride == n && s.weights != nil {
		return
	}
	w := make([]float32, s.cols*n)
	for c := range s.cols {
		copy(w[c*n:], s.weights[c*s.stride:(c+1)*s.stride])
	}
	s.weights, s.stride = w, n
	s.own.fit(n)
}

// Len returns the number of support vectors.
func (s *Set) Len() int { return s.vs.Len() }

// Dim returns the dimension of the vectors.
func (s *Set) Dim() int { return s.dim }

// Sigma returns the kernel width.
func (s *Set) Sigma() float64 { return s.sigma }

// Columns returns the number of weight columns.
func (s *Set) Columns() int { return s.cols }

// Storage returns how the set stores its vectors: DenseStorage or
// SparseStorage, never AutoStorage.
func (s *Set) Storage() Storage { return s.vs.storage() }

// Add stores x with the given weights, one per column (missing ones are
// zero), and returns its index.
func (s *Set) Add(x Vector, w ...float32) (int, error) {
	if err := x.Validate(s.dim); err != nil {
		return 0, fmt.Errorf("engine: add: %w", err)
	}
	if len(w) > s.cols {
		return 0, fmt.Errorf("engine: add: %d weights for %d columns", len(w), s.cols)
	}
	i := s.vs.add(x, &s.own)
	s.fit()
	s.setWeights(i, w)
	s.remember(x)
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
	if i < 0 || i >= s.vs.Len() {
		return fmt.Errorf("engine: replace: vector %d out of range [0,%d)", i, s.vs.Len())
	}
	s.vs.replace(i, x, &s.own)
	s.setWeights(i, w)
	s.remember(x)
	return nil
}

// setWeights writes the weights of slot i, zero past len(w).
func (s *Set) setWeights(i int, w []float32) {
	for c := range s.cols {
		s.weights[c*s.stride+i] = 0
	}
	for c, v := range w {
		s.weights[c*s.stride+i] = v
	}
}

// remember widens the bounds (see Bounds) to cover the stored x.
func (s *Set) remember(x Vector) {
	norm, integral := x.sqNorm()
	s.maxNorm = max(s.maxNorm, norm)
	s.integral = s.integral && integral
}

// Remove deletes vector i by moving the last vector into its slot, along with
// its weights. It returns the former index of the moved vector, or -1 when i
// was the last one, so callers can apply the same swap to their own
// per-vector data. It costs O(Dim) with dense storage and O(non-zeros of
// the two vectors) with sparse storage.
func (s *Set) Remove(i int) (moved int) {
	last := s.vs.Len() - 1
	moved = s.vs.SwapRemove(i)
	for c := range s.cols {
		w := s.weights[c*s.stride : (c+1)*s.stride]
		w[i] = w[last]
		w[last] = 0
	}
	if s.vs.Len() == 0 {
		s.maxNorm, s.integral = 0, true
	}
	return moved
}

// Reset removes every vector.
func (s *Set) Reset() {
	for c := range s.cols {
		clear(s.weights[c*s.stride : c*s.stride+s.vs.Padded()])
	}
	s.vs.Reset()
	s.maxNorm, s.integral = 0, true
}

// Weights returns weight column c, one entry per stored vector. The slice
// aliases the set: writing it changes the weights (slots past Len must stay
// zero, which writing only the first Len entries guarantees).
func (s *Set) Weights(c int) []float32 {
	return s.weights[c*s.stride : c*s.stride+s.vs.Len() : (c+1)*s.stride]
}

// column returns weight column c padded to whole tiles, as the kernels read it.
func (s *Set) column(c int) []float32 {
	return s.weights[c*s.stride : c*s.stride+s.vs.Padded()]
}

// Vector copies support vector i into dst (resized to Dim) and returns it:
// O(Dim) whatever the storage (SupportVector is O(non-zeros) with sparse
// storage).
func (s *Set) Vector(i int, dst []float32) []float32 { return s.vs.dense(i, dst) }

// SupportVector copies support vector i in the form the set stores it and
// returns it: Dense with dense storage, Sparse (the non-zero features)
// with sparse storage. It reuses buf's slices when they are large enough,
// so a caller that walks the vectors allocates once.
func (s *Set) SupportVector(i int, buf Vector) Vector {
	if i < 0 || i >= s.vs.Len() {
		panic(fmt.Sprintf("engine: support vector %d out of range [0,%d)", i, s.vs.Len()))
	}
	return s.vs.supportVector(i, buf)
}

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
	sc.fit(s.vs.Cap())
	var sum [1]float32
	sc.factor = s.view.evaluate(sc.buf[:s.vs.Padded()], x, s.vs, sc, s.weights, s.stride, sum[:])
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
	s.scoreColumns(sc, x, dst)
	return nil
}

// scoreColumns is ScoreColumnsWith for a valid x and len(dst) ≤ Columns.
func (s *Set) scoreColumns(sc *Scratch, x Vector, dst []float64) {
	sc.fit(s.vs.Cap())
	sums := sc.sumBuf(len(dst))
	sc.factor = s.view.evaluate(sc.buf[:s.vs.Padded()], x, s.vs, sc, s.weights, s.stride, sums)
	for c, v := range sums {
		dst[c] = sc.factor * float64(v)
	}
}

// ScoreColumnsBatch writes the sums of every weight column for each query,
// as ScoreColumnsWith does for one: dst[k*Columns()+c] for query xs[k] and
// column c (len(dst) ≥ len(xs)·Columns()). It scores on a borrowed scratch,
// so it may run beside other readers while nothing modifies the set, and
// stops with ctx's error, which it checks before the first query and every
// 256 queries (batchCheck). On an error the sums of the queries before the
// one it names are written.
func (s *Set) ScoreColumnsBatch(ctx context.Context, xs []Vector, dst []float64) error {
	if len(dst) < len(xs)*s.cols {
		return fmt.Errorf("engine: score batch: %d sums for %d queries of %d columns", len(dst), len(xs), s.cols)
	}
	sc := s.Borrow()
	defer s.Release(sc)
	for k, x := range xs {
		if err := stopped(ctx, k, len(xs)); err != nil {
			return err
		}
		if err := x.Validate(s.dim); err != nil {
			return fmt.Errorf("engine: score query %d: %w", k, err)
		}
		s.scoreColumns(sc, x, dst[k*s.cols:(k+1)*s.cols])
	}
	return nil
}

// batchCheck is how many queries a batch scores between looks at its
// context: a few hundred f(x) take tens of microseconds to milliseconds,
// and a look costs next to nothing at that interval.
const batchCheck = 256

// stopped returns ctx's error, wrapped with the batch's progress, when
// query k of n is one at which a batch looks at ctx and ctx is done.
func stopped(ctx context.Context, k, n int) error {
	if k%batchCheck != 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("engine: score batch stopped before query %d of %d: %w", k, n, err)
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
func (s *Set) Kernels() []float32 { return s.own.buf[:s.vs.Len()] }

// KernelFactor is the factor that turns Kernels into κ(x, sᵢ). It is 1
// unless every kernel value of the last Score was below float32's range:
// then the values are kept relative to the largest one (see evaluate).
func (s *Set) KernelFactor() float64 { return s.own.factor }

// Sum returns Σᵢ wᵢ·κ(x, sᵢ) over weight column c for the x of the last
// Score. Sum(0) is what Score returned up to float32 rounding: Score sums
// inside the fused kernel (simd.GaussianSumColumns), whose vector code
// adds in another order than simd.Dot.
func (s *Set) Sum(c int) float64 { return s.SumWith(&s.own, c) }

// SumWith is Sum for the x of the last ScoreWith on sc.
func (s *Set) SumWith(sc *Scratch, c int) float64 {
	n := s.vs.Padded()
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
		sc.columnSums(dst, s.weights[first*s.stride:], s.stride, s.vs.Padded())
	}
}

// evaluate writes the kernel values of x with the vectors vs into buf
// (padded), and into sums[c], for every c < len(sums),
// Σᵢ w[c·stride+i]·buf[i] (the columns' kernel expansions, in one pass:
// simd.GaussianSumColumns); it returns the factor that turns buf and sums
// into true values.
//
// When x is far from every stored vector (raw features: spambase, σ = 8),
// every exp(−‖x−sᵢ‖²/(2σ²)) lies below float32's range, yet the sign of
// their sum decides the prediction. So the exponent is shifted by the
// nearest distance d_min whenever the largest kernel value would come near
// the bottom of the range: f = exp(−d_min/(2σ²))·Σᵢ wᵢ·exp(−(dᵢ−d_min)/(2σ²)),
// the factor in float64. Finding d_min is one SIMD pass over the distances
// (about 23 ns at B = 1000); the shift itself rides in the exponential's FMA.
//
// "Near the bottom" is what floorMargin says: the exponential is 0 below
// ExpMin, so without the shift every vector beyond reach drops out of the
// sum (all of them, when x is far from every one). The shift keeps what
// the n dropped terms could add below one float32 rounding of the largest.
func (v *view) evaluate(buf []float32, x Vector, vs vectors, sc *Scratch, w []float32, stride int, sums []float32) (factor float64) {
	n := vs.Len()
	if n == 0 {
		clear(sums)
		return 1
	}
	vs.distances(v, buf, x, sc)
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
	if offset == 0 {
		return 1 // exp(0), without the call: most evaluations need no shift
	}
	return math.Exp(-float64(offset))
}

// floorMargin is how far above ExpMin the largest exponent of n kernel
// values must lie for the unshifted sum to be exact to float32 precision:
// each value zeroed below e^ExpMin errs by at most e^ExpMin, and n of them
// stay below 2⁻²⁴ of the largest value e^a when a ≥ ExpMin + ln n + 24·ln 2.
// bits.Len(n)·ln 2 bounds ln n from above without a logarithm per call.
func floorMargin(n int) float32 {
	return float32(bits.Len(uint(n))+24) * math.Ln2
}

// The mantissa bits of the two norm expansions: dense storage's in float32,
// sparse storage's in float64.
const (
	float32Bits = 24
	float64Bits = 53
)

// expansionExact reports whether the norm expansion
// ‖x−s‖² = ‖s‖² + ‖x‖² − 2·x·s, computed with steps roundings in a
// precision of bits mantissa bits, is good to 1e-6 in every kernel value
// for a query of squared norm xnorm. Every partial sum of the expansion is
// bounded by S = 2·(max‖s‖² + ‖x‖²). With integers and S < 2^bits every
// step is exact. Otherwise each rounding errs by at most 2^−bits·S, and a
// kernel value moves by at most |scale| times the distance error.
func (v *view) expansionExact(xnorm float64, integral bool, steps, bits int) bool {
	bound := 2 * (v.maxNorm + xnorm)
	if integral && v.integral && bound < math.Ldexp(1, bits) {
		return true
	}
	return float64(steps)*bound*math.Ldexp(1, -bits)*float64(-v.scale) <= 1e-6
}
