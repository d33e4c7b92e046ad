package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/internal/atomicfile"
	"github.com/bogd-project/bogd/simd"
	"github.com/bogd-project/bogd/task"
)

// predictCommand is `bogdbench predict`: it loads a saved model (and the
// input preparation saved beside it), predicts every row of a LIBSVM file
// or of standard input, and writes one line per row — the predicted label
// (±1, the class label, or the regression value on the label's original
// scale), the score(s), and with a calibrated model the probability of
// the predicted label — or one JSON document. When the rows' labels fit
// the model's task, a summary goes to stderr: the mistake rate or the
// MSE, and for a calibrated classifier the reliability table.
func predictCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("predict", stderr)
	modelPath := fs.String("model", "", "model file written by train, tune, serve or run --save (required); the input preparation beside it (MODEL"+scalingSuffix+": hashing, scaling) applies to the rows")
	data := fs.String("data", "", "LIBSVM rows, plain or gzip: a file, or - for standard input (the default when it is not a terminal)")
	output := fs.String("output", "-", "where the predictions go: a file (written atomically once complete; an existing one needs --force), or - for stdout")
	format := fs.String("format", "text", `text: "label score... [probability]" per row; json: {"model":…,"classes":…,"predictions":[{"label":…,"score":…},…],"summary":…}`)
	force := fs.Bool("force", false, "overwrite an existing --output file")
	quiet := fs.Bool("q", false, "quiet: no summary on stderr (warnings still)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *modelPath == "" {
		return usagef("--model is required")
	}
	if *format != "text" && *format != "json" {
		return usagef("--format must be text or json, got %q", *format)
	}
	if *force && *output == "-" {
		return usagef("--force needs --output FILE")
	}
	path, err := dataPath(*data, stdin)
	if err != nil {
		return err
	}
	if *output != "-" {
		if err := checkOutput(*output, *force); err != nil {
			return err
		}
	}
	if err := simd.EnvError(); err != nil {
		return err
	}
	l, in, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	warn := func(msg string) { fmt.Fprintf(stderr, "bogdbench predict: warning: %s\n", msg) }
	// Any label reads, as a regression target: the labels of rows to
	// predict may be placeholders; truth tells whether they can be judged.
	rows, err := readData(path, stdin, dataset.Options{Task: task.Regression, HashBits: in.HashBits})
	if err != nil {
		return err
	}
	labels, judged := truth(rows, l, warn)
	if rows, err = prepare(rows, l.Config().Dim, in, warn); err != nil {
		return err
	}

	var out bytes.Buffer
	w := bufio.NewWriter(stdout)
	if *output != "-" {
		w = bufio.NewWriter(&out)
	}
	ev := newEvaluation(l)
	enc, err := newPredictionWriter(w, *format, *modelPath, l)
	if err != nil {
		return err
	}
	for i := range rows.Len() {
		idx, val := rows.Row(i)
		p, err := l.Predict(engine.Sparse(idx, val))
		if err != nil {
			return fmt.Errorf("%s: %w", rows.Where(i), err)
		}
		pj, err := newPredictionJSON(p, l.Config().Task, in.Scaling)
		if err != nil {
			return fmt.Errorf("%s: %w", rows.Where(i), err)
		}
		if err := enc.write(pj); err != nil {
			return err
		}
		if judged {
			ev.add(labels[i], rows.Labels[i], pj.Label, p)
		}
	}
	var summary *evaluation
	if judged {
		summary = ev
	}
	if err := enc.close(summary); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if *output != "-" {
		if err := atomicfile.Write(*output, out.Bytes(), atomicfile.Options{NoClobber: !*force}); err != nil {
			return forceHint(err)
		}
	}
	if judged && !*quiet {
		fmt.Fprintf(stderr, "model         %s (%v %v, %d support vectors, dimension %d)\ndata          %s\n",
			*modelPath, l.Config().Task, l.Algorithm(), l.SupportVectors(), l.Config().Dim, rows.Name)
		ev.report(stderr, in.Scaling)
	}
	return nil
}

// checkOutput refuses, before any work, an output file that exists
// (without force) or whose directory does not.
func checkOutput(path string, force bool) error {
	if err := checkSavePath(path, true); err != nil {
		return err
	}
	if force {
		return nil
	}
	return forceHint(experiment.CheckFree([]string{path}))
}

// truth returns the labels of rows as the truth of the model's task
// (original scale), and whether they can be: binary labels must be ±1 or
// 0/1 (mapped to ±1), classes integers (one the model lacks is a
// mistake); any label is a regression target.
func truth(rows *dataset.Dataset, l *bogd.Learner, warn func(string)) ([]float64, bool) {
	switch l.Config().Task {
	case task.Binary:
		resolved, err := rows.Resolve(task.Binary, warn)
		if err != nil {
			warn(fmt.Sprintf("no summary: the labels are not those of a binary task (%v)", err))
			return nil, false
		}
		return resolved.Labels, true
	case task.Multiclass:
		classes := l.Config().Classes
		unknown, first := 0, -1
		for i, y := range rows.Labels {
			if y != math.Trunc(y) {
				warn(fmt.Sprintf("no summary: %s: label %v is not a class", rows.Where(i), y))
				return nil, false
			}
			if _, ok := slices.BinarySearch(classes, int(y)); !ok {
				if unknown++; first < 0 {
					first = i
				}
			}
		}
		if unknown > 0 {
			warn(fmt.Sprintf("%s with a label the model has no class for, the first at %s (label %v; the model's classes: %v): they count as mistakes",
				experiment.Plural(unknown, "row", "rows"), rows.Where(first), rows.Labels[first], classes))
		}
	}
	return append([]float64(nil), rows.Labels...), true
}

// predictionJSON is one row's prediction as predict --format json and
// serve's /predict write it.
type predictionJSON struct {
	// Label is the predicted label: ±1, a class, or the regression value
	// (on the label's original scale when the model was trained scaled).
	Label float64 `json:"label"`
	// Score is f(x) (binary, regression) or the predicted class's score.
	Score float64 `json:"score"`
	// Scores holds every class's score, in the order of the classes.
	Scores []float64 `json:"scores,omitempty"`
	// Probability is the calibrated probability of the predicted label
	// (bogd.Prediction), Probabilities every class's (calibrated models
	// only).
	Probability   *float64  `json:"probability,omitempty"`
	Probabilities []float64 `json:"probabilities,omitempty"`
}

// newPredictionJSON turns the learner's prediction into its output form:
// the label back on its original scale. Scores must be finite: JSON has no
// other numbers.
func newPredictionJSON(p bogd.Prediction, tk task.Task, scaling *dataset.Scaling) (predictionJSON, error) {
	pj := predictionJSON{Label: p.Label, Score: p.Score}
	if tk == task.Regression && scaling != nil {
		pj.Label = scaling.Unlabel(p.Label)
	}
	if tk == task.Multiclass {
		pj.Scores = append([]float64(nil), p.Scores...)
	}
	if !math.IsNaN(p.Probability) {
		prob := p.Probability
		pj.Probability = &prob
		if tk == task.Multiclass {
			pj.Probabilities = append([]float64(nil), p.Probabilities...)
		}
	}
	for _, v := range append([]float64{pj.Label, pj.Score}, pj.Scores...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return pj, fmt.Errorf("the model's score is %v: the model has diverged", v)
		}
	}
	return pj, nil
}

// predictionWriter writes the predictions of predict in text or JSON.
type predictionWriter struct {
	w     *bufio.Writer
	json  bool
	first bool
}

// newPredictionWriter starts the output; JSON opens a document naming the
// model and its classes.
func newPredictionWriter(w *bufio.Writer, format, model string, l *bogd.Learner) (*predictionWriter, error) {
	p := &predictionWriter{w: w, json: format == "json", first: true}
	if p.json {
		head, err := json.Marshal(struct {
			Model     string `json:"model"`
			Task      string `json:"task"`
			Algorithm string `json:"algorithm"`
			Classes   []int  `json:"classes,omitempty"`
		}{model, l.Config().Task.String(), l.Algorithm().String(), l.Config().Classes})
		if err != nil {
			return nil, err
		}
		w.Write(head[:len(head)-1]) // the object stays open
		w.WriteString(`,"predictions":[`)
	}
	return p, nil
}

func (p *predictionWriter) write(pj predictionJSON) error {
	if p.json {
		b, err := json.Marshal(pj)
		if err != nil {
			return err
		}
		if !p.first {
			p.w.WriteByte(',')
		}
		p.first = false
		p.w.WriteByte('\n')
		_, err = p.w.Write(b)
		return err
	}
	fmt.Fprintf(p.w, "%.9g", pj.Label)
	if pj.Scores == nil {
		fmt.Fprintf(p.w, " %.9g", pj.Score)
	}
	for _, s := range pj.Scores {
		fmt.Fprintf(p.w, " %.9g", s)
	}
	if pj.Probability != nil {
		fmt.Fprintf(p.w, " %.6f", *pj.Probability)
	}
	return p.w.WriteByte('\n')
}

// close ends the output; JSON adds the summary when the rows were judged.
func (p *predictionWriter) close(ev *evaluation) error {
	if !p.json {
		return nil
	}
	p.w.WriteString("\n]")
	if ev != nil {
		b, err := json.Marshal(ev.summary())
		if err != nil {
			return err
		}
		p.w.WriteString(`,"summary":`)
		p.w.Write(b)
	}
	_, err := p.w.WriteString("}\n")
	return err
}

// evaluation sums how predictions fared against labels: mistakes or
// squared errors, and for a calibrated classifier its reliability beside
// that of the plain sigmoid (softmax) of the scores, whose multi-class
// prediction is the class of the largest score.
type evaluation struct {
	task              task.Task
	rows, mistakes    int
	squared           float64 // on the scale the model learnt
	squaredOriginal   float64 // on the label's original scale
	calibrated, plain *reliability
	plainCalibration  *bogd.Calibration
	plainBuf          []float64
}

func newEvaluation(l *bogd.Learner) *evaluation {
	ev := &evaluation{task: l.Config().Task}
	if cfg := l.Config(); cfg.Calibrate {
		outputs := max(1, len(cfg.Classes))
		ev.calibrated, ev.plain = newReliability(cfg.Classes), newReliability(cfg.Classes)
		ev.plainCalibration = &bogd.Calibration{A: 1, B: make([]float64, outputs)}
	}
	return ev
}

// add judges one prediction p, whose output label is label (on the
// original scale), against the true label y, and scaled as the model
// learnt it.
func (ev *evaluation) add(y, scaled, label float64, p bogd.Prediction) {
	ev.rows++
	if ev.task == task.Regression {
		ev.squared += (scaled - p.Label) * (scaled - p.Label)
		ev.squaredOriginal += (y - label) * (y - label)
		return
	}
	if label != y {
		ev.mistakes++
	}
	if ev.calibrated == nil {
		return
	}
	scores, probs, plainLabel := p.Scores, p.Probabilities, label
	if ev.task == task.Binary {
		p1 := p.Probability // of the label: P(+1) is its complement for −1
		if label < 0 {
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
		plainLabel = float64(ev.plain.classes[best])
	}
	ev.plainBuf = ev.plainCalibration.Probabilities(scores, ev.plainBuf)
	ev.calibrated.add(probs, y, label)
	ev.plain.add(ev.plainBuf, y, plainLabel)
}

// summaryJSON is the summary of predict --format json.
type summaryJSON struct {
	Rows        int      `json:"rows"`
	Mistakes    *int     `json:"mistakes,omitempty"`
	MistakeRate *float64 `json:"mistake_rate,omitempty"` // percent
	MSE         *float64 `json:"mse,omitempty"`          // on the label's original scale
	// ECE is the expected calibration error of the calibrated
	// probabilities, PlainECE that of the sigmoid (softmax) of the scores.
	ECE      *float64 `json:"ece,omitempty"`
	PlainECE *float64 `json:"plain_ece,omitempty"`
}

func (ev *evaluation) summary() summaryJSON {
	s := summaryJSON{Rows: ev.rows}
	n := float64(ev.rows)
	if ev.task == task.Regression {
		mse := ev.squaredOriginal / n
		s.MSE = &mse
		return s
	}
	rate := 100 * float64(ev.mistakes) / n
	s.Mistakes, s.MistakeRate = &ev.mistakes, &rate
	if ev.calibrated != nil {
		ece, plain := ev.calibrated.ece(), ev.plain.ece()
		s.ECE, s.PlainECE = &ece, &plain
	}
	return s
}

// report writes the summary for people.
func (ev *evaluation) report(w io.Writer, scaling *dataset.Scaling) {
	n := float64(ev.rows)
	fmt.Fprintf(w, "rows          %d\n", ev.rows)
	switch {
	case ev.task == task.Regression && scaling != nil:
		fmt.Fprintf(w, "mse           %.6g (scaled labels, as the model learnt them)\nrmse          %.6g\nmse original  %.6g (the file's labels)\nrmse original %.6g\n",
			ev.squared/n, math.Sqrt(ev.squared/n), ev.squaredOriginal/n, math.Sqrt(ev.squaredOriginal/n))
		return
	case ev.task == task.Regression:
		fmt.Fprintf(w, "mse           %.6g\nrmse          %.6g\n", ev.squared/n, math.Sqrt(ev.squared/n))
		return
	}
	fmt.Fprintf(w, "mistakes      %d\nmistake rate  %.3f%%\naccuracy      %.3f%%\n", ev.mistakes, 100*float64(ev.mistakes)/n, 100*(n-float64(ev.mistakes))/n)
	if ev.calibrated != nil {
		fmt.Fprintln(w)
		ev.calibrated.table(w)
		fmt.Fprintf(w, "expected calibration error: %.4f calibrated, %.4f plain %s of the score%s\n",
			ev.calibrated.ece(), ev.plain.ece(), map[bool]string{true: "sigmoid", false: "softmax"}[ev.task == task.Binary],
			map[bool]string{true: "", false: "s"}[ev.task == task.Binary])
	}
}
