package prep

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/task"
)

func newMinMax(t testing.TB, lo, hi []float32, label *[2]float64) *Scaling {
	t.Helper()
	s, err := NewMinMax(lo, hi, label)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestHashIndex(t *testing.T) {
	if got := hashIndex("a", 30); got != 0xe40c292c&(1<<30-1) { // the published FNV-1a vector
		t.Fatalf("hash of a: %#x", got)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for range 1000 {
		name := make([]byte, r.IntN(20))
		for i := range name {
			name[i] = byte(r.IntN(256))
		}
		h := fnv.New32a()
		h.Write(name)
		for _, bits := range []int{1, 12, 30} {
			want := int32(h.Sum32() & (1<<bits - 1))
			if hashIndex(name, bits) != want || hashIndex(string(name), bits) != want {
				t.Fatalf("%q in 2^%d: %d, hash/fnv %d", name, bits, hashIndex(name, bits), want)
			}
		}
	}
}

// collidingNames returns two different names with one index in 2^bits.
func collidingNames(bits int) (string, string) {
	seen := map[int32]string{}
	for i := 0; ; i++ {
		name := fmt.Sprintf("w%d", i)
		h := hashIndex(name, bits)
		if other, ok := seen[h]; ok {
			return other, name
		}
		seen[h] = name
	}
}

type indexed struct {
	Index []int32
	Value []float32
}

func flush(t *testing.T, h *Hasher) (indexed, error) {
	t.Helper()
	var out indexed
	err := h.Flush(func(j int32, v float32) {
		out.Index, out.Value = append(out.Index, j), append(out.Value, v)
	})
	return out, err
}

// TestHasherSums: repeats and collisions add, zero sums go, the sum does
// not depend on the order (1e30 + 1 − 1e30 in some orders would be 1),
// a sum beyond float32 is an error, and the Hasher starts afresh.
func TestHasherSums(t *testing.T) {
	h, err := NewHasher(3)
	if err != nil || h.Dim() != 8 {
		t.Fatalf("NewHasher(3): dim %d, %v", h.Dim(), err)
	}
	a, b := collidingNames(3)
	tokens := []struct {
		name  string
		value float32
	}{{"w", 1e30}, {"w", 1}, {"w", -1e30}, {a, 0.5}, {b, 0.25}, {"x", 0}}
	r := rand.New(rand.NewPCG(2, 2))
	var first indexed
	for k := range 50 {
		r.Shuffle(len(tokens), func(i, j int) { tokens[i], tokens[j] = tokens[j], tokens[i] })
		for _, tok := range tokens {
			h.Add([]byte(tok.name), tok.value)
		}
		got, err := flush(t, h)
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			first = got
			continue
		}
		if !reflect.DeepEqual(got, first) {
			t.Fatalf("order %v: %v, first order %v", tokens, got, first)
		}
	}
	// w's values sum, from the smallest, to 0: no feature.
	if want := (indexed{[]int32{hashIndex(a, 3)}, []float32{0.75}}); !reflect.DeepEqual(first, want) {
		t.Fatalf("row %v, want %v", first, want)
	}
	h.Add([]byte(a), math.MaxFloat32)
	h.Add([]byte(b), math.MaxFloat32)
	if _, err := flush(t, h); !errors.Is(err, ErrRow) || !strings.Contains(err.Error(), "beyond the float32 range") {
		t.Fatalf("an overflowing sum: %v", err)
	}
	if got, err := flush(t, h); err != nil || got.Index != nil {
		t.Fatalf("after an error: %v, %v", got, err)
	}
	for _, bits := range []int{0, 31} {
		if _, err := NewHasher(bits); err == nil {
			t.Errorf("NewHasher(%d) accepted", bits)
		}
	}
}

func TestNewMinMaxRefuses(t *testing.T) {
	inf := float32(math.Inf(1))
	for _, c := range []struct {
		lo, hi []float32
		label  *[2]float64
		want   string
	}{
		{[]float32{1}, nil, nil, "1 minima but 0 maxima"},
		{[]float32{0, 2}, []float32{1, 1}, nil, "feature 2: minimum 2 and maximum 1"},
		{[]float32{-inf}, []float32{0}, nil, "feature 1: minimum -Inf"},
		{[]float32{float32(math.NaN())}, []float32{0}, nil, "feature 1: minimum NaN"},
		{nil, nil, &[2]float64{3, 1}, "label minimum 3 and maximum 1"},
		{nil, nil, &[2]float64{0, math.Inf(1)}, "label minimum 0 and maximum +Inf"},
	} {
		if _, err := NewMinMax(c.lo, c.hi, c.label); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v %v: %v, want %q", c.lo, c.hi, c.label, err, c.want)
		}
	}
}

// TestPrepareIndexed: features beyond the dimension are dropped and
// listed; the scaling maps the others, adds the features whose absent 0
// maps elsewhere, and drops the values that map to 0.
func TestPrepareIndexed(t *testing.T) {
	// Feature 1 in [0, 4], 2 in [-2, 1] (an absent 0 maps to 2/3), 3
	// constant, 4 never seen.
	in := Input{Scaling: newMinMax(t, []float32{0, -2, 5, 0}, []float32{4, 1, 5, 0}, nil)}
	var row Row
	for _, c := range []struct {
		index        []int32
		value        []float32
		dim          int
		want         indexed
		wantIgnored  []int32
		withoutScale indexed
	}{
		{[]int32{0, 1, 2}, []float32{2, -2, 5}, 4, indexed{[]int32{0}, []float32{0.5}}, nil, indexed{[]int32{0, 1, 2}, []float32{2, -2, 5}}},
		{nil, nil, 4, indexed{[]int32{1}, []float32{float32(2.0 / 3)}}, nil, indexed{}},
		{[]int32{0, 3, 4, 9}, []float32{8, 1, 1, 1}, 4, indexed{[]int32{0, 1}, []float32{2, float32(2.0 / 3)}}, []int32{4, 9}, indexed{[]int32{0, 3}, []float32{8, 1}}},
		{[]int32{1, 2}, []float32{-5, 1}, 2, indexed{[]int32{1}, []float32{-1}}, []int32{2}, indexed{[]int32{1}, []float32{-5}}},
	} {
		for scaled, input := range []Input{{}, in} {
			want := c.withoutScale
			if scaled == 1 {
				want = c.want
			}
			if err := input.PrepareIndexed(&row, c.index, c.value, c.dim); err != nil {
				t.Fatal(err)
			}
			got := indexed{row.Index, row.Value}
			if len(got.Index) == 0 {
				got = indexed{}
			}
			if !reflect.DeepEqual(got, want) || len(row.Ignored)+len(c.wantIgnored) > 0 && !reflect.DeepEqual(row.Ignored, c.wantIgnored) {
				t.Errorf("%v %v in %d dimensions, scaled %v: %v ignoring %v; want %v ignoring %v", c.index, c.value, c.dim, scaled == 1, got, row.Ignored, want, c.wantIgnored)
			}
		}
	}
	for _, c := range []struct {
		in    Input
		index []int32
		value []float32
		dim   int
		want  string
	}{
		{in, []int32{0, 4}, []float32{1, 1}, 9, "feature 5 is beyond the 4 features of the scaling"},
		{Input{Scaling: newMinMax(t, []float32{0}, []float32{1e-30}, nil)}, []int32{0}, []float32{1e10}, 1, "feature 1: value 1e+10 scales to 9.99"},
		{Input{}, []int32{1, 1}, []float32{1, 1}, 9, "strictly ascending"},
		{Input{}, []int32{-1}, []float32{1}, 9, "non-negative"},
		{Input{}, []int32{1}, nil, 9, "1 indices but 0 values"},
	} {
		if err := c.in.PrepareIndexed(&row, c.index, c.value, c.dim); !errors.Is(err, ErrRow) || err.Error() != c.want && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: %v, want %q", c.index, c.value, err, c.want)
		}
	}
}

// TestMinMaxExact: every scaled value is the exact (x − min)/(max − min)
// rounded once to float32, and the bounds map to 0 and 1. The values have
// fractions and mixed magnitudes, so that float32 arithmetic would round
// twice.
func TestMinMaxExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	scales := []float64{1, 1e-3, 100, 1e6, 0.37}
	lo, hi := make([]float32, len(scales)), make([]float32, len(scales))
	rows := make([][]float32, 300)
	for i := range rows {
		rows[i] = make([]float32, len(scales))
		for j, scale := range scales {
			x := float32((rng.Float64() - 0.3) * scale)
			rows[i][j] = x
			lo[j], hi[j] = min(lo[j], x), max(hi[j], x)
		}
	}
	in := Input{Scaling: newMinMax(t, lo, hi, nil)}
	var row Row
	index := []int32{0, 1, 2, 3, 4}
	for i, x := range rows {
		if err := in.PrepareIndexed(&row, index, x, len(x)); err != nil {
			t.Fatal(err)
		}
		y := make([]float32, len(x))
		for k, j := range row.Index {
			y[j] = row.Value[k]
		}
		for j := range x {
			r := new(big.Rat).Quo(
				new(big.Rat).Sub(new(big.Rat).SetFloat64(float64(x[j])), new(big.Rat).SetFloat64(float64(lo[j]))),
				new(big.Rat).Sub(new(big.Rat).SetFloat64(float64(hi[j])), new(big.Rat).SetFloat64(float64(lo[j]))))
			want, _ := r.Float32()
			if y[j] != want || y[j] < 0 || y[j] > 1 || (x[j] == hi[j]) != (y[j] == 1) {
				t.Fatalf("row %d feature %d: %v scales to %v, want %v", i, j+1, x[j], y[j], want)
			}
		}
	}
}

func TestLabels(t *testing.T) {
	in := Input{Scaling: newMinMax(t, nil, nil, &[2]float64{10, 20})}
	for _, y := range []float64{10, 20, 15, 12.5, -7, 1e6} {
		if got := in.Unlabel(in.Label(y)); math.Abs(got-y) > 1e-12*math.Abs(y) {
			t.Errorf("Unlabel(Label(%v)) = %v", y, got)
		}
	}
	if in.Label(20) != 1 || in.Label(10) != 0 || in.Label(30) != 2 || in.Unlabel(0.5) != 15 {
		t.Errorf("Label(20) %v, Label(10) %v, Label(30) %v, Unlabel(0.5) %v", in.Label(20), in.Label(10), in.Label(30), in.Unlabel(0.5))
	}
	constant := Input{Scaling: newMinMax(t, nil, nil, &[2]float64{4, 4})}
	if constant.Label(4) != 0 || constant.Label(9) != 0 || constant.Unlabel(0.3) != 4 {
		t.Errorf("constant label 4: Label(4) %v, Label(9) %v, Unlabel(0.3) %v", constant.Label(4), constant.Label(9), constant.Unlabel(0.3))
	}
	for _, features := range []Input{{}, {Scaling: newMinMax(t, []float32{0}, []float32{1}, nil)}} {
		if features.Label(12.5) != 12.5 || features.Unlabel(12.5) != 12.5 {
			t.Error("an input that scales no labels changes them")
		}
	}
}

// TestPrepare: raw rows by index and by name, and what they may not hold.
func TestPrepare(t *testing.T) {
	var row Row
	indices := Input{Scaling: newMinMax(t, []float32{0, 0, 0}, []float32{2, 4, 8}, nil)}
	err := indices.Prepare(&row, []Feature{{Key: "3", Value: 4}, {Key: "1", Value: 1}, {Key: "02", Value: 0}, {Key: "7", Value: 1}, {Key: "4", Value: 2}}, 3)
	if err != nil || !reflect.DeepEqual(indexed{row.Index, row.Value}, indexed{[]int32{0, 2}, []float32{0.5, 0.5}}) || !reflect.DeepEqual(row.Ignored, []int32{3, 6}) {
		t.Errorf("by index: %v %v ignoring %v (%v)", row.Index, row.Value, row.Ignored, err)
	}
	// 0.1 as a float64 rounds to the float32 nearest it.
	if err := (Input{}).Prepare(&row, []Feature{{Key: "1", Value: 0.1}}, 1); err != nil || row.Value[0] != float32(0.1) {
		t.Errorf("0.1: %v (%v)", row.Value, err)
	}
	a, b := collidingNames(4)
	names := Input{HashBits: 4}
	if err := names.Prepare(&row, []Feature{{Key: a, Value: 1}, {Key: b, Value: 2}, {Key: a, Value: 0.5}, {Key: "z", Value: 0}}, 16); err != nil ||
		!reflect.DeepEqual(indexed{row.Index, row.Value}, indexed{[]int32{hashIndex(a, 4)}, []float32{3.5}}) {
		t.Errorf("by name: %v %v (%v)", row.Index, row.Value, err)
	}
	for _, c := range []struct {
		in   Input
		row  []Feature
		want string
	}{
		{Input{}, []Feature{{Key: "0", Value: 1}}, `feature "0" is not a 1-based index`},
		{Input{}, []Feature{{Key: "x", Value: 1}}, `feature "x" is not a 1-based index`},
		{Input{}, []Feature{{Key: "99999999999", Value: 1}}, `feature "99999999999" is not a 1-based index`},
		{Input{}, []Feature{{Key: "2", Value: 1}, {Key: "+2", Value: 3}}, "feature 2 is given twice"},
		{Input{}, []Feature{{Key: "2", Value: 1e39}}, `feature "2": value 1e+39 is not a finite float32`},
		{Input{}, []Feature{{Key: "2", Value: math.NaN()}}, `feature "2": value NaN is not a finite float32`},
		{names, []Feature{{Key: "a b", Value: 1}}, `feature name "a b": names are not empty and hold no space, tab, newline or #`},
		{names, []Feature{{Key: "", Value: 1}}, `feature name "": names`},
		{names, []Feature{{Key: "x#", Value: 1}}, `feature name "x#": names`},
		{names, []Feature{{Key: a, Value: 3e38}, {Key: b, Value: 3e38}}, "sum to 6.0000000109955115e+38, beyond the float32 range"},
		{Input{Scaling: newMinMax(t, []float32{0}, []float32{0.5}, nil)}, []Feature{{Key: "1", Value: 3e38}}, "feature 1: value 3.0000000054977558e+38 scales to 6.0000000109955115e+38, beyond the float32 range"},
	} {
		if err := c.in.Prepare(&row, c.row, 16); !errors.Is(err, ErrRow) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.row, err, c.want)
		}
	}
	if err := (Input{HashBits: 31}).Prepare(&row, nil, 1); err == nil || errors.Is(err, ErrRow) {
		t.Errorf("hash bits 31: %v", err)
	}
}

func TestCheck(t *testing.T) {
	scaling := newMinMax(t, []float32{0, 0}, []float32{1, 1}, nil)
	labels := newMinMax(t, []float32{0, 0}, []float32{1, 1}, &[2]float64{0, 1})
	for _, c := range []struct {
		in   Input
		dim  int
		task task.Task
		want string
	}{
		{Input{}, 7, task.Binary, ""},
		{Input{HashBits: 3}, 8, task.Binary, ""},
		{Input{Scaling: labels}, 2, task.Regression, ""},
		{Input{Scaling: scaling}, 2, task.Multiclass, ""},
		{Input{HashBits: 3}, 9, task.Binary, "hashed into 2^3 dimensions, but the model has 9"},
		{Input{HashBits: -1}, 9, task.Binary, "hash bits -1"},
		{Input{Scaling: scaling}, 3, task.Binary, "the scaling maps 2 features, but the model has 3"},
		{Input{Scaling: labels}, 2, task.Binary, "the labels of a binary model are classes"},
	} {
		err := c.in.Check(c.dim, c.task)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v, dim %d, %v: %v, want %q", c.in, c.dim, c.task, err, c.want)
		}
	}
}

// binaryCases are inputs of every kind.
func binaryCases(t testing.TB) []Input {
	return []Input{
		{},
		{HashBits: 12},
		{Scaling: newMinMax(t, []float32{0, -2, 5}, []float32{4, 1, 5}, nil)},
		{HashBits: 2, Scaling: newMinMax(t, []float32{0, -1e-30, 1, 0}, []float32{1e30, 3, 1, 0}, &[2]float64{-1.5, 1e300})},
		{Scaling: newMaxAbs(t, []float32{4, 0, 581}, nil)},
		{HashBits: 3, Scaling: newMaxAbs(t, []float32{1e-30, 1e30}, &[2]float64{-2, 7})},
	}
}

func newMaxAbs(t testing.TB, peak []float32, label *[2]float64) *Scaling {
	t.Helper()
	s, err := NewMaxAbs(peak, label)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMaxAbs: every feature divided by its largest absolute value, a zero
// kept a zero (no feature shifted), a feature of peak 0 giving 0; labels
// min-max scaled; the peaks refused when negative or not finite.
func TestMaxAbs(t *testing.T) {
	in := Input{Scaling: newMaxAbs(t, []float32{4.6, 0, 581, 2}, &[2]float64{10, 30})}
	var row Row
	if err := in.PrepareIndexed(&row, []int32{0, 1, 2}, []float32{-4.6, 7, 290.5}, 4); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(row.Index, []int32{0, 2}) || !slices.Equal(row.Value, []float32{-1, 0.5}) {
		t.Errorf("prepared %v %v, want features 1 and 3 at −1 and 0.5", row.Index, row.Value)
	}
	if in.Label(20) != 0.5 || in.Unlabel(1) != 30 || in.Scaling.Method() != "maxabs" || in.Scaling.Dim() != 4 {
		t.Errorf("labels 20 → %v, 1 → %v; method %q", in.Label(20), in.Unlabel(1), in.Scaling.Method())
	}
	for _, peak := range []float32{-1, float32(math.Inf(1)), float32(math.NaN())} {
		if _, err := NewMaxAbs([]float32{1, peak}, nil); err == nil || !strings.Contains(err.Error(), "prep: max-abs scaling: feature 2: largest absolute value") {
			t.Errorf("peak %v: %v", peak, err)
		}
	}
	if _, err := NewMaxAbs(nil, &[2]float64{2, 1}); err == nil || err.Error() != "prep: max-abs scaling: label minimum 2 and maximum 1" {
		t.Errorf("labels 2..1: %v", err)
	}
}

func TestBinaryRoundTrip(t *testing.T) {
	for _, in := range binaryCases(t) {
		data, err := in.AppendBinary([]byte("head"))
		if err != nil {
			t.Fatal(err)
		}
		var back Input
		if err := back.UnmarshalBinary(data[4:]); err != nil || !reflect.DeepEqual(back, in) {
			t.Errorf("%+v: back %+v (%v)", in, back, err)
		}
	}
	// Hash bits 2, min-max of one feature [1, 2], labels [3, 4].
	good := []byte{2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 1, 0, 0, 0, 0, 0, 0, 8, 0x40, 0, 0, 0, 0, 0, 0, 0x10, 0x40}
	var in Input
	if err := in.UnmarshalBinary(good); err != nil || in.HashBits != 2 || in.Scaling.Dim() != 1 || in.Label(4) != 1 {
		t.Fatalf("%+v, %v", in, err)
	}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{nil, "a field needs 1 bytes, 0 remain"},
		{[]byte{31, 0}, "hash bits 31 above 30"},
		{[]byte{0, 3}, "unknown scaling 3"},
		{[]byte{0, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "2 features need 8 bytes, 4 remain"},
		{[]byte{0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0xbf, 0}, "feature 1: largest absolute value -1"},
		{[]byte{0, 0, 0}, "1 unexpected bytes after the input preparation"},
		{good[:len(good)-1], "a field needs 8 bytes"},
		{append(slices.Clone(good), 0), "1 unexpected bytes"},
		{[]byte{0, 1, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, "feature count 4294967295 is above the limit"},
		{[]byte{0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "2 features need 16 bytes, 4 remain"},
		{[]byte{0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0, 0}, "feature 1: minimum 1 and maximum 0"},
		{[]byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2}, "label flag is 2"},
	} {
		var in Input
		if err := in.UnmarshalBinary(c.data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("% x: %v, want %q", c.data, err, c.want)
		}
	}
}

// FuzzUnmarshalBinary: any bytes are read or refused without a panic,
// and what is read writes back the same bytes.
func FuzzUnmarshalBinary(f *testing.F) {
	for _, in := range binaryCases(f) {
		data, err := in.AppendBinary(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in Input
		if err := in.UnmarshalBinary(data); err != nil {
			return
		}
		again, err := in.AppendBinary(nil)
		if err != nil || !slices.Equal(again, data) {
			t.Fatalf("% x reads as %+v, which writes % x (%v)", data, in, again, err)
		}
	})
}

func TestReadBeside(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.bogd")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if in, path, err := ReadBeside(model); err != nil || path != "" || !in.IsZero() {
		t.Fatalf("nothing beside: %+v %q %v", in, path, err)
	}
	write("m.bogd.scaling.json", `{"method":"minmax","min":[0,-2],"max":[4,1],"label":[10,20]}`)
	in, path, err := ReadBeside(model)
	if want := newMinMax(t, []float32{0, -2}, []float32{4, 1}, &[2]float64{10, 20}); err != nil || path != model+".scaling.json" || !reflect.DeepEqual(in, Input{Scaling: want}) {
		t.Fatalf("scaling beside: %+v %q %v", in, path, err)
	}
	write("m.bogd.input.json", `{"hash_bits":3,"scaling":{"method":"minmax","min":[0],"max":[1]}}`)
	in, path, err = ReadBeside(model)
	if want := newMinMax(t, []float32{0}, []float32{1}, nil); err != nil || path != model+".input.json" || !reflect.DeepEqual(in, Input{HashBits: 3, Scaling: want}) {
		t.Fatalf("input beside: %+v %q %v", in, path, err)
	}
	if got := BesideFiles(model); !slices.Equal(got, []string{model + ".input.json", model + ".scaling.json"}) {
		t.Errorf("BesideFiles: %v", got)
	}
	for _, bad := range []struct{ js, word string }{
		{`{"hash_bits":31}`, "hash bits 31"},
		{`{"hash_bits":1,"scale":2}`, `unknown field "scale"`},
		{`{"scaling":{"method":"zscore","min":[],"max":[]}}`, `method "zscore"`},
		{`{"scaling":{"method":"minmax","min":[1],"max":[]}}`, "1 minima but 0 maxima"},
		{`{"scaling":{"method":"minmax","min":[0,2],"max":[1,1]}}`, "feature 2: minimum 2 and maximum 1"},
		{`{"scaling":{"method":"minmax","min":[],"max":[],"label":[3,1]}}`, "label minimum 3 and maximum 1"},
		{`{"scaling":{"method":"minmax","min":[1e39],"max":[1e39]}}`, "float32"},
		{`{"hash_bits":`, "unexpected EOF"},
	} {
		write("m.bogd.input.json", bad.js)
		if _, _, err := ReadBeside(model); err == nil || !strings.Contains(err.Error(), bad.word) || !strings.HasPrefix(err.Error(), model+".input.json: ") {
			t.Errorf("%s: error %v, want one naming the file, with %q", bad.js, err, bad.word)
		}
	}
}
