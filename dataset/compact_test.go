package dataset

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/task"
)

// sameRows fails unless c's rows, labels and lines are d's.
func sameRows(t *testing.T, what string, d, c *Dataset) {
	t.Helper()
	if c.Len() != d.Len() || c.Dim != d.Dim || c.NonZeros() != d.NonZeros() || !slices.Equal(c.Labels, d.Labels) {
		t.Fatalf("%s: %d rows, %d features, %d non-zeros; want %d, %d, %d", what, c.Len(), c.Dim, c.NonZeros(), d.Len(), d.Dim, d.NonZeros())
	}
	// Twice with one buffer, forwards then backwards: a row decoded into
	// the buffer must not land in a view RowTo gave before it.
	var buf RowBuffer
	for pass := range 2 {
		for k := range d.Len() {
			i := k
			if pass == 1 {
				i = d.Len() - 1 - k
			}
			wi, wv := d.Row(i)
			idx, val := c.RowTo(i, &buf)
			if !slices.Equal(idx, wi) || !slices.Equal(val, wv) || c.Where(i) != d.Where(i) {
				t.Fatalf("%s: row %d is %v %v at %s, want %v %v at %s", what, i, idx, val, c.Where(i), wi, wv, d.Where(i))
			}
		}
	}
}

// TestCompact: every form keeps the rows bit for bit, takes fewer bytes,
// and serves Subset, MinMax and Prepare as the rows Read gives.
func TestCompact(t *testing.T) {
	wide := "1 1:1 70000:0.5\n-1 3:2\n"
	cases := []struct{ name, text, form string }{
		{"dense", "1 1:0.5 2:1 3:-2\n-1 1:1 3:0.25\n\n1 1:3 2:1 3:1\n-1 2:4 3:1\n", "dense"},
		{"binary features", "1 1:1 40:1\n-1 3:1\n1 2:1 200:1\n", "uint8"},
		{"wider", "1 1:0.5 400:1\n-1 3:2\n", "uint16"},
		{"widest", wide, "int32"},
	}
	for _, c := range cases {
		d, err := Read(strings.NewReader(c.text), c.name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		cd := d.Compact()
		sameRows(t, c.name, d, cd)
		if form := fmt.Sprintf("%T", cd.rows); !strings.Contains(strings.ToLower(form), c.form) {
			t.Errorf("%s: stored as %s, want %s", c.name, form, c.form)
		}
		if cd.Bytes() >= d.Bytes() {
			t.Errorf("%s: %d bytes compact, %d as read", c.name, cd.Bytes(), d.Bytes())
		}
		sameRows(t, c.name+" subset", d.Subset([]int{1, 0, 1}), cd.Subset([]int{1, 0, 1}))
		want, _, err := d.ScaleMinMax(false)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := cd.ScaleMinMax(false)
		if err != nil {
			t.Fatal(err)
		}
		sameRows(t, c.name+" scaled", want, got)
		if cd.Compact() != cd {
			t.Errorf("%s: compacting twice copies", c.name)
		}
	}
}

// TestCompactShared: the bytes per non-zero of the shared data sets, held
// as Read gives them and compact (labels included), and their rows kept.
func TestCompactShared(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every shared data set")
	}
	files, _ := filepath.Glob(filepath.Join(sharedDir, "*.svm.gz"))
	more, _ := filepath.Glob(filepath.Join(sharedDir, "*", "*.svm.gz"))
	if files = append(files, more...); len(files) == 0 {
		t.Skip("../shared/datasets not present")
	}
	for _, path := range files {
		d, err := ReadFile(path, Options{Task: task.Regression}) // any label
		if err != nil {
			t.Fatal(err)
		}
		c := d.Compact()
		sameRows(t, path, d, c)
		nnz := float64(d.NonZeros())
		t.Logf("%-22s %7d rows %6d features %9d non-zeros: %5.2f bytes per non-zero as read, %5.2f compact (%T)",
			d.Name, d.Len(), d.Dim, d.NonZeros(), float64(d.Bytes())/nnz, float64(c.Bytes())/nnz, c.rows)
		if c.Bytes() > d.Bytes() {
			t.Errorf("%s: %d bytes compact, %d as read", path, c.Bytes(), d.Bytes())
		}
	}
}
