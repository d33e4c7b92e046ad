package engine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// batchFixture is a 3-column set of either storage, its 3-output model
// and 600 queries, dense and sparse.
func batchFixture(t *testing.T, storage Storage) (*Set, *Model, []Vector) {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, uint64(storage)))
	gen := func() float32 { return float32(rng.NormFloat64()) }
	set, err := New(30, 3, Options{Columns: 3, Storage: storage})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		set.Add(sparseOf(randomPoint(rng, 30, 0.3, gen)), gen(), gen(), gen())
	}
	model, err := set.Snapshot(3)
	if err != nil {
		t.Fatal(err)
	}
	xs := make([]Vector, 600)
	for k := range xs {
		xs[k] = Dense(randomPoint(rng, 30, 0.3, gen))
		if k%2 == 1 {
			xs[k] = sparseOf(xs[k].Dense)
		}
	}
	return set, model, xs
}

// TestBatchesMatchSingleQueries: Model.ScoreBatch and Set.ScoreBatch give
// each query the bits Model.Scores and Set.Evaluate give it alone.
func TestBatchesMatchSingleQueries(t *testing.T) {
	for _, storage := range []Storage{DenseStorage, SparseStorage} {
		set, model, xs := batchFixture(t, storage)
		got := make([]float64, 3*len(xs))
		if err := model.ScoreBatch(context.Background(), xs, got); err != nil {
			t.Fatal(err)
		}
		cols := make([]float64, 3*len(xs))
		if err := set.ScoreBatch(context.Background(), xs, cols); err != nil {
			t.Fatal(err)
		}
		one := make([]float64, 3)
		var sc Scratch
		for k, x := range xs {
			want, err := model.Scores(x, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := set.Evaluate(&sc, x, one); err != nil {
				t.Fatal(err)
			}
			for o := range 3 {
				if got[3*k+o] != want[o] || cols[3*k+o] != one[o] {
					t.Fatalf("%v storage, query %d output %d: batch %v and %v, alone %v and %v",
						storage, k, o, got[3*k+o], cols[3*k+o], want[o], one[o])
				}
			}
		}
	}
}

// countdown is a context whose Err turns to context.Canceled at its
// calls-th call: it shows where a batch looks.
type countdown struct {
	context.Context
	calls int
}

func (c *countdown) Err() error {
	if c.calls--; c.calls <= 0 {
		return context.Canceled
	}
	return nil
}

// TestBatchesStopOnCancel: a done context stops a batch at its next look
// (before query 0, then every batchCheck queries) with an error wrapping
// the context's, leaving later rows unwritten; a too-short dst and a bad
// query are errors naming what is wrong, with the rows before a bad query
// written.
func TestBatchesStopOnCancel(t *testing.T) {
	set, model, xs := batchFixture(t, SparseStorage)
	for _, stopAt := range []int{0, batchCheck, 2 * batchCheck} {
		for name, run := range map[string]func(ctx context.Context, dst []float64) error{
			"Model.ScoreBatch": func(ctx context.Context, dst []float64) error { return model.ScoreBatch(ctx, xs, dst) },
			"Set.ScoreBatch":   func(ctx context.Context, dst []float64) error { return set.ScoreBatch(ctx, xs, dst) },
		} {
			dst := make([]float64, 3*len(xs))
			for i := range dst {
				dst[i] = math.NaN()
			}
			err := run(&countdown{context.Background(), stopAt/batchCheck + 1}, dst)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s cancelled at %d: %v", name, stopAt, err)
			}
			for i, v := range dst {
				if math.IsNaN(v) != (i >= 3*stopAt) {
					t.Fatalf("%s cancelled at %d: row %d is %v", name, stopAt, i/3, v)
				}
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	if err := model.ScoreBatch(ctx, xs, make([]float64, 3*len(xs))); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("past the deadline: %v", err)
	}

	if err := model.ScoreBatch(context.Background(), xs, make([]float64, 3*len(xs)-1)); err == nil {
		t.Fatal("Model.ScoreBatch wrote past dst")
	}
	if err := set.ScoreBatch(context.Background(), xs, make([]float64, 3*len(xs)-1)); err == nil {
		t.Fatal("Set.ScoreBatch wrote past dst")
	}
	bad := append(xs[:5:5], Dense(nil))
	dst := make([]float64, 3*len(bad))
	if err := model.ScoreBatch(context.Background(), bad, dst); err == nil || !strings.Contains(err.Error(), "query 5") {
		t.Fatalf("a nil dense query: %v", err)
	}
	if dst[3*4] == 0 {
		t.Fatal("the rows before the bad query were not written")
	}
}
