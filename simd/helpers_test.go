package simd_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/bogd-project/bogd/simd"
)

// Helpers shared by the tests, fuzz targets and benchmarks: float64
// references, tiled test data and NaN guards. Every implementation is run
// through package simdtest.

// lanes is the number of slots of a tile, the layout the distance kernels
// read (package layout's Lanes), and the width the wrappers hand whole
// multiples of to the vector code: the tail lengths tested are around it.
const lanes = 16

// u32 is the unit roundoff of float32, 2⁻²⁴.
const u32 = 1.0 / (1 << 24)

// u64 is the unit roundoff of float64, 2⁻⁵³.
const u64 = 1.0 / (1 << 53)

// guard is the number of guard elements placed before and after every
// region handed to a kernel: more than a tile row (16), so that the row a
// sparse query's guard index points to (see checkSparse) lies in the guards.
const guard = 19

// alignment is the boundary in bytes the regions are placed relative to:
// a cache line and the widest vector load. A region starts skew%4 elements
// past such a boundary, so that the vector code meets every misalignment.
const alignment = 64

// outFill is the guard value of pure outputs: finite and negative, so that
// any write there (of a NaN computed from an out-of-bounds read included)
// changes it. Inputs are guarded by NaN instead: an out-of-bounds read
// carries it into an output (gonum's internal/asm convention); Min and
// SqDistSparse's idx need other values, chosen where they are used.
const outFill = -1.25

// float is the element type of the kernels' float slices: float32 for the
// kernel expansion, float64 for DotAxpy.
type float interface{ float32 | float64 }

// elem is the element type of any slice handed to a kernel.
type elem interface{ float | int32 }

// guarded is a region inside a larger allocation, between guard elements of
// one value, the fill (gonum style): assembly has no bounds checks, and the
// region's capacity reaches the trailing guard.
type guarded[T elem] struct {
	all  []T // guard, region, guard
	fill T
	init []T // the region's contents when made
}

// newGuarded returns a guarded copy of init whose guards hold fill and
// whose first element lies skew%4 elements past an alignment boundary.
func newGuarded[T elem](init []T, fill T, skew int) *guarded[T] {
	size := int(unsafe.Sizeof(fill))
	all := make([]T, len(init)+2*guard+alignment/size+3)
	start := guard
	for uintptr(unsafe.Pointer(&all[start]))%alignment != 0 {
		start++
	}
	start += skew % 4
	g := &guarded[T]{all: all[start-guard : start+len(init)+guard], fill: fill, init: init}
	for i := range g.all {
		g.all[i] = fill
	}
	copy(g.s(), init)
	return g
}

// newOutput returns a guarded region of n zeros with guards of outFill.
func newOutput[T float](n, skew int) *guarded[T] {
	return newGuarded(make([]T, n), outFill, skew)
}

// s is the region given to the kernel.
func (g *guarded[T]) s() []T { return g.all[guard : len(g.all)-guard] }

// check fails the test if a guard element changed (a NaN fill accepts any
// NaN: a NaN cannot be written over it unnoticed, see outFill).
func (g *guarded[T]) check(tb testing.TB, what string) {
	tb.Helper()
	n := len(g.all) - 2*guard
	for i, v := range g.all {
		if (i < guard || i >= guard+n) && !sameValue(v, g.fill) {
			tb.Fatalf("%s: guard element %d (region [%d,%d)) overwritten with %v", what, i, guard, guard+n, v)
		}
	}
}

// checkInput is check for an input region, which must also be unchanged.
func (g *guarded[T]) checkInput(tb testing.TB, what string) {
	tb.Helper()
	g.check(tb, what)
	for i, v := range g.s() {
		if !sameValue(v, g.init[i]) {
			tb.Fatalf("%s: input element %d changed from %v to %v", what, i, g.init[i], v)
		}
	}
}

// sameValue reports whether x and y are equal or both NaN (a float32 NaN
// stays NaN through float64).
func sameValue[T elem](x, y T) bool { return x == y || x != x && y != y }

// tiled lays out n vectors of dimension dim (vecs[i][j]) in the tiled
// layout of package layout: tiles of 16 slots, feature-major inside a tile,
// padding slots zero.
func tiled(vecs [][]float32, dim int) []float32 {
	ntiles := (len(vecs) + lanes - 1) / lanes
	tiles := make([]float32, ntiles*dim*lanes)
	for i, v := range vecs {
		t, l := i/lanes, i%lanes
		for j := 0; j < dim; j++ {
			tiles[(t*dim+j)*lanes+l] = v[j]
		}
	}
	return tiles
}

// slots returns the number of slots (padded to whole tiles) for n vectors.
func slots(n int) int { return (n + lanes - 1) / lanes * lanes }

// padded returns vecs extended with zero vectors to whole tiles.
func padded(vecs [][]float32, dim int) [][]float32 {
	out := append([][]float32(nil), vecs...)
	for len(out)%lanes != 0 {
		out = append(out, make([]float32, dim))
	}
	return out
}

// refSqDist is the float64 squared distance.
func refSqDist(x, s []float32) float64 {
	var sum float64
	for j := range x {
		d := float64(x[j]) - float64(s[j])
		sum += d * d
	}
	return sum
}

// refNorm is the float64 squared norm.
func refNorm(v []float32) float64 {
	var sum float64
	for _, a := range v {
		sum += float64(a) * float64(a)
	}
	return sum
}

// refSparse is the float64 value of the norm expansion SqDistSparse
// computes, from the float32 norms it is given, and the magnitude of its
// terms (for tolerances).
func refSparse(norm, xnorm float32, idx []int32, val []float32, s []float32) (value, magnitude float64) {
	value = float64(norm) + float64(xnorm)
	magnitude = math.Abs(float64(norm)) + math.Abs(float64(xnorm))
	for k, j := range idx {
		p := -2 * float64(val[k]) * float64(s[j])
		value += p
		magnitude += math.Abs(p)
	}
	return max(value, 0), magnitude
}

// refDotAxpy returns what DotAxpy(a, b, y, c) should give, as the outputs
// [sum, y[0], …, y[len(a)−1]] (y after the call), and the tolerance of each.
//
// The sum of the exact products is formed in 256-bit arithmetic (an error
// far below the tolerance) and rounded. Its tolerance is one rounding per
// product and per addition: at most len(a)/4 + 3 on a term in the generic
// code's four partial sums (the vector lanes add fewer terms each), 16 more
// for the horizontal sums and the wrapper's tail, each bounded by
// u·Σ|aᵢ·bᵢ|, plus 2⁻¹⁰⁷⁴ per product or addition that underflows into the
// denormals.
//
// y[i] + c·a[i] is rounded once (math.FMA, as the assembly computes it). The
// generic code may round the product first: within u·|c·a[i]| + 2u·|result|
// of it, hence twice that (and a denormal's worth) as the tolerance.
//
// Non-finite inputs give the IEEE results, whose class (NaN or which
// infinity) does not depend on the order of the additions as long as no sum
// of finite terms overflows, which the callers' values rule out: a NaN term
// (0·Inf included) or infinities of both signs make the sum NaN,
// infinities of one sign that infinity.
func refDotAxpy(a, b, y []float64, c float64) (want, tol []float64) {
	n := len(a)
	want = make([]float64, 1+n)
	tol = make([]float64, 1+n)
	var plain, mag float64
	sum := new(big.Float).SetPrec(256)
	prod := new(big.Float).SetPrec(106) // a float64 product is exact in 106 bits
	bi := new(big.Float)
	for i := range a {
		p := a[i] * b[i]
		plain += p
		mag += math.Abs(p)
		if math.IsInf(p, 0) || math.IsNaN(p) {
			continue // the sum is plain's NaN or infinity
		}
		prod.SetFloat64(a[i])
		sum.Add(sum, prod.Mul(prod, bi.SetFloat64(b[i])))
	}
	want[0] = plain
	if !math.IsInf(plain, 0) && !math.IsNaN(plain) {
		want[0], _ = sum.Float64()
	}
	tol[0] = float64(n/4+19)*u64*mag + float64(2*n+2)*0x1p-1074
	for i := range a {
		want[1+i] = math.FMA(c, a[i], y[i])
		tol[1+i] = 2*u64*(math.Abs(c*a[i])+math.Abs(want[1+i])) + 0x1p-1074
	}
	return want, tol
}

// sameBits reports whether x and y hold the same values bit for bit (NaN
// included).
func sameBits(x, y []float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

// clampExp clamps an argument to [ExpMin, ExpMax], the range in which the
// rounding of exp32's argument moves its result.
func clampExp(x float64) float64 { return min(max(x, simd.ExpMin), simd.ExpMax) }

// refExp64 is exp32 in float64: 0 below ExpMin, e^x of the argument
// clamped to ExpMax above.
func refExp64(x float64) float64 {
	if x < simd.ExpMin {
		return 0
	}
	return math.Exp(min(x, simd.ExpMax))
}

// refExp is refExp64 of a float32 argument.
func refExp(x float32) float64 { return refExp64(float64(x)) }

// refKernels returns the kernel value e^(scale·dᵢ + offset) of every
// squared distance, of the exact argument (refExp64), and its tolerance
// expTol. An exact argument within the argument's rounding error of ExpMin
// may round to either side of it, so there the tolerance also admits 0
// and e^ExpMin (and values up to the rounded argument's e^x above it).
func refKernels(dist []float32, scale, offset float32) (k, tol []float64) {
	k = make([]float64, len(dist))
	tol = make([]float64, len(dist))
	for i, d := range dist {
		prod := float64(scale) * float64(d) // exact: a float32 product fits a float64
		arg := prod + float64(offset)
		e := argErr(prod, float64(offset))
		k[i] = refExp64(arg)
		tol[i] = expTol(k[i], e)
		if math.Abs(arg-simd.ExpMin) <= e {
			tol[i] = max(tol[i], (1+2e-7)*math.Exp(simd.ExpMin+2*e))
		}
	}
	return k, tol
}

// refWeightedSum returns Σ wᵢ·kᵢ of the reference kernel values k, whose
// float32 counterparts are within ktol of them, and the tolerance of the
// float32 sum: each term carries its kernel value's error |wᵢ|·ktolᵢ; the
// float32 accumulation adds at most n/16 + 1 roundings per lane, 4 for the
// horizontal sum and 17 for a scalar tail and its addition, each bounded
// by u·Σ|wᵢ|·(kᵢ + ktolᵢ) (the float32 values are the ones multiplied);
// products and sums that underflow into the denormals err by up to 2⁻¹⁵⁰
// each instead, absolutely.
func refWeightedSum(w []float32, k, ktol []float64) (sum, tol float64) {
	var mag, kerr float64
	for i := range k {
		sum += float64(w[i]) * k[i]
		mag += math.Abs(float64(w[i])) * (k[i] + ktol[i])
		kerr += math.Abs(float64(w[i])) * ktol[i]
	}
	n := len(k)
	return sum, kerr + float64(n/16+22)*u32*mag + float64(2*n+21)*0x1p-150
}

// columns lays out the columns w, of n values each, stride apart in one
// slice, the values between them NaN: a kernel that reads past the end of
// a column makes that column's sum NaN.
func columns(w [][]float32, n, stride int) []float32 {
	if len(w) == 0 {
		return nil
	}
	flat := make([]float32, (len(w)-1)*stride+n)
	for i := range flat {
		flat[i] = nan[float32]()
	}
	for c, col := range w {
		copy(flat[c*stride:], col[:n])
	}
	return flat
}

// argErr bounds the error of the float32 argument scale·d + offset of a
// kernel value, given the exact product prod = scale·d: one rounding of the
// result (clamped: only its error inside [ExpMin, ExpMax] matters), and
// when offset ≠ 0 one more of the product, which the generic code may round
// before adding (the assembly fuses the two in an FMA, the compiler may or
// may not). With offset 0 the addition is exact.
func argErr(prod, offset float64) float64 {
	e := u32 * math.Abs(clampExp(prod+offset))
	if offset != 0 {
		e += u32 * math.Abs(prod)
	}
	return 1.01 * e
}

// expTol is the tolerance of a float32 kernel value k = e^x against refExp
// of the exact argument, given the bound argErr of the argument's error:
// 2e-7 relative for the exponential (its documented error) plus the
// fraction e^argErr − 1 by which the argument's error moves the result.
func expTol(ref, argErr float64) float64 {
	return (2e-7 + math.Expm1(argErr)) * ref
}

// randVecs returns n random vectors of dimension dim with features drawn by
// f.
func randVecs(r *rand.Rand, n, dim int, f func() float32) [][]float32 {
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = f()
		}
	}
	return vecs
}

// refMin is the smallest element of a non-empty a without NaN.
func refMin(a []float32) float32 {
	m := a[0]
	for _, v := range a[1:] {
		if v < m {
			m = v
		}
	}
	return m
}

// closeTo reports whether got is within tol of want (NaN only matches NaN,
// an infinity only itself).
func closeTo[T float](got T, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(float64(got))
	}
	if float64(got) == want {
		return true
	}
	return math.Abs(float64(got)-want) <= tol
}

// nan returns a NaN of type T.
func nan[T float]() T { return T(math.NaN()) }
