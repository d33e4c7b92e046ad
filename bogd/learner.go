// Package bogd implements budgeted kernel online learners: BOGD and BOGD++
// (Zhao, Wang, Wu, Jin, Hoi, "Fast Bounded Online Gradient Descent Algorithms
// for Scalable Kernel-Based Online Learning", ICML 2012) and the baselines
// that paper compares against: Perceptron, OGD (kernel, no budget), RBP,
// Forgetron, Projectron and Projectron++; for binary classification,
// multi-class classification and regression (Task).
//
// Every learner follows the online protocol: it predicts the label of an
// example, counts a mistake (classification) or the error (regression), and
// then updates, computing the scores once and reusing the kernel values
// where the update needs them. Each algorithm's file states its exact rule
// in every task and where it deliberately differs from the paper authors'
// group's MATLAB toolbox (GitHub jingcoco/Online-Kernel-Learning, folders
// binary/, multiclass/ and regression/; ../shared/reference/lsokl-rules.md
// summarises it).
//
// Binary classifiers implement Learner (Observe with labels ±1, Predict
// returning f(x)); every learner of every task implements Online (Learn and
// PredictOne with float64 labels: ±1, a class label, or a real target).
//
// Support vectors and float32 weights live in an engine.Set, one weight
// column per output (K for K classes); learners keep global float64 scale
// factors so that a shrink of every weight costs O(1), renormalising before
// a scale under- or overflows.
package bogd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/bogd-project/bogd/engine"
)

// Base is what every learner of this package has, binary Learner and
// Online alike: what Save needs.
type Base interface {
	// SupportVectors returns the number of stored support vectors.
	SupportVectors() int
	// Snapshot returns an immutable copy of the current model, safe for
	// concurrent prediction while training goes on: one output per class
	// (multi-class) or a single one.
	Snapshot() (*engine.Model, error)
	// Algorithm names the rule.
	Algorithm() Algorithm
}

// Learner is an online binary classifier with a Gaussian kernel.
//
// Concurrency: the read-only methods (Predict, SupportVectors, Snapshot,
// Algorithm, and Save and SaveFile of this package) may be called from any
// number of goroutines at once, as long as no Observe runs. Observe needs
// the learner to itself: reading while training is a data race. To serve
// predictions while training goes on, publish Snapshots: a Model is
// immutable and safe to share.
type Learner interface {
	// Observe predicts the label of x, then learns from the true label y
	// (−1 or +1).
	Observe(x engine.Vector, y int) (Outcome, error)
	// Predict returns f(x) without learning.
	Predict(x engine.Vector) (float64, error)
	Base
}

// Online is a learner of any task: every learner of this package
// implements it. The concurrency rule is Learner's: PredictOne,
// SupportVectors, Snapshot, Config and saving may run on many goroutines at
// once while no Learn runs.
type Online interface {
	// Learn predicts the label of x, then learns from the true label y:
	// −1 or +1 (binary), one of Classes (multi-class), a finite value
	// (regression). Step.Scores is valid until the next Learn.
	Learn(x engine.Vector, y float64) (Step, error)
	// PredictOne predicts the label of x without learning. Multi-class
	// scores go to scores (resized to the number of classes; nil
	// allocates).
	PredictOne(x engine.Vector, scores []float64) (Prediction, error)
	// LearnBatch learns xs[i] with label ys[i] in order, as Learn, and
	// returns the steps (appended to dst[:0]; each with scores of its
	// own). It stops with ctx's error when ctx is done (checked every 256
	// examples), having learnt the examples before.
	LearnBatch(ctx context.Context, xs []engine.Vector, ys []float64, dst []Step) ([]Step, error)
	// PredictBatch predicts every x, as PredictOne, into dst[:0].
	PredictBatch(ctx context.Context, xs []engine.Vector, dst []Prediction) ([]Prediction, error)
	// Task is what the learner predicts.
	Task() Task
	// Classes lists the multi-class labels, class c being output c of
	// Snapshot's Model (nil for the other tasks).
	Classes() []int
	// Config returns the configuration the learner was made with.
	Config() Config
	// Calibration returns a copy of the learner's calibration of scores
	// into probabilities, or nil when it keeps none (Config.Calibrate).
	Calibration() *Calibration
	Base
}

// Outcome is the result of one Observe call.
type Outcome struct {
	Score   float64 // f(x) before the update
	Mistake bool    // sgn(Score) ≠ y, with sgn(0) = +1
	Updated bool    // the classifier changed beyond a uniform shrink
}

// Prediction is what a learner predicts for one example.
type Prediction struct {
	// Label is the predicted label: ±1 (binary), a class label
	// (multi-class) or the predicted value f(x) (regression).
	Label float64
	// Score is f(x) (binary, regression) or the predicted class's score.
	Score float64
	// Scores holds f_c(x) for every class, in Classes order (multi-class
	// only).
	Scores []float64
	// Probability is the calibrated probability of the predicted label
	// (binary: of +1), when the learner calibrates (NaN otherwise);
	// Probabilities holds every class's (multi-class).
	Probability   float64
	Probabilities []float64
}

// Step is the result of one Learn call: the prediction made before the
// update, and what the update did.
type Step struct {
	Prediction
	Mistake bool // classification: the predicted label was wrong
	Updated bool // the model changed beyond a uniform shrink
}

// Algorithm identifies a learning rule.
type Algorithm uint8

// The algorithms: the ICML 2012 paper's, in its order of presentation, then
// the later additions. The numbers are stored in model files: never reorder.
const (
	BOGD Algorithm = iota
	BOGDpp
	Perceptron
	OGD
	RBP
	Forgetron
	Projectron
	ProjectronPP
	// NORMA is kernel regression with an adaptive ε (the LSOKL toolbox's
	// Epsilon.m): regression only.
	NORMA
	// BOGDOldest is the LSOKL toolbox's multi-class and regression "BOGD":
	// BOGD's step, but at the budget the oldest support vector is dropped,
	// with no unbiased rescaling of the others. For comparison.
	BOGDOldest
	// BPAS is the budgeted passive-aggressive algorithm BPA-S (Wang and
	// Vucetic, 2010).
	BPAS
	// NOGD is Nyström online gradient descent (Lu et al., JMLR 2016):
	// kernel OGD until the budget is full, then linear OGD on a rank-k
	// Nyström feature map of the support vectors.
	NOGD
	// BSGDMerge is budgeted stochastic gradient descent with merging
	// (Wang, Crammer, Vucetic, JMLR 2012): Pegasos, and at the budget the
	// smallest vector merged with the partner that degrades the model least.
	BSGDMerge
	// FOGD is Fourier online gradient descent (Lu et al., JMLR 2016):
	// linear OGD on D random Fourier features of the Gaussian kernel. Its
	// budget sets D (Config.Features); it keeps no support vectors.
	FOGD
	numAlgorithms
)

var algorithmNames = [numAlgorithms]string{"bogd", "bogd++", "perceptron", "ogd", "rbp", "forgetron", "projectron", "projectron++", "norma", "bogd-oldest", "bpas", "nogd", "bsgd-merge", "fogd"}

// String returns the command-line name of the algorithm.
func (a Algorithm) String() string {
	if a < numAlgorithms {
		return algorithmNames[a]
	}
	return fmt.Sprintf("Algorithm(%d)", uint8(a))
}

// Budgeted reports whether the algorithm bounds the number of support
// vectors.
func (a Algorithm) Budgeted() bool { return a != Perceptron && a != OGD && a != NORMA }

// Supports reports whether the algorithm is defined for task t: NORMA is a
// regression rule, Projectron++'s margin updates have no regression form;
// every other algorithm learns every task.
func (a Algorithm) Supports(t Task) bool {
	switch a {
	case NORMA:
		return t == Regression
	case ProjectronPP:
		return t != Regression
	}
	return a < numAlgorithms && t < numTasks
}

// ruleVersions numbers the arithmetic of every algorithm: it grows by one
// whenever a change can alter what the algorithm computes on some input
// (its rule, or the engine's rounding of the scores it reads), so that
// stored results of different rules are never mixed. History:
//
//	1: every result recorded before versions were (no field in a record).
//	2: the engine zeroes, rather than floors at e⁻⁸⁷, the kernel values of
//	   support vectors far beyond the nearest one (engine.evaluate); BOGD
//	   and BOGD++ keep each support vector's sign when its weight
//	   underflows to 0. NORMA and BOGDOldest start here.
var ruleVersions = [numAlgorithms]int{
	BOGD: 2, BOGDpp: 2, Perceptron: 2, OGD: 2, RBP: 2, Forgetron: 2, Projectron: 2, ProjectronPP: 2,
	NORMA: 2, BOGDOldest: 2, BPAS: 2, NOGD: 2, BSGDMerge: 2, FOGD: 2,
}

// RuleVersion is the version of the algorithm's arithmetic (see
// ruleVersions): two results of one algorithm and version were computed by
// the same rule, and runs of equal inputs agree.
func (a Algorithm) RuleVersion() int {
	if a < numAlgorithms {
		return ruleVersions[a]
	}
	return 0
}

// Algorithms lists every algorithm.
func Algorithms() []Algorithm {
	out := make([]Algorithm, numAlgorithms)
	for i := range out {
		out[i] = Algorithm(i)
	}
	return out
}

// AlgorithmsFor lists the algorithms defined for task t.
func AlgorithmsFor(t Task) []Algorithm {
	var out []Algorithm
	for _, a := range Algorithms() {
		if a.Supports(t) {
			out = append(out, a)
		}
	}
	return out
}

// ParseAlgorithm parses a name as printed by String (case-insensitive;
// "bogdpp" and "projectronpp" are accepted too).
func ParseAlgorithm(s string) (Algorithm, error) {
	name := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "pp", "++")
	for i, n := range algorithmNames {
		if n == name {
			return Algorithm(i), nil
		}
	}
	return 0, fmt.Errorf("unknown algorithm %q (want one of %s)", s, strings.Join(algorithmNames[:], ", "))
}

// Projection selects how BOGD and BOGD++ keep weights within γη.
type Projection uint8

const (
	// ClipEach clips every weight to at most γη: the Euclidean projection
	// onto the paper's domain Ω(ηγ) (Eq. 3), as Eq. (10) writes it.
	ClipEach Projection = iota
	// RescaleAll multiplies every weight by min(1, γη/maxᵢ αᵢ), as the
	// authors' BOGD.m does.
	RescaleAll
)

// Config holds the parameters of every learner; each uses the ones its rule
// names (Algorithm.Params). A zero value means the default given here
// where zero is no valid setting for the rule; the defaults are the LSOKL
// toolbox's driver settings. Only Dim must be given.
type Config struct {
	Dim    int     // input dimension
	Budget int     // maximum support vectors (budgeted algorithms), ≥ 2 (0: 100)
	Sigma  float64 // Gaussian kernel width: κ(x,y) = exp(−‖x−y‖²/(2σ²)) (0: 8)
	// Eta is the step size η: of OGD, BOGD, BOGD++, BOGDOldest, NORMA,
	// NOGD and FOGD in every task, and in regression also the step ±η of
	// the Perceptron, RBP, Forgetron and Projectron (the toolbox's
	// eta_perceptron). 0: 0.2 (binary), 0.5 (multi-class), 0.1
	// (regression); NORMA 0.03; FOGD 0.002, 0.005 and 6e-4.
	Eta float64
	// Lambda is the regularisation λ (OGD, BOGD, BOGD++, BOGDOldest,
	// NORMA: f ← (1−λη)f each step; BSGD-merge: Pegasos's λ, 0 → 1e-4).
	// The paper's λ = 1/T² needs the stream length T, which a learner
	// does not know: 0 means no regularisation, and bogdbench sets 1/T²
	// when it reads a file.
	Lambda float64
	Gamma  float64 // maximum weight factor γ: weights stay ≤ γη (BOGD, BOGD++; 0: 10)
	Seed   uint64  // seeds every random choice (RBP, BOGD, BOGD++, FOGD's frequencies)

	// Projection is BOGD's and BOGD++'s projection (default ClipEach).
	Projection Projection
	// ProjectronThreshold, when positive, restores the original
	// Projectron rule: a mistaken example whose distance to the span of the
	// support vectors, ‖δ‖, is at most this threshold is projected even
	// while the budget has room. Zero (the default) follows the authors'
	// code: add until the budget is full, project afterwards.
	ProjectronThreshold float64

	// Task is what the learner predicts (default Binary).
	Task Task
	// Classes lists the labels of a Multiclass learner: at least two
	// distinct integers, in ascending order; class c is output c.
	Classes []int
	// Epsilon is the width ε of the regression losses' insensitive zone:
	// an example updates when |y − f(x)| > ε (NORMA: where ε starts).
	Epsilon float64
	// Nu is NORMA's ν ∈ [0, 1]: ε grows by (1−ν)η after an update and
	// shrinks by νη otherwise, so that about a fraction ν of the examples
	// update.
	Nu float64

	// C is BPA-S's aggressiveness: a step is at most C (0: 1).
	C float64
	// Rank is NOGD's k, the dimension of its Nyström feature map
	// (1 ≤ Rank ≤ Budget; 0: 0.2·Budget, as the toolbox).
	Rank int
	// Features is FOGD's D, the number of random Fourier frequencies (0:
	// 4·Budget, 15·Budget in regression, as the toolbox).
	Features int

	// Calibrate makes a classifier fit a Calibration online, so that its
	// predictions carry probabilities (costing a sigmoid, or a softmax
	// over the classes, per example).
	Calibrate bool

	// Storage is how the support vectors are stored (engine.Storage):
	// dense tiles, sparse non-zeros, or (the zero value) chosen by the
	// dimension, sparse from engine.SparseDim features on. Sparse storage
	// keeps memory and updates O(non-zeros) for hashed text and other
	// inputs with millions of features and a few set per example.
	Storage engine.Storage
}

// ErrConfig is wrapped by every configuration error.
var ErrConfig = errors.New("invalid configuration")

func (c Config) validate(a Algorithm) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%v: %w: %s", a, ErrConfig, fmt.Sprintf(format, args...))
	}
	switch {
	case a >= numAlgorithms:
		return bad("unknown algorithm")
	case c.Task >= numTasks:
		return bad("unknown task %d", c.Task)
	case !a.Supports(c.Task):
		return bad("not defined for %v", c.Task)
	case c.Dim <= 0:
		return bad("dimension must be positive, got %d", c.Dim)
	case !(c.Sigma >= 1e-15 && c.Sigma <= 1e15):
		return bad("kernel width sigma must be in [1e-15, 1e15], got %v", c.Sigma)
	case c.Storage > engine.SparseStorage:
		return bad("unknown storage %d", c.Storage)
	case a.Budgeted() && c.Budget < 2:
		return bad("budget must be at least 2, got %d", c.Budget)
	}
	if err := c.validateTask(); err != nil {
		return bad("%v", err)
	}
	if a.usesEta(c.Task) {
		switch {
		case !(c.Eta >= 1e-20 && c.Eta <= 1e20):
			// Weights are float32 divided by a global scale that may fall
			// to 1e-15 before renormalisation: 1e20/1e-15 stays finite.
			return bad("step size eta must be in [1e-20, 1e20], got %v", c.Eta)
		case !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0):
			return bad("regularisation lambda must be non-negative and finite, got %v", c.Lambda)
		case c.Lambda*c.Eta >= 1:
			return bad("lambda*eta must be below 1 (got %v): every weight would vanish or flip sign", c.Lambda*c.Eta)
		}
	}
	if a == BOGD || a == BOGDpp || a == BOGDOldest {
		if !(c.Gamma > 0) || math.IsInf(c.Gamma, 0) {
			return bad("gamma must be positive and finite, got %v", c.Gamma)
		}
		if c.Projection > RescaleAll {
			return bad("unknown projection %d", c.Projection)
		}
	}
	if a == NORMA && !(c.Nu >= 0 && c.Nu <= 1) {
		return bad("nu must be in [0, 1], got %v", c.Nu)
	}
	if a == BPAS && !(c.C > 0 && c.C <= 1e15) {
		return bad("C must be in (0, 1e15], got %v", c.C)
	}
	if a == BSGDMerge && !(c.Lambda >= 1e-15 && c.Lambda <= 1e15) {
		return bad("lambda must be in [1e-15, 1e15] (Pegasos steps by 1/(λt)), got %v", c.Lambda)
	}
	if a == FOGD && (c.Features < 1 || c.Features > MaxFeatures) {
		return bad("the number of Fourier features must be in [1, %d], got %d", MaxFeatures, c.Features)
	}
	if a == FOGD && c.Dim > engine.MaxFrequencyValues/c.Features {
		return bad("%d Fourier features of dimension %d need %d MiB of frequencies, more than the %d MiB allowed: use fewer features or hash the data into fewer dimensions",
			c.Features, c.Dim, int64(c.Features)*int64(c.Dim)*4>>20, engine.MaxFrequencyValues*4>>20)
	}
	if a == NOGD && (c.Rank < 1 || c.Rank > c.Budget) {
		return bad("the rank k must be in [1, budget %d], got %d", c.Budget, c.Rank)
	}
	if !(c.ProjectronThreshold >= 0) || math.IsInf(c.ProjectronThreshold, 0) {
		return bad("projectron threshold must be non-negative and finite, got %v", c.ProjectronThreshold)
	}
	return nil
}

// withDefaults fills the zero values of the parameters a rule of a on
// cfg.Task reads and cannot be zero, with the defaults documented on Config
// (the LSOKL toolbox's drivers: ../shared/reference/lsokl-rules.md). Dim,
// which nothing can guess, stays an error.
func (c Config) withDefaults(a Algorithm) Config {
	if c.Budget == 0 {
		c.Budget = 100
	}
	if c.Sigma == 0 {
		c.Sigma = 8
	}
	if c.Eta == 0 && a.Params(c.Task).Has(ParamEta) {
		c.Eta = defaultEta(a, c.Task)
	}
	if c.Gamma == 0 {
		c.Gamma = 10
	}
	if c.Lambda == 0 && a == BSGDMerge {
		c.Lambda = 1e-4 // BudgetedSVM's
	}
	if c.C == 0 {
		c.C = 1
	}
	if c.Rank == 0 {
		c.Rank = max(1, int(math.Round(0.2*float64(c.Budget))))
	}
	if c.Features == 0 {
		c.Features = 4 * c.Budget
		if c.Task == Regression {
			c.Features = 15 * c.Budget
		}
	}
	return c
}

// defaultEta is the step size of the toolbox's driver for a on task t.
func defaultEta(a Algorithm, t Task) float64 {
	switch {
	case a == FOGD:
		return [numTasks]float64{Binary: 0.002, Multiclass: 0.005, Regression: 6e-4}[t]
	case a == NORMA:
		return 0.03
	case t == Regression:
		return 0.1
	case t == Multiclass:
		return 0.5
	}
	return 0.2
}

// validateTask checks the task's own parameters.
func (c Config) validateTask() error {
	switch c.Task {
	case Multiclass:
		if len(c.Classes) < 2 {
			return fmt.Errorf("a multi-class learner needs at least 2 classes, got %d", len(c.Classes))
		}
		if len(c.Classes) > MaxClasses {
			return fmt.Errorf("%d classes, at most %d", len(c.Classes), MaxClasses)
		}
		for i := 1; i < len(c.Classes); i++ {
			if c.Classes[i] <= c.Classes[i-1] {
				return fmt.Errorf("classes must be distinct and ascending, got %d after %d", c.Classes[i], c.Classes[i-1])
			}
		}
	case Regression:
		if !(c.Epsilon >= 0) || math.IsInf(c.Epsilon, 0) {
			return fmt.Errorf("epsilon must be non-negative and finite, got %v", c.Epsilon)
		}
	}
	if c.Task != Multiclass && len(c.Classes) > 0 {
		return fmt.Errorf("classes are for multi-class learners, not %v", c.Task)
	}
	if c.Calibrate && c.Task == Regression {
		return fmt.Errorf("calibration gives class probabilities: a regressor has none")
	}
	return nil
}

// MaxClasses is the largest number of classes of a multi-class learner.
const MaxClasses = 1000

// MaxFeatures is the largest number of FOGD's random Fourier features.
const MaxFeatures = 1 << 20

// Param is a set of the tunable parameters of Config.
type Param uint8

// The tunable parameters.
const (
	ParamEta    Param = 1 << iota // Config.Eta
	ParamLambda                   // Config.Lambda
	ParamGamma                    // Config.Gamma
	ParamC                        // Config.C
)

// Has reports whether every parameter of q is in p.
func (p Param) Has(q Param) bool { return p&q == q }

// Params returns the parameters the rule of a reads in task t: what a
// parameter search should vary. (σ, the budget and the task's own
// parameters are every kernel learner's.)
func (a Algorithm) Params(t Task) Param {
	switch a {
	case OGD, NORMA:
		return ParamEta | ParamLambda
	case NOGD, FOGD:
		return ParamEta
	case BSGDMerge:
		return ParamLambda
	case BOGD, BOGDpp, BOGDOldest:
		return ParamEta | ParamLambda | ParamGamma
	case BPAS:
		return ParamC
	case Perceptron, RBP, Forgetron, Projectron:
		if t == Regression {
			return ParamEta
		}
	}
	return 0
}

// usesEta reports whether the rule of a on task t takes a step η.
func (a Algorithm) usesEta(t Task) bool { return a.Params(t).Has(ParamEta) }

// New returns a binary learner running algorithm a (cfg.Task must be
// Binary, its zero value).
func New(a Algorithm, cfg Config) (Learner, error) {
	if cfg.Task != Binary {
		return nil, fmt.Errorf("%v: %w: New makes binary learners; use NewOnline for %v", a, ErrConfig, cfg.Task)
	}
	l, err := NewOnline(a, cfg)
	if err != nil {
		return nil, err
	}
	return l.(Learner), nil
}

// NewOnline returns a learner of cfg.Task running algorithm a.
func NewOnline(a Algorithm, cfg Config) (Online, error) {
	cfg = cfg.withDefaults(a)
	if err := cfg.validate(a); err != nil {
		return nil, err
	}
	capacity := cfg.Budget
	if !a.Budgeted() {
		capacity = 1024
	}
	switch a {
	case BSGDMerge:
		capacity++ // a new vector joins before two merge
	case FOGD:
		capacity = 0 // no support vectors
	}
	return build(a, cfg, capacity, rand.NewPCG(cfg.Seed, pcgStream))
}

// pcgStream is the second PCG seed word of every learner's random source.
const pcgStream = 0x62_6f_67_64

// build assembles a learner of a validated configuration around an empty
// support set with room for capacity vectors and the random source pcg.
func build(a Algorithm, cfg Config, capacity int, pcg *rand.PCG) (persistent, error) {
	cfg.Classes = slices.Clone(cfg.Classes)
	lab := labels{task: cfg.Task, classes: cfg.Classes, epsilon: cfg.Epsilon}
	k := lab.outputs()
	columns := columnsOf(a, cfg)
	set, err := engine.New(cfg.Dim, cfg.Sigma, engine.Options{Capacity: capacity, Columns: columns, Storage: cfg.Storage})
	if err != nil {
		return nil, fmt.Errorf("%v: %w", a, err)
	}
	b := base{
		cfg: cfg, algo: a, labels: lab, outputs: k, set: set, scale: 1, pcg: pcg, rng: rand.New(pcg),
		scores: make([]float64, k), sums: make([]float64, columns),
	}
	if cfg.Calibrate {
		b.cal, b.probs = newCalibration(k), make([]float64, k)
	}
	var l persistent
	switch a {
	case Perceptron:
		l = &perceptron{base: b}
	case OGD:
		l = &ogd{base: b}
	case NORMA:
		l = &norma{base: b, eps: cfg.Epsilon}
	case RBP:
		l = &rbp{base: b}
	case BOGD:
		l = newUniform(b)
	case BOGDpp:
		l = newNonUniform(b)
	case BOGDOldest:
		l = newOldest(b)
	case BPAS:
		l = newBPAS(b)
	case NOGD:
		l = newNOGD(b)
	case BSGDMerge:
		l = newBSGD(b)
	case FOGD:
		f, err := newFOGD(b)
		if err != nil {
			return nil, err
		}
		l = f
	case Forgetron:
		l = newForgetron(b)
	default: // Projectron, ProjectronPP
		l = newProjectron(b)
	}
	l.core().rule = l
	return l, nil
}

// rule is an algorithm's step: the part of a learner that differs between
// algorithms. learn scores x (base.observe), judges it, updates, and
// reports whether the model changed beyond a uniform shrink.
type rule interface {
	learn(x engine.Vector, t target) (j judgment, updated bool, err error)
}

// base is what every learner shares: the support set, the global scale of
// the first group of weight columns, the random source and the scratch.
type base struct {
	cfg     Config
	algo    Algorithm
	labels  labels
	outputs int // classes (multi-class) or 1
	set     *engine.Set
	scale   float64   // α = scale·w for weight columns 0..k−1
	group   float64   // α = group·w for weight columns k..2k−1, when there are
	pcg     *rand.PCG // the state of rng, kept for saving and restoring
	rng     *rand.Rand
	rule    rule // the concrete learner, whose learn Observe and Learn call

	// pat holds the pattern of every support vector of the learners whose
	// coefficients are a scalar times a pattern (add keeps it; the
	// Projectrons leave it empty), aligned with the set through remove.
	pat    []pattern
	scores []float64 // f_c(x) of the last observe
	sums   []float64 // column sums of one evaluation
	cal    *Calibration
	probs  []float64 // probabilities of the last Learn

	// scratch holds the kernel values of the last observe, which the
	// updates read; readers borrow scratches of their own from the set.
	scratch engine.Scratch
}

func (b *base) Algorithm() Algorithm { return b.algo }

func (b *base) SupportVectors() int { return b.set.Len() }

func (b *base) Task() Task { return b.labels.task }

func (b *base) Classes() []int { return slices.Clone(b.labels.classes) }

func (b *base) Calibration() *Calibration {
	if b.cal == nil {
		return nil
	}
	return b.cal.clone()
}

func (b *base) Config() Config {
	c := b.cfg
	c.Classes = slices.Clone(c.Classes)
	return c
}

// scorer is implemented by the learners whose scores are not the sums of
// their weight columns (NOGD's second phase): scoresWith calls it instead.
type scorer interface {
	customScores(sc *engine.Scratch, x engine.Vector, f, sums []float64) error
}

// scoresWith writes the scores of x into f on the scratch sc (sums holds
// one value per weight column, for the learner's use). With a scratch of
// its own a reader computes exactly what Observe computes, without
// touching the learner; on the learner's own scratch the kernel values stay
// there for the update.
func (b *base) scoresWith(sc *engine.Scratch, x engine.Vector, f, sums []float64) error {
	if s, ok := b.rule.(scorer); ok {
		return s.customScores(sc, x, f, sums)
	}
	return b.kernelScores(sc, x, f, sums)
}

// kernelScores evaluates f_c(x) = scale·Σᵢ w_{c,i}κ(x,sᵢ) + group·Σᵢ
// w_{k+c,i}κ(x,sᵢ) for every output c into f: the scores of every learner
// but NOGD in its second phase.
func (b *base) kernelScores(sc *engine.Scratch, x engine.Vector, f, sums []float64) error {
	cols := b.set.Columns()
	if err := b.set.Evaluate(sc, x, sums[:cols]); err != nil {
		return fmt.Errorf("%v: %w", b.algo, err)
	}
	for c := range b.outputs {
		f[c] = b.scale * sums[c]
		if cols > b.outputs {
			f[c] += b.group * sums[b.outputs+c]
		}
	}
	return nil
}

// observe scores x on the learner's own scratch (the kernel values stay there
// for the update) and judges the scores against t.
func (b *base) observe(x engine.Vector, t target) (judgment, error) {
	if err := b.scoresWith(&b.scratch, x, b.scores, b.sums); err != nil {
		return judgment{}, err
	}
	return b.labels.judge(b.scores, t), nil
}

// Observe predicts and learns one binary example.
func (b *base) Observe(x engine.Vector, y int) (Outcome, error) {
	if b.labels.task != Binary {
		return Outcome{}, fmt.Errorf("%v: Observe takes binary labels; this learner's task is %v (use Learn)", b.algo, b.labels.task)
	}
	if y != 1 && y != -1 {
		return Outcome{}, fmt.Errorf("%v: label must be -1 or +1, got %d", b.algo, y)
	}
	j, updated, err := b.rule.learn(x, target{class: y})
	if err != nil {
		return Outcome{}, err
	}
	if b.cal != nil {
		b.cal.learn(b.scores, y, b.probs)
	}
	return Outcome{Score: b.scores[0], Mistake: j.mistake, Updated: updated}, nil
}

// Learn predicts and learns one example of the learner's task.
func (b *base) Learn(x engine.Vector, y float64) (Step, error) {
	t, err := b.labels.target(y)
	if err != nil {
		return Step{}, fmt.Errorf("%v: %w", b.algo, err)
	}
	j, updated, err := b.rule.learn(x, t)
	if err != nil {
		return Step{}, err
	}
	st := Step{Prediction: b.prediction(j, b.scores, b.probs), Mistake: j.mistake, Updated: updated}
	if b.cal != nil {
		b.cal.learn(b.scores, t.class, b.probs)
	}
	return st, nil
}

// prediction turns a judgment of scores f into what the task predicts,
// with the calibrated probabilities (into probs) when the learner
// calibrates.
func (b *base) prediction(j judgment, f, probs []float64) Prediction {
	p := Prediction{Label: f[0], Score: f[0], Probability: math.NaN()}
	switch b.labels.task {
	case Binary:
		p.Label = float64(j.predicted)
	case Multiclass:
		p = Prediction{Label: float64(b.labels.classes[j.predicted]), Score: f[j.predicted], Scores: f, Probability: math.NaN()}
	}
	if b.cal != nil {
		probs = b.cal.Probabilities(f, probs)
		p.Probability = probs[0]
		if b.labels.task == Multiclass {
			p.Probability, p.Probabilities = probs[j.predicted], probs
		}
	}
	return p
}

// Predict scores x on a scratch borrowed from the set, so that any number
// of goroutines may predict at once while no Observe runs. It returns f(x)
// of output 0: the binary score.
func (b *base) Predict(x engine.Vector) (float64, error) {
	var f [1]float64
	if b.outputs != 1 {
		return 0, fmt.Errorf("%v: Predict returns one score; this learner has %d (use PredictOne)", b.algo, b.outputs)
	}
	sc := b.set.Borrow()
	defer b.set.Release(sc)
	var buf [64]float64
	sums := buf[:0]
	if cols := b.set.Columns(); cols <= len(buf) {
		sums = buf[:cols]
	} else {
		sums = make([]float64, cols)
	}
	if err := b.scoresWith(sc, x, f[:], sums); err != nil {
		return 0, err
	}
	return f[0], nil
}

// batchCheck is how many examples a batch call handles between looks at
// its context.
const batchCheck = 256

func (b *base) LearnBatch(ctx context.Context, xs []engine.Vector, ys []float64, dst []Step) ([]Step, error) {
	if len(xs) != len(ys) {
		return dst[:0], fmt.Errorf("%v: %d examples and %d labels", b.algo, len(xs), len(ys))
	}
	dst = dst[:0]
	for i, x := range xs {
		if i%batchCheck == 0 && ctx.Err() != nil {
			return dst, ctx.Err()
		}
		st, err := b.Learn(x, ys[i])
		if err != nil {
			return dst, fmt.Errorf("example %d: %w", i, err)
		}
		st.Scores, st.Probabilities = slices.Clone(st.Scores), slices.Clone(st.Probabilities)
		dst = append(dst, st)
	}
	return dst, nil
}

func (b *base) PredictBatch(ctx context.Context, xs []engine.Vector, dst []Prediction) ([]Prediction, error) {
	dst = dst[:0]
	for i, x := range xs {
		if i%batchCheck == 0 && ctx.Err() != nil {
			return dst, ctx.Err()
		}
		p, err := b.PredictOne(x, nil)
		if err != nil {
			return dst, fmt.Errorf("example %d: %w", i, err)
		}
		dst = append(dst, p)
	}
	return dst, nil
}

// PredictOne predicts x on a borrowed scratch (see Predict).
func (b *base) PredictOne(x engine.Vector, scores []float64) (Prediction, error) {
	scores = slices.Grow(scores[:0], b.outputs)[:b.outputs]
	sc := b.set.Borrow()
	defer b.set.Release(sc)
	sums := make([]float64, b.set.Columns())
	if err := b.scoresWith(sc, x, scores, sums); err != nil {
		return Prediction{}, err
	}
	var j judgment
	switch b.labels.task {
	case Binary:
		j.predicted = sign(scores[0])
	case Multiclass:
		j.predicted = argmax(scores, -1)
	}
	var probs []float64
	if b.cal != nil {
		probs = make([]float64, b.outputs)
	}
	return b.prediction(j, scores, probs), nil
}

func (b *base) Snapshot() (*engine.Model, error) {
	if b.set.Columns() > b.outputs {
		return b.set.Snapshot(b.outputs, b.scale, b.group)
	}
	return b.set.Snapshot(b.outputs, b.scale)
}

// shrink multiplies every weight of the first column group by factor,
// renormalising the stored weights when the scale leaves the range where
// float32 weights stay accurate.
//
// Weights that fall below 1e-30 become exactly 0: they cannot matter next
// to a new weight of at least η ≥ 1e-20, and float32 denormals would make
// every later kernel sum crawl.
func (b *base) shrink(factor float64) {
	b.scale *= factor
	if b.scale < 1e-15 || b.scale > 1e15 {
		for c := range b.outputs {
			w := b.set.WeightColumn(c)
			for i := range w {
				if v := float64(w[i]) * b.scale; math.Abs(v) >= 1e-30 {
					w[i] = float32(v)
				} else {
					w[i] = 0
				}
			}
		}
		b.scale = 1
	}
}

// add stores x with coefficient a (≥ 0, or any sign in a one-output
// pattern learner that passes signed) along the pattern p: a in column
// p.pos, −a in column p.neg, divided by the scale. It returns x's index.
func (b *base) add(x engine.Vector, a float64, p pattern) (int, error) {
	i, err := b.set.Add(x)
	if err != nil {
		return 0, fmt.Errorf("%v: %w", b.algo, err)
	}
	b.setFree(i, a, p)
	for len(b.pat) <= i {
		b.pat = append(b.pat, pattern{})
	}
	b.pat[i] = p
	return i, nil
}

// setFree writes coefficient a along pattern p as the free (scaled) weight
// of slot i.
func (b *base) setFree(i int, a float64, p pattern) {
	if p.pos >= 0 {
		b.set.WeightColumn(int(p.pos))[i] = float32(a / b.scale)
	}
	if p.neg >= 0 {
		b.set.WeightColumn(int(p.neg))[i] = float32(-a / b.scale)
	}
}

// weight returns the magnitude of slot i's free weight (columns 0..k−1).
func (b *base) weight(i int) float64 {
	return b.scale * math.Abs(float64(b.set.WeightColumn(b.pat[i].lead())[i]))
}

// remove deletes support vector i, keeping the patterns aligned with the
// swap-remove; it returns the former index of the vector that moved into
// slot i, or -1.
func (b *base) remove(i int) (moved int) {
	moved = b.set.Remove(i)
	if moved >= 0 && moved < len(b.pat) {
		b.pat[i] = b.pat[moved]
	}
	return moved
}
