package dataset

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// sharedDir holds the project's real datasets (outside the repository).
const sharedDir = "../../shared/datasets"

func sharedFile(tb testing.TB, name string) string {
	tb.Helper()
	path := filepath.Join(sharedDir, name)
	if _, err := os.Stat(path); err != nil {
		tb.Skip("../shared/datasets not present: " + err.Error())
	}
	return path
}

func TestSharedDatasets(t *testing.T) {
	tests := []struct {
		file      string
		rows, dim int
		positives int
	}{
		{"german.svm.gz", 1000, 24, 300},
		{"spambase.svm.gz", 4601, 57, 1813},
		{"german_scale.svm.gz", 1000, 24, 300},
		{"magic04.svm.gz", 19020, 10, 12332},
		{"w7a.svm.gz", 24692, 300, 740},
		{"w8a.svm.gz", 49749, 300, 1479},
		{"ijcnn1.svm.gz", 141691, 22, 13565},
		{"codrna.svm.gz", 271617, 8, 90539},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			if testing.Short() && tc.rows > 5000 {
				t.Skip("short mode")
			}
			path := sharedFile(t, tc.file)
			warn := func(m string) { t.Errorf("unexpected warning %q", m) }
			d, err := ReadFile(path, Options{Warn: warn})
			if err != nil {
				t.Fatal(err)
			}
			pos := 0
			for _, l := range d.Labels {
				if l == 1 {
					pos++
				}
			}
			if d.Len() != tc.rows || d.Dim != tc.dim || pos != tc.positives || d.Name != tc.file {
				t.Errorf("%s: %d rows, Dim %d, %d positives; want %d, %d, %d",
					d.Name, d.Len(), d.Dim, pos, tc.rows, tc.dim, tc.positives)
			}
			if err := checkInvariants(d); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestSharedOrders(t *testing.T) {
	path := sharedFile(t, "german.perm.gz")
	perms, err := ReadOrders(path, 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(perms) != 20 {
		t.Fatalf("%d permutations, want 20", len(perms))
	}
	// The data can be permuted with them.
	d, err := ReadFile(sharedFile(t, "german.svm.gz"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := d.Subset(perms[0])
	if s.Len() != 1000 || len(s.Index) != len(d.Index) {
		t.Errorf("permuted: %d rows, nnz %d (original nnz %d)", s.Len(), len(s.Index), len(d.Index))
	}
	first, err := ReadOrders(path, 1000, 3)
	if err != nil || len(first) != 3 {
		t.Fatalf("maxLines=3: %d, %v", len(first), err)
	}
	// Reading with the wrong n fails on line 1.
	_, err = ReadOrders(path, 999, 0)
	checkParseError(t, err, path, 1, "expected 999")
}

func TestSharedCodrnaTime(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	path := sharedFile(t, "codrna.svm.gz")
	start := time.Now()
	d, err := ReadFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("codrna: %d rows, Dim %d, nnz %d, read in %v", d.Len(), d.Dim, len(d.Index), time.Since(start))
	if d.Len() != 271617 || d.Dim != 8 {
		t.Errorf("codrna: %d rows, Dim %d", d.Len(), d.Dim)
	}
}

func BenchmarkReadCodrna(b *testing.B) {
	path := sharedFile(b, "codrna.svm.gz")
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFile(path, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
