package main

import (
	"fmt"
	"io"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/eval"
	"github.com/bogd-project/bogd/task"
)

// readToPredict reads the rows at path ("-": stdin) for model l: names
// hashed as for its training, then prepared for it (prepare). Any label
// reads, as a regression target, and rows may have none: the labels of
// rows to predict may be placeholders or absent. It returns the rows, and
// their labels as the truth of l's task when they can be (truth), with
// judged true.
func readToPredict(path string, stdin io.Reader, l *bogd.Learner, warn func(string)) (rows *dataset.Dataset, labels []float64, judged bool, err error) {
	rows, err = readData(path, stdin, dataset.Options{Task: task.Regression, HashBits: l.Input().HashBits, Unlabelled: true})
	if err != nil {
		return nil, nil, false, err
	}
	if !rows.Unlabelled {
		labels, judged = truth(rows, l, warn)
	}
	rows, err = prepare(rows, l, warn)
	return rows, labels, judged, err
}

// predictRow predicts row i of rows prepared for l, on the label's scale
// (as bogd.Predictor.PredictRow does).
func predictRow(l *bogd.Learner, rows *dataset.Dataset, i int) (bogd.Prediction, error) {
	idx, val := rows.Row(i)
	p, err := l.Predict(engine.Sparse(idx, val))
	if err != nil {
		return p, fmt.Errorf("%s: %w", rows.Where(i), err)
	}
	p.Label = l.Input().Unlabel(p.Label)
	return p, nil
}

// testModel evaluates l on the labelled rows at path, held out from its
// training (train --test): every row predicted by the final model, none
// learnt. The report goes to w.
func testModel(l *bogd.Learner, path string, stdin io.Reader, w io.Writer, warn func(string)) (eval.Summary, error) {
	rows, labels, judged, err := readToPredict(path, stdin, l, warn)
	if err != nil {
		return eval.Summary{}, fmt.Errorf("--test: %w", err)
	}
	if !judged {
		return eval.Summary{}, fmt.Errorf("--test %s: the rows have no labels of the model's task to judge its predictions by", path)
	}
	ev := eval.New(l.Config(), l.Input())
	for i := range rows.Len() {
		p, err := predictRow(l, rows, i)
		if err != nil {
			return eval.Summary{}, err
		}
		ev.Add(labels[i], p)
	}
	fmt.Fprintf(w, "bogdbench train: held out (--test %s): the trained model predicts every row, learning none\n", path)
	return ev.Summary(), ev.WriteReport(w)
}

// notBeaten is the warning that a model did not beat the trivial
// predictor on rows judged by s, or "" when it did.
func notBeaten(s eval.Summary, what string) string {
	if s.Beats() {
		return ""
	}
	if s.MSE != nil {
		return fmt.Sprintf("%s: the model's MSE %.6g is not below the trivial predictor's %.6g (the mean of the labels so far): it learnt nothing the labels alone do not say",
			what, *s.MSE, *s.BaselineMSE)
	}
	return fmt.Sprintf("%s: the model's mistake rate %.3f%% is not below the trivial predictor's %.3f%% (the most frequent label so far): it learnt nothing the labels alone do not say",
		what, *s.MistakeRate, *s.BaselineMistakeRate)
}
