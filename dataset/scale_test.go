package dataset

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/prep"
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

func minMax(t *testing.T, d *Dataset, labels bool) *prep.Scaling {
	t.Helper()
	s, err := MinMax(d, labels)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMinMaxByHand(t *testing.T) {
	d := readString(t, handScaled, Options{Task: task.Regression, Dim: 4})
	s := minMax(t, d, true)
	// Feature 1: 2, absent, 4 -> [0, 4]. Feature 2: -2, 1, absent -> [-2, 1].
	// Feature 3: 5 everywhere -> constant. Feature 4: never present -> constant 0.
	want, err := prep.NewMinMax([]float32{0, -2, 5, 0}, []float32{4, 1, 5, 0}, &[2]float64{10, 20})
	if err != nil || !reflect.DeepEqual(s, want) {
		t.Errorf("MinMax = %+v\nwant     %+v (%v)", s, want, err)
	}
	got, err := d.Scale(s)
	if err != nil {
		t.Fatal(err)
	}
	wantData := &Dataset{
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
	if !reflect.DeepEqual(got, wantData) {
		t.Errorf("Scale = %+v\nwant    %+v", got, wantData)
	}
	if err := checkInvariants(got); err != nil {
		t.Error(err)
	}
	if _, v := d.Row(0); v[0] != 2 {
		t.Error("Scale changed its input")
	}
}

func TestMinMaxLabels(t *testing.T) {
	d := readString(t, handScaled, Options{Task: task.Regression})
	in := prep.Input{Scaling: minMax(t, d, true)}
	scaled, err := d.Scale(in.Scaling)
	if err != nil || !reflect.DeepEqual(scaled.Labels, []float64{0, 1, 0.5}) {
		t.Errorf("labels %v (%v), want [0 1 0.5]", scaled.Labels, err)
	}
	if in.Label(30) != 2 || in.Unlabel(0.5) != 15 {
		t.Errorf("Label(30) %v, Unlabel(0.5) %v", in.Label(30), in.Unlabel(0.5))
	}
	features := minMax(t, d, false)
	scaled, err = d.Scale(features)
	if err != nil || !reflect.DeepEqual(scaled.Labels, d.Labels) {
		t.Errorf("labels %v, want %v (%v)", scaled.Labels, d.Labels, err)
	}
	if _, err := MinMax(&Dataset{Name: "inf", Dim: 1, Labels: []float64{1}, RowPtr: []int{0, 1}, Index: []int32{0}, Value: []float32{float32(math.Inf(1))}}, false); err == nil || !strings.Contains(err.Error(), "inf: ") {
		t.Errorf("an infinite value: %v", err)
	}
}

func TestMinMaxRefusesClasses(t *testing.T) {
	d := readString(t, "1 1:1\n-1 1:2\n", Options{})
	if _, err := d.Scale(minMax(t, d, true)); err == nil || !strings.Contains(err.Error(), "binary") {
		t.Errorf("scaling binary labels: error %v", err)
	}
	if _, err := d.Scale(minMax(t, d, false)); err != nil {
		t.Errorf("scaling the features of binary data: %v", err)
	}
}

// TestMinMaxNewData: data other than the scaling's own may fall outside
// [0, 1], may have fewer features, and may not have more.
func TestMinMaxNewData(t *testing.T) {
	s := minMax(t, readString(t, handScaled, Options{Task: task.Regression}), true)
	d := readString(t, "25 1:8 2:-5\n\n30\n", Options{Task: task.Regression})
	got, err := d.Scale(s)
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
		t.Errorf("Scale = %+v\nwant    %+v", got, want)
	}
	wide := readString(t, "1 1:1\n2 2:1 4:1\n", Options{Task: task.Regression})
	_, err = wide.Scale(s)
	checkParseError(t, err, "s.svm", 2, "feature 4 is beyond the 3 features of the scaling")
	if !errors.Is(err, prep.ErrRow) {
		t.Errorf("%v does not wrap prep.ErrRow", err)
	}

	narrow := minMax(t, readString(t, "1 1:1e-30\n2\n", Options{Task: task.Regression}), false)
	_, err = readString(t, "1\n1 1:1e10\n", Options{Task: task.Regression}).Scale(narrow)
	checkParseError(t, err, "s.svm", 2, "beyond the float32 range")

	_, err = readString(t, "1 1:1\n1e300 1:2\n", Options{Task: task.Regression}).Scale(minMax(t, readString(t, "0 1:1\n1e-300 1:1\n", Options{Task: task.Regression}), true))
	checkParseError(t, err, "s.svm", 2, "label 1e+300 scales to +Inf")
}

// TestPrepare: the features beyond the model's dimension are left out and
// counted, the first one located; the rest are scaled as Scale does.
func TestPrepare(t *testing.T) {
	train := readString(t, handScaled, Options{Task: task.Regression})
	in := prep.Input{Scaling: minMax(t, train, true)}
	d := readString(t, "25 1:8 2:-5 5:1\n\n30 4:2 7:1\n12 3:1\n", Options{Task: task.Regression})
	got, clipped, err := d.Prepare(in, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Clipped{Dim: 3, Features: 3, Rows: 2, First: "s.svm:1", FirstIndex: 5}); clipped != want {
		t.Errorf("clipped %+v, want %+v", clipped, want)
	}
	narrow := readString(t, "25 1:8 2:-5\n\n30\n12 3:1\n", Options{Task: task.Regression})
	want, err := narrow.Scale(in.Scaling)
	if err != nil {
		t.Fatal(err)
	}
	want.lines = []int{1, 3, 4}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Prepare = %+v\nwant      %+v", got, want)
	}
	plain, clipped, err := d.Prepare(prep.Input{}, 4)
	if err != nil || clipped.Features != 2 || clipped.First != "s.svm:1" || plain.Dim != 4 || !reflect.DeepEqual(plain.Index, []int32{0, 1, 3, 2}) || !reflect.DeepEqual(plain.Labels, d.Labels) {
		t.Errorf("Prepare without scaling: %+v, %+v, %v", plain, clipped, err)
	}
}

// TestHashedLikePrep: the reader hashes the names of a file as
// prep.Input.Prepare hashes the names of a raw row.
func TestHashedLikePrep(t *testing.T) {
	d := readHashed(t, "1 the cat sat:2 on the mat http://x:0.5 a:b:3\n", 6)
	in := prep.Input{HashBits: 6}
	var row prep.Row
	err := in.Prepare(&row, []prep.Feature{{Key: "mat", Value: 1}, {Key: "the", Value: 1}, {Key: "cat", Value: 1}, {Key: "a:b", Value: 3}, {Key: "sat", Value: 2}, {Key: "on", Value: 1}, {Key: "the", Value: 1}, {Key: "http://x", Value: 0.5}}, 64)
	idx, val := d.Row(0)
	if err != nil || !reflect.DeepEqual(row.Index, idx) || !reflect.DeepEqual(row.Value, val) {
		t.Errorf("prep %v %v (%v), the reader %v %v", row.Index, row.Value, err, idx, val)
	}
}

// TestMaxAbs: the largest absolute value of every feature (absent ones
// peak 0), a regression's labels min-max; the scaled rows keep their
// non-zeros.
func TestMaxAbs(t *testing.T) {
	d, err := Read(strings.NewReader("10 1:-4.6 3:2\n30 1:2 3:-581\n20 2:0.5\n"), "wide", Options{Task: task.Regression})
	if err != nil {
		t.Fatal(err)
	}
	s, err := MaxAbs(d, true)
	if err != nil {
		t.Fatal(err)
	}
	scaled, err := d.Scale(s)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{-1, 2 / 581.0, 2 / 4.6, -1, 1}
	if !slices.Equal(scaled.Index, d.Index) || !slices.Equal(scaled.RowPtr, d.RowPtr) || !slices.EqualFunc(scaled.Value, want, func(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-7 }) {
		t.Errorf("scaled values %v, want %v", scaled.Value, want)
	}
	if !slices.Equal(scaled.Labels, []float64{0, 1, 0.5}) || s.Method() != "maxabs" {
		t.Errorf("scaled labels %v", scaled.Labels)
	}
}
