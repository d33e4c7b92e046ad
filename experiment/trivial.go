package experiment

import (
	"context"

	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/eval"
	"github.com/bogd-project/bogd/task"
)

// trivial is the trivial predictor (eval.Trivial) bound to its data.
type trivial struct {
	t    *eval.Trivial
	data *dataset.Dataset
}

// Trivial binds a new trivial predictor to data for Pass: the most
// frequent label of the rows before each, or the mean of their labels. A
// table shows it beside the learners as the figure they must beat.
func Trivial(data *dataset.Dataset) Online {
	return &trivial{t: eval.NewTrivial(data.Task), data: data}
}

func (o *trivial) Task() task.Task     { return o.data.Task }
func (o *trivial) SupportVectors() int { return 0 }

func (o *trivial) Step(row int) (Loss, error) {
	y, p := o.data.Labels[row], o.t.Predict()
	o.t.Learn(y)
	if o.data.Task == task.Regression {
		return Loss{SquaredError: (y - p) * (y - p)}, nil
	}
	return Loss{Mistake: p != y}, nil
}

// Trivial runs the trivial predictor over the permutations that the jobs
// of stream (StreamSelect or StreamReport) run the learners over, on data.
func (p *Plan) Trivial(ctx context.Context, data *dataset.Dataset, stream string) ([]Result, error) {
	runs, seed := p.Runs, p.Seed
	if stream == StreamSelect {
		runs, seed = p.SelectRuns, p.SelectSeed
	}
	out := make([]Result, runs)
	for r := range out {
		res, err := Pass(ctx, Trivial(data), Permutation(seed, r, data.Len()), nil)
		if err != nil {
			return nil, err
		}
		out[r] = res
	}
	return out, nil
}
