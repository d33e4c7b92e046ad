package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/eval"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/internal/atomicfile"
	"github.com/bogd-project/bogd/serve"
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
	var ps *predictions
	predictAll := func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc, err := newPredictionWriter(bw, *format, *modelPath, l)
		if err != nil {
			return err
		}
		ps, err = predictRows(l, path, stdin, func(p bogd.Prediction, where func() string) error {
			pj, err := serve.NewPrediction(p, l.Config().Task)
			if err != nil {
				return fmt.Errorf("%s: %w", where(), err)
			}
			return enc.write(pj)
		})
		if err != nil {
			return err
		}
		var summary *eval.Summary
		if ps.truth.judged(warn) {
			s := ps.eval.Summary()
			summary = &s
		}
		if err := enc.close(summary); err != nil {
			return err
		}
		return bw.Flush()
	}
	if *output == "-" {
		err = predictAll(stdout)
	} else {
		err = forceHint(atomicfile.WriteFunc(*output, atomicfile.Options{NoClobber: !*force}, predictAll))
	}
	if err != nil {
		return err
	}
	if ps.clipped.Features > 0 {
		warn(clippedWarning(ps.name, ps.clipped))
	}
	if !ps.truth.judged(nil) {
		return nil
	}
	if !*quiet {
		fmt.Fprintf(stderr, "model         %s (%v %v, %d support vectors, dimension %d)\ndata          %s\n",
			*modelPath, l.Config().Task, l.Algorithm(), l.SupportVectors(), l.Config().Dim, ps.name)
		if err := ps.eval.WriteReport(stderr); err != nil {
			return err
		}
	}
	if w := notBeaten(ps.eval.Summary(), ps.name); w != "" {
		warn(w)
	}
	return nil
}

// predictions is what predictRows found.
type predictions struct {
	name    string // of the rows, for messages
	eval    *eval.Evaluation
	truth   *truth // whether the labels judge the predictions
	clipped dataset.Clipped
}

// predictRows predicts every row at path ("-": stdin) with the model l,
// prepared as for it, and hands each prediction, on the label's scale (as
// bogd.Predictor.PredictRow predicts), to each with where its row is. Any
// label reads, as a regression target, and rows may have none: the labels
// of rows to predict may be placeholders or absent; truth tells whether
// they judge the predictions (the evaluation). The rows are read one at a
// time: memory does not grow with them.
func predictRows(l *bogd.Learner, path string, stdin io.Reader, each func(p bogd.Prediction, where func() string) error) (*predictions, error) {
	in := l.Input()
	rows, err := openScanner(path, stdin, dataset.Options{Task: task.Regression, HashBits: in.HashBits, Unlabelled: true})
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ps := &predictions{name: baseName(path), eval: eval.New(l.Config(), in)}
	if path == "-" {
		ps.name = stdinName
	}
	ps.truth = newTruth(l, ps.name)
	rp := newRowPrep(l.Config().Dim, in, nil)
	for rows.Scan() {
		y, idx, val := rows.Row()
		label, judged := ps.truth.add(y, rows.Where)
		_, idx, val, err := rp.apply(y, idx, val, rows.Where)
		if err != nil {
			return nil, err
		}
		p, err := l.Predict(engine.Sparse(idx, val))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rows.Where(), err)
		}
		p.Label = in.Unlabel(p.Label)
		if each != nil {
			if err := each(p, rows.Where); err != nil {
				return nil, err
			}
		}
		if judged {
			ps.eval.Add(label, p)
		}
	}
	ps.clipped = rp.clipped
	return ps, rows.Err()
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

// truth judges, row by row, whether the labels of the rows predicted are
// the truth of the model's task (original scale): binary labels must be
// ±1 or 0/1 (mapped to ±1), classes integers (one the model lacks is a
// mistake); any label is a regression target.
type truth struct {
	task       task.Task
	classes    []int
	labels     [3]bool // binary: −1, 0, +1 seen
	not        string  // why the labels are not the truth ("": they are)
	name       string  // of the data, for messages
	unlabelled bool    // the rows have no labels: nothing to say
	unknown    int     // multi-class labels the model has no class for
	first      string  // where the first of them is
	label      float64 // and its label
}

func newTruth(l *bogd.Learner, name string) *truth {
	return &truth{task: l.Config().Task, classes: l.Config().Classes, name: name}
}

// add takes the label y of the row at where() and returns it as the truth,
// and whether the rows can still be judged. A row without a label (NaN:
// the reader's Options.Unlabelled, which makes every row of the file so)
// is not judged, and needs no warning.
func (t *truth) add(y float64, where func() string) (float64, bool) {
	if t.not != "" {
		return 0, false
	}
	if math.IsNaN(y) {
		t.not, t.unlabelled = "the rows have no labels", true
		return 0, false
	}
	switch t.task {
	case task.Binary:
		switch y {
		case -1, 0, 1:
			t.labels[int(y)+1] = true
		default:
			t.not = fmt.Sprintf("the labels are not those of a binary task (%s: label %v is not -1 or +1 (nor 0/1))", where(), y)
			return 0, false
		}
		if t.labels[0] && t.labels[1] {
			t.not = fmt.Sprintf("the labels are not those of a binary task (%s: labels -1 and 0 in one file)", where())
			return 0, false
		}
		if y == 0 {
			y = -1
		}
	case task.Multiclass:
		if y != math.Trunc(y) {
			t.not = fmt.Sprintf("%s: label %v is not a class", where(), y)
			return 0, false
		}
		if _, ok := slices.BinarySearch(t.classes, int(y)); !ok {
			if t.unknown++; t.unknown == 1 {
				t.first, t.label = where(), y
			}
		}
	}
	return y, true
}

// judged reports, after the last row, whether the rows were judged; with
// warn, it says why not, or how many labels the model had no class for.
func (t *truth) judged(warn func(string)) bool {
	if warn != nil && t.not != "" && !t.unlabelled {
		warn("no summary: " + t.not)
	}
	if warn != nil && t.not == "" && t.labels[1] {
		warn(t.name + ": labels 0/1 mapped to -1/+1")
	}
	if warn != nil && t.not == "" && t.unknown > 0 {
		warn(fmt.Sprintf("%s with a label the model has no class for, the first at %s (label %v; the model's classes: %v): they count as mistakes",
			experiment.Plural(t.unknown, "row", "rows"), t.first, t.label, t.classes))
	}
	return t.not == ""
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

func (p *predictionWriter) write(pj serve.Prediction) error {
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
