package autotable

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/task"
)

// TestMaxAbs: every feature's largest absolute value becomes 1 (a column
// of zeros stays absent), rows keep their non-zeros, regression labels go
// to [0, 1], and the input is left alone; constant regression labels are
// an error naming the data.
func TestMaxAbs(t *testing.T) {
	d, err := dataset.Read(strings.NewReader("1.5 1:-4 3:2\n7.5 1:2 2:0.5\n-0.5 3:-8\n"), "toy", dataset.Options{Task: task.Regression})
	if err != nil {
		t.Fatal(err)
	}
	before := slices.Clone(d.Value)
	s, err := MaxAbs(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{-1, 0.25, 0.5, 1, -1}; !slices.Equal(s.Value, want) || !slices.Equal(s.Index, d.Index) {
		t.Errorf("values %v at %v, want %v at %v", s.Value, s.Index, want, d.Index)
	}
	if want := []float64{0.25, 1, 0}; !slices.Equal(s.Labels, want) {
		t.Errorf("labels %v, want %v", s.Labels, want)
	}
	if !slices.Equal(d.Value, before) || d.Labels[1] != 7.5 {
		t.Error("the input changed")
	}
	flat, err := dataset.Read(strings.NewReader("2 1:1\n2 1:3\n"), "flat", dataset.Options{Task: task.Regression})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := MaxAbs(flat); err == nil || !strings.Contains(err.Error(), "flat") {
		t.Errorf("constant labels: %v", err)
	}
	b, err := dataset.Read(strings.NewReader("+1 1:3\n-1 1:-6\n"), "b", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := MaxAbs(b); err != nil || !slices.Equal(s.Labels, b.Labels) || !slices.Equal(s.Value, []float32{0.5, -1}) {
		t.Errorf("binary: %v, %v", s, err)
	}
}

// TestTrivial: the trivial predictor's progressive loss, worked out by
// hand on one order of labels.
func TestTrivial(t *testing.T) {
	o := &Options{Runs: 1, Seed: 1}
	for _, c := range []struct {
		task   task.Task
		labels []float64
		want   func(order []int, y []float64) float64
	}{
		{task.Binary, []float64{-1, -1, 1, -1, 1, 1, 1}, func(order []int, y []float64) float64 {
			var mistakes float64 // the majority so far, +1 on a tie
			plus, minus := 0, 0
			for _, r := range order {
				guess := 1.0
				if minus > plus {
					guess = -1
				}
				if guess != y[r] {
					mistakes++
				}
				if y[r] > 0 {
					plus++
				} else {
					minus++
				}
			}
			return 100 * mistakes / float64(len(order))
		}},
		{task.Regression, []float64{3, 1, 4, 1, 5, 9, 2}, func(order []int, y []float64) float64 {
			var se, sum float64
			for i, r := range order {
				guess := 0.0
				if i > 0 {
					guess = sum / float64(i)
				}
				se += (y[r] - guess) * (y[r] - guess)
				sum += y[r]
			}
			return se / float64(len(order))
		}},
	} {
		d := &dataset.Dataset{Name: "toy", Dim: 1, Task: c.task, Labels: c.labels, RowPtr: make([]int, len(c.labels)+1)}
		order := experiment.Permutation(o.Seed, 0, len(c.labels))
		if got, want := o.trivial(d), c.want(order, c.labels); math.Abs(got-want) > 1e-12*want {
			t.Errorf("%v: %v, want %v", c.task, got, want)
		}
	}
	multi := &dataset.Dataset{Name: "m", Dim: 1, Task: task.Multiclass, Classes: []int{2, 5, 9}, Labels: []float64{9, 5, 9, 2, 5, 5}, RowPtr: make([]int, 7)}
	order := experiment.Permutation(o.Seed, 0, 6)
	counts := map[float64]int{}
	mistakes := 0
	for _, r := range order {
		guess := 2.0 // the most frequent so far, the lowest class on a tie
		for _, c := range []float64{2, 5, 9} {
			if counts[c] > counts[guess] {
				guess = c
			}
		}
		if guess != multi.Labels[r] {
			mistakes++
		}
		counts[multi.Labels[r]]++
	}
	if got, want := o.trivial(multi), 100*float64(mistakes)/6; math.Abs(got-want) > 1e-12 {
		t.Errorf("multi-class: %v, want %v", got, want)
	}
}

// TestJudge: the limit is max(1.5 points, 15%) above the best in
// classification, 15% in regression; the verdicts follow.
func TestJudge(t *testing.T) {
	for _, c := range []struct {
		task                 string
		tuned                []float64
		auto, trivial, limit float64
		within, beats        bool
	}{
		{"binary", []float64{8, 5, 6}, 6.4, 7, 6.5, true, true},
		{"binary", []float64{20, 30}, 23.5, 30, 23, false, true},
		{"multiclass", []float64{40}, 45, 44, 46, true, false},
		{"regression", []float64{0.02, 0.01}, 0.0114, 0.05, 0.0115, true, true},
	} {
		r := Row{Task: c.task, Auto: c.auto, Trivial: c.trivial}
		for _, m := range c.tuned {
			r.Tuned = append(r.Tuned, Tuned{Metric: m})
		}
		r.judge()
		if math.Abs(r.Limit-c.limit) > 1e-12 || r.Within != c.within || r.BeatsTrivial != c.beats || r.Tuned[r.Best].Metric != slices.Min(c.tuned) {
			t.Errorf("%+v: limit %v within %v beats %v best %d", c, r.Limit, r.Within, r.BeatsTrivial, r.Best)
		}
	}
}

func TestLookup(t *testing.T) {
	got, err := Lookup([]string{"casp", "german"})
	if err != nil || len(got) != 2 || got[0].Name != "german" || got[1].Name != "casp" {
		t.Errorf("%v, %v", got, err)
	}
	if _, err := Lookup([]string{"a9a"}); err == nil || !strings.Contains(err.Error(), "a9a") || !strings.Contains(err.Error(), "codrna") {
		t.Errorf("unknown name: %v", err)
	}
	if w := Widths(1.2345); len(w) != WidthHi-WidthLo+1 || w[0] != 0.0772 || w[len(w)-1] != 4.94 {
		t.Errorf("widths %v", w)
	}
}

// TestRun makes a small table end to end: two toy data sets (binary and
// regression) in a temporary directory, budget 8, then resumes it, which
// runs nothing again, and writes the report.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of small passes")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	var bin, reg strings.Builder
	for range 120 {
		x1, x2 := rng.NormFloat64(), 100*rng.NormFloat64() // columns 100 times apart
		y := "-1"
		if x1*x1+x2*x2/1e4 > 1 {
			y = "+1"
		}
		fmt.Fprintf(&bin, "%s 1:%.4f 2:%.4f\n", y, x1, x2)
		fmt.Fprintf(&reg, "%.4f 1:%.4f 2:%.4f\n", 50+10*math.Sin(x1)+rng.NormFloat64(), x1, x2)
	}
	for name, text := range map[string]string{"bin.svm": bin.String(), "reg.svm": reg.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := &Options{
		DatasetsDir: dir, Budget: 8, Runs: 2, SelectRuns: 1, Seed: 1, SelectSeed: 2, Workers: 2,
		Results:  filepath.Join(dir, "out", "runs.jsonl"),
		Datasets: []Dataset{{Name: "bin", File: "bin.svm"}, {Name: "reg", File: "reg.svm", Task: task.Regression}},
	}
	tab, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 2 || tab.Rows[0].Task != "binary" || tab.Rows[1].Task != "regression" {
		t.Fatalf("rows %+v", tab.Rows)
	}
	for _, r := range tab.Rows {
		if len(r.Tuned) != len(TunedAlgorithms(task.Regression)) && len(r.Tuned) != len(TunedAlgorithms(task.Binary)) {
			t.Errorf("%s: %d tuned learners", r.Dataset, len(r.Tuned))
		}
		if !(r.Auto >= 0) || !(r.Trivial > 0) || !(r.Limit > r.Tuned[r.Best].Metric) || r.Sigma <= 0 {
			t.Errorf("%s: %+v", r.Dataset, r)
		}
	}
	if _, err := Run(context.Background(), o); err == nil {
		t.Error("a second run without Resume overwrote the results")
	}
	o.Resume = true
	again, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := fmt.Sprint(again.Rows), fmt.Sprint(tab.Rows); a != b {
		t.Errorf("the resumed table differs:\n%s\n%s", a, b)
	}
	// A pass no plan holds, then pruned away: the table reads the rest.
	f, err := os.OpenFile(o.Results, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, `{"dataset":"other","algorithm":"fogd","rule":2,"budget":8,"eta":9,"lambda_t2":0,"gamma":0,"stream":"select","run":0,"seed":2,"sigma":1,"rows":120,"lambda":0,"mistakes":3,"support_vectors":0,"seconds":0.1,"simd":"generic"}`)
	f.Close()
	if err := again.Prune(o.Results); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(o.Results); err != nil || strings.Count(string(data), "\n") != tab.Passes || strings.Contains(string(data), `"other"`) {
		t.Errorf("pruned to %d lines (%v), the table reads %d passes", strings.Count(string(data), "\n"), err, tab.Passes)
	}
	if pruned, err := Run(context.Background(), o); err != nil || fmt.Sprint(pruned.Rows) != fmt.Sprint(tab.Rows) {
		t.Errorf("after pruning: %v", err)
	}
	if err := WriteReport(filepath.Join(dir, "out"), tab, Meta{CommandLine: "autotable (test)", Results: "runs.jsonl", Workers: 2}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "out", ReportName))
	if err != nil || !strings.Contains(string(md), "| bin | 120 |") || !strings.Contains(string(md), "## Regression (MSE)") {
		t.Errorf("report: %v\n%s", err, md)
	}
	rows, err := os.ReadFile(filepath.Join(dir, "out", RowsName))
	if err != nil {
		t.Fatal(err)
	}
	var r Row
	if err := json.Unmarshal([]byte(strings.SplitN(string(rows), "\n", 2)[0]), &r); err != nil || r.Dataset != "bin" {
		t.Errorf("rows file: %v, %+v", err, r)
	}
}

// TestExtensionLocal: a selection on an edge gets the next value past it
// (η, γ, C ten times, σ twice; λ only upwards), again from the new edge;
// an interior selection is no edge.
func TestExtensionLocal(t *testing.T) {
	x := newExtension(experiment.Grid{Eta: []float64{0.02, 0.2}, AbsLambda: []float64{1e-5, 1e-3}, LambdaT2: []float64{1}, Gamma: []float64{1, 10}, C: []float64{1}, Sigma: []float64{0.5, 1, 2}})
	g, edge := x.local(experiment.Params{Eta: 0.2, AbsLambda: 1e-5, Gamma: 10, Sigma: 1}, bogd.BOGD, task.Binary)
	if !edge || !slices.Equal(g.Eta, []float64{0.2, 2}) || !slices.Equal(g.AbsLambda, []float64{1e-5}) || !slices.Equal(g.Gamma, []float64{10, 100}) || !slices.Equal(g.Sigma, []float64{1}) {
		t.Errorf("first: %v %+v", edge, g)
	}
	g, edge = x.local(experiment.Params{Eta: 2, AbsLambda: 1e-3, Gamma: 10, Sigma: 0.5}, bogd.BOGD, task.Binary)
	if !edge || !slices.Equal(g.Eta, []float64{2, 20}) || !slices.Equal(g.AbsLambda, []float64{1e-3, 1e-2}) || !slices.Equal(g.Gamma, []float64{10}) || !slices.Equal(g.Sigma, []float64{0.5, 0.25}) {
		t.Errorf("second: %v %+v", edge, g)
	}
	if !slices.Equal(x.extended, []string{"η", "γ", "λ", "σ"}) {
		t.Errorf("extended %v", x.extended)
	}
	// BPA-S reads C only: one value is no edge, η is not its parameter.
	if g, edge := newExtension(x.grid).local(experiment.Params{C: 1, Sigma: 1}, bogd.BPAS, task.Binary); edge || len(g.Eta) != 0 {
		t.Errorf("BPA-S: %v %+v", edge, g)
	}
	if _, edge := newExtension(experiment.Grid{LambdaT2: []float64{1}, AbsLambda: []float64{1e-5, 1e-3}, Sigma: []float64{1, 2, 4}}).local(experiment.Params{LambdaT2: 1, Sigma: 2}, bogd.BSGDMerge, task.Binary); edge {
		t.Error("λ·T² and an interior σ made an edge")
	}
}
