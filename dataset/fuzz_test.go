package dataset

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/bogd-project/bogd/task"
)

func FuzzRead(f *testing.F) {
	f.Add([]byte("+1 1:0.5 3:-2\n-1 2:1e-1\n"))
	f.Add([]byte("0 1:1\n1 2:2\n"))
	f.Add(gzipBytes(f, "+1 1:1\n-1\n"))
	f.Add([]byte("3 1:1\n1 2:2\n2.0\n"))
	f.Add([]byte("0.5 the cat:2 sat\n-1e3 a:b:1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{}, {Dim: 5}, {HashBits: 3}, {Task: task.Binary}, {Task: task.Multiclass}, {Task: task.Regression}} {
			opt.Warn = func(string) {}
			d, err := Read(bytes.NewReader(data), "fuzz", opt)
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.File != "fuzz" || pe.Line < 0 {
					t.Fatalf("%+v: error %v (%T) is not a *ParseError for the input", opt, err, err)
				}
				continue
			}
			if d.Len() == 0 {
				t.Fatal("success with no rows")
			}
			if opt.Dim > 0 && d.Dim != opt.Dim || opt.HashBits > 0 && d.Dim != 1<<opt.HashBits {
				t.Fatalf("Dim %d with %+v", d.Dim, opt)
			}
			if d.Task == task.Auto || opt.Task != task.Auto && d.Task != opt.Task {
				t.Fatalf("task %v with %+v", d.Task, opt)
			}
			if err := checkInvariants(d); err != nil {
				t.Fatal(err)
			}
			if opt.Task == task.Auto {
				checkResolve(t, data, opt, d)
			}
			checkScaled(t, d)
		}
	})
}

// checkResolve checks that Resolve of what Auto read with opt agrees with
// reading for each task: the same error or the same labels.
func checkResolve(t *testing.T, data []byte, opt Options, auto *Dataset) {
	for _, tk := range []task.Task{task.Binary, task.Multiclass, task.Regression} {
		opt.Task = tk
		want, werr := Read(bytes.NewReader(data), "fuzz", opt)
		got, gerr := auto.Resolve(tk, nil)
		switch {
		case (werr == nil) != (gerr == nil):
			t.Fatalf("%v: Read error %v, Resolve error %v", tk, werr, gerr)
		case werr != nil && werr.Error() != gerr.Error():
			t.Fatalf("%v: Read error %v, Resolve error %v", tk, werr, gerr)
		case werr == nil && (got.Task != want.Task || !reflect.DeepEqual(got.Labels, want.Labels) || !reflect.DeepEqual(got.Classes, want.Classes)):
			t.Fatalf("%v: Resolve gives %v %v %v, Read %v %v %v", tk, got.Task, got.Labels, got.Classes, want.Task, want.Labels, want.Classes)
		}
	}
}

// checkScaled checks that a dataset's own min-max scaling puts every value
// (and a regression label) in [0, 1].
func checkScaled(t *testing.T, d *Dataset) {
	labels := d.Task == task.Regression
	scaling, err := MinMax(d, labels)
	if err != nil {
		t.Fatalf("measuring its own data: %v", err)
	}
	s, err := d.Scale(scaling)
	if err != nil {
		t.Fatalf("scaling its own data: %v", err)
	}
	if err := checkInvariants(s); err != nil {
		t.Fatalf("scaled: %v", err)
	}
	for _, v := range s.Value {
		if v < 0 || v > 1 {
			t.Fatalf("scaled value %v", v)
		}
	}
	for _, y := range s.Labels {
		if labels && (y < 0 || y > 1) {
			t.Fatalf("scaled label %v", y)
		}
	}
}

func FuzzParseOrders(f *testing.F) {
	f.Add([]byte("3,1,2\n2,3,1\n"), 3, 0)
	f.Add([]byte("1, 2\r\n\n2 ,1\n"), 2, 1)
	f.Fuzz(func(t *testing.T, data []byte, n, maxLines int) {
		if n > 1<<16 || n < -1 {
			n %= 1 << 16 // keep the memory per line bounded
		}
		perms, err := ParseOrders(bytes.NewReader(data), "fuzz", n, maxLines)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz" {
				t.Fatalf("error %v (%T) is not a *ParseError for the input", err, err)
			}
			return
		}
		if len(perms) == 0 || (maxLines > 0 && len(perms) > maxLines) {
			t.Fatalf("%d permutations with maxLines %d", len(perms), maxLines)
		}
		for _, p := range perms {
			if len(p) != n {
				t.Fatalf("permutation of length %d, n = %d", len(p), n)
			}
			seen := make([]bool, n)
			for _, v := range p {
				if v < 0 || v >= n || seen[v] {
					t.Fatalf("not a permutation of 0..%d: %v", n-1, p)
				}
				seen[v] = true
			}
		}
	})
}
