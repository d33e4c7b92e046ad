package main

import (
	"flag"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
)

// learnerFlags are the learners' settings that the commands which train
// share, as flags; each command defines --sigma itself (run takes a
// number, the others also "auto").
type learnerFlags struct {
	sigma, eta, gamma, epsilon, nu, c float64
	lambda                            string
	lambdaGiven                       bool
	rank, features                    int
	projectionName                    string
	projection                        bogd.Projection
}

// addLearnerFlags defines the learners' settings but σ on fs.
func addLearnerFlags(fs *flag.FlagSet) *learnerFlags {
	f := new(learnerFlags)
	fs.Float64Var(&f.eta, "eta", 0, "step size η (OGD, BOGD, BOGD++, BOGD-oldest, NORMA, NOGD, FOGD; in regression also the Perceptron, RBP, Forgetron, Projectron); 0: the toolbox's, 0.2 binary, 0.5 multiclass, 0.1 regression, NORMA 0.03, FOGD 0.002/0.005/6e-4")
	fs.StringVar(&f.lambda, "lambda", "1/T^2", "regularisation λ (OGD, BOGD, BOGD++, BOGD-oldest, NORMA; BSGD-merge's Pegasos λ, 1e-4 unless given); 1/T^2 uses the number of rows T")
	fs.Float64Var(&f.gamma, "gamma", 10, "weight cap factor: weights stay <= gamma*eta (BOGD, BOGD++, BOGD-oldest)")
	fs.Float64Var(&f.epsilon, "epsilon", 0.1, "regression: the ε of the ε-insensitive losses (NORMA: where ε starts)")
	fs.Float64Var(&f.nu, "nu", 0.4, "NORMA's ν in [0, 1]: the fraction of examples that update")
	fs.Float64Var(&f.c, "C", 1, "BPA-S's aggressiveness C")
	fs.IntVar(&f.rank, "rank", 0, "NOGD's rank k (0: 0.2·budget)")
	fs.IntVar(&f.features, "features", 0, "FOGD's number of random Fourier features D (0: 4·budget, 15·budget in regression)")
	fs.StringVar(&f.projectionName, "projection", "clip", "BOGD/BOGD++ projection: clip (each weight, the paper's Eq. 10) or rescale (all weights, the authors' code)")
	return f
}

// config is the configuration of algo's learners at budget over data; λ
// is 1/T² (or --lambda) except for BSGD-merge without --lambda, whose
// Pegasos λ has its own default. ε and ν are set only where a rule reads
// them, so that a saved model states no setting it never used.
func (f *learnerFlags) config(algo bogd.Algorithm, budget int, data *dataset.Dataset, lambda float64) bogd.Config {
	if algo == bogd.BSGDMerge && !f.lambdaGiven {
		lambda = 0
	}
	cfg := bogd.Config{
		Task: experiment.LearnerTask(data.Task), Classes: data.Classes, Dim: data.Dim, Budget: budget,
		Sigma: f.sigma, Eta: f.eta, Lambda: lambda, Gamma: f.gamma, Projection: f.projection,
		C: f.c, Rank: f.rank, Features: f.features,
	}
	if cfg.Task == bogd.Regression {
		cfg.Epsilon = f.epsilon
	}
	if algo == bogd.NORMA {
		cfg.Nu = f.nu
	}
	return cfg
}
