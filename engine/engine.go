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

// Set is a mutable support set: vectors and their weight columns. Evaluate,
// Sums and ScoreBatch only read it, so any number of goroutines may call
// them at once, each on a Scratch of its own, while nothing changes the
// set; every other method needs exclusive access. Snapshot gives a Model
// that is safe for concurrent use while the set goes on changing.
type Set struct {
	view
	vs      vectors
	n       int // vs.Len(), read here where a call would cost a visible part of a small f(x)
	cols    int
	stride  int       // slots per weight column: the storage capacity
	weights []float32 // column-major: column c is weights[c*stride : (c+1)*stride], zero past Len
	work    Scratch   // the working memory of Add, Replace, SetBounds and ExactKernels
	pool    sync.Pool // of *Scratch, for Borrow
}

// Scratch is the working memory of evaluations, and holds the kernel values
// of its last one (Kernels). It serves one goroutine at a time. The zero
// value is ready to use; it grows to the largest set it evaluates on, and
// then evaluations allocate nothing. Nothing in it grows with the dimension
// but a sparse query densified for dense storage (and, with sparse storage,
// the non-zeros of a dense query).
type Scratch struct {
	buf    []float32 // distances, then kernel values; one per slot of the set's capacity
	n      int       // the support vectors of the last evaluation
	factor float64   // true kernel values are factor·buf (see the package documentation: far queries)
	far    bool      // the last evaluation's query was far: the next one starts with the two-phase kernels
	dense  []float32 // dense storage: a sparse query densified, grown on first use
	dots   []float64 // sparse storage: x·sᵢ per slot
	idx    []int32   // sparse storage: a query's non-zero features
	val    []float32
	sums   []float32 // float32 column sums of one evaluation

	// query is the query of the last evaluation, checked against the
	// dimension dim (0: none, or it failed the check), which AddQuery and
	// ReplaceQuery store without checking it again. It holds the caller's
	// slices until the next evaluation (Release lets go of them). Every
	// step of an evaluation reads the query here, by pointer: a Vector is
	// ten words, and at small budgets each copy of it is a visible part of
	// f(x).
	query Vector
	dim   int
}

// take makes x sc's query and checks it against dimension dim.
func (sc *Scratch) take(x *Vector, dim int) error {
	sc.query, sc.dim = *x, 0
	if err := sc.query.validate(dim); err != nil {
		return err
	}
	sc.dim = dim
	return nil
}

// Kernels returns the kernel values of the last evaluation on sc
// (Set.Evaluate), one per support vector the set held then:
// κ(x, sᵢ) = factor·values[i]. The factor is 1 unless every kernel value
// lay below float32's range (see the package documentation: far queries).
// values aliases sc, so the next evaluation on sc overwrites it, and it
// is stale once the set changes.
func (sc *Scratch) Kernels() (values []float32, factor float64) {
	return sc.buf[:sc.n], sc.factor
}

// fit sizes sc for a set of n slots.
func (sc *Scratch) fit(n int) {
	if len(sc.buf) < n {
		sc.buf = make([]float32, n)
	}
}

// denseQuery returns the valid query x of dimension dim in dense form,
// for reading only: its own dense slice; its values when it is sparse
// with every feature set (its indices are then 0, 1, …: codrna's rows);
// else x scattered into sc's dense buffer. It inlines: a dense query or a
// full row goes to the kernel without a call.
func (sc *Scratch) denseQuery(x *Vector, dim int) []float32 {
	switch {
	case x.Dense != nil:
		return x.Dense
	case len(x.Index) == dim:
		return x.Value
	}
	return sc.scatter(x, dim)
}

// scatter returns the sparse x densified into sc's dense buffer; not
// inlined, so that denseQuery is.
//
//go:noinline
func (sc *Scratch) scatter(x *Vector, dim int) []float32 {
	return x.densify(sc.denseBuf(dim))
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

// fit sizes the weight columns to the storage capacity.
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
}

// Len returns the number of support vectors.
func (s *Set) Len() int { return s.n }

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
	if err := s.work.take(&x, s.dim); err != nil {
		return 0, fmt.Errorf("engine: add: %w", err)
	}
	i, err := s.AddQuery(&s.work, w...)
	if err != nil {
		return 0, fmt.Errorf("engine: add: %w", err)
	}
	return i, nil
}

// AddQuery stores the query of the last evaluation on sc (Evaluate) with
// the given weights, as Add does, without checking it again: a learner
// stores the example it has just scored. The query's slices must still
// hold what they held then. It fails when sc's last query was not a valid
// one of the set's dimension.
func (s *Set) AddQuery(sc *Scratch, w ...float32) (int, error) {
	if err := s.stored(sc, w); err != nil {
		return 0, err
	}
	i, sqNorm := s.vs.add(&sc.query, &s.work)
	if s.n++; s.n > s.stride {
		s.fit()
	}
	s.setWeights(i, w)
	s.remember(&sc.query, sqNorm)
	return i, nil
}

// Replace overwrites support vector i with x and the given weights, one per
// column (missing ones are zero); every other vector keeps its slot. BPA-S
// puts a new example in the place of the vector it removes.
func (s *Set) Replace(i int, x Vector, w ...float32) error {
	if err := s.work.take(&x, s.dim); err != nil {
		return fmt.Errorf("engine: replace: %w", err)
	}
	if err := s.ReplaceQuery(i, &s.work, w...); err != nil {
		return fmt.Errorf("engine: replace: %w", err)
	}
	return nil
}

// ReplaceQuery overwrites support vector i with the query of the last
// evaluation on sc, as Replace does (see AddQuery).
func (s *Set) ReplaceQuery(i int, sc *Scratch, w ...float32) error {
	if err := s.stored(sc, w); err != nil {
		return err
	}
	if i < 0 || i >= s.n {
		return fmt.Errorf("vector %d out of range [0,%d)", i, s.n)
	}
	sqNorm := s.vs.replace(i, &sc.query, &s.work)
	s.setWeights(i, w)
	s.remember(&sc.query, sqNorm)
	return nil
}

// stored checks that sc holds a query the set can store with weights w.
func (s *Set) stored(sc *Scratch, w []float32) error {
	if sc.dim != s.dim {
		return fmt.Errorf("the scratch holds no valid query of dimension %d", s.dim)
	}
	if len(w) > s.cols {
		return fmt.Errorf("%d weights for %d columns", len(w), s.cols)
	}
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

// remember widens the bounds (see Bounds) to cover the stored x, of
// squared norm sqNorm (x.sqSum(), which storing it summed). It reads x's
// values for integers only while every stored one is an integer: a
// learner stores nearly every example it sees.
func (s *Set) remember(x *Vector, sqNorm float64) {
	s.maxNorm = max(s.maxNorm, sqNorm)
	s.integral = s.integral && x.integral()
}

// Remove deletes vector i by moving the last vector into its slot, along with
// its weights. It returns the former index of the moved vector, or -1 when i
// was the last one, so callers can apply the same swap to their own
// per-vector data. It costs O(Dim) with dense storage and O(non-zeros of
// the two vectors) with sparse storage.
func (s *Set) Remove(i int) (moved int) {
	last := s.vs.Len() - 1
	moved = s.vs.SwapRemove(i)
	s.n = s.vs.Len()
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

// WeightColumn returns weight column c, one entry per stored vector. The
// slice aliases the set's weights: a learner updates weights by writing it,
// and it is stale once vectors are added or removed.
func (s *Set) WeightColumn(c int) []float32 {
	return s.weights[c*s.stride : c*s.stride+s.n : c*s.stride+s.n]
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

// Evaluate computes the kernel value of x with every support vector into sc
// and writes into dst[c] the sum Σᵢ w_{c,i}·κ(x, sᵢ) of weight column c, for
// c = 0 … len(dst)−1, in the same pass, while the kernel values are in
// registers: the scores of a learner in one pass over the vectors. The
// kernel values stay in sc (Scratch.Kernels, Sums) until its next
// evaluation; they are the same bits whatever len(dst), 0 included.
func (s *Set) Evaluate(sc *Scratch, x Vector, dst []float64) error {
	if err := sc.take(&x, s.dim); err != nil {
		return fmt.Errorf("engine: score: %w", err)
	}
	if len(dst) > s.cols {
		return fmt.Errorf("engine: score: %d sums of %d columns", len(dst), s.cols)
	}
	s.evaluate(sc, dst)
	return nil
}

// evaluate is Evaluate of sc's query, valid, for len(dst) ≤ Columns.
// Without a column to sum it still sums column 0, unread: the fused SIMD
// kernel then computes the kernel values, as for every other call.
func (s *Set) evaluate(sc *Scratch, dst []float64) {
	sc.fit(s.stride) // the storage capacity (fit)
	sums := sc.sumBuf(max(len(dst), 1))
	sc.n = s.n
	sc.factor = s.view.evaluate(sc, s.vs, s.weights, s.stride, sums)
	for c := range dst {
		dst[c] = sc.factor * float64(sums[c])
	}
}

// Sums writes into dst the sums Σᵢ w_{c,i}·κ(x, sᵢ) of weight columns
// c = first, first+1, …, one per element, for the x of the last Evaluate on
// sc, from its kernel values: the columns that Evaluate did not sum, in one
// pass over the kernel values. The set must not have changed since. The
// sums are formed in another order than Evaluate's, so the same column may
// differ from Evaluate's in the last float32 bits. Columns out of range
// panic.
func (s *Set) Sums(sc *Scratch, first int, dst []float64) {
	if first < 0 || first+len(dst) > s.cols {
		panic(fmt.Sprintf("engine: columns %d..%d of %d", first, first+len(dst)-1, s.cols))
	}
	if len(dst) == 0 {
		return
	}
	sums := sc.sumBuf(len(dst))
	simd.DotColumns(sums, sc.buf[:s.vs.Padded()], s.weights[first*s.stride:], s.stride)
	for c, v := range sums {
		dst[c] = sc.factor * float64(v)
	}
}

// ScoreBatch writes, for each query xs[k], the sums of every weight column
// c into dst[k*Columns()+c], as Evaluate does for one query (len(dst) ≥
// len(xs)·Columns()). It scores on a borrowed Scratch, so it may run beside
// other readers while nothing changes the set, and stops with ctx's error,
// which it checks before the first query and every 256 queries. On an
// error the sums of the queries before the one it names are written.
func (s *Set) ScoreBatch(ctx context.Context, xs []Vector, dst []float64) error {
	if len(dst) < len(xs)*s.cols {
		return fmt.Errorf("engine: score batch: %d sums for %d queries of %d columns", len(dst), len(xs), s.cols)
	}
	sc := s.Borrow()
	defer s.Release(sc)
	for k := range xs {
		if err := stopped(ctx, k, len(xs)); err != nil {
			return err
		}
		if err := sc.take(&xs[k], s.dim); err != nil {
			return fmt.Errorf("engine: score query %d: %w", k, err)
		}
		s.evaluate(sc, dst[k*s.cols:(k+1)*s.cols])
	}
	return nil
}

// batchCheck is how many queries a batch scores between looks at its
// context: a few hundred f(x) take tens of microseconds to milliseconds,
// and a look costs next to nothing at that interval. The package
// documentation states it.
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

// Borrow returns a Scratch from the set's pool, for a goroutine that
// evaluates while others do; Release gives it back. Borrowing allocates
// only when the pool is empty.
func (s *Set) Borrow() *Scratch {
	if sc, ok := s.pool.Get().(*Scratch); ok {
		return sc
	}
	return new(Scratch)
}

// Release returns a Scratch taken with Borrow, letting go of its last
// query.
func (s *Set) Release(sc *Scratch) {
	sc.query, sc.dim = Vector{}, 0
	s.pool.Put(sc)
}

// evaluate writes the kernel values of x with the vectors vs into buf
// (padded), and into sums[c], for every c < len(sums),
// Σᵢ w[c·stride+i]·buf[i] (the columns' kernel expansions, in one pass:
// simd.GaussianSumColumns after the distances, or up to
// simd.ScoreTilesSlots slots simd.ScoreTiles for both); it returns the
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
// "Near the bottom" is what floorMargin says: the exponential is 0 below
// ExpMin, so without the shift every vector beyond reach drops out of the
// sum (all of them, when x is far from every one). The shift keeps what
// the n dropped terms could add below one float32 rounding of the largest.
func (v *view) evaluate(sc *Scratch, vs vectors, w []float32, stride int, sums []float32) (factor float64) {
	x := &sc.query
	// Dense storage's methods are called directly here (inlined, where
	// the interface's would each be a call): at small budgets the calls
	// around the kernels are a visible part of f(x).
	d, dense := vs.(denseVectors)
	var e expansion
	if dense {
		e = v.expansionOf(x)
	}
	if dense && !sc.far && d.Len() > 0 && d.Padded() <= simd.ScoreTilesSlots() && !e.use {
		// One pass without the shift: what the two-phase kernels below
		// give when no shift is needed, bit for bit.
		n := d.Len()
		nearest := simd.ScoreTiles(sums, sc.buf[:d.Padded()], sc.denseQuery(x, v.dim), d.Tiles(), w, stride, v.dim, n, v.scale)
		if !(v.scale*nearest < simd.ExpMin+floorMargin(n)) {
			return 1
		}
		// The shift is needed after all: computed again below, and far
		// queries tend to come in runs (raw features), so the next one
		// goes there first.
		sc.far = true
	}
	n := vs.Len()
	if n == 0 {
		clear(sums)
		return 1
	}
	buf := sc.buf[:vs.Padded()]
	floor := simd.ExpMin + floorMargin(n)
	vs.distances(v, buf, x, sc, e)
	var offset float32
	nearest := simd.Min(buf[:n])
	sc.far = v.scale*nearest < floor
	if sc.far {
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
//
// 2^bits and 2^−bits are exact as a shift and its reciprocal: math.Ldexp,
// twice per query, was a visible part of a sparse query's step.
func (v *view) expansionExact(xnorm float64, integral bool, steps, bits int) bool {
	bound := 2 * (v.maxNorm + xnorm)
	limit := float64(uint64(1) << bits)
	if integral && v.integral && bound < limit {
		return true
	}
	return float64(steps)*bound*(1/limit)*float64(-v.scale) <= 1e-6
}
