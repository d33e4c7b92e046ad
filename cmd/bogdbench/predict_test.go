package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/eval"
	"github.com/bogd-project/bogd/experiment"
)

const germanPath = "../../dataset/testdata/german.svm.gz"

// bench runs bogdbench with args and returns the exit code and output.
func bench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return benchStdin(t, "", args...)
}

// benchStdin runs bogdbench with args and stdin as its standard input.
func benchStdin(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = dispatch(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestSavePredictRoundTrip: run --save writes the learner of the last run
// (the same bytes as training that run alone), and predict scores the data
// with its snapshot.
func TestSavePredictRoundTrip(t *testing.T) {
	model := filepath.Join(t.TempDir(), "german.bogd")
	code, stdout, stderr := bench(t, "run", "--data", germanPath, "--scale", "none", "--sigma", "8", "--algo", "bogd++", "--budget", "40",
		"--runs", "3", "--eta", "0.125", "--gamma", "1", "--save", model)
	if code != 0 {
		t.Fatalf("run --save: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "bogd++") || !strings.Contains(stderr, "saved the bogd++ learner of the last run") {
		t.Fatalf("run --save output:\n%s%s", stdout, stderr)
	}

	// The saved learner is run 3's: replay it.
	data, err := dataset.ReadFile(germanPath, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := data.Len()
	cfg := bogd.Config{Dim: data.Dim, Budget: 40, Sigma: 8, Eta: 0.125, Lambda: 1 / float64(n*n), Gamma: 1, Seed: experiment.LearnerSeed(1, 2)}
	last, err := bogd.New(bogd.BOGDpp, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := experiment.Pass(context.Background(), experiment.Bind(last, data), experiment.Permutation(1, 2, n), nil); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := last.Save(&want); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatal("the saved model is not the learner of the last run")
	}

	// predict: a line per row, the predicted label and the score of the
	// learner, and the summary on stderr.
	code, stdout, stderr = bench(t, "predict", "--model", model, "--data", germanPath)
	if code != 0 {
		t.Fatalf("predict: exit %d\n%s%s", code, stdout, stderr)
	}
	mistakes := 0
	var wantScores strings.Builder
	for i := range n {
		idx, val := data.Row(i)
		p, err := last.Predict(engine.Sparse(idx, val))
		if err != nil {
			t.Fatal(err)
		}
		if p.Label != data.Labels[i] {
			mistakes++
		}
		fmt.Fprintf(&wantScores, "%g %.9g\n", p.Label, p.Score)
	}
	for _, line := range []string{
		"rows          1000\n",
		fmt.Sprintf("mistakes      %d\n", mistakes),
		fmt.Sprintf("mistake rate  %.3f%%\n", 100*float64(mistakes)/float64(n)),
		fmt.Sprintf("accuracy      %.3f%%\n", 100*float64(n-mistakes)/float64(n)),
		"(binary bogd++, 40 support vectors, dimension 24)",
	} {
		if !strings.Contains(stderr, line) {
			t.Errorf("predict summary lacks %q:\n%s", line, stderr)
		}
	}
	if stdout != wantScores.String() {
		t.Fatalf("predict: %d bytes, want %d", len(stdout), wantScores.Len())
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != n {
		t.Fatalf("%d score lines for %d rows", len(lines), n)
	}
	fields := strings.Fields(lines[0])
	if len(fields) != 2 || (fields[0] != "1" && fields[0] != "-1") {
		t.Fatalf("score line %q", lines[0])
	}
	if _, err := strconv.ParseFloat(fields[1], 64); err != nil {
		t.Fatal(err)
	}
}

// TestSaveRefusesOverwrite: an existing file is kept unless --force.
func TestSaveRefusesOverwrite(t *testing.T) {
	model := filepath.Join(t.TempDir(), "m.bogd")
	args := []string{"run", "--data", germanPath, "--algo", "rbp", "--budget", "30", "--runs", "1", "--save", model}
	if code, _, stderr := bench(t, args...); code != 0 {
		t.Fatalf("first save: exit %d: %s", code, stderr)
	}
	first, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	// A second run with another seed must not replace it...
	code, stdout, stderr := bench(t, append(args, "--seed", "2")...)
	if code != 1 || !strings.Contains(stderr, model+" already exists: pass --force to overwrite it") {
		t.Fatalf("second save: exit %d, stderr %q", code, stderr)
	}
	if stdout != "" {
		t.Errorf("a refused run still ran: %q", stdout)
	}
	if now, _ := os.ReadFile(model); !bytes.Equal(now, first) {
		t.Fatal("the refused save changed the file")
	}
	// ...unless --force is given.
	if code, _, stderr := bench(t, append(args, "--seed", "2", "--force")...); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	now, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(now, first) {
		t.Fatal("--force did not replace the file")
	}
	if _, err := bogd.LoadFile(model); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(model))
	if len(entries) != 1 {
		t.Fatalf("%d files in the directory, want the model alone", len(entries))
	}
}

func TestSaveUsageErrors(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.bogd")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--algo", "bogd,rbp", "--save", model}, 2, "--save needs exactly one algorithm and one budget"},
		{[]string{"--algo", "bogd", "--budget", "10,20", "--save", model}, 2, "--save needs exactly one algorithm and one budget"},
		{[]string{"--algo", "bogd", "--force"}, 2, "--force needs --save or --plot"},
		{[]string{"--algo", "rbp", "--budget", "1"}, 2, "--budget: a budget must be at least 2, got 1"},
		{[]string{"--algo", "bogd", "--save", filepath.Join(dir, "missing", "m.bogd")}, 1, "no such file or directory"},
	} {
		args := append([]string{"run", "--data", germanPath, "--runs", "1"}, c.args...)
		code, _, stderr := bench(t, args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if _, err := os.Stat(model); err == nil {
		t.Error("a refused run saved a model")
	}
}

// TestPredictErrors: bad model files and data files fail with exit 1 and a
// message naming the file; a missing flag is a usage error.
func TestPredictErrors(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.bogd")
	if code, _, stderr := bench(t, "run", "--data", germanPath, "--algo", "forgetron", "--budget", "20", "--runs", "1", "--save", model); code != 0 {
		t.Fatalf("save: %s", stderr)
	}
	good, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, content []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	corrupt := bytes.Clone(good)
	corrupt[len(corrupt)/2] ^= 0x40
	corrupted := write("corrupted.bogd", corrupt)
	truncated := write("truncated.bogd", good[:len(good)-10])
	notModel := write("text.bogd", []byte("+1 1:1\n"))
	wide := write("wide.svm", []byte("+1 1:0.5 24:1\n-1 3:2 25:1\n"))
	narrow := write("narrow.svm", []byte("+1 1:0.5\n-1 3:2\n"))

	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--model", corrupted, "--data", germanPath}, 1, []string{corrupted + ": model file corrupted (checksum mismatch)"}},
		{[]string{"--model", truncated, "--data", germanPath}, 1, []string{truncated + ": truncated model file"}},
		{[]string{"--model", notModel, "--data", germanPath}, 1, []string{notModel + ": not a bogd model"}},
		{[]string{"--model", filepath.Join(dir, "missing.bogd"), "--data", germanPath}, 1, []string{filepath.Join(dir, "missing.bogd"), "no such file"}},
		{[]string{"--model", model, "--data", filepath.Join(dir, "missing.svm")}, 1, []string{filepath.Join(dir, "missing.svm"), "no such file"}},
		{[]string{"--model", model}, 1, []string{"<stdin>: no examples"}},
		{[]string{"--data", germanPath}, 2, []string{"--model is required"}},
		{[]string{"--model", model, "--data", germanPath, "--format", "xml"}, 2, []string{"--format must be text or json"}},
		{[]string{"--model", model, "--data", germanPath, "--force"}, 2, []string{"--force needs --output FILE"}},
		{[]string{"--model", model, "--data", germanPath, "--output", model}, 1, []string{model + " already exists: pass --force to overwrite it"}},
	} {
		code, stdout, stderr := bench(t, append([]string{"predict"}, c.args...)...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, stderr, w)
			}
		}
		if code != 0 && stdout != "" {
			t.Errorf("%v: output despite the error: %q", c.args, stdout)
		}
	}
	// Fewer features than the model is fine; more are ignored, with one
	// warning, as svm-predict does.
	code, narrowOut, stderr := bench(t, "predict", "--model", model, "--data", narrow)
	if code != 0 || !strings.Contains(stderr, "rows          2\n") {
		t.Errorf("narrow data: exit %d\n%s%s", code, narrowOut, stderr)
	}
	code, wideOut, stderr := bench(t, "predict", "--model", model, "--data", wide)
	want := "bogdbench predict: warning: wide.svm: 1 feature in 1 row beyond the model's 24 dimensions ignored (the first: index 25 at wide.svm:2)\n"
	if code != 0 || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "warning") != 1 {
		t.Errorf("wide data: exit %d, stderr %q; want the warning %q", code, stderr, want)
	}
	narrowLines, wideLines := strings.Split(narrowOut, "\n"), strings.Split(wideOut, "\n")
	if len(wideLines) != 3 || wideLines[1] != narrowLines[1] {
		t.Errorf("row 2 without its feature 25 predicted %q, without it %q", wideLines[1], narrowLines[1])
	}
}

// TestPredictJSONAndOutput: rows from stdin, predictions of a calibrated
// multi-class model as one JSON document in an --output file (refused
// when it exists, unless --force), and the summary with the calibration.
func TestPredictJSONAndOutput(t *testing.T) {
	dir := t.TempDir()
	multi := writeData(t, dir, "multi.svm", 300, classes)
	model := filepath.Join(dir, "m.bogd")
	if code, _, stderr := bench(t, "train", "--data", multi, "--scale", "none", "--algo", "bogd++", "--budget", "40", "--sigma", "2", "--save", model, "-q"); code != 0 {
		t.Fatal(stderr)
	}
	text, err := os.ReadFile(multi)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "predictions.json")
	code, stdout, stderr := benchStdin(t, string(text), "predict", "--model", model, "--format", "json", "--output", out)
	if code != 0 || stdout != "" {
		t.Fatalf("predict: exit %d\n%s%s", code, stdout, stderr)
	}
	var doc struct {
		Model, Task, Algorithm string
		Classes                []int
		Predictions            []struct {
			Label, Score  float64
			Scores        []float64
			Probability   *float64
			Probabilities []float64
		}
		Summary eval.Summary
	}
	raw := readFile(t, out)
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%v\n%.300s", err, raw)
	}
	if doc.Model != model || doc.Task != "multiclass" || doc.Algorithm != "bogd++" || fmt.Sprint(doc.Classes) != "[3 5 9]" || len(doc.Predictions) != 300 {
		t.Fatalf("document head %+v, %d predictions", doc, len(doc.Predictions))
	}
	mistakes := 0
	l, _ := bogd.LoadFile(model)
	data, _ := dataset.ReadFile(multi, dataset.Options{})
	for i, p := range doc.Predictions {
		idx, val := data.Row(i)
		want, _ := l.Predict(engine.Sparse(idx, val))
		c := slices.Index(doc.Classes, int(p.Label))
		if p.Label != want.Label || p.Score != want.Score || len(p.Scores) != 3 || len(p.Probabilities) != 3 || p.Probability == nil || *p.Probability != p.Probabilities[c] || *p.Probability != want.Probability {
			t.Fatalf("row %d: %+v, the learner %+v", i+1, p, want)
		}
		if c != slices.Index(p.Probabilities, slices.Max(p.Probabilities)) {
			t.Fatalf("row %d: label %v, not the most probable class of %v", i+1, p.Label, p.Probabilities)
		}
		if p.Label != data.Labels[i] {
			mistakes++
		}
	}
	s := doc.Summary
	if s.Rows != 300 || *s.Mistakes != mistakes || s.ECE == nil || s.PlainECE == nil || !(*s.ECE >= 0 && *s.ECE <= 1) {
		t.Errorf("summary %+v, want %d mistakes and both ECEs", s, mistakes)
	}
	for _, want := range []string{fmt.Sprintf("mistakes      %d\n", mistakes), "reliability of the calibrated P(predicted class) (300 rows):", "expected calibration error: "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, stderr)
		}
	}
	// The output file is kept unless --force.
	if code, _, stderr := benchStdin(t, string(text), "predict", "--model", model, "--output", out); code != 1 || !strings.Contains(stderr, "already exists") {
		t.Errorf("second predict: exit %d, %s", code, stderr)
	}
	if code, _, _ := benchStdin(t, string(text), "predict", "--model", model, "--output", out, "--force", "-q"); code != 0 || strings.Count(string(readFile(t, out)), "\n") != 300 {
		t.Errorf("--force: exit %d", code)
	}
}

// Labels that do not fit the task are placeholders: predictions, no
// summary.
func TestPredictPlaceholderLabels(t *testing.T) {
	model := trainGerman(t, t.TempDir())
	code, stdout, stderr := benchStdin(t, "7 1:1 2:5\n7 1:2\n", "predict", "--model", model)
	if code != 0 || len(strings.Split(strings.TrimSpace(stdout), "\n")) != 2 || strings.Contains(stderr, "mistakes") || !strings.Contains(stderr, "no summary: the labels are not those of a binary task") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}
