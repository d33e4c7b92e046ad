package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/natstest"
	"github.com/bogd-project/bogd/serve/jetstream"
	"github.com/bogd-project/bogd/serve/wal"
)

// jetStreamLog returns an Options.OpenLog on the stream LEARN at url, and
// the function that closes its connection.
func jetStreamLog(t testing.TB, url, subject string) (func(uint64, func(time.Duration, int)) (wal.Log, error), func()) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	return func(uint64, func(time.Duration, int)) (wal.Log, error) {
		return jetstream.Open(context.Background(), nc, jetstream.Config{Stream: "LEARN", Subject: subject})
	}, nc.Close
}

// replica is one of TestReplicas' servers, restarted after each crash.
type replica struct {
	mu   sync.Mutex
	s    *Server // nil while it is down
	down func()  // closes its connection
}

// TestReplicas: three servers share a JetStream stream; learns go to any
// of them while they crash (no last snapshot) and restart from their own
// snapshots and the stream; at the end every replica's model is byte for
// byte the model of one process that learnt the stream in order.
func TestReplicas(t *testing.T) {
	learns := 100_000
	if testing.Short() {
		learns = 5_000
	}
	url := natstest.Start(t)
	dir := t.TempDir()
	model := newModel(t, dir)
	rows := german(t)[100:]
	replicas := make([]*replica, 3)
	up := func(i int) {
		open, closeConn := jetStreamLog(t, url, "bogd.learn")
		s, err := New(Options{
			Model: model, SnapshotDir: filepath.Join(dir, fmt.Sprint("replica", i)), SnapshotEvery: 100 * time.Millisecond, Keep: 2,
			PublishEvery: 10 * time.Millisecond, OpenLog: open,
		})
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		replicas[i].mu.Lock()
		replicas[i].s, replicas[i].down = s, closeConn
		replicas[i].mu.Unlock()
	}
	for i := range replicas {
		os.Mkdir(filepath.Join(dir, fmt.Sprint("replica", i)), 0o755)
		replicas[i] = new(replica)
		up(i)
	}
	start := time.Now()
	var sent, acked, refused atomic.Int64
	var wg sync.WaitGroup
	for c := range 16 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			for i := sent.Add(1); i <= int64(learns); i = sent.Add(1) {
				r := replicas[rng.IntN(len(replicas))]
				r.mu.Lock()
				s := r.s
				r.mu.Unlock()
				if s == nil { // down: this learn goes to another replica
					sent.Add(-1)
					continue
				}
				k := int(i) % len(rows)
				out, err := s.Learn(context.Background(), rows[k:k+1])
				r.mu.Lock()
				crashed := r.s != s
				r.mu.Unlock()
				switch {
				case err == nil && out.Learned == 1:
					acked.Add(1)
				case err != nil && crashed:
					refused.Add(1) // crashed under it: maybe in the stream, maybe not
				default:
					t.Errorf("learn: %+v %v", out, err)
					return
				}
			}
		})
	}
	// Crash a replica every so often, and bring it back.
	crashes := 0
	for sent.Load() < int64(learns) && !t.Failed() {
		time.Sleep(time.Duration(200+rand.IntN(300)) * time.Millisecond)
		i := rand.IntN(len(replicas))
		r := replicas[i]
		r.mu.Lock()
		s, down := r.s, r.down
		r.s = nil
		r.mu.Unlock()
		crash(s)
		down()
		crashes++
		up(i)
	}
	wg.Wait()
	t.Logf("%d learns (%d acknowledged, %d cut by a crash) through 3 replicas in %.1f s, %d crashes", learns, acked.Load(), refused.Load(), time.Since(start).Seconds(), crashes)

	// Every replica reaches the stream's end, and saves its model there.
	end, err := replicas[0].s.log.End(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if end < uint64(acked.Load()) {
		t.Fatalf("the stream ends at %d, below the %d learns acknowledged", end, acked.Load())
	}
	var models [][]byte
	for i, r := range replicas {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if _, _, err := r.s.Predictor(ctx, end); err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		cancel()
		if err := r.s.Close(); err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		r.down()
		snap, err := os.ReadFile(r.s.snaps.path(end))
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, snap)
	}
	want := learnStream(t, url, model, end)
	for i, m := range models {
		if !bytes.Equal(m, want) {
			t.Errorf("replica %d's model at position %d differs from one process's learn of the stream", i, end)
		}
	}
}

// learnStream learns the stream up to position end in one process, from
// the model: the model every replica must hold.
func learnStream(t *testing.T, url, model string, end uint64) []byte {
	t.Helper()
	open, closeConn := jetStreamLog(t, url, "bogd.learn")
	defer closeConn()
	log, err := open(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := bogd.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	var rec learnRecord
	done := errors.New("done")
	err = log.Follow(context.Background(), 0, func(pos uint64, data []byte) error {
		if err := decodeLearnRecord(data, 24, &rec); err != nil {
			return err
		}
		for _, e := range rec.examples {
			if _, err := l.Learn(engine.Sparse(e.Index, e.Value), e.Label); err != nil {
				return err
			}
		}
		if pos == end {
			return done
		}
		return nil
	})
	if err != done {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := l.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestEvents: a learn-only server learns the labelled rows other programs
// publish to a subject, in order, skipping a message that is not a
// request for the model; it refuses /learn.
func TestEvents(t *testing.T) {
	url := natstest.Start(t)
	dir := t.TempDir()
	model := newModel(t, dir)
	open, closeConn := jetStreamLog(t, url, "events.rows")
	defer closeConn()
	publisher, err := open(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := german(t)[100:130]
	var good [][]Example
	for i := 0; i < len(rows); i += 3 {
		msg := body(rows[i:i+3], true)
		if i == 9 {
			msg = `{"rows":[{"label":5,"features":{"1":1}}]}` // not a binary label
		} else {
			good = append(good, rows[i:i+3])
		}
		if _, err := publisher.Append(context.Background(), []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	s := startServer(t, Options{Model: model, OpenLog: open, Events: true})
	if s.Version() != 10 || testutil.ToFloat64(s.metrics.skipped) != 1 {
		t.Fatalf("at position %d after replay, %v skipped: want 10, 1", s.Version(), testutil.ToFloat64(s.metrics.skipped))
	}
	url2 := serveHTTP(t, s, HTTPOptions{})
	var out map[string]string
	if code := call(t, "POST", url2+"/learn", body(rows[:1], true), &out); code != 403 || out["error"] != ErrEventsOnly.Error() {
		t.Errorf("/learn on a learn-only server: %d %q", code, out["error"])
	}
	s.Close()
	if got, _ := os.ReadFile(s.snaps.path(10)); !bytes.Equal(got, learnt(t, model, good)) {
		t.Error("the events' model differs from a learn of the good events in order")
	}
}
