package wal

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecodeRecord: the decoder takes any bytes without panicking, and
// what it accepts is exactly a record it would write.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(appendRecord(nil, 1, []byte("payload")), uint64(1))
	f.Add(appendRecord(nil, 7, nil), uint64(7))
	f.Add(appendRecord(nil, 7, []byte("x"))[:10], uint64(7))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, uint64(1))
	f.Add(make([]byte, 40), uint64(0))
	f.Fuzz(func(t *testing.T, b []byte, pos uint64) {
		payload, size, err := decodeRecord(b, pos, 1<<10)
		if err != nil {
			if payload != nil || size != 0 {
				t.Fatalf("an error (%v) with a payload of %d bytes", err, len(payload))
			}
			return
		}
		if again := appendRecord(nil, pos, payload); !bytes.Equal(again, b[:size]) {
			t.Fatalf("decoded %d bytes that re-encode differently", size)
		}
	})
}

// FuzzTornTail: whatever follows the whole records of the last segment,
// Open keeps those records, cuts or keeps the rest (only whole records
// at the next positions survive), and the log goes on; or, when the rest
// holds a whole record at its position that is longer than the limit,
// Open fails and changes nothing.
func FuzzTornTail(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3})
	f.Add(appendRecord(nil, 4, []byte("next")))
	f.Add(appendRecord(nil, 4, []byte("next"))[:20])
	f.Add(append(appendRecord(nil, 4, []byte("next")), 0, 0, 0))
	f.Add(appendRecord(nil, 5, []byte("wrong position")))
	f.Add(appendRecord(nil, 4, make([]byte, 1<<10+1)))
	f.Fuzz(func(t *testing.T, tail []byte) {
		dir := t.TempDir()
		seg := segmentHeader(0)
		for i := 1; i <= 3; i++ {
			seg = appendRecord(seg, uint64(i), payloadOf(i))
		}
		name := filepath.Join(dir, segmentName(0))
		if err := os.WriteFile(name, append(seg, tail...), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Open(dir, Options{MaxRecord: 1 << 10})
		if err != nil {
			if _, _, whole := decodeRecord(tail, 4, 1<<32); whole != nil || !strings.Contains(err.Error(), "beyond MaxRecord") {
				t.Fatal(err)
			}
			if now, _ := os.ReadFile(name); !bytes.Equal(now, append(seg, tail...)) {
				t.Fatal("a refused open changed the segment")
			}
			return
		}
		defer l.Close()
		end, _ := l.End(context.Background())
		if end < 3 {
			t.Fatalf("end %d: whole records were cut", end)
		}
		pos, err := l.Append(context.Background(), []byte("after"))
		if err != nil || pos != end+1 {
			t.Fatalf("append after open: %d %v, want %d", pos, err, end+1)
		}
		stop := context.Canceled
		n := 0
		err = l.Follow(context.Background(), 0, func(p uint64, rec []byte) error {
			n++
			if p <= 3 && !bytes.Equal(rec, payloadOf(int(p))) || p == pos && string(rec) != "after" {
				t.Fatalf("position %d: %q", p, rec)
			}
			if p == pos {
				return stop
			}
			return nil
		})
		if err != stop || n != int(pos) {
			t.Fatalf("follow: %v after %d records, want %d", err, n, pos)
		}
	})
}
