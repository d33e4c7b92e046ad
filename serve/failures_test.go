package serve

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/bogd-project/bogd/serve/wal"
)

// TestSnapshotFailureIsLoud: while snapshots fail (their directory is
// gone), /healthz answers 503 with the reason, and the server goes on
// learning; once one succeeds it is healthy again; a last snapshot that
// fails at Close is Close's error.
func TestSnapshotFailureIsLoud(t *testing.T) {
	dir := t.TempDir()
	snaps := filepath.Join(dir, "snapshots")
	os.Mkdir(snaps, 0o755)
	s := startServer(t, Options{Model: newModel(t, dir), SnapshotDir: snaps, OpenLog: FileLog(filepath.Join(dir, "log"))})
	url := serveHTTP(t, s, HTTPOptions{})
	rows := german(t)[100:]
	learn := func(i int) {
		t.Helper()
		if _, err := s.Learn(context.Background(), rows[i:i+1]); err != nil {
			t.Fatal(err)
		}
	}
	learn(0)
	os.RemoveAll(snaps)
	if err := s.snapshot(); err == nil {
		t.Fatal("a snapshot into a directory that is gone succeeded")
	}
	var h Health
	if code := call(t, "GET", url+"/healthz", "", &h); code != 503 || h.Status != "failing" || !strings.Contains(h.Error, "snapshot at position 1") || !strings.Contains(h.Error, "no such file or directory") {
		t.Errorf("/healthz while snapshots fail: %d %+v", code, h)
	}
	if n := testutil.ToFloat64(s.metrics.snapshotErrors); n != 1 {
		t.Errorf("bogd_snapshot_errors_total %v", n)
	}
	learn(1) // learning goes on, into the log
	os.Mkdir(snaps, 0o755)
	if err := s.snapshot(); err != nil {
		t.Fatal(err)
	}
	if code := call(t, "GET", url+"/healthz", "", &h); code != 200 || h.Status != "ok" || h.Version != 2 {
		t.Errorf("/healthz once a snapshot succeeded: %d %+v", code, h)
	}
	learn(2)
	os.RemoveAll(snaps)
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "snapshot at position 3") {
		t.Errorf("Close with a last snapshot that fails: %v", err)
	}
}

// TestSnapshotNameTaken: a directory holding the name of the next
// snapshot makes it take the next free name, which the next start loads.
func TestSnapshotNameTaken(t *testing.T) {
	dir := t.TempDir()
	opt := Options{Model: newModel(t, dir), OpenLog: FileLog(filepath.Join(dir, "log"))}
	s := startServer(t, opt)
	if _, err := s.Learn(context.Background(), german(t)[100:101]); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(s.snaps.path(1), 0o755)
	if err := s.Close(); err != nil {
		t.Fatalf("the snapshot with its name taken: %v", err)
	}
	want := s.snaps.nth(1, 1)
	if _, err := os.Stat(want); err != nil {
		t.Fatal(err)
	}
	var log lines
	opt.Logf = log.add
	again, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.Version() != 1 || !strings.Contains(log.String(), "loaded "+want) {
		t.Errorf("restarted at %d:\n%s", again.Version(), &log)
	}
}

// smallSegments opens a file log whose every batch of records is a
// segment of its own, so that Truncate drops exactly the records it may.
func smallSegments(dir string) func(uint64, func(time.Duration, int)) (wal.Log, error) {
	return func(base uint64, onSync func(time.Duration, int)) (wal.Log, error) {
		return wal.Open(dir, wal.Options{Base: base, OnSync: onSync, SegmentSize: 1})
	}
}

// TestCorruptSnapshot: at start, a newest snapshot that does not load is
// reported and moved aside, and the server starts from the one before it
// and learns the log after it (which truncation kept), to the model of a
// server that never stopped; when no snapshot loads it is an error. Keep
// cannot be 1.
func TestCorruptSnapshot(t *testing.T) {
	dir := t.TempDir()
	model := newModel(t, dir)
	opt := Options{Model: model, OpenLog: smallSegments(filepath.Join(dir, "log")), Keep: 2}
	s := startServer(t, opt)
	rows := german(t)[100:]
	var batches [][]Example
	for i := range 4 {
		b := rows[2*i : 2*i+2]
		if _, err := s.Learn(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		batches = append(batches, b)
		if i < 3 {
			if err := s.snapshot(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if start := s.log.(*wal.File).Start(); start != 2 {
		t.Fatalf("the log starts after %d: want it truncated to the oldest snapshot kept, 2", start)
	}
	crash(s)
	newest := s.snaps.path(3)
	data, _ := os.ReadFile(newest)
	data[len(data)/2] ^= 1
	os.WriteFile(newest, data, 0o644)

	var log lines
	opt.Logf = log.add
	again, err := New(opt)
	if err != nil {
		t.Fatalf("a corrupt newest snapshot stops the start: %v", err)
	}
	if again.Version() != 4 || testutil.ToFloat64(again.metrics.snapshotLoadErrors) != 1 ||
		!strings.Contains(log.String(), "the snapshot at position 3 does not load") || !strings.Contains(log.String(), "moved to "+newest+".bad") ||
		!strings.Contains(log.String(), "loaded "+s.snaps.path(2)+", the newest snapshot of "+model+" that loads") {
		t.Errorf("at position %d:\n%s", again.Version(), &log)
	}
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(again.snaps.path(4)); !bytes.Equal(got, learnt(t, model, batches)) {
		t.Error("the model from the snapshot before and the log differs from a server that never stopped")
	}

	for _, f := range must(again.snaps.list()) {
		os.WriteFile(f.path, []byte("not a model"), 0o644)
	}
	if _, err := New(opt); err == nil || !strings.Contains(err.Error(), "no later snapshot of it loads") {
		t.Errorf("no snapshot loads: %v", err)
	}
	opt.Keep = 1
	if _, err := New(opt); err == nil || !strings.Contains(err.Error(), "Keep must be at least 2") {
		t.Errorf("Keep 1: %v", err)
	}
}
