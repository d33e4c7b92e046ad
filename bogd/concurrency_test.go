package bogd

import (
	"bytes"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bogd-project/bogd/engine"
)

// published is a snapshot with the scores of the probe queries that the
// trainer computed when it took it.
type published struct {
	step   int
	model  *engine.Model
	scores []float64
}

// TestSnapshotsServeWhileTraining: 8 goroutines predict from the latest
// snapshot while the learner goes on training (and is saved and reloaded
// halfway) in another. Every prediction must equal, bit for bit, what the
// snapshot gave when it was taken: training never reaches a snapshot. Run
// with -race (and -tags purego, for the detector to see the kernels).
func TestSnapshotsServeWhileTraining(t *testing.T) {
	s := syntheticStream(300, 6, 21)
	sp := sparseStream(40, 22)
	var probes []engine.Vector
	for i := 0; i < len(s.xs); i += 25 {
		probes = append(probes, s.xs[i])
	}
	// Sparse probes of dimension 6 exercise the models' sparse path.
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
	const readers = 8
	for _, a := range AlgorithmsFor(Binary) {
		t.Run(a.String(), func(t *testing.T) {
			l := mustNew(t, a, configFor(a, s.dim, 24, 4))
			var latest atomic.Pointer[published]
			publish := func(step int) {
				m, err := l.Snapshot()
				if err != nil {
					t.Error(err)
					return
				}
				p := &published{step: step, model: m, scores: make([]float64, len(probes))}
				if err := m.ScoreBatch(t.Context(), probes, p.scores); err != nil {
					t.Error(err)
					return
				}
				latest.Store(p)
			}
			publish(0)

			var done atomic.Bool
			var wg sync.WaitGroup
			defer wg.Wait()
			defer done.Store(true) // also when a t.Fatal ends the trainer early
			var served [readers]int
			errs := make(chan error, readers)
			for r := range readers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := 0; !done.Load() || k < 50; k++ {
						p := latest.Load()
						i := (k*7 + r) % len(probes)
						got, err := p.model.Score(probes[i])
						if err != nil {
							errs <- err
							return
						}
						if math.Float64bits(got) != math.Float64bits(p.scores[i]) {
							errs <- fmt.Errorf("reader %d: snapshot of step %d scores probe %d as %v, %v when taken", r, p.step, i, got, p.scores[i])
							return
						}
						served[r]++
					}
				}()
			}

			for i := range s.xs {
				if i == len(s.xs)/2 {
					// Halfway, continue on a saved and reloaded copy:
					// its snapshots must be as independent.
					var buf bytes.Buffer
					if err := Save(&buf, l); err != nil {
						t.Fatal(err)
					}
					loaded, err := Load(&buf)
					if err != nil {
						t.Fatal(err)
					}
					l = loaded
				}
				if _, err := l.Observe(s.xs[i], s.labels[i]); err != nil {
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
		})
	}
}

// TestReadersShareATrainedLearner: with no Observe running, Predict,
// SupportVectors, Snapshot and Save may be called from many goroutines at
// once (the Learner contract). Every prediction must equal, bit for bit, the
// one made alone beforehand. Run with -race (and -tags purego, for the
// detector to see the kernels): on a learner whose Predict wrote the learner's
// own scratch, the detector reports the race and scores come out wrong.
func TestReadersShareATrainedLearner(t *testing.T) {
	s := syntheticStream(400, 7, 41)
	for _, a := range AlgorithmsFor(Binary) {
		t.Run(a.String(), func(t *testing.T) {
			l := mustNew(t, a, configFor(a, s.dim, 32, 5))
			for i, x := range s.xs {
				if _, err := l.Observe(x, s.labels[i]); err != nil {
					t.Fatal(err)
				}
			}
			want := make([]float64, len(s.xs))
			for i, x := range s.xs {
				f, err := l.Predict(x)
				if err != nil {
					t.Fatal(err)
				}
				want[i] = f
			}
			var saved bytes.Buffer
			if err := Save(&saved, l); err != nil {
				t.Fatal(err)
			}
			const readers = 6
			var wg sync.WaitGroup
			errs := make(chan error, readers)
			for r := range readers {
				wg.Go(func() {
					for k := range 3 * len(s.xs) {
						i := (k*7 + r*13) % len(s.xs)
						f, err := l.Predict(s.xs[i])
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
func readWhole(l Learner, saved []byte) error {
	if n := l.SupportVectors(); n == 0 && l.Algorithm() != FOGD {
		return fmt.Errorf("no support vectors")
	}
	if _, err := l.Snapshot(); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := Save(&buf, l); err != nil {
		return err
	}
	if !bytes.Equal(buf.Bytes(), saved) {
		return fmt.Errorf("Save wrote %d bytes, differing from the %d written alone", buf.Len(), len(saved))
	}
	return nil
}
