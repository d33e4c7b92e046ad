package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/cputime"
	"github.com/bogd-project/bogd/task"
)

// codrnaShaped returns the paper's codrna (271,617 rows, 8 features) when
// it is beside the repository, else random rows of its shape (the same
// size in memory).
func codrnaShaped(b *testing.B) *dataset.Dataset {
	return sharedOrShaped(b, "codrna.svm.gz", false, func() *dataset.Dataset {
		const dim = 8
		rng := rand.New(rand.NewPCG(1, 1))
		return randomRows("codrna-shaped", task.Binary, dim, 271617, func(idx []int32, val []float32) ([]int32, []float32) {
			for f := range dim {
				idx, val = append(idx, int32(f)), append(val, float32(rng.NormFloat64()*20))
			}
			return idx, val
		}, func() float64 { return float64(1 - 2*rng.IntN(2)) })
	})
}

// BenchmarkPass measures passes over codrna in a random order, per row:
// BOGD++ at B = 100 and 1000, BOGD at B = 1000, and the successors FOGD, NOGD and BPA-S at
// B = 100 (the codrna cells). Each runs a pass stepping through
// the rows where they lie without asking for them ahead (order=permuted),
// the same asking for each row's data a few rows ahead as Pass does
// (order=lookahead), the same over the compact rows that bogdbench's
// protocols hold (order=compact, see dataset.Dataset.Compact), the same
// over a copy of the rows laid out in the pass's order (order=laid-out,
// the copy included), and the steps of a learner already at full budget
// over laid-out rows (step): the floor a pass approaches. Beside ns/row, cpu-ns/row is the time on the
// benchmark's own thread (package cputime): on a shared machine, the
// figure to compare.
func BenchmarkPass(b *testing.B) {
	data := codrnaShaped(b)
	for _, c := range []struct {
		algo   bogd.Algorithm
		budget int
		eta    float64
	}{
		{bogd.BOGDpp, 100, 0.2}, {bogd.BOGDpp, 1000, 0.2}, {bogd.BOGD, 1000, 0.2},
		{bogd.FOGD, 100, 0.002}, {bogd.NOGD, 100, 0.2}, {bogd.BPAS, 100, 0},
	} {
		b.Run(fmt.Sprintf("algo=%v/budget=%d", c.algo, c.budget), func(b *testing.B) {
			n := data.Len()
			cfg := bogd.Config{Dim: data.Dim, Budget: c.budget, Sigma: 8, Eta: c.eta, Lambda: 1 / (float64(n) * float64(n)), Gamma: 10, Seed: 1}
			benchmarkPass(b, data, c.algo, cfg)
		})
	}
}

func benchmarkPass(b *testing.B, data *dataset.Dataset, algo bogd.Algorithm, cfg bogd.Config) {
	n := data.Len()
	order := Permutation(1, 0, n)
	learner := func(b *testing.B) *bogd.Learner {
		l, err := bogd.New(algo, cfg)
		if err != nil {
			b.Fatal(err)
		}
		return l
	}
	perRow := func(b *testing.B, cpu cputime.Timer) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
		cpu.Report(b, float64(b.N)*float64(n), "row")
	}
	pass := func(b *testing.B, l Online, order []int) {
		if _, err := Pass(context.Background(), l, order, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("order=permuted", func(b *testing.B) {
		cpu := cputime.Start()
		for b.Loop() {
			pass(b, noLookahead{Bind(learner(b), data)}, order)
		}
		perRow(b, cpu)
	})
	b.Run("order=lookahead", func(b *testing.B) {
		cpu := cputime.Start()
		for b.Loop() {
			pass(b, Bind(learner(b), data), order)
		}
		perRow(b, cpu)
	})
	compact := data.Compact()
	b.Run("order=compact", func(b *testing.B) {
		cpu := cputime.Start()
		for b.Loop() {
			pass(b, Bind(learner(b), compact), order)
		}
		perRow(b, cpu)
	})
	sequence := make([]int, n)
	for i := range sequence {
		sequence[i] = i
	}
	b.Run("order=laid-out", func(b *testing.B) {
		cpu := cputime.Start()
		for b.Loop() {
			pass(b, noLookahead{Bind(learner(b), data.Subset(order))}, sequence)
		}
		perRow(b, cpu)
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
		cpu := cputime.Start()
		for b.Loop() {
			for i := range n {
				step(i)
			}
		}
		perRow(b, cpu)
	})
}
