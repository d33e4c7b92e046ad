package wal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func open(t testing.TB, dir string, opt Options) *File {
	t.Helper()
	f, err := Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func payloadOf(i int) []byte { return fmt.Appendf(nil, "record %d %s", i, strings.Repeat("x", i%37)) }

// collect follows f after position after until it has n records.
func collect(t *testing.T, f *File, after uint64, n int) map[uint64][]byte {
	t.Helper()
	got := make(map[uint64][]byte)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	next := after + 1
	done := errors.New("done")
	err := f.Follow(ctx, after, func(pos uint64, rec []byte) error {
		if pos != next {
			return fmt.Errorf("position %d, want %d", pos, next)
		}
		next++
		got[pos] = bytes.Clone(rec)
		if len(got) == n {
			return done
		}
		return nil
	})
	if n > 0 && err != done {
		t.Fatalf("follow after %d: %v (%d records of %d)", after, err, len(got), n)
	}
	return got
}

// TestConcurrentAppends: concurrent appenders get every position once,
// share syncs, and a follower reads each record at its position.
func TestConcurrentAppends(t *testing.T) {
	var syncs, synced atomic.Int64
	f := open(t, t.TempDir(), Options{OnSync: func(_ time.Duration, n int) { syncs.Add(1); synced.Add(int64(n)) }})
	const writers, each = 64, 20
	var mu sync.Mutex
	want := make(map[uint64][]byte)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				rec := payloadOf(w*each + i)
				pos, err := f.Append(context.Background(), rec)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if _, dup := want[pos]; dup {
					t.Errorf("position %d given twice", pos)
				}
				want[pos] = rec
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if end, err := f.End(context.Background()); end != writers*each || err != nil {
		t.Fatalf("End %d (%v), want %d", end, err, writers*each)
	}
	got := collect(t, f, 0, writers*each)
	for pos, rec := range want {
		if !bytes.Equal(got[pos], rec) {
			t.Fatalf("position %d: %q, appended %q", pos, got[pos], rec)
		}
	}
	if synced.Load() != writers*each || syncs.Load() > writers*each/2 {
		t.Errorf("%d syncs made %d records durable: want all %d, by at most half as many syncs (group commit)", syncs.Load(), synced.Load(), writers*each)
	}
	t.Logf("%d appends, %d syncs", writers*each, syncs.Load())
}

// TestFollowWaits: a follower at the end gets records appended later, and
// returns when its context ends.
func TestFollowWaits(t *testing.T) {
	f := open(t, t.TempDir(), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan uint64, 10)
	followed := make(chan error, 1)
	go func() {
		followed <- f.Follow(ctx, 0, func(pos uint64, rec []byte) error {
			if string(rec) != string(payloadOf(int(pos))) {
				return fmt.Errorf("position %d: %q", pos, rec)
			}
			got <- pos
			return nil
		})
	}()
	for i := 1; i <= 3; i++ {
		if _, err := f.Append(context.Background(), payloadOf(i)); err != nil {
			t.Fatal(err)
		}
		select {
		case pos := <-got:
			if pos != uint64(i) {
				t.Fatalf("followed %d, want %d", pos, i)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("record %d not followed", i)
		}
	}
	cancel()
	if err := <-followed; !errors.Is(err, context.Canceled) {
		t.Fatalf("Follow after cancel: %v", err)
	}
}

// TestReopen: a log opened again ends where it ended, holds the same
// records, and goes on from there; a log created after a snapshot starts
// at its position.
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	f := open(t, dir, Options{Base: 100})
	for i := 101; i <= 110; i++ {
		if pos, err := f.Append(context.Background(), payloadOf(i)); pos != uint64(i) || err != nil {
			t.Fatalf("append: %d %v, want %d", pos, err, i)
		}
	}
	if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "another process") {
		t.Errorf("a second Open of the same log: %v", err)
	}
	f.Close()
	if _, err := f.Append(context.Background(), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close: %v", err)
	}
	f = open(t, dir, Options{Base: 7}) // Base is for a new log only
	if end, _ := f.End(context.Background()); end != 110 || f.Torn() != nil {
		t.Fatalf("reopened: end %d, torn %v", end, f.Torn())
	}
	got := collect(t, f, 104, 6)
	for i := 105; i <= 110; i++ {
		if !bytes.Equal(got[uint64(i)], payloadOf(i)) {
			t.Fatalf("position %d: %q", i, got[uint64(i)])
		}
	}
	if pos, err := f.Append(context.Background(), payloadOf(111)); pos != 111 || err != nil {
		t.Fatalf("append after reopen: %d %v", pos, err)
	}
	if err := f.Follow(context.Background(), 200, nil); err == nil || !strings.Contains(err.Error(), "it ends at 111") {
		t.Errorf("follow beyond the end: %v", err)
	}
}

// appendN appends records first..last (positions and payloads agree).
func appendN(t *testing.T, f *File, first, last int) {
	t.Helper()
	for i := first; i <= last; i++ {
		if pos, err := f.Append(context.Background(), payloadOf(i)); pos != uint64(i) || err != nil {
			t.Fatalf("append %d: %d %v", i, pos, err)
		}
	}
}

func onlySegment(t *testing.T, dir string) string {
	t.Helper()
	segs, _ := filepath.Glob(filepath.Join(dir, "*.wal"))
	if len(segs) != 1 {
		t.Fatalf("segments %v, want one", segs)
	}
	return segs[0]
}

// TestTornTail: whatever a crash leaves after the last whole record is
// cut at Open, reported, and never replayed; the log goes on from the
// last whole record.
func TestTornTail(t *testing.T) {
	whole := recordHeaderSize + len(payloadOf(5))
	for _, c := range []struct {
		name string
		tear func(b []byte) []byte // of the segment
		keep int                   // records left
	}{
		{"cut in the last record's payload", func(b []byte) []byte { return b[:len(b)-3] }, 4},
		{"cut in the last record's header", func(b []byte) []byte { return b[:len(b)-whole+5] }, 4},
		{"a byte of the last record flipped", func(b []byte) []byte { b[len(b)-2] ^= 1; return b }, 4},
		{"its length flipped", func(b []byte) []byte { b[len(b)-whole] ^= 0x40; return b }, 4},
		{"a length beyond the limit", func(b []byte) []byte {
			return append(b, append([]byte{0xff, 0xff, 0xff, 0x7f}, make([]byte, 40)...)...)
		}, 5},
		{"zeros after the records", func(b []byte) []byte { return append(b, make([]byte, 100)...) }, 5},
		{"a whole record at the wrong position", func(b []byte) []byte { return appendRecord(b, 9, payloadOf(9)) }, 5},
		{"a middle record flipped", func(b []byte) []byte { b[len(b)-whole-3] ^= 1; return b }, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			f := open(t, dir, Options{})
			appendN(t, f, 1, 5)
			f.Close()
			seg := onlySegment(t, dir)
			data, err := os.ReadFile(seg)
			if err != nil {
				t.Fatal(err)
			}
			torn := c.tear(bytes.Clone(data))
			if err := os.WriteFile(seg, torn, 0o644); err != nil {
				t.Fatal(err)
			}
			f = open(t, dir, Options{MaxRecord: 1 << 20})
			end, _ := f.End(context.Background())
			if end != uint64(c.keep) || f.Torn() == nil || f.Torn().Segment != seg {
				t.Fatalf("end %d, torn %v: want end %d and the cut reported", end, f.Torn(), c.keep)
			}
			t.Log(f.Torn())
			if fi, _ := os.Stat(seg); fi.Size() != f.Torn().Offset || f.Torn().Bytes != int64(len(torn))-f.Torn().Offset {
				t.Errorf("the segment is %d bytes; the cut %+v", fi.Size(), f.Torn())
			}
			appendN(t, f, c.keep+1, c.keep+2)
			got := collect(t, f, 0, c.keep+2)
			for i := 1; i <= c.keep+2; i++ {
				if !bytes.Equal(got[uint64(i)], payloadOf(i)) {
					t.Fatalf("position %d: %q", i, got[uint64(i)])
				}
			}
		})
	}
}

// TestTruncate: Truncate drops the segments a snapshot holds, closing the
// active one when all its records are held, and positions never go back.
func TestTruncate(t *testing.T) {
	dir := t.TempDir()
	f := open(t, dir, Options{SegmentSize: 200})
	appendN(t, f, 1, 20)
	segs, _ := filepath.Glob(filepath.Join(dir, "*.wal"))
	if len(segs) < 4 {
		t.Fatalf("%d segments of 200 bytes for 20 records", len(segs))
	}
	if err := f.Truncate(12); err != nil {
		t.Fatal(err)
	}
	if start := f.Start(); start > 12 || start < 8 {
		t.Errorf("after Truncate(12) the log starts after %d", start)
	}
	if err := f.Follow(context.Background(), 3, nil); !errors.Is(err, ErrTruncated) {
		t.Errorf("follow truncated records: %v", err)
	}
	got := collect(t, f, 12, 8)
	if !bytes.Equal(got[20], payloadOf(20)) {
		t.Errorf("position 20: %q", got[20])
	}
	if err := f.Truncate(20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	seg := onlySegment(t, dir)
	if filepath.Base(seg) != segmentName(20) {
		t.Errorf("after Truncate at the end: %s", seg)
	}
	f = open(t, dir, Options{})
	if end, _ := f.End(context.Background()); end != 20 || f.Start() != 20 {
		t.Fatalf("reopened after truncation: start %d end %d, want 20 20", f.Start(), end)
	}
	appendN(t, f, 21, 21)
}

// TestCorruptSegment: a record that does not check in a segment before the
// last is corruption, named with the file and offset, not a torn tail.
func TestCorruptSegment(t *testing.T) {
	dir := t.TempDir()
	f := open(t, dir, Options{SegmentSize: 200})
	appendN(t, f, 1, 20)
	f.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, "*.wal"))
	data, _ := os.ReadFile(segs[1])
	data[segmentHeaderSize+recordHeaderSize] ^= 1
	os.WriteFile(segs[1], data, 0o644)
	f = open(t, dir, Options{})
	err := f.Follow(context.Background(), 0, func(uint64, []byte) error { return nil })
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), segs[1]+": the log is corrupt at offset 24: the record's checksum does not match") {
		t.Errorf("follow over a corrupt segment: %v", err)
	}
	f.Close()
	os.WriteFile(segs[1], []byte("not a segment"), 0o644)
	if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("open with a bad header: %v", err)
	}
}

// TestLargeRecords: records beyond the read chunk, and the limit.
func TestLargeRecords(t *testing.T) {
	dir := t.TempDir()
	f := open(t, dir, Options{MaxRecord: 3 * readChunk})
	big := bytes.Repeat([]byte("0123456789"), readChunk/4)
	for i := range 3 {
		if _, err := f.Append(context.Background(), big[i:]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.Append(context.Background(), make([]byte, 3*readChunk+1)); err == nil {
		t.Error("a record beyond MaxRecord was taken")
	}
	f.Close()
	f = open(t, dir, Options{MaxRecord: 3 * readChunk})
	got := collect(t, f, 0, 3)
	for i := range 3 {
		if !bytes.Equal(got[uint64(i+1)], big[i:]) {
			t.Fatalf("record %d: %d bytes, want %d", i+1, len(got[uint64(i+1)]), len(big[i:]))
		}
	}
	f.Close()

	// Under a smaller limit the records are whole and check: not a torn
	// tail. Open fails, naming the length, and cuts nothing.
	seg := filepath.Join(dir, segmentName(0))
	before, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	refused, err := Open(dir, Options{MaxRecord: readChunk})
	if err == nil {
		refused.Close()
	}
	want := fmt.Sprintf("%s: offset %d: a record of %d bytes, beyond MaxRecord (%d)", seg, segmentHeaderSize, len(big), readChunk)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("open under a smaller MaxRecord: %v, want %q", err, want)
	}
	if after, _ := os.ReadFile(seg); !bytes.Equal(after, before) {
		t.Errorf("open under a smaller MaxRecord changed the segment: %d bytes, were %d", len(after), len(before))
	}
	f = open(t, dir, Options{MaxRecord: 3 * readChunk})
	if got := collect(t, f, 0, 3); !bytes.Equal(got[3], big[2:]) {
		t.Errorf("record 3 after the refused open: %d bytes, want %d", len(got[3]), len(big[2:]))
	}
	f.Close()

	// A long record the file cuts short, or one that does not check, is
	// torn: Open cuts it under any limit.
	dir = t.TempDir()
	f = open(t, dir, Options{})
	for i := 1; i <= 3; i++ {
		if _, err := f.Append(context.Background(), payloadOf(i)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	seg = filepath.Join(dir, segmentName(0))
	if before, err = os.ReadFile(seg); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		tail []byte
	}{
		{"cut short", appendRecord(nil, 4, big)[:recordHeaderSize+len(big)/2]},
		{"not checking", func() []byte { r := appendRecord(nil, 4, big); r[len(r)-1] ^= 1; return r }()},
		{"at another position", appendRecord(nil, 5, big)},
	} {
		if err := os.WriteFile(seg, append(slices.Clone(before), c.tail...), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(dir, Options{MaxRecord: readChunk})
		if err != nil {
			t.Errorf("%s: open: %v", c.name, err)
			continue
		}
		if torn := f.Torn(); torn == nil || torn.Bytes != int64(len(c.tail)) {
			t.Errorf("%s: torn %+v, want %d bytes", c.name, torn, len(c.tail))
		}
		f.Close()
	}
}

// TestCloseWakesFollowers: Close ends a waiting Follow with ErrClosed.
func TestCloseWakesFollowers(t *testing.T) {
	f := open(t, t.TempDir(), Options{})
	followed := make(chan error, 1)
	go func() { followed <- f.Follow(context.Background(), 0, nil) }()
	time.Sleep(10 * time.Millisecond)
	f.Close()
	select {
	case err := <-followed:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Follow after Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end Follow")
	}
}

// BenchmarkAppend: durable appends per second from 1, 8 and 64
// concurrent appenders of 200-byte records (a /learn of a few rows), on
// the disk of the test's temporary directory.
func BenchmarkAppend(b *testing.B) {
	for _, clients := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			var syncs atomic.Int64
			f := open(b, b.TempDir(), Options{OnSync: func(time.Duration, int) { syncs.Add(1) }})
			rec := bytes.Repeat([]byte{1}, 200)
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range clients {
				wg.Go(func() {
					for next.Add(1) <= int64(b.N) {
						if _, err := f.Append(context.Background(), rec); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "appends/s")
			b.ReportMetric(float64(b.N)/float64(syncs.Load()), "appends/sync")
		})
	}
}
