// Package eval summarises how a model's predictions fare against the true labels.
//
// It measures the mistake rate or the mean squared error, and for a calibrated
// classifier the reliability table and the expected calibration error.
//
// An [Evaluation] takes one prediction at a time ([Evaluation.Add]), so
// that it follows a stream of any length in constant memory; [Summary] is
// what it found, with a JSON form, and [Evaluation.WriteReport] writes it
// for people.
package eval

import (
	"fmt"
	"io"
	"math"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/task"
)

// Evaluation sums how the predictions of one model fared against the true
// labels: mistakes or squared errors, and for a calibrated classifier the
// reliability of its probabilities beside that of the plain sigmoid
// (softmax) of its scores, whose multi-class prediction is the class of
// the largest score.
type Evaluation struct {
	task           task.Task
	in             prep.Input
	rows, mistakes int
	squared        float64 // on the label's scale
	squaredLearned float64 // on the scale the model learnt (scaled labels)

	calibrated, plain *reliability
	plainCalibration  *bogd.Calibration
	plainBuf          []float64
}

// New returns an empty evaluation of the predictions of a model with
// configuration cfg and input preparation in (Learner.Config,
// Learner.Input, or a Predictor's).
func New(cfg bogd.Config, in prep.Input) *Evaluation {
	e := &Evaluation{task: cfg.Task, in: in}
	if cfg.Calibrate && cfg.Task != task.Regression {
		outputs := max(1, len(cfg.Classes))
		e.calibrated, e.plain = newReliability(cfg.Classes), newReliability(cfg.Classes)
		e.plainCalibration = &bogd.Calibration{A: 1, B: make([]float64, outputs)}
	}
	return e
}

// Add judges p, the prediction of one row, against its true label y, on
// the label's scale: p is what Predictor.PredictRow returns (a regression's
// Label on the label's scale, its Score f(x) on the model's).
func (e *Evaluation) Add(y float64, p bogd.Prediction) {
	e.rows++
	if e.task == task.Regression {
		e.squared += (y - p.Label) * (y - p.Label)
		learned := e.in.Label(y)
		e.squaredLearned += (learned - p.Score) * (learned - p.Score)
		return
	}
	if p.Label != y {
		e.mistakes++
	}
	if e.calibrated == nil {
		return
	}
	scores, probs, plainLabel := p.Scores, p.Probabilities, p.Label
	if e.task == task.Binary {
		p1 := p.Probability // of the label: P(+1) is its complement for −1
		if p.Label < 0 {
			p1 = 1 - p1
		}
		scores, probs = []float64{p.Score}, []float64{p1}
	} else {
		best := 0
		for c, f := range scores {
			if f > scores[best] {
				best = c
			}
		}
		plainLabel = float64(e.plain.classes[best])
	}
	e.plainBuf = e.plainCalibration.Probabilities(scores, e.plainBuf)
	e.calibrated.add(probs, y, p.Label)
	e.plain.add(e.plainBuf, y, plainLabel)
}

// Summary is what an Evaluation found; the fields a task has not are nil.
type Summary struct {
	Rows        int      `json:"rows"`
	Mistakes    *int     `json:"mistakes,omitempty"`
	MistakeRate *float64 `json:"mistake_rate,omitempty"` // percent
	MSE         *float64 `json:"mse,omitempty"`          // on the label's scale
	// ECE is the expected calibration error of the calibrated
	// probabilities, PlainECE that of the sigmoid (softmax) of the scores.
	ECE      *float64 `json:"ece,omitempty"`
	PlainECE *float64 `json:"plain_ece,omitempty"`
}

// Summary returns what the evaluation found so far.
func (e *Evaluation) Summary() Summary {
	s := Summary{Rows: e.rows}
	n := float64(e.rows)
	if e.task == task.Regression {
		mse := e.squared / n
		s.MSE = &mse
		return s
	}
	mistakes, rate := e.mistakes, 100*float64(e.mistakes)/n
	s.Mistakes, s.MistakeRate = &mistakes, &rate
	if e.calibrated != nil {
		ece, plain := e.calibrated.ece(), e.plain.ece()
		s.ECE, s.PlainECE = &ece, &plain
	}
	return s
}

// WriteReport writes the summary for people: the rows, the mistakes and
// their rate (classification, with the reliability table and both
// expected calibration errors when calibrated) or the MSE and its root
// (regression; on both scales when the labels are scaled).
func (e *Evaluation) WriteReport(w io.Writer) error {
	n := float64(e.rows)
	var err error
	printf := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	printf("rows          %d\n", e.rows)
	learned, summed := e.squaredLearned/n, e.squared/n
	switch {
	case e.task == task.Regression && e.in.Scaling != nil && e.in.Scaling.ScalesLabels():
		printf("mse           %.6g (scaled labels, as the model learnt them)\nrmse          %.6g\nmse original  %.6g (the file's labels)\nrmse original %.6g\n",
			learned, math.Sqrt(learned), summed, math.Sqrt(summed))
		return err
	case e.task == task.Regression:
		printf("mse           %.6g\nrmse          %.6g\n", summed, math.Sqrt(summed))
		return err
	}
	m := float64(e.mistakes)
	printf("mistakes      %d\nmistake rate  %.3f%%\naccuracy      %.3f%%\n", e.mistakes, 100*m/n, 100*(n-m)/n)
	if e.calibrated == nil {
		return err
	}
	printf("\n")
	if err == nil {
		err = e.calibrated.writeTable(w)
	}
	plain := "softmax of the scores"
	if e.task == task.Binary {
		plain = "sigmoid of the score"
	}
	printf("expected calibration error: %.4f calibrated, %.4f plain %s\n", e.calibrated.ece(), e.plain.ece(), plain)
	return err
}
