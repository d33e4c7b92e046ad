package simd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// axpyRowsWidths are the lengths of y the AxpyRows tests take: every
// chunk of registers of both backends (16 to 256 floats and past, one scan
// of coef per 256 or 96), NOGD's strides (its rank rounded up to 16), and
// lengths with a generic tail.
var axpyRowsWidths = []int{1, 5, 15, 16, 17, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 272, 400, 403}

// axpyRowsCounts are the numbers of rows (coefficients): blocks of 8 and
// 16 coefficients, whole or not.
var axpyRowsCounts = []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 100}

// axpyRowsPatterns say which coefficients are zero.
var axpyRowsPatterns = []struct {
	name string
	zero func(r *rand.Rand, i int) bool
}{
	{"dense", func(*rand.Rand, int) bool { return false }},
	{"none", func(*rand.Rand, int) bool { return true }},
	{"third", func(r *rand.Rand, _ int) bool { return r.IntN(3) != 0 }},
	{"half", func(r *rand.Rand, _ int) bool { return r.IntN(2) == 0 }},
	{"every 5th", func(_ *rand.Rand, i int) bool { return i%5 != 4 }},
}

func TestEquivAxpyRows(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		r := rand.New(rand.NewPCG(41, 42))
		skew := 0
		for _, width := range axpyRowsWidths {
			for _, n := range axpyRowsCounts {
				for _, p := range axpyRowsPatterns {
					stride := width + r.IntN(3)*5
					coef := make([]float32, n)
					for i := range coef {
						switch {
						case !p.zero(r, i):
							coef[i] = float32(r.NormFloat64())
						case i%2 == 1:
							coef[i] = float32(math.Copysign(0, -1)) // −0 is zero too
						}
					}
					rows := randRows(r, n, stride, width)
					y := randVecs(r, 1, width, func() float32 { return float32(r.NormFloat64()) })[0]
					checkAxpyRows(t, fmt.Sprintf("width=%d stride=%d n=%d %s skew=%d", width, stride, n, p.name, skew), y, coef, rows, stride, skew)
					skew++
				}
			}
		}
	})
}

// randRows returns n rows of width normal values, stride apart, with NaN
// between them: values AxpyRows must not read.
func randRows(r *rand.Rand, n, stride, width int) []float32 {
	if n == 0 {
		return nil
	}
	rows := make([]float32, (n-1)*stride+width)
	for i := range rows {
		if i%stride < width {
			rows[i] = float32(r.NormFloat64())
		} else {
			rows[i] = nan[float32]()
		}
	}
	return rows
}

// refAxpyRows returns y plus the rows of the non-zero coefficients, each
// added in float64 as one FMA, in order, and the tolerance of each value:
// every step may round the product and the sum in float32 (2u·(|c·x| +
// |partial sum|)), plus a denormal's worth a step.
func refAxpyRows(y, coef, rows []float32, stride int) (want, tol []float64) {
	want = make([]float64, len(y))
	tol = make([]float64, len(y))
	for r, v := range y {
		want[r] = float64(v)
	}
	for i, c := range coef {
		if c == 0 {
			continue
		}
		for r := range y {
			p := float64(c) * float64(rows[i*stride+r])
			want[r] += p
			tol[r] += 2*u32*(math.Abs(p)+math.Abs(want[r])) + 0x1p-149
		}
	}
	return want, tol
}

// checkAxpyRows runs AxpyRows on guarded, misaligned (by skew) copies: the
// rows with NaN guards, and NaN in place of the rows of zero coefficients,
// which AxpyRows must not read; y with outFill guards. It compares y with
// refAxpyRows, and bit for bit with Axpy row by row (same rounding, same
// order), and returns it.
func checkAxpyRows(tb testing.TB, what string, y, coef, rows []float32, stride, skew int) []float32 {
	tb.Helper()
	hidden := append([]float32(nil), rows...)
	for i, c := range coef {
		if c == 0 {
			for r := range len(y) {
				hidden[i*stride+r] = nan[float32]()
			}
		}
	}
	rg := newGuarded(hidden, nan[float32](), skew)
	cg := newGuarded(coef, nan[float32](), skew+1)
	yg := newGuarded(y, outFill, skew+2)
	simd.AxpyRows(yg.s(), cg.s(), rg.s(), stride)
	rg.checkInput(tb, what+" rows")
	cg.checkInput(tb, what+" coef")
	yg.check(tb, what+" y")
	got := yg.s()

	byRow := append([]float32(nil), y...)
	for i, c := range coef {
		if c != 0 {
			simd.Axpy(byRow, rows[i*stride:i*stride+len(y)], c)
		}
	}
	want, tol := refAxpyRows(y, coef, rows, stride)
	for r := range want {
		if math.Float32bits(got[r]) != math.Float32bits(byRow[r]) {
			tb.Fatalf("%s: y[%d] = %v, Axpy row by row gives %v", what, r, got[r], byRow[r])
		}
		if !closeTo(got[r], want[r], tol[r]) {
			tb.Fatalf("%s: y[%d] = %v, want %v (tolerance %.3g)", what, r, got[r], want[r], tol[r])
		}
	}
	return got
}

// TestAxpyRowsNaNCoefficient: a NaN coefficient is not zero (as c != 0),
// so its row is added and makes y NaN, in every implementation.
func TestAxpyRowsNaNCoefficient(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		for _, n := range []int{3, 16, 20} { // in the tail of coef, in a block, past one
			coef := make([]float32, n)
			coef[n-2] = nan[float32]()
			rows := make([]float32, n*32)
			y := make([]float32, 32)
			simd.AxpyRows(y, coef, rows, 32)
			for r, v := range y {
				if !math.IsNaN(float64(v)) {
					t.Fatalf("n=%d: y[%d] = %v, want NaN", n, r, v)
				}
			}
		}
	})
}

func TestAxpyRowsShort(t *testing.T) {
	for _, c := range []struct {
		name         string
		y, n, stride int
		rows         int
		wantPanic    bool
	}{
		{"fits", 16, 3, 20, 2*20 + 16, false},
		{"rows short", 16, 3, 20, 2*20 + 15, true},
		{"stride short", 16, 3, 15, 100, true},
		{"no rows", 16, 0, 0, 0, false},
		{"empty y", 0, 3, 0, 0, false},
	} {
		func() {
			defer func() {
				if p := recover(); (p != nil) != c.wantPanic {
					t.Errorf("%s: panic %v, want a panic: %v", c.name, p, c.wantPanic)
				}
			}()
			simd.AxpyRows(make([]float32, c.y), make([]float32, c.n), make([]float32, c.rows), c.stride)
		}()
	}
}
