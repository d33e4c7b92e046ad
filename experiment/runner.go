package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/simd"
)

// ErrInterrupted marks a phase stopped by its context (Ctrl-C).
var ErrInterrupted = errors.New("interrupted")

// Progress hears how a phase advances, for a progress bar or a log; its
// methods are called from the runner's goroutines, one at a time.
type Progress interface {
	// Start announces a phase: jobs to run, jobs already done, and the
	// total cost (Cost) of those to run.
	Start(phase string, todo, done int, cost float64)
	// Finished counts one job of the given cost as saved.
	Finished(cost float64)
	// Stop ends the phase, whether it completed or not.
	Stop()
}

// Stats counts the jobs of a run.
type Stats struct {
	Ran, Skipped int // jobs run now; jobs already in the results
}

// Add sums two counts.
func (s Stats) Add(o Stats) Stats { return Stats{s.Ran + o.Ran, s.Skipped + o.Skipped} }

// Runner runs jobs over loaded datasets into a store.
type Runner struct {
	Store    *Store
	Data     map[string]*dataset.Dataset // by Cell.Dataset
	Workers  int
	Progress Progress // nil: none
	// Failed, when set, hears of every job that fails (a panic of the
	// learner included, as an error), one call at a time, and the other
	// jobs go on; nil: the first failure stops them all.
	Failed func(Job, error)
}

// Run runs the jobs that have no record yet on r.Workers goroutines, most
// expensive first, saving each record as it finishes. When ctx is
// cancelled, no new job starts, running passes stop early and are dropped,
// and the error wraps ErrInterrupted; without r.Failed, the first failing
// job cancels the others and its error is returned.
func (r *Runner) Run(ctx context.Context, phase string, jobs []Job) (Stats, error) {
	type costed struct {
		Job
		cost float64
	}
	var todo []costed
	var stats Stats
	var totalCost float64
	for _, j := range jobs {
		if _, ok := r.Store.Get(j.Key); ok {
			stats.Skipped++
			continue
		}
		c := Cost(j.Cell, r.Data[j.Cell.Dataset].Len())
		todo = append(todo, costed{j, c})
		totalCost += c
	}
	if r.Progress != nil {
		r.Progress.Start(phase, len(todo), stats.Skipped, totalCost)
		defer r.Progress.Stop()
	}
	if len(todo) == 0 {
		return stats, nil
	}
	slices.SortStableFunc(todo, func(a, b costed) int { return -cmp.Compare(a.cost, b.cost) })

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	feed := make(chan costed)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range max(1, r.Workers) {
		wg.Go(func() {
			for j := range feed {
				rec, err := r.runJob(ctx, j.Job)
				if err == nil {
					err = r.Store.Save(rec)
				}
				if err != nil && r.Failed != nil && ctx.Err() == nil {
					mu.Lock()
					r.Failed(j.Job, fmt.Errorf("%v: %w", j.Key, err))
					mu.Unlock()
					continue
				}
				if err != nil {
					if ctx.Err() == nil {
						cancel(fmt.Errorf("%v: %w", j.Key, err))
					}
					continue
				}
				mu.Lock()
				stats.Ran++
				if r.Progress != nil {
					r.Progress.Finished(j.cost)
				}
				mu.Unlock()
			}
		})
	}
feeding:
	for _, j := range todo {
		select {
		case feed <- j:
		case <-ctx.Done():
			break feeding
		}
	}
	close(feed)
	wg.Wait()
	if ctx.Err() != nil {
		cause := context.Cause(ctx)
		if errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded) {
			return stats, fmt.Errorf("%w: %d of %d %s jobs finished now and saved in %s",
				ErrInterrupted, stats.Ran, len(todo), phase, r.Store.Path())
		}
		return stats, cause
	}
	return stats, nil
}

// runJob runs job j; with r.Failed, a panic of the learner is its error,
// so that the other jobs' results survive it.
func (r *Runner) runJob(ctx context.Context, j Job) (rec *Record, err error) {
	if r.Failed != nil {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("panic (a bug: please report it): %v", v)
			}
		}()
	}
	return RunJob(ctx, j, r.Data[j.Cell.Dataset])
}

// RunJob runs one job's pass over data and returns its record, stamped
// with the rule version and the SIMD implementation that computed it. The
// data must be of the job's task (and scaled as its key says: the study
// that loaded them knows).
func RunJob(ctx context.Context, j Job, data *dataset.Dataset) (*Record, error) {
	n := data.Len()
	k := j.Key
	cfg, err := jobConfig(j, data)
	if err != nil {
		return nil, err
	}
	l, err := bogd.New(j.Cell.Algo, cfg)
	if err != nil {
		return nil, err
	}
	var at []int
	if k.Stream == StreamReport {
		at = Checkpoints(n)
	}
	res, err := Pass(ctx, Bind(l, data), Permutation(k.Seed, k.Run, n), at)
	if err != nil {
		return nil, err
	}
	return &Record{
		Dataset: k.Dataset, Algorithm: k.Algorithm, Rule: j.Cell.Algo.RuleVersion(), Budget: k.Budget,
		Eta: k.Eta, LambdaT2: k.LambdaT2, Gamma: k.Gamma,
		Stream: k.Stream, Run: k.Run, Seed: k.Seed, Sigma: k.Sigma, Projection: k.Projection,
		Task: k.Task, Scaling: k.Scaling, Epsilon: k.Epsilon, Nu: k.Nu, C: k.C,
		Rank: k.Rank, Features: k.Features, AbsLambda: k.AbsLambda,
		Rows: n, Lambda: cfg.Lambda, Result: res, SIMD: simd.Active().String(),
	}, nil
}

// jobConfig is the configuration of the learner of job j over data, which
// must be of the job's task.
func jobConfig(j Job, data *dataset.Dataset) (bogd.Config, error) {
	n, k := data.Len(), j.Key
	tk, err := ParseTaskName(k.Task)
	if err != nil {
		return bogd.Config{}, err
	}
	if data.Task != tk {
		return bogd.Config{}, fmt.Errorf("%s holds %v data, the job is %v", data.Name, data.Task, tk)
	}
	proj, err := ParseProjection(cmp.Or(k.Projection, "clip"))
	if err != nil {
		return bogd.Config{}, err
	}
	lambda := k.LambdaT2 / (float64(n) * float64(n))
	if k.AbsLambda != 0 {
		lambda = k.AbsLambda
	}
	return bogd.Config{
		Dim: data.Dim, Budget: k.Budget, Sigma: k.Sigma,
		Eta: k.Eta, Lambda: lambda, Gamma: k.Gamma,
		Seed: LearnerSeed(k.Seed, k.Run), Projection: proj,
		Task: tk, Classes: data.Classes, Epsilon: k.Epsilon, Nu: k.Nu,
		C: k.C, Rank: k.Rank, Features: k.Features,
	}, nil
}
