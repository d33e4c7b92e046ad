package bogd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/atomicfile"
)

// Model files.
//
// Save writes a learner as a versioned little-endian binary file that Load
// turns back into a learner continuing exactly where the saved one stood:
// the same support vectors and float32 weight bits, scale factors, random
// state and algorithm state, so that training resumes with bit-identical
// scores. The layout of format version 3, in order:
//
//	header   magic "BOGDMDL\x00" (8 bytes), version uint32 (= 3),
//	         total file length uint64 (header and checksum included)
//	learner  algorithm uint8; Config: Dim int64, Budget int64, Sigma, Eta,
//	         Lambda, Gamma float64, Seed uint64, Projection uint8,
//	         ProjectronThreshold float64, Task uint8, Epsilon, Nu, C float64,
//	         Rank, Features int64, Calibrate uint8, Storage uint8,
//	         the number of classes int64, then each class label int64
//	set      dimension int64 (= Dim), count int64, weight columns uint32,
//	         norm bound float64 and integral uint8 (engine.Set.Bounds),
//	         sparse uint8 (the set stores its vectors sparsely), then count
//	         vectors: dense, Dim float32 values each; sparse, the number of
//	         non-zeros uint32, then each 0-based index uint32 and value
//	         float32; then each weight column: count float32
//	base     scale float64, group float64, PCG state (length int64, then
//	         the bytes of rand.PCG.MarshalBinary), then, for every learner
//	         whose coefficients are a scalar times a pattern (keepsPatterns),
//	         each support vector's pattern: its positive and negative output
//	         as int32 each (−1: none); then, with Calibrate, the
//	         calibration: A and its AdaGrad sum, then each B and its sum
//	         (float64)
//	state    the algorithm's own state (state.go documents each)
//	trailer  CRC-32C (Castagnoli) uint32 of every byte before it
//
// Versions 1 and 2 held binary learners only: no task fields and no
// patterns (a pattern is the sign of the vector's weight), and state.go
// says where their algorithm states differ.
//
// Floats are stored as their IEEE 754 bits. Load checks, in this order, the
// magic, the version, the length (a short input is a truncated file), the
// checksum, then every field: counts non-negative, within the limits below
// and within the bytes that remain, the dimension equal to Dim, no NaN or
// infinite value, the configuration valid for the algorithm and every
// algorithm invariant the state must satisfy. It never allocates more than
// the input holds, except what the learner itself preallocates for its
// Dim and Budget, which the limits bound.
const (
	modelMagic    = "BOGDMDL\x00"
	formatVersion = 3
	// oldestVersion is the oldest format Load reads. Version 1 also stored
	// the Projectron++'s Gram matrix, which version 2 no longer keeps;
	// version 3 added the tasks.
	oldestVersion = 1
	headerSize    = len(modelMagic) + 4 + 8
	trailerSize   = 4

	// MaxModelDim is the largest dimension of a model file with dense
	// storage: 64 MiB per support vector at this size.
	MaxModelDim = 1 << 24
	// MaxSparseModelDim is the largest dimension of a model file with
	// sparse storage, whose vectors take O(non-zeros).
	MaxSparseModelDim = math.MaxInt32
	// MaxModelBudget is the largest budget a model file holds; the
	// learners preallocate per-slot arrays of that length.
	MaxModelBudget = 1 << 20
	// MaxProjectronBudget is the largest budget of a saved Projectron or
	// Projectron++, whose K⁻¹ (and K) are Budget×Budget float64 matrices:
	// 128 MiB each at this size.
	MaxProjectronBudget = 1 << 12

	maxPCGState = 256 // bytes of a marshalled rand.PCG (20 in Go 1.26)
)

// Errors of Load and LoadFile; test with errors.Is.
var (
	ErrNotModel     = errors.New("not a bogd model")
	ErrTruncated    = errors.New("truncated model file")
	ErrChecksum     = errors.New("model file corrupted (checksum mismatch)")
	ErrNewerVersion = errors.New("model format version is newer than this program supports")
	ErrInvalidModel = errors.New("invalid model file")
	// ErrNotBinary is returned by Load and LoadFile for a model of another
	// task than binary classification: LoadOnline reads every task.
	ErrNotBinary = errors.New("not a binary classifier")
)

// versionError reports a format version this program cannot read.
type versionError struct{ version uint32 }

func (e versionError) Error() string {
	if e.version == 0 {
		return "model format version 0 is not a valid version"
	}
	return fmt.Sprintf("model format version %d is newer than this program supports (%d)", e.version, formatVersion)
}

func (e versionError) Is(target error) bool {
	return (target == ErrNewerVersion && e.version > formatVersion) || (target == ErrInvalidModel && e.version == 0)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// persistent is what every learner of this package implements to be saved:
// its base, and its algorithm-specific state (state.go).
type persistent interface {
	Online
	rule
	core() *base
	// appendState appends the algorithm's own state to b.
	appendState(b []byte) []byte
	// loadState reads that state back into a learner whose base (set,
	// weights, scales, random state) is already loaded, validating it.
	loadState(r *reader) error
}

func (b *base) core() *base { return b }

// Save writes l, a learner of this package (from New, NewOnline or a
// Load), in the model format. It may run while other goroutines predict,
// but not while l learns.
func Save(w io.Writer, l Base) error {
	data, err := encode(l)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

// Load reads one binary classifier written by Save and returns it (a model
// of another task is an error wrapping ErrNotBinary). It reads exactly the
// bytes of that model, so models may follow each other in a stream.
func Load(r io.Reader) (Learner, error) {
	l, err := LoadOnline(r)
	if err != nil {
		return nil, err
	}
	return binaryOf(l)
}

// LoadOnline reads one learner of any task written by Save.
func LoadOnline(r io.Reader) (Online, error) {
	head := make([]byte, headerSize)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("load model: %w", err)
	}
	head = head[:n]
	size, err := checkHeader(head)
	if err != nil {
		return nil, err
	}
	// The rest grows as it arrives: a hostile length costs nothing.
	var buf bytes.Buffer
	buf.Write(head)
	if _, err := io.Copy(&buf, io.LimitReader(r, int64(size-headerSize))); err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	l, _, err := decode(buf.Bytes())
	return l, err
}

// binaryOf returns l as a binary Learner, or ErrNotBinary.
func binaryOf(l Online) (Learner, error) {
	if l.Task() != Binary {
		return nil, fmt.Errorf("%w: a %v %v model (load it with LoadOnline)", ErrNotBinary, l.Task(), l.Algorithm())
	}
	return l.(Learner), nil
}

// SaveFile writes l to path atomically (atomicfile.Write): on any error an
// existing file at path is left as it was and no temporary file remains. A
// new file gets mode 0644; an existing file's mode is kept.
func SaveFile(path string, l Base) error {
	data, err := encode(l)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, data, atomicfile.Options{FailAt: saveHook}); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

// LoadFile reads the binary classifier in the model file at path (see
// Load). Errors name the file.
func LoadFile(path string) (Learner, error) {
	l, err := LoadOnlineFile(path)
	if err != nil {
		return nil, err
	}
	b, err := binaryOf(l)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// LoadOnlineFile reads the learner of any task in the model file at path.
// Errors name the file.
func LoadOnlineFile(path string) (Online, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // *PathError names the file
	}
	l, size, err := decode(data)
	if err == nil && len(data) > size {
		err = fmt.Errorf("%w: %d bytes after the end of the model", ErrInvalidModel, len(data)-size)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// saveHook, when set (tests only), fails the steps of SaveFile's write
// (see atomicfile.Options.FailAt).
var saveHook func(step string) error

// encode serialises l.
func encode(l Base) ([]byte, error) {
	p, ok := l.(persistent)
	if !ok {
		return nil, fmt.Errorf("save model: a %T is not a learner of package bogd", l)
	}
	b := p.core()
	if err := checkLimits(b.algo, b.cfg); err != nil {
		return nil, fmt.Errorf("save model: %v", err)
	}
	set := b.set
	n, dim, cols := set.Len(), set.Dim(), set.Columns()
	// A learner whose weights overflowed (an η far beyond float32's range)
	// would write a file that Load rejects: refuse it here.
	for col := range cols {
		for i, w := range set.Weights(col) {
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
	out := make([]byte, 0, 256+n*(perVector+cols)*4)
	le := binary.LittleEndian
	out = append(out, modelMagic...)
	out = le.AppendUint32(out, formatVersion)
	out = le.AppendUint64(out, 0) // the length, filled in below

	c := b.cfg
	out = append(out, byte(b.algo))
	out = le.AppendUint64(out, uint64(int64(c.Dim)))
	out = le.AppendUint64(out, uint64(int64(c.Budget)))
	for _, v := range []float64{c.Sigma, c.Eta, c.Lambda, c.Gamma} {
		out = le.AppendUint64(out, math.Float64bits(v))
	}
	out = le.AppendUint64(out, c.Seed)
	out = append(out, byte(c.Projection))
	out = le.AppendUint64(out, math.Float64bits(c.ProjectronThreshold))
	out = append(out, byte(c.Task))
	out = le.AppendUint64(out, math.Float64bits(c.Epsilon))
	out = le.AppendUint64(out, math.Float64bits(c.Nu))
	out = le.AppendUint64(out, math.Float64bits(c.C))
	out = le.AppendUint64(out, uint64(int64(c.Rank)))
	out = le.AppendUint64(out, uint64(int64(c.Features)))
	out = append(out, boolByte(c.Calibrate))
	out = append(out, byte(c.Storage))
	out = le.AppendUint64(out, uint64(len(c.Classes)))
	for _, label := range c.Classes {
		out = le.AppendUint64(out, uint64(int64(label)))
	}

	out = le.AppendUint64(out, uint64(dim))
	out = le.AppendUint64(out, uint64(n))
	out = le.AppendUint32(out, uint32(cols))
	maxNorm, integral := set.Bounds()
	out = le.AppendUint64(out, math.Float64bits(maxNorm))
	out = append(out, boolByte(integral))
	sparse := set.Storage() == engine.SparseStorage
	out = append(out, boolByte(sparse))
	var sv engine.Vector
	for i := range n {
		sv = set.SupportVector(i, sv)
		if sparse {
			out = le.AppendUint32(out, uint32(len(sv.Index)))
			for k, j := range sv.Index {
				out = le.AppendUint32(out, uint32(j))
				out = le.AppendUint32(out, math.Float32bits(sv.Value[k]))
			}
			continue
		}
		for _, v := range sv.Dense {
			out = le.AppendUint32(out, math.Float32bits(v))
		}
	}
	for col := range cols {
		for _, w := range set.Weights(col) {
			out = le.AppendUint32(out, math.Float32bits(w))
		}
	}

	out = le.AppendUint64(out, math.Float64bits(b.scale))
	out = le.AppendUint64(out, math.Float64bits(b.group))
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
		out = le.AppendUint64(out, math.Float64bits(b.cal.A))
		out = le.AppendUint64(out, math.Float64bits(b.cal.gA))
		for i := range b.cal.B {
			out = le.AppendUint64(out, math.Float64bits(b.cal.B[i]))
			out = le.AppendUint64(out, math.Float64bits(b.cal.gB[i]))
		}
	}

	out = p.appendState(out)

	le.PutUint64(out[12:], uint64(len(out)+trailerSize))
	return le.AppendUint32(out, crc32.Checksum(out, castagnoli)), nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// checkLimits rejects what a model file cannot hold.
func checkLimits(a Algorithm, c Config) error {
	switch {
	case c.Dim > MaxSparseModelDim:
		return fmt.Errorf("dimension %d is above the largest a model file holds (%d, sparse storage)", c.Dim, MaxSparseModelDim)
	case c.Dim > MaxModelDim && storageOf(c) == engine.DenseStorage:
		return fmt.Errorf("dimension %d is above the largest a model file with dense storage holds (%d)", c.Dim, MaxModelDim)
	case (a == Projectron || a == ProjectronPP) && c.Budget > MaxProjectronBudget:
		return fmt.Errorf("%v budget %d is above the largest a model file holds (%d)", a, c.Budget, MaxProjectronBudget)
	case a.Budgeted() && c.Budget > MaxModelBudget:
		return fmt.Errorf("budget %d is above the largest a model file holds (%d)", c.Budget, MaxModelBudget)
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

// checkHeader checks the magic and version of a model's first bytes (all
// of the model or a prefix of it) and returns the total length it declares.
func checkHeader(data []byte) (size int, err error) {
	if len(data) < len(modelMagic) {
		if bytes.HasPrefix([]byte(modelMagic), data) {
			return 0, ErrTruncated
		}
		return 0, ErrNotModel
	}
	if string(data[:len(modelMagic)]) != modelMagic {
		return 0, ErrNotModel
	}
	if len(data) < len(modelMagic)+4 {
		return 0, ErrTruncated
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v < oldestVersion || v > formatVersion {
		return 0, versionError{v}
	}
	if len(data) < headerSize {
		return 0, ErrTruncated
	}
	declared := binary.LittleEndian.Uint64(data[12:])
	if declared < uint64(headerSize+trailerSize) || declared > math.MaxInt64 {
		// A length no model has: unless the checksum says otherwise,
		// that is corruption.
		if len(data) >= headerSize+trailerSize && checksumOK(data) {
			return 0, fmt.Errorf("%w: declared length %d", ErrInvalidModel, declared)
		}
		return 0, ErrChecksum
	}
	return int(declared), nil
}

func checksumOK(data []byte) bool {
	body := data[:len(data)-trailerSize]
	return crc32.Checksum(body, castagnoli) == binary.LittleEndian.Uint32(data[len(body):])
}

// decode parses one model from the start of data and returns it with its
// length. data may be shorter (a truncated model) or longer (bytes past the
// declared length are not read).
func decode(data []byte) (Online, int, error) {
	size, err := checkHeader(data)
	if err != nil {
		return nil, 0, err
	}
	if len(data) < size {
		// A corrupted length field, rather than a short file, shows as a
		// checksum that holds with the actual length in its place.
		if len(data) >= headerSize+trailerSize {
			patched := bytes.Clone(data)
			binary.LittleEndian.PutUint64(patched[12:], uint64(len(data)))
			if checksumOK(patched) {
				return nil, 0, ErrChecksum
			}
		}
		return nil, 0, fmt.Errorf("%w (%d of %d bytes)", ErrTruncated, len(data), size)
	}
	data = data[:size]
	if !checksumOK(data) {
		return nil, 0, ErrChecksum
	}
	r := &reader{buf: data[headerSize : size-trailerSize], version: binary.LittleEndian.Uint32(data[8:])}
	l, err := r.learner()
	if err == nil && r.err == nil && len(r.buf) > 0 {
		r.fail("%d unexpected bytes after the learner's state", len(r.buf))
	}
	if err == nil {
		err = r.err
	}
	if err != nil {
		return nil, 0, err
	}
	return l, size, nil
}

// learner reads everything between the header and the checksum.
func (r *reader) learner() (Online, error) {
	a := Algorithm(r.u8())
	var c Config
	c.Dim = r.int("dimension", MaxSparseModelDim)
	c.Budget = int(r.i64())
	// Configuration numbers are kept bit for bit: validate judges them
	// (an algorithm may ignore a parameter, whatever its value).
	c.Sigma, c.Eta, c.Lambda, c.Gamma = r.raw64(), r.raw64(), r.raw64(), r.raw64()
	c.Seed = r.u64()
	c.Projection = Projection(r.u8())
	c.ProjectronThreshold = r.raw64()
	if r.version >= 3 {
		c.Task = Task(r.u8())
		c.Epsilon, c.Nu, c.C = r.raw64(), r.raw64(), r.raw64()
		c.Rank, c.Features = int(r.i64()), int(r.i64())
		c.Calibrate = r.bool("calibrate flag")
		c.Storage = engine.Storage(r.u8())
		classes := r.int("class count", MaxClasses)
		if r.err == nil && classes > len(r.buf)/8 {
			return nil, r.fail("%d classes need %d bytes, %d remain", classes, 8*classes, len(r.buf))
		}
		for range classes {
			label := r.i64()
			if r.err == nil && (label < math.MinInt32 || label > math.MaxInt32) {
				return nil, r.fail("class label %d out of range", label)
			}
			c.Classes = append(c.Classes, int(label))
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if a >= numAlgorithms {
		return nil, r.fail("unknown algorithm %d", a)
	}
	if err := c.validate(a); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidModel, err)
	}
	if err := checkLimits(a, c); err != nil {
		return nil, r.fail("%v", err)
	}

	dim := r.int("support vector dimension", MaxSparseModelDim)
	if r.err == nil && dim != c.Dim {
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
	case r.err != nil:
		return nil, r.err
	case cols != wantCols:
		return nil, r.fail("%d weight columns, %v has %d", cols, a, wantCols)
	case a.Budgeted() && count > c.Budget:
		return nil, r.fail("%d support vectors over the budget %d", count, c.Budget)
	case count > len(r.buf)/(perVector+4*cols):
		return nil, r.fail("%d support vectors of dimension %d need %d bytes, %d remain", count, dim, count*(perVector+4*cols), len(r.buf))
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
		w := b.set.Weights(col)
		for i := range w {
			if w[i] = r.f32(); r.err == nil && !finite32(w[i]) {
				return nil, r.fail("weight %d of column %d is %v", i, col, w[i])
			}
		}
	}
	if err := b.set.SetBounds(maxNorm, integral); err != nil && r.err == nil {
		return nil, r.fail("%v", err)
	}

	b.scale, b.group = r.f64(), r.f64()
	pcgLen := r.int("random state length", maxPCGState)
	pcg := r.take(pcgLen)
	if r.err != nil {
		return nil, r.err
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
			if r.err == nil && b.cal.gB[i] < 0 {
				return nil, r.fail("calibration: a negative sum of squares %v", b.cal.gB[i])
			}
		}
		if r.err == nil && b.cal.gA < 0 {
			return nil, r.fail("calibration: a negative sum of squares %v", b.cal.gA)
		}
	}
	if err := l.loadState(r); err != nil {
		return nil, err
	}
	return l, r.err
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
			if r.err == nil && nnz > dim {
				return r.fail("support vector %d: %d non-zeros in dimension %d", i, nnz, dim)
			}
			if r.err == nil && nnz > len(r.buf)/8 {
				return r.fail("support vector %d: %d non-zeros need %d bytes, %d remain", i, nnz, 8*nnz, len(r.buf))
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
		if r.err != nil {
			return r.err
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
	if c.Task == Multiclass {
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
	case Projectron, ProjectronPP, BPAS, NOGD, BSGDMerge, FOGD:
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
	b.pat = make([]pattern, n, max(n, b.cfg.Budget))
	if r.version < 3 {
		w := b.set.Weights(b.set.Columns() - 1)
		for i := range b.pat {
			v := w[i]
			if v == 0 {
				v = b.set.Weights(0)[i]
			}
			b.pat[i] = signed(float64(v))
		}
		return nil
	}
	if n > len(r.buf)/8 {
		return r.fail("%d patterns need %d bytes, %d remain", n, 8*n, len(r.buf))
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
			v, want := float64(b.set.Weights(c)[i]), p.sign(c%b.outputs)
			if v != 0 && (want == 0 || math.Signbit(v) != (want < 0)) {
				return r.fail("weight %d of column %d is %v, off the sign of its pattern (%d, %d)", i, c, v, p.pos, p.neg)
			}
		}
	}
	return r.err
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

// reader decodes the fields of a model. The first problem sticks in err;
// after it every read returns zero.
type reader struct {
	buf     []byte
	err     error
	version uint32 // format version of the file
}

// fail records (if it is the first) and returns an invalid-field error.
func (r *reader) fail(format string, args ...any) error {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrInvalidModel, fmt.Sprintf(format, args...))
	}
	return r.err
}

// take returns the next n bytes.
func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.buf) {
		r.fail("a field needs %d bytes, %d remain", n, len(r.buf))
		return nil
	}
	out := r.buf[:n]
	r.buf = r.buf[n:]
	return out
}

func (r *reader) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *reader) i64() int64 { return int64(r.u64()) }

func (r *reader) f32() float32 { return math.Float32frombits(r.u32()) }

// raw64 reads any float64.
func (r *reader) raw64() float64 { return math.Float64frombits(r.u64()) }

// f64 reads a float64 that must be finite.
func (r *reader) f64() float64 {
	v := math.Float64frombits(r.u64())
	if math.IsNaN(v) || math.IsInf(v, 0) {
		r.fail("a number is %v", v)
		return 0
	}
	return v
}

func (r *reader) bool(what string) bool {
	switch v := r.u8(); v {
	case 0, 1:
		return v == 1
	default:
		r.fail("%s is %d, want 0 or 1", what, v)
		return false
	}
}

// int reads an int64 count or size in [0, limit].
func (r *reader) int(what string, limit int) int {
	v := r.i64()
	switch {
	case r.err != nil:
		return 0
	case v < 0:
		r.fail("%s is negative (%d)", what, v)
		return 0
	case v > int64(limit):
		r.fail("%s %d is above the limit %d", what, v, limit)
		return 0
	}
	return int(v)
}

// slots reads n int32 slot numbers, each in [0, limit), and fails if one
// repeats.
func (r *reader) slots(what string, n, limit int) []int32 {
	if r.err != nil {
		return nil
	}
	if n > len(r.buf)/4 {
		r.fail("%d %s need %d bytes, %d remain", n, what, 4*n, len(r.buf))
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
