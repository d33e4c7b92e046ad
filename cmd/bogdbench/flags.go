package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/experiment/lsokl"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/task"
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
	fs.Float64Var(&f.c, "C", 1, "BPA-S's aggressiveness C")
	fs.IntVar(&f.rank, "rank", 0, "NOGD's rank k (0: 0.2·budget)")
	fs.IntVar(&f.features, "features", 0, "FOGD's number of random Fourier features D (0: 4·budget, 15·budget in regression)")
	f.addRuleFlags(fs)
	return f
}

// addRuleFlags defines the settings that no parameter search varies:
// the regression ε, NORMA's ν and BOGD's projection.
func (f *learnerFlags) addRuleFlags(fs *flag.FlagSet) {
	fs.Float64Var(&f.epsilon, "epsilon", 0.1, "regression: the ε of the ε-insensitive losses (NORMA: where ε starts)")
	fs.Float64Var(&f.nu, "nu", 0.4, "NORMA's ν in [0, 1]: the fraction of examples that update")
	fs.StringVar(&f.projectionName, "projection", "clip", "BOGD/BOGD++ projection: clip (each weight, the paper's Eq. 10) or rescale (all weights, the authors' code)")
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
		Task: data.Task, Classes: data.Classes, Dim: data.Dim, Budget: budget,
		Sigma: f.sigma, Eta: f.eta, Lambda: lambda, Gamma: f.gamma, Projection: f.projection,
		C: f.c, Rank: f.rank, Features: f.features,
	}
	if cfg.Task == task.Regression {
		cfg.Epsilon = f.epsilon
	}
	if algo == bogd.NORMA {
		cfg.Nu = f.nu
	}
	return cfg
}

// kernelWidth is the value of a --sigma that also takes "auto": the
// median distance between rows of the data (medianWidth).
type kernelWidth struct {
	sigma float64
	auto  bool
}

// sigmaHelp is the help of the --sigma of train and run, whose default is
// auto: on features scaled by --scale, a fixed width suits no data set
// (σ = 8 on features in [−1, 1] makes every row look alike to the
// kernel), the median distance puts it on the data's scale. It is a
// heuristic, not a selection: on the shared multi-class sets the best
// width was often a half or a quarter of it; tune selects among it, its
// fractions and 8.
const sigmaHelp = "Gaussian kernel width, exp(-||x-y||^2/(2 sigma^2)), or auto: the median Euclidean distance between rows after --scale " +
	"(all pairs of 1000 rows drawn with seed 1; the value is printed), a width on the data's scale but no selection: the best is often a half or a quarter of it (bogdbench tune selects)"

func (k *kernelWidth) String() string {
	if k.auto {
		return "auto"
	}
	return strconv.FormatFloat(k.sigma, 'g', -1, 64)
}

func (k *kernelWidth) Set(s string) error {
	if s == "auto" {
		k.auto = true
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return errors.New("want a positive number or auto")
	}
	k.sigma, k.auto = v, false
	return nil
}

// resolve returns the width for data, saying on log how "auto" chose it.
func (k *kernelWidth) resolve(data *dataset.Dataset, log func(string)) (float64, error) {
	return k.resolveSample(func() (*dataset.Dataset, error) { return widthSample(data), nil }, log)
}

// resolveSample is resolve for data whose sample of rows sample draws
// (widthSample), only when "auto" needs it.
func (k *kernelWidth) resolveSample(sample func() (*dataset.Dataset, error), log func(string)) (float64, error) {
	if !k.auto {
		return k.sigma, nil
	}
	s, err := sample()
	if err != nil {
		return 0, err
	}
	m := medianOfSample(s)
	if !(m > 0) {
		return 0, fmt.Errorf("--sigma auto: the median distance between %d rows of %s is %v: give --sigma", s.Len(), s.Name, m)
	}
	log(fmt.Sprintf("--sigma auto: σ = %.6g, the median Euclidean distance over all pairs of %d rows (experiment.MedianDistance, rows drawn by the seeded permutation (seed %d, run 0))",
		m, s.Len(), lsokl.MedianSeed))
	return m, nil
}

// medianWidth is the median heuristic for the Gaussian kernel's width:
// experiment.MedianDistance with the sample size and seed of the LSOKL
// study's widths (lsokl.MedianSample, lsokl.MedianSeed). It returns the
// distance and the rows it used.
func medianWidth(d *dataset.Dataset) (float64, int) {
	sample := widthSample(d)
	return medianOfSample(sample), sample.Len()
}

// medianOfSample is medianWidth over the rows widthSample drew.
//
// MedianDistance makes every sampled row dense, Dim features long; over
// the features the sample holds (in their order), the distances are the
// same, since an absent feature adds exactly 0, so the sample is first
// compacted to those features: hashed or bag-of-words data of millions of
// dimensions then fit in memory.
func medianOfSample(sample *dataset.Dataset) float64 {
	features := slices.Compact(slices.Sorted(slices.Values(sample.Index)))
	for k, j := range sample.Index {
		c, _ := slices.BinarySearch(features, j)
		sample.Index[k] = int32(c)
	}
	sample.Dim = len(features)
	// Every row of the compact sample is drawn, so every pair of the
	// original sample is measured.
	return experiment.MedianDistance(sample, sample.Len(), lsokl.MedianSeed)
}

// dataFlags say how a command that trains reads and prepares its data.
type dataFlags struct {
	task          string
	scale         string
	hashBits, dim int
	maxRows       int
}

func addDataFlags(fs *flag.FlagSet) *dataFlags {
	f := new(dataFlags)
	fs.StringVar(&f.task, "task", "auto", "auto, binary, multiclass or regression; auto: labels in {-1,+1} or {0,1} are binary, integers with up to 1000 distinct values multi-class, anything else regression (the choice is printed)")
	fs.StringVar(&f.scale, "scale", experiment.ScalingMaxAbs, scaleHelp)
	fs.IntVar(&f.hashBits, "hash", 0, "hash feature names (words, any token before an optional :value) into 2^BITS dimensions, as Vowpal Wabbit; 0: features are 1-based indices. Saved in the model file")
	fs.IntVar(&f.dim, "dim", 0, "the model's dimension (0: the largest feature index of the data; 2^BITS with --hash): rows predicted or learnt later may have features up to it")
	fs.IntVar(&f.maxRows, "max-rows", 0, "the most rows held in memory (0: no limit but the 4 GiB the rows may take): more is an error naming the line; a file, or a stream learnt as it comes, is not held")
	return f
}

// options checks the flags and returns the reader's options.
func (f *dataFlags) options() (dataset.Options, error) {
	tk, err := task.Parse(f.task)
	if err != nil {
		return dataset.Options{}, usagef("--task: %v", err)
	}
	switch {
	case !validScale(f.scale):
		return dataset.Options{}, usagef("--scale must be maxabs, minmax or none, got %q", f.scale)
	case f.hashBits < 0 || f.hashBits > 30:
		return dataset.Options{}, usagef("--hash must be in 1..30 (0: no hashing), got %d", f.hashBits)
	case f.dim < 0:
		return dataset.Options{}, usagef("--dim must be positive (0: from the data), got %d", f.dim)
	case f.maxRows < 0:
		return dataset.Options{}, usagef("--max-rows must be positive (0: no limit), got %d", f.maxRows)
	case f.hashBits > 0 && f.dim > 0 && f.dim != 1<<f.hashBits:
		return dataset.Options{}, usagef("--dim %d differs from the 2^%d dimensions of --hash: give one", f.dim, f.hashBits)
	}
	return dataset.Options{Task: tk, HashBits: f.hashBits, Dim: f.dim, MaxRows: f.maxRows}, nil
}

// read reads the data of path ("-": stdin) and prepares them as the flags
// say; log hears the task auto chose. It returns the data and how rows
// must be prepared for a model trained on them.
func (f *dataFlags) read(path string, stdin io.Reader, opt dataset.Options, warn, log func(string)) (*dataset.Dataset, prep.Input, error) {
	opt.Warn = warn
	data, err := readData(path, stdin, opt)
	if err != nil {
		return nil, prep.Input{}, err
	}
	if opt.Task == task.Auto {
		log(fmt.Sprintf("--task auto: %s", describeTask(data)))
	}
	in := prep.Input{HashBits: f.hashBits}
	if data, in.Scaling, err = scaleData(data, f.scale); err != nil {
		return nil, prep.Input{}, err
	}
	return data, in, nil
}

// scaleHelp is the help of --scale.
const scaleHelp = "how features are scaled, measured on the data: maxabs, each divided by its largest absolute value (sparse rows stay sparse; features whose ranges are orders of magnitude apart then weigh alike); " +
	"minmax, each mapped to [0, 1], as the LSOKL toolbox; none, as read (the papers' protocols). Either scaling maps a regression label to [0, 1]; it is saved in the model file and applied to the rows it predicts"

// validScale reports whether s names a --scale.
func validScale(s string) bool {
	return s == experiment.ScalingMaxAbs || s == experiment.ScalingMinMax || s == "none"
}

// scaleData scales data as --scale says, measured on data (a regression's
// labels too), and returns the scaling (nil for none).
func scaleData(data *dataset.Dataset, scale string) (*dataset.Dataset, *prep.Scaling, error) {
	labels := data.Task == task.Regression
	switch scale {
	case experiment.ScalingMinMax:
		return data.ScaleMinMax(labels)
	case experiment.ScalingMaxAbs:
		s, err := dataset.MaxAbs(data, labels)
		if err != nil {
			return nil, nil, err
		}
		scaled, err := data.Scale(s)
		return scaled, s, err
	}
	return data, nil, nil
}

// parseStorage reads --storage.
func parseStorage(s string) (engine.Storage, error) {
	st, err := engine.ParseStorage(s)
	if err != nil {
		return 0, usagef("--storage must be auto, dense or sparse, got %q", s)
	}
	return st, nil
}

// storageHelp is the help of --storage.
const storageHelp = "how support vectors are stored: dense, sparse (memory and updates O(non-zeros): hashed text, millions of features), or auto (sparse from 16384 features on)"
