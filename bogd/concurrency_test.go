package bogd

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/task"
)

// published is a Predictor with what the learner predicted for the probe
// queries when it was made.
type published struct {
	step      int
	predictor *Predictor
	want      []Prediction
}

// TestPredictorsServeWhileLearning: in every task, for every algorithm
// (calibrated, for the classifiers), 8 goroutines predict from the latest
// Predictor while the learner goes on learning (and is saved and reloaded
// halfway) in another. Every prediction must equal, bit for bit, what the
// learner predicted when the Predictor was made: learning never reaches a
// Predictor. Run with -race (and -tags purego, for the detector to see the
// kernels).
func TestPredictorsServeWhileLearning(t *testing.T) {
	streams := map[task.Task]taskStream{
		task.Binary: binaryStream(200, 6, 21), task.Multiclass: multiStream(200, 6, 23), task.Regression: regressionStream(200, 6, 25),
	}
	sp := sparseStream(40, 22)
	const readers = 8
	for _, tk := range []task.Task{task.Binary, task.Multiclass, task.Regression} {
		s := streams[tk]
		var probes []engine.Vector
		for i := 0; i < len(s.xs); i += 25 {
			probes = append(probes, s.xs[i])
		}
		// Sparse probes of dimension 6 exercise the sparse path.
		for _, x := range sp.xs[:8] {
			var idx []int32
			var val []float32
			for k, j := range x.Index {
				if j < 6 {
					idx, val = append(idx, j), append(val, x.Value[k])
				}
			}
			probes = append(probes, engine.Sparse(idx, val))
		}
		for _, a := range algorithmsFor(tk) {
			t.Run(fmt.Sprintf("%v/%v", tk, a), func(t *testing.T) {
				cfg := forAlgo(taskConfig(tk, s.dim, 24, 4), a)
				cfg.Calibrate = tk != task.Regression
				l := mustNew(t, a, cfg)
				var latest atomic.Pointer[published]
				publish := func(step int) {
					p, err := l.Predictor()
					if err != nil {
						t.Error(err)
						return
					}
					want, err := l.PredictBatch(context.Background(), probes, nil)
					if err != nil {
						t.Error(err)
						return
					}
					latest.Store(&published{step: step, predictor: p, want: want})
				}
				publish(0)

				var done atomic.Bool
				var wg sync.WaitGroup
				defer wg.Wait()
				defer done.Store(true) // also when a t.Fatal ends the learner early
				var served [readers]int
				errs := make(chan error, readers)
				for r := range readers {
					wg.Go(func() {
						for k := 0; !done.Load() || k < 50; k++ {
							p := latest.Load()
							i := (k*7 + r) % len(probes)
							got, err := p.predictor.Predict(probes[i])
							if err != nil {
								errs <- err
								return
							}
							if !samePrediction(got, p.want[i]) {
								errs <- fmt.Errorf("reader %d: the Predictor of step %d predicts probe %d as %+v, the learner did %+v", r, p.step, i, got, p.want[i])
								return
							}
							served[r]++
						}
					})
				}

				for i := range s.xs {
					if i == len(s.xs)/2 {
						// Halfway, continue on a saved and reloaded copy:
						// its Predictors must be as independent.
						var buf bytes.Buffer
						if err := l.Save(&buf); err != nil {
							t.Fatal(err)
						}
						loaded, err := Load(&buf)
						if err != nil {
							t.Fatal(err)
						}
						l = loaded
					}
					if _, err := l.Learn(s.xs[i], s.labels[i]); err != nil {
						t.Fatal(err)
					}
					if i%10 == 9 {
						publish(i + 1)
					}
				}
				done.Store(true)
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
				for r, n := range served {
					if n < 50 {
						t.Errorf("reader %d served %d predictions", r, n)
					}
				}
				p := latest.Load().predictor
				if p.Algorithm() != a || !reflect.DeepEqual(p.Config(), l.Config()) || p.SupportVectors() != l.SupportVectors() ||
					(p.Calibration() != nil) != cfg.Calibrate {
					t.Errorf("the Predictor describes a %v learner of %d support vectors, config %+v (calibration %v); the learner %v, %d, %+v",
						p.Algorithm(), p.SupportVectors(), p.Config(), p.Calibration(), a, l.SupportVectors(), l.Config())
				}
			})
		}
	}
}

// TestReadersShareATrainedLearner: with no Learn running, Predict,
// SupportVectors, Predictor and Save may be called from many goroutines at
// once (the Learner contract). Every prediction must equal, bit for bit, the
// one made alone beforehand. Run with -race (and -tags purego, for the
// detector to see the kernels): on a learner whose Predict wrote the set's
// own scratch, the detector reports the race and scores come out wrong.
func TestReadersShareATrainedLearner(t *testing.T) {
	s := syntheticStream(400, 7, 41)
	for _, a := range algorithmsFor(task.Binary) {
		t.Run(a.String(), func(t *testing.T) {
			l := mustNew(t, a, configFor(a, s.dim, 32, 5))
			for i, x := range s.xs {
				if _, err := l.observe(x, s.labels[i]); err != nil {
					t.Fatal(err)
				}
			}
			want := make([]float64, len(s.xs))
			for i, x := range s.xs {
				f, err := l.score(x)
				if err != nil {
					t.Fatal(err)
				}
				want[i] = f
			}
			var saved bytes.Buffer
			if err := l.Save(&saved); err != nil {
				t.Fatal(err)
			}
			const readers = 6
			var wg sync.WaitGroup
			errs := make(chan error, readers)
			for r := range readers {
				wg.Go(func() {
					for k := range 3 * len(s.xs) {
						i := (k*7 + r*13) % len(s.xs)
						f, err := l.score(s.xs[i])
						if err == nil && math.Float64bits(f) != math.Float64bits(want[i]) {
							err = fmt.Errorf("reader %d: Predict(x[%d]) = %v, alone %v", r, i, f, want[i])
						}
						if err == nil && k%200 == 0 {
							err = readWhole(l, saved.Bytes())
						}
						if err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// readWhole runs the other read-only methods once and checks that Save
// writes the bytes it wrote before.
func readWhole(l *Learner, saved []byte) error {
	if n := l.SupportVectors(); n == 0 && !randomFeatures(l.Algorithm()) {
		return fmt.Errorf("no support vectors")
	}
	if _, err := l.Predictor(); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := l.Save(&buf); err != nil {
		return err
	}
	if !bytes.Equal(buf.Bytes(), saved) {
		return fmt.Errorf("Save wrote %d bytes, differing from the %d written alone", buf.Len(), len(saved))
	}
	return nil
}
