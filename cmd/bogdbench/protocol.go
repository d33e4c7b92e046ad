package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
)

// pass is the outcome of one online pass over a permutation of a dataset.
type pass struct {
	Mistakes       int
	SupportVectors int
	Seconds        float64
	// Checkpoints holds the cumulative mistake count after each position
	// requested from runPass (nil when none is).
	Checkpoints []int
	// learner is the trained learner, for `run --save`.
	learner bogd.Learner
}

// runPass feeds the rows of data in the given order to a fresh learner,
// counting mistakes before each update. It records the cumulative mistake
// count after the first at[k] examples (at increasing, each in
// 1..len(order)) and stops with ctx's error when ctx is cancelled (checked
// every 1024 examples).
func runPass(ctx context.Context, algo bogd.Algorithm, cfg bogd.Config, data *dataset.Dataset, order []int, at []int) (pass, error) {
	l, err := bogd.New(algo, cfg)
	if err != nil {
		return pass{}, err
	}
	var p pass
	if len(at) > 0 {
		p.Checkpoints = make([]int, 0, len(at))
	}
	start := time.Now()
	for i, row := range order {
		if i&1023 == 1023 && ctx.Err() != nil {
			return pass{}, ctx.Err()
		}
		idx, val := data.Row(row)
		out, err := l.Observe(engine.Sparse(idx, val), int(data.Labels[row]))
		if err != nil {
			return pass{}, fmt.Errorf("%s row %d: %w", data.Name, row+1, err)
		}
		if out.Mistake {
			p.Mistakes++
		}
		for len(p.Checkpoints) < len(at) && at[len(p.Checkpoints)] == i+1 {
			p.Checkpoints = append(p.Checkpoints, p.Mistakes)
		}
	}
	p.Seconds = time.Since(start).Seconds()
	p.SupportVectors = l.SupportVectors()
	p.learner = l
	return p, nil
}

// permutation returns run r's random order of n rows: a pure function of
// (seed, r), so any run can be repeated alone.
func permutation(seed uint64, r, n int) []int {
	return rand.New(rand.NewPCG(seed, uint64(r))).Perm(n)
}

// learnerSeed derives the seed of run r's learner from the run seed, apart
// from the permutation's stream.
func learnerSeed(seed uint64, r int) uint64 {
	return seed*0x9e3779b97f4a7c15 + uint64(r) + 1
}

// summary aggregates the passes of one (algorithm, budget) cell.
type summary struct {
	Runs                                     int
	MistakeRateMean, MistakeRateStd          float64 // percent
	SupportVectorsMean, SecondsMean, Seconds float64
}

// summarize computes means and the sample standard deviation (n−1, as
// MATLAB's std and the paper's tables).
func summarize(passes []pass, n int) summary {
	s := summary{Runs: len(passes)}
	var rates []float64
	for _, p := range passes {
		rates = append(rates, 100*float64(p.Mistakes)/float64(n))
		s.SupportVectorsMean += float64(p.SupportVectors) / float64(len(passes))
		s.SecondsMean += p.Seconds / float64(len(passes))
		s.Seconds += p.Seconds
	}
	s.MistakeRateMean, s.MistakeRateStd = meanStd(rates)
	return s
}
