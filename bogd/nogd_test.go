package bogd

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bogd-project/bogd/task"
)

// TestNOGDResumeBothForms: a NOGD learner saved in phase 2, in either form
// of its scores (w·z at B = 20, β at k·B = 10⁴), loads into one that
// continues with the same steps bit for bit and saves the same bytes; one
// saved in phase 1 draws the same start block at its transition (which
// subspace iteration, not the dense solver, must have served at least once).
func TestNOGDResumeBothForms(t *testing.T) {
	sampled := 0
	for _, tk := range []task.Task{task.Binary, task.Multiclass, task.Regression} {
		s := binaryStream(800, 3, 21)
		switch tk {
		case task.Multiclass:
			s = multiStream(800, 3, 22)
		case task.Regression:
			s = regressionStream(800, 3, 23)
		}
		for _, v := range []struct{ budget, rank int }{{20, 4}, {100, 100}, {200, 50}} {
			cfg := taskConfig(tk, s.dim, v.budget, 31)
			cfg.Rank = v.rank
			learnAll := func(l *Learner, from, to int) []string { return s.steps(t, l, from, to) }
			whole := mustNew(t, NOGD, cfg)
			want := learnAll(whole, 0, len(s.xs))
			n := whole.b.rule.(*nogd)
			if !n.phase2 || n.landmarkForm() != (v.rank*v.budget >= landmarkFormFrom) {
				t.Fatalf("%v B=%d k=%d: phase 2 %v, β %v: the stream does not reach the form under test", tk, v.budget, v.rank, n.phase2, n.landmarkForm())
			}
			gram, err := n.landmarkGram()
			if err != nil {
				t.Fatal(err)
			}
			if 2*eigenBlock(n.rank) <= n.set.Len() {
				if _, _, converged, err := subspaceEigen(gram, n.set.Len(), n.rank, rand.New(rand.NewPCG(cfg.Seed, nystromStream))); err == nil && converged {
					sampled++
				}
			}
			for _, split := range []int{v.budget / 2, len(s.xs) - 100} { // phase 1, phase 2
				l := mustNew(t, NOGD, cfg)
				learnAll(l, 0, split)
				resumed := mustLoad(t, mustSave(t, l))
				if got := learnAll(resumed, split, len(s.xs)); !slices.Equal(got, want[split:]) {
					t.Fatalf("%v B=%d k=%d split %d: resumed steps differ from the uninterrupted ones", tk, v.budget, v.rank, split)
				}
				if !bytes.Equal(mustSave(t, resumed), mustSave(t, whole)) {
					t.Fatalf("%v B=%d k=%d split %d: the resumed learner saves other bytes", tk, v.budget, v.rank, split)
				}
			}
		}
	}
	if sampled == 0 {
		t.Error("no transition took subspace iteration")
	}
}
