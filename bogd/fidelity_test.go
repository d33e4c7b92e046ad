package bogd

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
)

// The fidelity test replays the authors' own 20 orders of german and
// spambase (B = 100, σ = 8, η = 0.2, raw features) and compares, order by
// order, the mistakes and final support vectors with what their MATLAB code
// gives (../../shared/reference/lsokl-deterministic.md). OGD runs with λ = 0
// because OGD.m never reads λ. The Forgetron runs twice: with forgetron.m's
// φ (its wrong root included, through the test hook), which must match,
// and with the paper's φ (the product's rule), which is only reported.
//
// german must match within ±1 mistake on every order. On spambase the
// Perceptron and OGD must too; the Forgetron and the Projectrons must match
// on at least 15 of the 20 orders. The orders that differ there do so for
// known reasons: the features are stored in float32 (spambase's raw values
// reach 15,841, so ‖x−s‖² ~ 1e8 carries an absolute error near 10 and the
// kernel exponent one near 0.1), and on raw spambase most predictions are
// decided by kernel values around exp(−100) or below, whose ratios that
// error changes; once one prediction flips, the runs diverge. The
// Projectrons also guard an exact duplicate that arrives while the budget
// has room (δ² = 0): forgetron.m's and projectron.m's code divide by it.

func sharedDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared")
	if _, err := os.Stat(filepath.Join(dir, "reference", "lsokl-deterministic.md")); err != nil {
		t.Skipf("fidelity check skipped: the shared data directory %s is absent (%v)", dir, err)
	}
	return dir
}

// reference holds one row of the reference tables.
type reference struct{ mistakes, supportVectors []int }

// readReference parses the markdown tables of the reference file into
// dataset name → algorithm row name → counts per permutation.
func readReference(t *testing.T, path string) map[string]map[string]reference {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]reference{}
	var section string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if name, ok := strings.CutPrefix(line, "## "); ok {
			section = strings.Fields(name)[0]
			continue
		}
		if section == "" || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 4 {
			continue
		}
		mistakes, svs := parseCounts(cells[1]), parseCounts(cells[3])
		if len(mistakes) == 0 {
			continue // header or separator row
		}
		if out[section] == nil {
			out[section] = map[string]reference{}
		}
		out[section][strings.TrimSpace(cells[0])] = reference{mistakes, svs}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// parseCounts reads a cell of space-separated integers, or returns nil.
func parseCounts(cell string) []int {
	var counts []int
	for _, tok := range strings.Fields(cell) {
		n, err := strconv.Atoi(tok)
		if err != nil {
			return nil
		}
		counts = append(counts, n)
	}
	return counts
}

// fidelityVariant is one learner configuration to replay.
type fidelityVariant struct {
	name   string // for the log
	ref    string // row of the reference table
	algo   Algorithm
	matlab bool // Forgetron: use forgetron.m's φ (wrong root included)
}

type fidelityRun struct {
	mistakes, supportVectors int
	wrongPhi                 int // Forgetron: removal steps where forgetron.m's φ differs from the paper's
	wrongRoot                int // of which in forgetron.m's A < 0 branch (the root > 1)
	removals                 int
}

func replay(t *testing.T, d *dataset.Dataset, perm []int, v fidelityVariant) fidelityRun {
	l, err := New(v.algo, Config{Dim: d.Dim, Budget: 100, Sigma: 8, Eta: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	var run fidelityRun
	if fg, ok := l.b.rule.(*forgetron); ok {
		fg.phiHook = func(a, bq, c, phi float64) float64 {
			run.removals++
			mp := matlabPhi(a, bq, c)
			if mp != phi && !(math.Abs(mp-phi) <= 1e-12*math.Abs(phi)) {
				run.wrongPhi++
				if a < 0 && a+bq+c > 0 {
					run.wrongRoot++
				}
			}
			if v.matlab {
				return mp
			}
			return phi
		}
	}
	for _, r := range perm {
		idx, val := d.Row(r)
		out, err := l.observe(engine.Sparse(idx, val), int(d.Labels[r]))
		if err != nil {
			t.Fatal(err)
		}
		if out.Mistake {
			run.mistakes++
		}
	}
	run.supportVectors = l.SupportVectors()
	return run
}

func TestFidelity(t *testing.T) {
	dir := sharedDir(t)
	ref := readReference(t, filepath.Join(dir, "reference", "lsokl-deterministic.md"))
	variants := []fidelityVariant{
		{"perceptron", "Perceptron", Perceptron, false},
		{"ogd", "OGD", OGD, false},
		{"forgetron (forgetron.m φ)", "Forgetron", Forgetron, true},
		{"forgetron (paper φ)", "Forgetron", Forgetron, false},
		{"projectron", "Projectron", Projectron, false},
		{"projectron++", "Projectron++", ProjectronPP, false},
	}
	for _, name := range []string{"german", "spambase"} {
		t.Run(name, func(t *testing.T) {
			if name == "spambase" && testing.Short() {
				t.Skip("spambase skipped in -short mode")
			}
			d, perms := fidelityData(t, dir, name)
			for _, v := range variants {
				want := ref[name][v.ref]
				if len(want.mistakes) != len(perms) || len(want.supportVectors) != len(perms) {
					t.Fatalf("%s: reference has %d/%d counts for %d orders", v.ref, len(want.mistakes), len(want.supportVectors), len(perms))
				}
				var tally fidelityTally
				bugOrders, bugSteps, rootSteps, removals := 0, 0, 0, 0
				ours, theirs := 0, 0
				perOrder := make([]int, len(perms))
				for p, perm := range perms {
					run := replay(t, d, perm, v)
					tally.add(p, run.mistakes-want.mistakes[p], run.supportVectors-want.supportVectors[p])
					perOrder[p] = run.mistakes
					ours += run.mistakes
					theirs += want.mistakes[p]
					removals += run.removals
					bugSteps += run.wrongPhi
					rootSteps += run.wrongRoot
					if run.wrongPhi > 0 {
						bugOrders++
					}
				}
				total := float64(len(perms) * d.Len())
				t.Logf("%-25s mean mistakes %.3f%% (reference %.3f%%); %s", v.name, 100*float64(ours)/total, 100*float64(theirs)/total, tally)
				t.Logf("%-25s mistakes per order: ours %v, reference %v", "", perOrder, want.mistakes)
				if v.algo == Forgetron {
					t.Logf("%-25s forgetron.m's φ differs from the paper's on %d of %d removal steps (%d in its A < 0 branch), in %d of %d orders",
						"", bugSteps, removals, rootSteps, bugOrders, len(perms))
				}
				if v.algo == Forgetron && !v.matlab {
					continue // a different rule: reported, not checked
				}
				need := len(perms)
				if name == "spambase" && v.algo != Perceptron && v.algo != OGD {
					need = 15
				}
				if tally.close < need {
					t.Errorf("%s: %d of %d orders within ±1 mistake of the reference, want at least %d", v.name, tally.close, len(perms), need)
				}
			}
		})
	}
}

// fidelityData loads a dataset and the authors' orders of it.
func fidelityData(t *testing.T, dir, name string) (*dataset.Dataset, [][]int) {
	t.Helper()
	d, err := dataset.ReadFile(filepath.Join(dir, "datasets", name+".svm.gz"), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	perms, err := dataset.ReadOrders(filepath.Join(dir, "datasets", name+".perm.gz"), d.Len(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return d, perms
}

// TestFidelityRandomized replays german's orders with the randomized
// learners. The reference for BOGD is the authors' BOGD.m at these settings
// (η = 0.2, λ = 1/n², γ = 10, global-rescale projection): 32.08%. Ours must
// be within one standard deviation of it, over the same 20 orders.
func TestFidelityRandomized(t *testing.T) {
	dir := sharedDir(t)
	d, perms := fidelityData(t, dir, "german")
	lambda := 1 / float64(d.Len()*d.Len())
	for _, c := range []struct {
		name string
		algo Algorithm
		proj Projection
		ref  float64 // the reference code's mean, or 0 when there is none
	}{
		{"bogd (rescale, as BOGD.m)", BOGD, RescaleAll, 32.08},
		{"bogd (clip each, default)", BOGD, ClipEach, 0},
		{"bogd++ (clip each, default)", BOGDpp, ClipEach, 0},
		{"bogd++ (rescale)", BOGDpp, RescaleAll, 0},
		{"rbp", RBP, ClipEach, 0},
	} {
		var rates []float64
		for p, perm := range perms {
			cfg := Config{Dim: d.Dim, Budget: 100, Sigma: 8, Eta: 0.2, Lambda: lambda, Gamma: 10, Projection: c.proj, Seed: uint64(p)}
			l := mustNew(t, c.algo, cfg)
			mistakes := 0
			for _, r := range perm {
				idx, val := d.Row(r)
				out, err := l.observe(engine.Sparse(idx, val), int(d.Labels[r]))
				if err != nil {
					t.Fatal(err)
				}
				if out.Mistake {
					mistakes++
				}
			}
			rates = append(rates, 100*float64(mistakes)/float64(d.Len()))
		}
		mean, std := meanStd(rates)
		t.Logf("%-28s %.2f%% ± %.2f (reference %v)", c.name, mean, std, c.ref)
		if c.ref > 0 && math.Abs(mean-c.ref) > std {
			t.Errorf("%s: %.2f%% ± %.2f is more than one std from the reference's %.2f%%", c.name, mean, std, c.ref)
		}
	}
}

func meanStd(xs []float64) (mean, std float64) {
	for _, x := range xs {
		mean += x / float64(len(xs))
	}
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)-1))
}

// fidelityTally sums up the differences from the reference over orders.
type fidelityTally struct {
	orders, exact, close, maxDiff int
	diffs                         []string
}

func (f *fidelityTally) add(p, diff, svDiff int) {
	f.orders++
	switch {
	case diff == 0 && svDiff == 0:
		f.exact++
		f.close++
	case fidelityAbs(diff) <= 1:
		f.close++
		fallthrough
	default:
		f.diffs = append(f.diffs, fmt.Sprintf("#%d:%+d(SV %+d)", p+1, diff, svDiff))
	}
	f.maxDiff = max(f.maxDiff, fidelityAbs(diff))
}

func (f fidelityTally) String() string {
	return fmt.Sprintf("%d/%d orders exact, %d within ±1, max |diff| %d %v", f.exact, f.orders, f.close, f.maxDiff, f.diffs)
}

func fidelityAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestFidelityNearTie explains spambase order 2 of OGD, the one order where
// our support-vector count differs from OGD.m's: it replays the order with a
// float64 twin of OGD.m (features parsed as float64 from the same file, exp
// in float64) next to the learner, and logs the first round where the two
// disagree about updating. That round must be a near-tie: y·f within 1e-4
// of the margin 1, where float32 storage decides.
func TestFidelityNearTie(t *testing.T) {
	if testing.Short() {
		t.Skip("spambase skipped in -short mode")
	}
	dir := sharedDir(t)
	d, perms := fidelityData(t, dir, "spambase")
	rows := readFloat64Rows(t, filepath.Join(dir, "datasets", "spambase.svm.gz"), d.Dim)
	l := mustNew(t, OGD, Config{Dim: d.Dim, Sigma: 8, Eta: 0.2})
	var svs [][]float64
	var coef []float64
	for step, r := range perms[1] {
		idx, val := d.Row(r)
		y := float64(d.Labels[r])
		out, err := l.observe(engine.Sparse(idx, val), int(y))
		if err != nil {
			t.Fatal(err)
		}
		f64 := 0.0
		for i, s := range svs {
			f64 += coef[i] * math.Exp(-sqDist64(rows[r], s)/128)
		}
		ours, theirs := y*out.Score < 1, y*f64 < 1
		if theirs {
			svs, coef = append(svs, rows[r]), append(coef, 0.2*y)
		}
		if ours != theirs {
			t.Logf("spambase order 2, round %d (row %d, y=%+.0f): float32 score %.9g, float64 score %.9g: y·f = %.9g vs %.9g against the margin 1",
				step+1, r+1, y, out.Score, f64, y*out.Score, y*f64)
			if math.Abs(y*f64-1) > 1e-4 {
				t.Errorf("the disagreement is not a near-tie")
			}
			return
		}
	}
	t.Log("no disagreement in spambase order 2: the near-tie is gone")
}

// readFloat64Rows parses a LIBSVM file's features as float64, dense.
func readFloat64Rows(t *testing.T, path string, dim int) [][]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]float64
	sc := bufio.NewScanner(gz)
	for sc.Scan() {
		x := make([]float64, dim)
		for _, tok := range strings.Fields(sc.Text())[1:] {
			k, v, _ := strings.Cut(tok, ":")
			j, err1 := strconv.Atoi(k)
			f, err2 := strconv.ParseFloat(v, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: bad token %q", path, tok)
			}
			x[j-1] = f
		}
		rows = append(rows, x)
	}
	return rows
}

func sqDist64(a, b []float64) float64 {
	s := 0.0
	for j := range a {
		s += (a[j] - b[j]) * (a[j] - b[j])
	}
	return s
}

// TestFidelityDivergence explains every spambase order where a learner
// misses the reference by more than one mistake. It replays the order with
// the float64 twin of the rule (refForgetron, refProjectron: float64 data
// parsed from the same file, float64 exp) next to the learner, logs the
// first round where the two disagree about a decision (prediction, update,
// margin), with both scores, and the float64 twin's own total next to the
// reference's. A float64 total equal to the reference's means the rule is
// the reference's and float32 storage flipped that round; for the
// Projectrons a float64 total that differs too comes from the duplicate
// guard, counted in the log.
func TestFidelityDivergence(t *testing.T) {
	if testing.Short() {
		t.Skip("spambase skipped in -short mode")
	}
	dir := sharedDir(t)
	ref := readReference(t, filepath.Join(dir, "reference", "lsokl-deterministic.md"))
	d, perms := fidelityData(t, dir, "spambase")
	rows := readFloat64Rows(t, filepath.Join(dir, "datasets", "spambase.svm.gz"), d.Dim)
	for _, v := range []fidelityVariant{
		{"forgetron (forgetron.m φ)", "Forgetron", Forgetron, true},
		{"projectron", "Projectron", Projectron, false},
		{"projectron++", "Projectron++", ProjectronPP, false},
	} {
		for p, perm := range perms {
			want := ref["spambase"][v.ref].mistakes[p]
			if run := replay(t, d, perm, v); fidelityAbs(run.mistakes-want) <= 1 {
				continue
			}
			desc, twinMistakes, guards := divergence(t, d, rows, perm, v)
			t.Logf("%s order %d: %s; the float64 twin makes %d mistakes, the reference %d; duplicate guards in the twin: %d",
				v.name, p+1, desc, twinMistakes, want, guards)
			if twinMistakes != want && guards == 0 {
				t.Errorf("%s order %d: the float64 twin of the rule makes %d mistakes, the reference %d, with no duplicate guard to explain it",
					v.name, p+1, twinMistakes, want)
			}
		}
	}
}

// divergence replays one order with the learner and its float64 twin in
// lockstep. It describes the first round where their decisions differ and
// returns the twin's mistakes and the times its duplicate guard fired.
func divergence(t *testing.T, d *dataset.Dataset, rows [][]float64, perm []int, v fidelityVariant) (desc string, twinMistakes, guards int) {
	l, err := New(v.algo, Config{Dim: d.Dim, Budget: 100, Sigma: 8})
	if err != nil {
		t.Fatal(err)
	}
	var twin func(x []float64, y int) float64
	var guarded func() int
	switch v.algo {
	case Forgetron:
		l.b.rule.(*forgetron).phiHook = func(a, bq, c, _ float64) float64 { return matlabPhi(a, bq, c) }
		r := &refForgetron{b: 100, sigma: 8, phi: matlabPhi}
		twin, guarded = r.observe, func() int { return 0 }
	default:
		r := &refProjectron{b: 100, sigma: 8, plus: v.algo == ProjectronPP}
		twin, guarded = r.observe, func() int { return r.early }
	}
	// The decisions the rule takes from f: the prediction, and the
	// Forgetron's update test or Projectron++'s margin test.
	decisions := func(f float64, y int) [2]bool {
		yf := float64(y) * f
		switch v.algo {
		case Forgetron:
			return [2]bool{sign(f) == y, yf <= 0}
		case ProjectronPP:
			return [2]bool{sign(f) == y, yf > 0 && yf < 1}
		}
		return [2]bool{sign(f) == y}
	}
	for step, r := range perm {
		idx, val := d.Row(r)
		y := int(d.Labels[r])
		out, err := l.observe(engine.Sparse(idx, val), y)
		if err != nil {
			t.Fatal(err)
		}
		f64 := twin(rows[r], y)
		if sign(f64) != y {
			twinMistakes++
		}
		if desc == "" && decisions(out.Score, y) != decisions(f64, y) {
			desc = fmt.Sprintf("first disagreement at round %d (row %d, y=%+d): float32 score %.12g, float64 score %.12g",
				step+1, r+1, y, out.Score, f64)
		}
	}
	if desc == "" {
		desc = "no decision differs from the float64 twin's"
	}
	return desc, twinMistakes, guarded()
}
