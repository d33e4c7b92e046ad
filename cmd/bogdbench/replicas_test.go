package main

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

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/natstest"
	"github.com/bogd-project/bogd/serve"
	"github.com/bogd-project/bogd/serve/jetstream"
)

// TestServeReplicas: a JetStream server (in the test) and three `serve
// --nats` processes on loopback; 100,000 rows are learnt through 20,000
// /learn requests spread over the replicas while one of them is killed
// with SIGKILL and restarted every half second or so. At the end every
// replica is at the stream's end, and its model file is byte for byte the
// model one process learns from the stream in order.
func TestServeReplicas(t *testing.T) {
	dir := t.TempDir()
	bin := buildBench(t)
	model := trainGerman(t, dir)
	url := natstest.Start(t)
	lines := germanLines(t)
	const requests, rows = 20_000, 5

	replicas := make([]atomic.Pointer[process], 3)
	start := func(i int) *process {
		snaps := filepath.Join(dir, fmt.Sprint("replica", i))
		os.MkdirAll(snaps, 0o755)
		p := startServe(t, bin, "--model", model, "--snapshots", snaps, "--nats", url, "--snapshot-every", "200ms", "--keep", "2", "--publish-every", "5ms")
		replicas[i].Store(p)
		return p
	}
	for i := range replicas {
		start(i)
	}
	began := time.Now()
	var next, acked atomic.Int64
	var clients sync.WaitGroup
	for c := range 8 {
		clients.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 2))
			for i := next.Add(1); i <= requests; {
				p := replicas[rng.IntN(len(replicas))].Load()
				if p == nil {
					continue
				}
				k := rng.IntN(len(lines) - rows)
				var out serve.Outcome
				if code, err := tryPost(p.url+"/learn", requestOf(lines[k:k+rows], true), &out); err != nil || code != 200 {
					continue // killed under it: this request goes again, elsewhere
				}
				acked.Add(1)
				i = next.Add(1)
			}
		})
	}
	kills := 0
	done := make(chan struct{})
	go func() { clients.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-time.After(time.Duration(300+rand.IntN(500)) * time.Millisecond):
			i := rand.IntN(len(replicas))
			p := replicas[i].Swap(nil)
			p.kill()
			kills++
			start(i)
		}
	}
	t.Logf("%d requests of %d rows acknowledged through 3 replicas in %.1f s, %d kills", acked.Load(), rows, time.Since(began).Seconds(), kills)

	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	stream, err := jetstream.Open(context.Background(), nc, jetstream.Config{Stream: "BOGD", Subject: "bogd.learn.german"})
	if err != nil {
		t.Fatal(err)
	}
	end, err := stream.End(context.Background())
	if err != nil || end < requests {
		t.Fatalf("the stream ends at %d (%v), below the %d requests acknowledged", end, err, requests)
	}
	want := learnStream(t, stream, model, end)
	for i := range replicas {
		p := replicas[i].Load()
		var got serve.PredictResponse
		if code := post(t, p.url+fmt.Sprintf("/predict?at_least=%d", end), requestOf(lines[:1], false), &got); code != 200 || got.Version != end {
			t.Fatalf("replica %d: /predict at least %d: %d, version %d", i, end, code, got.Version)
		}
		p.stop(t)
		snap := filepath.Join(dir, fmt.Sprint("replica", i), fmt.Sprintf("german.snapshot-%06d.bogd", end))
		if !bytes.Equal(readFile(t, snap), want) {
			t.Errorf("replica %d: %s differs from one process's learn of the stream", i, snap)
		}
	}
}

// learnStream learns the stream's records up to position end in one
// process, from the model.
func learnStream(t *testing.T, stream *jetstream.Log, model string, end uint64) []byte {
	t.Helper()
	l, err := bogd.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	finished := errors.New("finished")
	err = stream.Follow(context.Background(), 0, func(pos uint64, data []byte) error {
		examples, err := serve.DecodeLearnRecord(data, l.Config().Dim)
		if err != nil {
			return err
		}
		for _, e := range examples {
			if _, err := l.Learn(engine.Sparse(e.Index, e.Value), e.Label); err != nil {
				return err
			}
		}
		if pos == end {
			return finished
		}
		return nil
	})
	if err != finished {
		t.Fatal(err)
	}
	return saved(t, l)
}
