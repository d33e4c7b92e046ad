package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"sync"

	"github.com/bogd-project/bogd/engine"
)

// The engine alone: a support set of two weighted vectors, a score, the
// kernel values behind it (kept in the Scratch the evaluation ran on), and a
// snapshot for prediction.
func Example() {
	set, err := engine.New(2, 1, engine.Options{Capacity: 2}) // σ = 1
	if err != nil {
		log.Fatal(err)
	}
	set.Add(engine.Dense([]float32{0, 0}), 1)
	set.Add(engine.Dense([]float32{1, 1}), -0.5)

	// f(x) = 1·exp(−‖x−(0,0)‖²/2) − 0.5·exp(−‖x−(1,1)‖²/2): the sum of
	// weight column 0.
	var sc engine.Scratch // one goroutine's working memory
	f := make([]float64, 1)
	if err := set.Evaluate(&sc, engine.Dense([]float32{0, 1}), f); err != nil {
		log.Fatal(err)
	}
	k, factor := sc.Kernels()
	fmt.Printf("f = %.4f, κ = %.4f and %.4f\n", f[0], factor*float64(k[0]), factor*float64(k[1]))

	model, err := set.Snapshot(1) // immutable: the set may go on changing
	if err != nil {
		log.Fatal(err)
	}
	set.Remove(0)
	g, _ := model.Score(engine.Dense([]float32{0, 1}))
	fmt.Printf("the snapshot still has %d vectors and scores %.4f\n", model.Len(), g)
	// Output:
	// f = 0.3033, κ = 0.6065 and 0.6065
	// the snapshot still has 2 vectors and scores 0.3033
}

// Sparse input: the non-zero features by 0-based index. The LIBSVM line
// "+1 3:0.5 4000000:2" names features 3 and 4,000,000 counting from 1,
// which are indices 2 and 3,999,999 here. In this dimension the set stores
// its vectors sparsely too (AutoStorage), so memory and updates follow the
// non-zeros, not the dimension.
func Example_sparse() {
	const dim = 4_000_000
	set, err := engine.New(dim, 2, engine.Options{Capacity: 100})
	if err != nil {
		log.Fatal(err)
	}
	set.Add(engine.Sparse([]int32{2, 3_999_999}, []float32{0.5, 2}), 1)
	set.Add(engine.Sparse([]int32{7}, []float32{1}), -1)

	f := make([]float64, 1)
	if err := set.Evaluate(new(engine.Scratch), engine.Sparse([]int32{2, 3_999_999}, []float32{0.5, 1}), f); err != nil {
		log.Fatal(err)
	}
	sv := set.SupportVector(0, engine.Vector{})
	fmt.Printf("%v storage, f = %.4f, vector 0 = %v %v\n", set.Storage(), f[0], sv.Index, sv.Value)
	// Output:
	// sparse storage, f = 0.1277, vector 0 = [2 3999999] [0.5 2]
}

// A Model saved and loaded on its own, here through a buffer (SaveFile
// and LoadModelFile do the same with a file, written atomically).
func ExampleModel_Save() {
	set, _ := engine.New(3, 1, engine.Options{Columns: 2})
	set.Add(engine.Dense([]float32{1, 0, 2}), 0.5, -0.5)
	set.Add(engine.Sparse([]int32{1}, []float32{3}), -1, 1)
	model, _ := set.Snapshot(2) // two outputs, one per column

	var file bytes.Buffer
	if err := model.Save(&file); err != nil {
		log.Fatal(err)
	}
	loaded, err := engine.LoadModel(&file)
	if err != nil {
		log.Fatal(err)
	}
	x := engine.Dense([]float32{1, 1, 2})
	before, _ := model.Scores(x, nil)
	after, _ := loaded.Scores(x, nil)
	fmt.Printf("%d outputs, %.4f → %.4f, %.4f → %.4f\n", loaded.Outputs(), before[0], after[0], before[1], after[1])
	// Output:
	// 2 outputs, 0.2922 → 0.2922, -0.2922 → -0.2922
}

// Concurrent prediction: a Model is safe for any number of goroutines,
// each scoring its own part of the queries.
func ExampleModel_concurrent() {
	set, _ := engine.New(1, 1, engine.Options{})
	set.Add(engine.Dense([]float32{0}), 1)
	model, _ := set.Snapshot(1)

	scores := make([]float64, 4)
	var wg sync.WaitGroup
	for k := range scores {
		wg.Go(func() {
			scores[k], _ = model.Score(engine.Dense([]float32{float32(k)}))
		})
	}
	wg.Wait()
	fmt.Printf("%.4f\n", scores)
	// Output:
	// [1.0000 0.6065 0.1353 0.0111]
}

// Many rows at once, cancellable: ScoreBatch writes every output of every
// row, row after row, and looks at its context every few hundred rows.
func ExampleModel_ScoreBatch() {
	set, _ := engine.New(2, 1, engine.Options{Columns: 2})
	set.Add(engine.Dense([]float32{0, 0}), 1, 0)
	set.Add(engine.Dense([]float32{2, 0}), 0, 1)
	model, _ := set.Snapshot(2)

	rows := []engine.Vector{
		engine.Dense([]float32{0, 0}),
		engine.Sparse([]int32{0}, []float32{2}),
		engine.Sparse(nil, nil), // the zero vector
	}
	scores := make([]float64, len(rows)*model.Outputs())
	if err := model.ScoreBatch(context.Background(), rows, scores); err != nil {
		log.Fatal(err)
	}
	for k := range rows {
		fmt.Printf("row %d: %.4f\n", k, scores[2*k:2*k+2])
	}
	// Output:
	// row 0: [1.0000 0.1353]
	// row 1: [0.1353 1.0000]
	// row 2: [1.0000 0.1353]
}
