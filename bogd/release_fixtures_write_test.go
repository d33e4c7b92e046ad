package bogd

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
)

// releaseFixture is one model of testdata/release and what it predicted
// when it was written: the rows (sparse, 0-based) and, for each, the
// prediction of that build (Probability as it then meant: P(+1) for a
// binary model, the predicted class's for a multi-class one).
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

// TestWriteReleaseFixtures writes testdata/release with the build of the
// day when BOGD_WRITE_RELEASE_FIXTURES=1 (it needs ../shared/datasets):
// one model per task, and their predictions on a few rows that they did
// not learn.
func TestWriteReleaseFixtures(t *testing.T) {
	if os.Getenv("BOGD_WRITE_RELEASE_FIXTURES") != "1" {
		t.Skip("set BOGD_WRITE_RELEASE_FIXTURES=1 to write testdata/release")
	}
	german, err := dataset.ReadFile(filepath.Join("..", "dataset", "testdata", "german.svm.gz"), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dna := sharedData(t, filepath.Join("multiclass", "dna.svm.gz"))
	housing, err := dataset.ReadFile(filepath.Join("..", "..", "shared", "datasets", "regression", "housing.svm.gz"), dataset.Options{Task: dataset.Regression})
	if err != nil {
		t.Fatal(err)
	}
	if housing, err = dataset.MinMax(housing, true).Apply(housing); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		file        string
		a           Algorithm
		cfg         Config
		data        *dataset.Dataset
		learn, test int
	}{
		{"binary-bogdpp-calibrated.bogd", BOGDpp, Config{Dim: german.Dim, Budget: 30, Sigma: 20, Seed: 7, Calibrate: true}, german, 600, 12},
		{"multiclass-fogd-calibrated.bogd", FOGD, Config{Dim: dna.Dim, Budget: 10, Sigma: 4, Seed: 7, Task: Multiclass, Classes: dna.Classes, Calibrate: true}, dna, 800, 12},
		{"regression-norma.bogd", NORMA, Config{Dim: housing.Dim, Sigma: 0.5, Epsilon: 0.01, Nu: 0.3, Task: Regression}, housing, 300, 12},
		{"multiclass-bogd-sparse-calibrated.bogd", BOGD, Config{Dim: dna.Dim, Budget: 20, Sigma: 4, Seed: 7, Task: Multiclass, Classes: dna.Classes, Calibrate: true, Storage: engine.SparseStorage}, dna, 500, 12},
	}
	dir := filepath.Join("testdata", "release")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var fixtures []releaseFixture
	for _, c := range cases {
		l, err := NewOnline(c.a, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.learn {
			idx, val := c.data.Row(i)
			if _, err := l.Learn(engine.Sparse(idx, val), c.data.Labels[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := SaveFile(filepath.Join(dir, c.file), l); err != nil {
			t.Fatal(err)
		}
		f := releaseFixture{File: c.file, Algorithm: c.a.String(), Task: l.Task().String()}
		// The first rows after those learnt, and the first two later
		// ones whose label and probabilities disagree (where the label
		// rule of a calibrated classifier has since changed).
		disagreements := 0
		for i := c.learn; i < c.data.Len() && (i < c.learn+c.test || disagreements < 2); i++ {
			idx, val := c.data.Row(i)
			p, err := l.PredictOne(engine.Sparse(idx, val), nil)
			if err != nil {
				t.Fatal(err)
			}
			disagree := c.cfg.Calibrate && (c.cfg.Task == Binary && (p.Label > 0) != (p.Probability >= 0.5) ||
				c.cfg.Task == Multiclass && p.Probability < slices.Max(p.Probabilities))
			if i >= c.learn+c.test && !disagree {
				continue
			}
			if disagree {
				disagreements++
			}
			f.Rows = append(f.Rows, releaseRow{Index: idx, Value: val})
			rp := releasePredict{Label: p.Label, Score: p.Score, Scores: p.Scores, Probabilities: p.Probabilities}
			if !math.IsNaN(p.Probability) {
				rp.Probability = &p.Probability
			}
			f.Predicted = append(f.Predicted, rp)
		}
		fixtures = append(fixtures, f)
	}
	out, err := json.MarshalIndent(fixtures, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "predictions.json"), append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
