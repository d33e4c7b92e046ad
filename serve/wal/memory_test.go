package wal

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestMemory: positions follow the base; the follower gets every record
// in order, later ones included; Close ends it once it has them all.
func TestMemory(t *testing.T) {
	m := NewMemory(41)
	for i := 42; i <= 44; i++ {
		if pos, err := m.Append(context.Background(), payloadOf(i)); pos != uint64(i) || err != nil {
			t.Fatalf("append: %d %v, want %d", pos, err, i)
		}
	}
	got := make(chan uint64, 10)
	followed := make(chan error, 1)
	go func() {
		followed <- m.Follow(context.Background(), 41, func(pos uint64, rec []byte) error {
			if string(rec) != string(payloadOf(int(pos))) {
				t.Errorf("position %d: %q", pos, rec)
			}
			got <- pos
			return nil
		})
	}()
	m.Append(context.Background(), payloadOf(45))
	for want := uint64(42); want <= 45; want++ {
		select {
		case pos := <-got:
			if pos != want {
				t.Fatalf("followed %d, want %d", pos, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("position %d not followed", want)
		}
	}
	m.Close()
	if err := <-followed; !errors.Is(err, ErrClosed) {
		t.Errorf("Follow after Close: %v", err)
	}
	if err := m.Follow(context.Background(), 41, nil); !errors.Is(err, ErrTruncated) {
		t.Errorf("records already followed: %v", err)
	}
	if end, _ := m.End(context.Background()); end != 45 {
		t.Errorf("End %d, want 45", end)
	}
}
