package bogd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/simd"
	"github.com/bogd-project/bogd/task"
)

// Tests of the multi-class and regression rules: literal float64 twins of
// the LSOKL toolbox's rules (lsokl-rules.md) compared step by step,
// sequences worked out by hand, unbiased removal, budgets and resumption.

// taskStream is a stream of one task: multi-class labels are class labels
// (not indices), regression labels real values.
type taskStream struct {
	dim    int
	xs     []engine.Vector
	labels []float64
}

// testClasses are the labels of the multi-class tests: unordered in the
// stream, negative and zero, to exercise the label mapping.
var testClasses = []int{-3, 0, 7, 12}

// multiStream draws four Gaussian classes in dimension dim, a tenth of the
// labels flipped at random and a few exact repeats.
func multiStream(n, dim int, seed uint64) taskStream {
	rng := rand.New(rand.NewPCG(seed, 31))
	s := taskStream{dim: dim}
	for i := range n {
		if i > 10 && rng.IntN(12) == 0 {
			k := rng.IntN(i)
			s.xs, s.labels = append(s.xs, s.xs[k]), append(s.labels, s.labels[k])
			continue
		}
		c := rng.IntN(len(testClasses))
		x := make([]float32, dim)
		for j := range x {
			x[j] = float32(rng.NormFloat64()*1.2 + 2*float64((c+j)%len(testClasses)))
		}
		if rng.IntN(10) == 0 {
			c = rng.IntN(len(testClasses))
		}
		s.xs, s.labels = append(s.xs, engine.Dense(x)), append(s.labels, float64(testClasses[c]))
	}
	return s
}

// binaryStream is syntheticStream with float64 labels.
func binaryStream(n, dim int, seed uint64) taskStream {
	b := syntheticStream(n, dim, seed)
	s := taskStream{dim: dim, xs: b.xs}
	for _, y := range b.labels {
		s.labels = append(s.labels, float64(y))
	}
	return s
}

// regressionStream draws y = sin(x₀) + x₁/3 + noise on [0, 1]-ish scales.
func regressionStream(n, dim int, seed uint64) taskStream {
	rng := rand.New(rand.NewPCG(seed, 37))
	s := taskStream{dim: dim}
	for range n {
		x := make([]float32, dim)
		for j := range x {
			x[j] = float32(rng.Float64() * 4)
		}
		y := math.Sin(float64(x[0])) + float64(x[1%dim])/3 + 0.1*rng.NormFloat64()
		s.xs, s.labels = append(s.xs, engine.Dense(x)), append(s.labels, y)
	}
	return s
}

// forAlgo adapts a test configuration to a: FOGD's unnormalised features
// (‖z‖² = D) want its own small default step, or a regression step
// overshoots and diverges.
func forAlgo(c Config, a Algorithm) Config {
	if a == FOGD {
		c.Eta = 0
	}
	return c
}

func taskConfig(tk task.Task, dim, budget int, seed uint64) Config {
	c := Config{Dim: dim, Budget: budget, Sigma: 2, Eta: 0.3, Lambda: 1e-3, Gamma: 3, Seed: seed, Task: tk, C: 0.8}
	switch tk {
	case task.Multiclass:
		c.Classes = slices.Sorted(slices.Values(testClasses))
	case task.Regression:
		c.Eta, c.Epsilon, c.Nu = 0.1, 0.1, 0.4
	}
	return c
}

// refTask is the toolbox's multi-class and regression rules written out in
// float64 with plain slices, one support vector per row of alpha (K
// coefficients), kept in slot order with swap-remove deletion as the
// learners keep theirs (RBP's random choice indexes slots), and the arrival
// step of each vector for the FIFO rules.
type refTask struct {
	algo    Algorithm
	cfg     Config
	k       int
	rng     *rand.Rand
	sv      [][]float64
	alpha   [][]float64
	label   []int // class index (multi-class) of each vector's example
	born    []int
	step    int
	q       float64 // Forgetron's Q
	m       int     // Forgetron's M
	eps     float64 // NORMA's ε
	updated bool
	// NOGD's second phase: the Nyström map's rows and the linear model.
	nysM [][]float64
	nysW [][]float64
	t    int // BSGD's examples seen
	// FOGD's frequencies (the learner's own, drawn from the same stream)
	// and its weights, one row per output, over [cos, sin] of each.
	feat *engine.Features
	fw   [][]float64
}

func newRefTask(a Algorithm, cfg Config) *refTask {
	k := 1
	if cfg.Task == task.Multiclass {
		k = len(cfg.Classes)
	}
	return &refTask{algo: a, cfg: cfg, k: k, rng: rand.New(rand.NewPCG(cfg.Seed, pcgStream)), eps: cfg.Epsilon}
}

func (r *refTask) scores(x []float64) []float64 {
	f := make([]float64, r.k)
	if r.algo == FOGD {
		z := r.fourier(x)
		for c := range f {
			for j, v := range z {
				f[c] += r.fw[c][j] * v
			}
		}
		return f
	}
	if r.nysM != nil {
		z := r.nystrom(x)
		for c := range f {
			for j, v := range z {
				f[c] += r.nysW[c][j] * v
			}
		}
		return f
	}
	for i, v := range r.sv {
		kv := fpKernel(v, x, r.cfg.Sigma)
		for c := range f {
			f[c] += r.alpha[i][c] * kv
		}
	}
	return f
}

// fourier is FOGD's z(x) = [cos(uⱼᵀx)]ⱼ ++ [sin(uⱼᵀx)]ⱼ in float64.
func (r *refTask) fourier(x []float64) []float64 {
	if r.feat == nil {
		f, err := engine.NewFeatures(r.cfg.Dim, r.cfg.Features, r.cfg.Sigma, rand.New(rand.NewPCG(r.cfg.Seed, fourierStream)))
		if err != nil {
			panic(err)
		}
		r.feat = f
		r.fw = make([][]float64, r.k)
		for c := range r.fw {
			r.fw[c] = make([]float64, 2*f.Count())
		}
	}
	d := r.feat.Count()
	z := make([]float64, 2*d)
	var u []float32
	for j := range d {
		u = r.feat.Frequency(j, u)
		var p float64
		for i, v := range u {
			p += float64(v) * x[i]
		}
		z[j], z[d+j] = math.Cos(p), math.Sin(p)
	}
	return z
}

// nystrom is NOGD's feature map z(x) = M·K(SV, x).
func (r *refTask) nystrom(x []float64) []float64 {
	z := make([]float64, len(r.nysM))
	for j, row := range r.nysM {
		for i, v := range r.sv {
			z[j] += row[i] * fpKernel(v, x, r.cfg.Sigma)
		}
	}
	return z
}

// toNystrom is NysGD.m's transition: the top eigenpairs of the landmarks'
// kernel matrix (gonum's solver; eigenvalues at or below 1e-10 of the
// largest dropped, as the learner does), M = D^(−1/2)Vᵀ, w = α·V·D^(1/2).
func (r *refTask) toNystrom() {
	n := len(r.sv)
	gram := mat.NewSymDense(n, nil)
	for i := range n {
		for j := range n {
			gram.SetSym(i, j, fpKernel(r.sv[i], r.sv[j], r.cfg.Sigma))
		}
	}
	var eig mat.EigenSym
	eig.Factorize(gram, true)
	values := eig.Values(nil)
	var vec mat.Dense
	eig.VectorsTo(&vec)
	r.nysW = make([][]float64, r.k)
	for c := range r.nysW {
		r.nysW[c] = make([]float64, r.cfg.Rank)
	}
	for j := range r.cfg.Rank {
		e := n - 1 - j
		row := make([]float64, n)
		if e >= 0 && values[e] > 1e-10*values[n-1] {
			for i := range n {
				row[i] = vec.At(i, e) / math.Sqrt(values[e])
				for c := range r.k {
					r.nysW[c][j] += r.alpha[i][c] * vec.At(i, e) * math.Sqrt(values[e])
				}
			}
		}
		r.nysM = append(r.nysM, row)
	}
}

// mergeBSGD is BudgetedSVM's merge of B+1 vectors into B (see bsgd), in
// float64 with its scalar golden-section search.
func (r *refTask) mergeBSGD(same int) {
	last := len(r.sv) - 1
	if same >= 0 {
		for c := range r.alpha[same] {
			r.alpha[same][c] += r.alpha[last][c]
		}
		r.remove(last)
		return
	}
	norm := func(a []float64) float64 {
		var s float64
		for _, v := range a {
			s += v * v
		}
		return s
	}
	least := math.Inf(1)
	for i := range r.sv {
		least = min(least, norm(r.alpha[i]))
	}
	m := 0
	for norm(r.alpha[m]) > least*(1+1e-5) {
		m++
	}
	losses, hs := make([]float64, len(r.sv)), make([]float64, len(r.sv))
	for n := range r.sv {
		losses[n] = math.Inf(1)
		if n == m {
			continue
		}
		k := fpKernel(r.sv[m], r.sv[n], r.cfg.Sigma)
		var a1, a2 float64
		for c := range r.alpha[m] {
			d := r.alpha[m][c] + r.alpha[n][c]
			if math.Abs(d) <= 1e-5*(math.Abs(r.alpha[m][c])+math.Abs(r.alpha[n][c])) {
				d = 1e-4
			}
			a1, a2 = a1+r.alpha[m][c]/d, a2+r.alpha[n][c]/d
		}
		// The search itself is the learner's (simd's TestMergeSearch64
		// checks it): on flat objectives golden-section steps are decided
		// by rounding.
		h := simd.MergeSearch64(a1, a2, k)
		var loss float64
		for c := range r.alpha[m] {
			am, an := r.alpha[m][c], r.alpha[n][c]
			z := am*math.Pow(k, (1-h)*(1-h)) + an*math.Pow(k, h*h)
			loss += am*am + an*an + 2*k*am*an - z*z
		}
		losses[n], hs[n] = loss, h
	}
	best := 0
	for losses[best] > slices.Min(losses)+1e-9*norm(r.alpha[m]) {
		best++
	}
	bestH := hs[best]
	h := max(bestH, 0)
	k := fpKernel(r.sv[m], r.sv[best], r.cfg.Sigma)
	z := make([]float64, len(r.sv[m]))
	for f := range z {
		z[f] = float64(float32(h*r.sv[m][f] + (1-h)*r.sv[best][f]))
	}
	alpha := make([]float64, r.k)
	for c := range alpha {
		alpha[c] = r.alpha[m][c]*math.Pow(k, (1-h)*(1-h)) + r.alpha[best][c]*math.Pow(k, h*h)
	}
	r.sv[m], r.alpha[m] = z, alpha
	r.remove(best)
}

// remove deletes slot i by moving the last vector into it.
func (r *refTask) remove(i int) {
	last := len(r.sv) - 1
	r.sv[i], r.alpha[i], r.label[i], r.born[i] = r.sv[last], r.alpha[last], r.label[last], r.born[last]
	r.sv, r.alpha, r.label, r.born = r.sv[:last], r.alpha[:last], r.label[:last], r.born[:last]
}

func (r *refTask) oldest() int {
	o := 0
	for i := range r.born {
		if r.born[i] < r.born[o] {
			o = i
		}
	}
	return o
}

func (r *refTask) push(x []float64, coef []float64, label int) {
	r.sv, r.alpha = append(r.sv, x), append(r.alpha, coef)
	r.label, r.born = append(r.label, label), append(r.born, r.step)
	r.updated = true
}

func (r *refTask) scaleAll(f float64) {
	for _, a := range r.alpha {
		for c := range a {
			a[c] *= f
		}
	}
}

// observe runs one step and returns the scores before it.
func (r *refTask) observe(x []float64, y float64) []float64 {
	r.step++
	r.updated = false
	f := r.scores(x)
	var yc, s int     // multi-class: true class and runner-up
	var loss float64  // multi-class hinge loss
	var dir []float64 // the pattern of an update: ±1 on y and s, or the residual's sign
	wrong, violated := false, false
	grad := 1.0
	switch r.cfg.Task {
	case task.Binary:
		yc = int(y)
		pred := 1
		if f[0] < 0 {
			pred = -1
		}
		loss = max(0, 1-y*f[0])
		wrong, violated = pred != yc, y*f[0] < 1
		dir = []float64{y}
	case task.Multiclass:
		yc, _ = slices.BinarySearch(r.cfg.Classes, int(y))
		pred := 0
		for c := range f {
			if f[c] > f[pred] {
				pred = c
			}
		}
		s = -1
		for c := range f {
			if c != yc && (s < 0 || f[c] > f[s]) {
				s = c
			}
		}
		loss = max(0, 1-(f[yc]-f[s]))
		wrong, violated = pred != yc, loss > 0
		dir = make([]float64, r.k)
		dir[yc], dir[s] = 1, -1
	default:
		d := y - f[0]
		wrong, violated = math.Abs(d) > r.cfg.Epsilon, math.Abs(d) > r.cfg.Epsilon
		dir, grad = []float64{math.Copysign(1, d)}, math.Abs(d)
		loss = math.Abs(d) - r.cfg.Epsilon
	}
	// paLoss is BPA-S's loss of scores g at this example.
	paLoss := func(g []float64) float64 {
		switch r.cfg.Task {
		case task.Binary:
			return 1 - y*g[0]
		case task.Multiclass:
			best := -1
			for c := range g {
				if c != yc && (best < 0 || g[c] > g[best]) {
					best = c
				}
			}
			return 1 - (g[yc] - g[best])
		}
		return math.Abs(y-g[0]) - r.cfg.Epsilon
	}
	scaled := func(a float64) []float64 {
		out := make([]float64, r.k)
		for c := range out {
			out[c] = a * dir[c]
		}
		return out
	}
	step := 1.0 // the Perceptron-style step: ±1, or ±η in regression
	if r.cfg.Task == task.Regression {
		step = r.cfg.Eta
	}
	switch r.algo {
	case Perceptron:
		if wrong {
			r.push(x, scaled(step), yc)
		}
	case OGD, NORMA, BOGDOldest:
		r.scaleAll(1 - r.cfg.Eta*r.cfg.Lambda)
		switch {
		case r.algo == NORMA && math.Abs(y-f[0]) <= r.eps:
			r.eps -= r.cfg.Nu * r.cfg.Eta
		case r.algo == NORMA:
			r.eps += (1 - r.cfg.Nu) * r.cfg.Eta
			r.push(x, scaled(r.cfg.Eta), yc)
		case violated && r.algo == OGD:
			r.push(x, scaled(r.cfg.Eta*grad), yc)
		case violated:
			if len(r.sv) == r.cfg.Budget {
				r.remove(r.oldest())
			}
			r.push(x, scaled(min(r.cfg.Eta*grad, r.cfg.Gamma*r.cfg.Eta)), yc)
		}
	case RBP:
		if wrong {
			if len(r.sv) == r.cfg.Budget {
				r.remove(r.rng.IntN(len(r.sv)))
			}
			r.push(x, scaled(step), yc)
		}
	case FOGD:
		if !violated {
			break
		}
		r.updated = true
		z := r.fourier(x)
		for c := range r.k {
			for j, v := range z {
				r.fw[c][j] += r.cfg.Eta * grad * dir[c] * v
			}
		}
	case NOGD:
		if !violated {
			break
		}
		r.updated = true
		if r.nysM == nil && len(r.sv) < r.cfg.Budget {
			r.push(x, scaled(r.cfg.Eta*grad), yc)
			break
		}
		if r.nysM == nil {
			r.toNystrom()
		}
		z := r.nystrom(x)
		for c := range r.k {
			for j, v := range z {
				r.nysW[c][j] += r.cfg.Eta * grad * dir[c] * v
			}
		}
	case BSGDMerge:
		r.t++
		r.scaleAll(1 - 1/float64(r.t))
		if !violated {
			break
		}
		same := -1
		for i, v := range r.sv {
			if fpKernel(v, x, r.cfg.Sigma) >= 1-0.5e-8 {
				same = i
			}
		}
		r.push(x, scaled(1/(r.cfg.Lambda*float64(r.t))), yc)
		if len(r.sv) > r.cfg.Budget {
			r.mergeBSGD(same)
		}
	case BPAS:
		if !(loss > 0) {
			break
		}
		g2 := 1.0
		if r.cfg.Task == task.Multiclass {
			g2 = 2
		}
		tau := min(r.cfg.C, loss/g2)
		if len(r.sv) < r.cfg.Budget {
			r.push(x, scaled(tau), yc)
			break
		}
		best, bestQ, bestBeta := -1, math.Inf(1), []float64(nil)
		for i, v := range r.sv {
			kr := fpKernel(v, x, r.cfg.Sigma)
			beta, fr := make([]float64, r.k), slices.Clone(f)
			var aa, bb, ab float64
			for c := range beta {
				beta[c] = r.alpha[i][c]*kr + tau*dir[c]
				fr[c] += beta[c] - r.alpha[i][c]*kr
				aa, bb, ab = aa+r.alpha[i][c]*r.alpha[i][c], bb+beta[c]*beta[c], ab+r.alpha[i][c]*beta[c]
			}
			if q := (aa+bb-2*kr*ab)/2 + r.cfg.C*max(0, paLoss(fr)); q < bestQ {
				best, bestQ, bestBeta = i, q, beta
			}
		}
		r.sv[best], r.alpha[best], r.born[best] = x, bestBeta, r.step
		r.updated = true
	case Forgetron:
		if wrong {
			r.m++
		}
		// task.Binary: y·f ≤ 0 updates (forgetron.m); the others update on
		// what they count.
		if r.cfg.Task == task.Binary && y*f[0] > 0 || r.cfg.Task != task.Binary && !wrong {
			break
		}
		r.push(x, scaled(step), yc)
		if len(r.sv) <= r.cfg.Budget {
			break
		}
		o := r.oldest()
		fr := r.scores(r.sv[o]) // f' includes the new vector
		var mu, delta float64
		switch r.cfg.Task {
		case task.Binary:
			mu, delta = float64(r.label[o])*fr[0], math.Abs(r.alpha[o][0])
		case task.Multiclass:
			mu, delta = fr[r.label[o]], math.Abs(r.alpha[o][r.label[o]])
		default:
			mu, delta = math.Abs(fr[0]), math.Abs(r.alpha[o][0])
		}
		a, bq, c := delta*delta-2*delta*mu, 2*delta, r.q-15.0/32*float64(r.m)
		phi := paperPhi(a, bq, c)
		r.scaleAll(phi)
		r.q += (delta*phi)*(delta*phi) + 2*delta*phi*(1-phi*mu)
		r.remove(o)
	case Projectron, ProjectronPP:
		proj := refProjectron{b: r.cfg.Budget, sigma: r.cfg.Sigma, sv: r.sv}
		if wrong {
			if len(r.sv) == 0 {
				r.push(x, scaled(step), yc)
				break
			}
			_, kx, d := proj.solve(x)
			delta2 := 1.0
			for i := range kx {
				delta2 -= kx[i] * d[i]
			}
			if len(r.sv) < r.cfg.Budget && delta2 > minDelta2 {
				r.push(x, scaled(step), yc)
				break
			}
			for i := range d {
				for c := range dir {
					r.alpha[i][c] += step * dir[c] * d[i]
				}
			}
			r.updated = true
			break
		}
		// task.Binary: 0 < ℓ < 1 strictly (proplus.m); multi-class: ℓ > 0.
		if r.algo != ProjectronPP || len(r.sv) == 0 || !(loss > 0) || r.cfg.Task == task.Binary && !(loss < 1) {
			break
		}
		_, kx, d := proj.solve(x)
		delta2, p := 1.0, 0.0
		for i := range kx {
			delta2 -= kx[i] * d[i]
			p += kx[i] * d[i]
		}
		if !(p > 0) {
			break
		}
		b := float64(r.cfg.Budget)
		u := 0.25 * math.Sqrt((b+1)/math.Log(b+1))
		tau := min(loss/p, 1)
		if tau*(2*loss-tau*p-2*u*math.Sqrt(max(delta2, 0))) >= 0 {
			for i := range d {
				for c := range dir {
					r.alpha[i][c] += tau * dir[c] * d[i]
				}
			}
			r.updated = true
		}
	}
	return f
}

// TestTasksMatchReference runs every deterministic rule of every task (and
// RBP, whose draws the twin replays) next to its float64 twin: the same scores before every step (to float32 accuracy),
// the same mistakes and updates, the same support vector count.
func TestTasksMatchReference(t *testing.T) {
	streams := map[task.Task]taskStream{task.Binary: binaryStream(300, 3, 3), task.Multiclass: multiStream(300, 3, 1), task.Regression: regressionStream(300, 3, 2)}
	for _, tk := range []task.Task{task.Binary, task.Multiclass, task.Regression} {
		s := streams[tk]
		for _, a := range algorithmsFor(tk) {
			if a == BOGD || a == BOGDpp || a == Auto {
				continue // random removal: TestTaskUnbiasedRemoval and TestTaskBOGDSteps; Auto: TestAutoMatchesRaker
			}
			t.Run(tk.String()+"/"+a.String(), func(t *testing.T) {
				cfg := forAlgo(taskConfig(tk, s.dim, 25, 3), a)
				l := mustNew(t, a, cfg)
				ref := newRefTask(a, l.Config()) // with the defaults filled in
				updates := 0
				for i, x := range s.xs {
					xf := make([]float64, s.dim)
					for j, v := range x.Dense {
						xf[j] = float64(v)
					}
					want := ref.observe(xf, s.labels[i])
					got, err := l.Learn(x, s.labels[i])
					if err != nil {
						t.Fatal(err)
					}
					scores := got.Scores
					if tk != task.Multiclass {
						scores = []float64{got.Score}
					}
					var mag float64
					for _, row := range ref.alpha {
						for _, c := range row {
							mag += math.Abs(c)
						}
					}
					for c := range ref.nysW {
						for j, w := range ref.nysW[c] {
							for _, m := range ref.nysM[j] {
								mag += math.Abs(w * m)
							}
						}
					}
					for _, row := range ref.fw {
						for _, w := range row {
							mag += math.Abs(w)
						}
					}
					for c := range want {
						if math.Abs(scores[c]-want[c]) > 1e-5*(1+mag) {
							t.Fatalf("step %d: score %d = %.9g, twin %.9g", i, c, scores[c], want[c])
						}
					}
					if got.Updated != ref.updated || l.SupportVectors() != len(ref.sv) {
						t.Fatalf("step %d: updated %v with %d vectors, twin %v with %d", i, got.Updated, l.SupportVectors(), ref.updated, len(ref.sv))
					}
					if got.Updated {
						updates++
					}
				}
				if updates < 20 {
					t.Fatalf("only %d updates: the stream does not exercise the rule", updates)
				}
			})
		}
	}
}

// TestMulticlassPerceptronByHand: classes {-3, 0, 7, 12}, 1-D points,
// σ = 1, g = κ(0, 1) = e^(−1/2).
func TestMulticlassPerceptronByHand(t *testing.T) {
	l := mustNew(t, Perceptron, Config{Dim: 1, Sigma: 1, Task: task.Multiclass, Classes: []int{-3, 0, 7, 12}})
	g := math.Exp(-0.5)
	learn := func(x float32, y float64) Step {
		s, err := l.Learn(engine.Dense([]float32{x}), y)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// Every score 0: the lowest class index wins (label −3); y = 0 is
	// class 1, the runner-up class 0. x=0 is stored with +1 on class 1,
	// −1 on class 0.
	if s := learn(0, 0); s.Label != -3 || !s.Mistake || !s.Updated || !slices.Equal(s.Scores, []float64{0, 0, 0, 0}) {
		t.Fatalf("step 1: %+v", s)
	}
	// x=1, y=7 (class 2): scores (−g, g, 0, 0): predicts 0, mistake; the
	// runner-up among {0, 1, 3} is class 1 (g).
	if s := learn(1, 7); s.Label != 0 || !s.Mistake || !near(s.Scores[0], -g, 1e-6) || !near(s.Scores[1], g, 1e-6) {
		t.Fatalf("step 2: %+v", s)
	}
	// x=0, y=0: scores (−1, 1−g, g, 0), and g ≈ 0.61 beats 1−g ≈ 0.39:
	// predicts 7, a mistake; the runner-up among classes {0, 2, 3} is 2.
	// x=0 is added again with +1 on class 1, −1 on class 2.
	s := learn(0, 0)
	if s.Label != 7 || !s.Mistake || !near(s.Scores[1], 1-g, 1e-6) || !near(s.Scores[2], g, 1e-6) {
		t.Fatalf("step 3: %+v", s)
	}
	// x=0, y=0 once more: class 1 has 2−g ≈ 1.39, class 2 g−1 ≈ −0.39:
	// correct, no update.
	if s := learn(0, 0); s.Label != 0 || s.Mistake || s.Updated || !near(s.Scores[1], 2-g, 1e-6) || !near(s.Scores[2], g-1, 1e-6) {
		t.Fatalf("step 4: %+v", s)
	}
	m, err := l.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if m.Outputs() != 4 || m.Len() != 3 {
		t.Fatalf("snapshot of %d outputs and %d vectors", m.Outputs(), m.Len())
	}
	scores, err := m.Scores(engine.Dense([]float32{0}), nil)
	if err != nil || !near(scores[1], 2-g, 1e-6) || !near(scores[0], -1, 1e-6) || !near(scores[3], 0, 1e-9) {
		t.Fatalf("snapshot scores %v, %v", scores, err)
	}
}

// TestNORMAByHand: ε starts at 0.1, η = 0.5, λ = 0.2, ν = 0.4, 1-D points
// far apart (σ = 0.01: no kernel value between different points).
func TestNORMAByHand(t *testing.T) {
	const eta, lambda, nu = 0.5, 0.2, 0.4
	l := mustNew(t, NORMA, Config{Dim: 1, Sigma: 0.01, Eta: eta, Lambda: lambda, Nu: nu, Epsilon: 0.1, Task: task.Regression})
	lr := 1 - eta*lambda
	learn := func(x float32, y float64) Step {
		s, err := l.Learn(engine.Dense([]float32{x}), y)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// f(0) = 0, |1 − 0| > 0.1: add +η; ε = 0.1 + 0.6·0.5 = 0.4.
	if s := learn(0, 1); s.Label != 0 || !s.Updated {
		t.Fatalf("step 1: %+v", s)
	}
	// f(0) = η = 0.5 before the shrink; |0.7 − 0.5| ≤ 0.4: no update,
	// ε = 0.4 − 0.2 = 0.2; the weight shrinks to 0.5·0.9.
	if s := learn(0, 0.7); !near(s.Label, eta, 1e-6) || s.Updated {
		t.Fatalf("step 2: %+v", s)
	}
	// f(0) = 0.45; |0 − 0.45| > 0.2: shrink to 0.405, add −η.
	if s := learn(0, 0); !near(s.Label, eta*lr, 1e-6) || !s.Updated {
		t.Fatalf("step 3: %+v", s)
	}
	p, err := l.Predict(engine.Dense([]float32{0}))
	if err != nil || !near(p.Label, eta*lr*lr-eta, 1e-6) {
		t.Fatalf("prediction %+v (%v), want %v", p, err, eta*lr*lr-eta)
	}
	if eps := l.b.rule.(*norma).eps; !near(eps, 0.2+0.6*eta, 1e-12) {
		t.Fatalf("ε = %v", eps)
	}
}

// TestBOGDOldestByHand: regression, budget 2, far-apart points: the third
// update drops the first vector; no rescaling; the new coefficient is
// clipped at γη.
func TestBOGDOldestByHand(t *testing.T) {
	const eta, lambda, gamma = 0.5, 0.1, 3
	l := mustNew(t, BOGDOldest, Config{Dim: 1, Sigma: 0.01, Budget: 2, Eta: eta, Lambda: lambda, Gamma: gamma, Epsilon: 0.1, Task: task.Regression})
	lr := 1 - eta*lambda
	for _, step := range []struct {
		x    float32
		y    float64
		want float64 // the prediction
	}{{0, 1, 0}, {1, -2, 0}, {2, 10, 0}, {0, 0, 0}} {
		if s, err := l.Learn(engine.Dense([]float32{step.x}), step.y); err != nil || !near(s.Label, step.want, 1e-6) {
			t.Fatalf("x=%v: %+v (%v), want prediction %v", step.x, s, err, step.want)
		}
	}
	// Every step shrinks by lr first. Step 1 stores x=0 with η, step 2
	// x=1 with −2η; step 3 is at the budget: x=0, the oldest, goes and x=2
	// comes with min(10η, γη) = γη; step 4 predicts 0 at x=0 (gone) and,
	// |0 − 0| ≤ ε, only shrinks.
	want := map[float32]float64{1: -2 * eta * lr * lr, 2: gamma * eta * lr}
	m, _ := l.snapshot()
	if m.Len() != 2 {
		t.Fatalf("%d vectors", m.Len())
	}
	for i := range m.Len() {
		x := m.Vector(i, nil)[0]
		if w, ok := want[x]; !ok || !near(float64(m.Weight(0, i)), w, 1e-6) {
			t.Fatalf("vector x=%v has weight %v, want %v", x, m.Weight(0, i), want)
		}
	}
}

// TestTaskUnbiasedRemoval checks Eqs. (6) and (8) in the other tasks:
// averaged over the random discard, every old coefficient after a budget
// step is (1−λη) times its value before, for BOGD and BOGD++ with
// multi-class patterns and with regression's unequal weights.
func TestTaskUnbiasedRemoval(t *testing.T) {
	const eta, lambda, trials = 1.0, 0.5, 20000
	lr := 1 - eta*lambda
	type example struct {
		x float32
		y float64
	}
	cases := []struct {
		tk    task.Task
		cfg   Config
		train []example
		next  example
	}{
		// Classes {1, 2, 3}: three far-apart updates below the budget;
		// each adds +η on its class and −η on the runner-up (class 1,
		// the lowest index, unless that is y).
		{task.Multiclass, Config{Classes: []int{1, 2, 3}}, []example{{0, 2}, {10, 3}, {20, 1}}, example{30, 2}},
		// task.Regression: residuals 0.3, −2 and 5 give weights 0.3η, 2η, 5η
		// (γ large: no clip) of both signs.
		{task.Regression, Config{Epsilon: 0.1}, []example{{0, 0.3}, {10, -2}, {20, 5}}, example{30, 1}},
	}
	for _, c := range cases {
		for _, a := range []Algorithm{BOGD, BOGDpp} {
			// The coefficients after the training steps.
			cfg := c.cfg
			cfg.Dim, cfg.Sigma, cfg.Budget, cfg.Eta, cfg.Lambda, cfg.Gamma, cfg.Task = 1, 0.1, 3, eta, lambda, 1e6, c.tk
			first := mustNew(t, a, cfg)
			for _, e := range c.train {
				if _, err := first.Learn(engine.Dense([]float32{e.x}), e.y); err != nil {
					t.Fatal(err)
				}
			}
			before := outputsByX(t, first)
			mean := map[float32][]float64{}
			for seed := range trials {
				cfg.Seed = uint64(seed)
				l := mustNew(t, a, cfg)
				for _, e := range append(slices.Clone(c.train), c.next) {
					if _, err := l.Learn(engine.Dense([]float32{e.x}), e.y); err != nil {
						t.Fatal(err)
					}
				}
				for x, coefs := range outputsByX(t, l) {
					if mean[x] == nil {
						mean[x] = make([]float64, len(coefs))
					}
					for o, v := range coefs {
						mean[x][o] += v / trials
					}
				}
			}
			for x, coefs := range before {
				for o, v := range coefs {
					want := lr * v
					// 5 standard errors of the uniform estimator (spread up
					// to about 1.5·|α|) over 20,000 trials: 0.06·|α|.
					if math.Abs(mean[x][o]-want) > 0.06*math.Abs(v)+1e-9 {
						t.Errorf("%v %v: E[α'] of x=%v, output %d is %.4f, want %.4f", c.tk, a, x, o, mean[x][o], want)
					}
				}
			}
		}
	}
}

// outputsByX maps each support vector of a 1-D learner to its coefficients,
// one per output.
func outputsByX(t *testing.T, l *Learner) map[float32][]float64 {
	t.Helper()
	m, err := l.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	out := map[float32][]float64{}
	for i := range m.Len() {
		x := m.Vector(i, nil)[0]
		coefs := make([]float64, m.Outputs())
		for o := range coefs {
			coefs[o] = float64(m.Weight(o, i))
		}
		out[x] = coefs
	}
	return out
}

// TestTaskInvariants runs every learner of both tasks on a long stream: the
// budget is never exceeded, scores stay finite, BOGD's and BOGD++'s
// coefficients stay within γη, two runs with one seed agree, and the
// learner predicts (Predict, from another goroutine's view) what Learn
// predicted, with the original class labels.
func TestTaskInvariants(t *testing.T) {
	for _, tk := range []task.Task{task.Multiclass, task.Regression} {
		s := multiStream(1500, 5, 4)
		if tk == task.Regression {
			s = regressionStream(1500, 5, 5)
		}
		for _, a := range algorithmsFor(tk) {
			t.Run(tk.String()+"/"+a.String(), func(t *testing.T) {
				cfg := forAlgo(taskConfig(tk, s.dim, 30, 6), a)
				run := func() []Step {
					l := mustNew(t, a, cfg)
					var steps []Step
					for i, x := range s.xs {
						if i%50 == 0 {
							checkCoefficients(t, l, cfg)
						}
						p, err := l.Predict(x)
						if err != nil {
							t.Fatal(err)
						}
						st, err := l.Learn(x, s.labels[i])
						if err != nil {
							t.Fatal(err)
						}
						if p.Label != st.Label || math.Float64bits(p.Score) != math.Float64bits(st.Score) {
							t.Fatalf("step %d: Predict %+v, Learn %+v", i, p, st.Prediction)
						}
						if math.IsNaN(st.Score) || math.IsInf(st.Score, 0) {
							t.Fatalf("step %d: score %v", i, st.Score)
						}
						if tk == task.Multiclass && !slices.Contains(testClasses, int(st.Label)) {
							t.Fatalf("step %d: predicted label %v", i, st.Label)
						}
						if a.Budgeted() && l.SupportVectors() > cfg.Budget {
							t.Fatalf("step %d: %d support vectors over budget %d", i, l.SupportVectors(), cfg.Budget)
						}
						st.Scores = slices.Clone(st.Scores)
						steps = append(steps, st)
					}
					return steps
				}
				if a, b := run(), run(); fmt.Sprint(a) != fmt.Sprint(b) {
					t.Fatal("same seed, different runs")
				}
			})
		}
	}
}

// checkCoefficients checks that BOGD's and BOGD++'s coefficients stay in
// [−γη, γη] and that each vector has its two class coefficients opposite.
func checkCoefficients(t *testing.T, l *Learner, cfg Config) {
	t.Helper()
	if a := l.Algorithm(); a != BOGD && a != BOGDpp {
		return
	}
	m, err := l.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Len() {
		var sum float64
		for o := range m.Outputs() {
			w := float64(m.Weight(o, i))
			if math.Abs(w) > cfg.Gamma*cfg.Eta*(1+1e-5) {
				t.Fatalf("coefficient %d of vector %d is %v, above γη = %v", o, i, w, cfg.Gamma*cfg.Eta)
			}
			sum += w
		}
		if m.Outputs() > 1 && math.Abs(sum) > 1e-6 {
			t.Fatalf("vector %d: coefficients sum to %v, not 0", i, sum)
		}
	}
}

// TestTaskResumeEquivalence: a multi-class or regression learner saved and
// loaded mid-stream continues exactly as the uninterrupted one, and saves
// the same bytes at the end.
func TestTaskResumeEquivalence(t *testing.T) {
	for _, tk := range []task.Task{task.Multiclass, task.Regression} {
		s := multiStream(400, 4, 8)
		if tk == task.Regression {
			s = regressionStream(400, 4, 9)
		}
		for _, a := range algorithmsFor(tk) {
			cfg := forAlgo(taskConfig(tk, s.dim, 20, 13), a)
			cfg.Calibrate = tk == task.Multiclass // its state is resumed too
			learnAll := func(l *Learner, from, to int) []string {
				var out []string
				for i := from; i < to; i++ {
					st, err := l.Learn(s.xs[i], s.labels[i])
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, fmt.Sprintf("%x %v %v %v %v %v", math.Float64bits(st.Score), st.Label, st.Mistake, st.Updated, st.Scores, st.Probabilities))
				}
				return out
			}
			whole := mustNew(t, a, cfg)
			want := learnAll(whole, 0, len(s.xs))
			split := len(s.xs) / 2
			l := mustNew(t, a, cfg)
			learnAll(l, 0, split)
			var buf bytes.Buffer
			if err := l.Save(&buf); err != nil {
				t.Fatal(err)
			}
			resumed, err := Load(&buf)
			if err != nil {
				t.Fatalf("%v %v: %v", tk, a, err)
			}
			if resumed.Config().Task != tk || !slices.Equal(resumed.Config().Classes, l.Config().Classes) {
				t.Fatalf("%v %v: loaded tk %v, classes %v", tk, a, resumed.Config().Task, resumed.Config().Classes)
			}
			if got := learnAll(resumed, split, len(s.xs)); !slices.Equal(got, want[split:]) {
				t.Fatalf("%v %v: resumed steps differ from the uninterrupted ones", tk, a)
			}
			var x, y bytes.Buffer
			if err := resumed.Save(&x); err != nil {
				t.Fatal(err)
			}
			if err := whole.Save(&y); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(x.Bytes(), y.Bytes()) {
				t.Fatalf("%v %v: the resumed learner saves other bytes", tk, a)
			}
		}
	}
}

// TestTaskConfigErrors: what a multi-class or regression configuration
// must not accept.
func TestTaskConfigErrors(t *testing.T) {
	ok := Config{Dim: 2, Budget: 5, Sigma: 1, Eta: 0.1, Gamma: 2, Task: task.Multiclass, Classes: []int{1, 2, 3}}
	for name, c := range map[string]Config{
		"one class":          {Dim: 2, Budget: 5, Sigma: 1, Eta: 0.1, Gamma: 2, Task: task.Multiclass, Classes: []int{1}},
		"unsorted classes":   {Dim: 2, Budget: 5, Sigma: 1, Eta: 0.1, Gamma: 2, Task: task.Multiclass, Classes: []int{2, 1}},
		"repeated classes":   {Dim: 2, Budget: 5, Sigma: 1, Eta: 0.1, Gamma: 2, Task: task.Multiclass, Classes: []int{1, 1}},
		"classes for binary": {Dim: 2, Budget: 5, Sigma: 1, Eta: 0.1, Gamma: 2, Task: task.Binary, Classes: []int{1, 2}},
		"auto, one class":    {Dim: 2, Budget: 5, Sigma: 1, Eta: 0.1, Gamma: 2, Classes: []int{1}},
		"negative epsilon":   {Dim: 2, Budget: 5, Sigma: 1, Eta: 0.1, Gamma: 2, Task: task.Regression, Epsilon: -1},
		"unknown task":       {Dim: 2, Budget: 5, Sigma: 1, Eta: 0.1, Gamma: 2, Task: 9},
	} {
		if _, err := New(BOGD, c); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := New(BOGD, ok); err != nil {
		t.Fatal(err)
	}
	if _, err := New(NORMA, ok); err == nil {
		t.Error("NORMA accepted a multi-class task")
	}
	if _, err := New(ProjectronPP, Config{Dim: 1, Budget: 3, Sigma: 1, Task: task.Regression}); err == nil {
		t.Error("Projectron++ accepted regression")
	}
	for _, c := range []struct {
		classes []int
		want    task.Task
	}{{nil, task.Binary}, {[]int{1, 2}, task.Multiclass}} {
		auto := Config{Dim: 2, Classes: c.classes}
		if l, err := New(BOGD, auto); err != nil || l.Config().Task != c.want {
			t.Errorf("task auto with classes %v: %v, want a %v learner", c.classes, err, c.want)
		}
	}
	l := mustNew(t, BOGD, ok)
	for _, y := range []float64{4, 1.5, math.NaN()} {
		if _, err := l.Learn(engine.Dense([]float32{1, 2}), y); err == nil {
			t.Errorf("label %v accepted", y)
		}
	}
	r := mustNew(t, OGD, Config{Dim: 1, Sigma: 1, Eta: 0.1, Task: task.Regression})
	if _, err := r.Learn(engine.Dense([]float32{1}), math.Inf(1)); err == nil {
		t.Error("an infinite regression label accepted")
	}
}

// TestBatches: LearnBatch is Learn in order, PredictBatch is Predict for
// each row, and a cancelled context stops both.
func TestBatches(t *testing.T) {
	s := multiStream(600, 3, 21)
	cfg := taskConfig(task.Multiclass, s.dim, 20, 2)
	one, batch := mustNew(t, BOGDpp, cfg), mustNew(t, BOGDpp, cfg)
	steps, err := batch.LearnBatch(context.Background(), s.xs, s.labels, nil)
	if err != nil || len(steps) != len(s.xs) {
		t.Fatalf("%d steps, %v", len(steps), err)
	}
	for i, x := range s.xs {
		st, err := one.Learn(x, s.labels[i])
		if err != nil {
			t.Fatal(err)
		}
		if st.Label != steps[i].Label || !slices.Equal(st.Scores, steps[i].Scores) {
			t.Fatalf("step %d: batch %+v, one by one %+v", i, steps[i].Prediction, st.Prediction)
		}
	}
	preds, err := batch.PredictBatch(context.Background(), s.xs[:50], nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range preds {
		q, _ := one.Predict(s.xs[i])
		if p.Label != q.Label || !slices.Equal(p.Scores, q.Scores) {
			t.Fatalf("prediction %d: %+v, %+v", i, p, q)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := batch.LearnBatch(ctx, s.xs, s.labels, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled LearnBatch: %v", err)
	}
	if _, err := batch.PredictBatch(ctx, s.xs, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled PredictBatch: %v", err)
	}
	if _, err := batch.LearnBatch(context.Background(), s.xs, s.labels[:3], nil); err == nil {
		t.Fatal("3 labels for 600 examples accepted")
	}
}

// hashedStream draws n rows of nnz integer counts (1..3) at random indices
// below dim, labelled by whether they hold more even than odd indices
// among a few hundred "positive" ones: the shape of hashed text.
func hashedStream(n, nnz, dim int, seed uint64) taskStream {
	rng := rand.New(rand.NewPCG(seed, 41))
	s := taskStream{dim: dim}
	for range n {
		seen := map[int32]bool{}
		var idx []int32
		for len(idx) < nnz {
			j := int32(rng.IntN(dim))
			if rng.IntN(3) == 0 {
				j = int32(rng.IntN(300)) // shared features make kernel values non-trivial
			}
			if !seen[j] {
				seen[j] = true
				idx = append(idx, j)
			}
		}
		slices.Sort(idx)
		val := make([]float32, len(idx))
		score := 0
		for k, j := range idx {
			val[k] = float32(1 + rng.IntN(3))
			if j < 300 {
				score += int(j%2)*2 - 1
			}
		}
		y := 1.0
		if score < 0 {
			y = -1
		}
		s.xs, s.labels = append(s.xs, engine.Sparse(idx, val)), append(s.labels, y)
	}
	return s
}

// TestSparseStorage: with integer data, a learner storing its vectors
// sparsely computes what the dense one computes, bit for bit (the engine's
// guarantee; BSGD's merged points are not integers); at four million
// features every learner picks sparse storage, and saves, loads and
// resumes exactly, in a file of O(non-zeros).
func TestSparseStorage(t *testing.T) {
	small := hashedStream(500, 20, 3000, 3)
	for _, a := range algorithmsFor(task.Binary) {
		if a == BSGDMerge {
			continue // its merged points are not integers: no bitwise guarantee
		}
		cfg := Config{Dim: small.dim, Budget: 40, Sigma: 3, Eta: 0.3, Lambda: 1e-4, Gamma: 3, Seed: 7, Storage: engine.DenseStorage}
		dense := mustNew(t, a, cfg)
		cfg.Storage = engine.SparseStorage
		sparse := mustNew(t, a, cfg)
		for i, x := range small.xs {
			d, err1 := dense.Learn(x, small.labels[i])
			s, err2 := sparse.Learn(x, small.labels[i])
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if math.Float64bits(d.Score) != math.Float64bits(s.Score) || d.Updated != s.Updated {
				t.Fatalf("%v step %d: dense storage %+v, sparse %+v", a, i, d, s)
			}
		}
	}
	big := hashedStream(300, 20, 4_000_000, 4)
	for _, a := range algorithmsFor(task.Binary) {
		cfg := Config{Dim: big.dim, Budget: 30, Sigma: 3, Eta: 0.3, Gamma: 3, Seed: 8}
		if randomFeatures(a) {
			// Their frequencies are dense: 120 of four million dimensions
			// would take 1.8 GiB.
			if _, err := New(a, cfg); err == nil || !strings.Contains(err.Error(), "MiB of frequencies") {
				t.Fatalf("%v at four million dimensions: %v", a, err)
			}
			continue
		}
		whole, l := mustNew(t, a, cfg), mustNew(t, a, cfg)
		if got := l.b.set.Storage(); got != engine.SparseStorage {
			t.Fatalf("%v: %v storage at four million features", a, got)
		}
		var want, got []float64
		for i, x := range big.xs {
			st, _ := whole.Learn(x, big.labels[i])
			want = append(want, st.Score)
		}
		for i, x := range big.xs[:150] {
			st, _ := l.Learn(x, big.labels[i])
			got = append(got, st.Score)
		}
		var buf bytes.Buffer
		if err := l.Save(&buf); err != nil {
			t.Fatal(err)
		}
		if buf.Len() > 1<<20 {
			t.Fatalf("%v: a model of %d vectors takes %d bytes", a, l.SupportVectors(), buf.Len())
		}
		resumed, err := Load(&buf)
		if err != nil {
			t.Fatalf("%v: %v", a, err)
		}
		for i, x := range big.xs[150:] {
			st, _ := resumed.Learn(x, big.labels[150+i])
			got = append(got, st.Score)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%v: the resumed learner's scores differ", a)
		}
	}
}
