// Package eval summarises how a model's predictions fare against the true labels.
//
// It measures the mistake rate or the mean squared error beside those of
// the trivial predictor ([Trivial]: the most frequent label, the mean of
// the labels), for a calibrated classifier the log loss, the reliability
// table and the expected calibration error, and for a binary one the area
// under the ROC curve.
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

	// trivial predicts the labels beside the model, on the label's scale;
	// trivialLearned on the model's, when the labels are scaled.
	trivial, trivialLearned *trivialScore

	calibrated, plain *reliability
	plainCalibration  *bogd.Calibration
	plainBuf          []float64
	binary            [2]float64 // a binary row's score and P(+1), as one-output rows
	// logLoss and plainLogLoss sum −ln P(true label), calibrated and plain.
	logLoss, plainLogLoss float64
	ranking               *ranking // binary: of P(+1), or of the score without calibration
}

// New returns an empty evaluation of the predictions of a model with
// configuration cfg and input preparation in (Learner.Config,
// Learner.Input, or a Predictor's).
func New(cfg bogd.Config, in prep.Input) *Evaluation {
	e := &Evaluation{task: cfg.Task, in: in, trivial: &trivialScore{Trivial: NewTrivial(cfg.Task)}}
	if cfg.Task == task.Regression && in.Scaling != nil && in.Scaling.ScalesLabels() {
		e.trivialLearned = &trivialScore{Trivial: NewTrivial(cfg.Task)}
	}
	if cfg.Task == task.Binary {
		e.ranking = new(ranking)
	}
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
	e.trivial.add(y)
	if e.task == task.Regression {
		e.squared += (y - p.Label) * (y - p.Label)
		learned := e.in.Label(y)
		e.squaredLearned += (learned - p.Score) * (learned - p.Score)
		if e.trivialLearned != nil {
			e.trivialLearned.add(learned)
		}
		return
	}
	if p.Label != y {
		e.mistakes++
	}
	if e.calibrated == nil {
		if e.ranking != nil {
			e.ranking.add(p.Score, y == 1)
		}
		return
	}
	scores, probs, plainLabel := p.Scores, p.Probabilities, p.Label
	if e.task == task.Binary {
		p1 := p.Probability // of the label: P(+1) is its complement for −1
		if p.Label < 0 {
			p1 = 1 - p1
		}
		e.binary[0], e.binary[1] = p.Score, p1
		scores, probs = e.binary[:1], e.binary[1:]
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
	e.logLoss += e.calibrated.loss(probs, y)
	e.plainLogLoss += e.plain.loss(e.plainBuf, y)
	if e.ranking != nil {
		e.ranking.add(logit(probs[0]), y == 1)
	}
}

// Summary is what an Evaluation found; the fields a task (or a model
// without calibration) has not are nil.
type Summary struct {
	Rows        int      `json:"rows"`
	Mistakes    *int     `json:"mistakes,omitempty"`
	MistakeRate *float64 `json:"mistake_rate,omitempty"` // percent
	MSE         *float64 `json:"mse,omitempty"`          // on the label's scale
	// BaselineMistakeRate and BaselineMSE are those of the trivial
	// predictor (Trivial) over the same rows: the figure to beat.
	BaselineMistakeRate *float64 `json:"baseline_mistake_rate,omitempty"` // percent
	BaselineMSE         *float64 `json:"baseline_mse,omitempty"`          // on the label's scale
	// ECE is the expected calibration error of the calibrated
	// probabilities, PlainECE that of the sigmoid (softmax) of the scores;
	// LogLoss and PlainLogLoss their mean −ln P(true label) (natural log,
	// P clipped to [1e-15, 1 − 1e-15]).
	ECE          *float64 `json:"ece,omitempty"`
	PlainECE     *float64 `json:"plain_ece,omitempty"`
	LogLoss      *float64 `json:"log_loss,omitempty"`
	PlainLogLoss *float64 `json:"plain_log_loss,omitempty"`
	// AUC is the area under the ROC curve of a binary classifier's P(+1)
	// (its score without calibration), from a histogram of 4096 bins: nil
	// unless both labels occur.
	AUC *float64 `json:"auc,omitempty"`
}

// Beats reports whether the model did better than the trivial predictor
// (see the function Beats): a lower mistake rate, or a lower MSE.
func (s Summary) Beats() bool {
	if s.MSE != nil {
		return Beats(*s.MSE, *s.BaselineMSE)
	}
	return Beats(*s.MistakeRate, *s.BaselineMistakeRate)
}

// BeatMargin is by how much, relatively, a model's mistake rate or MSE
// must be below the trivial predictor's to beat it: a model that always
// predicts the most frequent label is a few rows better than the trivial
// predictor, which must first see that label, and has learnt nothing.
const BeatMargin = 0.01

// Beats reports whether a mistake rate or MSE beats the trivial
// predictor's baseline: it is below it by more than BeatMargin of it.
func Beats(metric, baseline float64) bool { return metric < baseline*(1-BeatMargin) }

// Summary returns what the evaluation found so far.
func (e *Evaluation) Summary() Summary {
	s := Summary{Rows: e.rows}
	n := float64(e.rows)
	if e.task == task.Regression {
		mse, baseline := e.squared/n, e.trivial.squared/n
		s.MSE, s.BaselineMSE = &mse, &baseline
		return s
	}
	mistakes, rate, baseline := e.mistakes, 100*float64(e.mistakes)/n, 100*float64(e.trivial.mistakes)/n
	s.Mistakes, s.MistakeRate, s.BaselineMistakeRate = &mistakes, &rate, &baseline
	if e.calibrated != nil {
		ece, plain, loss, plainLoss := e.calibrated.ece(), e.plain.ece(), e.logLoss/n, e.plainLogLoss/n
		s.ECE, s.PlainECE, s.LogLoss, s.PlainLogLoss = &ece, &plain, &loss, &plainLoss
	}
	if e.ranking != nil {
		if auc := e.ranking.auc(); !math.IsNaN(auc) {
			s.AUC = &auc
		}
	}
	return s
}

// WriteReport writes the summary for people: the rows, the mistakes and
// their rate (classification, with the area under the ROC curve when
// binary, and the log loss, the reliability table and both expected
// calibration errors when calibrated) or the MSE and its root
// (regression; on both scales when the labels are scaled), and the
// trivial predictor's.
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
	const trivial = "the trivial predictor, "
	switch {
	case e.trivialLearned != nil:
		printf("mse           %.6g (scaled labels, as the model learnt them)\nrmse          %.6g\nmse original  %.6g (the file's labels)\nrmse original %.6g\n",
			learned, math.Sqrt(learned), summed, math.Sqrt(summed))
		printf("baseline mse  %.6g scaled, %.6g original: %sthe mean of the labels before each row\n",
			e.trivialLearned.squared/n, e.trivial.squared/n, trivial)
		return err
	case e.task == task.Regression:
		printf("mse           %.6g\nrmse          %.6g\nbaseline mse  %.6g: %sthe mean of the labels before each row\n",
			summed, math.Sqrt(summed), e.trivial.squared/n, trivial)
		return err
	}
	m := float64(e.mistakes)
	printf("mistakes      %d\nmistake rate  %.3f%%\naccuracy      %.3f%%\nbaseline      %.3f%% mistakes: %sthe most frequent label before each row\n",
		e.mistakes, 100*m/n, 100*(n-m)/n, 100*float64(e.trivial.mistakes)/n, trivial)
	if auc := e.ranking; auc != nil && !math.IsNaN(auc.auc()) {
		printf("auc           %.4f\n", auc.auc())
	}
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
	printf("log loss: %.4f calibrated, %.4f plain %s\n", e.logLoss/n, e.plainLogLoss/n, plain)
	return err
}
