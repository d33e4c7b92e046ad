package simd_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// Fuzz targets, one per kernel. Each decodes the fuzz bytes into a shape,
// values and the misalignment of the slices (decoded last, so that older
// corpus entries keep their shapes), runs every implementation on it (a
// subtest each), checks each against the float64 reference (the check*
// helpers of equiv_test.go, with their guards and tolerances) and checks
// the implementations against each other.
//
// Values are decoded as m·2^e with a 16-bit m and a bounded exponent: exact
// float32 inputs spanning about 25 decimal orders of magnitude that cannot
// overflow the float32 sums, so every tolerance stays meaningful. FuzzExp
// takes raw float32 bit patterns instead (NaN, Inf and denormals included).

// decoder reads shapes and values from fuzz bytes, cycling through them
// (with a counter mixed in) when they run out, so short inputs still make
// large shapes.
type decoder struct {
	b []byte
	i int
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		return 0
	}
	v := d.b[d.i%len(d.b)] ^ byte(d.i/len(d.b)*73)
	d.i++
	return v
}

// intn returns a value in [0, n).
func (d *decoder) intn(n int) int {
	return int(binary.LittleEndian.Uint16([]byte{d.byte(), d.byte()})) % n
}

// value returns m·2^e with m a 16-bit signed integer and e in [lo, hi].
func (d *decoder) value(lo, hi int) float32 { return float32(d.value64(lo, hi)) }

// value64 is value in float64, for exponents beyond float32's range.
func (d *decoder) value64(lo, hi int) float64 {
	m := int16(binary.LittleEndian.Uint16([]byte{d.byte(), d.byte()}))
	e := lo + int(d.byte())%(hi-lo+1)
	return math.Ldexp(float64(m), e)
}

// fuzzDims are the dimensions the fuzzers choose from.
var fuzzDims = []int{1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 22, 57, 100}

// implsAgree calls run under every implementation (simdtest.ForEachImpl)
// and checks that the outputs it returns agree: each within tol of the
// reference, so within twice that of each other.
func implsAgree[T float](t *testing.T, tol []float64, run func(t *testing.T) []T) {
	t.Helper()
	var impls []simd.Impl
	var outs [][]T
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		outs = append(outs, run(t))
		impls = append(impls, impl)
	})
	for k := 1; k < len(outs); k++ {
		for i, v := range outs[k] {
			if !closeTo(v, float64(outs[0][i]), 2*tol[i]) {
				t.Fatalf("output %d: %v gives %v, %v gives %v", i, impls[0], outs[0][i], impls[k], v)
			}
		}
	}
}

func FuzzSqDist(f *testing.F) {
	f.Add([]byte{17, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{63, 3, 0xff, 0x7f, 30, 0, 0x80, 30})
	f.Add([]byte{1, 11, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n, dim := d.intn(70), fuzzDims[d.intn(len(fuzzDims))]
		elo := -20 + d.intn(30)
		vecs := randVecsDec(d, n, dim, elo)
		x := randVecsDec(d, 1, dim, elo)[0]
		if d.intn(4) == 0 && n > 0 {
			copy(vecs[d.intn(n)], x) // distance exactly 0
		}
		all := padded(vecs, dim)
		tol := make([]float64, len(all))
		for i, s := range all {
			tol[i] = float64(dim+4) * u32 * refSqDist(x, s)
		}
		skew := d.intn(4)
		implsAgree(t, tol, func(t *testing.T) []float32 {
			return checkSqDist(t, "fuzz input", vecs, x, dim, skew)
		})
	})
}

func FuzzSqDist64(f *testing.F) {
	// More of the seed corpus is in testdata/fuzz/FuzzSqDist64.
	f.Add([]byte{17, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{63, 3, 0xff, 0x7f, 30, 0, 0x80, 30})
	f.Add([]byte{1, 11, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n, dim := d.intn(70), fuzzDims[d.intn(len(fuzzDims))]
		// Exponents from the denormals to MaxFloat32 (m·2^e with
		// |m| ≤ 2¹⁵ and e ≤ 112), over a span of up to 90 binary orders
		// within one input: differences of values that far apart are
		// not exact in float64, and their rounding must agree too.
		span := d.intn(91)
		elo := -165 + d.intn(278-span)
		value := func() float32 { return d.value(elo, elo+span) }
		vecs := randVecs(nil, n, dim, value)
		x := randVecs(nil, 1, dim, value)[0]
		if d.intn(4) == 0 && n > 0 {
			copy(vecs[d.intn(n)], x) // distance exactly 0
		}
		skew := d.intn(4)
		// Every implementation gives simdtest.SqDist64's bits: a tolerance of 0.
		implsAgree(t, make([]float64, slots(n)), func(t *testing.T) []float64 {
			return checkSqDist64(t, "fuzz input", vecs, x, dim, skew)
		})
	})
}

// randVecsDec decodes n vectors of dimension dim with exponents in
// [elo, elo+12].
func randVecsDec(d *decoder, n, dim, elo int) [][]float32 {
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = d.value(elo, elo+12)
		}
	}
	return vecs
}

func FuzzSqDistSparse(f *testing.F) {
	f.Add([]byte{17, 8, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{40, 2, 9, 0xff, 0x7f, 30, 0, 0x80, 30})
	f.Add([]byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n, dim := d.intn(70), fuzzDims[d.intn(len(fuzzDims))]
		elo := -20 + d.intn(30)
		vecs := randVecsDec(d, n, dim, elo)
		nnz := d.intn(min(dim, 20) + 1)
		idx := make([]int32, nnz)
		val := make([]float32, nnz)
		for k := range idx {
			idx[k] = int32(d.intn(dim)) // repeats allowed: the terms add up
			val[k] = d.value(elo, elo+12)
		}
		all := padded(vecs, dim)
		norms := make([]float32, len(all))
		for i, s := range all {
			norms[i] = float32(refNorm(s))
		}
		xnorm := float32(refNorm(val))
		tol := make([]float64, len(all))
		for i, s := range all {
			_, mag := refSparse(norms[i], xnorm, idx, val, s)
			tol[i] = float64(nnz+4) * u32 * mag
		}
		skew := d.intn(4)
		implsAgree(t, tol, func(t *testing.T) []float32 {
			return checkSparse(t, "fuzz input", vecs, idx, val, dim, false, skew)
		})
	})
}

func FuzzGaussianSum(f *testing.F) {
	f.Add([]byte{16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{67, 1, 0xff, 0x7f, 10, 0, 0x80, 3})
	f.Add([]byte{33, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n := d.intn(140)
		// Negative scales (the Gaussian kernel) and positive ones, up to
		// ExpMin (below which the kernel values are 0) and the clamp at ExpMax.
		scale := d.value(-40, -12)
		dist := make([]float32, n)
		w := make([]float32, n)
		for i := range dist {
			dist[i] = d.value(-20, 2)
			if d.byte()%8 != 0 {
				dist[i] = float32(math.Abs(float64(dist[i]))) // squared distances are ≥ 0
			}
			w[i] = d.value(-40, -24)
		}
		// The offset is decoded last, so that the older inputs keep their
		// shapes and values: 0, package engine's −scale·min(dist), or one
		// of its own up to ±128.
		var offset float32
		switch d.byte() % 3 {
		case 1:
			if n > 0 {
				offset = -scale * refMin(dist)
			}
		case 2:
			offset = d.value(-16, -8)
		}
		// |w| < 2⁻⁹ and e^x ≤ e^88 < 2¹²⁷ keep the 140 terms and their sum
		// far below MaxFloat32: the sum cannot overflow.
		// The sum's tolerance carries the kernel values' errors: with an
		// offset, the generic code may round the product before adding
		// and the assembly does not, so the values differ by far more
		// than the accumulation's roundings.
		k, tol := refKernels(dist, scale, offset)
		_, sumTol := refWeightedSum(w, k, tol)
		tol = append(tol, sumTol)
		skew := d.intn(4)
		implsAgree(t, tol, func(t *testing.T) []float32 {
			return checkGaussianSum(t, "fuzz input", dist, w, scale, offset, skew)
		})
	})
}

func FuzzMin(f *testing.F) {
	f.Add([]byte{0, 0, 5, 0x40, 0x3f, 3})
	f.Add([]byte{16, 0, 10, 0xff, 0x7f, 20, 0x80, 0})
	f.Add([]byte{0xf0, 0x03, 0, 1, 2, 3, 4, 5, 6, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n := 1 + d.intn(300)
		elo := -149 + d.intn(250) // from the denormals to 2¹²⁷: finite
		a := make([]float32, n)
		for i := range a {
			a[i] = d.value(elo, elo+12)
			switch d.byte() % 16 {
			case 0:
				a[i] = float32(math.Inf(1)) // an overflowed distance
			case 1, 2:
				// Negative: Min is not only for distances.
			default:
				a[i] = float32(math.Abs(float64(a[i]))) // squared distances are ≥ 0
			}
		}
		// Every implementation gives the exact minimum, so they agree.
		skew := d.intn(4)
		simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
			checkMin(t, "fuzz input", a, skew)
		})
	})
}

func FuzzDot(f *testing.F) {
	f.Add([]byte{16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{200, 3, 0xff, 0x7f, 30, 0, 0x80, 30})
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n := d.intn(300)
		elo := -30 + d.intn(40)
		a := make([]float32, n)
		b := make([]float32, n)
		var mag float64
		for i := range a {
			a[i], b[i] = d.value(elo, elo+8), d.value(elo, elo+8)
			mag += math.Abs(float64(a[i]) * float64(b[i]))
		}
		skew := d.intn(4)
		implsAgree(t, []float64{float64(n/16+22) * u32 * mag}, func(t *testing.T) []float32 {
			return []float32{checkDot(t, "fuzz input", a, b, skew)}
		})
	})
}

func FuzzDotAxpy(f *testing.F) {
	f.Add([]byte{16, 0, 0x28, 0x02, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0x2b, 0x01, 0xfb, 0x03, 3, 0xff, 0x7f, 16, 0, 0x80, 0})
	f.Add([]byte{40, 0, 0x28, 0x02, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n := d.intn(300)
		// Exponents from where products underflow into the denormals
		// (2⁻⁵⁶⁰·2⁻⁵⁶⁰) to where they reach 2⁹⁸²: the sum of 300 of them
		// cannot overflow (nor can y + c·a), so the class of a
		// non-finite result does not depend on the order of the sum.
		elo := -560 + d.intn(1020)
		// With special set, about 1 element in 28 is NaN or ±Inf, and
		// c may be.
		special := d.byte()%4 == 0
		specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
		c := d.value64(elo, elo+16)
		if k := d.byte(); special && k < 12 {
			c = specials[k%3]
		}
		extra := d.intn(3) // b and y longer than a
		a := make([]float64, n)
		b := make([]float64, n+extra)
		y := make([]float64, n+extra)
		for i := range b {
			if i < n {
				a[i] = d.value64(elo, elo+16)
			}
			b[i], y[i] = d.value64(elo, elo+16), d.value64(elo, elo+16)
			if k := d.byte(); special && k < 9 && i < n {
				[][]float64{a, b, y}[k%3][i] = specials[k/3]
			}
		}
		_, tol := refDotAxpy(a, b, y, c)
		skew := d.intn(4)
		implsAgree(t, tol, func(t *testing.T) []float64 {
			return checkDotAxpy(t, "fuzz input", a, b, y, c, false, skew)
		})
	})
}

func FuzzExp(f *testing.F) {
	f.Add([]byte{0, 0, 0xae, 0xc2, 0, 0, 0xb0, 0x42, 0, 0, 0xc0, 0x7f})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{0xff, 0xff, 0x7f, 0x7f, 0xff, 0xff, 0x7f, 0xff, 0, 0, 0x80, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		src := make([]float32, len(data)/4)
		for i := range src {
			src[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		}
		// Repeat the values to reach the vector code (16 values or more).
		for len(src) > 0 && len(src) < 40 {
			src = append(src, src...)
		}
		tol := make([]float64, len(src))
		for i, x := range src {
			tol[i] = 2e-7 * refExp(x)
		}
		skew := len(data) % 4 // the bytes are the values
		implsAgree(t, tol, func(t *testing.T) []float32 {
			return checkExp(t, "fuzz input", src, skew)
		})
	})
}

func FuzzDotColumns(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzDotColumns.
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		cols, n := d.intn(60), d.intn(300)
		stride := n + d.intn(40)
		elo := -30 + d.intn(40)
		k := randVecsDec(d, 1, n, elo)[0]
		w := randVecsDec(d, cols, n, elo)
		tol := make([]float64, cols)
		for c, col := range w {
			var mag float64
			for i := range k {
				mag += math.Abs(float64(k[i]) * float64(col[i]))
			}
			tol[c] = float64(n/16+22) * u32 * mag
		}
		skew := d.intn(4)
		implsAgree(t, tol, func(t *testing.T) []float32 {
			return checkDotColumns(t, "fuzz input", k, w, stride, skew)
		})
	})
}

func FuzzGaussianSumColumns(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzGaussianSumColumns.
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		cols, n := d.intn(40), d.intn(140)
		stride := n + d.intn(40)
		// Values as FuzzGaussianSum's: the sums cannot overflow.
		scale := d.value(-40, -12)
		dist := make([]float32, n)
		for i := range dist {
			dist[i] = float32(math.Abs(float64(d.value(-20, 2))))
		}
		w := make([][]float32, cols)
		for c := range w {
			w[c] = make([]float32, n)
			for i := range w[c] {
				w[c][i] = d.value(-40, -24)
			}
		}
		var offset float32
		if d.byte()%2 == 1 && n > 0 {
			offset = -scale * refMin(dist)
		}
		k, tol := refKernels(dist, scale, offset)
		for _, col := range w {
			_, sumTol := refWeightedSum(col, k, tol[:n])
			tol = append(tol, sumTol)
		}
		skew := d.intn(4)
		implsAgree(t, tol, func(t *testing.T) []float32 {
			return checkGaussianSumColumns(t, "fuzz input", dist, w, stride, scale, offset, skew)
		})
	})
}

func FuzzFourierFeatures(f *testing.F) {
	f.Add([]byte{17, 0, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{63, 0, 5, 0, 0xff, 0x7f, 9, 0, 0x80, 9})
	f.Add([]byte{1, 0, 12, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n, dim := d.intn(70), fuzzDims[d.intn(len(fuzzDims))]
		freqs, x := fuzzFourier(d, n, dim)
		_, tol := refFourier(padded(freqs, dim), denseIndices(dim), x)
		extra, skew := d.intn(3), d.intn(4)
		implsAgree(t, tol, func(t *testing.T) []float32 {
			return checkFourier(t, "fuzz input", freqs, x, dim, extra, skew)
		})
	})
}

// fuzzFourier decodes n frequencies of dimension dim and a query, with
// exponents from elo to elo+8 for each: elo from −30 (|p| ≲ 2⁻³⁰) to −14,
// where the products reach 2¹⁹ and p passes the clamp at 2²⁰.
func fuzzFourier(d *decoder, n, dim int) (freqs [][]float32, x []float32) {
	elo := -30 + d.intn(17)
	return randVecsDec(d, n, dim, elo), randVecsDec(d, 1, dim, elo)[0]
}

func FuzzFourierFeaturesSparse(f *testing.F) {
	f.Add([]byte{17, 0, 8, 0, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{40, 0, 11, 0, 9, 0, 0xff, 0x7f, 9, 0, 0x80, 9})
	f.Add([]byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n, dim := d.intn(70), fuzzDims[d.intn(len(fuzzDims))]
		freqs, x := fuzzFourier(d, n, dim)
		nnz := d.intn(min(dim, 20) + 1)
		idx := make([]int32, nnz)
		val := make([]float32, nnz)
		for k := range idx {
			j := d.intn(dim) // repeats allowed: the terms add up
			idx[k], val[k] = int32(j), x[j]
		}
		_, tol := refFourier(padded(freqs, dim), idx, val)
		skew := d.intn(4)
		implsAgree(t, tol, func(t *testing.T) []float32 {
			return checkFourierSparse(t, "fuzz input", freqs, idx, val, dim, skew)
		})
	})
}

func FuzzAxpy(f *testing.F) {
	f.Add([]byte{16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{200, 3, 0xff, 0x7f, 30, 0, 0x80, 30})
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n := d.intn(300)
		// Exponents from the denormals to where a·x reaches 2¹²⁴: no
		// overflow.
		elo := -150 + d.intn(182)
		a := d.value(elo, elo+16)
		x := make([]float32, n)
		y := make([]float32, n+d.intn(3)) // longer than x
		for i := range y {
			if i < n {
				x[i] = d.value(elo, elo+16)
			}
			y[i] = d.value(elo, elo+16)
		}
		_, tol := refAxpy(y, x, a)
		skew := d.intn(4)
		implsAgree(t, tol, func(t *testing.T) []float32 {
			return checkAxpy(t, "fuzz input", y, x, a, skew)
		})
	})
}

func FuzzAxpyRows(f *testing.F) {
	f.Add([]byte{208, 0, 40, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{16, 0, 17, 0, 0xff, 0x7f, 30, 0, 0x80, 30})
	f.Add([]byte{3, 1, 99, 0, 0, 0, 0, 0})
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		width := d.intn(300)
		n := d.intn(120)
		stride := width + d.intn(20)
		// Exponents from the denormals to where a sum of 120 products
		// stays below 2¹²⁷: no overflow.
		elo := -150 + d.intn(170)
		coef := make([]float32, n)
		for i := range coef {
			if d.intn(3) != 0 {
				coef[i] = d.value(elo, elo+8)
			}
		}
		var rows []float32
		if n > 0 {
			rows = make([]float32, (n-1)*stride+width)
			for i := range rows {
				rows[i] = d.value(elo, elo+8)
			}
		}
		y := make([]float32, width)
		for i := range y {
			y[i] = d.value(elo, elo+8)
		}
		_, tol := refAxpyRows(y, coef, rows, stride)
		skew := d.intn(4)
		implsAgree(t, tol, func(t *testing.T) []float32 {
			return checkAxpyRows(t, "fuzz input", y, coef, rows, stride, skew)
		})
	})
}
