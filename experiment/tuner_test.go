package experiment

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/task"
)

// A grid with Defaults holds every algorithm's own settings, each where it
// keeps a list ascending; Missing names what a grid lacks, and a plan of
// such a cell is an error before anything runs, never a panic.
func TestGridDefaultsAndMissing(t *testing.T) {
	g := Grid{Name: "quick", LambdaT2: []float64{1}, Eta: []float64{0.125, 0.5, 2}, Gamma: []float64{1, 4, 16}, Defaults: true}
	fogd := g.For(bogd.FOGD, task.Binary)
	if !slices.Equal(fogd.Eta, []float64{0.002, 0.125, 0.5, 2}) || !slices.Equal(g.Eta, []float64{0.125, 0.5, 2}) {
		t.Errorf("FOGD's η %v (the grid's %v), want its default 0.002 first", fogd.Eta, g.Eta)
	}
	bogdpp := g.For(bogd.BOGDpp, task.Binary)
	if !slices.Equal(bogdpp.Eta, []float64{0.125, 0.2, 0.5, 2}) || !slices.Equal(bogdpp.Gamma, []float64{1, 4, 10, 16}) || !slices.Equal(bogdpp.LambdaT2, []float64{1}) {
		t.Errorf("BOGD++: %+v", bogdpp)
	}
	bsgd := g.For(bogd.BSGDMerge, task.Binary)
	if !slices.Equal(bsgd.AbsLambda, []float64{1e-4}) {
		t.Errorf("BSGD-merge's Pegasos λ %v", bsgd.AbsLambda)
	}
	if got := g.For(bogd.BPAS, task.Binary).C; !slices.Equal(got, []float64{1}) {
		t.Errorf("BPA-S's C %v", got)
	}
	g.Defaults = false
	if m := g.Missing(bogd.BPAS, task.Binary); !slices.Equal(m, []string{"C"}) {
		t.Errorf("missing %v", m)
	}
	if n := len(g.Points(bogd.BPAS, task.Binary)); n != 0 {
		t.Errorf("%d points without a C", n)
	}
	plan := &Plan{
		Cells: []Cell{{Dataset: "german", Algo: bogd.Perceptron}, {Dataset: "german", Algo: bogd.BPAS, Budget: 20}},
		Grid:  g, Runs: 1, SelectRuns: 1, Seed: 1, SelectSeed: 2, Sigma: 8,
	}
	results := filepath.Join(t.TempDir(), "runs.jsonl")
	_, err := Execute(context.Background(), &Execution{Phase: PhaseAll, Workers: 1, Results: results}, &Tuning{Plan: plan, Data: german(t)})
	if err == nil || err.Error() != `german/bpas/B=20 reads C, but the grid "quick" lists no value of it` {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(results); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a plan that cannot run left %s: %v", results, err)
	}
}

// Edges: the selected value at either end of the two or more values the
// points hold, the value beyond one step of their spacing (×2 to ×10)
// away; λ over both of its forms.
func TestEdges(t *testing.T) {
	g := Grid{LambdaT2: []float64{1}, AbsLambda: []float64{1e-5, 1e-3}, Eta: []float64{0.125, 0.5, 2}, Gamma: []float64{10}, Sigma: []float64{8, 1, 2, 4}}
	points := g.Points(bogd.BOGDpp, task.Binary)
	const rows = 1000 // λ·T² = 1 is λ = 10⁻⁶, the smallest
	p := Params{LambdaT2: 1, Eta: 2, Gamma: 10, Sigma: 2}
	got := Edges(points, p, bogd.BOGDpp, task.Binary, rows)
	want := []Edge{{Param: "λT²", Value: 1, Low: true, Next: 0.1}, {Param: "η", Value: 2, Next: 8}}
	if !edgesNear(got, want) {
		t.Errorf("edges %+v, want %+v", got, want)
	}
	if q := got[1].Apply(p); q != (Params{LambdaT2: 1, Eta: 8, Gamma: 10, Sigma: 2}) {
		t.Errorf("the point beyond η: %+v", q)
	}
	p = Params{AbsLambda: 1e-3, Eta: 0.5, Gamma: 10, Sigma: 1}
	got = Edges(points, p, bogd.BOGDpp, task.Binary, rows)
	want = []Edge{{Param: "λ", Value: 1e-3, Next: 1e-2}, {Param: "σ", Value: 1, Low: true, Next: 0.5}}
	if !edgesNear(got, want) {
		t.Errorf("edges %+v, want %+v", got, want)
	}
	// A point beyond counts as tried.
	points = append(points, Params{AbsLambda: 1e-2, Eta: 0.5, Gamma: 10, Sigma: 1})
	if got := Edges(points, p, bogd.BOGDpp, task.Binary, rows); !edgesNear(got, want[1:]) {
		t.Errorf("edges %+v after λ = 0.01 was tried", got)
	}
	perceptron := g.Points(bogd.Perceptron, task.Binary)
	if got := Edges(perceptron, Params{Sigma: 8}, bogd.Perceptron, task.Binary, rows); !edgesNear(got, []Edge{{Param: "σ", Value: 8, Next: 16}}) {
		t.Errorf("perceptron edges %+v", got)
	}
	if e := (Edge{Param: "η", Value: 2, Next: 8}).String(); e != "η = 2 is the largest tried" {
		t.Error(e)
	}
	if e := (Edge{Param: "σ", Value: 8 * 8 / 1.9}).String(); e != "σ = 33.68 is the largest tried" {
		t.Error(e)
	}
}

func edgesNear(got, want []Edge) bool {
	return slices.EqualFunc(got, want, func(a, b Edge) bool {
		return a.Param == b.Param && a.Low == b.Low && math.Abs(a.Value-b.Value) <= 1e-12*b.Value && math.Abs(a.Next-b.Next) <= 1e-12*b.Next
	})
}

// A plan that keeps going puts a cell whose jobs fail out of the plan, and
// the other cells' selections and held-out runs survive it.
func TestKeepGoing(t *testing.T) {
	good, bad := Cell{Dataset: "german", Algo: bogd.Perceptron}, Cell{Dataset: "german", Algo: bogd.BPAS, Budget: 20}
	plan := &Plan{
		Cells: []Cell{bad, good},
		Grid:  Grid{Name: "test", C: []float64{-1, 1}, Sigma: []float64{4, 8}}, // BPA-S refuses C = −1
		Runs:  2, SelectRuns: 1, Seed: 1, SelectSeed: 2, Sigma: 8,
	}
	tu := &Tuning{Plan: plan, Data: german(t)}
	e := &Execution{Phase: PhaseAll, Workers: 2, Results: filepath.Join(t.TempDir(), "runs.jsonl")}
	if _, err := Execute(context.Background(), e, tu); err == nil || !strings.Contains(err.Error(), "C must be in (0, 1e15]") {
		t.Fatalf("without KeepGoing: %v", err)
	}
	plan.KeepGoing, e.Resume = true, true
	if _, err := Execute(context.Background(), e, tu); err != nil {
		t.Fatal(err)
	}
	if err := plan.Failed()[bad]; err == nil || !strings.Contains(err.Error(), "C must be in (0, 1e15]") || len(plan.Failed()) != 1 {
		t.Errorf("failed cells %v", plan.Failed())
	}
	if _, ok := tu.Selections[good]; !ok || len(tu.Reported[good]) != 2 || tu.Reported[bad] != nil {
		t.Errorf("selections %v, reported %d and %d runs", tu.Selections, len(tu.Reported[good]), len(tu.Reported[bad]))
	}
}

// A regression pass whose MSE exceeds the plan's Explode has diverged: its
// grid point is never selected; when every point diverged, a plan that
// keeps going puts the cell out.
func TestExplodedNeverSelected(t *testing.T) {
	data := regressionData(t)
	c := Cell{Dataset: "german", Algo: bogd.OGD}
	plan := &Plan{
		Cells: []Cell{c}, Task: task.Regression, Epsilon: 0.1,
		Grid: Grid{Name: "test", LambdaT2: []float64{1}, Eta: []float64{0.01, 0.1}, Sigma: []float64{8}},
		Runs: 1, SelectRuns: 2, Seed: 1, SelectSeed: 2, Sigma: 8,
	}
	rs := NewResultSet()
	for _, j := range plan.SelectJobs() {
		rec, err := RunJob(context.Background(), j, data)
		if err != nil {
			t.Fatal(err)
		}
		rs.Add(rec)
	}
	means, _ := plan.GridMeans(c, rs)
	best := means[0]
	if means[1].Mean < best.Mean {
		best = means[1]
	}
	worst := math.Max(means[0].Mean, means[1].Mean)
	// Between the two: the better one stays, the worse one diverged.
	plan.Explode = (best.Mean + worst) / 2
	sel, _ := plan.Select(c, rs)
	if sel.Params != best.Params || sel.Diverged != 1 || sel.Points != 2 {
		t.Errorf("selected %+v, want %+v with one point diverged", sel, best.Params)
	}
	// Below both: every point diverged.
	plan.Explode, plan.KeepGoing = best.Mean/2, true
	sels, err := plan.Selections(rs)
	if err != nil || len(sels) != 0 || plan.Failed()[c] == nil || plan.Failed()[c].Error() != "every one of its 2 grid points diverged" {
		t.Errorf("selections %v, %v; failed %v", sels, err, plan.Failed())
	}
}

// Run extends a cell's search where its selection lies on an edge, one
// parameter at a time from the selected point, until the point beyond is
// no longer better or Extend points were tried at that end, then reports
// as Execute does, and says which selections are still on an edge.
func TestTuningExtendsEdges(t *testing.T) {
	fogd, perceptron := Cell{Dataset: "german", Algo: bogd.FOGD, Budget: 20}, Cell{Dataset: "german", Algo: bogd.Perceptron}
	plan := &Plan{
		// german's raw features are hundreds apart: σ = 1 and 2 are far
		// too narrow for the perceptron.
		Cells: []Cell{fogd, perceptron}, Grid: Grid{Name: "test", Eta: []float64{0.5, 1}, Sigma: []float64{1, 2}},
		Runs: 2, SelectRuns: 2, Seed: 1, SelectSeed: 2, Sigma: 8,
	}
	tu := &Tuning{Plan: plan, Data: german(t), Extend: 3}
	e := &Execution{Phase: PhaseAll, Workers: 2, Results: filepath.Join(t.TempDir(), "runs.jsonl")}
	if _, err := tu.Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	// The perceptron: σ doubles three times, each better, and is still
	// the largest tried.
	x := tu.Extensions[perceptron]
	if len(x) != 3 {
		t.Fatalf("the perceptron's extensions %+v", x)
	}
	for i, want := range []float64{4, 8, 16} {
		if x[i].Param != "σ" || x[i].Low || x[i].Next != want || x[i].Point != (Params{Sigma: want}) || !x[i].Taken || !(x[i].After < x[i].Before) {
			t.Errorf("extension %d: %+v, want σ = %v taken", i, x[i], want)
		}
	}
	if sel := tu.Selections[perceptron]; sel.Params.Sigma != 16 || sel.Points != 5 || len(tu.Edges[perceptron]) != 1 || tu.Edges[perceptron][0].Param != "σ" {
		t.Errorf("the perceptron selected %+v, edges %v", sel, tu.Edges[perceptron])
	}
	// FOGD: every extension moves one parameter of the selected point; the
	// selection never gets worse, and moves to a point beyond only when it
	// is better (two edges extended at once may each be better than
	// before, and only one selected).
	fx := tu.Extensions[fogd]
	if len(fx) == 0 {
		t.Fatal("FOGD extended nothing from σ ∈ {1, 2}")
	}
	for i, x := range fx {
		if math.IsNaN(x.After) || x.After > x.Before || x.Taken && !(x.After < x.Before) {
			t.Errorf("FOGD extension %d: %+v: %v %v %v %v", i, x.Edge, x.Point, x.Before, x.After, x.Taken)
		}
	}
	if got, want := len(plan.Points(fogd)), 4+len(fx); got != want {
		t.Errorf("FOGD tried %d points, want the grid's 4 and %d beyond", got, len(fx))
	}
	for _, c := range plan.Cells {
		if len(tu.Reported[c]) != 2 {
			t.Errorf("%v: %d held-out runs", c, len(tu.Reported[c]))
		}
	}
}

// The trivial predictor's passes: the most frequent label so far, or the
// running mean, over a plan's permutations.
func TestTrivialPasses(t *testing.T) {
	data := german(t)
	plan := &Plan{Runs: 3, SelectRuns: 1, Seed: 1, SelectSeed: 2}
	res, err := plan.Trivial(context.Background(), data, StreamReport)
	if err != nil || len(res) != 3 {
		t.Fatal(res, err)
	}
	// german has 700 of 1000 rows of one label: a bit over 30% mistakes.
	for _, r := range res {
		if rate := r.Metric(data.Len(), task.Binary); rate < 30 || rate > 33 {
			t.Errorf("mistake rate %v", rate)
		}
	}
	reg := regressionData(t)
	rres, err := plan.Trivial(context.Background(), reg, StreamSelect)
	if err != nil || len(rres) != 1 || !(rres[0].SquaredError > 0) {
		t.Fatal(rres, err)
	}
}
