package autotable

import (
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/task"
)

// sharedDir is the shared datasets directory beside the repository.
const sharedDir = "../../../shared/datasets"

// a9aShaped draws a data set of a9a's shape (UCI Adult as LIBSVM ships it:
// 32,561 rows, 123 binary features, 14 set in every row, 24% positive),
// for the cost of a pass: the values are all 1, each row sets one feature
// of each of 14 groups (a9a's one-hot encoding of its attributes), and the
// label depends on a few of them, with noise.
func a9aShaped() *dataset.Dataset {
	const rows, groups = 32561, 14
	rng := rand.New(rand.NewPCG(9, 9))
	d := &dataset.Dataset{Name: "a9a-shaped", Dim: 123, Task: task.Binary, RowPtr: make([]int, 1, rows+1)}
	for range rows {
		score := 0
		for g := range groups {
			f := g*123/groups + rng.IntN(123/groups)
			d.Index = append(d.Index, int32(f))
			d.Value = append(d.Value, 1)
			if f%5 == 0 {
				score++
			}
		}
		y := -1.0
		if score+rng.IntN(4) >= 5 {
			y = 1
		}
		d.RowPtr = append(d.RowPtr, len(d.Index))
		d.Labels = append(d.Labels, y)
	}
	return d
}

// BenchmarkAutoCost measures the cost of one auto pass at budget 100
// against FOGD's and BOGD++'s at the same budget, with the defaults the
// table runs (features scaled by MaxAbs, σ the median distance), over one
// permutation of a9a-shaped data and, when the shared datasets are beside
// the repository, of codrna, and (for context: the target is the binary
// sets') of letter (26 classes) and cadata (regression). The three passes advance side by side, a block of rows
// each in turn, and each block's CPU time (the thread's, so that other
// processes on a shared machine do not count) is charged to its learner:
// the ratios (auto/fogd, auto/bogd++; the target is at most 3)
// compare the learners under the same conditions. The medians of the
// blocks' ratios are reported beside the ratios of the totals.
func BenchmarkAutoCost(b *testing.B) {
	sets := []*dataset.Dataset{a9aShaped()}
	shared, err := Lookup([]string{"codrna", "letter", "cadata"})
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range shared {
		raw, err := dataset.ReadFile(filepath.Join(sharedDir, d.File), dataset.Options{Task: d.Task})
		if err != nil {
			b.Logf("%s not found (%v): a9a-shaped data only", d.Name, err)
			break
		}
		raw.Name = d.Name
		sets = append(sets, raw)
	}
	algos := []bogd.Algorithm{bogd.Auto, bogd.FOGD, bogd.BOGDpp}
	for _, raw := range sets {
		d, err := MaxAbs(raw)
		if err != nil {
			b.Fatal(err)
		}
		sigma := experiment.MedianDistance(d, MedianSample, MedianSeed)
		order := experiment.Permutation(1, 0, d.Len())
		b.Run("data="+d.Name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			spent := make([]time.Duration, len(algos))
			var blockRatios [2][]float64
			for b.Loop() {
				learners := make([]experiment.Online, len(algos))
				for i, a := range algos {
					l, err := bogd.New(a, bogd.Config{Dim: d.Dim, Budget: 100, Sigma: sigma, Seed: 1, Task: d.Task, Classes: d.Classes})
					if err != nil {
						b.Fatal(err)
					}
					learners[i] = experiment.Bind(l, d)
				}
				const block = 4096
				for lo := 0; lo < len(order); lo += block {
					rows := order[lo:min(lo+block, len(order))]
					took := make([]time.Duration, len(algos))
					for i, l := range learners {
						start := threadTime()
						for _, r := range rows {
							if _, err := l.Step(r); err != nil {
								b.Fatal(err)
							}
						}
						took[i] = threadTime() - start
						spent[i] += took[i]
					}
					for k := range blockRatios {
						blockRatios[k] = append(blockRatios[k], float64(took[0])/float64(took[k+1]))
					}
				}
			}
			for i, a := range algos {
				b.ReportMetric(float64(spent[i].Nanoseconds())/float64(b.N)/float64(d.Len()), "cpu-ns/row-"+a.String())
			}
			for k, a := range algos[1:] {
				b.ReportMetric(float64(spent[0])/float64(spent[k+1]), "auto/"+a.String())
				slices.Sort(blockRatios[k])
				b.ReportMetric(blockRatios[k][len(blockRatios[k])/2], "median-auto/"+a.String())
			}
		})
	}
}
