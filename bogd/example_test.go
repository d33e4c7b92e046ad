package bogd_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
)

// points returns n two-dimensional points on a circle and their labels:
// +1 in the upper half plane, −1 below.
func points(n int) ([]engine.Vector, []int) {
	var xs []engine.Vector
	var ys []int
	for i := range n {
		a := 2 * math.Pi * float64(i*7%n) / float64(n)
		xs = append(xs, engine.Dense([]float32{float32(math.Cos(a)), float32(math.Sin(a))}))
		y := 1
		if math.Sin(a) < 0 {
			y = -1
		}
		ys = append(ys, y)
	}
	return xs, ys
}

// A binary BOGD++ learner: predict, then learn, one example at a time.
func Example() {
	xs, ys := points(400)
	l, err := bogd.New(bogd.BOGDpp, bogd.Config{Dim: 2, Budget: 20, Sigma: 0.5, Eta: 0.5, Seed: 1})
	if err != nil {
		panic(err)
	}
	mistakes := 0
	for i, x := range xs {
		out, err := l.Observe(x, ys[i])
		if err != nil {
			panic(err)
		}
		if out.Mistake {
			mistakes++
		}
	}
	f, _ := l.Predict(engine.Dense([]float32{0, 1}))
	fmt.Printf("%d support vectors, %d mistakes in 400, f(0,1) > 0: %v\n", l.SupportVectors(), mistakes, f > 0)
	// Output: 20 support vectors, 14 mistakes in 400, f(0,1) > 0: true
}

// A multi-class learner takes any integer labels and predicts them, with
// calibrated probabilities when asked.
func ExampleNewOnline_multiclass() {
	l, err := bogd.NewOnline(bogd.BOGD, bogd.Config{
		Dim: 1, Budget: 10, Sigma: 1, Task: bogd.Multiclass, Classes: []int{-1, 7, 42}, Calibrate: true,
	})
	if err != nil {
		panic(err)
	}
	for range 30 {
		for i, label := range []float64{-1, 7, 42} {
			if _, err := l.Learn(engine.Dense([]float32{float32(4 * i)}), label); err != nil {
				panic(err)
			}
		}
	}
	p, _ := l.PredictOne(engine.Dense([]float32{4.2}), nil)
	fmt.Printf("label %v, probability above a half: %v\n", p.Label, p.Probability > 0.5)
	// Output: label 7, probability above a half: true
}

// A regressor predicts values: here NORMA learns y = x².
func ExampleNewOnline_regression() {
	l, err := bogd.NewOnline(bogd.NORMA, bogd.Config{Dim: 1, Sigma: 0.5, Eta: 0.2, Epsilon: 0.01, Nu: 0.3, Task: bogd.Regression})
	if err != nil {
		panic(err)
	}
	for k := range 3000 {
		x := float64(k*37%100)/50 - 1 // −1 … 1
		if _, err := l.Learn(engine.Dense([]float32{float32(x)}), x*x); err != nil {
			panic(err)
		}
	}
	p, _ := l.PredictOne(engine.Dense([]float32{0.5}), nil)
	fmt.Printf("f(0.5) = %.1f\n", p.Label)
	// Output: f(0.5) = 0.3
}

// Sparse inputs give their non-zero features by 0-based index (a LIBSVM
// file's index 1 is feature 0).
func ExampleNew_sparse() {
	l, _ := bogd.New(bogd.Perceptron, bogd.Config{Dim: 1000, Sigma: 1})
	l.Observe(engine.Sparse([]int32{3, 999}, []float32{1, 1}), -1) // a mistake: f = 0 predicts +1
	l.Observe(engine.Sparse([]int32{4}, []float32{1}), 1)          // f = −κ < 0: a mistake
	f, _ := l.Predict(engine.Sparse([]int32{3, 999}, []float32{1, 0.9}))
	fmt.Printf("%d support vectors; near the first, f < 0: %v\n", l.SupportVectors(), f < 0)
	// Output: 2 support vectors; near the first, f < 0: true
}

// A saved learner loads without knowing its type and goes on exactly where
// it stood.
func ExampleSaveFile() {
	xs, ys := points(100)
	l, _ := bogd.New(bogd.BOGD, bogd.Config{Dim: 2, Budget: 10, Sigma: 0.5, Seed: 3})
	for i, x := range xs[:50] {
		l.Observe(x, ys[i])
	}
	dir, _ := os.MkdirTemp("", "bogd-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.bogd")
	if err := bogd.SaveFile(path, l); err != nil {
		panic(err)
	}
	loaded, err := bogd.LoadOnlineFile(path)
	if err != nil {
		panic(err)
	}
	same := true
	for i, x := range xs[50:] {
		a, _ := l.Observe(x, ys[50+i])
		b, _ := loaded.Learn(x, float64(ys[50+i]))
		same = same && a.Score == b.Score
	}
	fmt.Println(loaded.Algorithm(), loaded.Task(), "continues bit for bit:", same)
	// Output: bogd binary continues bit for bit: true
}

// Predictions may run on many goroutines at once while the learner is not
// learning; a Snapshot serves them while it learns.
func ExampleLearner_Snapshot() {
	xs, ys := points(200)
	l, _ := bogd.New(bogd.BOGDpp, bogd.Config{Dim: 2, Budget: 20, Sigma: 0.5, Seed: 1})
	for i, x := range xs[:100] {
		l.Observe(x, ys[i])
	}
	model, _ := l.Snapshot()
	var wg sync.WaitGroup
	var mu sync.Mutex
	agree := 0
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < 100; i += 4 {
				f, _ := model.Score(xs[i])
				if (f >= 0) == (ys[i] == 1) {
					mu.Lock()
					agree++
					mu.Unlock()
				}
			}
		})
	}
	for i, x := range xs[100:] { // learning goes on: the snapshot is unaffected
		l.Observe(x, ys[100+i])
	}
	wg.Wait()
	fmt.Printf("%d of the first 100 points on the right side\n", agree)
	// Output: 96 of the first 100 points on the right side
}
