package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/cputime"
	"github.com/bogd-project/bogd/task"
)

// Online is a learner bound to its data, as a pass sees it. Each task says
// how one row is predicted, scored and learnt, so the pass stays the same.
type Online interface {
	// Step predicts row, scores that prediction, then learns from the
	// row's target.
	Step(row int) (Loss, error)
	// SupportVectors is the number of stored support vectors.
	SupportVectors() int
	// Task says which loss the pass sums: mistakes or squared errors.
	Task() task.Task
}

// Loss is what one prediction cost, measured before the update.
type Loss struct {
	Mistake      bool    // classification: the predicted label differs from the true one
	SquaredError float64 // regression: (y − ŷ)²
}

// Result is the outcome of one online pass. Its JSON names are those of
// the results files (Record embeds it); the regression fields are left out
// of classification records, which keep the form they had before tasks.
type Result struct {
	Mistakes       int     `json:"mistakes"`
	SquaredError   float64 `json:"squared_error,omitempty"` // regression: Σ (y − ŷ)² over the pass
	SupportVectors int     `json:"support_vectors"`         // at the end of the pass
	Seconds        float64 `json:"seconds"`                 // wall-clock time of the pass
	// CPUSeconds is the CPU time of the thread that ran the pass (0 where
	// the system does not tell it): unlike Seconds it hardly grows with
	// other work on the machine. The results files do not hold it.
	CPUSeconds float64 `json:"-"`
	// Checkpoints holds the cumulative mistakes (classification) after
	// each position asked of Pass, ErrorCheckpoints the cumulative squared
	// error (regression); none when none was asked.
	Checkpoints      []int     `json:"checkpoints,omitempty"`
	ErrorCheckpoints []float64 `json:"error_checkpoints,omitempty"`
	// DivergedAt is the 1-based position of the first prediction whose
	// squared error was not a finite number, where the pass stopped
	// (regression; 0: none).
	// The sums and checkpoints are those before it.
	DivergedAt int `json:"diverged_at,omitempty"`
}

// Metric is the figure a pass over rows rows is judged by: the mistake
// rate in percent (classification) or the mean squared error (regression;
// +Inf for a pass that diverged).
func (r Result) Metric(rows int, t task.Task) float64 {
	switch {
	case t != task.Regression:
		return 100 * float64(r.Mistakes) / float64(rows)
	case r.DivergedAt > 0:
		return math.Inf(1)
	}
	return r.SquaredError / float64(rows)
}

// lookahead is an Online that can ask for a row's data before its Step: a
// random order over data larger than the cache (codrna's 271,617 rows
// take 24 MB) would otherwise wait on memory at every row. Pass asks for
// a row's label and offsets boundsAhead rows before its Step, and for its
// non-zeros valuesAhead rows before it, when the offsets those need have
// arrived (BenchmarkPass measures the distances).
type lookahead interface {
	// prefetch asks for the label and offsets of row bounds and the
	// non-zeros of row values (rows out of range: nothing), and readies
	// row next (−1: none) for the step after this one, in one call per
	// step.
	prefetch(bounds, values, next int)
}

const boundsAhead, valuesAhead = 16, 8

// Pass feeds the rows of order to l, one Step each, progressive validation
// style: every row is predicted before it is learnt. It records the
// cumulative loss after the first at[k] rows (at increasing, each in
// 1..len(order)) and stops with ctx's error when ctx is cancelled (checked
// every 1024 rows, so that a pass costs no time for it). A regression pass
// whose squared error is not a finite number has diverged: it stops there
// (Result.DivergedAt). When l is bound to its data (Bind), each row's data
// is asked for a few rows before its step (see lookahead).
func Pass(ctx context.Context, l Online, order []int, at []int) (Result, error) {
	var res Result
	regression := l.Task() == task.Regression
	if len(at) > 0 {
		if regression {
			res.ErrorCheckpoints = make([]float64, 0, len(at))
		} else {
			res.Checkpoints = make([]int, 0, len(at))
		}
	}
	// The pass stays on one thread, whose CPU time is then the pass's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu, cpuKnown := cputime.Thread()
	start := time.Now()
	next := 0 // the next checkpoint
	ahead, _ := l.(lookahead)
	for i, row := range order {
		if i&1023 == 1023 && ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		if ahead != nil {
			bounds, values := -1, -1
			if j := i + boundsAhead; j < len(order) {
				bounds = order[j]
			}
			if j := i + valuesAhead; j < len(order) {
				values = order[j]
			}
			next := -1
			if i+1 < len(order) {
				next = order[i+1]
			}
			ahead.prefetch(bounds, values, next)
		}
		loss, err := l.Step(row)
		if err != nil {
			return Result{}, err
		}
		if loss.Mistake {
			res.Mistakes++
		}
		if math.IsNaN(loss.SquaredError) || math.IsInf(loss.SquaredError, 0) {
			res.DivergedAt = i + 1
			break
		}
		res.SquaredError += loss.SquaredError
		for ; next < len(at) && at[next] == i+1; next++ {
			if regression {
				res.ErrorCheckpoints = append(res.ErrorCheckpoints, res.SquaredError)
			} else {
				res.Checkpoints = append(res.Checkpoints, res.Mistakes)
			}
		}
	}
	res.Seconds = time.Since(start).Seconds()
	if end, ok := cputime.Thread(); ok && cpuKnown {
		res.CPUSeconds = (end - cpu).Seconds()
	}
	res.SupportVectors = l.SupportVectors()
	return res, nil
}

// bound is a learner of any task over a dataset of that task, with room
// for the rows of a compact one (Dataset.RowTo).
//
// Each step's row is readied a step ahead (prefetch), in the one of two
// slots the last step did not use: the query a step passes to Learn is
// then a copy of words stored a whole step before, where a Vector made
// just before the call is copied while its stores are in flight, which
// the processor cannot forward to the copy's wider loads (a stall of about
// 5 ns a row at B = 100).
//
// Where a step's Scores and Probabilities are nil (binary and regression
// learners that do not calibrate), the step goes through LearnBatch, one
// example at a time, which writes it in place: Learn returns its ten words
// in registers, and the copy that the compiler makes of them here, with
// loads wider than its own stores, stalled every step (4–5% of a
// BOGD-oldest pass at B = 100). Elsewhere LearnBatch would copy those
// slices at every step.
type bound struct {
	*bogd.Learner
	data    *dataset.Dataset
	task    task.Task
	inPlace bool
	buf     [2]dataset.RowBuffer
	x       [2]engine.Vector
	row     [2]int // the row in x, −1 for none
	last    int    // the slot of the last step
	steps   []bogd.Step
}

// Bind binds a learner to its data for Pass. The data's labels must be of
// the learner's task (±1, one of its classes, or real targets). The result
// is for one goroutine.
func Bind(l *bogd.Learner, data *dataset.Dataset) Online {
	cfg := l.Config()
	return &bound{
		Learner: l, data: data, task: cfg.Task, row: [2]int{-1, -1},
		inPlace: cfg.Task != task.Multiclass && !cfg.Calibrate,
	}
}

func (b *bound) Task() task.Task { return b.task }

func (b *bound) Step(row int) (Loss, error) {
	k := b.last ^ 1
	if b.row[k] != row {
		b.ready(k, row)
	}
	b.last = k
	y := b.data.Labels[row]
	var label float64
	var mistake bool
	if b.inPlace {
		steps, err := b.LearnBatch(context.Background(), b.x[k:k+1], b.data.Labels[row:row+1], b.steps)
		if err != nil {
			if inner := errors.Unwrap(err); inner != nil {
				err = inner // LearnBatch's "example 0": the row's place names it better
			}
			return Loss{}, fmt.Errorf("%s: %w", b.data.Where(row), err)
		}
		b.steps = steps
		label, mistake = steps[0].Label, steps[0].Mistake
	} else {
		step, err := b.Learn(b.x[k], y)
		if err != nil {
			return Loss{}, fmt.Errorf("%s: %w", b.data.Where(row), err)
		}
		label, mistake = step.Label, step.Mistake
	}
	if b.task == task.Regression {
		r := y - label
		return Loss{SquaredError: r * r}, nil
	}
	return Loss{Mistake: mistake}, nil
}

// ready reads row into slot k, field by field (see bound).
func (b *bound) ready(k, row int) {
	b.x[k].Index, b.x[k].Value = b.data.RowTo(row, &b.buf[k])
	b.row[k] = row
}

func (b *bound) prefetch(bounds, values, next int) {
	b.data.Prefetch(bounds, values)
	if next >= 0 {
		b.ready(b.last, next) // the slot this step leaves: Step uses the other
	}
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

// CheckpointCount is the number of points of the online curves.
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
