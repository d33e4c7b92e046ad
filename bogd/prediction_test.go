package bogd

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/bogd-project/bogd/task"
)

// TestPredictionMeaning checks Prediction's documentation on every step of
// every algorithm of every task, calibrated or not: the label of a
// calibrated classifier is the most probable one (from its calibration as
// it stood before the step) and Probability its probability; without
// calibration the label is the sign or the argmax of the scores; Mistake is
// "Label ≠ y". And the calibration changes what a learner predicts, never
// what it learns: both learners see the same scores at every step.
func TestPredictionMeaning(t *testing.T) {
	streams := map[task.Task]taskStream{
		task.Binary: binaryStream(300, 3, 51), task.Multiclass: multiStream(300, 3, 52), task.Regression: regressionStream(300, 3, 53),
	}
	disagreed := map[task.Task]int{} // calibrated labels that differ from the scores' label
	for _, tk := range []task.Task{task.Binary, task.Multiclass, task.Regression} {
		s := streams[tk]
		for _, a := range algorithmsFor(tk) {
			cfg := forAlgo(taskConfig(tk, s.dim, 20, 6), a)
			plain := mustNew(t, a, cfg)
			cfg.Calibrate = tk != task.Regression
			calibrated := mustNew(t, a, cfg)
			for i, x := range s.xs {
				y := s.labels[i]
				var cal *Calibration
				if cfg.Calibrate {
					cal = calibrated.b.cal.clone()
				}
				p, err := plain.Learn(x, y)
				if err != nil {
					t.Fatal(err)
				}
				c, err := calibrated.Learn(x, y)
				if err != nil {
					t.Fatal(err)
				}
				where := fmt.Sprintf("%v %v step %d", tk, a, i)
				if !slices.Equal(c.Scores, p.Scores) || math.Float64bits(c.Score) != math.Float64bits(p.Score) && c.Scores == nil {
					t.Fatalf("%s: calibrated scores %v %v, plain %v %v", where, c.Score, c.Scores, p.Score, p.Scores)
				}
				checkMeaning(t, where, tk, p.Prediction, nil, cfg.Classes)
				if cfg.Calibrate {
					checkMeaning(t, where, tk, c.Prediction, cal, cfg.Classes)
					if c.Label != p.Label {
						disagreed[tk]++
					}
				}
				for _, st := range []Step{p, c} {
					if st.Mistake != (tk != task.Regression && st.Label != y) {
						t.Fatalf("%s: label %v, true %v, mistake %v", where, st.Label, y, st.Mistake)
					}
				}
			}
		}
	}
	t.Logf("calibrated labels that differ from the scores': %v", disagreed)
	if disagreed[task.Binary] == 0 || disagreed[task.Multiclass] == 0 {
		t.Errorf("no calibrated label differs from its scores' (%v): the test does not tell the two rules apart", disagreed)
	}
}

// checkMeaning checks one prediction against Prediction's documentation;
// cal is the calibration that made it (nil: none).
func checkMeaning(t *testing.T, where string, tk task.Task, p Prediction, cal *Calibration, classes []int) {
	t.Helper()
	switch {
	case tk == task.Multiclass:
		c := argmax(p.Scores, -1)
		prob := math.NaN()
		if cal != nil {
			probs := cal.Probabilities(p.Scores, nil)
			if !slices.Equal(probs, p.Probabilities) {
				t.Fatalf("%s: probabilities %v, the calibration gives %v", where, p.Probabilities, probs)
			}
			c = argmax(probs, -1)
			prob = probs[c]
		}
		if p.Label != float64(classes[c]) || p.Score != p.Scores[c] || !sameFloat(p.Probability, prob) {
			t.Fatalf("%s: label %v (score %v, probability %v) from scores %v and probabilities %v", where, p.Label, p.Score, p.Probability, p.Scores, p.Probabilities)
		}
	case cal != nil:
		p1 := cal.Probabilities([]float64{p.Score}, nil)[0]
		want, prob := 1.0, p1
		if p1 < 0.5 {
			want, prob = -1, 1-p1
		}
		if p.Label != want || p.Probability != prob || p.Probability < 0.5 {
			t.Fatalf("%s: label %v, probability %v; P(+1) = %v", where, p.Label, p.Probability, p1)
		}
	default:
		want := p.Score // regression; binary: the sign, +1 at 0
		if tk == task.Binary {
			want = float64(sign(p.Score))
		}
		if p.Label != want || !math.IsNaN(p.Probability) || p.Probabilities != nil {
			t.Fatalf("%s: label %v, probability %v, score %v", where, p.Label, p.Probability, p.Score)
		}
	}
}

func sameFloat(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
