package bogd

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/atomicfile"
	"github.com/bogd-project/bogd/internal/binrec"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/task"
)

// The model format, which doc.go specifies.
const (
	modelMagic    = "BOGDMDL\x00"
	formatVersion = 4
	// plainVersion is the version Save writes for a learner without an
	// input preparation: version 4 only adds the preparation, so such a
	// file stays what it was (and older programs read it).
	plainVersion = 3
	// oldestVersion is the oldest format Load reads. Version 1 also stored
	// the Projectron++'s Gram matrix, which version 2 no longer keeps;
	// version 3 added the tasks, version 4 the input preparation.
	oldestVersion = 1

	// maxModelDim is the largest dimension of a model file with dense
	// storage: 64 MiB per support vector at this size.
	maxModelDim = 1 << 24
	// maxSparseModelDim is the largest dimension of a model file with
	// sparse storage, whose vectors take O(non-zeros).
	maxSparseModelDim = math.MaxInt32
	// maxModelBudget is the largest budget a model file holds; the
	// learners preallocate per-slot arrays of that length.
	maxModelBudget = 1 << 20
	// maxProjectronBudget is the largest budget of a saved Projectron or
	// Projectron++, whose K⁻¹ (and K) are Budget×Budget float64 matrices:
	// 128 MiB each at this size.
	maxProjectronBudget = 1 << 12

	maxPCGState = 256 // bytes of a marshalled rand.PCG (20 in Go 1.26)
)

// Errors of Load and LoadFile; test with errors.Is.
var (
	ErrNotModel     = errors.New("not a bogd model")
	ErrTruncated    = errors.New("truncated model file")
	ErrChecksum     = errors.New("model file corrupted (checksum mismatch)")
	ErrNewerVersion = errors.New("model format version is newer than this program supports")
	ErrInvalidModel = errors.New("invalid model file")
	// ErrTooLarge: the model would claim more memory than allowed
	// (LoadOptions.MaxMemory), or its file is longer than that.
	ErrTooLarge = errors.New("model beyond the memory limit")
)

// modelFormat frames model files.
var modelFormat = &binrec.Format{
	Magic:     modelMagic,
	Version:   formatVersion,
	Oldest:    oldestVersion,
	NotRecord: ErrNotModel,
	Truncated: ErrTruncated,
	Checksum:  ErrChecksum,
	Newer:     ErrNewerVersion,
	Invalid:   ErrInvalidModel,
	TooLarge:  ErrTooLarge,
}

// persistent is what every learner of this package implements: its step,
// its base, and its algorithm-specific state (state.go).
type persistent interface {
	rule
	core() *base
	// appendState appends the algorithm's own state to b.
	appendState(b []byte) []byte
	// loadState reads that state back into a learner whose base (set,
	// weights, scales, random state) is already loaded, validating it.
	loadState(r *reader) error
}

func (b *base) core() *base { return b }

// Save writes the learner in the model format (the package documentation,
// Model files): Load turns it back
// into a learner that continues exactly where this one stands.
func (l *Learner) Save(w io.Writer) error {
	data, err := l.saved()
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

// SaveFile writes the learner to path atomically: on any error an existing
// file at path is left as it was and no temporary file remains. A new file
// gets mode 0644; an existing file's mode is kept.
func (l *Learner) SaveFile(path string) error {
	data, err := l.saved()
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, data, atomicfile.Options{FailAt: saveHook}); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

// saved encodes the learner for a model file, within the file's limits.
func (l *Learner) saved() ([]byte, error) {
	if err := checkLimits(l.b.algo, l.b.cfg); err != nil {
		return nil, fmt.Errorf("save model: %v", err)
	}
	return encode(l.b, l.in)
}

// Load reads one learner of any task and any model format version written
// so far (1 to 4) from r. It reads exactly the bytes of that model, so
// models may follow each other in a stream. The learner may claim at most
// DefaultMaxMemory bytes (see LoadOptions).
func Load(r io.Reader) (*Learner, error) { return load(r, DefaultMaxMemory) }

// LoadFile reads the learner in the model file at path (see Load), which
// must be a regular file: a device or a pipe is refused before it is read.
// Errors name the file.
func LoadFile(path string) (*Learner, error) { return loadFile(path, DefaultMaxMemory) }

func load(r io.Reader, maxMemory int64) (*Learner, error) {
	data, err := modelFormat.Read(r, maxMemory)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	return decode(data, maxMemory)
}

func loadFile(path string, maxMemory int64) (*Learner, error) {
	data, err := modelFormat.ReadFile(path, maxMemory)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err) // the error names the file
	}
	l, err := decode(data, maxMemory)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// saveHook, when set (tests only), fails the steps of SaveFile's write
// (see atomicfile.Options.FailAt).
var saveHook func(step string) error

// encode serialises the learner of base b with its input preparation,
// whatever its size.
func encode(b *base, in prep.Input) ([]byte, error) {
	set := b.set
	n, dim, cols := set.Len(), set.Dim(), set.Columns()
	// A learner whose weights overflowed (an η far beyond float32's range)
	// would write a file that Load rejects: refuse it here.
	for col := range cols {
		for i, w := range set.WeightColumn(col) {
			if !finite32(w) {
				return nil, fmt.Errorf("save model: %v: weight %d of column %d is %v", b.algo, i, col, w)
			}
		}
	}
	if math.IsNaN(b.scale) || math.IsInf(b.scale, 0) || math.IsNaN(b.group) || math.IsInf(b.group, 0) {
		return nil, fmt.Errorf("save model: %v: weight scales %v and %v", b.algo, b.scale, b.group)
	}
	perVector := dim // floats per stored vector: dense rows, or a guess of sparse ones (append grows)
	if set.Storage() == engine.SparseStorage {
		perVector = 64
	}
	version := uint32(formatVersion)
	if in.IsZero() {
		version = plainVersion
	}
	out := modelFormat.BeginVersion(version, 256+n*(perVector+cols)*4)

	c := b.cfg
	out = append(out, byte(b.algo))
	out = le.AppendUint64(out, uint64(int64(c.Dim)))
	out = le.AppendUint64(out, uint64(int64(c.Budget)))
	for _, v := range []float64{c.Sigma, c.Eta, c.Lambda, c.Gamma} {
		out = binrec.AppendF64(out, v)
	}
	out = le.AppendUint64(out, c.Seed)
	out = append(out, byte(c.Projection))
	out = binrec.AppendF64(out, c.ProjectronThreshold)
	out = append(out, taskCode(c.Task))
	out = binrec.AppendF64(out, c.Epsilon)
	out = binrec.AppendF64(out, c.Nu)
	out = binrec.AppendF64(out, c.C)
	out = le.AppendUint64(out, uint64(int64(c.Rank)))
	out = le.AppendUint64(out, uint64(int64(c.Features)))
	out = binrec.AppendBool(out, c.Calibrate)
	out = append(out, byte(c.Storage))
	out = le.AppendUint64(out, uint64(len(c.Classes)))
	for _, label := range c.Classes {
		out = le.AppendUint64(out, uint64(int64(label)))
	}

	out = le.AppendUint64(out, uint64(dim))
	out = le.AppendUint64(out, uint64(n))
	out = le.AppendUint32(out, uint32(cols))
	maxNorm, integral := set.Bounds()
	out = binrec.AppendF64(out, maxNorm)
	out = binrec.AppendBool(out, integral)
	sparse := set.Storage() == engine.SparseStorage
	out = binrec.AppendBool(out, sparse)
	var sv engine.Vector
	for i := range n {
		sv = set.SupportVector(i, sv)
		if sparse {
			out = le.AppendUint32(out, uint32(len(sv.Index)))
			for k, j := range sv.Index {
				out = le.AppendUint32(out, uint32(j))
				out = binrec.AppendF32(out, sv.Value[k])
			}
			continue
		}
		for _, v := range sv.Dense {
			out = binrec.AppendF32(out, v)
		}
	}
	for col := range cols {
		for _, w := range set.WeightColumn(col) {
			out = binrec.AppendF32(out, w)
		}
	}

	out = binrec.AppendF64(out, b.scale)
	out = binrec.AppendF64(out, b.group)
	pcg, err := b.pcg.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("save model: %w", err)
	}
	out = le.AppendUint64(out, uint64(len(pcg)))
	out = append(out, pcg...)
	if b.keepsPatterns() {
		for _, p := range b.pat[:n] {
			out = le.AppendUint32(out, uint32(p.pos))
			out = le.AppendUint32(out, uint32(p.neg))
		}
	}
	if b.cal != nil {
		out = binrec.AppendF64(out, b.cal.A)
		out = binrec.AppendF64(out, b.cal.gA)
		for i := range b.cal.B {
			out = binrec.AppendF64(out, b.cal.B[i])
			out = binrec.AppendF64(out, b.cal.gB[i])
		}
	}

	out = b.rule.appendState(out)
	if version >= 4 {
		if out, err = in.AppendBinary(out); err != nil {
			return nil, fmt.Errorf("save model: %w", err)
		}
	}
	return binrec.End(out), nil
}

// The task codes of model files.
const (
	codeBinary byte = iota
	codeMulticlass
	codeRegression
)

// taskCode is the code of a resolved task in model files.
func taskCode(t task.Task) byte {
	switch t {
	case task.Multiclass:
		return codeMulticlass
	case task.Regression:
		return codeRegression
	}
	return codeBinary
}

// taskOfCode reads a task code; ok is false for an unknown one.
func taskOfCode(code byte) (t task.Task, ok bool) {
	switch code {
	case codeBinary:
		return task.Binary, true
	case codeMulticlass:
		return task.Multiclass, true
	case codeRegression:
		return task.Regression, true
	}
	return task.Auto, false
}

// checkLimits rejects what a model file cannot hold.
func checkLimits(a Algorithm, c Config) error {
	switch {
	case c.Dim > maxSparseModelDim:
		return fmt.Errorf("dimension %d is above the largest a model file holds (%d, sparse storage)", c.Dim, maxSparseModelDim)
	case c.Dim > maxModelDim && storageOf(c) == engine.DenseStorage:
		return fmt.Errorf("dimension %d is above the largest a model file with dense storage holds (%d)", c.Dim, maxModelDim)
	case (a == Projectron || a == ProjectronPP) && c.Budget > maxProjectronBudget:
		return fmt.Errorf("%v budget %d is above the largest a model file holds (%d)", a, c.Budget, maxProjectronBudget)
	case a.Budgeted() && c.Budget > maxModelBudget:
		return fmt.Errorf("budget %d is above the largest a model file holds (%d)", c.Budget, maxModelBudget)
	}
	return nil
}

// storageOf is the storage a learner of configuration c keeps (an unknown
// one counts as dense: validate refuses it).
func storageOf(c Config) engine.Storage {
	s, err := c.Storage.Resolve(c.Dim)
	if err != nil {
		return engine.DenseStorage
	}
	return s
}

// decode parses data, which must hold one model and nothing after it
// (binrec.Format.Open). With a positive maxMemory, data come from outside:
// the learner must be within what a model file may hold (checkLimits) and
// claim at most maxMemory bytes (memory), both checked before anything is
// allocated for it. Without, data are a learner's own (Predictor).
func decode(data []byte, maxMemory int64) (*Learner, error) {
	body, version, err := modelFormat.Open(data)
	if err != nil {
		return nil, err
	}
	r := newReader(body, version)
	r.maxMemory = maxMemory
	l, err := r.learner()
	if err == nil && r.version >= 4 {
		err = r.input(l)
	}
	if err == nil {
		err = r.done("the learner's state")
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// learner reads everything between the header and the checksum.
func (r *reader) learner() (*Learner, error) {
	a := Algorithm(r.u8())
	var c Config
	c.Task = task.Binary // versions 1 and 2 held binary learners only
	c.Dim = r.int("dimension", maxSparseModelDim)
	c.Budget = int(r.i64())
	// Configuration numbers are kept bit for bit: validate judges them
	// (an algorithm may ignore a parameter, whatever its value).
	c.Sigma, c.Eta, c.Lambda, c.Gamma = r.raw64(), r.raw64(), r.raw64(), r.raw64()
	c.Seed = r.u64()
	c.Projection = Projection(r.u8())
	c.ProjectronThreshold = r.raw64()
	if r.version >= 3 {
		code := r.u8()
		t, ok := taskOfCode(code)
		if !ok && r.d.Err() == nil {
			return nil, r.fail("unknown task code %d", code)
		}
		c.Task = t
		c.Epsilon, c.Nu, c.C = r.raw64(), r.raw64(), r.raw64()
		c.Rank, c.Features = int(r.i64()), int(r.i64())
		c.Calibrate = r.bool("calibrate flag")
		c.Storage = engine.Storage(r.u8())
		classes := r.int("class count", task.MaxClasses)
		if r.d.Err() == nil && classes > r.d.Len()/8 {
			return nil, r.fail("%d classes need %d bytes, %d remain", classes, 8*classes, r.d.Len())
		}
		for range classes {
			label := r.i64()
			if r.d.Err() == nil && (label < math.MinInt32 || label > math.MaxInt32) {
				return nil, r.fail("class label %d out of range", label)
			}
			c.Classes = append(c.Classes, int(label))
		}
	}
	if r.d.Err() != nil {
		return nil, r.d.Err()
	}
	if a >= numAlgorithms {
		return nil, r.fail("unknown algorithm %d", a)
	}
	if err := c.validate(a); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidModel, err)
	}
	if err := checkLimits(a, c); err != nil && r.maxMemory > 0 {
		return nil, r.fail("%v", err)
	}

	dim := r.int("support vector dimension", maxSparseModelDim)
	if r.d.Err() == nil && dim != c.Dim {
		return nil, r.fail("support vector dimension %d does not match the configured dimension %d", dim, c.Dim)
	}
	count := r.int("support vector count", math.MaxInt32)
	var cols int
	if r.version >= 3 {
		cols = int(r.u32())
	} else {
		cols = int(r.u8())
	}
	maxNorm := r.f64()
	integral := r.bool("integral flag")
	sparse := r.version >= 3 && r.bool("sparse-storage flag")
	perVector := 4 * dim // the least bytes a stored vector takes
	if sparse {
		perVector = 4
	}
	wantCols := columnsOf(a, c)
	switch {
	case r.d.Err() != nil:
		return nil, r.d.Err()
	case cols != wantCols:
		return nil, r.fail("%d weight columns, %v has %d", cols, a, wantCols)
	case a.Budgeted() && count > c.Budget:
		return nil, r.fail("%d support vectors over the budget %d", count, c.Budget)
	case count > r.d.Len()/(perVector+4*cols):
		return nil, r.fail("%d support vectors of dimension %d need %d bytes, %d remain", count, dim, count*(perVector+4*cols), r.d.Len())
	}
	// Each stored non-zero takes 8 bytes of the file.
	if claim := memory(a, c, count, r.d.Len()/8*boolInt(sparse)); r.maxMemory > 0 && claim > r.maxMemory {
		return nil, fmt.Errorf("%w: %v with %d support vectors, budget %d, dimension %d and %d weight columns claims %s, the limit is %s (LoadOptions.MaxMemory)",
			ErrTooLarge, a, count, c.Budget, c.Dim, cols, byteSize(claim), byteSize(r.maxMemory))
	}

	l, err := emptyLearner(a, c, count)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err) // BOGD_SIMD names no usable implementation
	}
	b := l.core()
	if wantSparse := b.set.Storage() == engine.SparseStorage; sparse != wantSparse {
		return nil, r.fail("sparse-storage flag %v for a learner that stores its vectors %v", sparse, b.set.Storage())
	}
	if err := r.vectors(b.set, count, sparse); err != nil {
		return nil, err
	}
	for col := range cols {
		w := b.set.WeightColumn(col)
		for i := range w {
			if w[i] = r.f32(); r.d.Err() == nil && !finite32(w[i]) {
				return nil, r.fail("weight %d of column %d is %v", i, col, w[i])
			}
		}
	}
	if err := b.set.SetBounds(maxNorm, integral); err != nil && r.d.Err() == nil {
		return nil, r.fail("%v", err)
	}

	b.scale, b.group = r.f64(), r.f64()
	pcgLen := r.int("random state length", maxPCGState)
	pcg := r.take(pcgLen)
	if r.d.Err() != nil {
		return nil, r.d.Err()
	}
	if err := b.pcg.UnmarshalBinary(pcg); err != nil {
		return nil, r.fail("random state: %v", err)
	}
	// The algorithms keep the scale within [1e-15, 1e15] (base.shrink);
	// the Projectron never changes it from 1.
	if !(b.scale >= 1e-15 && b.scale <= 1e15) || ((a == Projectron || a == ProjectronPP) && b.scale != 1) {
		return nil, r.fail("weight scale %v out of range", b.scale)
	}
	// The group columns' value lies in [0, γη]; learners without them keep
	// it 0.
	grouped := cols > b.outputs
	if !grouped && b.group != 0 || grouped && !(b.group >= 0 && b.group <= c.Gamma*c.Eta*(1+1e-6)) {
		return nil, r.fail("group weight %v out of range", b.group)
	}
	if err := r.patterns(b); err != nil {
		return nil, err
	}
	if b.cal != nil {
		b.cal.A, b.cal.gA = r.f64(), r.f64()
		for i := range b.cal.B {
			b.cal.B[i], b.cal.gB[i] = r.f64(), r.f64()
			if r.d.Err() == nil && b.cal.gB[i] < 0 {
				return nil, r.fail("calibration: a negative sum of squares %v", b.cal.gB[i])
			}
		}
		if r.d.Err() == nil && b.cal.gA < 0 {
			return nil, r.fail("calibration: a negative sum of squares %v", b.cal.gA)
		}
	}
	if err := l.loadState(r); err != nil {
		return nil, err
	}
	if err := r.d.Err(); err != nil {
		return nil, err
	}
	return &Learner{b: b}, nil
}

// vectors reads count support vectors into set: dense rows of Dim float32
// values, or (sparse) each one's number of non-zeros, then its 0-based
// indices and values, interleaved (uint32, float32).
func (r *reader) vectors(set *engine.Set, count int, sparse bool) error {
	dim := set.Dim()
	var row []float32
	var idx []int32
	for i := range count {
		var x engine.Vector
		if sparse {
			nnz := int(r.u32())
			if r.d.Err() == nil && nnz > dim {
				return r.fail("support vector %d: %d non-zeros in dimension %d", i, nnz, dim)
			}
			if r.d.Err() == nil && nnz > r.d.Len()/8 {
				return r.fail("support vector %d: %d non-zeros need %d bytes, %d remain", i, nnz, 8*nnz, r.d.Len())
			}
			idx, row = idx[:0], row[:0]
			for range nnz {
				idx, row = append(idx, int32(r.u32())), append(row, r.f32())
			}
			x = engine.Sparse(idx, row)
		} else {
			row = row[:0]
			for range dim {
				row = append(row, r.f32())
			}
			x = engine.Dense(row)
		}
		if r.d.Err() != nil {
			return r.d.Err()
		}
		if _, err := set.Add(x); err != nil {
			return r.fail("support vector %d: %v", i, err)
		}
	}
	return nil
}

// columnsOf is the number of weight columns of algorithm a's learner: one
// per output, twice that for BOGD's and BOGD++'s two groups.
func columnsOf(a Algorithm, c Config) int {
	k := 1
	if c.Task == task.Multiclass {
		k = len(c.Classes)
	}
	switch a {
	case BOGD, BOGDpp:
		return 2 * k
	case NOGD:
		return k + c.Rank
	}
	return k
}

// keepsPatterns reports whether the learner's coefficients are a scalar
// times a pattern per support vector (all but the Projectrons).
func (b *base) keepsPatterns() bool {
	switch b.algo {
	case Projectron, ProjectronPP, BPAS, NOGD, BSGDMerge, FOGD, Auto:
		return false
	}
	return true
}

// patterns reads the support vectors' patterns (version 3), or derives them
// from the signs of binary weights (versions 1 and 2, which had only binary
// learners and no patterns): a weight in the group column of BOGD and
// BOGD++, else in column 0. Every pattern must name outputs of the learner,
// and every weight must be zero off its pattern and carry its sign on it.
func (r *reader) patterns(b *base) error {
	if !b.keepsPatterns() {
		return nil
	}
	n := b.set.Len()
	capacity := n
	if b.algo.Budgeted() {
		capacity = max(n, b.cfg.Budget) // memory counted it
	}
	b.pat = make([]pattern, n, capacity)
	if r.version < 3 {
		w := b.set.WeightColumn(b.set.Columns() - 1)
		for i := range b.pat {
			v := w[i]
			if v == 0 {
				v = b.set.WeightColumn(0)[i]
			}
			b.pat[i] = signed(float64(v))
		}
		return nil
	}
	if n > r.d.Len()/8 {
		return r.fail("%d patterns need %d bytes, %d remain", n, 8*n, r.d.Len())
	}
	k := int32(b.outputs)
	for i := range b.pat {
		p := pattern{pos: int32(r.u32()), neg: int32(r.u32())}
		if p.pos < -1 || p.pos >= k || p.neg < -1 || p.neg >= k || p.pos == p.neg || p.pos < 0 && p.neg < 0 ||
			b.outputs == 1 && p.pos >= 0 && p.neg >= 0 {
			return r.fail("support vector %d has the pattern (%d, %d) for %d outputs", i, p.pos, p.neg, k)
		}
		b.pat[i] = p
		for c := range b.set.Columns() {
			v, want := float64(b.set.WeightColumn(c)[i]), p.sign(c%b.outputs)
			if v != 0 && (want == 0 || math.Signbit(v) != (want < 0)) {
				return r.fail("weight %d of column %d is %v, off the sign of its pattern (%d, %d)", i, c, v, p.pos, p.neg)
			}
		}
	}
	return r.d.Err()
}

// emptyLearner builds a learner as New does, but sizes its support set by
// count when the budget times the dimension is large: a model file's
// Budget and Dim are not bounded by its length, and the set grows on demand
// with the same results (only its capacity differs).
func emptyLearner(a Algorithm, c Config, count int) (persistent, error) {
	capacity := count
	if a.Budgeted() && c.Budget*c.Dim <= 1<<24 {
		capacity = c.Budget
	}
	return build(a, c, capacity, rand.NewPCG(c.Seed, 0)) // the PCG state is loaded from the file
}

func finite32(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }

// reader decodes the fields of a model of a format version: a
// binrec.Decoder whose errors wrap ErrInvalidModel (the first problem
// sticks, d.Err), with the names the loaders read by.
type reader struct {
	d       *binrec.Decoder
	version uint32 // format version of the file
	// maxMemory, when positive, bounds the learner read (decode).
	maxMemory int64
}

func newReader(body []byte, version uint32) *reader {
	return &reader{d: binrec.NewDecoder(body, ErrInvalidModel), version: version}
}

// fail records (if it is the first) and returns an invalid-field error.
func (r *reader) fail(format string, args ...any) error { return r.d.Fail(format, args...) }

func (r *reader) done(after string) error        { return r.d.Done(after) }
func (r *reader) take(n int) []byte              { return r.d.Bytes(n) }
func (r *reader) u8() uint8                      { return r.d.U8() }
func (r *reader) u32() uint32                    { return r.d.U32() }
func (r *reader) u64() uint64                    { return r.d.U64() }
func (r *reader) i64() int64                     { return r.d.I64() }
func (r *reader) f32() float32                   { return r.d.F32() }
func (r *reader) raw64() float64                 { return r.d.F64() } // any float64
func (r *reader) bool(what string) bool          { return r.d.Bool(what) }
func (r *reader) int(what string, limit int) int { return r.d.Count(what, limit) }

// f64 reads a float64 that must be finite.
func (r *reader) f64() float64 {
	v := r.raw64()
	if math.IsNaN(v) || math.IsInf(v, 0) {
		r.fail("a number is %v", v)
		return 0
	}
	return v
}

// slots reads n int32 slot numbers, each in [0, limit), and fails if one
// repeats.
func (r *reader) slots(what string, n, limit int) []int32 {
	if r.d.Err() != nil {
		return nil
	}
	if n > r.d.Len()/4 {
		r.fail("%d %s need %d bytes, %d remain", n, what, 4*n, r.d.Len())
		return nil
	}
	out := make([]int32, n)
	seen := make([]bool, limit)
	for k := range out {
		s := int32(r.u32())
		if s < 0 || int(s) >= limit || seen[s] {
			r.fail("%s: entry %d is slot %d (of %d, or repeated)", what, k, s, limit)
			return nil
		}
		seen[s], out[k] = true, s
	}
	return out
}
