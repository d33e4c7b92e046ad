package bogd

import (
	"fmt"
	"strings"

	"github.com/bogd-project/bogd/task"
)

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
	// Auto is the learner with nothing to tune: random-feature models of
	// six Gaussian kernel widths around Config.Sigma and a linear model,
	// four step sizes each, and the trivial predictor, combined by
	// exponential weights (Raker, Shen, Chen, Giannakis, JMLR 2019; OMKC's
	// vote in classification). Its budget sets the number of random
	// features (Config.Features); it keeps no support vectors.
	Auto
	numAlgorithms
)

var algorithmNames = [numAlgorithms]string{"bogd", "bogd++", "perceptron", "ogd", "rbp", "forgetron", "projectron", "projectron++", "norma", "bogd-oldest", "bpas", "nogd", "bsgd-merge", "fogd", "auto"}

// String returns the command-line name of the algorithm.
func (a Algorithm) String() string {
	if a < numAlgorithms {
		return algorithmNames[a]
	}
	return fmt.Sprintf("Algorithm(%d)", uint8(a))
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

// Algorithms lists every algorithm.
func Algorithms() []Algorithm {
	out := make([]Algorithm, numAlgorithms)
	for i := range out {
		out[i] = Algorithm(i)
	}
	return out
}

// Budgeted reports whether the algorithm bounds the number of support
// vectors.
func (a Algorithm) Budgeted() bool { return a != Perceptron && a != OGD && a != NORMA }

// Supports reports whether the algorithm is defined for task t (Auto: for
// the task it resolves to without classes, Binary): NORMA is a regression
// rule, Projectron++'s margin updates have no regression form; every other
// algorithm learns every task.
func (a Algorithm) Supports(t task.Task) bool {
	switch a {
	case NORMA:
		return t == task.Regression
	case ProjectronPP:
		return t != task.Regression
	}
	return a < numAlgorithms && t.Valid()
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
//	3: NOGD only: the top-k eigenpairs of its transition come from randomized
//	   subspace iteration (topEigen; the dense eigendecomposition still where
//	   the spectrum is flat past the cut, or k > B/3); from k·B = 10⁴ on its
//	   second phase scores by the landmark weights β = Mᵀw, and below that an
//	   update reuses the z of the example's own kernel pass.
//	4: NOGD only: from k·B = 10⁴ on, an update's z = M·k_t always sums
//	   Mᵀ's rows of the landmarks with a non-zero kernel value
//	   (simd.AxpyRows), where rule 3 summed all of M's rows (Set.Sums)
//	   whenever over a third were non-zero: z rounds differently there.
//
// Auto starts at 2, the version of the rules it came with.
var ruleVersions = [numAlgorithms]int{
	BOGD: 2, BOGDpp: 2, Perceptron: 2, OGD: 2, RBP: 2, Forgetron: 2, Projectron: 2, ProjectronPP: 2,
	NORMA: 2, BOGDOldest: 2, BPAS: 2, NOGD: 4, BSGDMerge: 2, FOGD: 2, Auto: 2,
}

// RuleVersion is the version of the algorithm's arithmetic: two results of
// one algorithm and version were computed by the same rule, and runs of
// equal inputs agree. It grows whenever a change can alter what the
// algorithm computes on some input.
func (a Algorithm) RuleVersion() int {
	if a < numAlgorithms {
		return ruleVersions[a]
	}
	return 0
}

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
func (a Algorithm) Params(t task.Task) Param {
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
		if t == task.Regression {
			return ParamEta
		}
	}
	return 0
}

// usesEta reports whether the rule of a on task t takes a step η.
func (a Algorithm) usesEta(t task.Task) bool { return a.Params(t).Has(ParamEta) }
