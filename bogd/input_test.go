package bogd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/binrec"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/task"
)

// preparedLearner is a regression learner over 3 features, trained on
// rows scaled by a min-max scaling of features and labels, with that
// scaling as its input.
func preparedLearner(t testing.TB) (*Learner, prep.Input) {
	t.Helper()
	scaling, err := prep.NewMinMax([]float32{0, -2, 1}, []float32{10, 2, 1}, &[2]float64{100, 300})
	if err != nil {
		t.Fatal(err)
	}
	in := prep.Input{Scaling: scaling}
	l := mustNew(t, BOGDpp, Config{Task: task.Regression, Dim: 3, Budget: 8, Sigma: 1, Seed: 3})
	if err := l.SetInput(in); err != nil {
		t.Fatal(err)
	}
	var row prep.Row
	for i := range 40 {
		raw := []int32{int32(i % 11), int32(i%5 - 2), 1}
		features := []prep.Feature{{Key: "1", Value: float64(raw[0])}, {Key: "2", Value: float64(raw[1])}, {Key: "3", Value: float64(raw[2])}}
		if err := in.Prepare(&row, features, 3); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Learn(engine.Sparse(row.Index, row.Value), in.Label(100+10*float64(raw[0]+raw[1]))); err != nil {
			t.Fatal(err)
		}
	}
	return l, in
}

// TestInputSaved: a learner's input is written in format version 4, read
// back, kept bit for bit by a second save, carried by its Predictor; a
// learner without one is written in version 3, as before version 4.
func TestInputSaved(t *testing.T) {
	l, in := preparedLearner(t)
	data := mustSave(t, l)
	if v := binary.LittleEndian.Uint32(data[8:]); v != 4 {
		t.Fatalf("a learner with an input saved in version %d", v)
	}
	back := mustLoad(t, data)
	if back.Input().Scaling == nil || back.Input().Scaling.Dim() != 3 || !bytes.Equal(mustSave(t, back), data) {
		t.Fatalf("the input did not come back: %+v", back.Input())
	}
	p, err := back.Predictor()
	if err != nil || p.Input().Scaling == nil {
		t.Fatalf("the Predictor's input: %+v, %v", p.Input(), err)
	}
	var row prep.Row
	for _, features := range [][]prep.Feature{
		{{Key: "1", Value: 4}, {Key: "2", Value: -1}},
		{{Key: "3", Value: 1}, {Key: "1", Value: 12}, {Key: "7", Value: 1}},
		nil,
	} {
		got, err := p.PredictRow(&row, features)
		if err != nil {
			t.Fatal(err)
		}
		var direct prep.Row
		if err := in.Prepare(&direct, features, 3); err != nil {
			t.Fatal(err)
		}
		want, err := l.Predict(engine.Sparse(direct.Index, direct.Value))
		if err != nil {
			t.Fatal(err)
		}
		if got.Score != want.Score || got.Label != in.Unlabel(want.Score) || !(got.Label > 50 && got.Label < 400) {
			t.Errorf("%v: PredictRow %+v, the learner %+v (label %v on the label's scale)", features, got, want, in.Unlabel(want.Score))
		}
	}
	if len(row.Ignored) != 0 {
		t.Errorf("ignored %v after a row within the dimension", row.Ignored)
	}
	if _, err := p.PredictRow(&row, []prep.Feature{{Key: "0", Value: 1}}); !errors.Is(err, prep.ErrRow) {
		t.Errorf("a bad row: %v", err)
	}

	plain := mustNew(t, OGD, Config{Dim: 3})
	if v := binary.LittleEndian.Uint32(mustSave(t, plain)[8:]); v != 3 || !mustLoad(t, mustSave(t, plain)).Input().IsZero() {
		t.Fatalf("a learner without an input saved in version %d", v)
	}
	// The zero Input takes an input away.
	if err := back.SetInput(prep.Input{}); err != nil || binary.LittleEndian.Uint32(mustSave(t, back)[8:]) != 3 {
		t.Fatalf("SetInput of the zero Input: %v", err)
	}
}

func TestSetInputRefuses(t *testing.T) {
	labels, _ := prep.NewMinMax([]float32{0, 0, 0}, []float32{1, 1, 1}, &[2]float64{0, 1})
	features, _ := prep.NewMinMax([]float32{0, 0}, []float32{1, 1}, nil)
	for _, c := range []struct {
		cfg  Config
		in   prep.Input
		want string
	}{
		{Config{Dim: 3}, prep.Input{HashBits: 2}, "ogd: prep: features are hashed into 2^2 dimensions, but the model has 3"},
		{Config{Dim: 3}, prep.Input{Scaling: features}, "ogd: prep: the scaling maps 2 features, but the model has 3"},
		{Config{Dim: 3}, prep.Input{Scaling: labels}, "ogd: prep: the scaling maps labels, but the labels of a binary model are classes"},
		{Config{Dim: 3}, prep.Input{HashBits: 40}, "ogd: prep: hash bits 40"},
	} {
		l := mustNew(t, OGD, c.cfg)
		if err := l.SetInput(c.in); err == nil || !strings.HasPrefix(err.Error(), c.want) || !l.Input().IsZero() {
			t.Errorf("%+v: %v, want %q", c.in, err, c.want)
		}
	}
	l := mustNew(t, OGD, Config{Task: task.Regression, Dim: 3})
	if err := l.SetInput(prep.Input{Scaling: labels}); err != nil {
		t.Errorf("a regression's scaled labels: %v", err)
	}
	h := mustNew(t, OGD, Config{Dim: 1 << 4})
	if err := h.SetInput(prep.Input{HashBits: 4}); err != nil {
		t.Errorf("hashing into the model's dimension: %v", err)
	}
}

// TestLoadInvalidInput: a version 4 file whose input is damaged, empty or
// does not fit its learner is an invalid model.
func TestLoadInvalidInput(t *testing.T) {
	l, _ := preparedLearner(t)
	data := mustSave(t, l)
	// The input is the body's end: hash bits, method, the feature count
	// (3), 6 bounds, the label flag and 2 label bounds.
	at := len(data) - binrec.TrailerSize - (2 + 8 + 6*4 + 1 + 2*8)
	if data[at] != 0 || data[at+1] != 1 || binary.LittleEndian.Uint64(data[at+2:]) != 3 {
		t.Fatalf("no input at byte %d: % x", at, data[at:at+10])
	}
	for _, c := range []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"unknown scaling", func(b []byte) []byte { b[at+1] = 7; return b }, "unknown scaling 7"},
		{"no preparation", func(b []byte) []byte { return append(b[:at], 0, 0) }, "a version 4 file without an input preparation"},
		{"hashing a regression of 3 features", func(b []byte) []byte { b[at] = 2; return b }, "features are hashed into 2^2 dimensions, but the model has 3"},
		{"a minimum above its maximum", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[at+10:], math.Float32bits(20))
			return b
		}, "feature 1: minimum 20 and maximum 10"},
		{"a byte short", func(b []byte) []byte { return b[:len(b)-1] }, "a field needs 8 bytes"},
		{"a byte more", func(b []byte) []byte { return append(b, 0) }, "1 unexpected bytes after the input preparation"},
	} {
		// The body edited, then the length and the checksum made right.
		bad := rechecksum(append(c.edit(bytes.Clone(data[:len(data)-binrec.TrailerSize])), make([]byte, binrec.TrailerSize)...))
		_, err := Load(bytes.NewReader(bad))
		if !errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestPredictRowHashed: a hashed model's Predictor hashes names as prep
// does, and a name's index is its feature.
func TestPredictRowHashed(t *testing.T) {
	l := mustNew(t, Perceptron, Config{Dim: 1 << 6, Sigma: 1})
	if err := l.SetInput(prep.Input{HashBits: 6}); err != nil {
		t.Fatal(err)
	}
	words := [][]string{{"good", "great"}, {"bad", "awful"}, {"nice", "good"}, {"poor", "bad"}}
	var row prep.Row
	for pass := range 3 {
		for i, w := range words {
			features := []prep.Feature{{Key: w[0], Value: 1}, {Key: w[1], Value: 1}}
			if err := l.Input().Prepare(&row, features, 1<<6); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Learn(engine.Sparse(row.Index, row.Value), float64(1-2*(i%2))); err != nil {
				t.Fatalf("pass %d: %v", pass, err)
			}
		}
	}
	p, err := l.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range words {
		got, err := p.PredictRow(&row, []prep.Feature{{Key: w[1], Value: 1}, {Key: w[0], Value: 1}})
		if err != nil || got.Label != float64(1-2*(i%2)) {
			t.Errorf("%v: %+v, %v", w, got, err)
		}
	}
	if _, err := p.PredictRow(&row, []prep.Feature{{Key: "two words", Value: 1}}); !errors.Is(err, prep.ErrRow) || !strings.Contains(err.Error(), strconv.Quote("two words")) {
		t.Errorf("a name with a space: %v", err)
	}
}
