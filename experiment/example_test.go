package experiment_test

import (
	"context"
	"fmt"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/task"
)

// One run of the protocol: a BOGD++ pass over a seeded random permutation
// of german (class-sorted files must be permuted), every row predicted
// before it is learnt.
func ExamplePass() {
	data, err := dataset.ReadFile("../dataset/testdata/german.svm.gz", dataset.Options{Task: task.Binary})
	if err != nil {
		panic(err)
	}
	n := data.Len()
	l, err := bogd.New(bogd.BOGDpp, bogd.Config{
		Dim: data.Dim, Budget: 100, Sigma: 8, Eta: 0.125, Gamma: 1,
		Lambda: 1 / float64(n*n), Seed: experiment.LearnerSeed(1, 0),
	})
	if err != nil {
		panic(err)
	}
	res, err := experiment.Pass(context.Background(), experiment.Bind(l, data), experiment.Permutation(1, 0, n), nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d rows, mistake rate %.1f%%, %d support vectors\n", n, res.Metric(n, task.Binary), res.SupportVectors)
	// Output: 1000 rows, mistake rate 30.8%, 100 support vectors
}

// The kernel width of the σ-selection grids: the median distance between
// rows of a seeded sample.
func ExampleMedianDistance() {
	data, err := dataset.ReadFile("../dataset/testdata/german.svm.gz", dataset.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.2f\n", experiment.MedianDistance(data, 1000, 1))
	// Output: 29.77
}
