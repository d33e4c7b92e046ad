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
	"github.com/bogd-project/bogd/eval"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/internal/atomicfile"
	"github.com/bogd-project/bogd/simd"
	"github.com/bogd-project/bogd/task"
)

// predictCommand is `bogdbench predict`: it loads a saved model with its
// input preparation, predicts every row of a LIBSVM file or of standard
// input, and writes one line per row — the predicted label
// (±1, the class label, or the regression value on the label's original
// scale), the score(s), and with a calibrated model the probability of
// the predicted label — or one JSON document. When the rows' labels fit
// the model's task, a summary goes to stderr: the mistake rate or the
// MSE beside the trivial predictor's (with a warning when the model does
// not beat it), and for a calibrated classifier the log loss and the
// reliability table. Rows may have no label (a first token index:value):
// they are predicted, not judged.
func predictCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("predict", stderr)
	modelPath := fs.String("model", "", "model file written by train, tune, serve or run --save (required); its input preparation (hashing, scaling) applies to the rows")
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
	warn := func(msg string) { fmt.Fprintf(stderr, "bogdbench predict: warning: %s\n", msg) }
	log := func(msg string) {
		if !*quiet {
			fmt.Fprintf(stderr, "bogdbench predict: %s\n", msg)
		}
	}
	l, err := loadModel(*modelPath, log)
	if err != nil {
		return err
	}
	in := l.Input()
	rows, labels, judged, err := readToPredict(path, stdin, l, warn)
	if err != nil {
		return err
	}

	var out bytes.Buffer
	w := bufio.NewWriter(stdout)
	if *output != "-" {
		w = bufio.NewWriter(&out)
	}
	ev := eval.New(l.Config(), in)
	enc, err := newPredictionWriter(w, *format, *modelPath, l)
	if err != nil {
		return err
	}
	for i := range rows.Len() {
		p, err := predictRow(l, rows, i)
		if err != nil {
			return err
		}
		pj, err := newPredictionJSON(p, l.Config().Task)
		if err != nil {
			return fmt.Errorf("%s: %w", rows.Where(i), err)
		}
		if err := enc.write(pj); err != nil {
			return err
		}
		if judged {
			ev.Add(labels[i], p)
		}
	}
	var summary *eval.Summary
	if judged {
		s := ev.Summary()
		summary = &s
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
		if err := ev.WriteReport(stderr); err != nil {
			return err
		}
	}
	if judged {
		if w := notBeaten(*summary, rows.Name); w != "" {
			warn(w)
		}
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

// newPredictionJSON turns a prediction on the label's scale
// (bogd.Predictor.PredictRow) into its output form. Scores must be finite:
// JSON has no other numbers.
func newPredictionJSON(p bogd.Prediction, tk task.Task) (predictionJSON, error) {
	pj := predictionJSON{Label: p.Label, Score: p.Score}
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
func (p *predictionWriter) close(summary *eval.Summary) error {
	if !p.json {
		return nil
	}
	p.w.WriteString("\n]")
	if summary != nil {
		b, err := json.Marshal(summary)
		if err != nil {
			return err
		}
		p.w.WriteString(`,"summary":`)
		p.w.Write(b)
	}
	_, err := p.w.WriteString("}\n")
	return err
}
