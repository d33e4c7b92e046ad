package dataset

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/task"
)

// handScaled is a small regression set whose scaling was computed by hand.
const handScaled = `10 1:2 2:-2 3:5
# a comment moves the lines
20 2:1 3:5
15 1:4 3:5
`

func readString(t *testing.T, in string, opt Options) *Dataset {
	t.Helper()
	d, err := Read(strings.NewReader(in), "s.svm", opt)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestMinMaxByHand(t *testing.T) {
	d := readString(t, handScaled, Options{Task: task.Regression, Dim: 4})
	s := MinMax(d, true)
	// Feature 1: 2, absent, 4 -> [0, 4]. Feature 2: -2, 1, absent -> [-2, 1].
	// Feature 3: 5 everywhere -> constant. Feature 4: never present -> constant 0.
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"method":"minmax","min":[0,-2,5,0],"max":[4,1,5,0],"label":[10,20]}`; string(js) != want {
		t.Errorf("JSON %s\nwant %s", js, want)
	}
	got, err := s.Apply(d)
	if err != nil {
		t.Fatal(err)
	}
	want := &Dataset{
		Name: "s.svm", Dim: 4, Task: task.Regression,
		Labels: []float64{0, 1, 0.5},
		RowPtr: []int{0, 1, 2, 4},
		// Row 1: 2 -> 0.5; -2 -> 0 (dropped); 5 -> 0 (constant, dropped).
		// Row 2: absent feature 1 stays 0; 1 -> 1.
		// Row 3: 4 -> 1; absent feature 2 -> (0 - -2)/3.
		Index: []int32{0, 1, 0, 1},
		Value: []float32{0.5, 1, 1, float32(2.0 / 3)},
		lines: []int{1, 3, 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Apply = %+v\nwant    %+v", got, want)
	}
	if err := checkInvariants(got); err != nil {
		t.Error(err)
	}
	if _, v := d.Row(0); v[0] != 2 {
		t.Error("Apply changed its input")
	}
}

func TestMinMaxLabels(t *testing.T) {
	d := readString(t, handScaled, Options{Task: task.Regression})
	s := MinMax(d, true)
	for _, y := range []float64{10, 20, 15, 12.5, -7, 1e6} {
		if got := s.Unlabel(s.Label(y)); math.Abs(got-y) > 1e-12*math.Abs(y) {
			t.Errorf("Unlabel(Label(%v)) = %v", y, got)
		}
	}
	if s.Label(20) != 1 || s.Label(10) != 0 || s.Label(30) != 2 || s.Unlabel(0.5) != 15 {
		t.Errorf("Label(20) %v, Label(10) %v, Label(30) %v, Unlabel(0.5) %v", s.Label(20), s.Label(10), s.Label(30), s.Unlabel(0.5))
	}
	constant := MinMax(readString(t, "4 1:1\n4 1:2\n", Options{Task: task.Regression}), true)
	if constant.Label(4) != 0 || constant.Label(9) != 0 || constant.Unlabel(0.3) != 4 {
		t.Errorf("constant label 4: Label(4) %v, Label(9) %v, Unlabel(0.3) %v", constant.Label(4), constant.Label(9), constant.Unlabel(0.3))
	}
	features := MinMax(d, false)
	if features.Label(12.5) != 12.5 || features.Unlabel(12.5) != 12.5 {
		t.Error("a scaling of the features alone changes labels")
	}
	scaled, err := features.Apply(d)
	if err != nil || !reflect.DeepEqual(scaled.Labels, d.Labels) {
		t.Errorf("labels %v, want %v (%v)", scaled.Labels, d.Labels, err)
	}
}

func TestMinMaxRefusesClasses(t *testing.T) {
	d := readString(t, "1 1:1\n-1 1:2\n", Options{})
	if _, err := MinMax(d, true).Apply(d); err == nil || !strings.Contains(err.Error(), "binary") {
		t.Errorf("scaling binary labels: error %v", err)
	}
	if _, err := MinMax(d, false).Apply(d); err != nil {
		t.Errorf("scaling the features of binary data: %v", err)
	}
}

// TestMinMaxNewData: data other than the scaling's own may fall outside
// [0, 1], may have fewer features, and may not have more.
func TestMinMaxNewData(t *testing.T) {
	s := MinMax(readString(t, handScaled, Options{Task: task.Regression}), true)
	d := readString(t, "25 1:8 2:-5\n\n30\n", Options{Task: task.Regression})
	got, err := s.Apply(d)
	if err != nil {
		t.Fatal(err)
	}
	want := &Dataset{
		Name: "s.svm", Dim: 3, Task: task.Regression,
		Labels: []float64{1.5, 2},
		RowPtr: []int{0, 2, 3},
		Index:  []int32{0, 1, 1},
		Value:  []float32{2, -1, float32(2.0 / 3)},
		lines:  []int{1, 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Apply = %+v\nwant    %+v", got, want)
	}
	wide := readString(t, "1 1:1\n2 2:1 4:1\n", Options{Task: task.Regression})
	_, err = s.Apply(wide)
	checkParseError(t, err, "s.svm", 2, "feature 4 is beyond the 3 features of the scaling")

	narrow := MinMax(readString(t, "1 1:1e-30\n2\n", Options{Task: task.Regression}), false)
	_, err = narrow.Apply(readString(t, "1\n1 1:1e10\n", Options{Task: task.Regression}))
	checkParseError(t, err, "s.svm", 2, "beyond the float32 range")
}

func TestScalingJSON(t *testing.T) {
	d := readString(t, "0.1 1:0.1 3:-7.25e-3\n0.3 2:3.4028234e38 3:1e-40\n", Options{Task: task.Regression})
	for _, labels := range []bool{false, true} {
		s := MinMax(d, labels)
		js, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Scaling
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		if !reflect.DeepEqual(&back, s) {
			t.Errorf("round trip of %s: %+v, want %+v", js, back, *s)
		}
		if labels != strings.Contains(string(js), `"label"`) {
			t.Errorf("labels %v: %s", labels, js)
		}
	}
	for _, bad := range []struct{ js, word string }{
		{`{"method":"zscore","min":[],"max":[]}`, `method "zscore"`},
		{`{"method":"minmax","min":[1],"max":[]}`, "1 minima but 0 maxima"},
		{`{"method":"minmax","min":[0,2],"max":[1,1]}`, "feature 2: minimum 2 above its maximum 1"},
		{`{"method":"minmax","min":[],"max":[],"label":[3,1]}`, "label minimum 3 above"},
		{`{"method":"minmax","min":[],"max":[],"scale":2}`, "unknown field"},
		{`{"method":"minmax","min":[1e39],"max":[1e39]}`, "float32"},
	} {
		var s Scaling
		if err := json.Unmarshal([]byte(bad.js), &s); err == nil || !strings.Contains(err.Error(), bad.word) {
			t.Errorf("%s: error %v, want one with %q", bad.js, err, bad.word)
		}
	}
}

// TestMinMaxExact: every scaled value is the exact (x − min)/(max − min)
// rounded once to float32, and lies in [0, 1]. The values have fractions
// and mixed magnitudes, so that float32 arithmetic would round twice.
func TestMinMaxExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var in strings.Builder
	for range 300 {
		in.WriteString("0")
		for j, scale := range []float64{1, 1e-3, 100, 1e6, 0.37} {
			if rng.IntN(4) > 0 { // sparse: some rows lack the feature
				fmt.Fprintf(&in, " %d:%v", j+1, float32((rng.Float64()-0.3)*scale))
			}
		}
		in.WriteString("\n")
	}
	d := readString(t, in.String(), Options{})
	s := MinMax(d, false)
	scaled, err := s.Apply(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkInvariants(scaled); err != nil {
		t.Fatal(err)
	}
	var x, y []float32
	reached := make([]bool, d.Dim) // a value 1 per feature
	for i := range d.Len() {
		x = d.Dense(i, x)
		y = scaled.Dense(i, y)
		for j := range x {
			lo, hi := s.min[j], s.max[j]
			r := new(big.Rat).Quo(
				new(big.Rat).Sub(new(big.Rat).SetFloat64(float64(x[j])), new(big.Rat).SetFloat64(float64(lo))),
				new(big.Rat).Sub(new(big.Rat).SetFloat64(float64(hi)), new(big.Rat).SetFloat64(float64(lo))))
			want, _ := r.Float32()
			if y[j] != want || y[j] < 0 || y[j] > 1 {
				t.Fatalf("row %d feature %d: %v scales to %v, want %v", i, j+1, x[j], y[j], want)
			}
			reached[j] = reached[j] || y[j] == 1
		}
	}
	for j, ok := range reached {
		if !ok {
			t.Errorf("feature %d never scales to 1", j+1)
		}
	}
}
