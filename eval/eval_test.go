package eval

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/task"
)

func TestReliability(t *testing.T) {
	r := newReliability(nil)
	// Bin [0.1, 0.2): p 0.15 twice, one +1 (observed 0.5); bin [0.9, 1]:
	// p 0.95 and 1, both +1.
	for _, c := range []struct{ p, y float64 }{{0.15, 1}, {0.15, -1}, {0.95, 1}, {1, 1}} {
		r.add([]float64{c.p}, c.y, 1)
	}
	if want := 0.5*0.35 + 0.5*0.025; math.Abs(r.ece()-want) > 1e-15 {
		t.Errorf("binary ECE %v, want %v", r.ece(), want)
	}
	m := newReliability([]int{1, 4, 6})
	m.add([]float64{0.1, 0.7, 0.2}, 4, 4) // right at 0.7
	m.add([]float64{0.1, 0.3, 0.6}, 4, 6) // wrong at 0.6
	if want := 0.5*0.3 + 0.5*0.6; math.Abs(m.ece()-want) > 1e-15 {
		t.Errorf("top-label ECE %v, want %v", m.ece(), want)
	}
	if !math.IsNaN(newReliability(nil).ece()) {
		t.Error("the ECE of no rows is a number")
	}
}

// TestBinary: mistakes by label; the calibrated P(+1) and the plain
// sigmoid of the score each judged against the labels.
func TestBinary(t *testing.T) {
	e := New(bogd.Config{Task: task.Binary, Calibrate: true}, prep.Input{})
	// P(label) 0.9 for +1 (right), 0.75 for −1 (wrong: P(+1) 0.25), 0.65 for
	// +1 (right); scores 0, 0 and 2.
	e.Add(1, bogd.Prediction{Label: 1, Score: 0, Probability: 0.9})
	e.Add(1, bogd.Prediction{Label: -1, Score: 0, Probability: 0.75})
	e.Add(1, bogd.Prediction{Label: 1, Score: 2, Probability: 0.65})
	s := e.Summary()
	// Calibrated: bins [0.9, 1] (0.9, +1), [0.2, 0.3) (0.25, +1), [0.6,
	// 0.7) (0.65, +1). Plain: σ(0) = 0.5 twice, σ(2) ≈ 0.881, all +1.
	sigma2 := 1 / (1 + math.Exp(-2))
	wantECE, wantPlain := (0.1+0.75+0.35)/3, (2*0.5+(1-sigma2))/3
	if s.Rows != 3 || *s.Mistakes != 1 || math.Abs(*s.MistakeRate-100.0/3) > 1e-12 || s.MSE != nil ||
		math.Abs(*s.ECE-wantECE) > 1e-12 || math.Abs(*s.PlainECE-wantPlain) > 1e-12 {
		js, _ := json.Marshal(s)
		t.Fatalf("summary %s, want ECE %v and %v", js, wantECE, wantPlain)
	}
	var b strings.Builder
	if err := e.WriteReport(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rows          3\n", "mistakes      1\n", "mistake rate  33.333%\n", "accuracy      66.667%\n",
		"reliability of the calibrated P(+1) (3 rows):", "[0.2, 0.3)     1   0.250        1.000", "[0.9, 1.0]     1   0.900        1.000",
		"expected calibration error: 0.4000 calibrated, 0.3731 plain sigmoid of the score\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	plain := New(bogd.Config{Task: task.Binary}, prep.Input{})
	plain.Add(-1, bogd.Prediction{Label: 1, Score: 0.5, Probability: math.NaN()})
	if s := plain.Summary(); *s.Mistakes != 1 || s.ECE != nil {
		t.Errorf("an uncalibrated model: %+v", s)
	}
}

// TestMulticlass: top-label reliability of the calibrated probabilities;
// the plain softmax's prediction is the class of the largest score.
func TestMulticlass(t *testing.T) {
	e := New(bogd.Config{Task: task.Multiclass, Classes: []int{2, 5, 7}, Calibrate: true}, prep.Input{})
	// Calibrated: class 5 at 0.7 (right). Scores favour class 7 (wrong).
	e.Add(5, bogd.Prediction{Label: 5, Score: 0, Scores: []float64{0, 0, math.Log(3)}, Probability: 0.7, Probabilities: []float64{0.1, 0.7, 0.2}})
	s := e.Summary()
	// The softmax of (0, 0, ln 3) is (0.2, 0.2, 0.6): 7 at 0.6, wrong.
	if *s.Mistakes != 0 || math.Abs(*s.ECE-0.3) > 1e-12 || math.Abs(*s.PlainECE-0.6) > 1e-12 {
		t.Fatalf("summary mistakes %d, ECE %v, plain %v", *s.Mistakes, *s.ECE, *s.PlainECE)
	}
	var b strings.Builder
	e.WriteReport(&b)
	for _, want := range []string{"reliability of the calibrated P(predicted class) (1 rows):", "accuracy", "plain softmax of the scores\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

// TestRegression: the MSE on the label's scale, and, with a scaling of
// the labels, on the scale the model learnt.
func TestRegression(t *testing.T) {
	scaling, err := prep.NewMinMax(nil, nil, &[2]float64{100, 300})
	if err != nil {
		t.Fatal(err)
	}
	in := prep.Input{Scaling: scaling}
	e := New(bogd.Config{Task: task.Regression}, in)
	// Learnt scores 0.5 and 0.25 are 200 and 150 on the label's scale.
	for _, c := range []struct{ y, score float64 }{{220, 0.5}, {140, 0.25}} {
		e.Add(c.y, bogd.Prediction{Label: in.Unlabel(c.score), Score: c.score, Probability: math.NaN()})
	}
	s := e.Summary()
	if s.Rows != 2 || s.Mistakes != nil || s.ECE != nil || *s.MSE != (400+100)/2.0 {
		t.Fatalf("summary %+v, MSE %v", s, *s.MSE)
	}
	var b strings.Builder
	e.WriteReport(&b)
	// On the learnt scale: (0.6 − 0.5)² and (0.2 − 0.25)².
	for _, want := range []string{"mse           0.00625 (scaled labels, as the model learnt them)\n", "mse original  250 (the file's labels)\n", "rmse original 15.8114\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	unscaled := New(bogd.Config{Task: task.Regression}, prep.Input{})
	unscaled.Add(3, bogd.Prediction{Label: 1, Score: 1})
	b.Reset()
	unscaled.WriteReport(&b)
	if b.String() != "rows          1\nmse           4\nrmse          2\nbaseline mse  9: the trivial predictor, the mean of the labels before each row\n" {
		t.Errorf("report %q", b.String())
	}
}

// TestTrivial: the most frequent label so far (the first to reach a count
// keeps it on ties), or the running mean from 0.
func TestTrivial(t *testing.T) {
	c := NewTrivial(task.Multiclass)
	if !math.IsNaN(c.Predict()) {
		t.Errorf("before any label: %v", c.Predict())
	}
	var got []float64
	for _, y := range []float64{3, 5, 5, 3, 3, 7} {
		c.Learn(y)
		got = append(got, c.Predict())
	}
	if want := []float64{3, 3, 5, 5, 3, 3}; !slices.Equal(got, want) {
		t.Errorf("predictions %v, want %v", got, want)
	}
	r := NewTrivial(task.Regression)
	got = []float64{r.Predict()}
	for _, y := range []float64{2, 4, 9} {
		r.Learn(y)
		got = append(got, r.Predict())
	}
	if want := []float64{0, 2, 3, 5}; !slices.Equal(got, want) {
		t.Errorf("running means %v, want %v", got, want)
	}
}

// TestBaseline: the summary holds the trivial predictor's figures over the
// same rows, and Beats compares with them.
func TestBaseline(t *testing.T) {
	e := New(bogd.Config{Task: task.Binary}, prep.Input{})
	// Labels −1, −1, +1, −1: the trivial predictor misses the first (no
	// label yet) and the third; the model misses one.
	for i, y := range []float64{-1, -1, 1, -1} {
		label := -1.0
		if i == 2 {
			label = 1
		}
		if i == 3 {
			label = 1
		}
		e.Add(y, bogd.Prediction{Label: label, Score: label, Probability: math.NaN()})
	}
	s := e.Summary()
	if *s.MistakeRate != 25 || *s.BaselineMistakeRate != 50 || !s.Beats() {
		t.Errorf("mistake rate %v, baseline %v, beats %v", *s.MistakeRate, *s.BaselineMistakeRate, s.Beats())
	}
	var b strings.Builder
	e.WriteReport(&b)
	if want := "baseline      50.000% mistakes: the trivial predictor, the most frequent label before each row\n"; !strings.Contains(b.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, b.String())
	}
	// A margin of 1% of the baseline.
	if !Beats(29.6, 30) || Beats(29.8, 30) || Beats(30, 30) || !Beats(0, 1e-9) {
		t.Error("Beats does not follow its 1% margin")
	}
	r := New(bogd.Config{Task: task.Regression}, prep.Input{})
	r.Add(1, bogd.Prediction{Label: 3}) // the mean predicts 0
	if s := r.Summary(); *s.MSE != 4 || *s.BaselineMSE != 1 || s.Beats() {
		t.Errorf("regression: MSE %v, baseline %v, beats %v", *s.MSE, *s.BaselineMSE, s.Beats())
	}
}

// TestLogLossAndAUC: the log loss of the calibrated and plain
// probabilities, clipped; the AUC of P(+1), or of the score without
// calibration, against the exact area.
func TestLogLossAndAUC(t *testing.T) {
	e := New(bogd.Config{Task: task.Binary, Calibrate: true}, prep.Input{})
	// P(+1) 0.8 for +1, 0.4 for −1 (label −1, P 0.6), 1 for −1 (clipped).
	e.Add(1, bogd.Prediction{Label: 1, Score: 0, Probability: 0.8})
	e.Add(-1, bogd.Prediction{Label: -1, Score: 0, Probability: 0.6})
	e.Add(-1, bogd.Prediction{Label: 1, Score: 0, Probability: 1})
	s := e.Summary()
	want := (-math.Log(0.8) - math.Log(0.6) - math.Log(1e-15)) / 3
	if math.Abs(*s.LogLoss-want) > 1e-9 || math.Abs(*s.PlainLogLoss-math.Ln2) > 1e-12 {
		t.Errorf("log loss %v, plain %v; want %v and ln 2", *s.LogLoss, *s.PlainLogLoss, want)
	}
	// +1 at 0.8 beats −1 at 0.4 but not −1 at 1: AUC 1/2.
	if *s.AUC != 0.5 {
		t.Errorf("AUC %v, want 0.5", *s.AUC)
	}
	m := New(bogd.Config{Task: task.Multiclass, Classes: []int{1, 2}, Calibrate: true}, prep.Input{})
	m.Add(2, bogd.Prediction{Label: 2, Scores: []float64{0, 0}, Probability: 0.75, Probabilities: []float64{0.25, 0.75}})
	m.Add(9, bogd.Prediction{Label: 2, Scores: []float64{0, 0}, Probability: 0.75, Probabilities: []float64{0.25, 0.75}})
	if s := m.Summary(); math.Abs(*s.LogLoss-(-math.Log(0.75)-math.Log(1e-15))/2) > 1e-9 || s.AUC != nil {
		t.Errorf("multi-class log loss %v, AUC %v", *s.LogLoss, s.AUC)
	}

	// Scores of an uncalibrated model, from 10⁻³ to 10⁶: the histogram's
	// area against the exact one.
	rng := rand.New(rand.NewPCG(1, 2))
	plain := New(bogd.Config{Task: task.Binary}, prep.Input{})
	var pos, neg []float64
	for range 5000 {
		y := 1.0
		if rng.IntN(3) == 0 {
			y = -1
		}
		f := (y*0.7 + rng.NormFloat64()) * math.Pow(10, rng.Float64()*9-3)
		plain.Add(y, bogd.Prediction{Label: y, Score: f, Probability: math.NaN()})
		if y == 1 {
			pos = append(pos, f)
		} else {
			neg = append(neg, f)
		}
	}
	var exact float64
	for _, p := range pos {
		for _, n := range neg {
			switch {
			case p > n:
				exact++
			case p == n:
				exact += 0.5
			}
		}
	}
	exact /= float64(len(pos) * len(neg))
	if got := *plain.Summary().AUC; math.Abs(got-exact) > 0.002 || got < 0.55 {
		t.Errorf("AUC %v, exact %v", got, exact)
	}
	one := New(bogd.Config{Task: task.Binary}, prep.Input{})
	one.Add(1, bogd.Prediction{Label: 1, Score: 1, Probability: math.NaN()})
	if s := one.Summary(); s.AUC != nil {
		t.Errorf("AUC %v of one label", *s.AUC)
	}
}
