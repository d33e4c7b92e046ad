package bogd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/engine"
)

// TestProjectronStaysBoundedOnNearDuplicates: codrna-like data, where the
// points are nearly collinear in kernel space (one integer feature in the
// hundreds, the others in [0, 1], σ = 8: neighbours have κ ≈ 0.99). Storing
// such near-duplicates makes the Gram matrix numerically singular; with the
// old guard (‖δ‖² > 1e-12) and float32 kernel values in K⁻¹ the coefficients
// exploded past 1e30 and predictions became noise. The coefficients must stay
// moderate and the learner must keep learning.
func TestProjectronStaysBoundedOnNearDuplicates(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 8000
	xs := make([][]float32, n)
	ys := make([]int, n)
	for i := range xs {
		a := float32(rng.IntN(100) - 500)
		b, c := float32(rng.Float64()), float32(rng.Float64())
		x := []float32{a, b, c}
		y := 1
		if math.Sin(float64(a)/7)+float64(b-c) < 0 {
			y = -1
		}
		if rng.Float64() < 0.05 {
			y = -y
		}
		xs[i], ys[i] = x, y
	}
	for _, algo := range []Algorithm{Projectron, ProjectronPP} {
		t.Run(algo.String(), func(t *testing.T) {
			l, err := New(algo, Config{Dim: 3, Budget: 1000, Sigma: 8, Eta: 0.2, Gamma: 10})
			if err != nil {
				t.Fatal(err)
			}
			mistakes := 0
			for i, x := range xs {
				o, err := l.observe(engine.Dense(x), ys[i])
				if err != nil {
					t.Fatal(err)
				}
				if o.Mistake && i >= n/2 {
					mistakes++
				}
			}
			maxAlpha := 0.0
			for _, a := range l.b.rule.(*projectron).alpha[:l.SupportVectors()] {
				maxAlpha = max(maxAlpha, math.Abs(a))
			}
			rate := float64(mistakes) / float64(n/2)
			t.Logf("%d support vectors, max |α| %.3g, mistake rate over the second half %.3f", l.SupportVectors(), maxAlpha, rate)
			if !(maxAlpha < 1e3) {
				t.Errorf("max |α| = %g: the projections blew up", maxAlpha)
			}
			if rate > 0.2 {
				t.Errorf("mistake rate %.3f over the second half: the learner stopped learning (5%% label noise)", rate)
			}
		})
	}
}
