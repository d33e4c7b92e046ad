package dataset

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/task"
)

// labelFile writes one label-only line per label.
func labelFile[T any](labels ...T) string {
	var b strings.Builder
	for _, y := range labels {
		fmt.Fprintln(&b, y)
	}
	return b.String()
}

// count returns 1..n (plus offset).
func count(n, offset int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1 + offset
	}
	return out
}

func TestAuto(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		task    task.Task
		classes []int
		labels  []float64 // nil: as in the file
		warned  bool
	}{
		{"±1", labelFile(1, -1, 1), task.Binary, nil, nil, false},
		{"0/1 mapped", labelFile(0, 1, 0), task.Binary, nil, []float64{-1, 1, -1}, true},
		{"+1 only", labelFile(1, 1), task.Binary, nil, nil, false},
		{"0 only", labelFile(0), task.Binary, nil, []float64{-1}, true},
		{"two integers other than ±1 and 0/1", labelFile(2, 1, 2), task.Multiclass, []int{1, 2}, nil, false},
		{"-1 and 0", labelFile(0, -1), task.Multiclass, []int{-1, 0}, nil, false},
		{"-1, 0 and 1", labelFile(1, 0, -1, 0), task.Multiclass, []int{-1, 0, 1}, nil, false},
		{"integers in float notation", labelFile("3.0", "1e1", "-2"), task.Multiclass, []int{-2, 3, 10}, nil, false},
		{"the int32 range", labelFile(2147483647, -2147483647), task.Multiclass, []int{-2147483647, 2147483647}, nil, false},
		{"1000 classes", labelFile(count(1000, 0)...), task.Multiclass, count(1000, 0), nil, false},
		{"1001 integers", labelFile(count(1001, 0)...), task.Regression, nil, nil, false},
		{"one integer", labelFile(5, 5), task.Regression, nil, nil, false},
		{"a fraction", labelFile(1, 2, 2.5), task.Regression, nil, nil, false},
		{"an integer beyond int32", labelFile(1, 2, 2147483648), task.Regression, nil, nil, false},
		{"±1 and a fraction", labelFile(1, -1, 0.5), task.Regression, nil, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var warns []string
			d, err := Read(strings.NewReader(tc.in), "auto.svm", Options{Warn: func(m string) { warns = append(warns, m) }})
			if err != nil {
				t.Fatal(err)
			}
			want := tc.labels
			if want == nil {
				want = parsedLabels(t, tc.in)
			}
			if d.Task != tc.task || !reflect.DeepEqual(d.Classes, tc.classes) || !reflect.DeepEqual(d.Labels, want) {
				t.Errorf("task %v, classes %v, labels %v; want %v, %v, %v", d.Task, d.Classes, d.Labels, tc.task, tc.classes, want)
			}
			if tc.warned != (len(warns) == 1) || len(warns) > 1 {
				t.Errorf("warnings %q (want one: %v)", warns, tc.warned)
			}
			if err := checkInvariants(d); err != nil {
				t.Error(err)
			}
		})
	}
}

// parsedLabels reads the labels of a label-only file as regression targets:
// as written.
func parsedLabels(t *testing.T, in string) []float64 {
	t.Helper()
	d, err := Read(strings.NewReader(in), "labels", Options{Task: task.Regression})
	if err != nil {
		t.Fatal(err)
	}
	return d.Labels
}

func TestTooManyClasses(t *testing.T) {
	labels := append(count(1000, 0), 1, 2) // repeats do not count
	labels = append(labels, count(500, 1000)...)
	in := labelFile(labels...)
	_, err := Read(strings.NewReader(in), "many.svm", Options{Task: task.Multiclass})
	checkParseError(t, err, "many.svm", 1003, "1500 distinct labels, more than the limit of 1000 classes")
}

func TestResolveServesEveryTask(t *testing.T) {
	var warns []string
	warn := func(m string) { warns = append(warns, m) }
	d, err := Read(strings.NewReader("1 1:1\n\n0 2:2\n1\n"), "zo.svm", Options{Warn: warn})
	if err != nil {
		t.Fatal(err)
	}
	if d.Task != task.Binary || !reflect.DeepEqual(d.Labels, []float64{1, -1, 1}) || len(warns) != 1 {
		t.Fatalf("read: %v %v, warnings %q", d.Task, d.Labels, warns)
	}
	tests := []struct {
		task    task.Task
		labels  []float64
		classes []int
		warned  bool
	}{
		{task.Regression, []float64{1, 0, 1}, nil, false},
		{task.Multiclass, []float64{1, 0, 1}, []int{0, 1}, false},
		{task.Binary, []float64{1, -1, 1}, nil, true},
		{task.Auto, []float64{1, -1, 1}, nil, true},
	}
	for _, tc := range tests {
		// From the read dataset, and from a subset (which keeps the mapping).
		for _, from := range []*Dataset{d, d.Subset([]int{0, 1, 2})} {
			warns = nil
			r, err := from.Resolve(tc.task, warn)
			if err != nil {
				t.Fatalf("%v: %v", tc.task, err)
			}
			want := tc.task
			if want == task.Auto {
				want = task.Binary
			}
			if r.Task != want || !reflect.DeepEqual(r.Labels, tc.labels) || !reflect.DeepEqual(r.Classes, tc.classes) ||
				tc.warned != (len(warns) == 1) {
				t.Errorf("%v: got %v %v %v, warnings %q", tc.task, r.Task, r.Labels, r.Classes, warns)
			}
			if &r.Index[0] != &from.Index[0] || &r.Labels[0] == &from.Labels[0] {
				t.Errorf("%v: Resolve must share the rows, not the labels", tc.task)
			}
			if err := checkInvariants(r); err != nil {
				t.Errorf("%v: %v", tc.task, err)
			}
		}
	}
	if d.Task != task.Binary || !reflect.DeepEqual(d.Labels, []float64{1, -1, 1}) || d.Classes != nil {
		t.Errorf("Resolve changed its receiver: %v %v %v", d.Task, d.Labels, d.Classes)
	}
}

// TestResolveErrorsAreReadErrors: a label that breaks a task is reported
// alike by Read and by Resolve of what Auto read.
func TestResolveErrorsAreReadErrors(t *testing.T) {
	tests := []struct {
		in   string
		task task.Task
		line int
		word string
	}{
		{"+1\n\n-1\n2 1:1\n", task.Binary, 4, "label 2 is not -1 or +1"},
		{"1\n0 1:1\n1\n-1\n", task.Binary, 2, "the file also has label -1 (line 4)"},
		{"1\n2\n2.5\n", task.Multiclass, 3, "not a class"},
		{"7\n7\n", task.Multiclass, 0, "at least 2 classes"},
		{labelFile(count(1001, 0)...), task.Multiclass, 1001, "1001 distinct labels"},
	}
	for _, tc := range tests {
		_, readErr := Read(strings.NewReader(tc.in), "r.svm", Options{Task: tc.task})
		checkParseError(t, readErr, "r.svm", tc.line, tc.word)
		d, err := Read(strings.NewReader(tc.in), "r.svm", Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Resolve(tc.task, nil)
		if err == nil || err.Error() != readErr.Error() {
			t.Errorf("%v on %q: Resolve says %v, Read says %v", tc.task, tc.in, err, readErr)
		}
	}
}

func TestInvalidOptions(t *testing.T) {
	tests := []struct {
		opt  Options
		word string
	}{
		{Options{Task: task.Task(4)}, "unknown task 4"},
		{Options{HashBits: 31}, "HashBits 31 outside 1..30"},
		{Options{HashBits: -1}, "HashBits -1"},
		{Options{HashBits: 4, Dim: 15}, "Options.Dim 15 is below the 2^4"},
	}
	for _, tc := range tests {
		_, err := Read(strings.NewReader("+1 1:1\n"), "o.svm", tc.opt)
		var pe *ParseError
		if err == nil || errors.As(err, &pe) || !strings.Contains(err.Error(), tc.word) || !strings.Contains(err.Error(), "o.svm") {
			t.Errorf("%+v: error %v, want a plain error naming o.svm with %q", tc.opt, err, tc.word)
		}
	}
	d, err := Read(strings.NewReader("+1 1:1\n"), "o.svm", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Resolve(task.Task(4), nil); err == nil || !strings.Contains(err.Error(), "unknown task") {
		t.Errorf("Resolve(%d): error %v", task.Task(4), err)
	}
}
