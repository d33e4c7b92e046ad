package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/task"
)

// checkLabel verifies that y is a label of d's task.
func checkLabel(d *Dataset, y float64) error {
	ok := false
	switch d.Task {
	case task.Binary:
		ok = y == -1 || y == 1
	case task.Multiclass:
		_, ok = slices.BinarySearch(d.Classes, int(y))
		ok = ok && y == float64(int(y))
	case task.Regression:
		ok = !math.IsNaN(y) && !math.IsInf(y, 0)
	}
	if !ok {
		return fmt.Errorf("label %v is not one of a %v dataset", y, d.Task)
	}
	return nil
}

// checkInvariants verifies the structural promises of a Dataset.
func checkInvariants(d *Dataset) error {
	n := len(d.Labels)
	if len(d.RowPtr) != n+1 || d.RowPtr[0] != 0 || d.RowPtr[n] != len(d.Index) || len(d.Index) != len(d.Value) {
		return fmt.Errorf("inconsistent lengths: labels %d rowptr %d index %d value %d", n, len(d.RowPtr), len(d.Index), len(d.Value))
	}
	if d.Dim < 0 || d.Dim > max(maxIndex, 1<<maxHashBits) {
		return fmt.Errorf("Dim %d out of range", d.Dim)
	}
	if d.lines != nil && len(d.lines) != n {
		return fmt.Errorf("%d line numbers for %d rows", len(d.lines), n)
	}
	if d.Task == task.Multiclass != (d.Classes != nil) {
		return fmt.Errorf("task %v with classes %v", d.Task, d.Classes)
	}
	for i := 0; i < n; i++ {
		if err := checkLabel(d, d.Labels[i]); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
		if d.RowPtr[i] > d.RowPtr[i+1] {
			return fmt.Errorf("row %d: RowPtr decreasing", i)
		}
		idx, val := d.Row(i)
		for k := range idx {
			if idx[k] < 0 || int(idx[k]) >= d.Dim {
				return fmt.Errorf("row %d: index %d outside [0,%d)", i, idx[k], d.Dim)
			}
			if k > 0 && idx[k] <= idx[k-1] {
				return fmt.Errorf("row %d: indices not increasing", i)
			}
			v := float64(val[k])
			if v == 0 || v != v || v > 3.5e38 || v < -3.5e38 {
				return fmt.Errorf("row %d: bad value %v", i, v)
			}
		}
	}
	return nil
}

func TestReadAccepted(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		opt    Options
		want   Dataset
		warned bool
	}{
		{
			name: "basic",
			in:   "+1 1:0.5 3:-2\n-1 2:1e-1\n",
			want: Dataset{Dim: 3, Task: task.Binary, Labels: []float64{1, -1}, RowPtr: []int{0, 2, 3},
				Index: []int32{0, 2, 1}, Value: []float32{0.5, -2, 0.1}, lines: []int{1, 2}},
		},
		{
			name: "crlf and trailing whitespace, no final newline",
			in:   "1 1:1 2:2 \t\r\n-1 4:4\r\n+1 2:3",
			want: Dataset{Dim: 4, Task: task.Binary, Labels: []float64{1, -1, 1}, RowPtr: []int{0, 2, 3, 4},
				Index: []int32{0, 1, 3, 1}, Value: []float32{1, 2, 4, 3}, lines: []int{1, 2, 3}},
		},
		{
			name: "blank lines and tabs",
			in:   "\n   \n+1\t1:1\t\t2:2\n\t\n\n-1  3:3\n\n",
			want: Dataset{Dim: 3, Task: task.Binary, Labels: []float64{1, -1}, RowPtr: []int{0, 2, 3},
				Index: []int32{0, 1, 2}, Value: []float32{1, 2, 3}, lines: []int{3, 6}},
		},
		{
			name: "label-only lines",
			in:   "-1\n+1 2:7\n+1\n",
			want: Dataset{Dim: 2, Task: task.Binary, Labels: []float64{-1, 1, 1}, RowPtr: []int{0, 0, 1, 1},
				Index: []int32{1}, Value: []float32{7}, lines: []int{1, 2, 3}},
		},
		{
			name: "comments",
			in:   "# header comment\n+1 1:1 # trailing comment 9:9\n-1 #only label\n  # indented comment\n-1 2:2#glued\n",
			want: Dataset{Dim: 2, Task: task.Binary, Labels: []float64{1, -1, -1}, RowPtr: []int{0, 1, 1, 2},
				Index: []int32{0, 1}, Value: []float32{1, 2}, lines: []int{2, 3, 5}},
		},
		{
			name: "0/1 labels mapped",
			in:   "1 1:1\n0 2:2\n0\n1 3:3\n",
			want: Dataset{Dim: 3, Task: task.Binary, Labels: []float64{1, -1, -1, 1}, RowPtr: []int{0, 1, 2, 2, 3},
				Index: []int32{0, 1, 2}, Value: []float32{1, 2, 3}, lines: []int{1, 2, 3, 4}, zeroOne: true},
			warned: true,
		},
		{
			name: "0/1 labels mapped for an explicit binary task",
			in:   "0\n1 1:1\n",
			opt:  Options{Task: task.Binary},
			want: Dataset{Dim: 1, Task: task.Binary, Labels: []float64{-1, 1}, RowPtr: []int{0, 0, 1},
				Index: []int32{0}, Value: []float32{1}, lines: []int{1, 2}, zeroOne: true},
			warned: true,
		},
		{
			name: "float labels",
			in:   "1.0 1:1\n-1.0 1:2\n+1.0 1:3\n-1.00e0 1:4\n",
			want: Dataset{Dim: 1, Task: task.Binary, Labels: []float64{1, -1, 1, -1}, RowPtr: []int{0, 1, 2, 3, 4},
				Index: []int32{0, 0, 0, 0}, Value: []float32{1, 2, 3, 4}, lines: []int{1, 2, 3, 4}},
		},
		{
			name: "explicit zeros dropped but count for Dim",
			in:   "+1 1:0 2:0.0 3:1.5 5:-0\n",
			want: Dataset{Dim: 5, Task: task.Binary, Labels: []float64{1}, RowPtr: []int{0, 1},
				Index: []int32{2}, Value: []float32{1.5}, lines: []int{1}},
		},
		{
			name: "fixed Dim larger than seen",
			in:   "+1 2:1\n",
			opt:  Options{Dim: 10},
			want: Dataset{Dim: 10, Task: task.Binary, Labels: []float64{1}, RowPtr: []int{0, 1},
				Index: []int32{1}, Value: []float32{1}, lines: []int{1}},
		},
		{
			name: "only +1 labels, all label-only",
			in:   "+1\n+1\n",
			want: Dataset{Dim: 0, Task: task.Binary, Labels: []float64{1, 1}, RowPtr: []int{0, 0, 0},
				Index: []int32{}, Value: []float32{}, lines: []int{1, 2}},
		},
		{
			name: "byte-order mark and number forms",
			in:   "\uFEFF+1 1:.5 2:5. 3:+2E2 4:3.4028234e38\n",
			want: Dataset{Dim: 4, Task: task.Binary, Labels: []float64{1}, RowPtr: []int{0, 4},
				Index: []int32{0, 1, 2, 3}, Value: []float32{0.5, 5, 200, 3.4028234e38}, lines: []int{1}},
		},
		{
			name: "integer labels are classes",
			in:   "3 1:1\n1\n3.0 2:2\n# c\n2e0\n",
			want: Dataset{Dim: 2, Task: task.Multiclass, Labels: []float64{3, 1, 3, 2}, Classes: []int{1, 2, 3},
				RowPtr: []int{0, 1, 1, 2, 2}, Index: []int32{0, 1}, Value: []float32{1, 2}, lines: []int{1, 2, 3, 5}},
		},
		{
			name: "real labels are targets",
			in:   "0.5 1:1\n-3\n1e3\n",
			want: Dataset{Dim: 1, Task: task.Regression, Labels: []float64{0.5, -3, 1000}, RowPtr: []int{0, 1, 1, 1},
				Index: []int32{0}, Value: []float32{1}, lines: []int{1, 2, 3}},
		},
		{
			name: "0/1 labels kept for regression",
			in:   "0\n1\n",
			opt:  Options{Task: task.Regression},
			want: Dataset{Dim: 0, Task: task.Regression, Labels: []float64{0, 1}, RowPtr: []int{0, 0, 0},
				Index: []int32{}, Value: []float32{}, lines: []int{1, 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var warns []string
			opt := tc.opt
			opt.Warn = func(m string) { warns = append(warns, m) }
			d, err := Read(strings.NewReader(tc.in), "ok.svm", opt)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			tc.want.Name = "ok.svm"
			if len(d.Index) == 0 {
				d.Index, d.Value = []int32{}, []float32{}
			}
			if !reflect.DeepEqual(*d, tc.want) {
				t.Errorf("got  %+v\nwant %+v", *d, tc.want)
			}
			if err := checkInvariants(d); err != nil {
				t.Error(err)
			}
			if tc.warned {
				if len(warns) != 1 || !strings.Contains(warns[0], "0/1") || !strings.Contains(warns[0], "ok.svm") {
					t.Errorf("warnings %q, want one about 0/1 labels", warns)
				}
			} else if len(warns) != 0 {
				t.Errorf("unexpected warnings %q", warns)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name string
		in   string
		opt  Options
		line int    // expected line (0: whole file)
		word string // expected substring of the message
	}{
		{"empty file", "", Options{}, 0, "no examples"},
		{"only blank and comments", "\n  \n# c\n\t# d\n", Options{}, 0, "no examples"},
		{"non-numeric label", "+1 1:1\nabc 1:1\n", Options{}, 2, "invalid label"},
		{"missing label", "1:1 2:2\n", Options{}, 1, "invalid label \"1:1\": the row has no label, its first token is a feature"},
		{"unlabelled, then labelled", "# rows\n1:1 2:2\n2:1\n+1 1:1\n", Options{Unlabelled: true}, 4, `the row has a label ("+1"), but the row of line 2 has none`},
		{"labelled, then unlabelled", "-1 1:1\n3:1\n", Options{Unlabelled: true}, 2, `the row has no label (its first token "3:1" is a feature), but the row of line 1 has one`},
		{"blank line before unlabelled rows", "# rows\n\n1:1\n", Options{Unlabelled: true}, 2, "a blank line before the first row, which has no label"},
		{"label 2", "+1\n-1\n2 1:1\n", Options{Task: task.Binary}, 3, "not -1 or +1"},
		{"label 0.5", "+1\n0.5\n", Options{Task: task.Binary}, 2, "not -1 or +1"},
		{"label NaN", "\nnan 1:1\n", Options{}, 2, "not finite"},
		{"label Inf", "+1\n-Inf 1:1\n", Options{}, 2, "not finite"},
		{"three distinct labels 0 then -1", "1\n\n0 1:1\n1\n-1\n", Options{Task: task.Binary}, 3, "more than two distinct labels"},
		{"three distinct labels -1 then 0", "-1\n1\n0 1:1\n", Options{Task: task.Binary}, 3, "label 0"},
		{"index zero", "+1 0:1\n", Options{}, 1, "feature index must be >= 1"},
		{"index negative", "+1\n+1 -3:1\n", Options{}, 2, "feature index must be >= 1"},
		{"index repeated", "+1 1:1 2:2 2:3\n", Options{}, 1, "feature index 2 follows 2"},
		{"index decreasing", "-1\n+1 1:1 5:2 3:3\n", Options{}, 2, "feature index 3 follows 5"},
		{"index not integer", "+1 a:1\n", Options{}, 1, "not an integer"},
		{"index float", "+1 1.5:1\n", Options{}, 1, "not an integer"},
		{"no colon", "+1 1:1 7\n", Options{}, 1, "missing ':'"},
		{"no index", "+1 :3\n", Options{}, 1, "no index"},
		{"no value", "+1 1:1 2:\n", Options{}, 1, "no value"},
		{"non-numeric value", "+1 1:abc\n", Options{}, 1, `invalid value in feature "1:abc"`},
		{"long bad token truncated", "+1 1:" + long + "\n", Options{}, 1, `"1:` + long[:38] + `"...`},
		{"hex value", "+1 1:0x10\n", Options{}, 1, "not a decimal number"},
		{"value NaN", "+1 1:NaN\n", Options{}, 1, "not finite"},
		{"value Inf", "+1\n+1 1:1 2:-inf\n", Options{}, 2, "not finite"},
		{"value overflows float32", "+1 1:3.5e38\n", Options{}, 1, "float32"},
		{"value overflows float64", "+1 1:1e400\n", Options{}, 1, "float32"},
		{"index above Dim", "+1 1:1\n-1 11:1\n", Options{Dim: 10}, 2, "exceeds the dimension 10"},
		{"index absurd", "+1 67108865:1\n", Options{}, 1, "too large"},
		{"index huge digits", "+1 99999999999999999999999999:1\n", Options{}, 1, "too large"},
		{"NUL byte", "+1 1:1\n-1 2:\x002\n", Options{}, 2, "binary data"},
		{"invalid UTF-8", "+1 1:1\n\n-1 \xff\xfe\n", Options{}, 3, "binary data"},
		{"NUL in comment", "+1 1:1 # \x00\n", Options{}, 1, "binary data"},
		{"bare CR inside line", "+1 1:1\r2:2\n", Options{}, 1, "invalid value"},
		{"explicit task: a label error comes before a later syntax error", "2\n+1 0:1\n", Options{Task: task.Binary}, 1, "label 2 is not -1 or +1"},
		{"multiclass label 2.5", "1\n2\n\n2.5 1:1\n", Options{Task: task.Multiclass}, 4, "label 2.5 is not a class"},
		{"multiclass label beyond int32", "1\n-3e9\n", Options{Task: task.Multiclass}, 2, "label -3e+09 is not a class"},
		{"multiclass with one class", "4 1:1\n4\n", Options{Task: task.Multiclass}, 0, "1 distinct label(s): a multi-class set needs at least 2 classes"},
		{"hashed: no name", "+1 a :3\n", Options{HashBits: 4}, 1, `feature ":3" has no name`},
		{"hashed: value out of range", "+1\n-1 a b:1e39\n", Options{HashBits: 4}, 2, `invalid value in feature "b:1e39"`},
		{"hashed: sum out of range", "+1 a:3e38 b a:3e38\n", Options{HashBits: 4}, 1, "beyond the float32 range"},
		{"hashed: bad label", "+1 a\nx a\n", Options{HashBits: 4}, 2, "invalid label"},
		{"hashed: binary label", "+1 a\n2 a\n", Options{HashBits: 4, Task: task.Binary}, 2, "not -1 or +1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Read(strings.NewReader(tc.in), "bad.svm", tc.opt)
			if err == nil {
				t.Fatalf("no error; got %d rows", d.Len())
			}
			checkParseError(t, err, "bad.svm", tc.line, tc.word)
		})
	}
}

// checkParseError asserts that err is a *ParseError for file at line whose
// message contains word.
func checkParseError(t *testing.T, err error, file string, line int, word string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
	msg := err.Error()
	prefix := file + ":" + strconv.Itoa(line) + ": "
	if line == 0 {
		prefix = file + ": "
	}
	if pe.File != file || pe.Line != line || !strings.HasPrefix(msg, prefix) {
		t.Errorf("error %q: want file %q line %d", msg, file, line)
	}
	if !strings.Contains(msg, word) {
		t.Errorf("error %q does not contain %q", msg, word)
	}
}

func TestParseErrorFormat(t *testing.T) {
	if got := (&ParseError{File: "f", Line: 3, Msg: "m"}).Error(); got != "f:3: m" {
		t.Errorf("got %q", got)
	}
	if got := (&ParseError{File: "f", Msg: "m"}).Error(); got != "f: m" {
		t.Errorf("got %q", got)
	}
}

func gzipBytes(t testing.TB, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadFileGzipAndPlain(t *testing.T) {
	text := "+1 1:1 3:3\n-1 2:2\n"
	want, err := Read(strings.NewReader(text), "x", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The gzip file deliberately has no .gz extension: detection is by magic bytes.
	for name, data := range map[string][]byte{"plain.txt": []byte(text), "compressed.svm": gzipBytes(t, text)} {
		path := writeFile(t, name, data)
		d, err := ReadFile(path, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Name != name {
			t.Errorf("Name = %q, want %q", d.Name, name)
		}
		d.Name = want.Name
		if !reflect.DeepEqual(d, want) {
			t.Errorf("%s: got %+v want %+v", name, d, want)
		}
	}
}

func TestReadFileMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.svm")
	_, err := ReadFile(path, Options{})
	checkParseError(t, err, path, 0, "no such file")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v does not wrap fs.ErrNotExist", err)
	}
}

func TestGzipErrors(t *testing.T) {
	var lines strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&lines, "%+d 1:%d 2:%d.5\n", 1-2*(i%2), i+1, i)
	}
	full := gzipBytes(t, lines.String())
	corrupt := bytes.Clone(full)
	corrupt[10] |= 0x06 // first deflate block: reserved block type 3
	badCRC := bytes.Clone(full)
	badCRC[len(badCRC)-8] ^= 1
	tests := []struct {
		name string
		data []byte
		word string
	}{
		{"truncated in the middle", full[:len(full)/2], "gzip stream truncated"},
		{"truncated trailer", full[:len(full)-3], "gzip stream truncated"},
		{"header only", full[:2], "gzip header truncated"},
		{"bad header", []byte{0x1f, 0x8b, 99, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3}, "invalid gzip header"},
		{"corrupt data", corrupt, "gzip stream corrupt"},
		{"checksum", badCRC, "checksum"},
		{"trailing garbage", append(bytes.Clone(full), "garbage after the stream"...), "gzip stream corrupt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "cut.svm.gz", tc.data)
			_, err := ReadFile(path, Options{})
			if err == nil {
				t.Fatal("no error")
			}
			checkParseError(t, err, path, 0, tc.word)
			if err2 := errors.Unwrap(err); err2 == nil {
				t.Errorf("error %v wraps nothing", err)
			}
		})
	}
}

func TestGzipGarbledMiddle(t *testing.T) {
	// Garbling compressed data may decode to text that fails to parse
	// before the checksum is reached; either way it must be an error.
	var lines strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&lines, "%+d 1:%d 2:%d.5\n", 1-2*(i%2), i+1, i)
	}
	data := gzipBytes(t, lines.String())
	for i := len(data) / 2; i < len(data)/2+64; i++ {
		data[i] ^= 0x5a
	}
	_, err := Read(bytes.NewReader(data), "garbled.gz", Options{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != "garbled.gz" {
		t.Fatalf("got %v, want a *ParseError for garbled.gz", err)
	}
}

func TestLongLine(t *testing.T) {
	// One line of about 10 MB: 1e6 features.
	const nf = 1_000_000
	var b strings.Builder
	b.Grow(12 << 20)
	b.WriteString("-1")
	for j := 1; j <= nf; j++ {
		b.WriteString(" ")
		b.WriteString(strconv.Itoa(j))
		b.WriteString(":0.25")
	}
	b.WriteString("\n+1 3:1\n")
	if b.Len() < 10<<20 {
		t.Fatalf("line only %d bytes", b.Len())
	}
	d, err := Read(strings.NewReader(b.String()), "long", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 2 || d.Dim != nf || len(d.Index) != nf+1 || d.Labels[0] != -1 || d.Labels[1] != 1 {
		t.Fatalf("got %d rows, Dim %d, nnz %d", d.Len(), d.Dim, len(d.Index))
	}
	idx, val := d.Row(0)
	if idx[nf-1] != nf-1 || val[nf-1] != 0.25 {
		t.Errorf("last feature %d:%v", idx[nf-1], val[nf-1])
	}
	// Error positions are still right after a long line.
	_, err = Read(strings.NewReader(b.String()+"bad\n"), "long", Options{})
	checkParseError(t, err, "long", 3, "invalid label")
}

func TestRowDenseSubset(t *testing.T) {
	d, err := Read(strings.NewReader("+1 1:1 4:4\n-1\n-1 2:2 3:3\n"), "s", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 3 || d.Dim != 4 {
		t.Fatalf("Len %d Dim %d", d.Len(), d.Dim)
	}
	idx, val := d.Row(2)
	if !reflect.DeepEqual(idx, []int32{1, 2}) || !reflect.DeepEqual(val, []float32{2, 3}) {
		t.Errorf("Row(2) = %v %v", idx, val)
	}
	if idx, val := d.Row(1); len(idx) != 0 || len(val) != 0 {
		t.Errorf("Row(1) = %v %v", idx, val)
	}

	dst := []float32{9, 9, 9, 9, 9, 9}
	got := d.Dense(0, dst)
	if !reflect.DeepEqual(got, []float32{1, 0, 0, 4}) || &got[0] != &dst[0] {
		t.Errorf("Dense(0) = %v (reused: %v)", got, &got[0] == &dst[0])
	}
	got = d.Dense(2, got)
	if !reflect.DeepEqual(got, []float32{0, 2, 3, 0}) {
		t.Errorf("Dense(2) = %v", got)
	}
	if got := d.Dense(1, nil); !reflect.DeepEqual(got, []float32{0, 0, 0, 0}) {
		t.Errorf("Dense(1, nil) = %v", got)
	}

	s := d.Subset([]int{2, 0, 2, 1})
	want := &Dataset{Name: "s", Dim: 4, Task: task.Binary, Labels: []float64{-1, 1, -1, -1}, RowPtr: []int{0, 2, 4, 6, 6},
		Index: []int32{1, 2, 0, 3, 1, 2}, Value: []float32{2, 3, 1, 4, 2, 3}, lines: []int{3, 1, 3, 2}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("Subset = %+v\nwant %+v", s, want)
	}
	s.Value[0] = 100 // must not alias d
	if _, v := d.Row(2); v[0] != 2 {
		t.Error("Subset shares memory with the original")
	}
	if e := d.Subset(nil); e.Len() != 0 || len(e.RowPtr) != 1 {
		t.Errorf("empty Subset: %+v", e)
	}
}

// Asking for any row ahead, empty, long or out of range, neither panics
// nor changes the data.
func TestPrefetch(t *testing.T) {
	var long strings.Builder
	long.WriteString("+1")
	for j := 1; j <= 40; j++ {
		fmt.Fprintf(&long, " %d:%d", j, j)
	}
	d, err := Read(strings.NewReader("+1 1:1 4:4\n-1\n"+long.String()+"\n"), "p", Options{})
	if err != nil {
		t.Fatal(err)
	}
	dense, err := Read(strings.NewReader("+1 1:1 2:2\n-1 1:3\n+1 1:5 2:6\n"), "q", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Dataset{d, d.Compact(), dense.Compact()} {
		before := d.Subset([]int{0, 1, 2})
		for i := -2; i <= d.Len()+1; i++ {
			d.Prefetch(i, i)
			d.Prefetch(i, d.Len()-1-i)
		}
		if after := d.Subset([]int{0, 1, 2}); !reflect.DeepEqual(after, before) {
			t.Errorf("%s (%T): the data changed: %+v, was %+v", d.Name, d.rows, after, before)
		}
	}
}

// Where names a row by its line in the file (through comments and
// subsets), and by its position when the rows came from no file.
func TestWhere(t *testing.T) {
	d, err := Read(strings.NewReader("# header\n+1 1:1\n\n-1 2:2\n"), "w.svm", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Where(1); got != "w.svm:4" {
		t.Errorf("Where(1) = %q, want w.svm:4", got)
	}
	if got := d.Subset([]int{1, 0}).Where(0); got != "w.svm:4" {
		t.Errorf("a subset's Where(0) = %q, want w.svm:4", got)
	}
	made := &Dataset{Name: "made", Dim: 1, Task: task.Binary, Labels: []float64{1, -1}, RowPtr: []int{0, 0, 0}}
	if got := made.Where(1); got != "made row 2" {
		t.Errorf("Where(1) without lines = %q, want made row 2", got)
	}
}

func TestReadAllocations(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "%+d 1:-500 2:128 3:0.140625 4:0.304688 5:0.234375 6:0.129771 7:0.328244 8:0.229008\n", 1-2*(i%2))
	}
	in := b.String()
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := Read(strings.NewReader(in), "a", Options{}); err != nil {
			t.Fatal(err)
		}
	})
	// Growth of the result slices only: far fewer than one per token.
	if allocs > 200 {
		t.Errorf("%v allocations for 1000 lines", allocs)
	}
}

// Rows without labels (Options.Unlabelled): every label NaN, features
// from the first token on, hashed names too; a blank line among them is a
// row whose features are all zero (one line, one prediction), read or
// scanned, while a comment is nothing. Among labelled rows a blank line
// stays nothing.
func TestReadUnlabelled(t *testing.T) {
	const in = "# rows to predict\n1:0.5 3:2\n\n# a comment\n2:1\n \r\n"
	d, err := Read(strings.NewReader(in), "rows", Options{Unlabelled: true, Task: task.Regression})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Unlabelled || d.Len() != 4 || d.Dim != 3 || slices.ContainsFunc(d.Labels, func(y float64) bool { return !math.IsNaN(y) }) ||
		!slices.Equal(d.RowPtr, []int{0, 2, 2, 3, 3}) || !slices.Equal(d.Index, []int32{0, 2, 1}) || !slices.Equal(d.Value, []float32{0.5, 2, 1}) ||
		d.Where(1) != "rows:3" || d.Where(2) != "rows:5" || d.Where(3) != "rows:6" {
		t.Fatalf("%+v", d)
	}
	s, err := NewScanner(strings.NewReader(in), "rows", Options{Unlabelled: true, Task: task.Regression})
	if err != nil {
		t.Fatal(err)
	}
	var nonZeros []int
	for s.Scan() {
		y, idx, _ := s.Row()
		if !math.IsNaN(y) {
			t.Errorf("%s: label %v", s.Where(), y)
		}
		nonZeros = append(nonZeros, len(idx))
	}
	if s.Err() != nil || !slices.Equal(nonZeros, []int{2, 0, 1, 0}) {
		t.Errorf("scanned rows of %v non-zeros, %v", nonZeros, s.Err())
	}
	b, err := Read(strings.NewReader("\n+1 1:1\n\n-1 2:1\n"), "labelled", Options{Unlabelled: true})
	if err != nil || b.Len() != 2 {
		t.Fatalf("labelled rows with blank lines: %+v, %v", b, err)
	}
	h, err := Read(strings.NewReader("good:1 bad:2\n"), "words", Options{Unlabelled: true, HashBits: 20})
	if err != nil || !h.Unlabelled || len(h.Index) != 2 {
		t.Fatalf("hashed: %+v, %v", h, err)
	}
	l, err := Read(strings.NewReader("+1 1:1\n-1 2:1\n"), "labelled", Options{Unlabelled: true})
	if err != nil || l.Unlabelled || l.Task != task.Binary {
		t.Fatalf("labelled rows: %+v, %v", l, err)
	}
}
