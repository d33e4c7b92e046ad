package serve

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus/testutil"

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

// TestForeignRecords: a message that is no learn record, published to the
// subject replicas share, is skipped (counted) instead of stopping them,
// and the model is the learn of the other records.
func TestForeignRecords(t *testing.T) {
	url := natstest.Start(t)
	dir := t.TempDir()
	model := newModel(t, dir)
	open, closeConn := jetStreamLog(t, url, "bogd.learn")
	defer closeConn()
	s := startServer(t, Options{Model: model, OpenLog: open})
	rows := german(t)[100:]
	publisher, err := open(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Learn(context.Background(), rows[:2]); err != nil {
		t.Fatal(err)
	}
	if _, err := publisher.Append(context.Background(), []byte("hello")); err != nil {
		t.Fatal(err)
	}
	out, err := s.Learn(context.Background(), rows[2:4])
	if err != nil || out.Version != 3 || s.Err() != nil {
		t.Fatalf("learn after a foreign message: %+v %v; server %v", out, err, s.Err())
	}
	if n := testutil.ToFloat64(s.metrics.skipped); n != 1 {
		t.Errorf("%v records skipped, want 1", n)
	}
	s.Close()
	if got, _ := os.ReadFile(s.snaps.path(3)); !bytes.Equal(got, learnt(t, model, [][]Example{rows[:4]})) {
		t.Error("the model is not the learn of the learn records")
	}
}
