package bogd

import (
	"bytes"
	"math"
	"testing"

	"github.com/bogd-project/bogd/task"
)

// ece is the expected calibration error of probabilities p of the events
// hit, over 10 equal-width bins.
func ece(p []float64, hit []bool) float64 {
	var n, sumP, sumHit [10]float64
	for i, v := range p {
		b := min(int(v*10), 9)
		n[b]++
		sumP[b] += v
		if hit[i] {
			sumHit[b]++
		}
	}
	var e float64
	for b := range n {
		if n[b] > 0 {
			e += math.Abs(sumP[b]-sumHit[b]) / float64(len(p))
		}
	}
	return e
}

// TestCalibrationImproves: on a noisy stream whose scores are not
// probabilities (a tenth of the labels flipped, so that no margin is
// certain), the online calibration's predicted probabilities of the second
// half are better calibrated than the plain sigmoid (softmax) of the
// scores, for a binary and a multi-class learner, and every probability is
// in [0, 1] (summing to 1 over the classes).
func TestCalibrationImproves(t *testing.T) {
	bin, multi := binaryStream(4000, 4, 17), multiStream(4000, 4, 18)
	for _, c := range []struct {
		tk task.Task
		s  taskStream
	}{{task.Binary, bin}, {task.Multiclass, multi}} {
		cfg := taskConfig(c.tk, c.s.dim, 50, 4)
		cfg.Calibrate = true
		l := mustNew(t, BOGDpp, cfg)
		plain := newCalibration(max(1, len(l.Config().Classes)))
		var pCal, pPlain []float64
		var hitCal, hitPlain []bool
		for i, x := range c.s.xs {
			st, err := l.Learn(x, c.s.labels[i])
			if err != nil {
				t.Fatal(err)
			}
			scores := []float64{st.Score}
			probs := []float64{st.Probability}
			if c.tk == task.Multiclass {
				scores, probs = st.Scores, st.Probabilities
				var sum float64
				for _, p := range probs {
					sum += p
				}
				if math.Abs(sum-1) > 1e-9 {
					t.Fatalf("%v step %d: probabilities sum to %v", c.tk, i, sum)
				}
			}
			for _, p := range probs {
				if !(p >= 0 && p <= 1) {
					t.Fatalf("%v step %d: probability %v", c.tk, i, p)
				}
			}
			if i < len(c.s.xs)/2 {
				continue
			}
			// The event: binary, y = +1; multi-class, the label each
			// predicts is right (the calibrated learner's Label, the
			// largest score's class).
			pp := plain.Probabilities(scores, nil)
			if c.tk == task.Binary {
				p1 := st.Probability // of Label: P(+1) is its complement when Label is −1
				if st.Label < 0 {
					p1 = 1 - p1
				}
				pCal, pPlain = append(pCal, p1), append(pPlain, pp[0])
				hitCal, hitPlain = append(hitCal, c.s.labels[i] == 1), append(hitPlain, c.s.labels[i] == 1)
			} else {
				best := argmax(scores, -1)
				pCal, pPlain = append(pCal, st.Probability), append(pPlain, pp[best])
				hitCal, hitPlain = append(hitCal, !st.Mistake), append(hitPlain, float64(l.Config().Classes[best]) == c.s.labels[i])
			}
		}
		calibrated, uncalibrated := ece(pCal, hitCal), ece(pPlain, hitPlain)
		t.Logf("%v: expected calibration error %.4f calibrated, %.4f plain", c.tk, calibrated, uncalibrated)
		if !(calibrated < uncalibrated) {
			t.Errorf("%v: calibrated ECE %.4f, plain %.4f", c.tk, calibrated, uncalibrated)
		}
		// The calibration is saved: a reloaded learner predicts the same
		// probabilities.
		var buf bytes.Buffer
		if err := l.Save(&buf); err != nil {
			t.Fatal(err)
		}
		again, err := Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := l.Predict(c.s.xs[0])
		b, _ := again.Predict(c.s.xs[0])
		if a.Probability != b.Probability || math.IsNaN(a.Probability) {
			t.Fatalf("%v: probability %v before saving, %v after", c.tk, a.Probability, b.Probability)
		}
	}
	if _, err := New(OGD, Config{Dim: 1, Task: task.Regression, Calibrate: true}); err == nil {
		t.Error("a calibrated regressor accepted")
	}
}
