package bogd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/binrec"
	"github.com/bogd-project/bogd/task"
)

// randomFeatures reports whether a learns on random Fourier features
// rather than support vectors (FOGD, Auto): it keeps none, and its dense
// frequencies cost D times the dimension.
func randomFeatures(a Algorithm) bool { return a == FOGD || a == Auto }

// raker is the float64 twin of Auto's rule as auto.go states it: Raker's
// Eqs. (10) and (11) (Shen, Chen, Giannakis, JMLR 2019) over (width, step)
// Gaussian experts, linear experts (one per step) and the trivial
// predictor, with the anytime Hedge rate and OMKC's vote in
// classification. Each width's features are computed directly, cos and
// sin of 2ᵏ·uⱼᵀx in float64 (the learner derives them by double angles in
// float32), normalised by 1/√D; the linear experts' are (x, 1)/‖(x, 1)‖.
type raker struct {
	cfg     Config
	k       int // outputs
	kernels int // Gaussian experts, the linear ones after them
	feat    *engine.Features
	steps   []float64
	theta   [][][]float64 // expert, output, feature
	loss    []float64
	retired []bool
	n       int
	counts  []float64 // classification: examples per class (binary: −1, +1)
	mean    float64
	spread  float64
}

func newRaker(cfg Config) *raker {
	feat, err := engine.NewFeatures(cfg.Dim, cfg.Features, 2*cfg.Sigma, rand.New(rand.NewPCG(cfg.Seed, autoStream)))
	if err != nil {
		panic(err)
	}
	r := &raker{cfg: cfg, k: outputsOf(cfg), feat: feat, steps: autoSteps[cfg.Task]}
	r.kernels = autoLevels * len(r.steps)
	experts := r.kernels + len(r.steps)
	r.theta = make([][][]float64, experts)
	for e := range r.theta {
		r.theta[e] = make([][]float64, r.k)
		for c := range r.theta[e] {
			r.theta[e][c] = make([]float64, 2*cfg.Features)
			if e >= r.kernels {
				r.theta[e][c] = make([]float64, cfg.Dim+1)
			}
		}
	}
	r.loss = make([]float64, experts+1)
	r.retired = make([]bool, experts)
	if cfg.Task != task.Regression {
		r.counts = make([]float64, max(r.k, 2))
	}
	return r
}

// features returns z of width level k: (1/√D)[cos(2ᵏuⱼᵀx)]ⱼ ++ [sin(2ᵏuⱼᵀx)]ⱼ.
func (r *raker) features(x []float64, k int) []float64 {
	d := r.cfg.Features
	z := make([]float64, 2*d)
	var u []float32
	for j := range d {
		u = r.feat.Frequency(j, u)
		var p float64
		for i, v := range u {
			p += float64(v) * x[i]
		}
		s, c := math.Sincos(math.Ldexp(p, k))
		z[j], z[d+j] = c/math.Sqrt(float64(d)), s/math.Sqrt(float64(d))
	}
	return z
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// weights are Eq. (11)'s normalised exp(−ηₜ·L_e) over the working experts,
// with the anytime rate, and their exponents relative to the best's.
func (r *raker) weights() (p, exponent []float64) {
	p, exponent = make([]float64, len(r.loss)), make([]float64, len(r.loss))
	rate := 0.0
	if r.n > 0 {
		rate = math.Sqrt(8 * math.Log(float64(len(p))) / float64(r.n))
	}
	if r.cfg.Task == task.Regression && r.n > 1 {
		rate /= r.spread / float64(r.n-1)
	}
	least := math.Inf(1)
	for e, l := range r.loss {
		if e == len(r.retired) || !r.retired[e] {
			least = min(least, l)
		}
	}
	var sum float64
	for e, l := range r.loss {
		exponent[e] = -rate * (l - least)
		if l == least {
			exponent[e] = 0
		}
		if e < len(r.retired) && r.retired[e] {
			exponent[e] = math.Inf(-1)
		}
		p[e] = math.Exp(exponent[e])
		sum += p[e]
	}
	for e := range p {
		p[e] /= sum
	}
	return p, exponent
}

// twinStep is what the twin computed for one example: the experts' scores
// before the update and the combination.
type twinStep struct {
	f   [][]float64 // expert, output
	mix []float64
}

// observe predicts and learns (x, y). decide(e, margin) gives the
// branch of expert e's update: the twin's own (margin < 1) unless the
// caller overrides it where float32 rounding could flip it; retire(e,
// exponent) whether a working expert retires (the exponent of its weight
// below autoRetire), as the learner decided it.
func (r *raker) observe(x []float64, y float64, decide func(e int, margin float64) bool, retire func(e int, exponent float64) bool) twinStep {
	experts := len(r.theta)
	zs := make([][]float64, autoLevels)
	for k := range zs {
		zs[k] = r.features(x, k)
	}
	lin := append(slices.Clone(x), 1)
	norm := math.Sqrt(dot(lin, lin))
	for j := range lin {
		lin[j] /= norm
	}
	featuresOf := func(e int) []float64 {
		if e >= r.kernels {
			return lin
		}
		return zs[e/len(r.steps)]
	}
	st := twinStep{f: make([][]float64, experts), mix: make([]float64, r.k)}
	votes := make([]int, experts+1)
	values := make([]float64, experts+1)
	for e := range experts {
		z := featuresOf(e)
		st.f[e] = make([]float64, r.k)
		if r.retired[e] {
			continue
		}
		for c := range r.k {
			st.f[e][c] = dot(r.theta[e][c], z)
		}
		switch r.cfg.Task {
		case task.Binary:
			votes[e] = sign(st.f[e][0])
		case task.Multiclass:
			votes[e] = argmax(st.f[e], -1)
		default:
			values[e] = r.mean + st.f[e][0]
		}
	}
	switch r.cfg.Task {
	case task.Binary:
		votes[experts] = 1
		if r.counts[0] > r.counts[1] {
			votes[experts] = -1
		}
	case task.Multiclass:
		votes[experts] = argmax(r.counts, -1)
	default:
		values[experts] = r.mean
	}
	p, exponent := r.weights()
	for e, p := range p {
		if p == 0 {
			continue
		}
		switch r.cfg.Task {
		case task.Binary:
			st.mix[0] += p * float64(votes[e])
		case task.Multiclass:
			st.mix[votes[e]] += p
		default:
			st.mix[0] += p * values[e]
		}
	}
	// The updates: Eq. (10) for every expert, the losses of Eq. (11).
	class := int(y)
	if r.cfg.Task == task.Multiclass {
		class, _ = slices.BinarySearch(r.cfg.Classes, int(y))
	}
	for e := range experts {
		if !r.retired[e] && retire(e, exponent[e]) {
			r.retired[e] = true
		}
		if r.retired[e] {
			continue
		}
		z, eta := featuresOf(e), r.steps[e%len(r.steps)]
		axpy := func(c int, a float64) {
			for j := range z {
				r.theta[e][c][j] += a * z[j]
			}
		}
		switch r.cfg.Task {
		case task.Binary:
			if votes[e] != class {
				r.loss[e]++
			}
			if decide(e, y*st.f[e][0]) {
				axpy(0, eta*y)
			}
		case task.Multiclass:
			if votes[e] != class {
				r.loss[e]++
			}
			s := argmax(st.f[e], class)
			if decide(e, st.f[e][class]-st.f[e][s]) {
				axpy(class, eta)
				axpy(s, -eta)
			}
		default:
			res := y - values[e]
			r.loss[e] += res * res
			if r.n > 0 { // the first example sets the mean only
				axpy(0, eta*res)
			}
		}
	}
	switch r.cfg.Task {
	case task.Binary, task.Multiclass:
		if votes[experts] != class {
			r.loss[experts]++
		}
		if r.cfg.Task == task.Binary {
			class = (class + 1) / 2
		}
		r.counts[class]++
	default:
		res := y - r.mean
		r.loss[experts] += res * res
		if r.n > 0 {
			r.spread += res * res
		}
		r.mean += res / float64(r.n+1)
	}
	r.n++
	return st
}

// TestAutoMatchesRaker runs Auto next to its float64 twin in every task,
// step by step: every expert's scores before the update (to float32
// accuracy), its mistakes and losses, and the combination's scores. Where
// an expert's float32 margin is within rounding of the hinge's threshold 1
// the twin takes the learner's branch (they are counted, and must be rare).
func TestAutoMatchesRaker(t *testing.T) {
	streams := map[task.Task]taskStream{task.Binary: binaryStream(1500, 3, 3), task.Multiclass: multiStream(500, 3, 1), task.Regression: regressionStream(300, 3, 2)}
	for _, tk := range []task.Task{task.Binary, task.Multiclass, task.Regression} {
		t.Run(tk.String(), func(t *testing.T) {
			s := streams[tk]
			l := mustNew(t, Auto, taskConfig(tk, s.dim, 10, 3))
			cfg := l.Config() // the defaults filled in
			a := l.b.rule.(*auto)
			twin := newRaker(cfg)
			near, updates, mixed, retired := 0, 0, 0, 0
			for i, x := range s.xs {
				xf := make([]float64, s.dim)
				for j, v := range x.Dense {
					xf[j] = float64(v)
				}
				if w, _ := twin.weights(); slices.Max(w) > 2.0/float64(len(w)) && slices.Max(w) < 0.9 {
					mixed++
				}
				got, err := l.Learn(x, s.labels[i])
				if err != nil {
					t.Fatal(err)
				}
				tol := func(e int) float64 {
					var mag float64
					for _, th := range twin.theta[e] {
						for _, v := range th {
							mag += math.Abs(v)
						}
					}
					return 1e-5 * (1 + mag/math.Sqrt(float64(cfg.Features)))
				}
				want := twin.observe(xf, s.labels[i], func(e int, margin float64) bool {
					f := a.own.f[e*a.outputs : (e+1)*a.outputs]
					mine := margin
					switch tk {
					case task.Binary:
						mine = s.labels[i] * float64(f[0])
					case task.Multiclass:
						c, _ := slices.BinarySearch(cfg.Classes, int(s.labels[i]))
						mine = float64(f[c]) - float64(f[argmax(f, c)])
					}
					if math.Abs(margin-1) <= 2*tol(e) {
						near++
						return mine < 1
					}
					if (mine < 1) != (margin < 1) {
						t.Fatalf("step %d: expert %d's margin %v, the twin's %v", i, e, mine, margin)
					}
					updates++
					return margin < 1
				}, func(e int, exponent float64) bool {
					if a.retired[e] != (exponent < autoRetire) && math.Abs(exponent-autoRetire) > 1e-3 {
						t.Fatalf("step %d: expert %d retired %v, its exponent %v", i, e, a.retired[e], exponent)
					}
					if a.retired[e] {
						retired++
					}
					return a.retired[e]
				})
				for e, fe := range want.f {
					if twin.retired[e] {
						continue // not evaluated
					}
					for c, v := range fe {
						if g := float64(a.own.f[e*a.outputs+c]); math.Abs(g-v) > tol(e) {
							t.Fatalf("step %d: expert %d's score %d = %.9g, twin %.9g", i, e, c, g, v)
						}
					}
				}
				scores := got.Scores
				if tk != task.Multiclass {
					scores = []float64{got.Score}
				}
				mixTol := 1e-6 // the weights are float32 exponentials; regression mixes the scores too
				if tk == task.Regression {
					for e := range want.f {
						mixTol = max(mixTol, tol(e))
					}
				}
				for c, v := range want.mix {
					if math.Abs(scores[c]-v) > mixTol {
						t.Fatalf("step %d: score %d = %.12g, twin %.12g", i, c, scores[c], v)
					}
				}
				for e, v := range twin.loss {
					if math.Abs(a.loss[e]-v) > 1e-4*(1+v) { // classification: exact
						t.Fatalf("step %d: expert %d's loss %v, twin %v", i, e, a.loss[e], v)
					}
				}
			}
			if tk != task.Regression && (near > 5 || updates < 1000) {
				t.Fatalf("%d hinge updates, %d margins within rounding of 1", updates, near)
			}
			if retired == 0 {
				t.Fatalf("no expert retired: the retirement is not exercised")
			}
			if mixed < 20 {
				t.Fatalf("on %d steps only the weights were neither uniform nor on one expert: the combination is not exercised", mixed)
			}
		})
	}
}

// TestAutoLabelScale: a regression learner of labels a·y + b predicts
// a·ŷ + b (its experts predict the running mean plus a model whose steps
// scale with the residuals, and the rate of its weights is divided by the
// labels' running variance), to float32 rounding.
func TestAutoLabelScale(t *testing.T) {
	s := regressionStream(400, 3, 5)
	cfg := Config{Dim: s.dim, Budget: 20, Sigma: 2, Seed: 4, Task: task.Regression}
	plain, scaled := mustNew(t, Auto, cfg), mustNew(t, Auto, cfg)
	const a, b = 3.5e4, -1.2e5
	var mse, mseScaled float64
	for i, x := range s.xs {
		p, err := plain.Learn(x, s.labels[i])
		if err != nil {
			t.Fatal(err)
		}
		q, err := scaled.Learn(x, a*s.labels[i]+b)
		if err != nil {
			t.Fatal(err)
		}
		if want := a*p.Label + b; i > 0 && math.Abs(q.Label-want) > 1e-4*a*(1+math.Abs(p.Label)) { // before any label both predict 0
			t.Fatalf("step %d: %v, want %v", i, q.Label, want)
		}
		if i > 0 {
			mse += (p.Label - s.labels[i]) * (p.Label - s.labels[i])
			mseScaled += (q.Label - a*s.labels[i] - b) * (q.Label - a*s.labels[i] - b)
		}
	}
	if r := mseScaled / (a * a * mse); math.Abs(r-1) > 1e-3 {
		t.Fatalf("MSE ratio %v", r)
	}
}

// TestAutoFollowsTrivial: on labels that carry no information (80% one
// class, or noise around a constant), auto makes barely more mistakes
// than the trivial predictor (a Hedge regret of O(√(T·ln M))), whose
// weight grows; and it learns a signal the trivial predictor cannot.
func TestAutoFollowsTrivial(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, dim = 3000, 4
	for _, tk := range []task.Task{task.Binary, task.Regression} {
		l := mustNew(t, Auto, Config{Dim: dim, Budget: 20, Sigma: 1, Seed: 2, Task: tk})
		var loss, trivial, mean float64
		for i := range n {
			x := make([]float32, dim)
			for j := range x {
				x[j] = float32(rng.NormFloat64())
			}
			y := 1.0
			if tk == task.Binary && rng.IntN(5) == 0 {
				y = -1
			}
			if tk == task.Regression {
				y = 7 + rng.NormFloat64()
				trivial += (y - mean) * (y - mean)
				mean += (y - mean) / float64(i+1)
			} else if y != 1 {
				trivial++
			}
			st, err := l.Learn(engine.Dense(x), y)
			if err != nil {
				t.Fatal(err)
			}
			if tk == task.Regression {
				loss += (y - st.Label) * (y - st.Label)
			} else if st.Mistake {
				loss++
			}
		}
		a := l.b.rule.(*auto)
		s := a.newScratch()
		a.weights(&s)
		p := s.p
		if loss > 1.05*trivial || p[a.experts] < 0.2 {
			t.Errorf("%v: loss %.4g, trivial predictor's %.4g; its weight %.3g", tk, loss, trivial, p[a.experts])
		}
	}
	s := binaryStream(2000, 3, 9)
	l := mustNew(t, Auto, Config{Dim: s.dim, Budget: 20, Sigma: 2, Seed: 1})
	mistakes, trivial := 0, 0
	counts := map[float64]int{}
	for i, x := range s.xs {
		st, err := l.Learn(x, s.labels[i])
		if err != nil {
			t.Fatal(err)
		}
		if st.Mistake {
			mistakes++
		}
		guess := 1.0
		if counts[-1] > counts[1] {
			guess = -1
		}
		if guess != s.labels[i] {
			trivial++
		}
		counts[s.labels[i]]++
	}
	if float64(mistakes) > 0.8*float64(trivial) {
		t.Errorf("%d mistakes on a learnable stream, the trivial predictor %d", mistakes, trivial)
	}
}

// TestAutoDefaults: the budget sets the features; the widths and steps are
// none of the user's business, and Sigma too large for the widest width is
// an error naming it.
func TestAutoDefaults(t *testing.T) {
	for _, tk := range []task.Task{task.Binary, task.Multiclass, task.Regression} {
		c := Defaults(Auto, tk)
		if c.Features != autoFeatures(100) || c.Budget != 100 || c.Sigma != 8 || c.Eta != 0 || Auto.Params(tk) != 0 {
			t.Errorf("%v: defaults %+v, parameters %v", tk, c, Auto.Params(tk))
		}
	}
	if Auto.RuleVersion() < 2 || Auto.String() != "auto" {
		t.Errorf("rule version %d, name %q", Auto.RuleVersion(), Auto)
	}
	if a, err := ParseAlgorithm(" AUTO "); err != nil || a != Auto {
		t.Errorf("ParseAlgorithm: %v, %v", a, err)
	}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Dim: 2, Sigma: 1e15}, "Sigma, the centre of the widths"},
		{Config{Dim: 2, Features: maxFeatures + 1}, "Features"},
		{Config{Dim: 1 << 20, Features: 1 << 10}, "MiB of frequencies"},
		{Config{Dim: 2, Features: 1 << 19, Task: task.Multiclass, Classes: []int{1, 2, 3, 4, 5, 6, 7, 8}}, "MiB of weights"},
	} {
		if _, err := New(Auto, c.cfg); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %q", c.cfg, err, c.want)
		}
	}
}

// TestAutoLoadInvalidState: a model file whose auto state was invented
// (with a valid checksum) is an error naming what is wrong.
func TestAutoLoadInvalidState(t *testing.T) {
	for _, tk := range []task.Task{task.Binary, task.Regression} {
		s := binaryStream(50, 2, 4)
		if tk == task.Regression {
			s = regressionStream(50, 2, 4)
		}
		l := mustNew(t, Auto, Config{Dim: 2, Budget: 4, Features: 8, Sigma: 1, Task: tk})
		for i, x := range s.xs {
			if _, err := l.Learn(x, s.labels[i]); err != nil {
				t.Fatal(err)
			}
		}
		data := mustSave(t, l)
		a := l.b.rule.(*auto)
		state := len(data) - binrec.TrailerSize - len(a.appendState(nil))
		losses := state + 8
		flags := losses + 8*len(a.loss)
		after := flags + len(a.retired) // the counts, or the mean and spread
		weights := after + 8*max(len(a.counts), 2)
		putF := func(off int, v float64) func([]byte) {
			return func(d []byte) { le.PutUint64(d[off:], math.Float64bits(v)) }
		}
		cases := []struct {
			name, want string
			edit       func([]byte)
		}{
			{"negative count", "auto example count", func(d []byte) { le.PutUint64(d[state:], 1<<63) }},
			{"negative loss", "has the loss -1", putF(losses, -1)},
			{"NaN loss", "NaN", putF(losses, math.NaN())},
			{"padding weight", "auto: weight", func(d []byte) {
				le.PutUint32(d[weights+4*(a.stride/2-1):], math.Float32bits(0.5)) // the last cosine: padding, D = 8 of 16
			}},
			{"infinite weight", "is +Inf", func(d []byte) { le.PutUint32(d[weights:], math.Float32bits(float32(math.Inf(1)))) }},
			{"cut short", "weights need", nil},
			{"retired flag", "auto retired flag is 2", func(d []byte) { d[flags] = 2 }},
			{"linear weight", "linear weight 1 is NaN", func(d []byte) {
				le.PutUint32(d[weights+4*len(a.w)+4:], math.Float32bits(float32(math.NaN())))
			}},
		}
		if tk == task.Regression {
			cases = append(cases, struct {
				name, want string
				edit       func([]byte)
			}{"negative squared error", "negative squared error", putF(after+8, -2)})
		} else {
			cases = append(cases, struct {
				name, want string
				edit       func([]byte)
			}{"fractional loss", "has the loss 0.5", putF(losses, 0.5)}, struct {
				name, want string
				edit       func([]byte)
			}{"counts", "class counts sum to", func(d []byte) { le.PutUint64(d[after:], binary.LittleEndian.Uint64(d[after:])+1) }})
		}
		for _, c := range cases {
			bad := bytes.Clone(data)
			if c.edit != nil {
				c.edit(bad)
			} else {
				bad = append(bad[:weights+8], bad[len(bad)-binrec.TrailerSize:]...)
			}
			_, err := Load(bytes.NewReader(rechecksum(bad)))
			if !errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v %s: %v, want an invalid-model error containing %q", tk, c.name, err, c.want)
			}
		}
	}
}

// TestAutoSparseInput: an example given sparse or dense is learnt alike
// (the linear experts sum its non-zeros, or all of it with simd.Dot), to
// float32 rounding.
func TestAutoSparseInput(t *testing.T) {
	for _, tk := range []task.Task{task.Binary, task.Multiclass, task.Regression} {
		s := map[task.Task]taskStream{task.Binary: binaryStream(400, 5, 3), task.Multiclass: multiStream(400, 5, 1), task.Regression: regressionStream(400, 5, 2)}[tk]
		cfg := taskConfig(tk, s.dim, 10, 3)
		dense, sparse := mustNew(t, Auto, cfg), mustNew(t, Auto, cfg)
		for i, x := range s.xs {
			var idx []int32
			var val []float32
			for j, v := range x.Dense {
				if v != 0 && j%2 == 0 { // half the features zero
					idx, val = append(idx, int32(j)), append(val, v)
				}
			}
			half := make([]float32, s.dim)
			for k, j := range idx {
				half[j] = val[k]
			}
			a, err := dense.Learn(engine.Dense(half), s.labels[i])
			if err != nil {
				t.Fatal(err)
			}
			b, err := sparse.Learn(engine.Sparse(idx, val), s.labels[i])
			if err != nil {
				t.Fatal(err)
			}
			if a.Label != b.Label && tk != task.Regression || math.Abs(a.Score-b.Score) > 1e-4*(1+math.Abs(a.Score)) {
				t.Fatalf("%v step %d: dense %+v, sparse %+v", tk, i, a.Prediction, b.Prediction)
			}
		}
	}
}
