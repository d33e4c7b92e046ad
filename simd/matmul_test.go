package simd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// matMulCase is one product of MatMul64's tests: an m×k A (stored k×m when
// trans) and a k×n B, stored with strides pad elements wider than a row.
type matMulCase struct {
	m, n, k, pad int
	trans        bool
	a, b         []float64 // row-major, strides lda() and ldb()
}

func (c matMulCase) lda() int {
	if c.trans {
		return c.m + c.pad
	}
	return c.k + c.pad
}
func (c matMulCase) ldb() int { return c.n + c.pad }
func (c matMulCase) ldc() int { return c.n + c.pad }

// at is A[i][l].
func (c matMulCase) at(i, l int) float64 {
	if c.trans {
		return c.a[l*c.lda()+i]
	}
	return c.a[i*c.lda()+l]
}

// newMatMulCase fills A and B with value() and their padding with NaN (an
// element read there would carry it into C).
func newMatMulCase(m, n, k, pad int, trans bool, value func() float64) matMulCase {
	c := matMulCase{m: m, n: n, k: k, pad: pad, trans: trans}
	rows, cols := m, k
	if trans {
		rows, cols = k, m
	}
	fill := func(rows, cols, stride int) []float64 {
		s := make([]float64, max(0, (rows-1)*stride+cols))
		for i := range s {
			if i%stride < cols {
				s[i] = value()
			} else {
				s[i] = math.NaN()
			}
		}
		return s
	}
	c.a, c.b = fill(rows, cols, c.lda()), fill(k, n, c.ldb())
	return c
}

// refMatMul is MatMul64 as its doc states it: each C[i][j] summed from +0
// over l in order, every product rounded (float64()) and every sum.
func refMatMul(c matMulCase) []float64 {
	out := make([]float64, c.m*c.n)
	for i := range c.m {
		for j := range c.n {
			var sum float64
			for l := range c.k {
				sum += float64(c.at(i, l) * c.b[l*c.ldb()+j])
			}
			out[i*c.n+j] = sum
		}
	}
	return out
}

// gonumMatMul is the same product by gonum's Dgemm (α = 1, β = 0).
func gonumMatMul(c matMulCase) []float64 {
	if c.m == 0 || c.n == 0 {
		return nil
	}
	out := blas64.General{Rows: c.m, Cols: c.n, Stride: c.n, Data: make([]float64, c.m*c.n)}
	if c.k == 0 {
		return out.Data
	}
	tA := blas.NoTrans
	a := blas64.General{Rows: c.m, Cols: c.k, Stride: c.lda(), Data: c.a}
	if c.trans {
		tA = blas.Trans
		a.Rows, a.Cols = c.k, c.m
	}
	b := blas64.General{Rows: c.k, Cols: c.n, Stride: c.ldb(), Data: c.b}
	blas64.Gemm(tA, blas.NoTrans, 1, a, b, 0, out)
	return out.Data
}

// checkMatMul runs MatMul64 on guarded, misaligned (by skew) copies of the
// case's matrices and C, and requires refMatMul's bits, and gonum's where
// every input is finite. It returns C, n values a row.
func checkMatMul(tb testing.TB, what string, c matMulCase, skew int) []float64 {
	tb.Helper()
	ag := newGuarded(c.a, math.NaN(), skew)
	bg := newGuarded(c.b, math.NaN(), skew+1)
	cg := newGuarded(make([]float64, max(0, (c.m-1)*c.ldc()+c.n)), outFill, skew+2)
	for i := range cg.s() {
		cg.s()[i] = outFill // the padding between rows must keep it
	}
	simd.MatMul64(cg.s(), c.ldc(), ag.s(), c.lda(), c.trans, bg.s(), c.ldb(), c.m, c.n, c.k)
	ag.checkInput(tb, what+" A")
	bg.checkInput(tb, what+" B")
	cg.check(tb, what+" C")
	got := make([]float64, c.m*c.n)
	for i := range c.m {
		for j := range c.n {
			got[i*c.n+j] = cg.s()[i*c.ldc()+j]
		}
		for j := c.n; j < c.ldc() && i < c.m-1; j++ {
			if v := cg.s()[i*c.ldc()+j]; v != outFill {
				tb.Fatalf("%s: C's padding (%d, %d) written: %v", what, i, j, v)
			}
		}
	}
	want := refMatMul(c)
	for i, v := range got {
		if math.Float64bits(v) != math.Float64bits(want[i]) {
			tb.Fatalf("%s: C[%d][%d] = %v, want %v", what, i/c.n, i%c.n, v, want[i])
		}
	}
	if !finite(c.a, c.lda(), c.k) || !finite(c.b, c.ldb(), c.n) {
		return got
	}
	for i, v := range gonumMatMul(c) {
		if math.Float64bits(got[i]) != math.Float64bits(v) {
			tb.Fatalf("%s: C[%d][%d] = %v, gonum's Dgemm %v", what, i/c.n, i%c.n, got[i], v)
		}
	}
	return got
}

// finite reports whether the elements of s outside the padding (those
// whose index modulo stride is below width) are finite. It is approximate
// for a transposed A but only decides whether gonum's bits are required.
func finite(s []float64, stride, width int) bool {
	for i, v := range s {
		if i%stride < width && (math.IsNaN(v) || math.IsInf(v, 0)) {
			return false
		}
	}
	return true
}

// TestEquivMatMul64 runs every implementation over the shapes around the
// block (4×8) and the depth of MatMul64 (matMulDepth = 256 terms), both
// orientations of A, with and without padding: values of mixed signs and
// magnitudes, one in five exactly zero (Dgemm skips those terms).
func TestEquivMatMul64(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	value := func() float64 {
		if r.IntN(5) == 0 {
			return 0
		}
		return math.Ldexp(r.NormFloat64(), r.IntN(40)-20)
	}
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		for _, m := range []int{0, 1, 3, 4, 5, 8, 13} {
			for _, n := range []int{0, 1, 4, 7, 8, 9, 12, 15, 20} {
				for _, k := range []int{0, 1, 2, 7, 256, 257, 600} {
					for _, trans := range []bool{false, true} {
						pad := (m + n + k) % 3
						c := newMatMulCase(m, n, k, pad, trans, value)
						checkMatMul(t, fmt.Sprintf("m=%d n=%d k=%d trans=%v pad=%d", m, n, k, trans, pad), c, m+n)
					}
				}
			}
		}
	})
}

// TestMatMul64Sizes checks MatMul64's dimension checks: each case is one
// element short, or a negative size.
func TestMatMul64Sizes(t *testing.T) {
	for _, c := range []struct {
		name          string
		c, a, b       int
		ldc, lda, ldb int
		trans         bool
		m, n, k       int
	}{
		{"C short", 3*5 - 1, 3 * 4, 4 * 5, 5, 4, 5, false, 3, 5, 4},
		{"A short", 3 * 5, 3*4 - 1, 4 * 5, 5, 4, 5, false, 3, 5, 4},
		{"A transposed short", 3 * 5, 4*3 - 1, 4 * 5, 5, 3, 5, true, 3, 5, 4},
		{"B short", 3 * 5, 3 * 4, 4*5 - 1, 5, 4, 5, false, 3, 5, 4},
		{"stride of C below n", 3 * 5, 3 * 4, 4 * 5, 4, 4, 5, false, 3, 5, 4},
		{"negative k", 3 * 5, 3 * 4, 4 * 5, 5, 4, 5, false, 3, 5, -1},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			simd.MatMul64(make([]float64, c.c), c.ldc, make([]float64, c.a), c.lda, c.trans, make([]float64, c.b), c.ldb, c.m, c.n, c.k)
		}()
	}
}

func FuzzMatMul64(f *testing.F) {
	f.Add([]byte{17, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{63, 3, 0xff, 0x7f, 30, 0, 0x80, 30})
	f.Add([]byte{1, 11, 0, 0, 0})
	f.Add([]byte{9, 0, 17, 0, 2, 1, 0, 1, 0x40, 0x80, 0, 3, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		m, n, k := d.intn(14), d.intn(26), d.intn(300)
		trans, pad := d.intn(2) == 1, d.intn(3)
		// Exponents over up to 600 binary orders: sums of terms that far
		// apart, overflows to ±Inf and their NaNs included, must round
		// alike (gonum's bits are required only while all is finite).
		span := d.intn(600)
		elo := -1074 + d.intn(2098-span)
		value := func() float64 {
			if d.intn(6) == 0 {
				return 0
			}
			return d.value64(elo, elo+span)
		}
		c := newMatMulCase(m, n, k, pad, trans, value)
		skew := d.intn(4)
		implsAgree(t, make([]float64, m*n), func(t *testing.T) []float64 {
			return checkMatMul(t, "fuzz input", c, skew)
		})
	})
}

// BenchmarkMatMul64 measures the products of NOGD's transition at B = 1000
// (k = 200, a block of l = 300): the B×B kernel matrix times the block,
// the block's transpose times another and the block times the l×k Ritz
// vectors, against gonum's Dgemm on the same matrices (one core each:
// GOMAXPROCS is 1 for Dgemm's workers).
func BenchmarkMatMul64(b *testing.B) {
	r := rand.New(rand.NewPCG(43, 44))
	value := func() float64 { return r.NormFloat64() }
	for _, s := range []struct {
		name    string
		m, n, k int
		trans   bool
	}{
		{"AX/1000x300x1000", 1000, 300, 1000, false},
		{"XtY/300x300x1000", 300, 300, 1000, true},
		{"XS/1000x200x300", 1000, 200, 300, false},
	} {
		c := newMatMulCase(s.m, s.n, s.k, 0, s.trans, value)
		out := make([]float64, s.m*s.n)
		flops := int64(2 * s.m * s.n * s.k)
		simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
			b.Run(s.name, func(b *testing.B) {
				b.SetBytes(flops) // MB/s reads as MFLOP/s
				for b.Loop() {
					simd.MatMul64(out, c.ldc(), c.a, c.lda(), c.trans, c.b, c.ldb(), s.m, s.n, s.k)
				}
			})
		})
		b.Run("gonum/"+s.name, func(b *testing.B) {
			b.SetBytes(flops)
			for b.Loop() {
				gonumMatMul(c)
			}
		})
	}
}
