package bogd

import (
	"math"
	"testing"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/task"
)

// extremeStreams are valid inputs at the edges: huge magnitudes, identical
// vectors with both labels, and zero vectors.
func extremeStreams() map[string]stream {
	out := map[string]stream{}
	huge := stream{dim: 3}
	for i := range 300 {
		v := float32(1e30)
		if i%3 == 0 {
			v = -1e30
		}
		x := []float32{v, float32(i%5) * 1e29, -v}
		huge.xs, huge.labels = append(huge.xs, engine.Dense(x)), append(huge.labels, 1-2*(i%2))
	}
	out["values of 1e30"] = huge
	equal := stream{dim: 4}
	for i := range 300 {
		equal.xs = append(equal.xs, engine.Dense([]float32{1, 2, 3, 4}))
		equal.labels = append(equal.labels, 1-2*(i%3%2))
	}
	out["all-equal vectors, both labels"] = equal
	zero := stream{dim: 5}
	for i := range 300 {
		zero.xs = append(zero.xs, engine.Sparse(nil, nil))
		zero.labels = append(zero.labels, 1-2*(i%2))
	}
	out["zero vectors"] = zero
	return out
}

// TestExtremeDataStaysFinite runs every learner over the extreme streams,
// with a strong regulariser so that the global scale renormalises many
// times; runStream checks every score is finite and the budget holds.
func TestExtremeDataStaysFinite(t *testing.T) {
	for name, s := range extremeStreams() {
		t.Run(name, func(t *testing.T) {
			for _, a := range algorithmsFor(task.Binary) {
				cfg := Config{Dim: s.dim, Budget: 10, Sigma: 8, Eta: 0.5, Lambda: 1, Gamma: 2, Seed: 1, C: 1}
				runStream(t, a, cfg, s)
			}
		})
	}
}

// TestMillionIdenticalRows: a million copies of one example. With λη = 0.5
// the global scale halves every step and must renormalise (flushing weights
// that vanish) rather than underflow; scores stay finite and the last
// prediction is still right. OGD runs with λ = 0: with a shrink it would
// add the example every other step (it has no budget) and its million
// support vectors would make the test quadratic.
func TestMillionIdenticalRows(t *testing.T) {
	if testing.Short() {
		t.Skip("a million rows per learner")
	}
	x := engine.Dense([]float32{3, -1})
	for _, a := range algorithmsFor(task.Binary) {
		cfg := Config{Dim: 2, Budget: 10, Sigma: 1, Eta: 1, Lambda: 0.5, Gamma: 2, Seed: 1, C: 1}
		if a == OGD {
			cfg.Lambda = 0
		}
		l := mustNew(t, a, cfg)
		var out outcome
		for i := range 1_000_000 {
			var err error
			if out, err = l.observe(x, 1); err != nil {
				t.Fatal(err)
			}
			if math.IsNaN(out.Score) || math.IsInf(out.Score, 0) {
				t.Fatalf("%v step %d: score %v", a, i, out.Score)
			}
		}
		if out.Mistake {
			t.Errorf("%v: still wrong after a million identical rows (score %v)", a, out.Score)
		}
		if s := l.b.scale; !(s >= 1e-15 && s <= 1e15) {
			t.Errorf("%v: scale %v left its range", a, s)
		}
	}
}
