package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
)

// Online is a learner bound to its data, as a pass sees it. Each task
// (binary classification here; others can bring their own adapter) says
// how one row is predicted, scored and learnt, so the pass stays the same.
type Online interface {
	// Step predicts row, scores that prediction, then learns from the
	// row's target.
	Step(row int) (Loss, error)
	// SupportVectors is the number of stored support vectors.
	SupportVectors() int
}

// Loss is what one prediction cost, measured before the update. A task
// with another metric adds its field here and its sum to Result.
type Loss struct {
	Mistake bool // the predicted label differs from the true one
}

// Result is the outcome of one online pass. Its JSON names are those of
// the results files (Record embeds it).
type Result struct {
	Mistakes       int     `json:"mistakes"`
	SupportVectors int     `json:"support_vectors"` // at the end of the pass
	Seconds        float64 `json:"seconds"`         // wall-clock time of the pass
	// Checkpoints holds the cumulative mistakes after each position asked
	// of Pass (none when none was asked).
	Checkpoints []int `json:"checkpoints,omitempty"`
}

// Pass feeds the rows of order to l, one Step each, progressive validation
// style: every row is predicted before it is learnt. It records the
// cumulative mistakes after the first at[k] rows (at increasing, each in
// 1..len(order)) and stops with ctx's error when ctx is cancelled (checked
// every 1024 rows, so that a pass costs no time for it).
func Pass(ctx context.Context, l Online, order []int, at []int) (Result, error) {
	var res Result
	if len(at) > 0 {
		res.Checkpoints = make([]int, 0, len(at))
	}
	start := time.Now()
	for i, row := range order {
		if i&1023 == 1023 && ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		loss, err := l.Step(row)
		if err != nil {
			return Result{}, err
		}
		if loss.Mistake {
			res.Mistakes++
		}
		for len(res.Checkpoints) < len(at) && at[len(res.Checkpoints)] == i+1 {
			res.Checkpoints = append(res.Checkpoints, res.Mistakes)
		}
	}
	res.Seconds = time.Since(start).Seconds()
	res.SupportVectors = l.SupportVectors()
	return res, nil
}

// classifier is a binary bogd learner over a ±1-labelled dataset.
type classifier struct {
	bogd.Learner
	data *dataset.Dataset
}

// Classifier binds a binary learner to its data for Pass.
func Classifier(l bogd.Learner, data *dataset.Dataset) Online {
	return classifier{l, data}
}

func (c classifier) Step(row int) (Loss, error) {
	idx, val := c.data.Row(row)
	out, err := c.Observe(engine.Sparse(idx, val), int(c.data.Labels[row]))
	if err != nil {
		return Loss{}, fmt.Errorf("%s row %d: %w", c.data.Name, row+1, err)
	}
	return Loss{Mistake: out.Mistake}, nil
}

// Permutation returns run r's random order of n rows: a pure function of
// (seed, r), so that any run can be repeated alone. Stored results depend
// on its values: they must never change.
func Permutation(seed uint64, r, n int) []int {
	return rand.New(rand.NewPCG(seed, uint64(r))).Perm(n)
}

// LearnerSeed derives the seed of run r's learner from the run seed, apart
// from the permutation's stream. Like Permutation, it must never change.
func LearnerSeed(seed uint64, r int) uint64 {
	return seed*0x9e3779b97f4a7c15 + uint64(r) + 1
}

// CheckpointCount is the number of points of the online mistake-rate
// curves.
const CheckpointCount = 100

// Checkpoints returns the positions ⌈k·n/K⌉, k = 1..K, K = min(100, n).
func Checkpoints(n int) []int {
	k := min(CheckpointCount, n)
	out := make([]int, k)
	for i := range out {
		out[i] = ((i+1)*n + k - 1) / k
	}
	return out
}
