package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
)

// germanText is the bundled german data, uncompressed.
func germanText(t *testing.T) string {
	t.Helper()
	f, err := os.Open(germanPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// trainGerman trains a calibrated model on german into dir.
func trainGerman(t *testing.T, dir string) string {
	t.Helper()
	model := filepath.Join(dir, "german.bogd")
	if code, _, stderr := bench(t, "train", "--data", germanPath, "--algo", "bogd++", "--scale", "none", "--sigma", "8", "--budget", "50", "--save", model, "-q"); code != 0 {
		t.Fatal(stderr)
	}
	return model
}

// trainInOrder trains a learner of cfg over data in file order, passes
// times: what train must compute.
func trainInOrder(t *testing.T, a bogd.Algorithm, cfg bogd.Config, data *dataset.Dataset, passes int) (*bogd.Learner, experiment.Result) {
	t.Helper()
	l, err := bogd.New(a, cfg)
	if err != nil {
		t.Fatal(err)
	}
	order := make([]int, 0, passes*data.Len())
	for range passes {
		for i := range data.Len() {
			order = append(order, i)
		}
	}
	res, err := experiment.Pass(context.Background(), experiment.Bind(l, data), order, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l, res
}

func saved(t *testing.T, l *bogd.Learner) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := l.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTrainFileOrder: train learns the rows in file order with λ = 1/T²
// and calibration, prints progressive validation at doubling counts, and
// saves exactly that learner.
func TestTrainFileOrder(t *testing.T) {
	model := filepath.Join(t.TempDir(), "g.bogd")
	code, stdout, stderr := bench(t, "train", "--data", germanPath, "--scale", "none", "--sigma", "8", "--algo", "bogd++", "--budget", "40", "--eta", "0.125", "--gamma", "2", "--save", model)
	if code != 0 || stdout != "" {
		t.Fatalf("train: exit %d\n%s%s", code, stdout, stderr)
	}
	data, err := dataset.ReadFile(germanPath, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := bogd.Config{Dim: 24, Budget: 40, Sigma: 8, Eta: 0.125, Gamma: 2, Lambda: 1e-6, Seed: 1, Calibrate: true}
	want, res := trainInOrder(t, bogd.BOGDpp, cfg, data, 1)
	if !bytes.Equal(readFile(t, model), saved(t, want)) {
		t.Fatal("the saved model is not the learner trained in file order")
	}
	var counts []string
	for _, m := range regexp.MustCompile(`(?m)^ +(\d+) +1 +[\d.]+ +[\d.]+ +\d+ +\d+$`).FindAllStringSubmatch(stderr, -1) {
		counts = append(counts, m[1])
	}
	if got := strings.Join(counts, ","); got != "1,2,4,8,16,32,64,128,256,512,1000" {
		t.Errorf("progress lines at %s\n%s", got, stderr)
	}
	for _, line := range []string{
		"--task auto: binary",
		"binary bogd++, budget 40, σ = 8, η = 0.125, λ = 1e-06, γ = 2, dense storage, calibrated",
		fmt.Sprintf("mistake rate %.3f%% (progressive validation; the trivial predictor, the most frequent label before each: 30.100%%), AUC ", 100*float64(res.Mistakes)/1000),
		"saved the bogd++ learner (40 support vectors) to " + model,
	} {
		if !strings.Contains(stderr, line) {
			t.Errorf("stderr lacks %q:\n%s", line, stderr)
		}
	}
	// The last progress line: the mistake rate so far, and that of rows
	// 513..1000 alone.
	l, err := bogd.New(bogd.BOGDpp, cfg)
	if err != nil {
		t.Fatal(err)
	}
	order := make([]int, 1000)
	for i := range order {
		order[i] = i
	}
	at, err := experiment.Pass(context.Background(), experiment.Bind(l, data), order, []int{512, 1000})
	if err != nil {
		t.Fatal(err)
	}
	last := fmt.Sprintf("%12d %5d %12.3f %12.3f %16d", 1000, 1, 100*float64(at.Checkpoints[1])/1000, 100*float64(at.Checkpoints[1]-at.Checkpoints[0])/488, 40)
	if !strings.Contains(stderr, last) {
		t.Errorf("no progress line %q:\n%s", last, stderr)
	}

	// Quiet: warnings only (σ = 8 does not beat the trivial predictor on
	// german's raw features).
	if code, _, stderr := bench(t, "train", "--data", germanPath, "--scale", "none", "--sigma", "8", "-q"); code != 0 || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "bogdbench train: warning: ") {
		t.Errorf("-q: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := bench(t, "train", "--data", germanPath, "-q"); code != 0 || stderr != "" {
		t.Errorf("-q with the default scaling and width: exit %d, stderr %q", code, stderr)
	}
}

// TestTrainContinue: training continued from a saved model, from a file
// or stdin (plain or gzip), is bit-identical to training without the
// stop; --model M --save M updates M in place.
func TestTrainContinue(t *testing.T) {
	dir := t.TempDir()
	once, twice := filepath.Join(dir, "once.bogd"), filepath.Join(dir, "twice.bogd")
	args := []string{"--algo", "bogd", "--budget", "30", "--lambda", "0.001", "--seed", "5", "--calibrate=false"}
	if code, _, stderr := bench(t, append([]string{"train", "--data", germanPath, "--passes", "2", "--save", twice, "-q"}, args...)...); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := bench(t, append([]string{"train", "--data", germanPath, "--save", once, "-q"}, args...)...); code != 0 {
		t.Fatal(stderr)
	}
	text := germanText(t)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	for name, input := range map[string]string{"plain": text, "gzip": gz.String()} {
		t.Run(name, func(t *testing.T) {
			m := filepath.Join(t.TempDir(), "m.bogd")
			if err := os.WriteFile(m, readFile(t, once), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := benchStdin(t, input, "train", "--model", m, "--data", "-", "--save", m)
			if code != 0 {
				t.Fatalf("continue: exit %d: %s", code, stderr)
			}
			if !bytes.Equal(readFile(t, m), readFile(t, twice)) {
				t.Fatal("continued training differs from training without the stop")
			}
			if !strings.Contains(stderr, "continuing "+m+": binary bogd, budget 30") {
				t.Errorf("stderr: %s", stderr)
			}
		})
	}
}

// TestTrainContinueFailureKeepsModel: a continuation that fails (bad
// data, a class the model lacks) leaves the model file as it was.
func TestTrainContinueFailureKeepsModel(t *testing.T) {
	dir := t.TempDir()
	multi := writeData(t, dir, "multi.svm", 100, classes)
	model := filepath.Join(dir, "m.bogd")
	if code, _, stderr := bench(t, "train", "--data", multi, "--algo", "rbp", "--budget", "10", "--save", model, "-q"); code != 0 {
		t.Fatal(stderr)
	}
	before := readFile(t, model)
	for _, c := range []struct{ input, want string }{
		{"3 1:1\n7 2:1\n", "<stdin>:2: label 7 is not one of the model's classes [3 5 9]"},
		{"3 1:1\n5 2:x\n", "<stdin>:2:"},
	} {
		code, _, stderr := benchStdin(t, c.input, "train", "--model", model, "--save", model)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.input, code, stderr, c.want)
		}
		if !bytes.Equal(readFile(t, model), before) {
			t.Fatal("a failed continuation changed the model")
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in the directory, want the data and the model", len(entries))
	}
}

func TestTrainErrors(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.bogd")
	if code, _, stderr := bench(t, "train", "--data", germanPath, "--save", model, "-q"); code != 0 {
		t.Fatal(stderr)
	}
	bad := filepath.Join(dir, "bad.svm")
	os.WriteFile(bad, []byte("+1 1:1\n-1 2:1 1:3\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--data", germanPath, "--passes", "0"}, 2, "--passes must be at least 1"},
		{[]string{"--data", germanPath, "--algo", "svm"}, 2, `--algo: unknown algorithm "svm"`},
		{[]string{"--data", germanPath, "--budget", "1"}, 2, "--budget: a budget must be at least 2"},
		{[]string{"--data", germanPath, "--sigma", "-1"}, 2, `invalid value "-1" for flag -sigma: want a positive number or auto`},
		{[]string{"--data", germanPath, "--storage", "tiled"}, 2, "--storage must be auto, dense or sparse"},
		{[]string{"--data", germanPath, "--hash", "31"}, 2, "--hash must be in 1..30"},
		{[]string{"--data", germanPath, "--algo", "bogd++", "--eta", "-1"}, 2, "Eta, the step size, must be in"},
		{[]string{"--data", germanPath, "--force"}, 2, "--force needs --save"},
		{[]string{"--data", germanPath, "--model", model, "--eta", "1"}, 2, "--eta cannot be given with it"},
		{[]string{"--data", germanPath, "--model", model, "--scale", "minmax"}, 2, "--scale cannot be given with it"},
		{[]string{"--data", germanPath, "--save", model}, 1, model + " already exists: pass --force to overwrite it"},
		{[]string{"--data", bad}, 1, bad + ":2: "},
		{[]string{"--data", filepath.Join(dir, "missing.svm")}, 1, "missing.svm: open: no such file or directory"},
		{[]string{"--data", germanPath, "--task", "regression", "--algo", "ogd", "--eta", "1e19", "--lambda", "0"}, 1, "german.svm.gz:5 (example 5): the squared error is not finite: the learner diverged"},
	} {
		code, stdout, stderr := bench(t, append([]string{"train", "-q"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestTrainSigmaAuto: --sigma auto takes the median distance of the
// estimator (stated with its sample and seed) and trains with it.
func TestTrainSigmaAuto(t *testing.T) {
	model := filepath.Join(t.TempDir(), "m.bogd")
	code, _, stderr := bench(t, "train", "--data", germanPath, "--scale", "none", "--sigma", "auto", "--save", model)
	if code != 0 {
		t.Fatal(stderr)
	}
	data, _ := dataset.ReadFile(germanPath, dataset.Options{})
	want := experiment.MedianDistance(data, 1000, 1)
	if !strings.Contains(stderr, fmt.Sprintf("--sigma auto: σ = %.6g, the median Euclidean distance over all pairs of 1000 rows", want)) {
		t.Errorf("stderr: %s", stderr)
	}
	l, err := bogd.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Config().Sigma; got != want {
		t.Errorf("σ %v, want %v", got, want)
	}
}

// TestRunSigmaAuto: run's --sigma auto is train's, measured on the rows
// the learners see (after --scale).
func TestRunSigmaAuto(t *testing.T) {
	rows, stderr := runJSON(t, "--data", germanPath, "--algo", "rbp", "--budget", "20", "--runs", "1", "--scale", "minmax", "--sigma", "auto")
	data, _ := dataset.ReadFile(germanPath, dataset.Options{})
	scaled, _, err := data.ScaleMinMax(false)
	if err != nil {
		t.Fatal(err)
	}
	want := experiment.MedianDistance(scaled, 1000, 1)
	if !strings.Contains(stderr, fmt.Sprintf("--sigma auto: σ = %.6g, the median Euclidean distance over all pairs of 1000 rows", want)) {
		t.Errorf("stderr: %s", stderr)
	}
	if len(rows) != 1 || rows[0]["sigma"] != want {
		t.Errorf("rows %v, want σ %v", rows, want)
	}
}

// TestMedianWidthCompacts: the compacted sample measures the distances of
// the full rows, on high-dimensional sparse data too.
func TestMedianWidthCompacts(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "%d %d:%d %d:0.5 %d:%d\n", 1-2*(i%2), 1+i*37%5000, i%7+1, 5001+i%13, 9000+i, i%3+1)
	}
	data, err := dataset.Read(strings.NewReader(b.String()), "sparse", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, rows := medianWidth(data)
	if want := experiment.MedianDistance(data, 1000, 1); got != want || rows != 300 {
		t.Fatalf("median %v over %d rows, want %v over 300", got, rows, want)
	}
}

// TestTrainHashedPredict: --hash names features; the model's input says
// so, and predict hashes rows the same way.
func TestTrainHashedPredict(t *testing.T) {
	dir := t.TempDir()
	text := "+1 good great fine\n-1 bad awful\n+1 great:2 nice\n-1 awful poor bad\n+1 fine nice\n-1 poor\n"
	model := filepath.Join(dir, "words.bogd")
	code, _, stderr := benchStdin(t, text, "train", "--hash", "10", "--scale", "none", "--storage", "sparse", "--passes", "5", "--sigma", "1", "--save", model)
	if code != 0 {
		t.Fatal(stderr)
	}
	l, err := bogd.LoadFile(model)
	if err != nil || l.Input().HashBits != 10 || l.Input().Scaling != nil {
		t.Fatalf("the model's input: %+v, %v", l.Input(), err)
	}
	code, stdout, stderr := benchStdin(t, text, "predict", "--model", model)
	if code != 0 || !strings.Contains(stderr, "mistakes      0\n") {
		t.Fatalf("predict: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.HasPrefix(stdout, "1 ") || len(strings.Split(strings.TrimSpace(stdout), "\n")) != 6 {
		t.Errorf("predictions %q", stdout)
	}
}
