package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/simd"
)

func TestKernelsCommand(t *testing.T) {
	prev := simd.Active()
	var out, errOut bytes.Buffer
	args := []string{"kernels", "--quick", "--format", "json", "--budget", "32,64", "--dim", "8", "--batches", "1", "--ghz", "2"}
	if code := dispatch(args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var rep kernelReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	avail := simd.Available()
	if len(rep.Results) != 2*len(avail) {
		t.Fatalf("%d results for %d implementations and 2 shapes", len(rep.Results), len(avail))
	}
	if rep.GHz != 2 || rep.Peak["generic"] != 2*2*1*2 {
		t.Errorf("peak %v at %v GHz", rep.Peak, rep.GHz)
	}
	for _, r := range rep.Results {
		if !(r.NsPerEval > 0) || r.Flops != float64(r.Budget*(3*8+20)) || r.GFlops <= 0 || r.PeakShare <= 0 {
			t.Errorf("implausible result %+v", r)
		}
		if r.SIMD == "generic" && r.SpeedUp != 1 {
			t.Errorf("generic speed-up %v", r.SpeedUp)
		}
	}
	if simd.Active() != prev {
		t.Errorf("active implementation %v not restored", simd.Active())
	}

	// The table says where the peak comes from.
	out.Reset()
	if code := dispatch([]string{"kernels", "--quick", "--budget", "16", "--dim", "4", "--batches", "1"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "2.30 GHz (--ghz") || !strings.Contains(out.String(), "speed-up") {
		t.Errorf("table output:\n%s", out.String())
	}
	if code := dispatch([]string{"kernels", "--format", "xml"}, &out, &errOut); code != 2 {
		t.Errorf("bad format: exit %d", code)
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
