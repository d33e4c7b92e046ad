package bogd

import (
	"bufio"
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
// spambase (B = 100, σ = 8, raw features). It compares the number of
// mistakes per order with what their MATLAB code gives
// (../../shared/reference/lsokl-deterministic.md). The Forgetron runs twice:
// once with forgetron.m's φ (its wrong root included, through the test
// hook), which must match, and once with the paper's φ, which is only
// reported.
//
// An order must match within ±1 unless some round had support vectors and
// |f(x)| < 1e-30. The sign of such a score comes from kernel values below
// float32's range. The engine clamps them at exp(−87) ≈ 1.6e-38, while
// MATLAB's double keeps them down to exp(−745), so from such a round on the
// two runs may diverge. Such orders are reported apart. On german that is 4
// orders out of 20, with one round each. On raw spambase every order has
// thousands of such rounds (most points are more than 105 away from every
// support vector). A float64 replay of the same rules (float64 distances
// and exp) reproduces forgetron.m's counts on all 20 spambase orders. So
// these gaps come from the score's range, not from the rules.

func sharedDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared")
	if _, err := os.Stat(filepath.Join(dir, "reference", "lsokl-deterministic.md")); err != nil {
		t.Skipf("fidelity check skipped: the shared data directory %s is absent (%v)", dir, err)
	}
	return dir
}

// readReference parses the markdown tables of the reference file into
// dataset name → algorithm row name → mistakes per permutation.
func readReference(t *testing.T, path string) map[string]map[string][]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string][]int{}
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
		if len(cells) < 2 {
			continue
		}
		var counts []int
		for _, tok := range strings.Fields(cells[1]) {
			n, err := strconv.Atoi(tok)
			if err != nil {
				counts = nil
				break
			}
			counts = append(counts, n)
		}
		if len(counts) == 0 {
			continue // header or separator row
		}
		if out[section] == nil {
			out[section] = map[string][]int{}
		}
		out[section][strings.TrimSpace(cells[0])] = counts
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// fidelityVariant is one learner configuration to replay.
type fidelityVariant struct {
	name   string // for the log
	ref    string // row of the reference table
	algo   Algorithm
	matlab bool // Forgetron: use forgetron.m's φ (wrong root included)
}

type fidelityRun struct {
	mistakes  int
	wrongPhi  int // Forgetron: removal steps where forgetron.m's φ differs from the paper's
	wrongRoot int // of which in forgetron.m's A < 0 branch (the root > 1)
	removals  int
	// tiny counts the rounds with support vectors and |f(x)| < 1e-30. Their
	// sign is decided by kernel values below float32's range, which the
	// engine clamps at exp(−87), while MATLAB's double keeps them down to
	// exp(−745): from such a round on, the two runs may diverge.
	tiny int
}

func replay(t *testing.T, d *dataset.Dataset, perm []int, v fidelityVariant) fidelityRun {
	l, err := New(v.algo, Config{Dim: d.Dim, Budget: 100, Sigma: 8})
	if err != nil {
		t.Fatal(err)
	}
	var run fidelityRun
	if fg, ok := l.(*forgetron); ok {
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
		stored := l.SupportVectors() > 0
		out, err := l.Observe(engine.Sparse(idx, val), int(d.Labels[r]))
		if err != nil {
			t.Fatal(err)
		}
		if stored && math.Abs(out.Score) < 1e-30 {
			run.tiny++
		}
		if out.Mistake {
			run.mistakes++
		}
	}
	if l.SupportVectors() > 100 {
		t.Errorf("%s: %d support vectors", v.name, l.SupportVectors())
	}
	return run
}

func TestFidelity(t *testing.T) {
	dir := sharedDir(t)
	ref := readReference(t, filepath.Join(dir, "reference", "lsokl-deterministic.md"))
	variants := []fidelityVariant{
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
			d, err := dataset.ReadFile(filepath.Join(dir, "datasets", name+".svm.gz"), dataset.Options{})
			if err != nil {
				t.Fatal(err)
			}
			perms, err := dataset.ReadOrders(filepath.Join(dir, "datasets", name+".perm.gz"), d.Len(), 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range variants {
				want := ref[name][v.ref]
				if len(want) != len(perms) {
					t.Fatalf("%s: reference has %d counts for %d orders", v.ref, len(want), len(perms))
				}
				// Orders where no round had |f| < 1e-30 must match within ±1
				// (a float32 near-tie); the others are reported apart.
				var clean, affected fidelityTally
				bugOrders, bugSteps, rootSteps, removals, tiny := 0, 0, 0, 0, 0
				ours, theirs := 0, 0
				for p, perm := range perms {
					run := replay(t, d, perm, v)
					diff := run.mistakes - want[p]
					ours += run.mistakes
					theirs += want[p]
					if run.tiny == 0 {
						clean.add(p, diff)
					} else {
						affected.add(p, diff)
					}
					removals += run.removals
					tiny += run.tiny
					bugSteps += run.wrongPhi
					rootSteps += run.wrongRoot
					if run.wrongPhi > 0 {
						bugOrders++
					}
					if v.algo == Forgetron && !v.matlab {
						continue // a different rule: reported, not checked
					}
					if fidelityAbs(diff) > 1 && run.tiny == 0 {
						t.Errorf("%s order %d: %d mistakes, reference %d", v.name, p+1, run.mistakes, want[p])
					}
				}
				total := float64(len(perms) * d.Len())
				t.Logf("%-25s mean mistakes %.3f%% (reference %.3f%%)", v.name, 100*float64(ours)/total, 100*float64(theirs)/total)
				t.Logf("%-25s orders without tiny scores: %s", "", clean)
				t.Logf("%-25s orders with tiny scores:    %s (%d such rounds in all)", "", affected, tiny)
				if name == "german" && clean.orders < 15 {
					t.Errorf("%s: only %d german orders free of tiny scores: the check has become vacuous", v.name, clean.orders)
				}
				if v.algo == Forgetron {
					t.Logf("%-25s forgetron.m's φ differs from the paper's on %d of %d removal steps (%d in its A < 0 branch), in %d of %d orders",
						"", bugSteps, removals, rootSteps, bugOrders, len(perms))
				}
			}
		})
	}
}

// fidelityTally sums up the differences from the reference over orders.
type fidelityTally struct {
	orders, exact, maxDiff int
	diffs                  []string
}

func (f *fidelityTally) add(p, diff int) {
	f.orders++
	if diff == 0 {
		f.exact++
	} else {
		f.diffs = append(f.diffs, fmt.Sprintf("#%d:%+d", p+1, diff))
	}
	f.maxDiff = max(f.maxDiff, fidelityAbs(diff))
}

func (f fidelityTally) String() string {
	return fmt.Sprintf("%2d/%2d exact, max |diff| %d %v", f.exact, f.orders, f.maxDiff, f.diffs)
}

func fidelityAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
