// Package paper reproduces Tables 2 and 3 of the BOGD paper (ICML 2012).
//
// The paper is Zhao, Wang, Wu, Jin and Hoi, "Fast Bounded Online Gradient
// Descent Algorithms for Scalable Kernel-Based Online Learning". On the
// protocol of package experiment, the package holds the paper's datasets and
// published figures, its grids, the run of both phases, and the report (tables
// against the paper, the differences, the figures).
package paper

import (
	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/experiment"
)

// Dataset is one row of Table 1 with its Table 3 budgets and the file of
// shared/datasets that holds it.
type Dataset struct {
	Name     string // the paper's name
	File     string // file name in the datasets directory
	Rows     int    // instances (Table 1)
	Features int    // features (Table 1)
	Budgets  []int  // Table 3
	// Positives is the number of +1 labels in File (not in the paper):
	// the mistake rate of always predicting the majority class follows.
	Positives int
}

// MajorityRate is the mistake rate (%) of always predicting the majority
// label: the bar any learner must beat.
func (d Dataset) MajorityRate() float64 {
	return 100 * float64(min(d.Positives, d.Rows-d.Positives)) / float64(d.Rows)
}

// Datasets lists the datasets in the order of Table 3. The paper's
// "w8a" of 24,692 rows is LIBSVM's w7a (see shared/datasets/README.md).
var Datasets = []Dataset{
	{"german", "german.svm.gz", 1000, 24, []int{100, 150, 200}, 300},
	{"spambase", "spambase.svm.gz", 4601, 57, []int{100, 200, 300}, 1813},
	{"w8a", "w7a.svm.gz", 24692, 300, []int{200, 400, 600}, 740},
	{"magic04", "magic04.svm.gz", 19020, 10, []int{500, 1000, 1500}, 12332},
	{"ijcnn1", "ijcnn1.svm.gz", 141691, 22, []int{500, 1000, 2000}, 13565},
	{"codrna", "codrna.svm.gz", 271617, 8, []int{500, 1000, 2000}, 90539},
}

// Order ranks the datasets in the stable order of jobs and merged results:
// the order of Table 3.
var Order = func() experiment.Ranking {
	var names []string
	for _, d := range Datasets {
		names = append(names, d.Name)
	}
	return names
}()

// Lookup returns the paper dataset called name.
func Lookup(name string) (Dataset, bool) {
	for _, d := range Datasets {
		if d.Name == name {
			return d, true
		}
	}
	return Dataset{}, false
}

// Budgeted are the rows of Table 3, in the paper's order.
var Budgeted = []bogd.Algorithm{bogd.RBP, bogd.Forgetron, bogd.Projectron, bogd.ProjectronPP, bogd.BOGD, bogd.BOGDpp}

// Unbudgeted are the columns of Table 2.
var Unbudgeted = []bogd.Algorithm{bogd.Perceptron, bogd.OGD}

// Algorithms is every algorithm of the paper in table order.
var Algorithms = append(append([]bogd.Algorithm{}, Budgeted...), Unbudgeted...)
