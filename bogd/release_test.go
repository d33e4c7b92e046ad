package bogd

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/simd"
	"github.com/bogd-project/bogd/task"
)

// releaseFixture is one model of testdata/release and what the build that
// wrote it predicted (testdata/release/README.md): the rows (sparse,
// 0-based) and, for each, the prediction of that build, Probability as it
// then meant (P(+1) for a binary model).
type releaseFixture struct {
	File      string           `json:"file"`
	Algorithm string           `json:"algorithm"`
	Task      string           `json:"task"`
	Rows      []releaseRow     `json:"rows"`
	Predicted []releasePredict `json:"predicted"`
}

type releaseRow struct {
	Index []int32   `json:"index"`
	Value []float32 `json:"value"`
}

type releasePredict struct {
	Label         float64   `json:"label"`
	Score         float64   `json:"score"`
	Scores        []float64 `json:"scores,omitempty"`
	Probability   *float64  `json:"probability,omitempty"`
	Probabilities []float64 `json:"probabilities,omitempty"`
}

// releaseSIMD is the implementation of the kernels that computed the
// predictions of testdata/release: the others round the last bits of a
// kernel sum differently.
const releaseSIMD = "avx512"

// TestReleaseModelsLoad: the models the previous release wrote load, save
// back to the same bytes, and predict the same scores (bit for bit on the
// implementation that wrote them, within float32 rounding on the others),
// with the labels and probabilities Prediction documents (for the Learner
// and its Predictor alike).
func TestReleaseModelsLoad(t *testing.T) {
	exact := simd.Active().String() == releaseSIMD
	if !exact {
		t.Logf("the %v kernels: scores compared within float32 rounding, not bit for bit (%s wrote them)", simd.Active(), releaseSIMD)
	}
	dir := filepath.Join("testdata", "release")
	raw, err := os.ReadFile(filepath.Join(dir, "predictions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fixtures []releaseFixture
	if err := json.Unmarshal(raw, &fixtures); err != nil {
		t.Fatal(err)
	}
	if len(fixtures) != 4 {
		t.Fatalf("%d fixtures, want 4", len(fixtures))
	}
	changed := 0 // rows whose label the calibration now decides otherwise
	for _, f := range fixtures {
		path := filepath.Join(dir, f.File)
		file, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		l, err := LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg := l.Config()
		if l.Algorithm().String() != f.Algorithm || cfg.Task.String() != f.Task {
			t.Fatalf("%s: a %v %v, want %s %s", f.File, cfg.Task, l.Algorithm(), f.Task, f.Algorithm)
		}
		var again bytes.Buffer
		if err := l.Save(&again); err != nil || !bytes.Equal(again.Bytes(), file) {
			t.Errorf("%s: saved back differently (%v)", f.File, err)
		}
		p, err := l.Predictor()
		if err != nil {
			t.Fatal(err)
		}
		for i, row := range f.Rows {
			x := engine.Sparse(row.Index, row.Value)
			got, err := l.Predict(x)
			if err != nil {
				t.Fatal(err)
			}
			frozen, err := p.Predict(x)
			if err != nil {
				t.Fatal(err)
			}
			want := documented(t, f.File, cfg, f.Predicted[i])
			if !samePrediction(got, frozen) {
				t.Errorf("%s row %d: the learner predicted %+v, its Predictor %+v", f.File, i, got, frozen)
			}
			same := samePrediction
			if !exact {
				same = nearPrediction
			}
			for _, g := range []Prediction{got, frozen} {
				if !same(g, want) {
					t.Errorf("%s row %d: predicted %+v, want %+v", f.File, i, g, want)
				}
			}
			if want.Label != f.Predicted[i].Label {
				changed++
			}
		}
	}
	// The two binary rows picked for it, and 11 multi-class rows where the
	// calibrated offsets favour another class than the largest score.
	if changed != 13 {
		t.Errorf("%d labels differ from the old rule's, want 13", changed)
	}
}

// documented is what Prediction's documentation makes of what the release
// predicted: the same scores and probabilities of every class, and the
// label a calibrated classifier finds most probable with its probability.
func documented(t *testing.T, file string, cfg Config, old releasePredict) Prediction {
	want := Prediction{Label: old.Label, Score: old.Score, Scores: old.Scores, Probability: math.NaN(), Probabilities: old.Probabilities}
	if old.Probability == nil {
		return want
	}
	switch cfg.Task {
	case task.Binary:
		p1 := *old.Probability // the release gave P(+1)
		want.Label, want.Probability = 1, p1
		if p1 < 0.5 {
			want.Label, want.Probability = -1, 1-p1
		}
	case task.Multiclass:
		c := slices.Index(old.Probabilities, slices.Max(old.Probabilities))
		want.Label, want.Score, want.Probability = float64(cfg.Classes[c]), old.Scores[c], old.Probabilities[c]
	default:
		t.Fatalf("%s: a %v model with a probability", file, cfg.Task)
	}
	return want
}

// samePrediction compares two predictions bit for bit (NaN equal to NaN).
func samePrediction(a, b Prediction) bool {
	same := func(x, y []float64) bool {
		return slices.EqualFunc(x, y, func(u, v float64) bool { return math.Float64bits(u) == math.Float64bits(v) })
	}
	return same([]float64{a.Label, a.Score, a.Probability}, []float64{b.Label, b.Score, b.Probability}) &&
		same(a.Scores, b.Scores) && same(a.Probabilities, b.Probabilities)
}

// nearPrediction compares two predictions within float32 rounding of the
// scores (and what it does to the probabilities and to a regression's
// label): labels, scores and probabilities within 1e-5, which keeps class
// labels equal.
func nearPrediction(a, b Prediction) bool {
	near := func(x, y []float64) bool {
		return slices.EqualFunc(x, y, func(u, v float64) bool {
			return math.IsNaN(u) && math.IsNaN(v) || math.Abs(u-v) <= 1e-5*(1+math.Abs(v))
		})
	}
	return near([]float64{a.Label, a.Score, a.Probability}, []float64{b.Label, b.Score, b.Probability}) &&
		near(a.Scores, b.Scores) && near(a.Probabilities, b.Probabilities)
}
