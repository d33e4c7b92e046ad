package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
)

// codrnaPath is the paper's codrna (271,617 rows, 8 features) beside the
// repository.
const codrnaPath = "../../shared/datasets/codrna.svm.gz"

// codrnaShaped returns codrna when it is beside the repository, else
// random rows of its shape (the same size in memory).
func codrnaShaped(b *testing.B) *dataset.Dataset {
	if d, err := dataset.ReadFile(codrnaPath, dataset.Options{}); err == nil {
		return d
	}
	b.Logf("%s not found: random rows of its shape instead", codrnaPath)
	const rows, dim = 271617, 8
	rng := rand.New(rand.NewPCG(1, 1))
	d := &dataset.Dataset{Name: "codrna-shaped", Dim: dim, Task: dataset.Binary, RowPtr: make([]int, 1, rows+1)}
	for range rows {
		for f := range dim {
			d.Index = append(d.Index, int32(f))
			d.Value = append(d.Value, float32(rng.NormFloat64()*20))
		}
		d.RowPtr = append(d.RowPtr, len(d.Index))
		d.Labels = append(d.Labels, float64(1-2*rng.IntN(2)))
	}
	return d
}

// BenchmarkPassOver measures one BOGD++ pass at B = 100 and B = 1000 over
// codrna in a random order, per row: stepping through the data in that order
// (order=permuted), through a copy laid out in that order (PassOver,
// order=laid-out, the copy included), and steps of a learner already at
// full budget over the laid-out rows (step): the floor a pass approaches.
func BenchmarkPassOver(b *testing.B) {
	data := codrnaShaped(b)
	for _, budget := range []int{100, 1000} {
		b.Run(fmt.Sprintf("budget=%d", budget), func(b *testing.B) { benchmarkPassOver(b, data, budget) })
	}
}

func benchmarkPassOver(b *testing.B, data *dataset.Dataset, budget int) {
	n := data.Len()
	order := Permutation(1, 0, n)
	learner := func(b *testing.B) bogd.Online {
		l, err := bogd.NewOnline(bogd.BOGDpp, bogd.Config{Dim: data.Dim, Budget: budget, Sigma: 8, Eta: 0.2, Lambda: 1 / (float64(n) * float64(n)), Gamma: 10, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		return l
	}
	perRow := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
	}
	b.Run("order=permuted", func(b *testing.B) {
		for b.Loop() {
			if _, err := Pass(context.Background(), Bind(learner(b), data), order, nil); err != nil {
				b.Fatal(err)
			}
		}
		perRow(b)
	})
	b.Run("order=laid-out", func(b *testing.B) {
		for b.Loop() {
			if _, err := PassOver(context.Background(), learner(b), data, order, nil); err != nil {
				b.Fatal(err)
			}
		}
		perRow(b)
	})
	b.Run("step", func(b *testing.B) {
		l := learner(b)
		rows := data.Subset(order)
		step := func(i int) {
			idx, val := rows.Row(i)
			if _, err := l.Learn(engine.Sparse(idx, val), rows.Labels[i]); err != nil {
				b.Fatal(err)
			}
		}
		for i := range 20000 {
			step(i)
		}
		b.ResetTimer()
		for b.Loop() {
			for i := range n {
				step(i)
			}
		}
		perRow(b)
	})
}
