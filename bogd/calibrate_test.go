package bogd

import (
	"bytes"
	"math"
	"testing"
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
		task Task
		s    taskStream
	}{{Binary, bin}, {Multiclass, multi}} {
		cfg := taskConfig(c.task, c.s.dim, 50, 4)
		cfg.Calibrate = true
		l := mustNewOnline(t, BOGDpp, cfg)
		plain := newCalibration(max(1, len(l.Classes())))
		var pCal, pPlain []float64
		var hit []bool
		for i, x := range c.s.xs {
			st, err := l.Learn(x, c.s.labels[i])
			if err != nil {
				t.Fatal(err)
			}
			scores := []float64{st.Score}
			probs := []float64{st.Probability}
			if c.task == Multiclass {
				scores, probs = st.Scores, st.Probabilities
				var sum float64
				for _, p := range probs {
					sum += p
				}
				if math.Abs(sum-1) > 1e-9 {
					t.Fatalf("%v step %d: probabilities sum to %v", c.task, i, sum)
				}
			}
			for _, p := range probs {
				if !(p >= 0 && p <= 1) {
					t.Fatalf("%v step %d: probability %v", c.task, i, p)
				}
			}
			if i < len(c.s.xs)/2 {
				continue
			}
			// The event: the predicted label is right (binary: y = +1).
			pp := plain.Probabilities(scores, nil)
			if c.task == Binary {
				pCal, pPlain, hit = append(pCal, st.Probability), append(pPlain, pp[0]), append(hit, c.s.labels[i] == 1)
			} else {
				best := argmax(scores, -1)
				pCal, pPlain, hit = append(pCal, st.Probability), append(pPlain, pp[best]), append(hit, !st.Mistake)
			}
		}
		calibrated, uncalibrated := ece(pCal, hit), ece(pPlain, hit)
		t.Logf("%v: expected calibration error %.4f calibrated, %.4f plain", c.task, calibrated, uncalibrated)
		if !(calibrated < uncalibrated) {
			t.Errorf("%v: calibrated ECE %.4f, plain %.4f", c.task, calibrated, uncalibrated)
		}
		// The calibration is saved: a reloaded learner predicts the same
		// probabilities.
		var buf bytes.Buffer
		if err := Save(&buf, l); err != nil {
			t.Fatal(err)
		}
		again, err := LoadOnline(&buf)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := l.PredictOne(c.s.xs[0], nil)
		b, _ := again.PredictOne(c.s.xs[0], nil)
		if a.Probability != b.Probability || math.IsNaN(a.Probability) {
			t.Fatalf("%v: probability %v before saving, %v after", c.task, a.Probability, b.Probability)
		}
	}
	if _, err := NewOnline(OGD, Config{Dim: 1, Task: Regression, Calibrate: true}); err == nil {
		t.Error("a calibrated regressor accepted")
	}
}
