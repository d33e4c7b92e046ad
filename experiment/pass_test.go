package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/cputime"
	"github.com/bogd-project/bogd/task"
)

// germanPath is the bundled copy of shared/datasets/german.svm.gz.
const germanPath = "../dataset/testdata/german.svm.gz"

func german(t *testing.T) *dataset.Dataset {
	t.Helper()
	d, err := dataset.ReadFile(germanPath, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// scripted is an Online that makes a mistake on the rows it lists.
type scripted struct {
	wrong map[int]bool
	steps int
}

func (s *scripted) Step(row int) (Loss, error) {
	s.steps++
	return Loss{Mistake: s.wrong[row]}, nil
}

func (s *scripted) SupportVectors() int { return s.steps / 2 }

func (s *scripted) Task() task.Task { return task.Binary }

func TestPassCountsAndCheckpoints(t *testing.T) {
	order := []int{4, 0, 3, 1, 2}
	s := &scripted{wrong: map[int]bool{0: true, 2: true}}
	res, err := Pass(context.Background(), s, order, []int{1, 2, 5})
	if err != nil {
		t.Fatal(err)
	}
	// Row 0 is second, row 2 last: 0 mistakes after 1 row, 1 after 2, 2 after 5.
	if res.Mistakes != 2 || res.SupportVectors != 2 || !slices.Equal(res.Checkpoints, []int{0, 1, 2}) || !(res.Seconds >= 0) {
		t.Fatalf("%+v", res)
	}
	if res, _ := Pass(context.Background(), &scripted{}, order, nil); res.Checkpoints != nil {
		t.Fatalf("checkpoints %v without positions", res.Checkpoints)
	}
}

func TestPassStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &scripted{}
	if _, err := Pass(ctx, s, make([]int, 5000), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled pass: %v", err)
	}
	if s.steps != 1023 {
		t.Fatalf("%d steps before noticing the cancellation, want 1023", s.steps)
	}
}

// A pass measures the CPU time of the thread that ran it: some, where
// the system tells a thread's time (Linux), and no more than the wall
// clock allows; the results files leave it out.
func TestPassMeasuresItsCPU(t *testing.T) {
	if _, ok := cputime.Thread(); !ok {
		t.Skip("this system does not report a thread's CPU time")
	}
	data := german(t)
	l, err := bogd.New(bogd.BOGD, bogd.Config{Dim: data.Dim, Budget: 50, Sigma: 8, Eta: 0.2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	order := Permutation(1, 0, data.Len())
	for range 3 {
		order = append(order, order[:data.Len()]...)
	}
	res, err := Pass(context.Background(), Bind(l, data), order, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !(res.CPUSeconds > 0) || res.CPUSeconds > res.Seconds+0.01 {
		t.Fatalf("a pass of %v on the wall took %v of CPU", res.Seconds, res.CPUSeconds)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "cpu") {
		t.Fatalf("the record holds the CPU time: %s", b)
	}
}

// The adapter of a binary learner is exactly a loop of Learn calls, and
// its errors name the dataset and the 1-based row.
func TestBindIsLearn(t *testing.T) {
	data := german(t)
	n := data.Len()
	cfg := bogd.Config{Dim: data.Dim, Budget: 50, Sigma: 8, Eta: 0.25, Lambda: 1 / float64(n*n), Gamma: 1, Seed: LearnerSeed(1, 0)}
	order := Permutation(1, 0, n)
	a, _ := bogd.New(bogd.BOGDpp, cfg)
	res, err := Pass(context.Background(), Bind(a, data), order, Checkpoints(n))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := bogd.New(bogd.BOGDpp, cfg)
	mistakes := 0
	for _, row := range order {
		idx, val := data.Row(row)
		out, err := b.Learn(engine.Sparse(idx, val), data.Labels[row])
		if err != nil {
			t.Fatal(err)
		}
		if out.Mistake {
			mistakes++
		}
	}
	if res.Mistakes != mistakes || res.SupportVectors != b.SupportVectors() || res.Checkpoints[len(res.Checkpoints)-1] != mistakes ||
		res.SquaredError != 0 || res.ErrorCheckpoints != nil {
		t.Fatalf("pass %+v, loop %d mistakes, %d support vectors", res, mistakes, b.SupportVectors())
	}
	narrow, _ := bogd.New(bogd.RBP, bogd.Config{Dim: 3, Budget: 10, Sigma: 8})
	if _, err := Bind(narrow, data).Step(6); err == nil || !strings.HasPrefix(err.Error(), "german.svm.gz:7: ") {
		t.Fatalf("a row wider than the learner: %v", err)
	}
}

// noLookahead hides a bound learner's lookahead from Pass.
type noLookahead struct{ Online }

// A pass that asks for rows ahead (a bound learner) runs the same steps
// as one that does not, over the same order; its errors name the row of
// the data, by its file's line when it has one.
func TestLookaheadIsPass(t *testing.T) {
	data := german(t)
	n := data.Len()
	cfg := bogd.Config{Dim: data.Dim, Budget: 50, Sigma: 8, Eta: 0.25, Lambda: 1 / float64(n*n), Gamma: 1, Seed: LearnerSeed(1, 0)}
	order := Permutation(1, 0, n)
	a, _ := bogd.New(bogd.BOGDpp, cfg)
	bound := Bind(a, data)
	if _, ok := bound.(lookahead); !ok {
		t.Fatal("a bound learner does not ask for rows ahead")
	}
	want, err := Pass(context.Background(), noLookahead{Bind(a, data)}, order, Checkpoints(n))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := bogd.New(bogd.BOGDpp, cfg)
	got, err := Pass(context.Background(), Bind(b, data), order, Checkpoints(n))
	if err != nil {
		t.Fatal(err)
	}
	if got.Mistakes != want.Mistakes || got.SupportVectors != want.SupportVectors || !slices.Equal(got.Checkpoints, want.Checkpoints) {
		t.Fatalf("with lookahead %+v, without %+v", got, want)
	}
	var sa, sb strings.Builder
	if err := a.Save(&sa); err != nil {
		t.Fatal(err)
	}
	if err := b.Save(&sb); err != nil {
		t.Fatal(err)
	}
	if sa.String() != sb.String() {
		t.Fatal("the learners of the passes with and without lookahead differ")
	}
	narrow, _ := bogd.New(bogd.RBP, bogd.Config{Dim: 3, Budget: 10, Sigma: 8})
	if _, err := Pass(context.Background(), Bind(narrow, data), []int{6, 0}, nil); err == nil || !strings.HasPrefix(err.Error(), "german.svm.gz:7: ") || strings.Contains(err.Error(), "example") {
		t.Fatalf("a row wider than the learner: %v", err)
	}
	first := data.Subset([]int{0, 1, 2, 3, 4, 5, 6}) // copied without the lines of their file:
	made := &dataset.Dataset{Name: "made", Dim: first.Dim, Task: first.Task, Labels: first.Labels, RowPtr: first.RowPtr, Index: first.Index, Value: first.Value}
	if _, err := Pass(context.Background(), Bind(narrow, made), []int{6, 0}, nil); err == nil || !strings.HasPrefix(err.Error(), "made row 7: ") {
		t.Fatalf("a row wider than the learner, in rows from no file: %v", err)
	}
}

// regressionData is german's features with a real target: the first
// feature over 10.
func regressionData(t *testing.T) *dataset.Dataset {
	t.Helper()
	d, err := german(t).Resolve(task.Regression, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Labels {
		idx, val := d.Row(i)
		d.Labels[i] = 0
		if len(idx) > 0 && idx[0] == 0 {
			d.Labels[i] = float64(val[0]) / 10
		}
	}
	return d
}

// A regression pass sums (y − ŷ)² of the predictions made before each
// update, with the cumulative sums at the checkpoints, and counts no
// mistakes.
func TestPassSumsSquaredErrors(t *testing.T) {
	data := regressionData(t)
	n := data.Len()
	cfg := bogd.Config{Task: task.Regression, Dim: data.Dim, Budget: 30, Sigma: 8, Eta: 0.1, Gamma: 10, Epsilon: 0.1, Seed: 3}
	order := Permutation(2, 0, n)
	at := Checkpoints(n)
	a, _ := bogd.New(bogd.BOGD, cfg)
	res, err := Pass(context.Background(), Bind(a, data), order, at)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := bogd.New(bogd.BOGD, cfg)
	var sum float64
	var sums []float64
	for i, row := range order {
		idx, val := data.Row(row)
		step, err := b.Learn(engine.Sparse(idx, val), data.Labels[row])
		if err != nil {
			t.Fatal(err)
		}
		r := data.Labels[row] - step.Label
		sum += r * r
		if slices.Contains(at, i+1) {
			sums = append(sums, sum)
		}
	}
	if res.SquaredError != sum || !slices.Equal(res.ErrorCheckpoints, sums) || res.Mistakes != 0 || res.Checkpoints != nil || !(sum > 0) {
		t.Fatalf("pass: error %v, checkpoints %d, mistakes %d; loop: error %v", res.SquaredError, len(res.ErrorCheckpoints), res.Mistakes, sum)
	}
	if got, want := res.Metric(n, task.Regression), sum/float64(n); got != want {
		t.Fatalf("metric %v, want the MSE %v", got, want)
	}
}

// A multi-class pass counts the wrong labels Learn reports.
func TestPassCountsMulticlassMistakes(t *testing.T) {
	data := german(t)
	multi, err := data.Resolve(task.Multiclass, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, y := range multi.Labels { // three classes: −1, +1 and rows without feature 1
		if idx, _ := multi.Row(i); len(idx) == 0 || idx[0] != 0 {
			multi.Labels[i] = 7
		} else {
			multi.Labels[i] = y
		}
	}
	multi.Classes = []int{-1, 1, 7}
	cfg := bogd.Config{Task: task.Multiclass, Classes: multi.Classes, Dim: multi.Dim, Budget: 40, Sigma: 8, Eta: 0.5, Gamma: 10, Seed: 1}
	order := Permutation(4, 1, multi.Len())
	a, _ := bogd.New(bogd.BOGDpp, cfg)
	res, err := Pass(context.Background(), Bind(a, multi), order, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := bogd.New(bogd.BOGDpp, cfg)
	mistakes := 0
	for _, row := range order {
		idx, val := multi.Row(row)
		step, _ := b.Learn(engine.Sparse(idx, val), multi.Labels[row])
		if step.Label != multi.Labels[row] {
			mistakes++
		}
	}
	if res.Mistakes != mistakes || mistakes == 0 || res.SquaredError != 0 {
		t.Fatalf("pass %d mistakes, loop %d", res.Mistakes, mistakes)
	}
}

// Stored results depend on the permutations and learner seeds: their
// values are pinned.
func TestPermutationAndSeedsNeverChange(t *testing.T) {
	if got := Permutation(1, 0, 10); !slices.Equal(got, []int{6, 3, 1, 9, 7, 4, 8, 2, 0, 5}) {
		t.Errorf("Permutation(1, 0, 10) = %v", got)
	}
	if got := Permutation(1<<32+1, 2, 8); !slices.Equal(got, []int{5, 1, 7, 2, 4, 0, 6, 3}) {
		t.Errorf("Permutation(2^32+1, 2, 8) = %v", got)
	}
	if got := LearnerSeed(1, 0); got != 11400714819323198486 {
		t.Errorf("LearnerSeed(1, 0) = %d", got)
	}
	if got := LearnerSeed(1<<32+1, 3); got != 2126250766343240729 {
		t.Errorf("LearnerSeed(2^32+1, 3) = %d", got)
	}
}

func TestCheckpoints(t *testing.T) {
	for _, n := range []int{1, 7, 100, 1000, 271617} {
		at := Checkpoints(n)
		if len(at) != min(n, CheckpointCount) || at[len(at)-1] != n || at[0] < 1 || !slices.IsSorted(at) {
			t.Fatalf("Checkpoints(%d) = %v", n, at)
		}
	}
	if got := Checkpoints(250)[:3]; !slices.Equal(got, []int{3, 5, 8}) {
		t.Fatalf("Checkpoints(250) starts %v, want ⌈2.5⌉, ⌈5⌉, ⌈7.5⌉", got)
	}
}

func TestMeanStdAndSummarize(t *testing.T) {
	if m, s := MeanStd([]float64{2, 4, 4, 4, 5, 5, 7, 9}); m != 5 || math.Abs(s-2.138089935299395) > 1e-12 {
		t.Errorf("MeanStd: %v, %v (want the n−1 deviation 2.138)", m, s)
	}
	if m, s := MeanStd([]float64{3}); m != 3 || s != 0 {
		t.Errorf("one value: %v, %v", m, s)
	}
	if m, s := MeanStd(nil); !math.IsNaN(m) || !math.IsNaN(s) {
		t.Errorf("no value: %v, %v", m, s)
	}
	s := Summarize([]Result{{Mistakes: 10, SupportVectors: 4, Seconds: 1, CPUSeconds: 0.5}, {Mistakes: 30, SupportVectors: 6, Seconds: 3, CPUSeconds: 1.5}}, 200, task.Binary)
	if s.Runs != 2 || s.Metric != 10 || math.Abs(s.MetricStd-math.Sqrt(50)) > 1e-12 || s.SupportVectors != 5 || s.Seconds != 2 || s.MaxSeconds != 3 || s.CPUSeconds != 1 {
		t.Errorf("Summarize: %+v", s)
	}
	s = Summarize([]Result{{SquaredError: 2, Seconds: 1}, {SquaredError: 6, Seconds: 0.5}}, 4, task.Regression)
	if s.Metric != 1 || math.Abs(s.MetricStd-math.Sqrt(0.5)) > 1e-12 || s.MaxSeconds != 1 {
		t.Errorf("Summarize regression: %+v", s)
	}
}

// A regression pass whose predictions blow up stops at the first
// non-finite error: its metric is +Inf, its record encodes.
func TestPassStopsWhenDiverged(t *testing.T) {
	data := regressionData(t)
	l, err := bogd.New(bogd.OGD, bogd.Config{Task: task.Regression, Dim: data.Dim, Sigma: 1000, Eta: 1e6, Epsilon: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Pass(context.Background(), Bind(l, data), Permutation(1, 0, data.Len()), Checkpoints(data.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if res.DivergedAt < 2 || res.DivergedAt >= data.Len() || math.IsInf(res.SquaredError, 0) || !math.IsInf(res.Metric(data.Len(), task.Regression), 1) ||
		len(res.ErrorCheckpoints) >= CheckpointCount {
		t.Fatalf("diverged at %d, error %v, %d checkpoints", res.DivergedAt, res.SquaredError, len(res.ErrorCheckpoints))
	}
	rec := &Record{Dataset: "d", Algorithm: "ogd", Stream: StreamSelect, Task: "regression", Rows: data.Len(), Result: res}
	if _, err := json.Marshal(rec); err != nil {
		t.Fatal(err)
	}
}
