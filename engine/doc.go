// Package engine evaluates Gaussian kernel sums over a budget of support vectors.
//
// A kernel expansion is f(x) = Σᵢ wᵢ·κ(x, sᵢ) with κ(x, y) = exp(−‖x−y‖²/(2σ²)).
// A Set is the mutable support set a learner trains: vectors and one or more
// float32 weight columns kept aligned with them through swap-remove
// deletion. A Model is an immutable snapshot of a Set, safe for concurrent
// prediction, that can be saved and loaded on its own (Model.Save,
// LoadModel). Features is a random Fourier feature map of the same kernel,
// for learners linear in its features. The arithmetic of the kernel values
// runs in package simd on the implementation chosen for the CPU.
//
// # Inputs
//
// A Vector is dense (Dense: every feature) or sparse (Sparse: the non-zero
// features by 0-based index, so feature "1" of a LIBSVM file is index 0).
//
// # Evaluations and concurrency
//
// Set.Evaluate computes the kernel values of a query with every support
// vector and, in the same pass, the sums of as many weight columns as asked.
// The kernel values stay in the Scratch it ran on (Scratch.Kernels), where a
// learner reads them for its update, and Set.Sums sums further columns from
// them. A Scratch is the working memory of one goroutine: a learner keeps
// one (the zero value is ready to use), and goroutines that score a set at
// once borrow one each (Set.Borrow, Set.Release). A Model borrows its own,
// so its methods take none. Nothing allocates once the scratch has grown.
//
// Batches (Set.ScoreBatch, Model.ScoreBatch) take a context, which they
// check before the first query and every 256 queries, and write their
// outputs row-major: the n outputs of query k at dst[k·n : (k+1)·n].
//
// # Far queries
//
// When x is far from every stored vector (raw features: spambase, σ = 8),
// every exp(−‖x−sᵢ‖²/(2σ²)) may lie below float32's range, yet the sign of
// their sum decides the prediction. So whenever the largest kernel value
// would come near the bottom of the range the exponent is shifted by the
// nearest squared distance d_min: f = exp(−d_min/(2σ²))·Σᵢ
// wᵢ·exp(−(dᵢ−d_min)/(2σ²)), the factor in float64. Scores include the
// factor; the kernel values of an evaluation are kept relative to it, and
// Scratch.Kernels returns both. Whether the shift is needed is known only
// once d_min is: at small budgets (simd.ScoreTilesSlots) with dense
// storage an evaluation runs in one pass without it, and a far query runs
// again with it; a scratch whose last query was far starts the next one
// there. Both give the bits of the two passes.
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
//
// Set.ExactKernels computes kernel values in float64 instead, for learners
// that solve linear systems in the Gram matrix.
//
// # Model files
//
// Model.Save writes a Model as a versioned little-endian binary file that
// LoadModel turns back into a Model scoring every query with the same bits:
// the same storage, vectors, float32 weights and bounds. The layout of
// format version 1, in order:
//
//	header   magic "BOGDSNP\x00" (8 bytes), version uint32 (= 1),
//	         total file length uint64 (header and checksum included)
//	model    storage uint8 (1 dense, 2 sparse), dimension int64,
//	         sigma float64, outputs uint32, count int64, norm bound
//	         float64 and integral uint8 (Set.Bounds of the set it came from)
//	vectors  count times: the vector's weight for each output (float32),
//	         then the vector: dense, dimension float32 values; sparse, its
//	         number of non-zeros uint32, their 0-based feature indices
//	         uint32 (strictly increasing, below the dimension), then their
//	         values float32 (none zero)
//	trailer  CRC-32C (Castagnoli) uint32 of every byte before it
//
// A feature model (NewFeatureModel) has storage 3, count its number of
// frequencies D, bounds 0 and 1, and in place of the vectors the D
// frequencies (dimension float32 values each), then each output's weights
// over its Features.Len() features (float32, padding entries 0).
//
// Floats are stored as their IEEE 754 bits. The dimension is at most 2²⁴
// with dense storage and for a feature model (a tile of 16 dense vectors is
// then 1 GiB), 2³¹ with sparse storage; outputs are 1 to 65,536. LoadModel
// checks, in this order, the magic, the version, the length (a short input
// is a truncated file, unless the checksum shows the length field
// corrupted), the checksum, then every field: a known storage, the
// dimension within its limit, sigma as New accepts it, outputs and count
// within their limits and within the bytes that remain, every weight and
// value finite, every vector well formed, the bounds true of the vectors
// (Set.SetBounds). It allocates in proportion to the input, at most 16
// times a dense file of one vector (a tile holds 16), and first checks that
// the model's claim, padding included, is within DefaultMaxMemory (4 GiB;
// LoadOptions sets another): a larger one is ErrModelTooLarge. LoadModelFile
// reads regular files only, of at most that many bytes; LoadModel reads no
// more from its reader.
package engine
