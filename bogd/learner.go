// Package bogd implements budgeted kernel online learners: BOGD and BOGD++
// (Zhao, Wang, Wu, Jin, Hoi, "Fast Bounded Online Gradient Descent Algorithms
// for Scalable Kernel-Based Online Learning", ICML 2012) and the baselines
// that paper compares against: Perceptron, OGD (kernel, no budget), RBP,
// Forgetron, Projectron and Projectron++.
//
// Every learner follows the online protocol: Observe(x, y) predicts
// sgn(f(x)) (a score of exactly 0 predicts +1), counts a mistake if that
// differs from y ∈ {−1, +1}, and then updates, computing f(x) once and reusing
// the kernel values where the update needs them. Each algorithm's file
// states its exact rule and where it deliberately differs from the paper
// authors' group's MATLAB code (GitHub jingcoco/Online-Kernel-Learning,
// folder binary/).
//
// Support vectors and float32 weights live in an engine.Set; learners keep
// global float64 scale factors so that a shrink of every weight costs O(1),
// renormalising before a scale under- or overflows.
package bogd

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/bogd-project/bogd/engine"
)

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
	// SupportVectors returns the number of stored support vectors.
	SupportVectors() int
	// Snapshot returns an immutable copy of the current classifier, safe
	// for concurrent prediction while training goes on.
	Snapshot() (*engine.Model, error)
	// Algorithm names the rule.
	Algorithm() Algorithm
}

// Outcome is the result of one Observe call.
type Outcome struct {
	Score   float64 // f(x) before the update
	Mistake bool    // sgn(Score) ≠ y, with sgn(0) = +1
	Updated bool    // the classifier changed beyond a uniform shrink
}

// Algorithm identifies a learning rule.
type Algorithm uint8

// The algorithms, in the paper's order of presentation.
const (
	BOGD Algorithm = iota
	BOGDpp
	Perceptron
	OGD
	RBP
	Forgetron
	Projectron
	ProjectronPP
	numAlgorithms
)

var algorithmNames = [numAlgorithms]string{"bogd", "bogd++", "perceptron", "ogd", "rbp", "forgetron", "projectron", "projectron++"}

// String returns the command-line name of the algorithm.
func (a Algorithm) String() string {
	if a < numAlgorithms {
		return algorithmNames[a]
	}
	return fmt.Sprintf("Algorithm(%d)", uint8(a))
}

// Budgeted reports whether the algorithm bounds the number of support
// vectors.
func (a Algorithm) Budgeted() bool { return a != Perceptron && a != OGD }

// ruleVersions numbers the arithmetic of every algorithm: it grows by one
// whenever a change can alter what the algorithm computes on some input
// (its rule, or the engine's rounding of the scores it reads), so that
// stored results of different rules are never mixed. History:
//
//	1: every result recorded before versions were (no field in a record).
//	2: the engine zeroes, rather than floors at e⁻⁸⁷, the kernel values of
//	   support vectors far beyond the nearest one (engine.evaluate).
var ruleVersions = [numAlgorithms]int{
	BOGD: 2, BOGDpp: 2, Perceptron: 2, OGD: 2, RBP: 2, Forgetron: 2, Projectron: 2, ProjectronPP: 2,
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
// names.
type Config struct {
	Dim    int     // input dimension
	Budget int     // maximum support vectors (budgeted algorithms), ≥ 2
	Sigma  float64 // Gaussian kernel width: κ(x,y) = exp(−‖x−y‖²/(2σ²))
	Eta    float64 // step size η (OGD, BOGD, BOGD++)
	Lambda float64 // regularisation λ (OGD, BOGD, BOGD++)
	Gamma  float64 // maximum weight factor γ: weights stay ≤ γη (BOGD, BOGD++)
	Seed   uint64  // seeds every random choice (RBP, BOGD, BOGD++)

	// Projection is BOGD's and BOGD++'s projection (default ClipEach).
	Projection Projection
	// ProjectronThreshold, when positive, restores the original
	// Projectron rule: a mistaken example whose distance to the span of the
	// support vectors, ‖δ‖, is at most this threshold is projected even
	// while the budget has room. Zero (the default) follows the authors'
	// code: add until the budget is full, project afterwards.
	ProjectronThreshold float64
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
	case c.Dim <= 0:
		return bad("dimension must be positive, got %d", c.Dim)
	case !(c.Sigma >= 1e-15 && c.Sigma <= 1e15):
		return bad("kernel width sigma must be in [1e-15, 1e15], got %v", c.Sigma)
	case a.Budgeted() && c.Budget < 2:
		return bad("budget must be at least 2, got %d", c.Budget)
	}
	if a == OGD || a == BOGD || a == BOGDpp {
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
	if a == BOGD || a == BOGDpp {
		if !(c.Gamma > 0) || math.IsInf(c.Gamma, 0) {
			return bad("gamma must be positive and finite, got %v", c.Gamma)
		}
		if c.Projection > RescaleAll {
			return bad("unknown projection %d", c.Projection)
		}
	}
	if !(c.ProjectronThreshold >= 0) || math.IsInf(c.ProjectronThreshold, 0) {
		return bad("projectron threshold must be non-negative and finite, got %v", c.ProjectronThreshold)
	}
	return nil
}

// New returns a learner running algorithm a.
func New(a Algorithm, cfg Config) (Learner, error) {
	if err := cfg.validate(a); err != nil {
		return nil, err
	}
	capacity := cfg.Budget
	if !a.Budgeted() {
		capacity = 1024
	}
	return build(a, cfg, capacity, rand.NewPCG(cfg.Seed, pcgStream))
}

// pcgStream is the second PCG seed word of every learner's random source.
const pcgStream = 0x62_6f_67_64

// build assembles a learner of a validated configuration around an empty
// support set with room for capacity vectors and the random source pcg.
func build(a Algorithm, cfg Config, capacity int, pcg *rand.PCG) (persistent, error) {
	columns := 1
	if a == BOGD || a == BOGDpp {
		columns = 2
	}
	set, err := engine.New(cfg.Dim, cfg.Sigma, engine.Options{Capacity: capacity, Columns: columns})
	if err != nil {
		return nil, fmt.Errorf("%v: %w", a, err)
	}
	b := base{cfg: cfg, algo: a, set: set, scale: 1, pcg: pcg, rng: rand.New(pcg)}
	switch a {
	case Perceptron:
		return &perceptron{base: b}, nil
	case OGD:
		return &ogd{base: b}, nil
	case RBP:
		return &rbp{base: b}, nil
	case BOGD:
		return newUniform(b), nil
	case BOGDpp:
		return newNonUniform(b), nil
	case Forgetron:
		return newForgetron(b), nil
	default: // Projectron, ProjectronPP
		return newProjectron(b), nil
	}
}

// base is what every learner shares: the support set, the global scale of
// weight column 0, the random source and the counters.
type base struct {
	cfg   Config
	algo  Algorithm
	set   *engine.Set
	scale float64   // α = scale·w for weight column 0
	group float64   // α = group·w for weight column 1, when there is one
	pcg   *rand.PCG // the state of rng, kept for saving and restoring
	rng   *rand.Rand
}

func (b *base) Algorithm() Algorithm { return b.algo }

func (b *base) SupportVectors() int { return b.set.Len() }

// score evaluates f(x) = scale·Σ w₀ᵢκ(x,sᵢ) + group·Σ w₁ᵢκ(x,sᵢ), leaving
// the kernel values in the set for the update.
func (b *base) score(x engine.Vector) (float64, error) {
	return b.scoreWith(b.set.OwnScratch(), x)
}

// scoreWith is score on the scratch sc: with a scratch of its own, a
// reader computes exactly what Observe computes without touching the
// learner.
func (b *base) scoreWith(sc *engine.Scratch, x engine.Vector) (float64, error) {
	s, err := b.set.ScoreWith(sc, x)
	if err != nil {
		return 0, fmt.Errorf("%v: %w", b.algo, err)
	}
	f := b.scale * s
	if b.set.Columns() > 1 {
		f += b.group * b.set.SumWith(sc, 1)
	}
	return f, nil
}

// Predict scores x on a scratch borrowed from the set, so that any number
// of goroutines may predict at once while no Observe runs.
func (b *base) Predict(x engine.Vector) (float64, error) {
	sc := b.set.Borrow()
	defer b.set.Release(sc)
	return b.scoreWith(sc, x)
}

func (b *base) Snapshot() (*engine.Model, error) {
	if b.set.Columns() > 1 {
		return b.set.Snapshot(b.scale, b.group)
	}
	return b.set.Snapshot(b.scale)
}

// shrink multiplies every weight of column 0 by factor, renormalising the
// stored weights when the scale leaves the range where float32 weights stay
// accurate.
//
// Weights that fall below 1e-30 become exactly 0: they cannot matter next
// to a new weight of at least η ≥ 1e-20, and float32 denormals would make
// every later kernel sum crawl.
func (b *base) shrink(factor float64) {
	b.scale *= factor
	if b.scale < 1e-15 || b.scale > 1e15 {
		w := b.set.Weights(0)
		for i := range w {
			if v := float64(w[i]) * b.scale; math.Abs(v) >= 1e-30 {
				w[i] = float32(v)
			} else {
				w[i] = 0
			}
		}
		b.scale = 1
	}
}

// add stores x with the signed coefficient coef (yᵢαᵢ) in column 0 and
// returns its index.
func (b *base) add(x engine.Vector, coef float64) (int, error) {
	i, err := b.set.Add(x, float32(coef/b.scale))
	if err != nil {
		return 0, fmt.Errorf("%v: %w", b.algo, err)
	}
	return i, nil
}

// observe runs the shared start of every Observe: score x, check y, and
// decide the mistake.
func (b *base) observe(x engine.Vector, y int) (Outcome, error) {
	if y != 1 && y != -1 {
		return Outcome{}, fmt.Errorf("%v: label must be -1 or +1, got %d", b.algo, y)
	}
	f, err := b.score(x)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Score: f, Mistake: sign(f) != y}, nil
}

// sign is the prediction rule: sgn(f) with sgn(0) = +1.
func sign(f float64) int {
	if f < 0 {
		return -1
	}
	return 1
}
