package simd_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// refFullRow is FullRow's rule, feature by feature.
func refFullRow(idx []int32, val []float32) bool {
	for k, j := range idx {
		if int(j) != k || math.IsNaN(float64(val[k])) || math.IsInf(float64(val[k]), 0) {
			return false
		}
	}
	return true
}

// checkFullRow compares FullRow of idx and val with the rule, with guards
// after both slices that would fail the check if it read them: an index
// out of place, a NaN value.
func checkFullRow(tb testing.TB, what string, idx []int32, val []float32) {
	tb.Helper()
	want := refFullRow(idx, val)
	const guards = 9
	gi := append(append(make([]int32, 0, len(idx)+guards), idx...), make([]int32, guards)...)
	gv := append(append(make([]float32, 0, len(val)+guards), val...), make([]float32, guards)...)
	for g := range guards {
		gi[len(idx)+g] = -1
		gv[len(val)+g] = float32(math.NaN())
	}
	if got := simd.FullRow(gi[:len(idx)], gv[:len(val)]); got != want {
		tb.Fatalf("%s: FullRow %v, want %v", what, got, want)
	}
	if len(val) > len(idx) { // only the first len(idx) values count
		if got := simd.FullRow(gi[:len(idx)], gv[:len(val)+guards]); got != want {
			tb.Fatalf("%s, values longer than the indices: FullRow %v, want %v", what, got, want)
		}
	}
}

// fullRowFlaws are what can be wrong (or right, and look wrong) with the
// feature at place k.
var fullRowFlaws = []struct {
	name string
	set  func(idx []int32, val []float32, k int)
}{
	{"none", func([]int32, []float32, int) {}},
	{"index+1", func(idx []int32, _ []float32, k int) { idx[k]++ }},
	{"index-1", func(idx []int32, _ []float32, k int) { idx[k]-- }},
	{"index+8", func(idx []int32, _ []float32, k int) { idx[k] += 8 }},
	{"index-min", func(idx []int32, _ []float32, k int) { idx[k] = math.MinInt32 }},
	{"+Inf", func(_ []int32, val []float32, k int) { val[k] = float32(math.Inf(1)) }},
	{"-Inf", func(_ []int32, val []float32, k int) { val[k] = float32(math.Inf(-1)) }},
	{"NaN", func(_ []int32, val []float32, k int) { val[k] = float32(math.NaN()) }},
	{"NaN-payload", func(_ []int32, val []float32, k int) { val[k] = math.Float32frombits(0xff800001) }},
	{"largest", func(_ []int32, val []float32, k int) { val[k] = -math.MaxFloat32 }},
	{"denormal", func(_ []int32, val []float32, k int) { val[k] = math.SmallestNonzeroFloat32 }},
	{"-0", func(_ []int32, val []float32, k int) { val[k] = float32(math.Copysign(0, -1)) }},
}

// TestEquivFullRow: every implementation gives the rule's answer for rows
// of every length up to 41 (the kernels' whole registers and every tail),
// with one flaw at every place, or two in different registers.
func TestEquivFullRow(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		row := func(n int) ([]int32, []float32) {
			idx, val := make([]int32, n), make([]float32, n)
			for k := range n {
				idx[k], val[k] = int32(k), float32(k%5)-2.5
			}
			return idx, val
		}
		for n := 0; n <= 41; n++ {
			idx, val := row(n)
			checkFullRow(t, fmt.Sprintf("n=%d", n), idx, val)
			for k := range n {
				for _, f := range fullRowFlaws {
					idx, val := row(n)
					f.set(idx, val, k)
					checkFullRow(t, fmt.Sprintf("n=%d, %s at %d", n, f.name, k), idx, val)
					if k+9 < n {
						fullRowFlaws[7].set(idx, val, k+9) // and a NaN in a later register
						checkFullRow(t, fmt.Sprintf("n=%d, %s at %d, NaN at %d", n, f.name, k, k+9), idx, val)
					}
				}
			}
		}
	})
}

func TestFullRowShortValues(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("FullRow with fewer values than indices did not panic")
		}
	}()
	simd.FullRow([]int32{0, 1}, []float32{1})
}

func FuzzFullRow(f *testing.F) {
	f.Add([]byte{8, 0})
	f.Add([]byte{17, 1, 3, 0xff, 0x80, 0x7f})
	f.Add([]byte{33, 2, 20, 0, 0, 0x80, 0x7f})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n := d.intn(70)
		idx, val := make([]int32, n), make([]float32, n)
		for k := range n {
			idx[k] = int32(k)
			val[k] = d.value(-149, 127)
		}
		// A few flaws: indices moved, raw bit patterns (Inf, NaN and
		// denormals among them).
		for range d.intn(3) {
			if n == 0 {
				break
			}
			k := d.intn(n)
			switch d.intn(3) {
			case 0:
				idx[k] += int32(d.intn(5)) - 2
			default:
				val[k] = math.Float32frombits(uint32(d.byte()) | uint32(d.byte())<<8 | uint32(d.byte())<<16 | uint32(d.byte())<<24)
			}
		}
		simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
			checkFullRow(t, "fuzz input", idx, val)
		})
	})
}

func BenchmarkFullRow(b *testing.B) {
	for _, n := range []int{8, 22, 123} {
		idx, val := make([]int32, n), make([]float32, n)
		for k := range n {
			idx[k], val[k] = int32(k), float32(k)
		}
		simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				for b.Loop() {
					if !simd.FullRow(idx, val) {
						b.Fatal("a full row refused")
					}
				}
			})
		})
	}
}
