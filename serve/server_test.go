package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/serve/wal"
	"github.com/bogd-project/bogd/task"
)

// german returns the bundled german data as examples.
func german(t testing.TB) []Example {
	t.Helper()
	d, err := dataset.ReadFile(filepath.Join("..", "dataset", "testdata", "german.svm.gz"), dataset.Options{Task: task.Binary})
	if err != nil {
		t.Fatal(err)
	}
	examples := make([]Example, d.Len())
	for i := range examples {
		idx, val := d.Row(i)
		examples[i] = Example{Index: idx, Value: val, Label: d.Labels[i]}
	}
	return examples
}

// newModel writes a BOGD++ model of german's 24 features, trained on its
// first 100 rows, to dir/german.bogd.
func newModel(t testing.TB, dir string) string {
	t.Helper()
	l, err := bogd.New(bogd.BOGDpp, bogd.Config{Dim: 24, Budget: 40, Sigma: 30, Eta: 0.2, Lambda: 1e-6, Gamma: 10, Seed: 1, Calibrate: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range german(t)[:100] {
		if _, err := l.Learn(engine.Sparse(e.Index, e.Value), e.Label); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "german.bogd")
	if err := l.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// learnt returns the bytes of the model file after learning batches in
// order: what a server that never stopped holds.
func learnt(t testing.TB, model string, batches [][]Example) []byte {
	t.Helper()
	l, err := bogd.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		for _, e := range b {
			if _, err := l.Learn(engine.Sparse(e.Index, e.Value), e.Label); err != nil {
				t.Fatal(err)
			}
		}
	}
	var buf bytes.Buffer
	if err := l.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func startServer(t testing.TB, opt Options) *Server {
	t.Helper()
	var log lines
	opt.Logf = log.add
	s, err := New(opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, &log)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// lines collects log lines.
type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, fmt.Sprintf(format, args...))
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.l, "\n")
}

// crash stops a server as kill -9 would leave it: no last snapshot, the
// log as the disk has it.
func crash(s *Server) {
	s.closing.Store(true)
	s.stop()
	s.routines.Wait()
	s.unfollow()
	<-s.followed
	s.log.Close()
}

// TestRecoverFromLog: a server that crashed comes back, from its model or
// its newest snapshot plus the log, to the model of a server that never
// stopped, at the same position, and goes on from there.
func TestRecoverFromLog(t *testing.T) {
	for _, every := range []time.Duration{0, time.Millisecond} {
		t.Run(fmt.Sprintf("snapshot every %v", every), func(t *testing.T) {
			dir := t.TempDir()
			model := newModel(t, dir)
			opt := Options{Model: model, OpenLog: FileLog(filepath.Join(dir, "log")), SnapshotEvery: every, Keep: 2, PublishEvery: time.Millisecond}
			rows := german(t)[100:]
			var batches [][]Example
			for run := range 3 {
				s := startServer(t, opt)
				if v := s.Version(); v != uint64(len(batches)) {
					t.Fatalf("run %d starts at position %d, want %d", run, v, len(batches))
				}
				for range 20 {
					b := rows[:7]
					rows = rows[7:]
					out, err := s.Learn(context.Background(), b)
					if err != nil || out.Learned != 7 || out.Version != uint64(len(batches)+1) {
						t.Fatalf("learn: %+v %v", out, err)
					}
					batches = append(batches, b)
					time.Sleep(every)
				}
				crash(s)
			}
			s := startServer(t, opt)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			snap := s.snaps.path(uint64(len(batches)))
			got, err := os.ReadFile(snap)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, learnt(t, model, batches)) {
				t.Fatalf("%s differs from the model learnt without a crash", snap)
			}
			if files, _ := s.snaps.list(); len(files) > 2 {
				t.Errorf("snapshots %v: Keep is 2", files)
			}
		})
	}
}

// TestSnapshotsTruncateTheLog: the log is kept from the oldest snapshot
// kept on, so that a server starting from any of them replays the rest.
func TestSnapshotsTruncateTheLog(t *testing.T) {
	dir := t.TempDir()
	model := newModel(t, dir)
	logDir := filepath.Join(dir, "log")
	s := startServer(t, Options{Model: model, OpenLog: FileLog(logDir), Keep: 2})
	rows := german(t)[100:]
	for i := range 5 {
		if _, err := s.Learn(context.Background(), rows[i:i+1]); err != nil {
			t.Fatal(err)
		}
		if err := s.snapshot(); err != nil {
			t.Fatal(err)
		}
	}
	if files, _ := s.snaps.list(); len(files) != 2 || files[0].pos != 4 || files[1].pos != 5 {
		t.Errorf("snapshots %v, want at positions 4 and 5", files)
	}
	if first := s.log.(*wal.File).Start(); first == 0 || first > 4 {
		t.Errorf("the log starts after position %d: want the records before the oldest snapshot kept (4) dropped, and none after", first)
	}
	// The newest snapshot lost: the older one and the log give the same model.
	crash(s)
	newest, _ := os.ReadFile(s.snaps.path(5))
	os.Remove(s.snaps.path(5))
	again := startServer(t, Options{Model: model, OpenLog: FileLog(logDir)})
	if again.Version() != 5 {
		t.Fatalf("from the older snapshot: position %d, want 5", again.Version())
	}
	again.Close()
	if got, _ := os.ReadFile(s.snaps.path(5)); !bytes.Equal(got, newest) {
		t.Error("the older snapshot plus the log is not the newest snapshot")
	}
}

// TestReadYourWrites: Predictor waits for a position not yet published,
// and gives up when its context ends.
func TestReadYourWrites(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, Options{Model: newModel(t, dir), PublishEvery: time.Hour})
	rows := german(t)[100:]
	out, err := s.Learn(context.Background(), rows[:3])
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, v, err := s.Predictor(ctx, out.Version)
	if err != nil || v != out.Version {
		t.Fatalf("Predictor at least %d: version %d, %v", out.Version, v, err)
	}
	want := learnt(t, s.opt.Model, [][]Example{rows[:3]})
	l, _ := bogd.Load(bytes.NewReader(want))
	x := engine.Sparse(rows[50].Index, rows[50].Value)
	if got, want := must(p.Predict(x)), must(l.Predict(x)); got.Score != want.Score || got.Probability != want.Probability {
		t.Errorf("the published model predicts %+v, the learner %+v", got, want)
	}
	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, _, err := s.Predictor(short, out.Version+1); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Predictor beyond the log's end: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestNewerModel: a model trained again after its snapshots starts at the
// log's end (positions never go back) and is snapshotted at once.
func TestNewerModel(t *testing.T) {
	dir := t.TempDir()
	model := newModel(t, dir)
	opt := Options{Model: model, OpenLog: FileLog(filepath.Join(dir, "log"))}
	s := startServer(t, opt)
	for i := range 3 {
		if _, err := s.Learn(context.Background(), german(t)[i:i+1]); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	later := time.Now().Add(time.Minute)
	os.Chtimes(model, later, later)
	s = startServer(t, opt)
	if s.Version() != 3 {
		t.Errorf("the newer model starts at %d, want the log's end 3", s.Version())
	}
	if got, _ := os.ReadFile(s.snaps.path(3)); !bytes.Equal(got, must(os.ReadFile(model))) {
		t.Error("the newer model was not snapshotted at the log's end")
	}
}

// TestLearnRefuses: examples that are not prepared for the model, or
// whose labels it cannot learn, never reach the log.
func TestLearnRefuses(t *testing.T) {
	s := startServer(t, Options{Model: newModel(t, t.TempDir())})
	nan := math.NaN()
	for _, c := range []struct {
		e    Example
		want string
	}{
		{Example{Index: []int32{24}, Value: []float32{1}, Label: 1}, "example 1: index 24 beyond the model's 24 features"},
		{Example{Index: []int32{3, 2}, Value: []float32{1, 1}, Label: 1}, "example 1: indices not strictly increasing (2 after 3)"},
		{Example{Index: []int32{0}, Value: []float32{float32(math.Inf(1))}, Label: 1}, "example 1: feature 0 is not finite"},
		{Example{Index: []int32{0}, Value: nil, Label: 1}, "example 1: 1 indices but 0 values"},
		{Example{Label: nan}, "example 1: label NaN is not finite"},
		{Example{Label: 2}, "row 1: label 2: a binary model learns -1 or +1"},
	} {
		if _, err := s.Learn(context.Background(), []Example{c.e}); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.e, err, c.want)
		}
	}
	if end, _ := s.log.End(context.Background()); end != 0 {
		t.Errorf("refused examples reached the log: it ends at %d", end)
	}
}
