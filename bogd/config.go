package bogd

import (
	"errors"
	"fmt"
	"math"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/task"
)

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

// Config holds the parameters of every learner; each algorithm reads the
// ones its rule names (Algorithm.Params; σ, the budget and the task's own
// parameters are every kernel learner's) and ignores the others. Only Dim
// must be given: a zero field takes the default of Defaults.
type Config struct {
	Dim    int     // input dimension
	Budget int     // maximum support vectors (budgeted algorithms), ≥ 2
	Sigma  float64 // Gaussian kernel width: κ(x,y) = exp(−‖x−y‖²/(2σ²)); Auto's centre width (auto.go)
	// Eta is the step size η: of OGD, BOGD, BOGD++, BOGDOldest, NORMA,
	// NOGD and FOGD in every task, and in regression also the step ±η of
	// the Perceptron, RBP, Forgetron and Projectron (the toolbox's
	// eta_perceptron).
	Eta float64
	// Lambda is the regularisation λ (OGD, BOGD, BOGD++, BOGDOldest,
	// NORMA: f ← (1−λη)f each step; BSGD-merge: Pegasos's λ). The paper's
	// λ = 1/T² needs the stream length T, which a learner does not know:
	// 0 means no regularisation (bogdbench sets 1/T² when it reads a file).
	Lambda float64
	Gamma  float64 // maximum weight factor γ: weights stay ≤ γη (BOGD, BOGD++, BOGDOldest)
	Seed   uint64  // seeds every random choice (RBP, BOGD, BOGD++, FOGD's frequencies)

	// Projection is BOGD's and BOGD++'s projection.
	Projection Projection
	// ProjectronThreshold, when positive, restores the original
	// Projectron rule: a mistaken example whose distance to the span of the
	// support vectors, ‖δ‖, is at most this threshold is projected even
	// while the budget has room. Zero follows the authors' code: add until
	// the budget is full, project afterwards.
	ProjectronThreshold float64

	// Task is what the learner predicts. Auto (the zero value) is
	// Multiclass when Classes are given, else Binary.
	Task task.Task
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

	// C is BPA-S's aggressiveness: a step is at most C.
	C float64
	// Rank is NOGD's k, the dimension of its Nyström feature map
	// (1 ≤ Rank ≤ Budget).
	Rank int
	// Features is FOGD's and Auto's D, the number of random Fourier
	// frequencies (Auto's every width shares them).
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

// Defaults returns the configuration New uses for algorithm a on task t
// when every field is zero: the LSOKL toolbox's driver settings. New
// replaces each zero field of a Config by the value here, except the two
// that follow the Budget, which it computes from the Budget it is given.
//
//	field      default
//	Budget     100
//	Sigma      8
//	Eta        when the algorithm reads η (Params): 0.2 binary, 0.5 multi-class,
//	           0.1 regression; NORMA 0.03; FOGD 0.002 binary, 0.005 multi-class,
//	           6e-4 regression
//	Lambda     0 (no regularisation); BSGD-merge 1e-4 (BudgetedSVM's)
//	Gamma      10
//	C          1
//	Rank       0.2·Budget, rounded, at least 1
//	Features   4·Budget; 15·Budget in regression (not Auto's)
//	Task       t; Auto: Multiclass when Classes are given, else Binary
//	Projection ClipEach
//	Storage    engine.AutoStorage
//
// Seed, Epsilon, Nu and ProjectronThreshold default to 0, Calibrate to
// false; Dim has no default.
func Defaults(a Algorithm, t task.Task) Config {
	return Config{Task: t}.withDefaults(a)
}

// withDefaults fills the zero fields of c with the defaults of Defaults.
// Every field New stores is filled the same way whatever the algorithm
// reads, so that model files keep their bytes.
func (c Config) withDefaults(a Algorithm) Config {
	if c.Task == task.Auto {
		c.Task = task.Binary
		if len(c.Classes) > 0 {
			c.Task = task.Multiclass
		}
	}
	if c.Budget == 0 {
		c.Budget = 100
	}
	if c.Sigma == 0 {
		c.Sigma = 8
	}
	if c.Eta == 0 && a.usesEta(c.Task) {
		c.Eta = defaultEta(a, c.Task)
	}
	if c.Gamma == 0 {
		c.Gamma = 10
	}
	if c.Lambda == 0 && a == BSGDMerge {
		c.Lambda = 1e-4
	}
	if c.C == 0 {
		c.C = 1
	}
	if c.Rank == 0 {
		c.Rank = max(1, int(math.Round(0.2*float64(c.Budget))))
	}
	switch {
	case c.Features != 0:
	case a == Auto:
		c.Features = autoFeatures(c.Budget)
	default:
		c.Features = 4 * c.Budget
		if c.Task == task.Regression {
			c.Features = 15 * c.Budget
		}
	}
	return c
}

// defaultEta is the step size of the toolbox's driver for a on task t.
func defaultEta(a Algorithm, t task.Task) float64 {
	switch {
	case a == FOGD && t == task.Regression:
		return 6e-4
	case a == FOGD && t == task.Multiclass:
		return 0.005
	case a == FOGD:
		return 0.002
	case a == NORMA:
		return 0.03
	case t == task.Regression:
		return 0.1
	case t == task.Multiclass:
		return 0.5
	}
	return 0.2
}

// maxFeatures is the largest number of FOGD's random Fourier features.
const maxFeatures = 1 << 20

// ErrConfig is wrapped by every configuration error.
var ErrConfig = errors.New("invalid configuration")

// validate checks a configuration with its defaults filled. Every error
// names the algorithm and the Config field at fault.
func (c Config) validate(a Algorithm) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%v: %w: %s", a, ErrConfig, fmt.Sprintf(format, args...))
	}
	switch {
	case a >= numAlgorithms:
		return bad("unknown algorithm")
	case !c.Task.Valid() || c.Task == task.Auto:
		return bad("Task %v is unknown", c.Task)
	case !a.Supports(c.Task):
		return bad("Task %v: the algorithm is not defined for it", c.Task)
	case c.Dim <= 0:
		return bad("Dim must be positive, got %d", c.Dim)
	case !(c.Sigma >= 1e-15 && c.Sigma <= 1e15):
		return bad("Sigma, the kernel width, must be in [1e-15, 1e15], got %v", c.Sigma)
	case c.Storage > engine.SparseStorage:
		return bad("Storage %d is unknown", c.Storage)
	case a.Budgeted() && c.Budget < 2:
		return bad("Budget must be at least 2, got %d", c.Budget)
	}
	if err := c.validateTask(bad); err != nil {
		return err
	}
	if a.usesEta(c.Task) {
		switch {
		case !(c.Eta >= 1e-20 && c.Eta <= 1e20):
			// Weights are float32 divided by a global scale that may fall
			// to 1e-15 before renormalisation: 1e20/1e-15 stays finite.
			return bad("Eta, the step size, must be in [1e-20, 1e20], got %v", c.Eta)
		case !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0):
			return bad("Lambda, the regularisation, must be non-negative and finite, got %v", c.Lambda)
		case c.Lambda*c.Eta >= 1:
			return bad("Lambda*Eta must be below 1 (got %v): every weight would vanish or flip sign", c.Lambda*c.Eta)
		}
	}
	if a == BOGD || a == BOGDpp || a == BOGDOldest {
		if !(c.Gamma > 0) || math.IsInf(c.Gamma, 0) {
			return bad("Gamma must be positive and finite, got %v", c.Gamma)
		}
		if c.Projection > RescaleAll {
			return bad("Projection %d is unknown", c.Projection)
		}
	}
	switch {
	case a == NORMA && !(c.Nu >= 0 && c.Nu <= 1):
		return bad("Nu must be in [0, 1], got %v", c.Nu)
	case a == BPAS && !(c.C > 0 && c.C <= 1e15):
		return bad("C must be in (0, 1e15], got %v", c.C)
	case a == BSGDMerge && !(c.Lambda >= 1e-15 && c.Lambda <= 1e15):
		return bad("Lambda must be in [1e-15, 1e15] (Pegasos steps by 1/(λt)), got %v", c.Lambda)
	case (a == FOGD || a == Auto) && (c.Features < 1 || c.Features > maxFeatures):
		return bad("Features, the number of Fourier features, must be in [1, %d], got %d", maxFeatures, c.Features)
	case (a == FOGD || a == Auto) && c.Dim > engine.MaxFrequencyValues/c.Features:
		return bad("Features: %d Fourier features of dimension %d need %d MiB of frequencies, more than the %d MiB allowed: use fewer features or hash the data into fewer dimensions",
			c.Features, c.Dim, int64(c.Features)*int64(c.Dim)*4>>20, engine.MaxFrequencyValues*4>>20)
	case a == Auto && c.Sigma > 1e15/2:
		return bad("Sigma, the centre of the widths, must be at most 5e14 (the widest is 2·Sigma), got %v", c.Sigma)
	case a == Auto && autoWeights(c) > maxAutoWeights:
		return bad("Features: %d Fourier features of %d outputs need %d MiB of weights over %d experts, more than the %d MiB allowed: use a smaller budget or fewer features",
			c.Features, outputsOf(c), autoWeights(c)*4>>20, autoLevels*len(autoSteps[c.Task]), maxAutoWeights*4>>20)
	case a == NOGD && (c.Rank < 1 || c.Rank > c.Budget):
		return bad("Rank, the k of the Nyström map, must be in [1, Budget %d], got %d", c.Budget, c.Rank)
	case !(c.ProjectronThreshold >= 0) || math.IsInf(c.ProjectronThreshold, 0):
		return bad("ProjectronThreshold must be non-negative and finite, got %v", c.ProjectronThreshold)
	}
	return nil
}

// validateTask checks the task's own parameters, reporting through bad.
func (c Config) validateTask(bad func(format string, args ...any) error) error {
	switch c.Task {
	case task.Multiclass:
		if len(c.Classes) < 2 {
			return bad("Classes: a multi-class learner needs at least 2, got %d", len(c.Classes))
		}
		if len(c.Classes) > task.MaxClasses {
			return bad("Classes: %d, at most %d", len(c.Classes), task.MaxClasses)
		}
		for i := 1; i < len(c.Classes); i++ {
			if c.Classes[i] <= c.Classes[i-1] {
				return bad("Classes must be distinct and ascending, got %d after %d", c.Classes[i], c.Classes[i-1])
			}
		}
	case task.Regression:
		if !(c.Epsilon >= 0) || math.IsInf(c.Epsilon, 0) {
			return bad("Epsilon must be non-negative and finite, got %v", c.Epsilon)
		}
	}
	if c.Task != task.Multiclass && len(c.Classes) > 0 {
		return bad("Classes are for multi-class learners, not %v", c.Task)
	}
	if c.Calibrate && c.Task == task.Regression {
		return bad("Calibrate: calibration gives class probabilities, and a regressor has none")
	}
	return nil
}
