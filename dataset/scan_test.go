package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/task"
)

// endless is an endless LIBSVM stream: "+1 1:1 3:0.5\n-1 2:2\n" forever.
type endless struct{ at int }

func (e *endless) Read(p []byte) (int, error) {
	const text = "+1 1:1 3:0.5\n-1 2:2\n"
	for i := range p {
		p[i] = text[e.at%len(text)]
		e.at++
	}
	return len(p), nil
}

// heapInUse returns the bytes of live heap after a collection.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestScannerConstantMemory: a Scanner reads an endless stream in memory
// that does not grow with the rows read.
func TestScannerConstantMemory(t *testing.T) {
	s, err := NewScanner(&endless{}, "endless", Options{Task: task.Binary})
	if err != nil {
		t.Fatal(err)
	}
	count := func(n int) {
		for range n {
			if !s.Scan() {
				t.Fatal(s.Err())
			}
		}
	}
	count(1000)
	before := heapInUse()
	count(300_000)
	if after := heapInUse(); after > before+(1<<20) {
		t.Errorf("the heap grew from %d to %d bytes over 300,000 rows", before, after)
	}
	if y, idx, val := s.Row(); y != -1 || !slices.Equal(idx, []int32{1}) || !slices.Equal(val, []float32{2}) {
		t.Errorf("row %d: %v %v %v", s.Rows(), y, idx, val)
	}
}

// TestScannerAgreesWithRead: a Scanner gives Read's rows, labels (0/1
// mapped with Binary) and errors, at the same lines.
func TestScannerAgreesWithRead(t *testing.T) {
	inputs := []string{
		"1 1:1 3:2\n\n# comment\n0 2:0.5\n1\n",
		"-1 1:1\n+1 4:2 5:1\n",
		"3 1:1\n1 2:2\n2.5 1:1\n",
		"1 1:1\n0 2:1\n-1 3:1\n",
		"1 2:1 1:1\n",
		"1 1:nan\n",
		"",
	}
	for _, in := range inputs {
		for _, tk := range []task.Task{task.Auto, task.Binary, task.Multiclass, task.Regression} {
			opt := Options{Task: tk}
			want, werr := Read(strings.NewReader(in), "in", opt)
			s, err := NewScanner(strings.NewReader(in), "in", opt)
			if err != nil {
				t.Fatal(err)
			}
			var labels []float64
			var index []int32
			for s.Scan() {
				y, idx, _ := s.Row()
				labels, index = append(labels, y), append(index, idx...)
			}
			gerr := s.Err()
			if gerr == nil {
				t2, classes, zeroOne, err := s.Resolve()
				if err != nil {
					gerr = err
				} else if tk == task.Auto && zeroOne {
					for i, y := range labels {
						if y == 0 {
							labels[i] = -1
						}
					}
				}
				if werr == nil && (t2 != want.Task || !slices.Equal(classes, want.Classes)) {
					t.Errorf("%q %v: resolved %v %v, Read %v %v", in, tk, t2, classes, want.Task, want.Classes)
				}
			}
			switch {
			case (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error():
				t.Errorf("%q %v: Read's error %v, the Scanner's %v", in, tk, werr, gerr)
			case werr == nil && (!slices.Equal(labels, want.Labels) || !slices.Equal(index, want.Index) || s.Dim() != want.Dim):
				t.Errorf("%q %v: scanned %v %v (dim %d), read %v %v (dim %d)", in, tk, labels, index, s.Dim(), want.Labels, want.Index, want.Dim)
			}
		}
	}
}

// TestReadLimits: MaxRows and MaxBytes stop Read at the line that passes
// them, and a gzip bomb is refused at the limit instead of being read
// whole.
func TestReadLimits(t *testing.T) {
	in := "1 1:1\n\n-1 2:1\n1 3:1\n"
	if _, err := Read(strings.NewReader(in), "f", Options{MaxRows: 3}); err != nil {
		t.Errorf("3 rows within MaxRows 3: %v", err)
	}
	var pe *ParseError
	if _, err := Read(strings.NewReader(in), "f", Options{MaxRows: 2}); !errors.As(err, &pe) || pe.Line != 4 || !strings.Contains(pe.Msg, "more than 2 rows") {
		t.Errorf("3 rows over MaxRows 2: %v", err)
	}
	if _, err := Read(strings.NewReader(in), "f", Options{MaxBytes: HeldBytes(2, 2)}); !errors.As(err, &pe) || pe.Line != 4 || !strings.Contains(pe.Msg, "limit on the memory") {
		t.Errorf("3 rows over the bytes of 2: %v", err)
	}
	// 64 MiB of rows in 100 KB of gzip.
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	line := []byte(strings.Repeat("+1 1:1 2:1 3:1 4:1\n", 1<<10))
	for range (64 << 20) / len(line) {
		zw.Write(line)
	}
	zw.Close()
	before := heapInUse()
	var peak uint64
	_, err := Read(&peakReader{r: &bomb, peak: &peak}, "bomb.gz", Options{MaxBytes: 8 << 20})
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "8388608 bytes") {
		t.Errorf("a gzip bomb: %v", err)
	}
	if peak > before+32<<20 {
		t.Errorf("reading the gzip bomb to a limit of 8 MiB held %d bytes", peak-before)
	}
}

// peakReader records the largest heap seen while its reader is read.
type peakReader struct {
	r    io.Reader
	n    int
	peak *uint64
}

func (p *peakReader) Read(b []byte) (int, error) {
	if p.n++; p.n%64 == 0 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		*p.peak = max(*p.peak, m.HeapAlloc)
	}
	return p.r.Read(b)
}

// TestMaxIndex: a caller's lower index limit is an error at the line, as
// the reader's own; with Dim, the lower of the two holds.
func TestMaxIndex(t *testing.T) {
	in := "1 1:1\n-1 67108864:1\n"
	var pe *ParseError
	if _, err := Read(strings.NewReader(in), "f", Options{}); err != nil {
		t.Fatalf("index 2^26 within the reader's limit: %v", err)
	}
	for _, opt := range []Options{{MaxIndex: 1 << 24}, {MaxIndex: 1 << 24, Dim: 1 << 25}} {
		if _, err := Read(strings.NewReader(in), "f", opt); !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(pe.Msg, "limit 16777216") {
			t.Errorf("%+v: %v", opt, err)
		}
	}
	if _, err := Read(strings.NewReader(in), "f", Options{MaxIndex: 1 << 10, HashBits: 12}); err == nil {
		t.Error("MaxIndex below the hashed dimensions accepted")
	}
}

// TestReadSubset: the rows of a file at some positions, in the order
// asked, as Read and Subset give them.
func TestReadSubset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.svm")
	if err := os.WriteFile(path, []byte("1 1:1\n0 2:1\n\n1 3:1 4:2\n0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := []int{3, 0, 2}
	got, err := ReadSubset(path, Options{}, rows)
	if err != nil {
		t.Fatal(err)
	}
	all, err := ReadFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := all.Subset(rows)
	if !slices.Equal(got.Labels, want.Labels) || !slices.Equal(got.Index, want.Index) || !slices.Equal(got.RowPtr, want.RowPtr) ||
		got.Dim != want.Dim || got.Task != want.Task || got.Where(0) != want.Where(0) {
		t.Errorf("ReadSubset %+v, Subset %+v", got, want)
	}
	if _, err := ReadSubset(path, Options{}, []int{7}); err == nil {
		t.Error("a row beyond the file")
	}
}
