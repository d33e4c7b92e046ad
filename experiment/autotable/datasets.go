// Package autotable measures the auto learner (bogd.Auto) against issue 20's target.
//
// The target: on every shared data set, one pass with defaults only is within
// max(1.5 points, 15% relative) of the best held-out mistake rate (or, in
// regression, within 15% of the best MSE) that tuning finds over every
// budgeted learner at the same budget, and never worse than the trivial
// predictor (the most frequent label so far, or the running mean).
//
// For each data set it scales the features (MaxAbs), runs the tuned
// learners through experiment's protocol (every grid point over selection
// permutations, the selected point over held-out report permutations),
// runs auto with its defaults (σ the median distance between rows, which
// bogdbench measures) and the trivial predictor over the same report
// permutations, and writes the table (WriteReport). cmd/autotable is the
// command that makes benchmarks/results/auto.
package autotable

import "github.com/bogd-project/bogd/task"

// Dataset is one data set of the table: a file of the shared datasets
// directory.
type Dataset struct {
	Name string
	File string    // under the datasets directory
	Task task.Task // task.Auto: from the labels (binary or multi-class)
	Note string    // how it relates to the papers' copy, if it differs
}

// Datasets are the shared data sets, binary, multi-class and regression.
var Datasets = []Dataset{
	{Name: "german", File: "german.svm.gz"},
	{Name: "spambase", File: "spambase.svm.gz"},
	{Name: "w7a", File: "w7a.svm.gz", Note: "the ICML 2012 paper's w8a (24,692 rows)"},
	{Name: "magic04", File: "magic04.svm.gz"},
	{Name: "ijcnn1", File: "ijcnn1.svm.gz"},
	{Name: "codrna", File: "codrna.svm.gz"},
	{Name: "dna", File: "multiclass/dna.svm.gz"},
	{Name: "satimage", File: "multiclass/satimage.svm.gz"},
	{Name: "usps", File: "multiclass/usps.svm.gz"},
	{Name: "mnist10k", File: "multiclass/mnist10k.svm.gz"},
	{Name: "letter", File: "multiclass/letter.svm.gz"},
	{Name: "shuttle", File: "multiclass/shuttle.svm.gz"},
	{Name: "poker", File: "multiclass/poker.svm.gz"},
	{Name: "housing", File: "regression/housing.svm.gz", Task: task.Regression},
	{Name: "mg", File: "regression/mg.svm.gz", Task: task.Regression},
	{Name: "abalone", File: "regression/abalone.svm.gz", Task: task.Regression},
	{Name: "parkinsons", File: "regression/parkinsons.svm.gz", Task: task.Regression},
	{Name: "cpusmall", File: "regression/cpusmall.svm.gz", Task: task.Regression},
	{Name: "cadata", File: "regression/cadata.svm.gz", Task: task.Regression},
	{Name: "casp", File: "regression/casp.svm.gz", Task: task.Regression},
}

// Lookup returns the data sets called names, in the table's order; an
// unknown name is an error listing the known ones.
func Lookup(names []string) ([]Dataset, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []Dataset
	for _, d := range Datasets {
		if want[d.Name] {
			out = append(out, d)
			delete(want, d.Name)
		}
	}
	for n := range want {
		return nil, &unknownError{name: n}
	}
	return out, nil
}

type unknownError struct{ name string }

func (e *unknownError) Error() string {
	known := ""
	for i, d := range Datasets {
		if i > 0 {
			known += ", "
		}
		known += d.Name
	}
	return "unknown data set " + e.name + " (known: " + known + ")"
}
