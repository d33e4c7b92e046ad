package bogd

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
	"github.com/bogd-project/bogd/task"
)

// stream is a labelled sequence of sparse examples.
type stream struct {
	dim    int
	xs     []engine.Vector
	labels []int
}

// syntheticStream draws two noisy Gaussian classes with exact duplicates
// mixed in, so that projections meet degenerate (repeated) points.
func syntheticStream(n, dim int, seed uint64) stream {
	rng := rand.New(rand.NewPCG(seed, 5))
	s := stream{dim: dim}
	for i := range n {
		if i > 10 && rng.IntN(10) == 0 { // an exact repeat of an earlier example
			k := rng.IntN(i)
			s.xs, s.labels = append(s.xs, s.xs[k]), append(s.labels, s.labels[k])
			continue
		}
		y := 2*rng.IntN(2) - 1
		x := make([]float32, dim)
		for j := range x {
			x[j] = float32(rng.NormFloat64()*3 + float64(y)*1.5)
		}
		if rng.IntN(8) == 0 {
			y = -y // label noise
		}
		s.xs, s.labels = append(s.xs, engine.Dense(x)), append(s.labels, y)
	}
	return s
}

// sharedData loads a dataset from ../shared/datasets, or skips.
func sharedData(t testing.TB, name string) *dataset.Dataset {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "datasets", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("../shared/datasets not present (%v): skipping the test on real data", err)
	}
	d, err := dataset.ReadFile(path, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func datasetStream(d *dataset.Dataset, order []int) stream {
	s := stream{dim: d.Dim}
	for _, r := range order {
		idx, val := d.Row(r)
		s.xs = append(s.xs, engine.Sparse(idx, val))
		s.labels = append(s.labels, int(d.Labels[r]))
	}
	return s
}

func configFor(a Algorithm, dim, budget int, seed uint64) Config {
	return Config{Dim: dim, Budget: budget, Sigma: 8, Eta: 0.25, Lambda: 1e-4, Gamma: 2, Seed: seed, C: 1}
}

// runStream feeds s to a new learner, checking invariants after every step:
// the budget, finite scores, and (BOGD, BOGD++) weights within γη.
func runStream(t *testing.T, a Algorithm, cfg Config, s stream) (mistakes int, scores []float64) {
	t.Helper()
	l := mustNew(t, a, cfg)
	for i, x := range s.xs {
		out, err := l.observe(x, s.labels[i])
		if err != nil {
			t.Fatalf("%v step %d: %v", a, i, err)
		}
		if math.IsNaN(out.Score) || math.IsInf(out.Score, 0) {
			t.Fatalf("%v step %d: score %v", a, i, out.Score)
		}
		if out.Mistake {
			mistakes++
		}
		scores = append(scores, out.Score)
		if a.Budgeted() && l.SupportVectors() > cfg.Budget {
			t.Fatalf("%v step %d: %d support vectors over budget %d", a, i, l.SupportVectors(), cfg.Budget)
		}
		if (a == BOGD || a == BOGDpp) && i%17 == 0 {
			m, err := l.snapshot()
			if err != nil {
				t.Fatal(err)
			}
			for k := range m.Len() {
				if w := math.Abs(float64(m.Weight(0, k))); w > cfg.Gamma*cfg.Eta*(1+1e-5) || w == 0 {
					t.Fatalf("%v step %d: weight %v outside (0, γη=%v]", a, i, w, cfg.Gamma*cfg.Eta)
				}
			}
		}
	}
	return mistakes, scores
}

func TestInvariantsOnSyntheticStream(t *testing.T) {
	s := syntheticStream(1500, 5, 1)
	for _, a := range algorithmsFor(task.Binary) {
		for _, proj := range []Projection{ClipEach, RescaleAll} {
			if proj == RescaleAll && a != BOGD && a != BOGDpp {
				continue
			}
			cfg := configFor(a, s.dim, 40, 11)
			cfg.Projection = proj
			m1, scores1 := runStream(t, a, cfg, s)
			m2, scores2 := runStream(t, a, cfg, s)
			if m1 != m2 || fmt.Sprint(scores1) != fmt.Sprint(scores2) {
				t.Fatalf("%v: same seed, different runs (%d vs %d mistakes)", a, m1, m2)
			}
			if rate := float64(m1) / float64(len(s.xs)); rate > 0.4 {
				t.Errorf("%v: mistake rate %.3f on separable-ish data", a, rate)
			}
		}
	}
}

// TestImplementationsAgree runs every learner under every SIMD
// implementation on generated data and expects the same mistakes, example
// by example, as under generic: the kernels differ only in float32
// rounding. The data need nothing from ../shared: 24 integer features on
// raw scales up to a few hundred (as german's), so that σ = 8 makes most
// kernel values tiny and some queries take the far-query path.
func TestImplementationsAgree(t *testing.T) {
	s := rawStream(2000, 24, 7)
	mistakes := func(a Algorithm) []int {
		var at []int
		l := mustNew(t, a, configFor(a, s.dim, 60, 5))
		for i, x := range s.xs {
			out, err := l.observe(x, s.labels[i])
			if err != nil {
				t.Fatal(err)
			}
			if out.Mistake {
				at = append(at, i)
			}
		}
		return at
	}
	want := map[Algorithm][]int{}
	simdtest.With(t, simd.Generic, func() {
		for _, a := range algorithmsFor(task.Binary) {
			want[a] = mistakes(a)
		}
	})
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		for _, a := range algorithmsFor(task.Binary) {
			if got := mistakes(a); !slices.Equal(got, want[a]) {
				t.Errorf("%v: %d mistakes, generic %d (first difference at example %d)", a, len(got), len(want[a]), firstDifference(got, want[a]))
			}
		}
	})
}

// rawStream draws two classes of features in quarters: feature j has
// spread (j%7+1)/2, the classes differ in their means, and one example in
// five has an outlier feature of a few hundred, far from everything.
func rawStream(n, dim int, seed uint64) stream {
	rng := rand.New(rand.NewPCG(seed, 11))
	s := stream{dim: dim}
	for range n {
		y := 2*rng.IntN(2) - 1
		x := make([]float32, dim)
		for j := range x {
			spread := float64(j%7+1) / 2
			x[j] = float32(math.Round(4*(rng.NormFloat64()*spread+float64(y)*spread/2)) / 4)
		}
		if rng.IntN(5) == 0 {
			x[rng.IntN(dim)] = float32(200 + rng.IntN(400))
		}
		s.xs, s.labels = append(s.xs, engine.Dense(x)), append(s.labels, y)
	}
	return s
}

// firstDifference returns the first example at which two sorted lists of
// mistake positions disagree.
func firstDifference(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return min(a[i], b[i])
		}
	}
	if len(a) < len(b) {
		return b[len(a)]
	}
	if len(b) < len(a) {
		return a[len(b)]
	}
	return -1
}

// TestGermanNearPaper runs the paper's protocol on german at B = 100 over a
// small (η, γ) grid and expects BOGD and BOGD++ within 2 points of Table 3
// (30.44%, 31.08%), OGD and the Perceptron near Table 2 (30.12%, 34.81%).
func TestGermanNearPaper(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: 20 permutations per grid point")
	}
	d := sharedData(t, "german.svm.gz")
	lambda := 1 / float64(d.Len()*d.Len())
	rate := func(a Algorithm, eta, gamma float64) float64 {
		total := 0
		for r := range 20 {
			s := datasetStream(d, rand.New(rand.NewPCG(1, uint64(r))).Perm(d.Len()))
			cfg := Config{Dim: d.Dim, Budget: 100, Sigma: 8, Eta: eta, Lambda: lambda, Gamma: gamma, Seed: uint64(r)}
			m, _ := runStream(t, a, cfg, s)
			total += m
		}
		return 100 * float64(total) / float64(20*d.Len())
	}
	best := func(a Algorithm) float64 {
		b := 100.0
		for _, eta := range []float64{0.125, 0.25, 0.5} {
			for _, gamma := range []float64{1, 2, 4} {
				b = min(b, rate(a, eta, gamma))
			}
		}
		return b
	}
	for _, c := range []struct {
		a          Algorithm
		got, paper float64
		tol        float64
	}{
		{BOGD, best(BOGD), 30.44, 2},
		{BOGDpp, best(BOGDpp), 31.08, 2},
		{OGD, rate(OGD, 0.25, 0), 30.12, 2},
		{Perceptron, rate(Perceptron, 0, 0), 34.81, 1.5},
	} {
		t.Logf("%v: %.2f%% (paper %.2f%%)", c.a, c.got, c.paper)
		if math.Abs(c.got-c.paper) > c.tol {
			t.Errorf("%v: %.2f%% is more than %.1f points from the paper's %.2f%%", c.a, c.got, c.tol, c.paper)
		}
	}
}

// TestConfigErrors: every check of a configuration fails with an error
// wrapping ErrConfig that names the algorithm and the Config field at
// fault.
func TestConfigErrors(t *testing.T) {
	ok := Config{Dim: 3, Budget: 10, Sigma: 8, Eta: 0.5, Lambda: 0.01, Gamma: 2}
	multi := func(classes ...int) func(c *Config) {
		return func(c *Config) { c.Task, c.Classes = task.Multiclass, classes }
	}
	cases := []struct {
		a      Algorithm
		field  string
		mutate func(c *Config)
	}{
		{BOGD, "Task", func(c *Config) { c.Task = 9 }},
		{NORMA, "Task", func(c *Config) { c.Task = task.Binary }},
		{ProjectronPP, "Task", func(c *Config) { c.Task = task.Regression }},
		{BOGD, "Dim", func(c *Config) { c.Dim = 0 }},
		{BOGD, "Sigma", func(c *Config) { c.Sigma = -1 }},
		{BOGD, "Sigma", func(c *Config) { c.Sigma = math.NaN() }},
		{BOGD, "Storage", func(c *Config) { c.Storage = 9 }},
		{BOGD, "Budget", func(c *Config) { c.Budget = 1 }},
		{RBP, "Budget", func(c *Config) { c.Budget = -5 }},
		{BOGD, "Classes", multi(1)},
		{BOGD, "Classes", multi(2, 1)},
		{BOGD, "Classes", multi(1, 1)},
		{BOGD, "Classes", multi(make([]int, task.MaxClasses+1)...)},
		{BOGD, "Classes", func(c *Config) { c.Task, c.Classes = task.Binary, []int{1, 2} }},
		{OGD, "Epsilon", func(c *Config) { c.Task, c.Epsilon = task.Regression, -1 }},
		{OGD, "Calibrate", func(c *Config) { c.Task, c.Calibrate = task.Regression, true }},
		{BOGD, "Eta", func(c *Config) { c.Eta = -0.5 }},
		{OGD, "Eta", func(c *Config) { c.Eta = 1e200 }},
		{BOGDpp, "Lambda", func(c *Config) { c.Lambda = -0.1 }},
		{NORMA, "Lambda*Eta", func(c *Config) { c.Task, c.Lambda, c.Eta = task.Regression, 2, 0.5 }},
		{BOGDOldest, "Gamma", func(c *Config) { c.Gamma = -1 }},
		{BOGD, "Projection", func(c *Config) { c.Projection = 9 }},
		{NORMA, "Nu", func(c *Config) { c.Task, c.Nu = task.Regression, 2 }},
		{BPAS, "C", func(c *Config) { c.C = -1 }},
		{BSGDMerge, "Lambda", func(c *Config) { c.Lambda = 1e20 }},
		{FOGD, "Features", func(c *Config) { c.Features = maxFeatures + 1 }},
		{FOGD, "Features", func(c *Config) { c.Dim, c.Features = 1<<20, 1<<10 }},
		{NOGD, "Rank", func(c *Config) { c.Rank = 11 }},
		{Projectron, "ProjectronThreshold", func(c *Config) { c.ProjectronThreshold = -1 }},
	}
	for _, tc := range cases {
		c := ok
		tc.mutate(&c)
		_, err := New(tc.a, c)
		if !errors.Is(err, ErrConfig) || !strings.HasPrefix(err.Error(), tc.a.String()+": ") ||
			!strings.Contains(err.Error(), ": "+tc.field+" ") && !strings.Contains(err.Error(), ": "+tc.field+",") && !strings.Contains(err.Error(), ": "+tc.field+":") {
			t.Errorf("%v, %s: got %v, want a configuration error naming both", tc.a, tc.field, err)
		}
	}
	if _, err := New(BOGD, ok); err != nil {
		t.Fatal(err)
	}
	// Perceptron needs neither a budget nor η.
	if _, err := New(Perceptron, Config{Dim: 3, Sigma: 1}); err != nil {
		t.Fatal(err)
	}
}

// TestDefaults: a configuration that gives only the dimension makes a
// working learner of every algorithm and task, with the documented
// defaults in its Config.
func TestDefaults(t *testing.T) {
	for _, tk := range []task.Task{task.Binary, task.Multiclass, task.Regression} {
		for _, a := range algorithmsFor(tk) {
			cfg := Config{Dim: 2, Task: tk}
			if tk == task.Multiclass {
				cfg.Classes = []int{1, 2, 3}
			}
			l, err := New(a, cfg)
			if err != nil {
				t.Errorf("%v %v: %v", tk, a, err)
				continue
			}
			got := l.Config()
			if got.Budget != 100 || got.Sigma != 8 || got.Gamma != 10 || got.C != 1 || got.Rank != 20 {
				t.Errorf("%v %v: defaults %+v", tk, a, got)
			}
			if uses := a.Params(tk).Has(ParamEta); uses != (got.Eta > 0) {
				t.Errorf("%v %v: η %v (the rule reads η: %v)", tk, a, got.Eta, uses)
			}
			want := Defaults(a, tk)
			want.Dim, want.Classes = cfg.Dim, cfg.Classes
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%v %v: New made %+v, Defaults says %+v", tk, a, got, want)
			}
			y := map[task.Task]float64{task.Binary: 1, task.Multiclass: 2, task.Regression: 0.5}[tk]
			if _, err := l.Learn(engine.Dense([]float32{0.5, -1}), y); err != nil {
				t.Errorf("%v %v: %v", tk, a, err)
			}
		}
	}
	if _, err := New(OGD, Config{}); err == nil {
		t.Error("a configuration without a dimension accepted")
	}
	// The table of Defaults' documentation.
	for _, c := range []struct {
		a   Algorithm
		tk  task.Task
		eta float64
	}{
		{BOGDpp, task.Binary, 0.2}, {BOGDpp, task.Auto, 0.2}, {OGD, task.Multiclass, 0.5}, {NOGD, task.Regression, 0.1},
		{Perceptron, task.Regression, 0.1}, {Perceptron, task.Binary, 0}, {BPAS, task.Binary, 0}, {NORMA, task.Regression, 0.03},
		{FOGD, task.Binary, 0.002}, {FOGD, task.Multiclass, 0.005}, {FOGD, task.Regression, 6e-4},
	} {
		if d := Defaults(c.a, c.tk); d.Eta != c.eta || d.Task == task.Auto {
			t.Errorf("Defaults(%v, %v): η %v, task %v; want η %v", c.a, c.tk, d.Eta, d.Task, c.eta)
		}
	}
	if d := Defaults(BSGDMerge, task.Binary); d.Lambda != 1e-4 || d.Features != 400 || Defaults(FOGD, task.Regression).Features != 1500 {
		t.Errorf("BSGD-merge's λ %v, FOGD's features %d (regression %d)", d.Lambda, d.Features, Defaults(FOGD, task.Regression).Features)
	}
}

func TestLearnRejectsBadInput(t *testing.T) {
	for _, a := range algorithmsFor(task.Binary) {
		l := mustNew(t, a, configFor(a, 3, 10, 1))
		if _, err := l.observe(engine.Dense([]float32{1, 2}), 1); err == nil {
			t.Errorf("%v: wrong dimension accepted", a)
		}
		if _, err := l.observe(engine.Dense([]float32{1, 2, 3}), 0); err == nil {
			t.Errorf("%v: label 0 accepted", a)
		}
		if _, err := l.observe(engine.Dense([]float32{1, float32(math.NaN()), 3}), 1); err == nil {
			t.Errorf("%v: NaN accepted", a)
		}
		if l.SupportVectors() != 0 {
			t.Errorf("%v: rejected input changed the model", a)
		}
	}
}

func TestParseAlgorithm(t *testing.T) {
	for _, a := range algorithmsFor(task.Binary) {
		if got, err := ParseAlgorithm(a.String()); err != nil || got != a {
			t.Errorf("%v: %v, %v", a, got, err)
		}
	}
	if a, err := ParseAlgorithm("BOGDpp"); err != nil || a != BOGDpp {
		t.Errorf("BOGDpp: %v, %v", a, err)
	}
	if _, err := ParseAlgorithm("svm"); err == nil {
		t.Error("unknown name accepted")
	}
}

// BenchmarkObserve measures one predict-and-update step at codrna's shape
// (d = 8) with a full budget of 1000, per algorithm, next to the bare f(x).
func BenchmarkObserve(b *testing.B) {
	s := syntheticStream(20000, 8, 2)
	for _, a := range []Algorithm{BOGD, BOGDpp, RBP, Forgetron} {
		b.Run("algo="+a.String(), func(b *testing.B) {
			l, err := New(a, Config{Dim: 8, Budget: 1000, Sigma: 8, Eta: 0.25, Lambda: 1e-8, Gamma: 4, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			for i := range 5000 {
				l.observe(s.xs[i], s.labels[i])
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				k := 5000 + i%15000
				l.observe(s.xs[k], s.labels[k])
			}
		})
	}
	b.Run("algo=score-only", func(b *testing.B) {
		l, _ := New(BOGDpp, Config{Dim: 8, Budget: 1000, Sigma: 8, Eta: 0.25, Lambda: 1e-8, Gamma: 4, Seed: 1})
		for i := range 5000 {
			l.observe(s.xs[i], s.labels[i])
		}
		for i := 0; b.Loop(); i++ {
			l.score(s.xs[5000+i%15000])
		}
	})
}

// BenchmarkNOGDTransition times NOGD's transition alone (the B×B kernel
// matrix of the landmarks, its top k eigenpairs by topEigen and the
// projection) beside a whole pass that includes it (η = 0.2, σ = 8, k = B/5,
// one permutation): at the LSOKL multi-class table's B = 200 on dna and
// satimage, where the transition was most of the pass (the table's 100× the
// MATLAB time allows 22.9 ms for dna's whole pass and 18.7 ms for
// satimage's), and on codrna at B = 1000.
func BenchmarkNOGDTransition(b *testing.B) {
	for _, c := range []struct {
		file   string
		budget int
	}{{"multiclass/dna.svm.gz", 200}, {"multiclass/satimage.svm.gz", 200}, {"codrna.svm.gz", 1000}} {
		d := sharedData(b, c.file)
		cfg := Config{Task: d.Task, Classes: d.Classes, Dim: d.Dim, Budget: c.budget, Sigma: 8, Eta: 0.2, Seed: 1}
		order := rand.New(rand.NewPCG(1, 0)).Perm(d.Len())
		learn := func(l *Learner, i int) {
			if _, err := l.Learn(engine.Sparse(d.Row(order[i])), d.Labels[order[i]]); err != nil {
				b.Fatal(err)
			}
		}
		name := fmt.Sprintf("%s/budget=%d", strings.TrimSuffix(filepath.Base(c.file), ".svm.gz"), c.budget)
		b.Run(name+"/transition", func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				l := mustNew(b, NOGD, cfg)
				for i := 0; l.SupportVectors() < cfg.Budget; i++ {
					learn(l, i)
				}
				b.StartTimer()
				if err := l.b.rule.(*nogd).transition(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/pass", func(b *testing.B) {
			for range b.N {
				l := mustNew(b, NOGD, cfg)
				for i := range order {
					learn(l, i)
				}
			}
		})
	}
}
