package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/internal/cputime"
	"github.com/bogd-project/bogd/task"
)

// BenchmarkPassTasks measures a pass, per row, over compact rows (as the
// protocols hold them) in a random order, on the shapes beside codrna's
// dense binary rows (BenchmarkPass): multi-class rows of many features
// (usps: 7,291 rows of 256, 10 classes), sparse binary rows (w7a: 24,692
// rows, about 12 of 300 features set), calibrated as well, and regression
// rows (cadata: 20,640 rows of 8 features, min-max scaled). Without
// ../shared each runs on random rows of its shape. bogdbench's profile
// (make pgo) leaves it out: added to it, these passes gained no more than
// from codrna's alone (benchmarks/README.md, "Round 7").
func BenchmarkPassTasks(b *testing.B) {
	for _, c := range []struct {
		data      func(testing.TB) *dataset.Dataset
		algo      bogd.Algorithm
		sigma     float64
		calibrate bool
	}{
		{uspsShaped, bogd.BOGD, 8, false},
		{uspsShaped, bogd.BOGDpp, 8, false},
		{uspsShaped, bogd.NOGD, 8, false},
		{w7aShaped, bogd.BOGDpp, 4, false},
		{w7aShaped, bogd.BOGDpp, 4, true},
		{w7aShaped, bogd.NOGD, 4, false},
		{cadataShaped, bogd.BOGDpp, 0.5, false},
		{cadataShaped, bogd.FOGD, 0.5, false},
	} {
		data := c.data(b).Compact()
		name := fmt.Sprintf("data=%s/algo=%v/budget=100", data.Name, c.algo)
		if c.calibrate {
			name += "/calibrated"
		}
		b.Run(name, func(b *testing.B) {
			cfg := bogd.Config{Task: data.Task, Classes: data.Classes, Dim: data.Dim, Budget: 100, Sigma: c.sigma, Seed: 1, Calibrate: c.calibrate}
			passes(b, data, Permutation(1, 0, data.Len()), c.algo, cfg)
		})
	}
}

// passes times whole passes of a new learner over data in order, each
// from the start, and reports the time and its thread's CPU time per row.
func passes(b *testing.B, data *dataset.Dataset, order []int, algo bogd.Algorithm, cfg bogd.Config) {
	cpu := cputime.Start()
	for b.Loop() {
		l, err := bogd.New(algo, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Pass(context.Background(), Bind(l, data), order, nil); err != nil {
			b.Fatal(err)
		}
	}
	rows := float64(b.N) * float64(len(order))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rows, "ns/row")
	cpu.Report(b, rows, "row")
}

// sharedOrShaped returns the data set name under ../shared/datasets,
// min-max scaled when scale is set, or, when it is not there, the random
// rows of its shape that shaped gives.
func sharedOrShaped(tb testing.TB, name string, scale bool, shaped func() *dataset.Dataset) *dataset.Dataset {
	d, err := dataset.ReadFile(filepath.Join("..", "..", "shared", "datasets", name), dataset.Options{})
	if err != nil {
		tb.Logf("%s not found: random rows of its shape instead", name)
		return shaped()
	}
	if scale {
		if d, _, err = d.ScaleMinMax(false); err != nil {
			tb.Fatal(err)
		}
	}
	return d
}

// randomRows returns n rows of the task, labelled by label, whose features
// row gives (indices increasing, values non-zero).
func randomRows(name string, tk task.Task, dim, n int, row func(idx []int32, val []float32) ([]int32, []float32), label func() float64) *dataset.Dataset {
	d := &dataset.Dataset{Name: name, Dim: dim, Task: tk, RowPtr: make([]int, 1, n+1)}
	for range n {
		d.Index, d.Value = row(d.Index, d.Value)
		d.RowPtr = append(d.RowPtr, len(d.Index))
		d.Labels = append(d.Labels, label())
	}
	return d
}

func uspsShaped(tb testing.TB) *dataset.Dataset {
	return sharedOrShaped(tb, "multiclass/usps.svm.gz", false, func() *dataset.Dataset {
		r := rand.New(rand.NewPCG(2, 1))
		const dim = 256
		d := randomRows("usps-shaped", task.Multiclass, dim, 7291, func(idx []int32, val []float32) ([]int32, []float32) {
			for f := range dim {
				idx, val = append(idx, int32(f)), append(val, float32(2*r.Float64()-1)+0x1p-20)
			}
			return idx, val
		}, func() float64 { return float64(1 + r.IntN(10)) })
		d.Classes = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
		return d
	})
}

func w7aShaped(tb testing.TB) *dataset.Dataset {
	return sharedOrShaped(tb, "w7a.svm.gz", false, func() *dataset.Dataset {
		r := rand.New(rand.NewPCG(2, 2))
		const dim, set = 300, 12
		return randomRows("w7a-shaped", task.Binary, dim, 24692, func(idx []int32, val []float32) ([]int32, []float32) {
			for f := range dim {
				if r.IntN(dim) < set {
					idx, val = append(idx, int32(f)), append(val, 1)
				}
			}
			return idx, val
		}, func() float64 { return float64(1 - 2*r.IntN(2)) })
	})
}

func cadataShaped(tb testing.TB) *dataset.Dataset {
	return sharedOrShaped(tb, "regression/cadata.svm.gz", true, func() *dataset.Dataset {
		r := rand.New(rand.NewPCG(2, 3))
		const dim = 8
		var sum float64
		return randomRows("cadata-shaped", task.Regression, dim, 20640, func(idx []int32, val []float32) ([]int32, []float32) {
			sum = 0
			for f := range dim {
				v := r.Float64()
				sum += v
				idx, val = append(idx, int32(f)), append(val, float32(v)+0x1p-20)
			}
			return idx, val
		}, func() float64 { return math.Sin(sum) })
	})
}
