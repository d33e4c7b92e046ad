package experiment

import (
	"math"
	"slices"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/task"
)

// Points varies exactly what a rule reads in a task, λ first, then η, γ,
// C and σ, each in its list's order.
func TestPointsFollowParams(t *testing.T) {
	g := Grid{LambdaT2: []float64{1}, AbsLambda: []float64{1e-5}, Eta: []float64{0.2, 2}, Gamma: []float64{10}, C: []float64{0.1, 1}}
	count := func(a bogd.Algorithm, tk task.Task) int { return len(g.Points(a, tk)) }
	for _, c := range []struct {
		algo bogd.Algorithm
		task task.Task
		want int
	}{
		{bogd.BOGD, task.Binary, 2 * 2 * 1}, {bogd.OGD, task.Multiclass, 2 * 2}, {bogd.BPAS, task.Regression, 2},
		{bogd.Perceptron, task.Binary, 1}, {bogd.Perceptron, task.Regression, 2}, {bogd.BSGDMerge, task.Binary, 2},
		{bogd.NOGD, task.Multiclass, 2},
	} {
		if got := count(c.algo, c.task); got != c.want {
			t.Errorf("%v %v: %d points, want %d", c.algo, c.task, got, c.want)
		}
	}
	want := []Params{
		{LambdaT2: 1, Eta: 0.2, Gamma: 10}, {LambdaT2: 1, Eta: 2, Gamma: 10},
		{AbsLambda: 1e-5, Eta: 0.2, Gamma: 10}, {AbsLambda: 1e-5, Eta: 2, Gamma: 10},
	}
	if got := g.Points(bogd.BOGDpp, task.Regression); !slices.Equal(got, want) {
		t.Fatalf("BOGD++ points %v, want %v", got, want)
	}
	g.Sigma = []float64{1, 8}
	if got := g.Points(bogd.RBP, task.Multiclass); !slices.Equal(got, []Params{{Sigma: 1}, {Sigma: 8}}) {
		t.Fatalf("with widths, RBP varies σ: %v", got)
	}
	if got := len(g.Points(bogd.BOGD, task.Binary)); got != 8 {
		t.Fatalf("BOGD with two widths: %d points", got)
	}
	if got := g.Describe(); got != "λ ∈ {1} / T² ∪ {1e-05}, η ∈ {0.2, 2}, γ ∈ {10}, C ∈ {0.1, 1}, σ ∈ {1, 8}" {
		t.Fatalf("Describe: %s", got)
	}
	p := Params{Eta: 0.5, AbsLambda: 0.03, C: 2, Sigma: 4}
	if got := p.Describe(bogd.NORMA, task.Regression); got != "η=0.5, λ=0.03, σ=4" {
		t.Fatalf("NORMA: %s", got)
	}
	if got := (Params{Eta: 0.5, LambdaT2: 1, Gamma: 4}).Describe(bogd.BOGD, task.Binary); got != "η=0.5, λT²=1, γ=4" {
		t.Fatalf("BOGD: %s", got)
	}
	if got := (Params{}).Describe(bogd.RBP, task.Binary); got != "-" {
		t.Fatalf("RBP: %s", got)
	}
}

// A plan's keys carry the task's settings only where a rule reads them,
// and a dataset's own widths replace the grid's.
func TestPlanKeys(t *testing.T) {
	p := &Plan{Grid: Grid{Eta: []float64{0.1}, AbsLambda: []float64{0.03}}, Widths: map[string][]float64{"mg": {0.25, 0.5}}, Sigma: 8,
		Task: task.Regression, Scaling: ScalingMinMax, Epsilon: 0.1, Nu: 0.4, RankFactor: 0.2, FeatureFactor: 15, SelectRuns: 1}
	norma := Cell{Dataset: "mg", Algo: bogd.NORMA}
	nogd := Cell{Dataset: "housing", Algo: bogd.NOGD, Budget: 30}
	if got := p.Points(norma); len(got) != 2 || got[1].Sigma != 0.5 {
		t.Fatalf("mg's widths: %v", got)
	}
	k := p.job(norma, p.Points(norma)[1], StreamSelect, 0, 1).Key
	if k.Sigma != 0.5 || k.Nu != 0.4 || k.Epsilon != 0.1 || k.Rank != 0 || k.Task != "regression" || k.Scaling != ScalingMinMax || k.AbsLambda != 0.03 {
		t.Fatalf("NORMA key %+v", k)
	}
	k = p.job(nogd, p.Points(nogd)[0], StreamSelect, 0, 1).Key
	if k.Sigma != 8 || k.Nu != 0 || k.Rank != 6 || k.AbsLambda != 0 || k.Eta != 0.1 {
		t.Fatalf("NOGD key %+v", k)
	}
	binary := &Plan{Sigma: 8, Projection: bogd.RescaleAll}
	k = binary.job(Cell{Dataset: "german", Algo: bogd.BOGD, Budget: 100}, Params{Eta: 1, LambdaT2: 1, Gamma: 2}, StreamReport, 3, 1).Key
	if want := (Key{Dataset: "german", Algorithm: "bogd", Budget: 100, Eta: 1, LambdaT2: 1, Gamma: 2, Stream: StreamReport, Run: 3, Seed: 1, Sigma: 8, Projection: "rescale"}); k != want {
		t.Fatalf("binary key %+v, want %+v", k, want)
	}
}

// MedianDistance is the median over the pairs of its seeded sample:
// checked against a direct computation, with an odd and an even number of
// pairs.
func TestMedianDistance(t *testing.T) {
	d := german(t)
	for _, sample := range []int{3, 4, 50} {
		rows := Permutation(5, 0, d.Len())[:sample]
		var dists []float64
		for i := range rows {
			for j := range i {
				a, b := d.Dense(rows[i], nil), d.Dense(rows[j], nil)
				var ss float64
				for k := range a {
					ss += float64(a[k]-b[k]) * float64(a[k]-b[k])
				}
				dists = append(dists, math.Sqrt(ss))
			}
		}
		slices.Sort(dists)
		want := dists[len(dists)/2]
		if len(dists)%2 == 0 {
			want = (dists[len(dists)/2-1] + dists[len(dists)/2]) / 2
		}
		if got := MedianDistance(d, sample, 5); math.Abs(got-want) > 1e-9*want {
			t.Errorf("sample %d: %v, want %v", sample, got, want)
		}
	}
	if a, b := MedianDistance(d, 100, 1), MedianDistance(d, 100, 2); a == b {
		t.Errorf("the seed changes nothing: %v", a)
	}
	if got := MedianDistance(d, 5000, 1); got != MedianDistance(d, d.Len(), 1) {
		t.Errorf("a sample beyond the rows is all of them: %v", got)
	}
}

// FOGD's key carries its D = FeatureFactor·B.
func TestPlanFeatures(t *testing.T) {
	p := &Plan{Sigma: 8, Task: task.Multiclass, FeatureFactor: 4, RankFactor: 0.2}
	k := p.job(Cell{Dataset: "dna", Algo: bogd.FOGD, Budget: 200}, Params{Eta: 0.005}, StreamSelect, 0, 1).Key
	if k.Features != 800 || k.Rank != 0 || k.Task != "multiclass" {
		t.Fatalf("FOGD key %+v", k)
	}
	if DisplayName(bogd.FOGD) != "FOGD" {
		t.Fatal(DisplayName(bogd.FOGD))
	}
}
