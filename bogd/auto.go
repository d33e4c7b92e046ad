package bogd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/binrec"
	"github.com/bogd-project/bogd/simd"
	"github.com/bogd-project/bogd/task"
)

// auto is the learner with nothing to tune (Algorithm Auto): an online
// multiple-kernel learner that learns, side by side, one random-feature
// model per kernel width and step size, and predicts by exponential weights
// over them, so that neither the width nor the step is chosen by the user.
//
// The rule is Raker (Shen, Chen, Giannakis, "Random Feature-based Online
// Multi-kernel Learning in Environments with Unknown Dynamics", JMLR 20,
// 2019, Algorithm 1; the authors' MATLAB code is GitHub N1cekiko/AdaRaker),
// with the classification rule of OMKC (Hoi, Jin, Zhao, Yang, "Online
// Multiple Kernel Classification", Machine Learning 90, 2013: the
// deterministic variant, Hedge on the experts' mistakes and a weighted
// vote). Each Gaussian expert e learns a linear model θ_e on the random
// Fourier features of its width σ_e,
//
//	z_e(x) = (1/√D)·[cos(vⱼᵀx/σ_e), sin(vⱼᵀx/σ_e)]ⱼ,  vⱼ ~ N(0, I), ‖z_e(x)‖ = 1,
//
// and each linear expert one on z(x) = (x, 1)/‖(x, 1)‖ (the features of
// the normalised linear kernel with a bias, also of norm 1), by online
// gradient descent with its step η_e, Raker's Eq. (10):
// θ_e ← θ_e − η_e·∇ℓ(θ_eᵀz_e(x), y), where ℓ is the hinge loss of FOGD
// (binary: an update y·z when y·f < 1; multi-class: +z on the true class and
// −z on the best wrong one when their margin is below 1) or the squared loss
// (regression: (y − ŷ)·z). The experts are combined by exponential weights
// on their cumulative losses L_e, Raker's Eq. (11) summed:
// p_e ∝ exp(−ηₜ·L_e), the loss a mistake (classification) or the squared
// error (regression), and the prediction is their p-weighted mean
// (regression, Raker's f̂) or vote (classification: OMKC's
// Σ p_e·[expert e predicts c]; binary, the score Σ p_e·ŷ_e ∈ [−1, 1]). A
// calibrated learner (Config.Calibrate) fits its probabilities on these
// scores as every learner does.
//
// The experts: every kernel of the dictionary, the Gaussian kernels of
// widths σ·2ᵏ, k = 1, 0, −1, …, −4 (σ = Config.Sigma, the centre: the
// median distance between rows, which bogdbench measures, puts the
// dictionary on the data's scale) and the linear kernel, times every step
// size of autoSteps, plus the trivial predictor (the most frequent label so
// far, or the running mean of the labels), so that the combination is
// never much worse than it: 29 experts. The features of every width
// come from one projection (engine.Features.MapWidths: the frequencies of
// width σ/2ᵏ are those of the widest width times 2^(k+1), and each width's
// sines and cosines are the double angles of the next wider one's).
//
// Where ours differs from the paper and from the authors' code:
//
//   - the experts are (kernel, step) pairs, not kernels only, and the
//     trivial predictor is one of them (the paper has one expert per kernel
//     and one step for all);
//   - the dictionary holds the linear kernel beside the Gaussian ones (as
//     OMKC's holds polynomial kernels; the paper's experiments use Gaussian
//     kernels only), which no Gaussian width with D random features
//     matches on some data: on dna (180 binary features) the Gaussian
//     experts alone made 18.9% mistakes, the linear ones 11%;
//   - D = Config.Features frequencies are drawn once, for the widest width,
//     and shared by every width (the paper draws them per kernel; the
//     authors' code draws orthogonal random features, per kernel);
//   - the rate of the exponential weights is the anytime rate of Hedge,
//     ηₜ = √(8·ln M / t) over M experts after t examples (the paper's Eq.
//     (11) takes one η for θ and the weights; the code takes β = 0.5 with a
//     loss normalised to [−1, 1] by the round's spread), and in regression it
//     is divided by the trivial predictor's mean squared error so far: the
//     squared losses are then on the scale of the labels' variance, where the
//     textbook rate on small losses leaves the weights almost uniform (the
//     prototype's MSE was then twice the best expert's);
//   - classification weighs mistakes, not the hinge loss, and votes with
//     the experts' labels (OMKC), rather than averaging their scores, which
//     scale with their steps;
//   - no regularisation (the paper's λ‖θ‖²; the code's λ = 0.01 or 5·10⁻⁴);
//   - in regression every expert predicts the running mean of the labels
//     plus its model (the paper's models have no bias; random features of
//     a narrow width cannot represent a constant), and learns from the
//     second example on (the first only sets the mean), which makes the
//     learner invariant to shifts and scales of the labels;
//   - the classes of a multi-class task get one output each (the paper is
//     for binary classification and regression);
//   - an expert whose weight falls below e⁻²⁰ times the best one's retires
//     for good: it is no longer evaluated, learnt or weighed (autoRetire;
//     the trivial predictor never retires). On long streams most do, and
//     they were most of the cost: of the 28 learning experts, after 2,500
//     rows of letter 8 were working, after 20,000 rows 2; after 34,000 rows
//     of codrna 10, after its 271,617 rows 5.
//
// The frequencies come from their own PCG stream of Config.Seed (as FOGD's),
// so a loaded learner draws them again. State: the experts' float32
// weights (the linear experts' Dim + 1 per output), their cumulative
// losses, which of them retired, the examples learnt and the trivial
// predictor's counts (or running mean and squared error).
type auto struct {
	base
	feat    *engine.Features // D frequencies of the widest width, 2σ
	steps   []float64        // the step sizes of the task
	kernels int              // autoLevels·len(steps) Gaussian experts, numbered first
	experts int              // kernels + len(steps): the learning experts (the linear ones after the Gaussian); the trivial predictor is expert number experts
	stride  int              // Features.Len: one width's z, one weight column
	rate    float64          // √(8·ln M) over M experts: Hedge's rate after one example
	// w holds Gaussian expert e's weights for output c in column e·K + c,
	// at [(e·K+c)·stride, (e·K+c+1)·stride); expert e = level·len(steps) + s.
	w []float32
	// lw holds linear expert kernels+s's weights for output c in column
	// s·K + c of Dim+1 values: one per feature, then the bias.
	lw   []float32
	loss []float64 // the cumulative Hedge loss of every expert, the trivial predictor's last
	// retired marks the learning experts whose weight fell below
	// e^autoRetire times the best one's: they are no longer evaluated,
	// learnt or weighed.
	retired []bool
	n       int64 // examples learnt
	// The trivial predictor: the examples of each class (binary: index 0
	// for −1, 1 for +1), or the running mean of the labels and the sum of
	// its squared errors over every example after the first.
	counts       []int64
	mean, spread float64

	own  autoScratch // the learner's own: its last evaluation, for the update
	pool sync.Pool   // of *autoScratch, for readers
}

// autoRetire is the exponent of the weight, relative to the best expert's,
// below which a learning expert retires: a weight of 2·10⁻⁹, which moves
// no vote. Its deficit of loss ΔL then exceeds 20/ηₜ = 20·√t/√(8·ln M),
// 3.9·√t over 29 experts (12% of the examples after 1,000, 1.2% after
// 100,000): in a stationary stream the deficit grows like t while that
// bound grows like √t, so such an expert would not weigh again; it would
// only cost its evaluation and updates. On the twenty data sets of
// benchmarks/results/auto, e⁻³⁰ gave the same mistakes and MSEs but on
// codrna (3.866% against 3.874%) at 12% more cost there.
const autoRetire = -20

// autoLevels is the number of kernel widths: σ·2ᵏ for k = autoWidest down
// to autoWidest − autoLevels + 1.
const (
	autoLevels = 6
	autoWidest = 1
)

// autoSteps are the experts' step sizes η on features of norm 1: a factor
// of 4 apart from 0.1 to 6.4 in classification, 0.05 to 2 in regression
// (the ranges a prototype needed across eleven data sets; three steps per
// width were too few).
var autoSteps = map[task.Task][]float64{
	task.Binary:     {0.1, 0.4, 1.6, 6.4},
	task.Multiclass: {0.1, 0.4, 1.6, 6.4},
	task.Regression: {0.05, 0.171, 0.585, 2},
}

// autoStream is the second PCG seed word of the auto learner's frequencies.
const autoStream = 0x61_75_74_6f

// maxAutoWeights bounds the experts' weights (autoWeights): 512 MiB of
// float32.
const maxAutoWeights = 1 << 27

// autoScratch is one evaluation: every width's features, every expert's
// scores and prediction, and the weights of the combination.
type autoScratch struct {
	z     []float32 // autoLevels·stride
	norm  float64   // ‖(x, 1)‖: the linear experts' features are (x, 1)/norm
	f     []float32 // expert e's score for output c at e·K + c
	vote  []int     // classification: each expert's label (binary ±1, else the class index), the trivial predictor's last
	value []float64 // regression: each expert's prediction, the trivial predictor's last
	p     []float64 // the weights of the experts
	arg   []float32 // the exponents of the weights: 0 for the best, −Inf for the retired
	exp   []float32 // their exponentials
}

func newAuto(b base) (*auto, error) {
	widest := math.Ldexp(b.cfg.Sigma, autoWidest)
	feat, err := engine.NewFeatures(b.cfg.Dim, b.cfg.Features, widest, rand.New(rand.NewPCG(b.cfg.Seed, autoStream)))
	if err != nil {
		return nil, fmt.Errorf("%v: %w", b.algo, err)
	}
	steps := autoSteps[b.cfg.Task]
	kernels := autoLevels * len(steps)
	experts := kernels + len(steps)
	classes := b.outputs
	if b.cfg.Task == task.Binary {
		classes = 2
	}
	l := &auto{
		base: b, feat: feat, steps: steps, kernels: kernels, experts: experts, stride: feat.Len(), rate: math.Sqrt(8 * math.Log(float64(experts+1))),
		w: make([]float32, kernels*b.outputs*feat.Len()), lw: make([]float32, len(steps)*b.outputs*(b.cfg.Dim+1)),
		loss: make([]float64, experts+1), retired: make([]bool, experts),
	}
	if b.cfg.Task != task.Regression {
		l.counts = make([]int64, classes)
	}
	l.own = l.newScratch()
	return l, nil
}

func (l *auto) newScratch() autoScratch {
	return autoScratch{
		z: make([]float32, autoLevels*l.stride), f: make([]float32, l.experts*l.outputs),
		vote: make([]int, l.experts+1), value: make([]float64, l.experts+1), p: make([]float64, l.experts+1),
		arg: make([]float32, l.experts+1), exp: make([]float32, l.experts+1),
	}
}

// column returns expert e's weights of output c: Gaussian, its stride of
// random features; linear, Dim weights and the bias.
func (l *auto) column(e, c int) []float32 {
	if e >= l.kernels {
		n := l.cfg.Dim + 1
		i := ((e-l.kernels)*l.outputs + c) * n
		return l.lw[i : i+n]
	}
	i := (e*l.outputs + c) * l.stride
	return l.w[i : i+l.stride]
}

// customScores evaluates every expert at x and writes the combination into
// f: on the learner's own scratch (observe) the evaluation stays in l.own
// for the update; readers use one of their own.
func (l *auto) customScores(sc *engine.Scratch, x engine.Vector, f, _ []float64) error {
	s := &l.own
	if sc != &l.scratch {
		p, _ := l.pool.Get().(*autoScratch)
		if p == nil {
			fresh := l.newScratch()
			p = &fresh
		}
		defer l.pool.Put(p)
		s = p
	}
	if _, err := l.feat.MapWidths(x, s.z, l.levels()); err != nil {
		return fmt.Errorf("%v: %w", l.algo, err)
	}
	// One DotColumns per run of working experts of a width: their
	// columns are adjacent.
	k, steps := l.outputs, len(l.steps)
	for e := 0; e < l.kernels; {
		if l.retired[e] {
			e++
			continue
		}
		level, end := e/steps, e+1
		for end < l.kernels && end/steps == level && !l.retired[end] {
			end++
		}
		simd.DotColumns(s.f[e*k:end*k], s.z[level*l.stride:(level+1)*l.stride], l.w[e*k*l.stride:], l.stride)
		e = end
	}
	s.norm = math.Sqrt(1 + sqNorm(x))
	for e := l.kernels; e < l.experts; e++ {
		if l.retired[e] {
			continue
		}
		for c := range k {
			s.f[e*k+c] = float32(linearDot(l.column(e, c), x) / s.norm)
		}
	}
	l.predictions(s)
	l.weights(s)
	clear(f)
	for e, p := range s.p {
		if p == 0 {
			continue // retired, or beyond float32's exp: no vote
		}
		switch l.labels.task {
		case task.Binary:
			f[0] += p * float64(s.vote[e])
		case task.Multiclass:
			f[s.vote[e]] += p
		default:
			f[0] += p * s.value[e]
		}
	}
	return nil
}

// linearDot returns w·(x, 1): Σ w_j·x_j (simd.Dot for a dense x) plus the
// bias w[Dim].
func linearDot(w []float32, x engine.Vector) float64 {
	dim := len(w) - 1
	if !x.IsSparse() {
		return float64(simd.Dot(x.Dense, w[:dim])) + float64(w[dim])
	}
	var sum float32
	for k, j := range x.Index {
		sum += w[j] * x.Value[k]
	}
	return float64(sum) + float64(w[dim])
}

// linearAxpy adds a·(x, 1) to w (simd.Axpy for a dense x).
func linearAxpy(w []float32, x engine.Vector, a float32) {
	dim := len(w) - 1
	if !x.IsSparse() {
		simd.Axpy(w[:dim], x.Dense, a)
	} else {
		for k, j := range x.Index {
			w[j] += a * x.Value[k]
		}
	}
	w[dim] += a
}

// sqNorm is ‖x‖² in float64.
func sqNorm(x engine.Vector) float64 {
	v := x.Dense
	if x.IsSparse() {
		v = x.Value
	}
	var sum float64
	for _, f := range v {
		sum += float64(f) * float64(f)
	}
	return sum
}

// levels is the number of widths a working Gaussian expert needs: up to
// the narrowest one's (at least 1: MapWidths also checks x).
func (l *auto) levels() int {
	for e := l.kernels - 1; e >= 0; e-- {
		if !l.retired[e] {
			return e/len(l.steps) + 1
		}
	}
	return 1
}

// predictions fills each working expert's prediction from its scores, and
// the trivial predictor's.
func (l *auto) predictions(s *autoScratch) {
	k := l.outputs
	for e := range l.experts {
		if l.retired[e] {
			continue
		}
		switch l.labels.task {
		case task.Binary:
			s.vote[e] = sign(float64(s.f[e]))
		case task.Multiclass:
			s.vote[e] = argmax(s.f[e*k:(e+1)*k], -1)
		default:
			s.value[e] = l.mean + float64(s.f[e])
		}
	}
	switch l.labels.task {
	case task.Binary:
		s.vote[l.experts] = 1 // on a tie too, as sign(0)
		if l.counts[0] > l.counts[1] {
			s.vote[l.experts] = -1
		}
	case task.Multiclass:
		s.vote[l.experts] = argmax(l.counts, -1)
	default:
		s.value[l.experts] = l.mean
	}
}

// weights writes the exponential weights of the experts' cumulative losses
// into s.p: p_e ∝ exp(−η·(L_e − min L)) over the working experts (the
// retired weigh 0), with Hedge's anytime rate
// η = √(8·ln M / n) after n examples, divided in regression by the trivial
// predictor's mean squared error (the labels' running variance). With no
// loss yet, or losses all equal, the weights are uniform; an expert at the
// least loss has weight ∝ 1 whatever the rate (a rate of +Inf, from a
// variance of 0, leaves only those). The exponents stay in s.arg, their
// exponentials in s.exp: simd.Exp's, in float32, a relative error of 2e-7
// in a weight, and 0 for an exponent below −87.
func (l *auto) weights(s *autoScratch) {
	rate := 0.0
	if l.n > 0 {
		rate = l.rate / math.Sqrt(float64(l.n))
	}
	if l.labels.task == task.Regression && l.n > 1 {
		rate /= l.spread / float64(l.n-1)
	}
	least := l.loss[l.experts] // the trivial predictor's, never retired
	for e, v := range l.loss[:l.experts] {
		if !l.retired[e] {
			least = min(least, v)
		}
	}
	for e, v := range l.loss {
		switch d := v - least; {
		case e < l.experts && l.retired[e]:
			s.arg[e] = float32(math.Inf(-1))
		case d > 0:
			s.arg[e] = float32(-rate * d) // −Inf for a rate of +Inf: exp gives 0
		default:
			s.arg[e] = 0
		}
	}
	simd.Exp(s.exp, s.arg)
	var sum float64
	for e, v := range s.exp {
		s.p[e] = float64(v)
		sum += s.p[e]
	}
	for e := range s.p {
		s.p[e] /= sum
	}
}

func (l *auto) learn(x *engine.Vector, t target) (updated bool, err error) {
	if _, err := l.observe(x, t); err != nil {
		return false, err
	}
	s := &l.own
	k, perFeature := l.outputs, 1/float64(l.feat.Count())
	for e := range l.experts {
		if !l.retired[e] && s.arg[e] < autoRetire {
			l.retired[e] = true // by the weights it predicted with; its loss stays
		}
		if l.retired[e] {
			continue
		}
		// step·(the expert's features) is added: the Gaussian experts' z
		// of their width (1/√D each), the linear ones' (x, 1)/‖(x, 1)‖.
		step := l.steps[e%len(l.steps)]
		add := func(c int, a float64) {
			if e < l.kernels {
				level := e / len(l.steps)
				simd.Axpy(l.column(e, c), s.z[level*l.stride:(level+1)*l.stride], float32(a*step*perFeature))
			} else {
				linearAxpy(l.column(e, c), *x, float32(a*step/s.norm))
			}
			updated = true
		}
		switch l.labels.task {
		case task.Binary:
			if s.vote[e] != t.class {
				l.loss[e]++
			}
			if y := float64(t.class); y*float64(s.f[e]) < 1 {
				add(0, y)
			}
		case task.Multiclass:
			f := s.f[e*k : (e+1)*k]
			if s.vote[e] != t.class {
				l.loss[e]++
			}
			if r := argmax(f, t.class); float64(f[t.class])-float64(f[r]) < 1 {
				add(t.class, 1)
				add(r, -1)
			}
		default:
			r := t.value - s.value[e]
			l.loss[e] += r * r
			if r != 0 && l.n > 0 { // the first example sets the mean only
				add(0, r)
			}
		}
	}
	l.learnTrivial(s, t)
	l.n++
	return updated, nil
}

// learnTrivial charges the trivial predictor its loss and learns the label.
func (l *auto) learnTrivial(s *autoScratch, t target) {
	switch l.labels.task {
	case task.Binary, task.Multiclass:
		if s.vote[l.experts] != t.class {
			l.loss[l.experts]++
		}
		c := t.class
		if l.labels.task == task.Binary {
			c = (t.class + 1) / 2
		}
		l.counts[c]++
	default:
		r := t.value - l.mean
		l.loss[l.experts] += r * r
		if l.n > 0 {
			l.spread += r * r
		}
		l.mean += r / float64(l.n+1)
	}
}

// autoFeatures is Auto's default D for a budget: 4·Budget frequencies (as
// FOGD's in classification), shared by the six widths. With the retired
// experts skipped, a pass at budget 100 costs about 2 to 2.5 times FOGD's
// and BOGD++'s on codrna and a9a-sized data (BenchmarkAutoCost); 2·Budget
// cost 1.5 times but lost 4 points on letter.
func autoFeatures(budget int) int { return 4 * budget }

// outputsOf is the number of scores of a learner of configuration c.
func outputsOf(c Config) int {
	if c.Task == task.Multiclass {
		return len(c.Classes)
	}
	return 1
}

// autoWeights is the number of float32 weights of an Auto learner of
// configuration c (of a valid Features): per Gaussian expert and output,
// one column of engine.Features.Len = 2·D rounded up to whole tiles; per
// linear expert and output, Dim + 1.
func autoWeights(c Config) int {
	padded := (c.Features + 15) &^ 15
	steps := len(autoSteps[c.Task])
	return steps * outputsOf(c) * (autoLevels*2*padded + c.Dim + 1)
}

// Auto: the examples learnt (int64), every expert's cumulative loss, the
// trivial predictor's last (float64 each), whether each learning expert is
// retired (uint8 each), the trivial predictor's counts
// (classification: int64 per class, binary −1 then +1) or its running mean
// and squared error (regression: float64 each), then the weights (float32,
// column after column): the Gaussian experts' (expert e = width·4 + step,
// output c in column e·K + c; engine.Features.Len each), then the linear
// experts' (step s, output c in column s·K + c; Dim + 1 each). The
// frequencies are drawn again from Config.Seed.
func (l *auto) appendState(b []byte) []byte {
	b = le.AppendUint64(b, uint64(l.n))
	b = appendCoefficients(b, l.loss)
	for _, r := range l.retired {
		b = binrec.AppendBool(b, r)
	}
	if l.counts != nil {
		for _, c := range l.counts {
			b = le.AppendUint64(b, uint64(c))
		}
	} else {
		b = appendCoefficients(b, []float64{l.mean, l.spread})
	}
	for _, w := range l.w {
		b = le.AppendUint32(b, math.Float32bits(w))
	}
	for _, w := range l.lw {
		b = le.AppendUint32(b, math.Float32bits(w))
	}
	return b
}

// loadState reads the state and checks what learning relies on: losses
// non-negative (whole numbers of mistakes, at most the examples learnt, in
// classification), counts that sum to the examples learnt, finite weights,
// and zero weights on the padding of the features.
func (l *auto) loadState(r *reader) error {
	l.n = int64(r.int("auto example count", math.MaxInt64))
	for e := range l.loss {
		v := r.f64()
		if r.d.Err() == nil && (v < 0 || l.counts != nil && (v != math.Trunc(v) || v > float64(l.n))) {
			return r.fail("auto: expert %d has the loss %v after %d examples", e, v, l.n)
		}
		l.loss[e] = v
	}
	for e := range l.retired {
		l.retired[e] = r.bool("auto retired flag")
	}
	if l.counts != nil {
		var sum int64
		for c := range l.counts {
			l.counts[c] = int64(r.int("auto class count", math.MaxInt64))
			sum += l.counts[c]
		}
		if r.d.Err() == nil && sum != l.n {
			return r.fail("auto: class counts sum to %d, %d examples learnt", sum, l.n)
		}
	} else {
		l.mean, l.spread = r.f64(), r.f64()
		if r.d.Err() == nil && l.spread < 0 {
			return r.fail("auto: a negative squared error %v", l.spread)
		}
	}
	if need := 4 * (len(l.w) + len(l.lw)); r.d.Err() == nil && need > r.d.Len() {
		return r.fail("auto: %d weights need %d bytes, %d remain", len(l.w)+len(l.lw), need, r.d.Len())
	}
	half, count := l.stride/2, l.feat.Count()
	for i := range l.w {
		l.w[i] = r.f32()
		if r.d.Err() != nil {
			return r.d.Err()
		}
		if !finite32(l.w[i]) || l.w[i] != 0 && i%half >= count {
			return r.fail("auto: weight %d is %v", i, l.w[i])
		}
	}
	for i := range l.lw {
		if l.lw[i] = r.f32(); r.d.Err() == nil && !finite32(l.lw[i]) {
			return r.fail("auto: linear weight %d is %v", i, l.lw[i])
		}
	}
	return r.d.Err()
}
