package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/prep"
)

// noTuneFiles fails when tune left a temporary directory in dir (the
// TMPDIR of the test).
func noTuneFiles(t *testing.T, dir string) {
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(dir, "bogdbench-tune-*")); len(left) > 0 {
		t.Errorf("tune left %v", left)
	}
}

// TestTuneEveryLearner: BPA-S tunes on binary data (its C is in the grid),
// FOGD's grid holds its default η, the trivial predictor is a row, and no
// temporary file stays.
func TestTuneEveryLearner(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	code, stdout, stderr := bench(t, "tune", "--data", germanPath, "--algo", "bpas,fogd", "--budget", "20", "--sigma", "16",
		"--select-runs", "1", "--runs", "2", "--extend", "0")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^trivial +- +the most frequent label so far +- +30\.15 ± 0\.0707 +0\.0 `),
		regexp.MustCompile(`(?m)^bpas +20 +C=(0\.1|1|10), σ=16 +[0-9.]+ `),
		regexp.MustCompile(`(?m)^fogd +20 +η=[0-9.]+, σ=16 +[0-9.]+ `),
	} {
		if !want.MatchString(stdout) {
			t.Errorf("no match for %s in\n%s", want, stdout)
		}
	}
	// BPA-S: C ∈ {0.1, 1, 10}; FOGD: η ∈ {0.002 (its default), 0.125,
	// 0.5, 2}.
	if !strings.Contains(stderr, "select: 7 jobs to run") {
		t.Errorf("want 3 + 4 selection passes:\n%s", stderr)
	}
	noTuneFiles(t, tmp)
}

// TestTuneKeepsGoing: a learner that diverges at every grid point (BSGD-
// merge in regression) is a row that says so; the others' results stand,
// and the learners not better than the running mean are named. When no
// learner has a result, tune fails, and still leaves no file.
func TestTuneKeepsGoing(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	reg := writeData(t, t.TempDir(), "reg.svm", 300, target)
	args := []string{"tune", "--data", reg, "--scale", "minmax", "--budget", "20", "--select-runs", "1", "--runs", "2", "--extend", "0", "-q"}
	code, stdout, stderr := bench(t, append(args, "--algo", "bsgd-merge,fogd,rbp")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^trivial +- +the mean of the labels so far +- +0\.078384 ± 0\.000604 `),
		regexp.MustCompile(`(?m)^bsgd-merge +20 +failed +- +- +- +-$`),
		regexp.MustCompile(`(?m)^fogd +20 +η=[0-9.e-]+, σ=[0-9.]+ +[0-9.]+ +[0-9.]+ ± `),
		regexp.MustCompile(`(?m)^note: bsgd-merge failed: every one of its \d+ grid points diverged$`),
		regexp.MustCompile(`(?m)^note: fogd diverged at \d+ of \d+ grid points \(not finite, or an MSE above 100× the trivial predictor's\): never selected$`),
		regexp.MustCompile(`(?m)^train with the selected parameters \(the lowest held-out MSE\):\n  bogdbench train .* --algo fogd `),
	} {
		if !want.MatchString(stdout) {
			t.Errorf("no match for %s in\n%s", want, stdout)
		}
	}
	if !regexp.MustCompile(`(?m)^rbp +20 +η=[0-9.]+, σ=[0-9.]+ +[0-9.]+ +[0-9.]+ ± `).MatchString(stdout) {
		t.Errorf("no rbp row in\n%s", stdout)
	}
	code, stdout, stderr = bench(t, append(args, "--algo", "bsgd-merge")...)
	if code != 1 || !strings.Contains(stderr, "no learner has a result: nothing to train") || !strings.Contains(stdout, "note: bsgd-merge failed") {
		t.Errorf("only a failing learner: exit %d\n%s%s", code, stdout, stderr)
	}
	noTuneFiles(t, tmp)
}

// TestTuneSaysNotBetter: a learner that does not beat the trivial
// predictor is named under the table.
func TestTuneSaysNotBetter(t *testing.T) {
	// german's raw features at σ = 1: every row is alone, the learner
	// sees no structure.
	code, stdout, stderr := bench(t, "tune", "--data", germanPath, "--scale", "none", "--algo", "perceptron", "--sigma", "1,2", "--select-runs", "1", "--runs", "2", "--extend", "0", "-q")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	want := "note: not better than the trivial predictor (the most frequent label so far, held-out mistakes % 30.15) by 1% of it: perceptron\n"
	if !strings.Contains(stdout, want) || !strings.Contains(stdout, "note: perceptron: σ = 2 is the largest tried of its grid (give --sigma values beyond it)") {
		t.Errorf("no %q in\n%s", want, stdout)
	}
}

// TestTrainShuffle: --shuffle learns each pass in the seeded permutation
// (pass, seed) — exactly that learner is saved — and says so; without it,
// labels that come sorted are warned of.
func TestTrainShuffle(t *testing.T) {
	dir := t.TempDir()
	data, err := dataset.ReadFile(germanPath, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "shuffled.bogd")
	code, _, stderr := bench(t, "train", "--data", germanPath, "--algo", "bogd++", "--scale", "none", "--sigma", "8", "--budget", "30", "--passes", "2", "--shuffle", "--shuffle-seed", "9", "--save", model)
	if code != 0 || !strings.Contains(stderr, "german.svm.gz: 1000 rows, 24 features, 2 passes, each in a random order (--shuffle, seed 9)") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	l, err := bogd.New(bogd.BOGDpp, bogd.Config{Dim: 24, Budget: 30, Sigma: 8, Lambda: 1e-6, Seed: 1, Calibrate: true})
	if err != nil {
		t.Fatal(err)
	}
	for pass := range 2 {
		if _, err := experiment.Pass(t.Context(), experiment.Bind(l, data), experiment.Permutation(9, pass, 1000), nil); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(readFile(t, model), saved(t, l)) {
		t.Error("the saved model is not the learner of the two seeded permutations")
	}

	// Sorted: german's rows with the −1 rows first.
	lines := strings.Split(strings.TrimSpace(germanText(t)), "\n")
	var neg, pos []string
	for _, l := range lines {
		if strings.HasPrefix(l, "-1") {
			neg = append(neg, l)
		} else {
			pos = append(pos, l)
		}
	}
	sorted := filepath.Join(dir, "sorted.svm")
	if err := os.WriteFile(sorted, []byte(strings.Join(append(neg, pos...), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "bogdbench train: warning: sorted.svm: the labels come sorted: the label changes 1 time between consecutive rows, where a random order of the same labels changes it about 420 times."
	if code, _, stderr := bench(t, "train", "--data", sorted, "-q"); code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("sorted labels: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := bench(t, "train", "--data", sorted, "-q", "--shuffle"); code != 0 || strings.Contains(stderr, "sorted") {
		t.Errorf("sorted labels, shuffled: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := bench(t, "train", "--data", germanPath, "-q"); code != 0 || strings.Contains(stderr, "sorted") {
		t.Errorf("german's own order is no sorted one: exit %d\n%s", code, stderr)
	}
	reg := writeData(t, dir, "reg.svm", 300, target)
	text, _ := os.ReadFile(reg)
	regLines := strings.Split(strings.TrimSpace(string(text)), "\n")
	slicesSortByLabel(regLines)
	sortedReg := filepath.Join(dir, "sorted-reg.svm")
	os.WriteFile(sortedReg, []byte(strings.Join(regLines, "\n")+"\n"), 0o644)
	if code, _, stderr := bench(t, "train", "--data", sortedReg, "--task", "regression", "-q"); code != 0 || !strings.Contains(stderr, "the labels come sorted: the label rises from one row to the next in 100% of the file") {
		t.Errorf("sorted targets: exit %d\n%s", code, stderr)
	}
}

// slicesSortByLabel sorts LIBSVM lines by their numeric label.
func slicesSortByLabel(lines []string) {
	label := func(l string) float64 {
		v, _ := strconv.ParseFloat(strings.Fields(l)[0], 64)
		return v
	}
	for i := 1; i < len(lines); i++ {
		for j := i; j > 0 && label(lines[j]) < label(lines[j-1]); j-- {
			lines[j], lines[j-1] = lines[j-1], lines[j]
		}
	}
}

// TestTrainTest: --test judges the trained model on a held-out file, as
// predict does with the saved model, and warns when the model does not
// beat the trivial predictor there.
func TestTrainTest(t *testing.T) {
	dir := t.TempDir()
	multi := writeData(t, dir, "multi.svm", 300, classes)
	model := filepath.Join(dir, "m.bogd")
	code, _, stderr := bench(t, "train", "--data", multi, "--budget", "40", "--sigma", "2", "--save", model, "--test", multi)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	_, _, report := bench(t, "predict", "--model", model, "--data", multi, "--output", filepath.Join(dir, "p.txt"))
	held := stderr[strings.Index(stderr, "bogdbench train: held out (--test "+multi+"): the trained model predicts every row, learning none\n"):]
	held = held[strings.Index(held, "\n")+1:]
	held = held[:strings.Index(held, "bogdbench train: saved")]
	if !strings.HasSuffix(report, held) || !strings.Contains(held, "baseline      ") || !strings.Contains(held, "log loss: ") {
		t.Errorf("--test reported\n%s\npredict\n%s", held, report)
	}
	// Held out with every label flipped: what the model learnt is wrong.
	flipped := filepath.Join(dir, "flipped.svm")
	text := strings.NewReplacer("\n-1 ", "\n+x ", "\n+1 ", "\n-1 ").Replace("\n" + germanText(t))
	if err := os.WriteFile(flipped, []byte(strings.ReplaceAll(text[1:], "+x ", "+1 ")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := bench(t, "train", "--data", germanPath, "--scale", "none", "--sigma", "30", "-q", "--test", flipped); code != 0 ||
		!strings.Contains(stderr, "bogdbench train: warning: held out ("+flipped+"): the model's mistake rate") {
		t.Errorf("a model no better than the trivial predictor: exit %d\n%s", code, stderr)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--data", "-", "--test", "-"}, 2, "--test - and the training data both read standard input"},
		{[]string{"--data", germanPath, "--test", filepath.Join(dir, "none.svm")}, 1, "--test: " + filepath.Join(dir, "none.svm") + ": open: no such file or directory"},
		{[]string{"--data", germanPath, "--test", multi}, 1, "--test " + multi + ": the rows have no labels of the model's task"},
	} {
		code, _, stderr := bench(t, append([]string{"train", "-q"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d\n%s\nwant %q", c.args, code, stderr, c.want)
		}
	}
}

// TestPredictUnlabelled: rows without labels are predicted as the same
// rows with labels, with no summary, one line each (a row whose features
// are all zero, a label alone, is a blank line without it); a file mixing
// both is an error naming the line. The summary of labelled rows has the
// trivial predictor.
func TestPredictUnlabelled(t *testing.T) {
	model := trainGerman(t, t.TempDir())
	lines := strings.Split(strings.TrimSpace(germanText(t)), "\n")[:20]
	lines = slices.Insert(lines, 7, "-1")
	var bare []string
	for _, l := range lines {
		_, features, _ := strings.Cut(l, " ")
		bare = append(bare, features)
	}
	code, want, labelled := benchStdin(t, strings.Join(lines, "\n"), "predict", "--model", model)
	if code != 0 || !strings.Contains(labelled, "baseline      ") {
		t.Fatalf("labelled: exit %d\n%s", code, labelled)
	}
	code, got, stderr := benchStdin(t, strings.Join(bare, "\n"), "predict", "--model", model)
	if code != 0 || got != want || stderr != "" {
		t.Errorf("unlabelled: exit %d\n%s\nwant\n%s\nstderr %q", code, got, want, stderr)
	}
	mixed := strings.Join(append(bare[:3:3], lines[3:5]...), "\n")
	code, _, stderr = benchStdin(t, mixed, "predict", "--model", model)
	if wantErr := fmt.Sprintf("<stdin>:4: the row has a label (%q), but the row of line 1 has none", strings.Fields(lines[3])[0]); code != 1 || !strings.Contains(stderr, wantErr) {
		t.Errorf("mixed: exit %d, %q; want %q", code, stderr, wantErr)
	}
	if code, _, stderr := benchStdin(t, strings.Join(bare, "\n"), "train"); code != 1 || !strings.Contains(stderr, `<stdin>:1: invalid label "1:1": the row has no label, its first token is a feature`) {
		t.Errorf("train on unlabelled rows: exit %d, %q", code, stderr)
	}
}

// TestPredictLabelAgreesWithProbability: every binary prediction printed
// has the label of probability at least 0.5, the library's meaning.
func TestPredictLabelAgreesWithProbability(t *testing.T) {
	model := trainGerman(t, t.TempDir())
	code, stdout, stderr := bench(t, "predict", "--model", model, "--data", germanPath)
	if code != 0 {
		t.Fatal(stderr)
	}
	for i, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		f := strings.Fields(line)
		p, err := strconv.ParseFloat(f[2], 64)
		if err != nil || (f[0] != "1" && f[0] != "-1") || p < 0.5 || p > 1 {
			t.Fatalf("row %d: %q: the label's probability is below 0.5", i+1, line)
		}
	}
}

// TestDefaultScaling: raw features whose ranges are orders of magnitude
// apart (as svmguide1's, −4.6…581) are learnt without a flag: train
// divides each by its largest absolute value, measured on the data, with
// σ the median distance after it; the model holds the scaling, so that
// predict takes raw rows. Raw, the wide feature decides every distance:
// BOGD++ at the median distance learns nothing.
func TestDefaultScaling(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "wide.svm")
	var b strings.Builder
	r := rand.New(rand.NewPCG(3, 3))
	for range 600 {
		small, wide := 10*r.Float64()-4.6, 600*r.Float64()
		label := "-1"
		if small > 0.4 {
			label = "+1"
		}
		fmt.Fprintf(&b, "%s 1:%.3f 2:%.1f\n", label, small, wide)
	}
	os.WriteFile(data, []byte(b.String()), 0o644)
	model := filepath.Join(dir, "wide.bogd")
	code, _, stderr := bench(t, "train", "--data", data, "--save", model)
	if code != 0 || strings.Contains(stderr, "warning") || !strings.Contains(stderr, "--sigma auto: σ = ") {
		t.Fatalf("default train: exit %d\n%s", code, stderr)
	}
	m := regexp.MustCompile(`mistake rate ([0-9.]+)% \(progressive validation; the trivial predictor, the most frequent label before each: ([0-9.]+)%\)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no summary in\n%s", stderr)
	}
	if rate, base := atof(t, m[1]), atof(t, m[2]); !(rate < base/2) {
		t.Errorf("scaled: %v%% against the trivial predictor's %v%%", rate, base)
	}
	l, err := bogd.LoadFile(model)
	if err != nil || l.Input().Scaling == nil || l.Input().Scaling.Method() != "maxabs" {
		t.Fatalf("the model's input: %+v, %v", l.Input(), err)
	}
	if code, _, stderr := bench(t, "predict", "--model", model, "--data", data, "--output", filepath.Join(dir, "p.txt")); code != 0 || strings.Contains(stderr, "warning") {
		t.Errorf("predict on raw rows: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := bench(t, "train", "--data", data, "--algo", "bogd++", "--scale", "none", "-q"); code != 0 || !strings.Contains(stderr, "below the trivial predictor's") {
		t.Errorf("raw: exit %d\n%s", code, stderr)
	}
	// tune's records say how the data were scaled.
	results := filepath.Join(dir, "runs.jsonl")
	if code, _, stderr := bench(t, "tune", "--data", data, "--algo", "fogd", "--budget", "20", "--select-runs", "1", "--runs", "1", "--results", results, "-q"); code != 0 ||
		!strings.Contains(string(readFile(t, results)), `"scaling":"maxabs"`) {
		t.Errorf("tune: exit %d\n%s", code, stderr)
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestStreamHead: a stream learnt as it comes is scaled by its first
// rows (a bounded look-ahead, streamHead rows), which σ auto measures too;
// the rows after them are learnt with the same scaling.
func TestStreamHead(t *testing.T) {
	var b strings.Builder
	r := rand.New(rand.NewPCG(5, 5))
	peak := [2]float64{}
	for i := range 1500 {
		small, wide := 10*r.Float64()-4.6, 600*r.Float64()
		if i >= streamHead {
			wide *= 2 // beyond the head's range
		} else {
			peak[0], peak[1] = max(peak[0], math.Abs(math.Round(small*1000)/1000)), max(peak[1], math.Round(wide*10)/10)
		}
		label := "-1"
		if small > 0.4 {
			label = "+1"
		}
		fmt.Fprintf(&b, "%s 1:%.3f 2:%.1f\n", label, small, wide)
	}
	model := filepath.Join(t.TempDir(), "stream.bogd")
	code, _, stderr := benchStdin(t, b.String(), "train", "--task", "binary", "--dim", "2", "--lambda", "0", "--save", model)
	if code != 0 || !strings.Contains(stderr, "a stream of rows of 2 features, learnt as they come") || !strings.Contains(stderr, "--sigma auto: σ = ") ||
		!strings.Contains(stderr, "over all pairs of 1000 rows") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	l, err := bogd.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	in := l.Input()
	var row prep.Row
	if err := in.PrepareIndexed(&row, []int32{0, 1}, []float32{float32(peak[0]), float32(peak[1])}, 2); err != nil || in.Scaling.Method() != "maxabs" ||
		!slices.Equal(row.Value, []float32{1, 1}) {
		t.Errorf("the head's peaks %v scale to %v (%v), want 1 and 1", peak, row.Value, err)
	}
	if strings.Contains(stderr, "warning") {
		t.Errorf("warnings:\n%s", stderr)
	}
}

// TestAutoDefault: train, run and tune run auto, the learner with nothing
// to tune, unless told otherwise; tune's row of it is its held-out
// estimate at the median distance, and --save trains what the printed
// command trains.
func TestAutoDefault(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := bench(t, "train", "--data", germanPath)
	if code != 0 || !strings.Contains(stderr, "bogdbench train: binary auto, budget 100, widths 1.94639·2^k (k = 1 … −4) and the linear kernel over 400 random features") {
		t.Errorf("train: exit %d\n%s", code, stderr)
	}
	rows, _ := runJSON(t, "--data", germanPath, "--runs", "1")
	if len(rows) != 1 || rows[0]["algorithm"] != "auto" || rows[0]["scale"] != "maxabs" {
		t.Errorf("run: %v", rows)
	}
	tuned := filepath.Join(dir, "tuned.bogd")
	code, stdout, stderr := bench(t, "tune", "--data", germanPath, "--runs", "2", "--save", tuned, "-q")
	if code != 0 || !regexp.MustCompile(`(?m)^auto +100 +σ=1\.95, the centre of its widths +- \(nothing to select\) +[0-9.]+ ± `).MatchString(stdout) {
		t.Fatalf("tune: exit %d\n%s%s", code, stdout, stderr)
	}
	line := regexp.MustCompile(`bogdbench train --data .*`).FindString(stdout)
	if !strings.Contains(line, "--algo auto --budget 100 --sigma 1.9463856853450685") {
		t.Fatalf("the train command %q", line)
	}
	again := filepath.Join(dir, "again.bogd")
	if code, _, stderr := bench(t, append(strings.Fields(line)[1:], "--save", again, "-q")...); code != 0 || !bytes.Equal(readFile(t, tuned), readFile(t, again)) {
		t.Errorf("the printed command: exit %d, %s; the same model: %v", code, stderr, bytes.Equal(readFile(t, tuned), readFile(t, again)))
	}
}
