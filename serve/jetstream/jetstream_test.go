package jetstream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/bogd-project/bogd/internal/natstest"
	"github.com/bogd-project/bogd/serve/wal"
)

func connect(t *testing.T, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func openLog(t *testing.T, nc *nats.Conn) *Log {
	t.Helper()
	l, err := Open(context.Background(), nc, Config{Stream: "LEARN", Subject: "bogd.learn"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// follow collects n records after position after.
func follow(t *testing.T, l *Log, after uint64, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got []string
	enough := errors.New("enough")
	err := l.Follow(ctx, after, func(pos uint64, rec []byte) error {
		if want := after + uint64(len(got)) + 1; pos != want {
			return fmt.Errorf("position %d, want %d", pos, want)
		}
		got = append(got, string(rec))
		if len(got) == n {
			return enough
		}
		return nil
	})
	if err != enough {
		t.Fatalf("follow after %d: %v after %d records", after, err, len(got))
	}
	return got
}

// TestSharedStream: appenders on two connections (two replicas) get every
// sequence once; followers on each read the same records in the same
// order, from any position.
func TestSharedStream(t *testing.T) {
	url := natstest.Start(t)
	a, b := openLog(t, connect(t, url)), openLog(t, connect(t, url))
	const each = 200
	appended := make([]string, 2*each+1)
	var wg sync.WaitGroup
	for r, l := range []*Log{a, b} {
		wg.Go(func() {
			for i := range each {
				rec := fmt.Sprintf("replica %d record %d", r, i)
				pos, err := l.Append(context.Background(), []byte(rec))
				if err != nil {
					t.Error(err)
					return
				}
				appended[pos] = rec
			}
		})
	}
	wg.Wait()
	if end, err := a.End(context.Background()); end != 2*each || err != nil {
		t.Fatalf("End %d %v, want %d", end, err, 2*each)
	}
	fromA, fromB := follow(t, a, 0, 2*each), follow(t, b, 150, 2*each-150)
	for i, rec := range fromA {
		if rec != appended[i+1] || i >= 150 && fromB[i-150] != rec {
			t.Fatalf("position %d: %q and %q, appended %q", i+1, rec, fromB[max(0, i-150)], appended[i+1])
		}
	}
}

// TestFollowLive: a follower at the end gets what another replica appends
// later; Close ends it.
func TestFollowLive(t *testing.T) {
	url := natstest.Start(t)
	a, b := openLog(t, connect(t, url)), openLog(t, connect(t, url))
	got := make(chan string, 10)
	followed := make(chan error, 1)
	go func() {
		followed <- a.Follow(context.Background(), 0, func(pos uint64, rec []byte) error {
			got <- fmt.Sprintf("%d %s", pos, rec)
			return nil
		})
	}()
	for i := 1; i <= 3; i++ {
		if _, err := b.Append(context.Background(), fmt.Appendf(nil, "r%d", i)); err != nil {
			t.Fatal(err)
		}
		select {
		case s := <-got:
			if s != fmt.Sprintf("%d r%d", i, i) {
				t.Fatalf("followed %q", s)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("record %d not followed", i)
		}
	}
	a.Close()
	select {
	case err := <-followed:
		if !errors.Is(err, wal.ErrClosed) {
			t.Errorf("Follow after Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end Follow")
	}
}

// TestTruncatedStream: a follower behind the stream's first message fails
// with wal.ErrTruncated instead of skipping records.
func TestTruncatedStream(t *testing.T) {
	url := natstest.Start(t)
	nc := connect(t, url)
	l := openLog(t, nc)
	for i := range 10 {
		if _, err := l.Append(context.Background(), fmt.Appendf(nil, "r%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	js, _ := jetstream.New(nc)
	s, _ := js.Stream(context.Background(), "LEARN")
	if err := s.Purge(context.Background(), jetstream.WithPurgeSequence(6)); err != nil {
		t.Fatal(err)
	}
	if err := l.Follow(context.Background(), 3, nil); !errors.Is(err, wal.ErrTruncated) {
		t.Fatalf("follow after 3 with the stream from 6: %v", err)
	}
	if got := follow(t, l, 5, 5); got[0] != "r5" {
		t.Fatalf("follow after 5: %q", got)
	}
}
