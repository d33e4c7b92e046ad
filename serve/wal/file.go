package wal

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bogd-project/bogd/internal/atomicfile"
)

// Options configure a File log. The zero value is the default.
type Options struct {
	// Base is the position before the first record of a log that Open
	// creates (a directory without segments): a log that follows a
	// snapshot at position P starts at P, so positions never go back.
	Base uint64
	// SegmentSize is the size past which the next batch of records begins
	// a new segment (default 64 MiB). Truncate drops whole segments.
	SegmentSize int64
	// MaxRecord is the largest payload, in bytes (default 64 MiB): a
	// larger Append fails. A longer record in a segment that is whole and
	// checks was written under a larger MaxRecord: Open and Follow then
	// fail, naming its length, and cut nothing. A length beyond it that
	// the file cuts short, or whose record does not check, is torn.
	MaxRecord int
	// OnSync, when set, is called after every sync with how long it took
	// and how many records it made durable (for metrics). It runs on the
	// log's writer, so it must be quick.
	OnSync func(d time.Duration, records int)
}

// Torn describes the torn tail Open cut from the last segment.
type Torn struct {
	Segment string // the file
	Offset  int64  // where the first record that does not check began
	Bytes   int64  // how many bytes were cut
	Reason  error  // what did not check
}

func (t Torn) String() string {
	return fmt.Sprintf("%s: cut %d bytes at offset %d: %v", t.Segment, t.Bytes, t.Offset, t.Reason)
}

// File is a Log in a directory on the local disk (see the package doc for
// its format). One writer goroutine writes and syncs every batch of
// records waiting for it, so that concurrent appenders share one fsync.
type File struct {
	dir  string
	opt  Options
	lock *os.File
	torn *Torn

	appends chan *appendRequest
	truncs  chan truncateRequest
	quit    chan struct{} // closed by Close
	exited  chan struct{} // closed when the writer returns
	close   sync.Once

	active *os.File // the last segment, open for appending: the writer's

	mu      sync.Mutex
	segs    []segment     // ascending; the last is the active one
	changed chan struct{} // closed, and replaced, when records become durable or the log fails
	err     error         // sticky: the write or sync that failed, or ErrClosed
}

// segment is one file of a File log.
type segment struct {
	path string
	base uint64 // the position before its first record
	last uint64 // the position of its last durable record (base: none)
	size int64  // its durable bytes; -1 for the segments before the active one, read to their end
}

type appendRequest struct {
	record []byte
	done   chan appendResult // buffered: the writer never waits
}

type appendResult struct {
	pos uint64
	err error
}

type truncateRequest struct {
	upTo uint64
	done chan error
}

// Defaults of Options.
const (
	defaultSegmentSize = 64 << 20
	defaultMaxRecord   = 64 << 20
	// maxBatch bounds the records of one write and sync.
	maxBatch = 4096
)

// segmentName is the file name of the segment after position base.
func segmentName(base uint64) string { return fmt.Sprintf("%020d.wal", base) }

// Open opens the log in dir, creating dir and an empty log (at
// opt.Base) when there is none. It cuts a torn tail from the last segment
// (see Torn) and keeps other processes out of dir until Close.
func Open(dir string, opt Options) (*File, error) {
	if opt.SegmentSize <= 0 {
		opt.SegmentSize = defaultSegmentSize
	}
	if opt.MaxRecord <= 0 {
		opt.MaxRecord = defaultMaxRecord
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open the log: %w", err)
	}
	lock, err := lockDir(filepath.Join(dir, "LOCK"))
	if err != nil {
		return nil, fmt.Errorf("open the log in %s: %w", dir, err)
	}
	f := &File{
		dir: dir, opt: opt, lock: lock,
		appends: make(chan *appendRequest, maxBatch), truncs: make(chan truncateRequest),
		quit: make(chan struct{}), exited: make(chan struct{}), changed: make(chan struct{}),
	}
	if err := f.load(); err != nil {
		lock.Close()
		return nil, fmt.Errorf("open the log in %s: %w", dir, err)
	}
	go f.write()
	return f, nil
}

// load finds the segments, checks their headers, and scans the last one
// to its last record that checks, cutting what follows.
func (f *File) load() error {
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") && strings.Contains(name, ".wal.tmp-") {
			// A segment being created when a crash came (atomicfile's
			// temporary file): it was never part of the log.
			if err := os.Remove(filepath.Join(f.dir, name)); err != nil {
				return err
			}
			continue
		}
		digits, ok := strings.CutSuffix(name, ".wal")
		if !ok || len(digits) != 20 {
			continue
		}
		base, err := strconv.ParseUint(digits, 10, 64)
		if err != nil {
			continue
		}
		f.segs = append(f.segs, segment{path: filepath.Join(f.dir, name), base: base, last: base, size: -1})
	}
	if len(f.segs) == 0 {
		return f.create(f.opt.Base)
	}
	slices.SortFunc(f.segs, func(a, b segment) int { return cmpUint(a.base, b.base) })
	for i := range f.segs[:len(f.segs)-1] {
		if err := checkHeaderOf(f.segs[i]); err != nil {
			return err
		}
		f.segs[i].last = f.segs[i+1].base
	}
	last := &f.segs[len(f.segs)-1]
	file, err := os.OpenFile(last.path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	r := newSegmentReader(file, last.base, f.opt.MaxRecord)
	if err := r.header(); err != nil {
		file.Close()
		return fmt.Errorf("%s: %w", last.path, err)
	}
	if err := r.read(-1, func(uint64, []byte) error { return nil }); err != nil {
		var bad *recordError
		if !errors.As(err, &bad) {
			file.Close()
			return err
		}
		end, err := file.Seek(0, io.SeekEnd)
		if err == nil {
			err = file.Truncate(bad.offset)
		}
		if err == nil {
			err = file.Sync()
		}
		if err != nil {
			file.Close()
			return fmt.Errorf("cut the torn tail of %s: %w", last.path, err)
		}
		f.torn = &Torn{Segment: last.path, Offset: bad.offset, Bytes: end - bad.offset, Reason: bad.err}
	}
	last.last, last.size = r.next-1, r.off
	if _, err := file.Seek(r.off, io.SeekStart); err != nil {
		file.Close()
		return err
	}
	f.active = file
	return nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func checkHeaderOf(s segment) error {
	file, err := os.Open(s.path)
	if err != nil {
		return err
	}
	defer file.Close()
	if err := newSegmentReader(file, s.base, 0).header(); err != nil {
		return fmt.Errorf("%s: %w", s.path, err)
	}
	return nil
}

// create begins a new, empty segment after position base and makes it the
// active one. The segment appears whole or not at all (a crash leaves at
// most a temporary file, which Open removes).
func (f *File) create(base uint64) error {
	path := filepath.Join(f.dir, segmentName(base))
	if err := atomicfile.Write(path, segmentHeader(base), atomicfile.Options{NoClobber: true}); err != nil {
		return err
	}
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if f.active != nil {
		f.active.Close()
	}
	f.active = file
	f.mu.Lock()
	f.segs = append(f.segs, segment{path: path, base: base, last: base, size: segmentHeaderSize})
	f.mu.Unlock()
	return nil
}

// Torn returns what Open cut from the last segment, nil when its tail
// was whole.
func (f *File) Torn() *Torn { return f.torn }

// Dir returns the log's directory.
func (f *File) Dir() string { return f.dir }

// Append writes record and returns its position once it is durable.
func (f *File) Append(ctx context.Context, record []byte) (uint64, error) {
	if len(record) > f.opt.MaxRecord {
		return 0, fmt.Errorf("append a record of %d bytes: the log takes at most %d", len(record), f.opt.MaxRecord)
	}
	r := &appendRequest{record: record, done: make(chan appendResult, 1)}
	select {
	case f.appends <- r:
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-f.quit:
		return 0, ErrClosed
	}
	select {
	case res := <-r.done:
		return res.pos, res.err
	case <-f.exited:
		select { // the writer may have answered before it returned
		case res := <-r.done:
			return res.pos, res.err
		default:
			return 0, ErrClosed
		}
	}
}

// keptBuffer is the largest buffer of a batch the writer keeps for the
// next one.
const keptBuffer = 1 << 20

// write is the writer goroutine: it commits the appends waiting
// together in one write and one sync, and truncates between batches.
func (f *File) write() {
	defer close(f.exited)
	batch := make([]*appendRequest, 0, maxBatch)
	var buf []byte
	for {
		select {
		case r := <-f.appends:
			batch = append(batch[:0], r)
		more:
			for len(batch) < maxBatch {
				select {
				case r := <-f.appends:
					batch = append(batch, r)
				default:
					break more
				}
			}
			if buf = f.commit(batch, buf[:0]); cap(buf) > keptBuffer {
				buf = nil // a burst of large records does not keep its memory
			}
			clear(batch)
		case t := <-f.truncs:
			t.done <- f.truncate(t.upTo)
		case <-f.quit:
			return
		}
	}
}

// commit makes a batch durable and answers its appenders. A failure is
// sticky: after a failed write or sync what the file holds is unknown,
// so the log takes nothing more until it is opened again.
func (f *File) commit(batch []*appendRequest, buf []byte) []byte {
	err := f.failure()
	seg := f.segs[len(f.segs)-1] // the writer alone changes segs
	if err == nil && seg.size >= f.opt.SegmentSize && seg.last > seg.base {
		if err = f.create(seg.last); err == nil {
			seg = f.segs[len(f.segs)-1]
		}
	}
	if err == nil {
		for i, r := range batch {
			buf = appendRecord(buf, seg.last+1+uint64(i), r.record)
		}
		if _, err = f.active.Write(buf); err == nil {
			start := time.Now()
			if err = f.active.Sync(); err == nil && f.opt.OnSync != nil {
				f.opt.OnSync(time.Since(start), len(batch))
			}
		}
		if err != nil {
			err = fmt.Errorf("append to %s: %w", seg.path, err)
		}
	}
	if err != nil {
		f.fail(err)
		for _, r := range batch {
			r.done <- appendResult{err: err}
		}
		return buf
	}
	f.mu.Lock()
	active := &f.segs[len(f.segs)-1]
	active.last += uint64(len(batch))
	active.size += int64(len(buf))
	f.notify()
	f.mu.Unlock()
	for i, r := range batch {
		r.done <- appendResult{pos: seg.last + 1 + uint64(i)}
	}
	return buf
}

// notify wakes the followers; f.mu is held.
func (f *File) notify() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// fail makes err the log's sticky error, unless it has one.
func (f *File) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
		f.notify()
	}
}

func (f *File) failure() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// Truncate removes the segments whose records are all at or before upTo,
// first closing the active segment when it holds any of them (a new one
// begins): a snapshot every so often keeps the log to about the records
// since the snapshot it truncates at, and after a snapshot at the log's
// end the log holds no record.
func (f *File) Truncate(upTo uint64) error {
	t := truncateRequest{upTo: upTo, done: make(chan error, 1)}
	select {
	case f.truncs <- t:
		return <-t.done
	case <-f.quit:
		return ErrClosed
	}
}

func (f *File) truncate(upTo uint64) error {
	if err := f.failure(); err != nil {
		return err
	}
	if active := f.segs[len(f.segs)-1]; active.last > active.base && active.base < upTo {
		if err := f.create(active.last); err != nil {
			err = fmt.Errorf("truncate the log: %w", err)
			f.fail(err)
			return err
		}
	}
	f.mu.Lock()
	n := 0
	for n < len(f.segs)-1 && f.segs[n].last <= upTo {
		n++
	}
	gone := f.segs[:n]
	f.segs = slices.Clone(f.segs[n:])
	f.mu.Unlock()
	var errs []error
	for _, s := range gone {
		if err := os.Remove(s.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if len(gone) > 0 {
		errs = append(errs, syncDir(f.dir))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("truncate the log: %w", err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// End returns the position of the last durable record.
func (f *File) End(context.Context) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.segs[len(f.segs)-1].last, f.err
}

// Start returns the position before the oldest record the log holds.
func (f *File) Start() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.segs[0].base
}

// Close stops the writer (appends waiting for it fail with ErrClosed),
// wakes the followers, closes the files and releases the directory.
func (f *File) Close() error {
	var err error
	f.close.Do(func() {
		close(f.quit)
		<-f.exited
		f.fail(ErrClosed)
		err = errors.Join(f.active.Close(), f.lock.Close())
	})
	return err
}

// Follow reads the records after position after from the segments, up to
// what is durable, then waits for more.
func (f *File) Follow(ctx context.Context, after uint64, apply func(pos uint64, record []byte) error) error {
	var r *segmentReader
	defer func() {
		if r != nil {
			r.file.Close()
		}
	}()
	pos := after
	for {
		f.mu.Lock()
		first, end, failed, changed := f.segs[0].base, f.segs[len(f.segs)-1].last, f.err, f.changed
		i := slices.IndexFunc(f.segs, func(s segment) bool { return s.last > pos })
		var seg segment
		if i >= 0 {
			seg = f.segs[i]
		}
		active := i == len(f.segs)-1
		f.mu.Unlock()
		switch {
		case pos < first:
			return fmt.Errorf("follow the log after position %d: it starts after %d: %w", pos, first, ErrTruncated)
		case pos > end:
			return fmt.Errorf("follow the log after position %d: it ends at %d", pos, end)
		case i < 0 && failed != nil:
			return failed
		case i < 0:
			select {
			case <-changed:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if r == nil || r.base != seg.base {
			if r != nil {
				r.file.Close()
				r = nil
			}
			file, err := os.Open(seg.path)
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("follow the log after position %d: %s: %w", pos, seg.path, ErrTruncated)
			} else if err != nil {
				return err
			}
			r = newSegmentReader(file, seg.base, f.opt.MaxRecord)
			if err := r.header(); err != nil {
				return fmt.Errorf("%s: %w: %w", seg.path, ErrCorrupt, err)
			}
		}
		limit := int64(-1)
		if active {
			limit = seg.size
		}
		err := r.read(limit, func(p uint64, payload []byte) error {
			if p <= pos {
				return nil
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			pos = p
			return apply(p, payload)
		})
		var bad *recordError
		if errors.As(err, &bad) {
			return fmt.Errorf("%s: %w at offset %d: %w", seg.path, ErrCorrupt, bad.offset, bad.err)
		} else if err != nil {
			return err
		}
		if !active && r.next-1 != seg.last {
			return fmt.Errorf("%s: %w: it ends at position %d, the next segment starts after %d", seg.path, ErrCorrupt, r.next-1, seg.last)
		}
	}
}

// segmentReader reads the records of one segment file in order.
type segmentReader struct {
	file *os.File
	base uint64
	off  int64  // of the next record
	next uint64 // its position
	max  int
	buf  []byte
}

func newSegmentReader(file *os.File, base uint64, maxRecord int) *segmentReader {
	return &segmentReader{file: file, base: base, next: base + 1, max: maxRecord}
}

// recordError is a record that does not check, at offset.
type recordError struct {
	offset int64
	err    error
}

func (e *recordError) Error() string { return fmt.Sprintf("offset %d: %v", e.offset, e.err) }

// header checks the segment's header and puts the reader after it.
func (r *segmentReader) header() error {
	h := make([]byte, segmentHeaderSize)
	n, err := r.file.ReadAt(h, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if err := checkSegmentHeader(h[:n], r.base); err != nil {
		return err
	}
	r.off = segmentHeaderSize
	return nil
}

// wholeRecord reports whether the record at the reader's offset, of
// payload length n, lies whole before end (-1: the end of the file), is at
// its position and checks. Its payload is streamed through the checksum,
// not held: its length is beyond the limit.
func (r *segmentReader) wholeRecord(end int64) (n int64, whole bool, err error) {
	h := make([]byte, recordHeaderSize)
	if _, err := r.file.ReadAt(h, r.off); err != nil {
		return 0, false, err
	}
	n = int64(le.Uint32(h))
	if end < 0 {
		info, err := r.file.Stat()
		if err != nil {
			return 0, false, err
		}
		end = info.Size()
	}
	if r.off+recordHeaderSize+n > end || le.Uint64(h[8:]) != r.next {
		return n, false, nil
	}
	sum := crc32.New(castagnoli)
	sum.Write(h[:4])
	sum.Write(h[8:])
	if _, err := io.Copy(sum, io.NewSectionReader(r.file, r.off+recordHeaderSize, n)); err != nil {
		return 0, false, err
	}
	return n, sum.Sum32() == le.Uint32(h[4:]), nil
}

// readChunk is how much read asks of the file at once, unless a record
// is larger.
const readChunk = 1 << 20

// read passes the records from the reader's offset up to end (-1: the
// end of the file) to deliver, in order. A record that does not check,
// or that end or the file's end cuts, is a *recordError; a whole record
// that checks but is longer than the limit is another error (see
// Options.MaxRecord).
func (r *segmentReader) read(end int64, deliver func(pos uint64, payload []byte) error) error {
	for end < 0 || r.off < end {
		want := max(readChunk, len(r.buf))
		if end >= 0 {
			want = int(min(int64(want), end-r.off))
		}
		if cap(r.buf) < want {
			r.buf = make([]byte, want)
		}
		n, err := r.file.ReadAt(r.buf[:want], r.off)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if n == 0 {
			if end >= 0 { // the file is shorter than its durable bytes
				return &recordError{r.off, errShort}
			}
			return nil
		}
		// Past the bytes read there is nothing more to read: a record
		// they cut is cut for good.
		last := n < want || (end >= 0 && r.off+int64(n) == end)
		data, used := r.buf[:n], 0
		for used < n {
			payload, size, err := decodeRecord(data[used:], r.next, r.max)
			if errors.Is(err, errShort) && !last {
				break
			}
			if errors.Is(err, errTooLong) {
				if n, whole, err := r.wholeRecord(end); err != nil {
					return err
				} else if whole {
					return fmt.Errorf("%s: offset %d: a record of %d bytes, beyond MaxRecord (%d): it was written under a larger one, which reading it needs", r.file.Name(), r.off, n, r.max)
				}
			}
			if err != nil {
				return &recordError{r.off, err}
			}
			if err := deliver(r.next, payload); err != nil {
				return err
			}
			used += size
			r.off += int64(size)
			r.next++
		}
		if used == 0 { // one record larger than the chunk: read it whole
			r.buf = make([]byte, recordHeaderSize+int(le.Uint32(data)))
		}
	}
	return nil
}
