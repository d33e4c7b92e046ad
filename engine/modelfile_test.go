package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/internal/binrec"
)

// fileModel builds a model of n vectors in dimension dim with the given
// storage and outputs, after removals that leave the bounds above the
// stored vectors' (so that a loader must restore them, not recompute).
func fileModel(t testing.TB, storage Storage, dim, outputs, n int, integral bool) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(dim), uint64(n)))
	set, err := New(dim, 2.5, Options{Columns: outputs, Storage: storage})
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float32, outputs)
	for i := range n + 3 {
		x := randomPoint(rng, min(dim, 64), 0.3, func() float32 {
			if integral {
				return float32(rng.IntN(5) - 2)
			}
			return float32(rng.NormFloat64() * float64(1+i%3))
		})
		for o := range w {
			w[o] = float32(rng.NormFloat64())
		}
		if _, err := set.Add(sparseOf(x), w...); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		set.Remove(rng.IntN(set.Len()))
	}
	m, err := set.Snapshot(outputs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func saved(t testing.TB, m *Model) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sameModel fails unless b has a's shape, vectors, weights and bounds, and
// scores dense and sparse queries with a's bits.
func sameModel(t *testing.T, a, b *Model) {
	t.Helper()
	if a.Len() != b.Len() || a.Dim() != b.Dim() || a.Sigma() != b.Sigma() || a.Outputs() != b.Outputs() ||
		a.Storage() != b.Storage() || a.maxNorm != b.maxNorm || a.integral != b.integral {
		t.Fatalf("loaded model differs: %d %d %v %d %v (%v %v), want %d %d %v %d %v (%v %v)",
			b.Len(), b.Dim(), b.Sigma(), b.Outputs(), b.Storage(), b.maxNorm, b.integral,
			a.Len(), a.Dim(), a.Sigma(), a.Outputs(), a.Storage(), a.maxNorm, a.integral)
	}
	var va, vb Vector
	for i := range a.Len() {
		va, vb = a.SupportVector(i, va), b.SupportVector(i, vb)
		if !slices.Equal(va.Dense, vb.Dense) || !slices.Equal(va.Index, vb.Index) || !slices.Equal(va.Value, vb.Value) {
			t.Fatalf("support vector %d differs", i)
		}
		for o := range a.Outputs() {
			if math.Float32bits(a.Weight(o, i)) != math.Float32bits(b.Weight(o, i)) {
				t.Fatalf("weight of vector %d for output %d differs", i, o)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10 {
		x := randomPoint(rng, min(a.Dim(), 64), 0.3, func() float32 { return float32(rng.NormFloat64()) })
		queries := []Vector{sparseOf(x)}
		if a.Dim() <= 64 {
			queries = append(queries, Dense(x))
		}
		for _, q := range queries {
			fa, err := a.Scores(q, nil)
			if err != nil {
				t.Fatal(err)
			}
			fb, _ := b.Scores(q, nil)
			if !slices.Equal(fa, fb) {
				t.Fatalf("scores %v, loaded %v", fa, fb)
			}
		}
	}
}

// TestModelFileRoundTrip: models of both storages, one or three outputs,
// from empty to past a tile, in small and large dimensions, load from a
// stream and from a file as the same model and save to the same bytes.
func TestModelFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		storage         Storage
		dim, outputs, n int
		integral        bool
	}{
		{DenseStorage, 5, 1, 0, false},
		{DenseStorage, 5, 1, 17, false},
		{DenseStorage, 64, 3, 40, true},
		{SparseStorage, 5, 1, 17, false},
		{SparseStorage, 4_000_000, 3, 100, true},
		{SparseStorage, 1 << 31, 2, 33, false},
		{SparseStorage, 70, 1, 0, true},
	} {
		m := fileModel(t, c.storage, c.dim, c.outputs, c.n, c.integral)
		data := saved(t, m)
		// Two models in a stream: each load reads exactly its own bytes.
		stream := bytes.NewReader(append(slices.Clone(data), data...))
		for range 2 {
			got, err := LoadModel(stream)
			if err != nil {
				t.Fatal(err)
			}
			sameModel(t, m, got)
			if again := saved(t, got); !bytes.Equal(again, data) {
				t.Fatalf("%v dim %d: a loaded model saves differently", c.storage, c.dim)
			}
		}
		if stream.Len() != 0 {
			t.Fatalf("%d bytes left in the stream", stream.Len())
		}
		// fileModel's vectors have at most 64 non-zeros: a sparse file holds
		// those, whatever the dimension.
		if most := offVectors + 4 + c.n*(4*c.outputs+4+8*64); c.storage == SparseStorage && len(data) > most {
			t.Fatalf("%d bytes for %d sparse vectors", len(data), c.n)
		}
		path := filepath.Join(dir, "model.bin")
		if err := m.SaveFile(path); err != nil {
			t.Fatal(err)
		}
		got, err := LoadModelFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sameModel(t, m, got)
	}
}

// goldenModels are files of format version 1, kept to show that this
// program still reads them, with the models they were saved from.
var goldenModels = []struct {
	path            string
	storage         Storage
	dim, outputs, n int
	integral        bool
}{
	{"testdata/model-v1-dense.bin", DenseStorage, 6, 2, 20, false},
	{"testdata/model-v1-sparse.bin", SparseStorage, 1 << 22, 1, 20, true},
}

// TestModelFileVersion1: the files saved by format version 1 load as the
// models they were saved from, and save to the same bytes.
func TestModelFileVersion1(t *testing.T) {
	for _, g := range goldenModels {
		got, err := LoadModelFile(g.path)
		if err != nil {
			t.Fatal(err)
		}
		sameModel(t, fileModel(t, g.storage, g.dim, g.outputs, g.n, g.integral), got)
		data, err := os.ReadFile(g.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(saved(t, got), data) {
			t.Fatalf("%s saves differently", g.path)
		}
	}
}

// rechecksum returns data with its checksum recomputed, so that a
// corrupted field reaches the field checks.
func rechecksum(data []byte) []byte {
	out := slices.Clone(data)
	binrec.Reseal(out)
	return out
}

// Offsets of the model fields after the header (see the format).
const (
	offStorage  = binrec.HeaderSize
	offDim      = offStorage + 1
	offSigma    = offDim + 8
	offOutputs  = offSigma + 8
	offCount    = offOutputs + 4
	offMaxNorm  = offCount + 8
	offIntegral = offMaxNorm + 8
	offVectors  = offIntegral + 1
)

// TestModelFileErrors: every damaged or hostile file is an error of the
// right kind, naming the problem, never a panic or an allocation beyond
// the input's size.
func TestModelFileErrors(t *testing.T) {
	dense := saved(t, fileModel(t, DenseStorage, 4, 2, 3, false))
	sparse := saved(t, fileModel(t, SparseStorage, 40, 1, 3, true))
	le := binary.LittleEndian
	edit := func(data []byte, f func(b []byte)) []byte {
		out := slices.Clone(data)
		f(out)
		return rechecksum(out)
	}
	for _, c := range []struct {
		name string
		data []byte
		want error
		text string
	}{
		{"empty", nil, ErrTruncatedModel, ""},
		{"not a model", []byte("BOGDMDL\x00 a learner, not a snapshot"), ErrNotModel, ""},
		{"magic prefix", []byte("BOGD"), ErrTruncatedModel, ""},
		{"header only", dense[:binrec.HeaderSize], ErrTruncatedModel, ""},
		{"truncated", dense[:len(dense)-1], ErrTruncatedModel, ""},
		{"checksum", func() []byte { b := slices.Clone(dense); b[offVectors] ^= 1; return b }(), ErrModelChecksum, ""},
		{"newer", edit(dense, func(b []byte) { le.PutUint32(b[8:], modelVersion+1) }), ErrNewerModelVersion, ""},
		{"version 0", edit(dense, func(b []byte) { le.PutUint32(b[8:], 0) }), ErrInvalidModel, "version 0"},
		// A length no model has is corruption, unless the whole file's
		// checksum says otherwise (below); a stream stops at the header.
		{"short length", edit(dense, func(b []byte) { le.PutUint64(b[12:], 3) }), ErrModelChecksum, "declared length 3"},
		{"storage", edit(dense, func(b []byte) { b[offStorage] = 7 }), ErrInvalidModel, "unknown storage"},
		{"dimension 0", edit(dense, func(b []byte) { le.PutUint64(b[offDim:], 0) }), ErrInvalidModel, "dimension 0"},
		{"dense dimension", edit(dense, func(b []byte) { le.PutUint64(b[offDim:], maxDenseModelDim+1) }), ErrInvalidModel, "above the limit"},
		{"sparse dimension", edit(sparse, func(b []byte) { le.PutUint64(b[offDim:], 1<<31+1) }), ErrInvalidModel, "above the limit"},
		{"huge dense dimension", edit(dense, func(b []byte) { le.PutUint64(b[offDim:], 1<<20) }), ErrInvalidModel, "need at least"},
		{"sigma", edit(dense, func(b []byte) { le.PutUint64(b[offSigma:], math.Float64bits(0)) }), ErrInvalidModel, "sigma"},
		{"NaN sigma", edit(dense, func(b []byte) { le.PutUint64(b[offSigma:], math.Float64bits(math.NaN())) }), ErrInvalidModel, "sigma"},
		{"no outputs", edit(dense, func(b []byte) { le.PutUint32(b[offOutputs:], 0) }), ErrInvalidModel, "0 outputs"},
		{"many outputs", edit(dense, func(b []byte) { le.PutUint32(b[offOutputs:], math.MaxUint32) }), ErrInvalidModel, "outputs"},
		{"count", edit(sparse, func(b []byte) { le.PutUint64(b[offCount:], 1<<30) }), ErrInvalidModel, "need at least"},
		{"negative count", edit(sparse, func(b []byte) { le.PutUint64(b[offCount:], 1<<63) }), ErrInvalidModel, "count is negative"},
		{"integral flag", edit(sparse, func(b []byte) { b[offIntegral] = 2 }), ErrInvalidModel, "integral flag"},
		{"integral claimed", edit(dense, func(b []byte) { b[offIntegral] = 1 }), ErrInvalidModel, "non-integer"},
		{"norm bound", edit(dense, func(b []byte) { le.PutUint64(b[offMaxNorm:], math.Float64bits(1e-9)) }), ErrInvalidModel, "below the squared norm"},
		{"NaN weight", edit(dense, func(b []byte) { le.PutUint32(b[offVectors:], math.Float32bits(float32(math.NaN()))) }), ErrInvalidModel, "weight of vector 0"},
		{"infinite value", edit(dense, func(b []byte) { le.PutUint32(b[offVectors+8:], math.Float32bits(float32(math.Inf(1)))) }), ErrInvalidModel, "+Inf"},
		{"non-zeros", edit(sparse, func(b []byte) { le.PutUint32(b[offVectors+4:], 1<<30) }), ErrInvalidModel, "non-zeros"},
		{"index order", edit(sparse, func(b []byte) { swapIndices(b) }), ErrInvalidModel, "indices must increase"},
		{"index range", edit(sparse, func(b []byte) { le.PutUint32(b[offVectors+8:], 40) }), ErrInvalidModel, "out of range"},
		{"stored zero", edit(sparse, func(b []byte) { zeroValue(b) }), ErrInvalidModel, "zero"},
		{"byte after the vectors", edit(append(slices.Clone(dense), 0), func(b []byte) {
			copy(b[len(b)-5:], []byte{0, 0, 0, 0, 0}) // one zero byte, then room for the checksum
			le.PutUint64(b[12:], uint64(len(b)))
		}), ErrInvalidModel, "unexpected bytes"},
	} {
		m, err := LoadModel(bytes.NewReader(c.data))
		if m != nil || !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v, want %v with %q", c.name, err, c.want, c.text)
		}
	}
	// Every prefix of a model is an error, never a panic.
	for n := range len(sparse) {
		if _, err := LoadModel(bytes.NewReader(sparse[:n])); err == nil {
			t.Fatalf("a prefix of %d bytes loaded", n)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "extra.bin")
	if err := os.WriteFile(path, append(slices.Clone(dense), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadModelFile(path); !errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), path) {
		t.Errorf("a byte after the model: %v", err)
	}
	short := filepath.Join(dir, "short.bin")
	if err := os.WriteFile(short, edit(dense, func(b []byte) { le.PutUint64(b[12:], 3) }), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadModelFile(short); !errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), "declared length 3") {
		t.Errorf("a declared length of 3 with a valid checksum: %v", err)
	}
	missing := filepath.Join(dir, "missing.bin")
	if _, err := LoadModelFile(missing); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing file: %v", err)
	}
}

// swapIndices swaps the first two feature indices of the first vector of
// a single-output sparse model file.
func swapIndices(b []byte) {
	at := offVectors + 8
	first, second := slices.Clone(b[at:at+4]), slices.Clone(b[at+4:at+8])
	copy(b[at:], second)
	copy(b[at+4:], first)
}

// zeroValue zeroes the first value of the first vector of a single-output
// sparse model file.
func zeroValue(b []byte) {
	nnz := int(binary.LittleEndian.Uint32(b[offVectors+4:]))
	binary.LittleEndian.PutUint32(b[offVectors+8+4*nnz:], 0)
}

// TestModelSaveRefuses: what a file cannot hold is an error of Save.
func TestModelSaveRefuses(t *testing.T) {
	wide, err := New(maxDenseModelDim+1, 1, Options{Storage: DenseStorage})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := wide.Snapshot(1)
	if err := m.Save(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "dense storage of dimension") {
		t.Errorf("a dense model of dimension %d: %v", maxDenseModelDim+1, err)
	}
	set, _ := New(2, 1, Options{})
	set.Add(Dense([]float32{1, 2}), math.MaxFloat32)
	m, _ = set.Snapshot(1, 10) // the weight overflows float32
	if err := m.Save(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "+Inf") {
		t.Errorf("an infinite weight: %v", err)
	}
	path := filepath.Join(t.TempDir(), "m.bin")
	if err := m.SaveFile(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("SaveFile of an infinite weight: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused model left a file")
	}
}

// FuzzLoadModel: any input is a model or an error; a model saves back to
// the bytes it came from and scores finite values.
func FuzzLoadModel(f *testing.F) {
	for _, m := range []*Model{
		fileModel(f, DenseStorage, 3, 1, 2, false),
		fileModel(f, DenseStorage, 4, 2, 17, true),
		fileModel(f, SparseStorage, 40, 1, 3, true),
		fileModel(f, SparseStorage, 1<<30, 3, 5, false),
		fileModel(f, SparseStorage, 9, 1, 0, true),
	} {
		f.Add(saved(f, m))
	}
	for _, g := range goldenModels {
		data, err := os.ReadFile(g.path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, rechecksum(data)} {
			m, err := LoadModel(bytes.NewReader(in))
			if err != nil {
				if m != nil {
					t.Fatal("a model and an error")
				}
				continue
			}
			size := int(binary.LittleEndian.Uint64(in[12:]))
			if again := saved(t, m); !bytes.Equal(again, in[:size]) {
				t.Fatal("a loaded model saves differently")
			}
			x := make([]float32, min(m.Dim(), 64))
			for j := range x {
				x[j] = float32(j%5) - 2
			}
			f, err := m.Scores(sparseOf(x), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range f {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("score %v", v)
				}
			}
		}
	})
}

// TestLoadModelBounded: a model file is read only when it is a regular
// file within the memory limit, and a model is made only when its claim,
// padding included, is within it: one dense vector of 2²⁴ features is a
// 64 MiB file and a 1 GiB tile.
func TestLoadModelBounded(t *testing.T) {
	for _, path := range []string{"/dev/zero", t.TempDir()} {
		if _, err := LoadModelFile(path); err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v", path, err)
		}
	}
	data := saved(t, fileModel(t, DenseStorage, 1000, 2, 3, false))
	claim := modelMemory(modelStorageDense, 3, 1000, 2, 0)
	if _, err := (LoadOptions{MaxMemory: int64(claim)}).LoadModel(bytes.NewReader(data)); err != nil {
		t.Errorf("at its claim: %v", err)
	}
	if _, err := (LoadOptions{MaxMemory: int64(claim) - 1}).LoadModel(bytes.NewReader(data)); !errors.Is(err, ErrModelTooLarge) {
		t.Errorf("a byte below its claim: %v", err)
	}
	path := filepath.Join(t.TempDir(), "m.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (LoadOptions{MaxMemory: int64(len(data)) - 1}).LoadModelFile(path); !errors.Is(err, ErrModelTooLarge) || !strings.Contains(err.Error(), path) {
		t.Errorf("a file longer than the limit: %v", err)
	}
	// A stream declaring more than the limit is refused once the limit is
	// read, whatever follows.
	endless := bytes.Clone(data[:binrec.HeaderSize])
	binary.LittleEndian.PutUint64(endless[12:], 1<<62)
	if _, err := (LoadOptions{MaxMemory: 1 << 20}).LoadModel(io.MultiReader(bytes.NewReader(endless), zeros{})); !errors.Is(err, ErrModelTooLarge) {
		t.Errorf("an endless stream: %v", err)
	}
	if got := modelMemory(modelStorageDense, 1, 1<<24, 1, 0); got < 1<<30 {
		t.Errorf("one dense vector of 2^24 features claims %v bytes, its tile takes 1 GiB", got)
	}
}

// zeros is an endless reader of zero bytes, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
