package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseOrdersValid(t *testing.T) {
	text := "3,1,2\n 2 , 3 ,1 \r\n\n1,2,3\n"
	want := [][]int{{2, 0, 1}, {1, 2, 0}, {0, 1, 2}}
	for name, data := range map[string][]byte{"plain.perm": []byte(text), "packed.perm": gzipBytes(t, text)} {
		path := writeFile(t, name, data)
		got, err := ReadOrders(path, 3, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v want %v", name, got, want)
		}
	}
	got, err := ParseOrders(strings.NewReader("1\n"), "one", 1, 0)
	if err != nil || !reflect.DeepEqual(got, [][]int{{0}}) {
		t.Errorf("n=1: got %v, %v", got, err)
	}
}

func TestParseOrdersMaxLines(t *testing.T) {
	// The third line is broken: with maxLines = 2 it must never be read.
	text := "1,2\n2,1\n1,1\n"
	got, err := ParseOrders(strings.NewReader(text), "m", 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, [][]int{{0, 1}, {1, 0}}) {
		t.Errorf("got %v", got)
	}
	got, err = ParseOrders(strings.NewReader(text), "m", 2, 1)
	if err != nil || len(got) != 1 {
		t.Errorf("maxLines=1: %v, %v", got, err)
	}
	_, err = ParseOrders(strings.NewReader(text), "m", 2, 0)
	checkParseError(t, err, "m", 3, "duplicate")
	// maxLines larger than the file: all lines.
	got, err = ParseOrders(strings.NewReader("1,2\n"), "m", 2, 5)
	if err != nil || len(got) != 1 {
		t.Errorf("maxLines=5: %v, %v", got, err)
	}
}

func TestParseOrdersErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		line int
		word string
	}{
		{"empty file", "", 3, 0, "no permutations"},
		{"only blank lines", "\n \n\r\n", 3, 0, "no permutations"},
		{"too short", "1,2,3\n1,2\n", 3, 2, "wrong length: expected 3 indices (a permutation of 1..3), got 2"},
		{"too long", "1,2,3,4\n", 3, 1, "expected 3 indices (a permutation of 1..3), got 4"},
		{"duplicate", "1,2,3\n\n3,1,3\n", 3, 3, "duplicate index 3 at position 3 (already at position 1)"},
		{"zero", "0,1,2\n", 3, 1, `index "0" at position 1 out of range 1..3`},
		{"too large", "1,4,2\n", 3, 1, `index "4" at position 2 out of range`},
		{"negative", "1,2,-3\n", 3, 1, "out of range"},
		{"huge", "1,2,99999999999999999999999999\n", 3, 1, "out of range"},
		{"non-integer", "1,2.0,3\n", 3, 1, `token "2.0" at position 2 is not an integer`},
		{"word", "1,x,3\n", 3, 1, "not an integer"},
		{"inner space", "1,2 3,4\n", 3, 1, "not an integer"},
		{"empty token", "1,,3\n", 3, 1, "empty index at position 2"},
		{"trailing comma", "1,2,\n", 3, 1, "empty index at position 3"},
		{"binary", "1,2,3\n1,\x00,3\n", 3, 2, "binary data"},
		{"bad n", "1\n", 0, 0, "invalid number of rows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseOrders(strings.NewReader(tc.in), "o.perm", tc.n, 0)
			if err == nil {
				t.Fatalf("no error; got %v", got)
			}
			checkParseError(t, err, "o.perm", tc.line, tc.word)
		})
	}
}

func TestReadOrdersGzipTruncated(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "%d,%d,%d\n", i%3+1, (i+1)%3+1, (i+2)%3+1)
	}
	data := gzipBytes(t, b.String())
	path := writeFile(t, "cut.perm.gz", data[:len(data)-10])
	_, err := ReadOrders(path, 3, 0)
	checkParseError(t, err, path, 0, "gzip stream truncated")
	// maxLines stops before the damage.
	got, err := ReadOrders(path, 3, 5)
	if err != nil || len(got) != 5 {
		t.Errorf("maxLines=5 on truncated file: %d perms, %v", len(got), err)
	}
}

func TestReadOrdersMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.perm")
	_, err := ReadOrders(path, 3, 0)
	checkParseError(t, err, path, 0, "open")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unexpected error %v", err)
	}
}
