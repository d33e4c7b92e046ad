package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/internal/cputime"
	"github.com/bogd-project/bogd/task"
)

// writeData writes n rows of three features in [0, 10) to dir/name, the
// label of each given by label, and returns the path.
func writeData(t *testing.T, dir, name string, n int, label func(x [3]float64) string) string {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 7))
	var b strings.Builder
	for range n {
		var x [3]float64
		for j := range x {
			x[j] = math.Round(100*10*r.Float64()) / 100
		}
		fmt.Fprintf(&b, "%s 1:%g 2:%g 3:%g\n", label(x), x[0], x[1], x[2])
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// classes labels a row 3, 5 or 9 by its first feature; target is a real
// function of the first two (1000 plus a smooth bump).
func classes(x [3]float64) string { return []string{"3", "5", "9"}[int(x[0]*3/10)] }
func target(x [3]float64) string {
	return strconv.FormatFloat(1000+50*math.Sin(x[0]/2)+3*x[1], 'f', 4, 64)
}

// runJSON runs `run --format json` and decodes its rows but the last,
// the trivial predictor's, which it checks; it also returns stderr.
func runJSON(t *testing.T, args ...string) ([]map[string]any, string) {
	t.Helper()
	code, stdout, stderr := bench(t, append([]string{"run", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("run %v: exit %d\n%s%s", args, code, stdout, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("run output %s: %v", stdout, err)
	}
	last := rows[len(rows)-1]
	if last["algorithm"] != "trivial" || last["trivial"] != true || last["runs"] != rows[0]["runs"] || last["task"] != rows[0]["task"] ||
		(last["mse_mean"] == nil) != (rows[0]["mse_mean"] == nil) {
		t.Fatalf("the last row is not the trivial predictor's: %v", last)
	}
	if _, ok := cputime.Thread(); ok {
		for _, r := range rows {
			if v, _ := r["cpu_seconds_mean"].(float64); !(v > 0) || v > r["seconds_mean"].(float64)+0.01 {
				t.Fatalf("a row's CPU time per pass is %v, its wall clock's %v: %v", r["cpu_seconds_mean"], r["seconds_mean"], r)
			}
		}
	}
	return rows[:len(rows)-1], stderr
}

// --task auto prints its choice; multi-class rows carry the task and the
// classes with the mistake rates, regression rows the MSE in their place.
func TestRunTasksJSON(t *testing.T) {
	dir := t.TempDir()
	multi := writeData(t, dir, "multi.svm", 300, classes)
	reg := writeData(t, dir, "reg.svm", 300, target)

	rows, stderr := runJSON(t, "--data", multi, "--algo", "bogd,perceptron", "--budget", "20", "--runs", "2")
	if !strings.Contains(stderr, "--task auto: multiclass, 3 classes [3 5 9]") || len(rows) != 2 {
		t.Fatalf("auto multiclass: %d rows\n%s", len(rows), stderr)
	}
	for _, r := range rows {
		if r["task"] != "multiclass" || fmt.Sprint(r["classes"]) != "[3 5 9]" || r["mistake_rate_mean"] == nil || r["mistake_rate_std"] == nil || r["mse_mean"] != nil {
			t.Fatalf("multiclass row %v", r)
		}
	}
	if rate := rows[1]["mistake_rate_mean"].(float64); !(rate < 30) {
		t.Fatalf("the multiclass perceptron learnt nothing: %v%%", rate)
	}

	rows, stderr = runJSON(t, "--data", reg, "--algo", "norma,bogd", "--budget", "30", "--runs", "2", "--scale", "minmax", "--nu", "0.3", "--epsilon", "0.05")
	if !strings.Contains(stderr, "--task auto: regression") || len(rows) != 2 {
		t.Fatalf("auto regression: %d rows\n%s", len(rows), stderr)
	}
	for _, r := range rows {
		if r["task"] != "regression" || r["mse_mean"] == nil || r["mse_std"] == nil || r["mistake_rate_mean"] != nil || r["classes"] != nil ||
			r["epsilon"] != 0.05 || r["scale"] != "minmax" {
			t.Fatalf("regression row %v", r)
		}
	}
	if rows[0]["nu"] != 0.3 || rows[1]["nu"] != nil || rows[0]["eta"] != 0.03 || rows[1]["eta"] != 0.1 {
		t.Fatalf("NORMA's ν and each rule's default η: %v, %v", rows[0], rows[1])
	}
	if mse := rows[0]["mse_mean"].(float64); !(mse > 0 && mse < 0.1) {
		t.Fatalf("MSE %v on labels scaled to [0, 1]", mse)
	}

	// Binary rows are as before tasks: no task, no MSE, no later fields.
	rows, _ = runJSON(t, "--data", germanPath, "--algo", "rbp", "--budget", "20", "--runs", "1", "--scale", "none")
	for _, k := range []string{"task", "classes", "mse_mean", "epsilon", "nu", "c", "rank", "features", "scale"} {
		if _, ok := rows[0][k]; ok {
			t.Errorf("binary row has %q: %v", k, rows[0])
		}
	}
	if rows[0]["mistake_rate_mean"] == nil {
		t.Errorf("binary row without its mistake rate: %v", rows[0])
	}
}

// Bad labels for the chosen task name file and line; bad flags are usage
// errors, found before any pass.
func TestRunTaskErrors(t *testing.T) {
	dir := t.TempDir()
	multi := writeData(t, dir, "multi.svm", 50, classes)
	reg := writeData(t, dir, "reg.svm", 50, target)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--data", multi, "--task", "binary"}, 1, multi + ":1: label 3 is not -1 or +1"},
		{[]string{"--data", reg, "--task", "multiclass"}, 1, reg + ":1: label 10"},
		{[]string{"--data", multi, "--task", "ranking"}, 2, `--task: unknown task "ranking"`},
		{[]string{"--data", multi, "--scale", "zscore"}, 2, "--scale must be maxabs, minmax or none"},
		{[]string{"--data", reg, "--algo", "norma", "--nu", "2"}, 2, "Nu must be in [0, 1]"},
		{[]string{"--data", reg, "--algo", "nogd", "--budget", "20", "--rank", "30"}, 2, "Rank, the k of the Nyström map, must be in [1, Budget 20]"},
		{[]string{"--data", multi, "--algo", "norma"}, 2, "norma: invalid configuration: Task multiclass: the algorithm is not defined for it"},
		{[]string{"--data", reg, "--algo", "bpas", "--C", "-1"}, 2, "C must be in (0, 1e15]"},
	} {
		code, stdout, stderr := bench(t, append([]string{"run", "--runs", "1"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit %d and %q", c.args, code, stderr, stdout, c.code, c.want)
		}
	}
}

// A regression model saved with its min-max scaling predicts on the
// file's own scale: predict maps the scaled predictions back, and its MSE
// on scaled labels is the one of the learner.
func TestScaledRegressionRoundTrip(t *testing.T) {
	dir := t.TempDir()
	reg := writeData(t, dir, "reg.svm", 200, target)
	model := filepath.Join(dir, "reg.bogd")
	if code, _, stderr := bench(t, "run", "--data", reg, "--algo", "bogd++", "--budget", "30", "--runs", "2", "--scale", "minmax", "--save", model); code != 0 {
		t.Fatalf("run --save: %s", stderr)
	}
	l, err := bogd.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	in := l.Input()
	if in.Scaling == nil || !in.Scaling.ScalesLabels() || in.HashBits != 0 {
		t.Fatalf("the model holds the input %+v, want the scaling of features and labels", in)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Fatalf("%d files in the directory, want the data and the model alone", len(entries))
	}
	data, err := dataset.ReadFile(reg, dataset.Options{Task: task.Regression})
	if err != nil {
		t.Fatal(err)
	}
	scaled, err := data.Scale(in.Scaling)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	var squared float64
	for i := range scaled.Len() {
		idx, val := scaled.Row(i)
		p, err := l.Predict(engine.Sparse(idx, val))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&want, "%.9g %.9g\n", in.Unlabel(p.Label), p.Score)
		squared += (scaled.Labels[i] - p.Label) * (scaled.Labels[i] - p.Label)
	}
	code, stdout, stderr := bench(t, "predict", "--model", model, "--data", reg)
	if code != 0 || stdout != want.String() {
		t.Fatalf("predict: exit %d, %s\n%.300s\nwant\n%.300s", code, stderr, stdout, want.String())
	}
	first, _ := strconv.ParseFloat(strings.Fields(stdout)[0], 64)
	if !(first > 900 && first < 1200) {
		t.Fatalf("prediction %v is not on the labels' scale (about 1000)", first)
	}
	if line := fmt.Sprintf("mse           %.6g (scaled labels", squared/200); !strings.Contains(stderr, line) || !strings.Contains(stderr, "mse original") {
		t.Fatalf("predict summary lacks %q:\n%s", line, stderr)
	}

	// A model saved without scaling replaces, with --force, the scaled one.
	if code, _, stderr := bench(t, "run", "--data", reg, "--algo", "bogd++", "--budget", "30", "--runs", "1", "--save", model); code != 1 || !strings.Contains(stderr, model+" already exists") {
		t.Fatalf("save over a scaled model without --force: exit %d, %s", code, stderr)
	}
	if code, _, stderr := bench(t, "run", "--data", reg, "--algo", "bogd++", "--budget", "30", "--runs", "1", "--scale", "none", "--save", model, "--force"); code != 0 {
		t.Fatalf("--force: %s", stderr)
	}
	if l, err := bogd.LoadFile(model); err != nil || !l.Input().IsZero() {
		t.Fatalf("the new model: %v, input %+v", err, l.Input())
	}
}

// A multi-class model predicts class labels, with every class's score.
func TestMulticlassPredict(t *testing.T) {
	dir := t.TempDir()
	multi := writeData(t, dir, "multi.svm", 300, classes)
	model := filepath.Join(dir, "m.bogd")
	if code, _, stderr := bench(t, "run", "--data", multi, "--algo", "projectron", "--budget", "40", "--runs", "1", "--save", model); code != 0 {
		t.Fatalf("run --save: %s", stderr)
	}
	code, stdout, stderr := bench(t, "predict", "--model", model, "--data", multi)
	if code != 0 {
		t.Fatalf("predict: %s", stderr)
	}
	data, _ := dataset.ReadFile(multi, dataset.Options{})
	mistakes := 0
	for i, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || !slices.Contains([]string{"3", "5", "9"}, f[0]) {
			t.Fatalf("line %d: %q, want a class and three scores", i+1, line)
		}
		if f[0] != strconv.Itoa(int(data.Labels[i])) {
			mistakes++
		}
	}
	if want := fmt.Sprintf("mistakes      %d\n", mistakes); !strings.Contains(stderr, want) || !strings.Contains(stderr, "multiclass projectron") {
		t.Fatalf("summary lacks %q:\n%s", want, stderr)
	}
	if strings.Contains(stderr, "warning") {
		t.Fatalf("a warning on rows of the model's classes:\n%s", stderr)
	}
	// Labels the model has no class for are mistakes, and said so.
	code, _, stderr = benchStdin(t, "3 1:1\n4 1:2 2:1\n8 1:3\n", "predict", "--model", model)
	if code != 0 || !strings.Contains(stderr, "warning: 2 rows with a label the model has no class for, the first at <stdin>:2 (label 4; the model's classes: [3 5 9])") ||
		!strings.Contains(stderr, "mistakes      ") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
}

// --order replays fixed orders in every task: two orders are the two
// passes of the runs with those permutations.
func TestRunOrderRegression(t *testing.T) {
	dir := t.TempDir()
	reg := writeData(t, dir, "reg.svm", 120, target)
	var b strings.Builder
	var orders [][]int
	for r := range 2 {
		perm := experiment.Permutation(9, r, 120)
		orders = append(orders, perm)
		var line []string
		for _, row := range perm {
			line = append(line, strconv.Itoa(row+1))
		}
		b.WriteString(strings.Join(line, ",") + "\n")
	}
	orderFile := filepath.Join(dir, "orders.txt")
	if err := os.WriteFile(orderFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, _ := runJSON(t, "--data", reg, "--task", "regression", "--algo", "rbp", "--budget", "10", "--runs", "2", "--order", orderFile, "--eta", "0.5", "--scale", "none", "--sigma", "8")
	data, _ := dataset.ReadFile(reg, dataset.Options{Task: task.Regression})
	var mses []float64
	for r, order := range orders {
		l, err := bogd.New(bogd.RBP, bogd.Config{Task: task.Regression, Dim: data.Dim, Budget: 10, Sigma: 8, Eta: 0.5, Epsilon: 0.1, Gamma: 10, Lambda: 1.0 / (120 * 120), Seed: experiment.LearnerSeed(1, r)})
		if err != nil {
			t.Fatal(err)
		}
		res, err := experiment.Pass(context.Background(), experiment.Bind(l, data), order, nil)
		if err != nil {
			t.Fatal(err)
		}
		mses = append(mses, res.SquaredError/120)
	}
	want, _ := experiment.MeanStd(mses)
	if got := rows[0]["mse_mean"].(float64); math.Abs(got-want) > 1e-12*want {
		t.Fatalf("MSE over the orders %v, want %v", got, want)
	}
}

// TestTrainRegressionBaseline: train's regression summary states the MSE
// of predicting the running mean of the labels (the labels the learner
// sees, scaled) and warns when the learner did worse than that.
func TestTrainRegressionBaseline(t *testing.T) {
	reg := writeData(t, t.TempDir(), "reg.svm", 300, target)
	raw, err := dataset.ReadFile(reg, dataset.Options{Task: task.Regression})
	if err != nil {
		t.Fatal(err)
	}
	data, _, err := raw.ScaleMinMax(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		eta, passes string
		warn        bool
	}{{"0.5", "1", false}, {"50", "1", true}, {"0.5", "2", false}} {
		var mean, sum float64
		n := 0
		for range int(c.passes[0] - '0') {
			for _, y := range data.Labels {
				sum += (y - mean) * (y - mean)
				n++
				mean += (y - mean) / float64(n)
			}
		}
		code, _, stderr := bench(t, "train", "--data", reg, "--algo", "bogd-oldest", "--budget", "30", "--scale", "minmax", "--sigma", "0.3", "--eta", c.eta, "--passes", c.passes)
		if code != 0 {
			t.Fatal(stderr)
		}
		if want := fmt.Sprintf("the trivial predictor, the mean of the labels before each: %.6g)", sum/float64(n)); !strings.Contains(stderr, want) {
			t.Errorf("η %s, %s passes: no %q in\n%s", c.eta, c.passes, want, stderr)
		}
		if got := strings.Contains(stderr, "below the trivial predictor's"); got != c.warn {
			t.Errorf("η %s: warned %v, want %v\n%s", c.eta, got, c.warn, stderr)
		}
	}
}
