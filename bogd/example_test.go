package bogd_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/task"
)

// points returns n two-dimensional points on a circle and their labels:
// +1 in the upper half plane, −1 below.
func points(n int) ([]engine.Vector, []float64) {
	var xs []engine.Vector
	var ys []float64
	for i := range n {
		a := 2 * math.Pi * float64(i*7%n) / float64(n)
		xs = append(xs, engine.Dense([]float32{float32(math.Cos(a)), float32(math.Sin(a))}))
		y := 1.0
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
		step, err := l.Learn(x, ys[i])
		if err != nil {
			panic(err)
		}
		if step.Mistake {
			mistakes++
		}
	}
	p, _ := l.Predict(engine.Dense([]float32{0, 1}))
	fmt.Printf("%d support vectors, %d mistakes in 400, label of (0,1): %v\n", l.SupportVectors(), mistakes, p.Label)
	// Output: 20 support vectors, 14 mistakes in 400, label of (0,1): 1
}

// A multi-class learner takes any integer labels and predicts them, with
// calibrated probabilities when asked.
func ExampleNew_multiclass() {
	l, err := bogd.New(bogd.BOGD, bogd.Config{
		Dim: 1, Budget: 10, Sigma: 1, Task: task.Multiclass, Classes: []int{-1, 7, 42}, Calibrate: true,
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
	p, _ := l.Predict(engine.Dense([]float32{4.2}))
	fmt.Printf("label %v, probability above a half: %v\n", p.Label, p.Probability > 0.5)
	// Output: label 7, probability above a half: true
}

// A regressor predicts values: here NORMA learns y = x².
func ExampleNew_regression() {
	l, err := bogd.New(bogd.NORMA, bogd.Config{Dim: 1, Sigma: 0.5, Eta: 0.2, Epsilon: 0.01, Nu: 0.3, Task: task.Regression})
	if err != nil {
		panic(err)
	}
	for k := range 3000 {
		x := float64(k*37%100)/50 - 1 // −1 … 1
		if _, err := l.Learn(engine.Dense([]float32{float32(x)}), x*x); err != nil {
			panic(err)
		}
	}
	p, _ := l.Predict(engine.Dense([]float32{0.5}))
	fmt.Printf("f(0.5) = %.1f\n", p.Label)
	// Output: f(0.5) = 0.3
}

// Sparse inputs give their non-zero features by 0-based index (a LIBSVM
// file's index 1 is feature 0).
func ExampleNew_sparse() {
	l, _ := bogd.New(bogd.Perceptron, bogd.Config{Dim: 1000, Sigma: 1})
	l.Learn(engine.Sparse([]int32{3, 999}, []float32{1, 1}), -1) // a mistake: f = 0 predicts +1
	l.Learn(engine.Sparse([]int32{4}, []float32{1}), 1)          // f = −κ < 0: a mistake
	p, _ := l.Predict(engine.Sparse([]int32{3, 999}, []float32{1, 0.9}))
	fmt.Printf("%d support vectors; near the first: %v\n", l.SupportVectors(), p.Label)
	// Output: 2 support vectors; near the first: -1
}

// What a zero Config field becomes, per algorithm and task.
func ExampleDefaults() {
	for _, a := range []bogd.Algorithm{bogd.BOGDpp, bogd.FOGD} {
		c := bogd.Defaults(a, task.Multiclass)
		fmt.Printf("%v: budget %d, σ %v, η %v, γ %v, %d Fourier features\n", a, c.Budget, c.Sigma, c.Eta, c.Gamma, c.Features)
	}
	// Output:
	// bogd++: budget 100, σ 8, η 0.5, γ 10, 400 Fourier features
	// fogd: budget 100, σ 8, η 0.005, γ 10, 400 Fourier features
}

// A saved learner loads without knowing its algorithm or task and goes on
// exactly where it stood.
func ExampleLoadFile() {
	xs, ys := points(100)
	l, _ := bogd.New(bogd.BOGD, bogd.Config{Dim: 2, Budget: 10, Sigma: 0.5, Seed: 3})
	for i, x := range xs[:50] {
		l.Learn(x, ys[i])
	}
	dir, _ := os.MkdirTemp("", "bogd-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.bogd")
	if err := l.SaveFile(path); err != nil {
		panic(err)
	}
	loaded, err := bogd.LoadFile(path)
	if err != nil {
		panic(err)
	}
	same := true
	for i, x := range xs[50:] {
		a, _ := l.Learn(x, ys[50+i])
		b, _ := loaded.Learn(x, ys[50+i])
		same = same && a.Score == b.Score
	}
	fmt.Println(loaded.Algorithm(), loaded.Config().Task, "continues bit for bit:", same)
	// Output: bogd binary continues bit for bit: true
}

// A Predictor serves predictions on many goroutines while the learner
// goes on learning.
func ExampleLearner_Predictor() {
	xs, ys := points(200)
	l, _ := bogd.New(bogd.BOGDpp, bogd.Config{Dim: 2, Budget: 20, Sigma: 0.5, Seed: 1, Calibrate: true})
	for i, x := range xs[:100] {
		l.Learn(x, ys[i])
	}
	p, err := l.Predictor()
	if err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	agree := 0
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < 100; i += 4 {
				pred, _ := p.Predict(xs[i])
				if pred.Label == ys[i] {
					mu.Lock()
					agree++
					mu.Unlock()
				}
			}
		})
	}
	for i, x := range xs[100:] { // learning goes on: the predictor is unaffected
		l.Learn(x, ys[100+i])
	}
	wg.Wait()
	fmt.Printf("%d of the first 100 points on the right side\n", agree)
	// Output: 95 of the first 100 points on the right side
}
