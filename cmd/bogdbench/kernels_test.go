package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/simd"
)

// TestKernelsJSON: the JSON report parses, measures every available
// implementation on every requested shape once, with a measured peak for
// each that is positive and finite, and leaves the active implementation
// as it was.
func TestKernelsJSON(t *testing.T) {
	prev := simd.Active()
	var out, errOut bytes.Buffer
	args := []string{"kernels", "--quick", "--format", "json", "--budget", "32,64", "--dim", "8", "--batches", "1"}
	if code := dispatch(args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var rep kernelReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v in\n%s", err, out.String())
	}
	if !strings.Contains(rep.PeakMethod, "measured") || rep.GHz != 0 {
		t.Errorf("peak method %q, assumed clock %v: want a measured peak", rep.PeakMethod, rep.GHz)
	}
	seen := map[string]int{}
	for _, r := range rep.Results {
		seen[fmt.Sprintf("%s/%d/%d", r.SIMD, r.Budget, r.Dim)]++
		if !(r.NsPerEval > 0) || math.IsInf(r.NsPerEval, 0) || r.NsMin > r.NsPerEval {
			t.Errorf("implausible timing %+v", r)
		}
	}
	for _, impl := range simd.Available() {
		if p := rep.Peak[impl.String()]; !(p > 0) || math.IsInf(p, 0) {
			t.Errorf("%v: peak %v GFLOP/s, want positive and finite", impl, p)
		}
		for _, budget := range []int{32, 64} {
			if key := fmt.Sprintf("%v/%d/8", impl, budget); seen[key] != 1 {
				t.Errorf("%s measured %d times, want once", key, seen[key])
			}
		}
	}
	if len(rep.Results) != 2*len(simd.Available()) {
		t.Errorf("%d results, want %d", len(rep.Results), 2*len(simd.Available()))
	}
	if simd.Active() != prev {
		t.Errorf("active implementation %v not restored", simd.Active())
	}
}

// TestKernelsPeakLabel: the table says how the peak was obtained, and an
// assumed clock (--ghz) is labelled as such in the table and the JSON.
func TestKernelsPeakLabel(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--budget", "16", "--dim", "4"}, "measured by simd.PeakFLOPS"},
		{[]string{"--budget", "16", "--dim", "4", "--ghz", "2"}, "assumed, not measured: 1 core x 2.00 GHz (--ghz)"},
		{[]string{"--budget", "16", "--dim", "4", "--ghz", "2", "--format", "json"}, `"assumed_ghz": 2`},
	} {
		var out, errOut bytes.Buffer
		args := append([]string{"kernels", "--quick", "--batches", "1"}, c.args...)
		if code := dispatch(args, nil, &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut.String())
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%v: output lacks %q:\n%s", c.args, c.want, out.String())
		}
	}
}

// TestKernelsUsage: bad flags are usage errors (exit 2), reported before
// anything is measured.
func TestKernelsUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--format", "xml"},
		{"--ghz", "-1"},
		{"--ghz", "NaN"},
		{"--batches", "-2"},
		{"--budget", "ten"},
		{"--dim", "0"},
		{"--budget", "0"},
		{"extra"},
	} {
		var out, errOut bytes.Buffer
		if code := dispatch(append([]string{"kernels"}, args...), nil, &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", args, code)
		}
		if out.Len() != 0 {
			t.Errorf("%v: measured something:\n%s", args, out.String())
		}
	}
}

func TestPaperShapes(t *testing.T) {
	shapes := paperShapes(false)
	if len(shapes) != 6*3+3 {
		t.Fatalf("%d shapes", len(shapes))
	}
	var sparse int
	for _, s := range shapes {
		if s.NNZ > 0 {
			sparse++
			if s.Name != "w8a sparse" || s.Dim != 300 {
				t.Errorf("sparse shape %+v", s)
			}
		}
	}
	if sparse != 3 || len(paperShapes(true)) != 7 {
		t.Errorf("%d sparse shapes, %d quick shapes", sparse, len(paperShapes(true)))
	}
}
