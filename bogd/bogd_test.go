package bogd

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/bogd-project/bogd/engine"
)

// weightsByX maps each support vector of a 1-D learner to its signed
// coefficient, keyed by the vector's only feature (tests use distinct x).
func weightsByX(t *testing.T, l *Learner) map[float32]float64 {
	t.Helper()
	m, err := l.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[float32]float64, m.Len())
	var buf []float32
	for i := range m.Len() {
		buf = m.Vector(i, buf)
		if _, dup := out[buf[0]]; dup {
			t.Fatalf("support vector x=%v stored twice", buf[0])
		}
		out[buf[0]] = float64(m.Weight(0, i))
	}
	return out
}

func mustNew(t testing.TB, a Algorithm, cfg Config) *Learner {
	t.Helper()
	l, err := New(a, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func observe(t testing.TB, l *Learner, x float32, y int) outcome {
	t.Helper()
	out, err := l.observe(engine.Dense([]float32{x}), y)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

// gauss is κ for 1-D points and σ = 1.
func gauss(a, b float64) float64 { return math.Exp(-(a - b) * (a - b) / 2) }

func TestPerceptronByHand(t *testing.T) {
	l := mustNew(t, Perceptron, Config{Dim: 1, Sigma: 1})
	// f = 0 predicts +1: a −1 example is a mistake and is added.
	if out := observe(t, l, 0, -1); !out.Mistake || out.Score != 0 {
		t.Fatalf("step 1: %+v", out)
	}
	// f(1) = −κ(1,0) < 0: mistake for +1.
	if out := observe(t, l, 1, 1); !out.Mistake || !near(out.Score, -gauss(1, 0), 1e-6) {
		t.Fatalf("step 2: %+v", out)
	}
	// f(0) = −1 + κ(0,1) < 0: correct for −1, no update.
	if out := observe(t, l, 0, -1); out.Mistake || out.Updated || !near(out.Score, -1+gauss(0, 1), 1e-6) {
		t.Fatalf("step 3: %+v", out)
	}
	w := weightsByX(t, l)
	if len(w) != 2 || w[0] != -1 || w[1] != 1 {
		t.Fatalf("weights %v", w)
	}
}

func TestOGDByHand(t *testing.T) {
	const eta, lambda = 0.5, 0.2
	l := mustNew(t, OGD, Config{Dim: 1, Sigma: 1, Eta: eta, Lambda: lambda})
	lr := 1 - eta*lambda
	observe(t, l, 0, 1) // f = 0 < 1: add η
	// f(1) = η·κ(1,0) ≈ 0.30 < 1 for y = +1: shrink and add.
	if out := observe(t, l, 1, 1); !out.Updated || !near(out.Score, eta*gauss(0, 1), 1e-6) {
		t.Fatalf("step 2: %+v", out)
	}
	w := weightsByX(t, l)
	if !near(w[0], eta*lr, 1e-6) || !near(w[1], eta, 1e-6) {
		t.Fatalf("weights %v", w)
	}
}

func TestRBPKeepsBudget(t *testing.T) {
	l := mustNew(t, RBP, Config{Dim: 1, Sigma: 1, Budget: 2, Seed: 3})
	// Far-apart points with alternating labels are all mistakes: the
	// nearest (previous) point has the other label.
	for k, y := range []int{-1, 1, -1, 1} {
		if out := observe(t, l, float32(10*k), y); !out.Mistake {
			t.Fatalf("step %d: no mistake", k)
		}
		if n := l.SupportVectors(); n != min(k+1, 2) {
			t.Fatalf("step %d: %d support vectors", k, n)
		}
	}
	w := weightsByX(t, l)
	if w[30] != 1 { // the newest is never discarded
		t.Fatalf("weights %v", w)
	}
}

// TestBOGDByHand follows Algorithm 1 with B = 2 on far-apart points, where
// f(x) ≈ 0 and every example updates.
func TestBOGDByHand(t *testing.T) {
	for _, proj := range []Projection{ClipEach, RescaleAll} {
		const eta, lambda, gamma = 0.5, 0.4, 2
		lr := 1 - eta*lambda
		l := mustNew(t, BOGD, Config{Dim: 1, Sigma: 0.1, Budget: 2, Eta: eta, Lambda: lambda, Gamma: gamma, Seed: 1, Projection: proj})
		observe(t, l, 0, 1)
		observe(t, l, 10, -1)
		w := weightsByX(t, l)
		if !near(w[0], eta*lr, 1e-6) || !near(w[10], -eta, 1e-6) {
			t.Fatalf("%v: below budget: %v", proj, w)
		}
		// At the budget: one of the two goes, the survivor is scaled by
		// (1−λη)·B/(B−1) = 1.6, the new one enters at η.
		observe(t, l, 20, 1)
		w = weightsByX(t, l)
		if len(w) != 2 {
			t.Fatalf("%v: %d support vectors", proj, len(w))
		}
		survivor, ok := w[0], true
		want := eta * lr * lr * 2
		if _, kept := w[10]; kept {
			survivor, want = w[10], -eta*lr*2
			_, ok = w[0]
			ok = !ok
		}
		if !ok {
			t.Fatalf("%v: both old vectors kept: %v", proj, w)
		}
		if !near(survivor, want, 1e-6) || !near(w[20], eta, 1e-6) {
			t.Fatalf("%v: at budget: %v (survivor want %v)", proj, w, want)
		}
		// Once more: the survivor grows past γη = 1 and is projected.
		observe(t, l, 30, -1)
		w = weightsByX(t, l)
		limit := gamma * eta
		for x, c := range w {
			if math.Abs(c) > limit*(1+1e-6) {
				t.Fatalf("%v: weight %v of x=%v above γη", proj, c, x)
			}
		}
		if c, ok := w[30]; !ok || (proj == ClipEach && !near(c, -eta, 1e-6)) {
			t.Fatalf("%v: newest %v", proj, w)
		}
	}
}

// explicitBOGDpp is the textbook form of one BOGD++ budget step: given the
// weights before the step (unsigned), it returns the water-filling set R and
// the probabilities of Eq. (16) with clamping.
func explicitBOGDpp(alpha []float64) (p []float64) {
	order := make([]int, len(alpha))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return alpha[order[a]] < alpha[order[b]] })
	m := len(alpha)
	sum := 0.0
	for _, a := range alpha {
		sum += a
	}
	for alpha[order[m-1]]*float64(m-1) > sum {
		sum -= alpha[order[m-1]]
		m--
	}
	p = make([]float64, len(alpha))
	s := float64(m-1) / sum
	for _, i := range order[:m] {
		p[i] = 1 - s*alpha[i]
	}
	return p
}

// TestBOGDppStepsMatchEquations runs BOGD++ on a long random stream and
// checks every budget step against Eqs. (10) and (16) computed from the
// weights before the step: the discarded vector had p > 0, survivors in R
// share (1−λη)·Σ_R α/(|R|−1) (capped at γη), the others shrink by 1−λη.
func TestBOGDppStepsMatchEquations(t *testing.T) {
	for _, gamma := range []float64{1, 4, 1000} {
		const eta, lambda, budget = 0.5, 0.01, 6
		l := mustNew(t, BOGDpp, Config{Dim: 1, Sigma: 1, Budget: budget, Eta: eta, Lambda: lambda, Gamma: gamma, Seed: 7})
		rng := rand.New(rand.NewPCG(1, 2))
		lr := 1 - eta*lambda
		checked := 0
		for step := range 400 {
			before := weightsByX(t, l)
			x := float32(step) * 0.37
			y := 2*rng.IntN(2) - 1
			out := observe(t, l, x, y)
			after := weightsByX(t, l)
			if len(after) > budget {
				t.Fatalf("step %d: %d support vectors", step, len(after))
			}
			if !out.Updated || len(before) < budget {
				continue
			}
			xs := make([]float32, 0, len(before))
			alpha := make([]float64, 0, len(before))
			for x, c := range before {
				xs = append(xs, x)
				alpha = append(alpha, math.Abs(c))
			}
			p := explicitBOGDpp(alpha)
			discarded := -1
			for i, x := range xs {
				if _, ok := after[x]; !ok {
					if discarded >= 0 {
						t.Fatalf("step %d: two vectors discarded", step)
					}
					discarded = i
				}
			}
			if discarded < 0 || p[discarded] <= 0 {
				t.Fatalf("step %d: discarded %d with p=%v", step, discarded, p)
			}
			// R: the members with p ≥ 0 found by water-filling; recompute
			// its sum directly.
			rSum, rSize := 0.0, 0
			for i := range alpha {
				if inWaterFill(alpha, i) {
					rSum += alpha[i]
					rSize++
				}
			}
			shared := min(lr*rSum/float64(rSize-1), gamma*eta)
			for i, x := range xs {
				if i == discarded {
					continue
				}
				want := lr * alpha[i]
				if inWaterFill(alpha, i) {
					want = shared
				}
				if got := math.Abs(after[x]); !near(got, want, 1e-5) {
					t.Fatalf("γ=%v step %d: weight of x=%v is %v, want %v (before %v)", gamma, step, x, got, want, alpha[i])
				}
			}
			if got := after[x]; !near(got, float64(y)*min(eta, gamma*eta), 1e-6) {
				t.Fatalf("step %d: new weight %v", step, got)
			}
			checked++
		}
		if checked < 100 {
			t.Fatalf("γ=%v: only %d budget steps checked", gamma, checked)
		}
	}
}

// inWaterFill reports whether alpha[i] belongs to the water-filling set R.
func inWaterFill(alpha []float64, i int) bool {
	sorted := append([]float64(nil), alpha...)
	sort.Float64s(sorted)
	m, sum := len(sorted), 0.0
	for _, a := range sorted {
		sum += a
	}
	for sorted[m-1]*float64(m-1) > sum {
		sum -= sorted[m-1]
		m--
	}
	return alpha[i] <= sorted[m-1]
}

// TestUnbiasedRemoval checks Eqs. (6) and (8): averaged over the random
// discard, every old weight after a budget step is (1−λη) times its value
// before, for BOGD and for BOGD++ (whose state here makes Eq. (16) clamp).
func TestUnbiasedRemoval(t *testing.T) {
	const eta, lambda, trials = 1.0, 0.5, 20000
	lr := 1 - eta*lambda
	// Three far-apart updates below the budget give weights η/4, η/2, η.
	xs := []float32{0, 10, 20}
	want := map[float32]float64{0: lr * eta / 4, 10: -lr * eta / 2, 20: lr * eta}
	for _, a := range []Algorithm{BOGD, BOGDpp} {
		mean := map[float32]float64{}
		for seed := range trials {
			l := mustNew(t, a, Config{Dim: 1, Sigma: 0.1, Budget: 3, Eta: eta, Lambda: lambda, Gamma: 1e6, Seed: uint64(seed)})
			for k, x := range xs {
				observe(t, l, x, 1-2*(k%2))
			}
			observe(t, l, 30, 1)
			for x, c := range weightsByX(t, l) {
				mean[x] += c / trials
			}
		}
		for x, w := range want {
			// BOGD's uniform estimator has per-trial spread up to about
			// 1.5·α; 5 standard errors over 20,000 trials is 0.06·α.
			if math.Abs(mean[x]-w) > 0.06*math.Abs(w)+1e-9 {
				t.Errorf("%v: E[α'] of x=%v is %.4f, want %.4f", a, x, mean[x], w)
			}
		}
	}
}
