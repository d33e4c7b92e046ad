package bogd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/binrec"
	"github.com/bogd-project/bogd/task"
)

// persistVariants lists every algorithm, BOGD and BOGD++ with both
// projections.
func persistVariants() []struct {
	a    Algorithm
	proj Projection
} {
	var out []struct {
		a    Algorithm
		proj Projection
	}
	for _, a := range algorithmsFor(task.Binary) {
		out = append(out, struct {
			a    Algorithm
			proj Projection
		}{a, ClipEach})
		if a == BOGD || a == BOGDpp {
			out = append(out, struct {
				a    Algorithm
				proj Projection
			}{a, RescaleAll})
		}
	}
	return out
}

func variantName(a Algorithm, proj Projection) string {
	if proj == RescaleAll {
		return a.String() + "/rescale"
	}
	return a.String()
}

func mustSave(t testing.TB, l *Learner) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := l.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustLoad(t testing.TB, data []byte) *Learner {
	t.Helper()
	l, err := Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// train feeds s.xs[from:to] to l and returns the outcomes.
func train(t testing.TB, l *Learner, s stream, from, to int) []outcome {
	t.Helper()
	var outs []outcome
	for i := from; i < to; i++ {
		out, err := l.observe(s.xs[i], s.labels[i])
		if err != nil {
			t.Fatalf("%v step %d: %v", l.Algorithm(), i, err)
		}
		outs = append(outs, out)
	}
	return outs
}

// sameOutcomes compares outcomes bit for bit.
func sameOutcomes(t testing.TB, what string, got, want []outcome, offset int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d outcomes, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if math.Float64bits(g.Score) != math.Float64bits(w.Score) || g.Mistake != w.Mistake || g.Updated != w.Updated {
			t.Fatalf("%s: step %d: %+v, uninterrupted %+v", what, offset+i, g, w)
		}
	}
}

// sameModel compares two snapshots: vectors, weights and scores of probe
// queries, bit for bit.
func sameModel(t testing.TB, what string, got, want *Learner, probes []engine.Vector) {
	t.Helper()
	mg, err := got.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	mw, err := want.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if mg.Len() != mw.Len() || mg.Dim() != mw.Dim() || mg.Sigma() != mw.Sigma() {
		t.Fatalf("%s: snapshot of %d vectors (dim %d, σ %v), want %d (dim %d, σ %v)", what, mg.Len(), mg.Dim(), mg.Sigma(), mw.Len(), mw.Dim(), mw.Sigma())
	}
	var a, b []float32
	for i := range mg.Len() {
		if math.Float32bits(mg.Weight(0, i)) != math.Float32bits(mw.Weight(0, i)) {
			t.Fatalf("%s: weight %d = %v, want %v", what, i, mg.Weight(0, i), mw.Weight(0, i))
		}
		a, b = mg.Vector(i, a), mw.Vector(i, b)
		for j := range a {
			if math.Float32bits(a[j]) != math.Float32bits(b[j]) {
				t.Fatalf("%s: vector %d feature %d = %v, want %v", what, i, j, a[j], b[j])
			}
		}
	}
	for k, x := range probes {
		sg, err1 := mg.Score(x)
		sw, err2 := mw.Score(x)
		if err1 != nil || err2 != nil || math.Float64bits(sg) != math.Float64bits(sw) {
			t.Fatalf("%s: probe %d scores %v (%v), want %v (%v)", what, k, sg, err1, sw, err2)
		}
	}
}

// sparseStream draws sparse non-integer points of dimension 40 with 3–8
// non-zeros, the first few of them far out. Once those are discarded, the
// set's norm bound still remembers them: a loader that forgot it would send
// later sparse queries down the norm-expansion path and round differently.
func sparseStream(n int, seed uint64) stream {
	rng := rand.New(rand.NewPCG(seed, 9))
	const dim = 40
	s := stream{dim: dim}
	for i := range n {
		y := 2*rng.IntN(2) - 1
		nnz := 3 + rng.IntN(6)
		idx := make([]int32, 0, nnz)
		val := make([]float32, 0, nnz)
		for j := range dim {
			if rng.IntN(dim-j) < nnz-len(idx) {
				v := rng.NormFloat64() + float64(y)*0.8
				if i < 6 {
					v *= 100
				}
				idx, val = append(idx, int32(j)), append(val, float32(v))
			}
		}
		s.xs, s.labels = append(s.xs, engine.Sparse(idx, val)), append(s.labels, y)
	}
	return s
}

// probesFor picks probe queries from a stream, dense and sparse.
func probesFor(s stream) []engine.Vector {
	var out []engine.Vector
	for i := 0; i < len(s.xs); i += len(s.xs)/7 + 1 {
		out = append(out, s.xs[i])
	}
	zero := make([]float32, s.dim)
	return append(out, engine.Dense(zero), engine.Sparse(nil, nil))
}

type resumeCase struct {
	name   string
	s      stream
	budget int
	cfg    func(a Algorithm) Config
}

func resumeCases(t *testing.T) []resumeCase {
	cases := []resumeCase{
		{name: "synthetic", s: syntheticStream(500, 5, 7), budget: 20},
		{name: "sparse", s: sparseStream(500, 8), budget: 20},
	}
	// german: the CLI's shape (sparse rows, λ = 1/T²), when the shared
	// datasets are present.
	if _, err := os.Stat(filepath.Join("..", "..", "shared", "datasets", "german.svm.gz")); err == nil {
		d := sharedData(t, "german.svm.gz")
		s := datasetStream(d, rand.New(rand.NewPCG(4, 4)).Perm(d.Len()))
		lambda := 1 / float64(d.Len()*d.Len())
		cases = append(cases, resumeCase{name: "german", s: s, budget: 100, cfg: func(a Algorithm) Config {
			return Config{Dim: d.Dim, Budget: 100, Sigma: 8, Eta: 0.125, Lambda: lambda, Gamma: 1, Seed: 17, C: 1}
		}})
	} else {
		t.Logf("../shared/datasets/german.svm.gz not present (%v): resume equivalence runs on synthetic data only", err)
	}
	return cases
}

// TestResumeEquivalence: a learner trained on the first part of a stream,
// saved and loaded, continues on the rest exactly as one trained without
// interruption: the same scores bit for bit, the same final snapshot, and
// the same model file. The saved learner itself is not disturbed.
func TestResumeEquivalence(t *testing.T) {
	for _, c := range resumeCases(t) {
		n := len(c.s.xs)
		probes := probesFor(c.s)
		for _, v := range persistVariants() {
			cfg := configFor(v.a, c.s.dim, c.budget, 23)
			if c.cfg != nil {
				cfg = c.cfg(v.a)
			}
			cfg.Projection = v.proj
			name := c.name + "/" + variantName(v.a, v.proj)

			whole := mustNew(t, v.a, cfg)
			want := train(t, whole, c.s, 0, n)
			for _, split := range []int{n / 2, n / 3, 1} {
				orig := mustNew(t, v.a, cfg)
				sameOutcomes(t, name+" first part", train(t, orig, c.s, 0, split), want[:split], 0)
				saved := mustSave(t, orig)
				resumed := mustLoad(t, saved)
				if v.a.Budgeted() && !randomFeatures(v.a) && split > 2*c.budget && resumed.SupportVectors() != c.budget {
					t.Errorf("%s: %d support vectors at the split, budget %d: removals not exercised", name, resumed.SupportVectors(), c.budget)
				}
				sameOutcomes(t, fmt.Sprintf("%s resumed at %d", name, split), train(t, resumed, c.s, split, n), want[split:], split)
				sameOutcomes(t, fmt.Sprintf("%s saved at %d", name, split), train(t, orig, c.s, split, n), want[split:], split)
				sameModel(t, name+" final", resumed, whole, probes)
				if got, want := mustSave(t, resumed), mustSave(t, whole); !bytes.Equal(got, want) {
					t.Fatalf("%s: the resumed learner saves %d bytes different from the uninterrupted one's %d", name, len(got), len(want))
				}
			}
		}
	}
}

// TestResumeChain saves and reloads every 37 steps: the chain of learners
// must track the uninterrupted one step for step.
func TestResumeChain(t *testing.T) {
	s := syntheticStream(400, 5, 12)
	for _, v := range persistVariants() {
		cfg := configFor(v.a, s.dim, 15, 3)
		cfg.Projection = v.proj
		whole := mustNew(t, v.a, cfg)
		want := train(t, whole, s, 0, len(s.xs))
		l := mustNew(t, v.a, cfg)
		for from := 0; from < len(s.xs); from += 37 {
			to := min(from+37, len(s.xs))
			sameOutcomes(t, variantName(v.a, v.proj), train(t, l, s, from, to), want[from:to], from)
			l = mustLoad(t, mustSave(t, l))
		}
		sameModel(t, variantName(v.a, v.proj), l, whole, probesFor(s))
	}
}

// trainedModels returns a saved model of every variant after 150 steps
// (budget 20: removals have happened).
func trainedModels(t testing.TB) map[string][]byte {
	s := syntheticStream(150, 4, 5)
	out := map[string][]byte{}
	for _, v := range persistVariants() {
		cfg := configFor(v.a, s.dim, 20, 9)
		cfg.Projection = v.proj
		l := mustNew(t, v.a, cfg)
		train(t, l, s, 0, len(s.xs))
		out[variantName(v.a, v.proj)] = mustSave(t, l)
	}
	prepared, _ := preparedLearner(t)
	out["bogd++-prepared"] = mustSave(t, prepared)
	return out
}

func TestRoundTrip(t *testing.T) {
	s := syntheticStream(120, 3, 2)
	for _, v := range persistVariants() {
		for _, steps := range []int{0, 1, 120} {
			cfg := Config{Dim: 3, Budget: 10, Sigma: 1.5, Eta: 0.3, Lambda: 0.01, Gamma: 1.5, C: 0.5,
				Seed: 1<<63 + 5, Projection: v.proj, ProjectronThreshold: 0.25 * float64(steps%2)}
			l := mustNew(t, v.a, cfg)
			train(t, l, s, 0, steps)
			data := mustSave(t, l)
			got := mustLoad(t, data)
			name := fmt.Sprintf("%s after %d steps", variantName(v.a, v.proj), steps)
			if got.Algorithm() != v.a || got.SupportVectors() != l.SupportVectors() {
				t.Fatalf("%s: loaded %v with %d vectors", name, got.Algorithm(), got.SupportVectors())
			}
			if gc, want := got.b.cfg, l.Config(); !reflect.DeepEqual(gc, want) {
				t.Fatalf("%s: config %+v, saved %+v", name, gc, want)
			}
			if again := mustSave(t, got); !bytes.Equal(again, data) {
				t.Fatalf("%s: saving the loaded learner changes the file", name)
			}
			sameModel(t, name, got, l, probesFor(s))
		}
	}
}

// TestConfigFieldsSaved fails when Config gains a field: the model format
// must then save it (and its version may need a bump).
func TestConfigFieldsSaved(t *testing.T) {
	if n := reflect.TypeFor[Config]().NumField(); n != 18 {
		t.Fatalf("Config has %d fields; the model format (persist.go) saves 18: update it", n)
	}
}

func TestLoadStream(t *testing.T) {
	models := trainedModels(t)
	var all bytes.Buffer
	names := []string{"bogd", "forgetron", "projectron++"}
	for _, name := range names {
		all.Write(models[name])
	}
	for _, name := range names {
		l, err := Load(&all)
		if err != nil {
			t.Fatalf("model %s of the stream: %v", name, err)
		}
		if l.Algorithm().String() != name {
			t.Fatalf("read %v, want %s", l.Algorithm(), name)
		}
	}
	if _, err := Load(&all); !errors.Is(err, ErrTruncated) {
		t.Fatalf("end of stream: %v, want %v", err, ErrTruncated)
	}
}

func TestLoadTruncated(t *testing.T) {
	for name, data := range trainedModels(t) {
		for n := range len(data) {
			if _, err := Load(bytes.NewReader(data[:n])); !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s cut to %d of %d bytes (Load): %v, want %v", name, n, len(data), err, ErrTruncated)
			}
			if _, err := decode(data[:n], DefaultMaxMemory); !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s cut to %d of %d bytes (decode): %v, want %v", name, n, len(data), err, ErrTruncated)
			}
		}
	}
}

// TestLoadFlippedByte flips each bit of every byte of a saved model and
// expects the error that names the damage.
func TestLoadFlippedByte(t *testing.T) {
	models := trainedModels(t)
	for _, name := range []string{"bogd", "bogd++", "forgetron", "projectron++", "perceptron"} {
		data := models[name]
		for i := range data {
			for bit := range 8 {
				bad := bytes.Clone(data)
				bad[i] ^= 1 << bit
				_, err := Load(bytes.NewReader(bad))
				var want error
				switch {
				case i < 8:
					want = ErrNotModel
				case i < 12 && bad[8] == 0 && bad[9] == 0 && bad[10] == 0 && bad[11] == 0:
					want = ErrInvalidModel // version 0
				case i < 12 && binary.LittleEndian.Uint32(bad[8:]) > formatVersion:
					want = ErrNewerVersion
				case i < 12:
					want = ErrChecksum // an older version: read on, and the checksum fails
				default:
					want = ErrChecksum
				}
				if !errors.Is(err, want) {
					t.Fatalf("%s: bit %d of byte %d flipped: %v, want %v", name, bit, i, err, want)
				}
			}
		}
	}
}

func TestLoadFutureVersion(t *testing.T) {
	data := trainedModels(t)["bogd"]
	for _, v := range []uint32{formatVersion + 1, 1 << 31} {
		bad := bytes.Clone(data)
		binary.LittleEndian.PutUint32(bad[8:], v)
		_, err := Load(bytes.NewReader(bad))
		want := fmt.Sprintf("model format version is newer than this program supports: version %d, this program reads up to %d", v, formatVersion)
		if !errors.Is(err, ErrNewerVersion) || err.Error() != want {
			t.Fatalf("version %d: %v, want %q", v, err, want)
		}
	}
	// The version is checked before anything that a later format might
	// change: a short newer file gives the same answer.
	short := append([]byte(modelMagic), 7, 0, 0, 0)
	if _, err := Load(bytes.NewReader(short)); !errors.Is(err, ErrNewerVersion) {
		t.Fatalf("short version-7 file: %v", err)
	}
}

func TestLoadWrongMagic(t *testing.T) {
	for _, in := range []string{"+1 1:0.5 3:1\n-1 2:1\n", "GIF89a\x01\x00\x01\x00", "BOGDMDL\x01rest of it", "\x1f\x8b\x08\x00"} {
		_, err := Load(strings.NewReader(in))
		if !errors.Is(err, ErrNotModel) || err.Error() != "not a bogd model" {
			t.Errorf("%q: %v, want %v", in, err, ErrNotModel)
		}
	}
}

// rechecksum sets the length field of a model to len(data) and rewrites its
// checksum, as a writer of invented contents would.
func rechecksum(data []byte) []byte {
	if len(data) < binrec.HeaderSize+binrec.TrailerSize {
		return data
	}
	data = bytes.Clone(data)
	binary.LittleEndian.PutUint64(data[12:], uint64(len(data)))
	binrec.Reseal(data)
	return data
}

// Offsets of fields in a model file (see persist.go).
const (
	offAlgo      = binrec.HeaderSize
	offDim       = offAlgo + 1
	offBudget    = offDim + 8
	offSigma     = offBudget + 8
	offEta       = offSigma + 8
	offTask      = offEta + 8*4 + 1 + 8  // Eta, Lambda, Gamma, Seed, Projection, Threshold
	offSetDim    = offTask + 1 + 8*6 + 2 // task.Task, Epsilon, Nu, C, Rank, Features, no classes, Calibrate, Storage
	offCount     = offSetDim + 8
	offColumns   = offCount + 8
	offNormBound = offColumns + 4
	offIntegral  = offNormBound + 8
	offSparse    = offIntegral + 1
	offVectors   = offSparse + 1
)

// TestLoadInvalidFields writes invented contents with a valid checksum and
// expects a clear error for each.
func TestLoadInvalidFields(t *testing.T) {
	models := trainedModels(t)
	put64 := func(off int, v uint64) func([]byte) []byte {
		return func(d []byte) []byte { binary.LittleEndian.PutUint64(d[off:], v); return d }
	}
	putF := func(off int, v float64) func([]byte) []byte { return put64(off, math.Float64bits(v)) }
	put8 := func(off int, v byte) func([]byte) []byte {
		return func(d []byte) []byte { d[off] = v; return d }
	}
	// Where the weights and the scale of a model start.
	count := func(name string) int { return int(binary.LittleEndian.Uint64(models[name][offCount:])) }
	weightsOf := func(name string) int {
		d := models[name]
		return offVectors + count(name)*int(binary.LittleEndian.Uint64(d[offSetDim:]))*4
	}
	scaleOf := func(name string) int { return weightsOf(name) + count(name)*int(models[name][offColumns])*4 }
	n, dim := count("bogd"), 4
	offWeights, offScale := weightsOf("bogd"), scaleOf("bogd")
	if n != 20 || count("forgetron") != 20 {
		t.Fatalf("the models hold %d and %d vectors, the cases expect full budgets of 20", n, count("forgetron"))
	}
	// Two entries of the BOGD heap whose swap breaks its order.
	heapSwap := func() (int, int) {
		u := mustLoad(t, models["bogd"]).b.rule.(*uniform)
		slots := u.free.slots() // as saved
		for k := 1; k < len(slots); k++ {
			if u.key(slots[(k-1)/2]) > u.key(slots[k]) {
				return (k - 1) / 2, k
			}
		}
		t.Fatal("every BOGD heap key is equal")
		return 0, 0
	}
	stateOf := func(name string) int { // offset of the algorithm state
		data := models[name]
		l := mustLoad(t, data)
		return len(data) - binrec.TrailerSize - len(l.b.rule.appendState(nil))
	}
	cases := []struct {
		model, name, want string
		edit              func([]byte) []byte
	}{
		{"bogd", "unknown algorithm", "unknown algorithm 200", put8(offAlgo, 200)},
		{"bogd", "negative dimension", "dimension is negative", put64(offDim, math.MaxUint64)},
		{"bogd", "huge dimension", "above the limit", put64(offDim, 1<<40)},
		{"bogd", "budget 1", "Budget must be at least 2", put64(offBudget, 1)},
		{"bogd", "negative budget", "Budget must be at least 2", put64(offBudget, math.MaxUint64-4)},
		{"bogd", "huge budget", "above the largest a model file holds", put64(offBudget, 1<<40)},
		{"projectron", "projectron budget", "above the largest a model file holds", put64(offBudget, maxProjectronBudget+1)},
		{"bogd", "NaN sigma", "Sigma, the kernel width, must be in", putF(offSigma, math.NaN())},
		{"bogd", "zero eta", "Eta, the step size, must be in", putF(offEta, 0)},
		{"bogd", "dimension mismatch", "does not match the configured dimension", put64(offSetDim, uint64(dim+1))},
		{"bogd", "negative count", "support vector count is negative", put64(offCount, 1<<63)},
		{"bogd", "huge count", "above the limit", put64(offCount, 1<<40)},
		{"perceptron", "count beyond the input", "need", put64(offCount, 1<<30)},
		{"bogd", "count over budget", "over the budget", put64(offCount, 21)},
		{"bogd", "columns", "weight columns", put8(offColumns, 1)},
		{"bogd", "NaN norm bound", "NaN", putF(offNormBound, math.NaN())},
		{"bogd", "norm bound too small", "below the squared norm", putF(offNormBound, 1e-3)},
		{"bogd", "integral flag", "integral flag is 2", put8(offIntegral, 2)},
		{"bogd", "marked integral", "non-integer", put8(offIntegral, 1)},
		{"bogd", "NaN feature", "feature 0 is NaN", func(d []byte) []byte {
			binary.LittleEndian.PutUint32(d[offVectors:], math.Float32bits(float32(math.NaN())))
			return d
		}},
		{"bogd", "NaN weight", "weight 0 of column 0 is NaN", func(d []byte) []byte {
			binary.LittleEndian.PutUint32(d[offWeights:], math.Float32bits(float32(math.NaN())))
			return d
		}},
		{"bogd", "infinite weight", "is +Inf", func(d []byte) []byte {
			binary.LittleEndian.PutUint32(d[offWeights+4*n+4:], math.Float32bits(float32(math.Inf(1))))
			return d
		}},
		{"bogd", "weight above the cap", "above γη", func(d []byte) []byte {
			for i := range n { // the first free weight, its sign kept
				if binary.LittleEndian.Uint32(d[offWeights+4*n+4*i:]) == 0 {
					w := math.Float32frombits(binary.LittleEndian.Uint32(d[offWeights+4*i:]))
					binary.LittleEndian.PutUint32(d[offWeights+4*i:], math.Float32bits(float32(math.Copysign(1e6, float64(w)))))
					break
				}
			}
			return d
		}},
		{"bogd", "weight off its pattern", "off the sign of its pattern", func(d []byte) []byte {
			w := math.Float32frombits(binary.LittleEndian.Uint32(d[offWeights+4*n:]))
			binary.LittleEndian.PutUint32(d[offWeights+4*n:], math.Float32bits(-w)) // group column 1 of vector 0
			if w == 0 {
				w = math.Float32frombits(binary.LittleEndian.Uint32(d[offWeights:]))
				binary.LittleEndian.PutUint32(d[offWeights:], math.Float32bits(-w))
			}
			return d
		}},
		{"bogd", "zero scale", "weight scale 0 out of range", putF(offScale, 0)},
		{"bogd", "negative group", "group weight", putF(offScale+8, -1)},
		{"perceptron", "group without a column", "group weight", putF(scaleOf("perceptron")+8, 0.5)},
		{"bogd", "random state length", "random state length", put64(offScale+16, 1<<20)},
		{"bogd", "random state", "random state", func(d []byte) []byte { d[offScale+24] = 'x'; return d }},
		{"bogd", "trailing bytes", "unexpected bytes", func(d []byte) []byte { return append(d, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) }},
		{"bogd", "heap size", "heap of", func(d []byte) []byte {
			off := stateOf("bogd")
			binary.LittleEndian.PutUint64(d[off:], binary.LittleEndian.Uint64(d[off:])-1)
			return d
		}},
		{"bogd", "heap slot out of range", "BOGD heap slots", func(d []byte) []byte {
			binary.LittleEndian.PutUint32(d[stateOf("bogd")+8:], 1<<31)
			return d
		}},
		{"bogd", "heap order", "heap order broken", func(d []byte) []byte {
			i, j := heapSwap()
			off := stateOf("bogd") + 8
			a, b := d[off+4*i:off+4*i+4], d[off+4*j:off+4*j+4]
			var tmp [4]byte
			copy(tmp[:], a)
			copy(a, b)
			copy(b, tmp[:])
			return d
		}},
		{"bogd++", "group size", "group of", func(d []byte) []byte {
			off := stateOf("bogd++")
			binary.LittleEndian.PutUint64(d[off:], binary.LittleEndian.Uint64(d[off:])+1)
			return d
		}},
		{"forgetron", "ring head", "ring head", func(d []byte) []byte {
			binary.LittleEndian.PutUint64(d[stateOf("forgetron")+16:], 20)
			return d
		}},
		{"forgetron", "repeated age slot", "forgetron: invalid model file: ages", func(d []byte) []byte {
			off := stateOf("forgetron") + 24
			copy(d[off+4:off+8], d[off:off+4])
			return d
		}},
		{"forgetron", "label", "label of support vector 0 is 0", func(d []byte) []byte {
			binary.LittleEndian.PutUint32(d[len(d)-binrec.TrailerSize-4*n:], 0)
			return d
		}},
		{"forgetron", "NaN Q", "NaN", func(d []byte) []byte {
			binary.LittleEndian.PutUint64(d[stateOf("forgetron")+8:], math.Float64bits(math.NaN()))
			return d
		}},
		{"projectron", "coefficient", "its coefficient", func(d []byte) []byte {
			off := stateOf("projectron")
			binary.LittleEndian.PutUint64(d[off:], math.Float64bits(math.Float64frombits(binary.LittleEndian.Uint64(d[off:]))+1))
			return d
		}},
		{"projectron++", "Gram matrix", "Inf", func(d []byte) []byte {
			binary.LittleEndian.PutUint64(d[len(d)-binrec.TrailerSize-8:], math.Float64bits(math.Inf(-1)))
			return d
		}},
		{"projectron++", "state cut short", "needs", func(d []byte) []byte {
			return append(d[:len(d)-binrec.TrailerSize-8], 0, 0, 0, 0)
		}},
		// NOGD in phase 2 at k·B = 80 (columns: the landmark weights, zero
		// in this form, then M's 4 rows): a zero row of M before a non-zero
		// one, a landmark weight, and a zero last row under a non-zero
		// coefficient of the linear model.
		{"nogd", "Nyström row after a zero row", "row 1 is non-zero after the zero row 0", func(d []byte) []byte {
			clear(d[weightsOf("nogd")+4*count("nogd") : weightsOf("nogd")+8*count("nogd")])
			return d
		}},
		{"nogd", "landmark weights in phase 2", "output 0 has landmark weights in phase 2", func(d []byte) []byte {
			binary.LittleEndian.PutUint32(d[weightsOf("nogd"):], math.Float32bits(0.5))
			return d
		}},
		{"nogd", "coefficient on a zero row", "on the zero Nyström row 3", func(d []byte) []byte {
			clear(d[weightsOf("nogd")+16*count("nogd") : weightsOf("nogd")+20*count("nogd")])
			return d
		}},
	}
	if l := mustLoad(t, models["nogd"]).b.rule.(*nogd); !l.phase2 || l.kept != 4 || int(models["nogd"][offColumns]) != 5 {
		t.Fatalf("the NOGD model is in phase 2 %v with %d of 4 Nyström rows and %d columns: the NOGD cases expect phase 2, 4 rows and 5 columns",
			l.phase2, l.kept, models["nogd"][offColumns])
	}
	for _, c := range cases {
		data := models[c.model]
		if data == nil {
			t.Fatalf("no model %q", c.model)
		}
		bad := rechecksum(c.edit(bytes.Clone(data)))
		_, err := Load(bytes.NewReader(bad))
		if !errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an invalid-model error containing %q", c.name, err, c.want)
		}
	}
}

func TestSaveRejects(t *testing.T) {
	if err := checkLimits(ProjectronPP, Config{Budget: maxProjectronBudget + 1}); err == nil {
		t.Error("Projectron++ budget above the limit accepted")
	}
	if err := checkLimits(RBP, Config{Budget: maxModelBudget + 1}); err == nil {
		t.Error("budget above the limit accepted")
	}
	if err := checkLimits(Perceptron, Config{Dim: maxModelDim + 1, Storage: engine.DenseStorage}); err == nil {
		t.Error("dimension above the dense limit accepted")
	}
	if err := checkLimits(Perceptron, Config{Dim: maxModelDim + 1}); err != nil {
		t.Errorf("a sparse dimension above the dense limit: %v", err)
	}
	if err := checkLimits(Perceptron, Config{Dim: 10, Budget: math.MaxInt}); err != nil {
		t.Errorf("an unbudgeted learner's unused budget: %v", err)
	}
}

// TestSaveRejectsOverflow: an η beyond float32's range is refused at
// construction; should an infinite weight appear anyway, Save refuses it
// rather than write a file Load rejects.
func TestSaveRejectsOverflow(t *testing.T) {
	if _, err := New(OGD, Config{Dim: 1, Sigma: 1, Eta: 1e200}); !errors.Is(err, ErrConfig) {
		t.Fatalf("η = 1e200: %v", err)
	}
	l := mustNew(t, OGD, Config{Dim: 1, Sigma: 1, Eta: 1})
	observe(t, l, 1, 1)
	l.b.rule.(*ogd).set.WeightColumn(0)[0] = float32(math.Inf(1))
	if err := l.Save(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "is +Inf") {
		t.Fatalf("Save: %v", err)
	}
}

func TestSaveFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.bogd")
	models := trainedModels(t)
	s := syntheticStream(60, 4, 5)
	l := mustNew(t, Forgetron, configFor(Forgetron, 4, 20, 1))
	train(t, l, s, 0, 60)
	if err := l.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(good, mustSave(t, l)) {
		t.Fatal("SaveFile and Save differ")
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file: %v, %v", fi.Mode(), err)
	}
	got, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sameModel(t, "SaveFile", got, l, probesFor(s))

	onlyModel := func(step string) {
		t.Helper()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 || entries[0].Name() != "model.bogd" {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Fatalf("%s: directory holds %v", step, names)
		}
	}
	// SaveFile writes through atomicfile (whose tests fail every step): a
	// failed save leaves the old file whole and no temporary file behind.
	other := mustLoad(t, models["bogd"])
	saveHook = func(step string) error {
		if step == "rename" {
			return errors.New("injected failure")
		}
		return nil
	}
	err = other.SaveFile(path)
	saveHook = nil
	if err == nil || !strings.Contains(err.Error(), "injected failure") || !strings.HasPrefix(err.Error(), "save model: write "+path) {
		t.Fatalf("failed save: %v", err)
	}
	onlyModel("rename")
	if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, good) {
		t.Fatalf("a failed save changed the file (%v)", err)
	}

	// An existing file keeps its mode.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := other.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after overwriting a 0600 file", fi.Mode())
	}
	onlyModel("overwrite")

	// Not a regular file, or a missing directory: errors.
	if err := other.SaveFile(dir); err == nil {
		t.Error("saving over a directory succeeded")
	}
	if err := other.SaveFile(filepath.Join(dir, "missing", "m.bogd")); err == nil {
		t.Error("saving into a missing directory succeeded")
	}

	// A read-only directory (meaningless for root, who may write anyway).
	if os.Geteuid() != 0 {
		ro := filepath.Join(t.TempDir(), "ro")
		if err := os.Mkdir(ro, 0o755); err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(ro, "m.bogd")
		if err := l.SaveFile(target); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(ro, 0o755)
		if err := other.SaveFile(target); err == nil {
			t.Error("saving into a read-only directory succeeded")
		}
		if now, _ := os.ReadFile(target); !bytes.Equal(now, good) {
			t.Error("a failed save into a read-only directory changed the file")
		}
	}
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	data := trainedModels(t)["rbp"]
	cases := map[string][]byte{
		"trailing.bogd":  append(bytes.Clone(data), 0),
		"truncated.bogd": data[:len(data)/2],
		"empty.bogd":     nil,
	}
	wants := map[string]error{"trailing.bogd": ErrInvalidModel, "truncated.bogd": ErrTruncated, "empty.bogd": ErrTruncated}
	for name, content := range cases {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadFile(path)
		if !errors.Is(err, wants[name]) || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("%s: %v, want %v naming the file", name, err, wants[name])
		}
	}
	if _, err := LoadFile(filepath.Join(dir, "missing.bogd")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestLoadedNoAllocs: a loaded learner at its budget steps without
// allocating, like a new one.
func TestLoadedNoAllocs(t *testing.T) {
	s := syntheticStream(200, 5, 3)
	for _, a := range []Algorithm{BOGD, BOGDpp, RBP, Forgetron, Projectron, ProjectronPP} {
		l := mustNew(t, a, configFor(a, 5, 16, 1))
		train(t, l, s, 0, 100)
		l = mustLoad(t, mustSave(t, l))
		i := 100
		allocs := testing.AllocsPerRun(50, func() {
			if _, err := l.observe(s.xs[i], s.labels[i]); err != nil {
				t.Fatal(err)
			}
			i++
		})
		if allocs != 0 {
			t.Errorf("%v: %v allocations per Learn after loading", a, allocs)
		}
	}
}

// smallModels returns a small saved model of every variant (dimension 2,
// budget 4, 25 steps): seeds for FuzzLoad.
func smallModels(t testing.TB) map[string][]byte {
	s := syntheticStream(25, 2, 6)
	out := map[string][]byte{}
	for _, v := range persistVariants() {
		cfg := configFor(v.a, s.dim, 4, 2)
		cfg.Projection = v.proj
		l := mustNew(t, v.a, cfg)
		train(t, l, s, 0, len(s.xs))
		out[variantName(v.a, v.proj)] = mustSave(t, l)
	}
	prepared, _ := preparedLearner(t)
	out["bogd++-prepared"] = mustSave(t, prepared)
	return out
}

// TestWriteFuzzCorpus regenerates the committed seed corpus of FuzzLoad
// (testdata/fuzz/FuzzLoad) when BOGD_WRITE_FUZZ_CORPUS=1: after a format
// change, run it and commit the result.
func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("BOGD_WRITE_FUZZ_CORPUS") != "1" {
		t.Skip("set BOGD_WRITE_FUZZ_CORPUS=1 to rewrite testdata/fuzz/FuzzLoad")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzLoad")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seeds := map[string][]byte{}
	small := smallModels(t)
	for name, data := range small {
		seeds["valid_"+strings.NewReplacer("+", "p", "/", "_").Replace(name)] = data
	}
	bogd, forgetron := small["bogd"], small["forgetron"]
	seeds["truncated"] = bogd[:len(bogd)/2]
	flipped := bytes.Clone(forgetron)
	flipped[len(flipped)/2] ^= 0x10
	seeds["flipped"] = flipped
	newer := bytes.Clone(bogd)
	newer[8] = formatVersion + 1
	seeds["newer_version"] = newer
	negative := bytes.Clone(bogd)
	binary.LittleEndian.PutUint64(negative[offCount:], 1<<63)
	seeds["negative_count_rechecksummed"] = rechecksum(negative)
	label := bytes.Clone(forgetron)
	label[len(label)-binrec.TrailerSize-1] = 3
	seeds["bad_label_rechecksummed"] = rechecksum(label)
	seeds["not_a_model"] = []byte("+1 1:0.5 2:1\n")
	for name, data := range hostileModels(t) {
		seeds["hostile_"+name] = data
	}
	for name, data := range seeds {
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoadVersion1: a Projectron++ saved in format version 1 (which stored
// all of K⁻¹ and the Gram matrix) loads, keeps K⁻¹'s lower triangle, and
// predicts as before.
func TestLoadVersion1(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzLoad", "v1_projectronpp"))
	if err != nil {
		t.Fatal(err)
	}
	v1, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(strings.SplitN(string(raw), "\n", 3)[1], "[]byte("), ")"))
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32([]byte(v1)[8:]); v != 1 {
		t.Fatalf("the seed has version %d", v)
	}
	old, err := Load(strings.NewReader(v1))
	if err != nil {
		t.Fatal(err)
	}
	v2 := mustSave(t, old)
	n := old.SupportVectors()
	// Version 1 held K and all of K⁻¹; version 3 has the lower triangle of
	// K⁻¹, the task fields (task.Task, Epsilon, Nu, C, Rank, Features, no
	// classes, Calibrate, Storage), the sparse-storage flag and a 4-byte
	// column count where version 1 had 1 byte.
	if n < 2 || len(v1)-len(v2) != 8*(2*n*n-tri(n))-(1+8*6+2)-3-1 {
		t.Fatalf("%d support vectors: version 1 has %d bytes, version %d %d", n, len(v1), formatVersion, len(v2))
	}
	cur, err := Load(bytes.NewReader(v2))
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, old.b.cfg.Dim)
	for i := range x {
		x[i] = 0.5
	}
	a, errA := old.score(engine.Dense(x))
	b, errB := cur.score(engine.Dense(x))
	if errA != nil || errB != nil || a != b {
		t.Fatalf("predictions %v (%v) and %v (%v)", a, errA, b, errB)
	}
}

// TestFuzzCorpusCurrent: the committed valid_* seeds still load, so that
// a format change without TestWriteFuzzCorpus is noticed.
func TestFuzzCorpusCurrent(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzLoad", "valid_*"))
	if err != nil || len(files) < 8 {
		t.Fatalf("%d valid seeds (%v)", len(files), err)
	}
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitN(string(raw), "\n", 3)
		q, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if _, err := Load(strings.NewReader(q)); err != nil {
			t.Errorf("%s: %v (rerun with BOGD_WRITE_FUZZ_CORPUS=1)", path, err)
		}
	}
}

// FuzzLoad feeds arbitrary bytes to Load, also with the length and
// checksum fixed up so that the field checks behind them are reached. A
// model that loads must save back to the same bytes and survive a few
// training steps and predictions. Its memory limit is 256 MiB, so that
// every model it accepts is cheap to load and train: a size that escapes
// the check (Memory) then shows as an input that runs out of memory.
func FuzzLoad(f *testing.F) {
	for _, data := range smallModels(f) {
		f.Add(data)
	}
	for _, data := range hostileModels(f) {
		f.Add(data)
	}
	limited := LoadOptions{MaxMemory: 256 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, rechecksum(data)} {
			l, err := limited.Load(bytes.NewReader(in))
			if err != nil {
				if l != nil {
					t.Fatal("a learner and an error")
				}
				continue
			}
			size := int(binary.LittleEndian.Uint64(in[12:]))
			again := mustSave(t, l)
			if binary.LittleEndian.Uint32(in[8:]) < plainVersion {
				// An older format saves in the current one, which must
				// then be stable.
				algo := l.Algorithm()
				if l, err = limited.Load(bytes.NewReader(again)); err != nil {
					t.Fatalf("a loaded %v saves a model that does not load: %v", algo, err)
				}
				in, size = again, len(again)
				again = mustSave(t, l)
			}
			if !bytes.Equal(again, in[:size]) {
				t.Fatalf("a loaded %v saves differently", l.Algorithm())
			}
			dim := l.b.cfg.Dim
			if dim > 64 {
				continue
			}
			x := make([]float32, dim)
			for i := range 6 {
				for j := range x {
					x[j] = float32(i*(j+1)%5) - 2
				}
				y := 1 - 2*(i%2)
				if classes := l.b.cfg.Classes; len(classes) > 0 {
					y = classes[i%len(classes)]
				}
				if _, err := l.observe(engine.Dense(x), y); err != nil {
					t.Fatal(err)
				}
			}
			m, err := l.snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Score(engine.Sparse([]int32{0}, []float32{1})); err != nil {
				t.Fatal(err)
			}
		}
	})
}
