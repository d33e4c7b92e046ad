package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/bogd-project/bogd/internal/atomicfile"
	"github.com/bogd-project/bogd/internal/binrec"
	"github.com/bogd-project/bogd/layout"
	"github.com/bogd-project/bogd/simd"
)

// The model file format (see the package documentation).
const (
	modelMagic           = "BOGDSNP\x00"
	modelVersion         = 1
	modelStorageDense    = 1
	modelStorageSparse   = 2
	modelStorageFeatures = 3

	// maxDenseModelDim is the largest dimension of a dense-storage or
	// feature model file: a tile of 16 vectors is then 1 GiB. Sparse
	// storage holds any dimension up to 2³¹.
	maxDenseModelDim = 1 << 24
	// maxModelOutputs is the largest number of outputs of a model file.
	maxModelOutputs = 1 << 16
)

// Errors of LoadModel and LoadModelFile; test with errors.Is.
var (
	ErrNotModel          = errors.New("not a bogd engine model")
	ErrTruncatedModel    = errors.New("truncated engine model")
	ErrModelChecksum     = errors.New("engine model corrupted (checksum mismatch)")
	ErrNewerModelVersion = errors.New("engine model format version is newer than this program supports")
	ErrInvalidModel      = errors.New("invalid engine model")
)

// modelFormat frames model files.
var modelFormat = &binrec.Format{
	Magic:     modelMagic,
	Version:   modelVersion,
	Oldest:    1,
	NotRecord: ErrNotModel,
	Truncated: ErrTruncatedModel,
	Checksum:  ErrModelChecksum,
	Newer:     ErrNewerModelVersion,
	Invalid:   ErrInvalidModel,
	TooLarge:  ErrModelTooLarge,
}

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

// DefaultMaxMemory is the memory, in bytes, that a model file may make the
// Model it holds claim, unless LoadOptions says otherwise: 4 GiB. The
// padding of the storage's tiles lets a small file claim up to 16 times
// its length, so every load is checked before anything is allocated.
const DefaultMaxMemory int64 = 4 << 30

// LoadOptions bound what loading a model file costs; the zero value holds
// the defaults, which LoadModel and LoadModelFile use.
type LoadOptions struct {
	// MaxMemory caps the bytes of memory the loaded Model may claim (its
	// storage, padding included, and weights), and so also the length of
	// the model read. 0 means DefaultMaxMemory.
	MaxMemory int64
}

func (o LoadOptions) maxMemory() int64 {
	if o.MaxMemory <= 0 {
		return DefaultMaxMemory
	}
	return o.MaxMemory
}

// LoadModel reads one model written by Save. It reads exactly the bytes of
// that model, so models may follow each other in a stream. The model may
// claim at most DefaultMaxMemory bytes (see LoadOptions).
func LoadModel(r io.Reader) (*Model, error) { return LoadOptions{}.LoadModel(r) }

// LoadModelFile reads the model file at path, which must be a regular
// file holding one model and nothing after it: a device or a pipe is
// refused before it is read. Errors name the file.
func LoadModelFile(path string) (*Model, error) { return LoadOptions{}.LoadModelFile(path) }

// LoadModel is the package's LoadModel within o's limits.
func (o LoadOptions) LoadModel(r io.Reader) (*Model, error) {
	data, err := modelFormat.Read(r, o.maxMemory())
	if err != nil {
		return nil, fmt.Errorf("engine: load model: %w", err)
	}
	return decodeModel(data, o.maxMemory())
}

// LoadModelFile is the package's LoadModelFile within o's limits.
func (o LoadOptions) LoadModelFile(path string) (*Model, error) {
	data, err := modelFormat.ReadFile(path, o.maxMemory())
	if err != nil {
		return nil, fmt.Errorf("engine: load model: %w", err) // the error names the file
	}
	m, err := decodeModel(data, o.maxMemory())
	if err != nil {
		return nil, fmt.Errorf("engine: load model %s: %w", path, err)
	}
	return m, nil
}

// modelMemory estimates the bytes a model of count vectors (or
// frequencies) in storage kind, with dim features and outputs outputs,
// claims: the padded storage (at most nnz non-zeros for sparse storage)
// and the weights; a feature model's weights span twice its padded
// frequencies (cos and sin), and it reads its frequencies once more
// before storing them. Products are taken in float64: sizes from a file
// cannot overflow them.
func modelMemory(kind byte, count, dim, outputs, nnz int) float64 {
	padded := float64(layout.TilesFor(count) * layout.Lanes)
	switch kind {
	case modelStorageSparse:
		const slot, entry = 104, 64 // a slot's entry lists and norm; a non-zero with its posting
		return padded*(slot+4*float64(outputs)) + entry*float64(nnz)
	case modelStorageFeatures:
		return 4*padded*float64(dim+1) + 4*float64(count)*float64(dim) + 4*2*padded*float64(outputs)
	}
	return 4 * padded * float64(dim+1+outputs)
}

// ErrModelTooLarge: the model would claim more memory than allowed
// (LoadOptions.MaxMemory), or its file is longer than that.
var ErrModelTooLarge = errors.New("engine model beyond the memory limit")

// checkMemory fails with ErrModelTooLarge when a model's claim (modelMemory)
// is above maxMemory.
func checkMemory(claim float64, maxMemory int64) error {
	if claim > float64(maxMemory) {
		return fmt.Errorf("%w: the model claims %.0f bytes, the limit is %d (LoadOptions.MaxMemory)", ErrModelTooLarge, claim, maxMemory)
	}
	return nil
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
	} else if dim > maxDenseModelDim {
		return nil, fmt.Errorf("dense storage of dimension %d is above the largest a model file holds (%d)", dim, maxDenseModelDim)
	}
	if m.outputs > maxModelOutputs {
		return nil, fmt.Errorf("%d outputs are more than a model file holds (%d)", m.outputs, maxModelOutputs)
	}
	for o := range m.outputs {
		for i, w := range m.weights[o*m.stride : o*m.stride+n] {
			if !finite(w) {
				return nil, fmt.Errorf("weight of vector %d for output %d is %v", i, o, w)
			}
		}
	}
	le := binary.LittleEndian
	out := m.appendHead(storage, n, m.maxNorm, m.integral)
	var buf Vector
	for i := range n {
		for o := range m.outputs {
			out = binrec.AppendF32(out, m.weights[o*m.stride+i])
		}
		buf = m.vs.supportVector(i, buf)
		if storage == modelStorageSparse {
			out = le.AppendUint32(out, uint32(len(buf.Index)))
			for _, j := range buf.Index {
				out = le.AppendUint32(out, uint32(j))
			}
			for _, v := range buf.Value {
				out = binrec.AppendF32(out, v)
			}
		} else {
			for _, v := range buf.Dense {
				out = binrec.AppendF32(out, v)
			}
		}
	}
	return binrec.End(out), nil
}

// encodeFeatures is encode for a feature model.
func (m *Model) encodeFeatures() ([]byte, error) {
	f := m.feat
	if m.dim > maxDenseModelDim {
		return nil, fmt.Errorf("feature model of dimension %d is above the largest a model file holds (%d)", m.dim, maxDenseModelDim)
	}
	out := m.appendHead(modelStorageFeatures, f.Count(), 0, true)
	var u []float32
	for j := range f.Count() {
		u = f.Frequency(j, u)
		for _, v := range u {
			out = binrec.AppendF32(out, v)
		}
	}
	for _, w := range m.weights {
		out = binrec.AppendF32(out, w)
	}
	return binrec.End(out), nil
}

// appendHead begins a model file: the header, then the model's fields
// with the given storage, count and bounds.
func (m *Model) appendHead(storage byte, count int, maxNorm float64, integral bool) []byte {
	le := binary.LittleEndian
	out := modelFormat.Begin(0)
	out = append(out, storage)
	out = le.AppendUint64(out, uint64(m.dim))
	out = binrec.AppendF64(out, m.sigma)
	out = le.AppendUint32(out, uint32(m.outputs))
	out = le.AppendUint64(out, uint64(count))
	out = binrec.AppendF64(out, maxNorm)
	return binrec.AppendBool(out, integral)
}

// decodeModel parses data, which must hold one model and nothing after it
// (binrec.Format.Open), of a claim of at most maxMemory bytes.
func decodeModel(data []byte, maxMemory int64) (*Model, error) {
	body, _, err := modelFormat.Open(data)
	if err != nil {
		return nil, err
	}
	r := binrec.NewDecoder(body, ErrInvalidModel)
	m, err := readModel(r, maxMemory)
	if err == nil {
		err = r.Done("the vectors")
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// readModel reads everything between the header and the checksum.
func readModel(r *binrec.Decoder, maxMemory int64) (*Model, error) {
	var storage Storage
	switch kind := r.U8(); kind {
	case modelStorageDense:
		storage = DenseStorage
	case modelStorageSparse:
		storage = SparseStorage
	case modelStorageFeatures:
		return readFeatures(r, maxMemory)
	default:
		return nil, r.Fail("unknown storage %d", kind)
	}
	maxDim := 1 << 31
	if storage == DenseStorage {
		maxDim = maxDenseModelDim
	}
	dim := r.Count("dimension", maxDim)
	sigma := r.F64()
	outputs := int(r.U32())
	n := r.Count("support vector count", math.MaxInt32)
	maxNorm := r.F64()
	integral := r.Bool("integral flag")
	// The smallest vector: its weights and a dense vector or an empty
	// sparse one.
	least := 4 * outputs
	if storage == DenseStorage {
		least += 4 * dim
	} else {
		least += 4
	}
	switch {
	case r.Err() != nil:
		return nil, r.Err()
	case dim == 0:
		return nil, r.Fail("dimension 0")
	case outputs < 1 || outputs > maxModelOutputs:
		return nil, r.Fail("%d outputs, want 1 to %d", outputs, maxModelOutputs)
	case n > r.Len()/least:
		return nil, r.Fail("%d support vectors need at least %d bytes, %d remain", n, n*least, r.Len())
	}
	kind := byte(modelStorageDense)
	if storage == SparseStorage {
		kind = modelStorageSparse
	}
	if err := checkMemory(modelMemory(kind, n, dim, outputs, r.Len()/8), maxMemory); err != nil {
		return nil, err
	}
	if err := simd.EnvError(); err != nil {
		return nil, fmt.Errorf("engine: load model: %w", err) // the setting, not the file
	}
	s, err := New(dim, sigma, Options{Capacity: n, Columns: outputs, Storage: storage})
	if err != nil {
		return nil, r.Fail("%v", err) // sigma out of range
	}
	w := make([]float32, outputs)
	var x Vector
	if storage == DenseStorage {
		x = Dense(make([]float32, dim))
	}
	for i := range n {
		for o := range w {
			w[o] = r.F32()
		}
		if storage == DenseStorage {
			for j := range x.Dense {
				x.Dense[j] = r.F32()
			}
		} else {
			x = readSparse(r, x, dim)
		}
		if r.Err() != nil {
			return nil, r.Err()
		}
		for o, v := range w {
			if !finite(v) {
				return nil, r.Fail("weight of vector %d for output %d is %v", i, o, v)
			}
		}
		if _, err := s.Add(x, w...); err != nil {
			return nil, r.Fail("support vector %d: %v", i, err)
		}
	}
	if err := s.SetBounds(maxNorm, integral); err != nil {
		return nil, r.Fail("%v", err)
	}
	// The set holds exactly n vectors in Padded slots: its storage and
	// weight columns are the model's, no copy needed.
	return &Model{view: s.view, vs: s.vs, outputs: outputs, stride: s.stride, weights: s.weights}, nil
}

// readFeatures reads the rest of a feature model (storage 3).
func readFeatures(r *binrec.Decoder, maxMemory int64) (*Model, error) {
	dim := r.Count("dimension", maxDenseModelDim)
	sigma := r.F64()
	outputs := int(r.U32())
	count := r.Count("frequency count", math.MaxInt32)
	r.U64() // bounds: unused
	r.U8()
	switch {
	case r.Err() != nil:
		return nil, r.Err()
	case dim == 0 || count == 0:
		return nil, r.Fail("a feature model of dimension %d and %d frequencies", dim, count)
	case outputs < 1 || outputs > maxModelOutputs:
		return nil, r.Fail("%d outputs, want 1 to %d", outputs, maxModelOutputs)
	case count > r.Len()/(4*dim):
		return nil, r.Fail("%d frequencies need %d bytes, %d remain", count, 4*count*dim, r.Len())
	}
	if err := checkMemory(modelMemory(modelStorageFeatures, count, dim, outputs, 0), maxMemory); err != nil {
		return nil, err
	}
	u := make([][]float32, count)
	for j := range u {
		u[j] = make([]float32, dim)
		for i := range u[j] {
			if u[j][i] = r.F32(); r.Err() == nil && !finite(u[j][i]) {
				return nil, r.Fail("frequency %d feature %d is %v", j, i, u[j][i])
			}
		}
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	if err := simd.EnvError(); err != nil {
		return nil, fmt.Errorf("engine: load model: %w", err)
	}
	f, err := featuresOf(dim, sigma, u)
	if err != nil {
		return nil, r.Fail("%v", err)
	}
	if !(sigma >= 1e-15 && sigma <= 1e15) {
		return nil, r.Fail("sigma %v", sigma)
	}
	n := outputs * f.Len()
	if n > r.Len()/4 {
		return nil, r.Fail("%d weights need %d bytes, %d remain", n, 4*n, r.Len())
	}
	w := make([]float32, n)
	for i := range w {
		w[i] = r.F32()
	}
	if r.Err() != nil {
		return nil, r.Err()
	}
	m, err := NewFeatureModel(f, outputs, w)
	if err != nil {
		return nil, r.Fail("%v", err)
	}
	return m, nil
}

// readSparse reads a sparse vector of dimension dim into buf's slices. Its
// indices are checked where Set.Add validates the vector; zeros, which
// sparse storage never holds, are refused here.
func readSparse(r *binrec.Decoder, buf Vector, dim int) Vector {
	nnz := int(r.U32())
	if r.Err() == nil && (nnz > dim || nnz > r.Len()/8) {
		r.Fail("%d non-zeros in dimension %d with %d bytes left", nnz, dim, r.Len())
	}
	if r.Err() != nil {
		return buf
	}
	idx, val := buf.Index[:0], buf.Value[:0]
	for range nnz {
		idx = append(idx, int32(r.U32()))
	}
	for range nnz {
		v := r.F32()
		if v == 0 {
			r.Fail("a sparse vector stores a zero")
		}
		val = append(val, v)
	}
	return Sparse(idx, val)
}
