package main

import (
	"fmt"
	"io"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/eval"
)

// testModel evaluates l on the labelled rows at path ("-": stdin), held
// out from its training (train --test): every row predicted by the final
// model, as predict does, none learnt. The report goes to w.
func testModel(l *bogd.Learner, path string, stdin io.Reader, w io.Writer, warn func(string)) (eval.Summary, error) {
	ps, err := predictRows(l, path, stdin, nil)
	if err != nil {
		return eval.Summary{}, fmt.Errorf("--test: %w", err)
	}
	if ps.clipped.Features > 0 {
		warn(clippedWarning(ps.name, ps.clipped))
	}
	if !ps.truth.judged(warn) {
		return eval.Summary{}, fmt.Errorf("--test %s: the rows have no labels of the model's task to judge its predictions by", path)
	}
	fmt.Fprintf(w, "bogdbench train: held out (--test %s): the trained model predicts every row, learning none\n", path)
	return ps.eval.Summary(), ps.eval.WriteReport(w)
}

// notBeaten is the warning that a model did not beat the trivial
// predictor on rows judged by s (eval.Beats), or "" when it did.
func notBeaten(s eval.Summary, what string) string {
	if s.Beats() {
		return ""
	}
	if s.MSE != nil {
		return fmt.Sprintf("%s: the model's MSE %.6g is not %g%% below the trivial predictor's %.6g (the mean of the labels so far): it learnt little the labels alone do not say",
			what, *s.MSE, 100*eval.BeatMargin, *s.BaselineMSE)
	}
	return fmt.Sprintf("%s: the model's mistake rate %.3f%% is not %g%% below the trivial predictor's %.3f%% (the most frequent label so far): it learnt little the labels alone do not say",
		what, *s.MistakeRate, 100*eval.BeatMargin, *s.BaselineMistakeRate)
}
