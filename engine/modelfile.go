package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/bogd-project/bogd/internal/atomicfile"
	"github.com/bogd-project/bogd/simd"
)

// Model files.
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
// Floats are stored as their IEEE 754 bits. LoadModel checks, in this
// order, the magic, the version, the length (a short input is a truncated
// file), the checksum, then every field: a known storage, the dimension
// within the storage's limit, sigma as New accepts it, outputs and count
// within their limits and within the bytes that remain, every weight and
// value finite, every vector well formed, the bounds true of the vectors
// (Set.SetBounds). It allocates in proportion to the input: at most the
// set's storage for the vectors the file holds, which is 16 times a dense
// file of one vector (a tile holds 16).
const (
	modelMagic           = "BOGDSNP\x00"
	modelVersion         = 1
	modelHeaderSize      = len(modelMagic) + 4 + 8
	modelTrailerSize     = 4
	modelStorageDense    = 1
	modelStorageSparse   = 2
	modelStorageFeatures = 3

	// MaxDenseModelDim is the largest dimension of a dense-storage model
	// file: a tile of 16 vectors is then 1 GiB. Sparse storage holds any
	// dimension up to 2³¹.
	MaxDenseModelDim = 1 << 24
	// MaxModelOutputs is the largest number of outputs of a model file.
	MaxModelOutputs = 1 << 16
)

// Errors of LoadModel and LoadModelFile; test with errors.Is.
var (
	ErrNotModel          = errors.New("not a bogd engine model")
	ErrTruncatedModel    = errors.New("truncated engine model")
	ErrModelChecksum     = errors.New("engine model corrupted (checksum mismatch)")
	ErrNewerModelVersion = errors.New("engine model format version is newer than this program supports")
	ErrInvalidModel      = errors.New("invalid engine model")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Save writes m in the model file format.
func (m *Model) Save(w io.Writer) error {
	data, err := m.encode()
	if err == nil {
		_, err = w.Write(data)
	}
	if err != nil {
		return fmt.Errorf("engine: save model: %w", err)
	}
	return nil
}

// SaveFile writes m to path atomically (a temporary file, synced, renamed
// over path): on any error an existing file at path is left as it was.
// Errors name the file.
func (m *Model) SaveFile(path string) error {
	data, err := m.encode()
	if err != nil {
		return fmt.Errorf("engine: save model %s: %w", path, err)
	}
	if err := atomicfile.Write(path, data, atomicfile.Options{}); err != nil {
		return fmt.Errorf("engine: save model: %w", err) // atomicfile names the file
	}
	return nil
}

// LoadModel reads one model written by Save. It reads exactly the bytes of
// that model, so models may follow each other in a stream.
func LoadModel(r io.Reader) (*Model, error) {
	head := make([]byte, modelHeaderSize)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("engine: load model: %w", err)
	}
	size, err := checkModelHeader(head[:n])
	if err != nil {
		return nil, err
	}
	// The rest grows as it arrives: a hostile length costs nothing.
	var buf bytes.Buffer
	buf.Write(head)
	if _, err := io.Copy(&buf, io.LimitReader(r, int64(size-modelHeaderSize))); err != nil {
		return nil, fmt.Errorf("engine: load model: %w", err)
	}
	m, _, err := decodeModel(buf.Bytes())
	return m, err
}

// LoadModelFile reads the model file at path, which must hold one model
// and nothing after it. Errors name the file.
func LoadModelFile(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("engine: load model: %w", err) // *PathError names the file
	}
	m, size, err := decodeModel(data)
	if err == nil && len(data) > size {
		err = fmt.Errorf("%w: %d bytes after the end of the model", ErrInvalidModel, len(data)-size)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: load model %s: %w", path, err)
	}
	return m, nil
}

// encode serialises m; its errors say what a model file cannot hold.
func (m *Model) encode() ([]byte, error) {
	n, dim := m.vs.Len(), m.dim
	storage := byte(modelStorageDense)
	if m.feat != nil {
		return m.encodeFeatures()
	}
	if m.vs.storage() == SparseStorage {
		storage = modelStorageSparse
	} else if dim > MaxDenseModelDim {
		return nil, fmt.Errorf("dense storage of dimension %d is above the largest a model file holds (%d)", dim, MaxDenseModelDim)
	}
	if m.outputs > MaxModelOutputs {
		return nil, fmt.Errorf("%d outputs are more than a model file holds (%d)", m.outputs, MaxModelOutputs)
	}
	for o := range m.outputs {
		for i, w := range m.weights[o*m.stride : o*m.stride+n] {
			if !finite(w) {
				return nil, fmt.Errorf("weight of vector %d for output %d is %v", i, o, w)
			}
		}
	}
	le := binary.LittleEndian
	out := append([]byte(nil), modelMagic...)
	out = le.AppendUint32(out, modelVersion)
	out = le.AppendUint64(out, 0) // the length, filled in below
	out = append(out, storage)
	out = le.AppendUint64(out, uint64(dim))
	out = le.AppendUint64(out, math.Float64bits(m.sigma))
	out = le.AppendUint32(out, uint32(m.outputs))
	out = le.AppendUint64(out, uint64(n))
	out = le.AppendUint64(out, math.Float64bits(m.maxNorm))
	out = append(out, boolByte(m.integral))
	var buf Vector
	for i := range n {
		for o := range m.outputs {
			out = le.AppendUint32(out, math.Float32bits(m.weights[o*m.stride+i]))
		}
		buf = m.vs.supportVector(i, buf)
		if storage == modelStorageSparse {
			out = le.AppendUint32(out, uint32(len(buf.Index)))
			for _, j := range buf.Index {
				out = le.AppendUint32(out, uint32(j))
			}
			for _, v := range buf.Value {
				out = le.AppendUint32(out, math.Float32bits(v))
			}
		} else {
			for _, v := range buf.Dense {
				out = le.AppendUint32(out, math.Float32bits(v))
			}
		}
	}
	le.PutUint64(out[12:], uint64(len(out)+modelTrailerSize))
	return le.AppendUint32(out, crc32.Checksum(out, castagnoli)), nil
}

// encodeFeatures is encode for a feature model.
func (m *Model) encodeFeatures() ([]byte, error) {
	f := m.feat
	if m.dim > MaxDenseModelDim {
		return nil, fmt.Errorf("feature model of dimension %d is above the largest a model file holds (%d)", m.dim, MaxDenseModelDim)
	}
	le := binary.LittleEndian
	out := append([]byte(nil), modelMagic...)
	out = le.AppendUint32(out, modelVersion)
	out = le.AppendUint64(out, 0) // the length, filled in below
	out = append(out, modelStorageFeatures)
	out = le.AppendUint64(out, uint64(m.dim))
	out = le.AppendUint64(out, math.Float64bits(m.sigma))
	out = le.AppendUint32(out, uint32(m.outputs))
	out = le.AppendUint64(out, uint64(f.Count()))
	out = le.AppendUint64(out, 0)
	out = append(out, 1)
	var u []float32
	for j := range f.Count() {
		u = f.Frequency(j, u)
		for _, v := range u {
			out = le.AppendUint32(out, math.Float32bits(v))
		}
	}
	for _, w := range m.weights {
		out = le.AppendUint32(out, math.Float32bits(w))
	}
	le.PutUint64(out[12:], uint64(len(out)+modelTrailerSize))
	return le.AppendUint32(out, crc32.Checksum(out, castagnoli)), nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// checkModelHeader checks the magic and version of a model's first bytes
// (all of the model or a prefix of it) and returns the length it declares.
func checkModelHeader(data []byte) (size int, err error) {
	switch {
	case len(data) < len(modelMagic) && bytes.HasPrefix([]byte(modelMagic), data):
		return 0, ErrTruncatedModel
	case len(data) < len(modelMagic) || string(data[:len(modelMagic)]) != modelMagic:
		return 0, ErrNotModel
	case len(data) < len(modelMagic)+4:
		return 0, ErrTruncatedModel
	}
	switch v := binary.LittleEndian.Uint32(data[len(modelMagic):]); {
	case v == 0:
		return 0, fmt.Errorf("%w: format version 0", ErrInvalidModel)
	case v > modelVersion:
		return 0, fmt.Errorf("%w: version %d, this program reads up to %d", ErrNewerModelVersion, v, modelVersion)
	}
	if len(data) < modelHeaderSize {
		return 0, ErrTruncatedModel
	}
	declared := binary.LittleEndian.Uint64(data[12:])
	if declared < uint64(modelHeaderSize+modelTrailerSize) || declared > math.MaxInt {
		return 0, fmt.Errorf("%w: declared length %d", ErrInvalidModel, declared)
	}
	return int(declared), nil
}

// decodeModel parses one model from the start of data and returns it with
// its length. data may be shorter (a truncated model) or longer (bytes past
// the declared length are not read).
func decodeModel(data []byte) (*Model, int, error) {
	size, err := checkModelHeader(data)
	if err != nil {
		return nil, 0, err
	}
	if len(data) < size {
		return nil, 0, fmt.Errorf("%w (%d of %d bytes)", ErrTruncatedModel, len(data), size)
	}
	data = data[:size]
	body := data[:size-modelTrailerSize]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, 0, ErrModelChecksum
	}
	r := &modelReader{buf: body[modelHeaderSize:]}
	m, err := r.model()
	if err == nil && len(r.buf) > 0 {
		err = r.fail("%d unexpected bytes after the vectors", len(r.buf))
	}
	if err != nil {
		return nil, 0, err
	}
	return m, size, nil
}

// model reads everything between the header and the checksum.
func (r *modelReader) model() (*Model, error) {
	var storage Storage
	switch kind := r.u8(); kind {
	case modelStorageDense:
		storage = DenseStorage
	case modelStorageSparse:
		storage = SparseStorage
	case modelStorageFeatures:
		return r.features()
	default:
		return nil, r.fail("unknown storage %d", kind)
	}
	maxDim := uint64(1 << 31)
	if storage == DenseStorage {
		maxDim = MaxDenseModelDim
	}
	dim := r.count("dimension", maxDim)
	sigma := math.Float64frombits(r.u64())
	outputs := int(r.u32())
	n := r.count("support vector count", math.MaxInt32)
	maxNorm := math.Float64frombits(r.u64())
	integral := r.u8()
	// The smallest vector: its weights and a dense vector or an empty
	// sparse one.
	least := 4 * outputs
	if storage == DenseStorage {
		least += 4 * dim
	} else {
		least += 4
	}
	switch {
	case r.err != nil:
		return nil, r.err
	case dim == 0:
		return nil, r.fail("dimension 0")
	case outputs < 1 || outputs > MaxModelOutputs:
		return nil, r.fail("%d outputs, want 1 to %d", outputs, MaxModelOutputs)
	case n > len(r.buf)/least:
		return nil, r.fail("%d support vectors need at least %d bytes, %d remain", n, n*least, len(r.buf))
	case integral > 1:
		return nil, r.fail("integral flag %d, want 0 or 1", integral)
	}
	if err := simd.EnvError(); err != nil {
		return nil, fmt.Errorf("engine: load model: %w", err) // the setting, not the file
	}
	s, err := New(dim, sigma, Options{Capacity: n, Columns: outputs, Storage: storage})
	if err != nil {
		return nil, r.fail("%v", err) // sigma out of range
	}
	w := make([]float32, outputs)
	var x Vector
	if storage == DenseStorage {
		x = Dense(make([]float32, dim))
	}
	for i := range n {
		for o := range w {
			w[o] = r.f32()
		}
		if storage == DenseStorage {
			for j := range x.Dense {
				x.Dense[j] = r.f32()
			}
		} else {
			x = r.sparse(x, dim)
		}
		if r.err != nil {
			return nil, r.err
		}
		for o, v := range w {
			if !finite(v) {
				return nil, r.fail("weight of vector %d for output %d is %v", i, o, v)
			}
		}
		if _, err := s.Add(x, w...); err != nil {
			return nil, r.fail("support vector %d: %v", i, err)
		}
	}
	if err := s.SetBounds(maxNorm, integral == 1); err != nil {
		return nil, r.fail("%v", err)
	}
	// The set holds exactly n vectors in Padded slots: its storage and
	// weight columns are the model's, no copy needed.
	return &Model{view: s.view, vs: s.vs, outputs: outputs, stride: s.stride, weights: s.weights}, nil
}

// features reads the rest of a feature model (storage 3).
func (r *modelReader) features() (*Model, error) {
	dim := r.count("dimension", MaxDenseModelDim)
	sigma := math.Float64frombits(r.u64())
	outputs := int(r.u32())
	count := r.count("frequency count", math.MaxInt32)
	r.u64() // bounds: unused
	r.u8()
	switch {
	case r.err != nil:
		return nil, r.err
	case dim == 0 || count == 0:
		return nil, r.fail("a feature model of dimension %d and %d frequencies", dim, count)
	case outputs < 1 || outputs > MaxModelOutputs:
		return nil, r.fail("%d outputs, want 1 to %d", outputs, MaxModelOutputs)
	case count > len(r.buf)/(4*dim):
		return nil, r.fail("%d frequencies need %d bytes, %d remain", count, 4*count*dim, len(r.buf))
	}
	u := make([][]float32, count)
	for j := range u {
		u[j] = make([]float32, dim)
		for i := range u[j] {
			if u[j][i] = r.f32(); r.err == nil && !finite(u[j][i]) {
				return nil, r.fail("frequency %d feature %d is %v", j, i, u[j][i])
			}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if err := simd.EnvError(); err != nil {
		return nil, fmt.Errorf("engine: load model: %w", err)
	}
	f, err := featuresOf(dim, sigma, u)
	if err != nil {
		return nil, r.fail("%v", err)
	}
	if !(sigma >= 1e-15 && sigma <= 1e15) {
		return nil, r.fail("sigma %v", sigma)
	}
	n := outputs * f.Len()
	if n > len(r.buf)/4 {
		return nil, r.fail("%d weights need %d bytes, %d remain", n, 4*n, len(r.buf))
	}
	w := make([]float32, n)
	for i := range w {
		w[i] = r.f32()
	}
	if r.err != nil {
		return nil, r.err
	}
	m, err := NewFeatureModel(f, outputs, w)
	if err != nil {
		return nil, r.fail("%v", err)
	}
	return m, nil
}

// sparse reads a sparse vector of dimension dim into buf's slices. Its
// indices are checked where Set.Add validates the vector; zeros, which
// sparse storage never holds, are refused here.
func (r *modelReader) sparse(buf Vector, dim int) Vector {
	nnz := int(r.u32())
	if r.err == nil && (nnz > dim || nnz > len(r.buf)/8) {
		r.fail("%d non-zeros in dimension %d with %d bytes left", nnz, dim, len(r.buf))
	}
	if r.err != nil {
		return buf
	}
	idx, val := buf.Index[:0], buf.Value[:0]
	for range nnz {
		idx = append(idx, int32(r.u32()))
	}
	for range nnz {
		v := r.f32()
		if v == 0 {
			r.fail("a sparse vector stores a zero")
		}
		val = append(val, v)
	}
	return Sparse(idx, val)
}

// modelReader decodes the fields of a model. The first problem sticks in
// err; after it every read returns zero.
type modelReader struct {
	buf []byte
	err error
}

// fail records (if it is the first) and returns an invalid-field error.
func (r *modelReader) fail(format string, args ...any) error {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrInvalidModel, fmt.Sprintf(format, args...))
	}
	return r.err
}

// take returns the next n bytes.
func (r *modelReader) take(n int) []byte {
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

func (r *modelReader) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *modelReader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *modelReader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *modelReader) f32() float32 { return math.Float32frombits(r.u32()) }

// count reads a uint64 count or size in [0, limit].
func (r *modelReader) count(what string, limit uint64) int {
	v := r.u64()
	if r.err == nil && v > limit {
		r.fail("%s %d is above the limit %d", what, v, limit)
		return 0
	}
	return int(v)
}
