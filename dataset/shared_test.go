package dataset

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/bogd-project/bogd/task"
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
			if d.Task != task.Binary {
				t.Errorf("%s: task %v, want binary", d.Name, d.Task)
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

// TestSharedMulticlass: every multi-class set resolves (auto) to
// multiclass, with the classes and class sizes of its README.
func TestSharedMulticlass(t *testing.T) {
	tests := []struct {
		file    string
		dim     int
		classes []int // the labels, ascending
		sizes   []int // rows per class (letter: the README gives only the first and last)
	}{
		{"dna.svm.gz", 180, count(3, 0), []int{464, 485, 1051}},
		{"satimage.svm.gz", 36, count(6, 0), []int{1072, 479, 961, 415, 470, 1038}},
		{"usps.svm.gz", 256, count(10, -1), []int{1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644}},
		{"mnist10k.svm.gz", 778, count(10, -1), []int{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}},
		{"letter.svm.gz", 16, count(26, 0), []int{789, 734}},
		{"shuttle.svm.gz", 9, count(7, 0), []int{34108, 37, 132, 6748, 2458, 6, 11}},
		{"poker.svm.gz", 10, count(10, -1), []int{12493, 10599, 1206, 513, 93, 54, 36, 6, 5, 5}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			d := readShared(t, filepath.Join("multiclass", tc.file))
			if d.Task != task.Multiclass || !slices.Equal(d.Classes, tc.classes) || d.Dim != tc.dim {
				t.Fatalf("task %v, classes %v, Dim %d; want multiclass, %v, %d", d.Task, d.Classes, d.Dim, tc.classes, tc.dim)
			}
			sizes := make([]int, len(d.Classes))
			for _, y := range d.Labels {
				c, _ := slices.BinarySearch(d.Classes, int(y))
				sizes[c]++
			}
			if len(tc.sizes) == 2 && len(sizes) > 2 {
				sizes = []int{sizes[0], sizes[len(sizes)-1]}
			}
			if !slices.Equal(sizes, tc.sizes) {
				t.Errorf("class sizes %v, want %v", sizes, tc.sizes)
			}
		})
	}
}

// TestSharedRegression: every regression set reads as regression with the
// rows and label range of its README. Two hold integer targets (abalone's
// 28 ring counts, cpusmall's 56 percentages), which the auto rule takes
// as classes: they need an explicit Regression.
func TestSharedRegression(t *testing.T) {
	tests := []struct {
		file           string
		rows, dim      int
		lo, hi, mean   float64
		meanTol        float64 // the precision of the README's mean
		autoMulticlass int     // the class count auto resolves to, 0: regression
	}{
		{"housing.svm.gz", 506, 13, 5, 50, 22.53, 0.005, 0},
		{"mg.svm.gz", 1385, 6, 0, 1, 0.5700, 0.00005, 0},
		{"abalone.svm.gz", 4177, 8, 1, 29, 9.934, 0.0005, 28},
		{"cpusmall.svm.gz", 8192, 12, 0, 99, 83.97, 0.005, 56},
		{"cadata.svm.gz", 20640, 8, 14999, 500001, 206856, 0.5, 0},
		{"parkinsons.svm.gz", 5875, 20, 7, 54.992, 29.02, 0.005, 0},
		{"casp.svm.gz", 45730, 9, 0, 20.999, 7.749, 0.0005, 0},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			auto := readShared(t, filepath.Join("regression", tc.file))
			if tc.autoMulticlass > 0 {
				if auto.Task != task.Multiclass || len(auto.Classes) != tc.autoMulticlass {
					t.Errorf("auto: %v with %d classes, want multiclass with %d", auto.Task, len(auto.Classes), tc.autoMulticlass)
				}
			} else if auto.Task != task.Regression {
				t.Errorf("auto: %v, want regression", auto.Task)
			}
			d, err := auto.Resolve(task.Regression, func(m string) { t.Errorf("unexpected warning %q", m) })
			if err != nil {
				t.Fatal(err)
			}
			mean := 0.0
			for _, y := range d.Labels {
				mean += y / float64(d.Len())
			}
			if d.Len() != tc.rows || d.Dim != tc.dim || slices.Min(d.Labels) != tc.lo || slices.Max(d.Labels) != tc.hi ||
				math.Abs(mean-tc.mean) > tc.meanTol {
				t.Errorf("%d rows, Dim %d, labels %v..%v, mean %v; want %d, %d, %v..%v, %v",
					d.Len(), d.Dim, slices.Min(d.Labels), slices.Max(d.Labels), mean, tc.rows, tc.dim, tc.lo, tc.hi, tc.mean)
			}
			if err := checkInvariants(d); err != nil {
				t.Error(err)
			}
		})
	}
}

// readShared reads a shared dataset (auto task), or skips.
func readShared(t *testing.T, name string) *Dataset {
	t.Helper()
	d, err := ReadFile(sharedFile(t, name), Options{Warn: func(m string) { t.Errorf("unexpected warning %q", m) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkInvariants(d); err != nil {
		t.Error(err)
	}
	return d
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
