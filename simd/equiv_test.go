package simd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// Equivalence of every implementation with a float64 reference, over shapes
// that hit every block size and remainder of the vector code (vector counts
// 0..67 and primes around the lane widths; dimensions 1..9, 22, 57, 300)
// and over adversarial values. Every output region is NaN-guarded.

// vectorCounts lists the numbers of stored vectors tested with small
// dimensions: every count up to 67 (one to five tiles with every
// remainder), then primes past the block sizes of the vector code.
func vectorCounts() []int {
	var ns []int
	for n := 0; n <= 67; n++ {
		ns = append(ns, n)
	}
	return append(ns, 97, 127, 257)
}

// fewCounts is the subset used with large dimensions.
var fewCounts = []int{0, 1, 7, 16, 17, 31, 61, 67, 97, 127, 257}

// shapes calls f for every (vector count, dimension) pair tested.
func shapes(f func(n, dim int)) {
	for _, dim := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 22, 57, 300} {
		ns := vectorCounts()
		if dim > 22 {
			ns = fewCounts
		}
		for _, n := range ns {
			f(n, dim)
		}
	}
}

// A dataKind generates the stored vectors (or frequencies) and the query
// of one test case.
type dataKind struct {
	name string
	gen  func(r *rand.Rand, n, dim int) (vecs [][]float32, x []float32)
}

// A tileCase is one case of eachCase: vecs and x of kind over dim
// features, the slices to be misaligned by skew, what naming it, and r the
// generator for anything more the case draws.
type tileCase struct {
	r         *rand.Rand
	kind      string
	what      string
	vecs      [][]float32
	x         []float32
	dim, skew int
}

// eachCase runs check in every implementation on every kind of data in
// every shape, with a skew that varies over the cases; the cases are drawn
// from a generator seeded (seed, seed+1).
func eachCase(t *testing.T, kinds []dataKind, seed uint64, check func(t *testing.T, c tileCase)) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		skew := 0
		r := rand.New(rand.NewPCG(seed, seed+1))
		for _, kind := range kinds {
			shapes(func(n, dim int) {
				vecs, x := kind.gen(r, n, dim)
				check(t, tileCase{r: r, kind: kind.name, what: fmt.Sprintf("%s n=%d dim=%d skew=%d", kind.name, n, dim, skew), vecs: vecs, x: x, dim: dim, skew: skew})
				skew++
			})
		}
	})
}

var dataKinds = []dataKind{
	{"uniform", func(r *rand.Rand, n, dim int) ([][]float32, []float32) {
		f := func() float32 { return 2*r.Float32() - 1 }
		return randVecs(r, n, dim, f), randVecs(r, 1, dim, f)[0]
	}},
	{"large", func(r *rand.Rand, n, dim int) ([][]float32, []float32) {
		// Raw features around 1e4, norms up to 1e10.
		f := func() float32 { return float32(r.IntN(20000)) + float32(r.IntN(8))/8 }
		return randVecs(r, n, dim, f), randVecs(r, 1, dim, f)[0]
	}},
	{"equal", func(r *rand.Rand, n, dim int) ([][]float32, []float32) {
		// The query is one of the stored vectors (distance exactly 0),
		// others are near it.
		f := func() float32 { return float32(r.NormFloat64() * 100) }
		vecs := randVecs(r, n, dim, f)
		x := randVecs(r, 1, dim, f)[0]
		for i := range vecs {
			if i%3 == 0 {
				copy(vecs[i], x)
			}
		}
		return vecs, x
	}},
	{"zeroquery", func(r *rand.Rand, n, dim int) ([][]float32, []float32) {
		f := func() float32 { return float32(r.NormFloat64()) }
		return randVecs(r, n, dim, f), make([]float32, dim)
	}},
	{"binary", func(r *rand.Rand, n, dim int) ([][]float32, []float32) {
		f := func() float32 { return float32(r.IntN(2)) }
		return randVecs(r, n, dim, f), randVecs(r, 1, dim, f)[0]
	}},
}

func TestEquivSqDist(t *testing.T) {
	eachCase(t, dataKinds, 1, func(t *testing.T, c tileCase) {
		checkSqDist(t, c.what, c.vecs, c.x, c.dim, c.skew)
	})
}

// checkSqDist runs SqDist on guarded, misaligned (by skew) copies of vecs
// and x and an output compares every slot with the float64 distance, and
// returns the output. Every term (x_j − s_j)² is non-negative, so the
// float32 result has a relative error of at most (dim+3)·u (one rounding
// for the difference counted twice by the square, one for the square or
// FMA, one per addition).
func checkSqDist(tb testing.TB, what string, vecs [][]float32, x []float32, dim, skew int) []float32 {
	tb.Helper()
	got := guardedDistances(tb, what, vecs, x, dim, skew, simd.SqDist)
	for i, s := range padded(vecs, dim) {
		want := refSqDist(x, s)
		if !closeTo(got[i], want, float64(dim+4)*u32*want) {
			tb.Fatalf("%s: slot %d: got %v, want %v (error %.3g relative)", what, i, got[i], want, math.Abs(float64(got[i])-want)/want)
		}
	}
	return got
}

// guardedDistances runs a distance kernel on guarded, misaligned (by
// skew) copies of vecs (tiled) and x and an output, checks the guards and
// returns the output: one value per padded slot.
func guardedDistances[T float](tb testing.TB, what string, vecs [][]float32, x []float32, dim, skew int, kernel func(dst []T, x, tiles []float32, dim int)) []T {
	tb.Helper()
	xg := newGuarded(x, nan[float32](), skew)
	tiles := newGuarded(tiled(vecs, dim), nan[float32](), skew+1)
	dst := newOutput[T](len(padded(vecs, dim)), skew+2)
	kernel(dst.s(), xg.s(), tiles.s(), dim)
	dst.check(tb, what+" dst")
	xg.checkInput(tb, what+" x")
	tiles.checkInput(tb, what+" tiles")
	return dst.s()
}

// sqDist64Kinds are dataKinds and values SqDist64 must handle bit for bit
// too: magnitudes over float32's whole range (denormals, ±MaxFloat32 and
// signed zeros included), where the float64 differences are not exact, and
// infinities and NaN.
var sqDist64Kinds = append(dataKinds[:len(dataKinds):len(dataKinds)],
	dataKind{"extreme", func(r *rand.Rand, n, dim int) ([][]float32, []float32) {
		special := []float32{0, float32(math.Copysign(0, -1)), math.MaxFloat32, -math.MaxFloat32,
			math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 0x1p-126, 1}
		f := func() float32 {
			if r.IntN(8) == 0 {
				return special[r.IntN(len(special))]
			}
			return float32(math.Ldexp(r.NormFloat64(), r.IntN(276)-149))
		}
		return randVecs(r, n, dim, f), randVecs(r, 1, dim, f)[0]
	}},
	dataKind{"nonfinite", func(r *rand.Rand, n, dim int) ([][]float32, []float32) {
		f := func() float32 {
			switch r.IntN(40) {
			case 0:
				return float32(math.Inf(1))
			case 1:
				return float32(math.Inf(-1))
			case 2:
				return float32(math.NaN())
			}
			return float32(r.NormFloat64())
		}
		return randVecs(r, n, dim, f), randVecs(r, 1, dim, f)[0]
	}},
)

func TestEquivSqDist64(t *testing.T) {
	eachCase(t, sqDist64Kinds, 21, func(t *testing.T, c tileCase) {
		checkSqDist64(t, c.what, c.vecs, c.x, c.dim, c.skew)
	})
}

// checkSqDist64 runs SqDist64 on guarded, misaligned (by skew) copies of
// vecs and x and an output, compares every slot with simdtest.SqDist64 bit for
// bit (a NaN with any NaN: their payloads are not specified), and returns
// the output.
func checkSqDist64(tb testing.TB, what string, vecs [][]float32, x []float32, dim, skew int) []float64 {
	tb.Helper()
	got := guardedDistances(tb, what, vecs, x, dim, skew, simd.SqDist64)
	for i, s := range padded(vecs, dim) {
		want := simdtest.SqDist64(x, s)
		if g := got[i]; math.Float64bits(g) != math.Float64bits(want) && !(g != g && want != want) {
			tb.Fatalf("%s: slot %d: got %v (%#x), want %v (%#x)", what, i, g, math.Float64bits(g), want, math.Float64bits(want))
		}
	}
	return got
}

// TestSqDist64Args: SqDist64 checks its shapes as SqDist does, and writes
// only the slots of whole tiles when dst is longer.
func TestSqDist64Args(t *testing.T) {
	for _, c := range []struct {
		dst, x, tiles, dim int
		ok                 bool
	}{
		{0, 3, 0, 3, true},
		{16, 3, 48, 3, true},
		{20, 3, 48, 3, true}, // dst longer: the rest untouched
		{15, 3, 48, 3, false},
		{16, 2, 48, 3, false}, // query too short
		{16, 3, 47, 3, false}, // not whole tiles
		{16, 3, 48, 0, false},
	} {
		func() {
			defer func() {
				if p := recover(); (p == nil) != c.ok {
					t.Errorf("SqDist64 with dst %d, x %d, tiles %d, dim %d: panic %v, want ok %v", c.dst, c.x, c.tiles, c.dim, p, c.ok)
				}
			}()
			dst := make([]float64, c.dst)
			for i := range dst {
				dst[i] = outFill
			}
			tiles := make([]float32, c.tiles)
			for i := range tiles {
				tiles[i] = 1
			}
			simd.SqDist64(dst, make([]float32, c.x), tiles, c.dim)
			for i, v := range dst {
				want := float64(c.dim)
				if i >= c.tiles/max(c.dim, 1) {
					want = outFill
				}
				if v != want {
					t.Errorf("dst %d, tiles %d, dim %d: dst[%d] = %v, want %v", c.dst, c.tiles, c.dim, i, v, want)
				}
			}
		}()
	}
}

func TestEquivSqDistSparse(t *testing.T) {
	eachCase(t, dataKinds, 3, func(t *testing.T, c tileCase) {
		idx, val := sparseQuery(c.r, c.x)
		checkSparse(t, fmt.Sprintf("%s nnz=%d", c.what, len(idx)), c.vecs, idx, val, c.dim, c.kind == "binary", c.skew)
	})
}

// sparseQuery picks a random subset of the features of x (sometimes none,
// sometimes with a repeated index, in random order) as a sparse query.
func sparseQuery(r *rand.Rand, x []float32) (idx []int32, val []float32) {
	nnz := r.IntN(min(len(x), 13) + 1)
	for _, j := range r.Perm(len(x))[:nnz] {
		idx = append(idx, int32(j))
		val = append(val, x[j])
	}
	if nnz > 0 && r.IntN(4) == 0 {
		// A repeated index adds its term twice: the kernels just sum.
		idx = append(idx, idx[0])
		val = append(val, val[0]/2)
	}
	return idx, val
}

// checkSparse runs SqDistSparse with norms rounded from float64, every
// slice guarded and misaligned (by skew), compares every slot with the
// float64 value of the same expansion, and returns the output. The float32
// error is at most (nnz+4)·u times the sum of the magnitudes of the terms
// (cancellation makes a relative bound impossible). With small integers
// everything is exact.
//
// The guards of idx hold dim: the row an out-of-bounds index read would
// select in the last tile is the first row past the tiles, in their NaN
// guards, which makes that tile's distances NaN.
func checkSparse(tb testing.TB, what string, vecs [][]float32, idx []int32, val []float32, dim int, exact bool, skew int) []float32 {
	tb.Helper()
	all := padded(vecs, dim)
	norms := make([]float32, len(all))
	for i, s := range all {
		norms[i] = float32(refNorm(s))
	}
	xnorm := float32(refNorm(val))
	ng := newGuarded(norms, nan[float32](), skew)
	ig := newGuarded(idx, int32(dim), skew+1)
	vg := newGuarded(val, nan[float32](), skew+2)
	tiles := newGuarded(tiled(vecs, dim), nan[float32](), skew+3)
	dst := newOutput[float32](len(all), skew)
	simd.SqDistSparse(dst.s(), ng.s(), ig.s(), vg.s(), xnorm, tiles.s(), dim)
	dst.check(tb, what+" dst")
	ng.checkInput(tb, what+" norms")
	ig.checkInput(tb, what+" idx")
	vg.checkInput(tb, what+" val")
	tiles.checkInput(tb, what+" tiles")
	for i, s := range all {
		want, mag := refSparse(norms[i], xnorm, idx, val, s)
		tol := float64(len(idx)+4) * u32 * mag
		if exact {
			tol = 0
		}
		if got := dst.s()[i]; got < 0 || !closeTo(got, want, tol) {
			tb.Fatalf("%s: slot %d: got %v, want %v (tolerance %.3g)", what, i, got, want, tol)
		}
	}
	return dst.s()
}

func TestEquivGaussianSum(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		skew := 0 // misalignment of the slices, varied over the cases
		r := rand.New(rand.NewPCG(5, 6))
		for _, n := range vectorCounts() {
			for _, c := range []struct {
				name  string
				dist  func() float32
				w     func() float32
				scale float32
				// offset returns the offset for the distances; nil is 0.
				offset func(dist []float32) float32
			}{
				{"typical", func() float32 { return 10 * r.Float32() }, func() float32 { return 2*r.Float32() - 1 }, -0.5, nil},
				{"wide", func() float32 { return 200 * r.Float32() }, func() float32 { return float32(r.NormFloat64()) }, -float32(r.Float64()), nil},
				{"zerodist", func() float32 { return 0 }, func() float32 { return 1 }, -1, nil},
				{"zeroweights", func() float32 { return r.Float32() }, func() float32 { return 0 }, -1, nil},
				{"belowmin", func() float32 { return 1e8 * r.Float32() }, func() float32 { return 1 }, -1, nil},
				// Arguments around ExpMin: 0 below it, e^x from it up.
				{"atmin", func() float32 { return 86 + 2*r.Float32() }, func() float32 { return 2*r.Float32() - 1 }, -1, nil},
				{"positive", func() float32 { return 30 * r.Float32() }, func() float32 { return 1e-30 }, 3, nil},
				{"zeroscale", func() float32 { return r.Float32() }, func() float32 { return 1 }, 0, nil},
				// Every e^(scale·d) underflows; the offset package engine
				// passes brings the nearest kernel value to 1.
				{"far", func() float32 { return 1e4 + 100*r.Float32() }, func() float32 { return 2*r.Float32() - 1 }, -0.5, engineOffset(-0.5)},
				{"shiftup", func() float32 { return 10 * r.Float32() }, func() float32 { return 1 }, -0.5, func([]float32) float32 { return 3.25 }},
				{"shiftdown", func() float32 { return 10 * r.Float32() }, func() float32 { return 1 }, -0.5, func([]float32) float32 { return -60 }},
				{"clampedoffset", func() float32 { return 300 * r.Float32() }, func() float32 { return 1e-30 }, -1, func([]float32) float32 { return 150 }},
			} {
				dist := make([]float32, n)
				w := make([]float32, n)
				for i := range dist {
					dist[i], w[i] = c.dist(), c.w()
					if c.name == "typical" && i%5 == 0 {
						w[i] = 0
					}
				}
				var offset float32
				if c.offset != nil && n > 0 {
					offset = c.offset(dist)
				}
				checkGaussianSum(t, fmt.Sprintf("%s n=%d skew=%d", c.name, n, skew), dist, w, c.scale, offset, skew)
				skew++
			}
		}
	})
}

// engineOffset returns the offset package engine passes with scale:
// −scale·min(dist), which makes the largest kernel value about 1.
func engineOffset(scale float32) func(dist []float32) float32 {
	return func(dist []float32) float32 { return -scale * refMin(dist) }
}

// checkGaussianSum runs GaussianSum on guarded, misaligned (by skew) copies
// of dist and w, compares every kernel value with exp of the exact argument
// scale·dᵢ + offset (refKernels) and the sum with Σ wᵢ·e^(scale·dᵢ + offset)
// (refWeightedSum), and returns the kernel values followed by the sum.
//
// buf is both read and written, and its guards are NaN: a read past it
// makes the sum NaN, and a write past it without that read stores a finite
// kernel value there.
func checkGaussianSum(tb testing.TB, what string, dist, w []float32, scale, offset float32, skew int) []float32 {
	tb.Helper()
	buf := newGuarded(dist, nan[float32](), skew)
	wg := newGuarded(w, nan[float32](), skew+1)
	sum := simd.GaussianSum(buf.s(), wg.s(), scale, offset)
	buf.check(tb, what+" buf")
	wg.checkInput(tb, what+" w")
	k, ktol := checkKernels(tb, what, buf.s(), dist, scale, offset)
	want, tol := refWeightedSum(w, k, ktol)
	if !closeTo(sum, want, tol) {
		tb.Fatalf("%s: sum: got %v, want %v (tolerance %.3g)", what, sum, want, tol)
	}
	return append(buf.s(), sum)
}

// checkKernels compares the kernel values got computed from the squared
// distances dist with refKernels, and returns the reference values and
// their tolerances.
func checkKernels(tb testing.TB, what string, got, dist []float32, scale, offset float32) (k, tol []float64) {
	tb.Helper()
	k, tol = refKernels(dist, scale, offset)
	for i, d := range dist {
		if !closeTo(got[i], k[i], tol[i]) {
			tb.Fatalf("%s: kernel %d of e^(%v·%v + %v): got %v, want %v", what, i, scale, d, offset, got[i], k[i])
		}
	}
	return k, tol
}

// TestGaussianSumFarExact: kernel values whose argument lies below ExpMin
// are exactly 0 in every implementation, so that n far vectors with
// weights ±1 (more of one sign) score exactly 0, in GaussianSum and in every
// column of GaussianSumColumns, and next to one near vector they leave its
// term w·k as the exact sum. Floors of e^ExpMin would leave a sum of
// roughly (n₊ − n₋)·e^ExpMin whose rounding, and in ties whose sign,
// depended on the order of the additions.
func TestGaussianSumFarExact(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		r := rand.New(rand.NewPCG(19, 20))
		for _, n := range []int{15, 16, 17, 1000, 1003} {
			for _, near := range []int{-1, 0, n / 2, n - 1} { // −1: none
				dist := make([]float32, n)
				w := make([]float32, 3*n)
				for i := range dist {
					dist[i] = 87.5 + 1000*r.Float32() // scale −1: below ExpMin
					w[i], w[n+i], w[2*n+i] = 1, -1, 1
					if r.IntN(5) < 2 {
						w[i], w[n+i] = -1, 1
					}
				}
				if near >= 0 {
					dist[near] = 3 * r.Float32()
				}
				what := fmt.Sprintf("n=%d near=%d", n, near)
				buf := append([]float32(nil), dist...)
				sum := simd.GaussianSum(buf, w, -1, 0)
				sums := make([]float32, 3)
				simd.GaussianSumColumns(sums, append([]float32(nil), dist...), w, n, -1, 0)
				var want [3]float32
				for i, k := range buf {
					if i == near {
						for c := range want {
							want[c] = w[c*n+i] * k
						}
					} else if k != 0 || math.Signbit(float64(k)) {
						t.Fatalf("%s: kernel %d of e^−%v = %v, want +0", what, i, dist[i], k)
					}
				}
				if sum != want[0] || sums[0] != want[0] || sums[1] != want[1] || sums[2] != want[2] {
					t.Fatalf("%s: GaussianSum %v, GaussianSumColumns %v, want exactly %v", what, sum, sums, want)
				}
			}
		}
	})
}

func TestEquivGaussianSumColumns(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		skew := 0 // misalignment of the slices, varied over the cases
		r := rand.New(rand.NewPCG(17, 18))
		for _, n := range append(vectorCounts(), 1008, 2051) {
			// Every column count up to 30 (past the 10 or 7 columns the
			// vector code sums in its exp pass) for the short lengths,
			// a few counts for the long ones.
			cols := []int{0, 1, 2, 3, 7, 8, 10, 11, 26, 52}
			if n <= 67 {
				cols = cols[:0]
				for c := 0; c <= 30; c++ {
					cols = append(cols, c)
				}
			}
			for _, c := range cols {
				for _, stride := range []int{n, n + 1 + r.IntN(5), (n + 31) &^ 15} {
					dist := make([]float32, n)
					for i := range dist {
						dist[i] = 10 * r.Float32()
					}
					var offset float32
					if skew%3 == 1 && n > 0 {
						offset = engineOffset(-0.5)(dist)
					}
					w := randVecs(r, c, n, func() float32 { return float32(r.NormFloat64()) })
					checkGaussianSumColumns(t, fmt.Sprintf("cols=%d n=%d stride=%d offset=%v skew=%d", c, n, stride, offset, skew), dist, w, stride, -0.5, offset, skew)
					skew++
				}
			}
		}
	})
}

// checkGaussianSumColumns runs GaussianSumColumns on guarded, misaligned
// (by skew) copies of dist and the columns w laid out stride apart (NaN
// between them, as checkDotColumns), compares the kernel values and every
// column's sum as checkGaussianSum does, and returns the kernel values
// followed by the sums.
func checkGaussianSumColumns(tb testing.TB, what string, dist []float32, w [][]float32, stride int, scale, offset float32, skew int) []float32 {
	tb.Helper()
	buf := newGuarded(dist, nan[float32](), skew)
	wg := newGuarded(columns(w, len(dist), stride), nan[float32](), skew+1)
	dst := newOutput[float32](len(w), skew+2)
	simd.GaussianSumColumns(dst.s(), buf.s(), wg.s(), stride, scale, offset)
	dst.check(tb, what+" dst")
	buf.check(tb, what+" buf")
	wg.checkInput(tb, what+" w")
	k, ktol := checkKernels(tb, what, buf.s(), dist, scale, offset)
	for c, col := range w {
		want, tol := refWeightedSum(col, k, ktol)
		if got := dst.s()[c]; !closeTo(got, want, tol) {
			tb.Fatalf("%s: column %d: got %v, want %v (tolerance %.3g)", what, c, got, want, tol)
		}
	}
	return append(buf.s(), dst.s()...)
}

func TestEquivDot(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		skew := 0 // misalignment of the slices, varied over the cases
		r := rand.New(rand.NewPCG(7, 8))
		for _, n := range append(vectorCounts(), 1000, 4099) {
			for _, scale := range []float64{1, 1e4, 1e-20} {
				a := make([]float32, n)
				b := make([]float32, n+n%3) // longer than a by 0–2: ignored
				for i := range b {
					if i < n {
						a[i] = float32(r.NormFloat64() * scale)
					}
					b[i] = float32(r.NormFloat64())
				}
				checkDot(t, fmt.Sprintf("n=%d scale=%g skew=%d", n, scale, skew), a, b, skew)
				skew++
			}
		}
	})
}

// checkDot compares Dot of guarded, misaligned (by skew) copies of a and b
// with the float64 dot product and returns it. b may be longer than a.
// Tolerance: one rounding per product and per addition, at most n/16 + 1
// per lane, 4 for the horizontal sum and 16 for a scalar tail, each bounded
// by u·Σ|aᵢ·bᵢ|.
func checkDot(tb testing.TB, what string, a, b []float32, skew int) float32 {
	tb.Helper()
	var want, mag float64
	for i := range a {
		p := float64(a[i]) * float64(b[i])
		want += p
		mag += math.Abs(p)
	}
	ag := newGuarded(a, nan[float32](), skew)
	bg := newGuarded(b, nan[float32](), skew+1)
	got := simd.Dot(ag.s(), bg.s())
	ag.checkInput(tb, what+" a")
	bg.checkInput(tb, what+" b")
	tol := float64(len(a)/16+22) * u32 * mag
	if !closeTo(got, want, tol) {
		tb.Fatalf("%s: got %v, want %v (tolerance %.3g)", what, got, want, tol)
	}
	return got
}

func TestEquivDotAxpy(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		skew := 0 // misalignment of the slices, varied over the cases
		r := rand.New(rand.NewPCG(13, 14))
		for _, n := range append(vectorCounts(), 1000, 2001) {
			for _, kind := range dotAxpyKinds {
				// b and y longer than a by 0–2 elements: the rest of y
				// must stay as it is.
				extra := n % 3
				a := make([]float64, n)
				b := make([]float64, n+extra)
				y := make([]float64, n+extra)
				for i := range b {
					if i < n {
						a[i] = kind.gen(r)
					}
					b[i], y[i] = kind.gen(r), kind.gen(r)
				}
				if kind.name == "cancel" {
					for i := range a {
						b[i] = a[i] // Σ ±a[i]² with a sum far below Σ a[i]²
						if i%2 == 1 {
							b[i] = -a[i]
						}
					}
				}
				checkDotAxpy(t, fmt.Sprintf("%s n=%d skew=%d", kind.name, n, skew), a, b, y, kind.c(r), kind.name == "integers", skew)
				skew++
			}
		}
	})
}

// dotAxpyKinds generate the elements and the scale c of a DotAxpy test case.
var dotAxpyKinds = []struct {
	name string
	gen  func(r *rand.Rand) float64
	c    func(r *rand.Rand) float64
}{
	{"normal", (*rand.Rand).NormFloat64, (*rand.Rand).NormFloat64},
	// Magnitudes from 2⁻³⁰ to 2³⁰, both signs.
	{"mixed", func(r *rand.Rand) float64 { return math.Ldexp(r.NormFloat64(), r.IntN(61)-30) },
		func(r *rand.Rand) float64 { return math.Ldexp(r.NormFloat64(), r.IntN(21)-10) }},
	{"cancel", (*rand.Rand).NormFloat64, func(r *rand.Rand) float64 { return -r.Float64() }},
	{"zeroc", (*rand.Rand).NormFloat64, func(*rand.Rand) float64 { return 0 }},
	// Small integers: every product and sum is exact, in any order.
	{"integers", func(r *rand.Rand) float64 { return float64(r.IntN(201) - 100) },
		func(r *rand.Rand) float64 { return float64(r.IntN(9) - 4) }},
}

// checkDotAxpy runs DotAxpy on guarded, misaligned (by skew) copies of a,
// b and y (b and y may be longer than a) and compares the sum and
// y[:len(a)] with refDotAxpy (exactly if exact is set); a, b and the rest
// of y must be unchanged. The guards of a and b are NaN, which an
// out-of-bounds read carries into the sum; those of y are outFill, which a
// stray write (y + c·NaN, or any other value) changes. It returns the
// outputs in refDotAxpy's order.
func checkDotAxpy(tb testing.TB, what string, a, b, y []float64, c float64, exact bool, skew int) []float64 {
	tb.Helper()
	ag := newGuarded(a, nan[float64](), skew)
	bg := newGuarded(b, nan[float64](), skew+1)
	yg := newGuarded(y, outFill, skew+2)
	sum := simd.DotAxpy(ag.s(), bg.s(), yg.s(), c)
	ag.checkInput(tb, what+" a")
	bg.checkInput(tb, what+" b")
	yg.check(tb, what+" y")
	if !sameBits(yg.s()[len(a):], y[len(a):]) {
		tb.Fatalf("%s: y past len(a) changed: %v, was %v", what, yg.s()[len(a):], y[len(a):])
	}
	got := append([]float64{sum}, yg.s()[:len(a)]...)
	want, tol := refDotAxpy(a, b, y, c)
	for i := range want {
		if exact {
			tol[i] = 0
		}
		if !closeTo(got[i], want[i], tol[i]) {
			out := "sum"
			if i > 0 {
				out = fmt.Sprintf("y[%d] = %v + %v·%v", i-1, y[i-1], c, a[i-1])
			}
			tb.Fatalf("%s: %s: got %v, want %v (tolerance %.3g)", what, out, got[i], want[i], tol[i])
		}
	}
	return got
}

// TestDotAxpyShort: b or y shorter than a is a programming error.
func TestDotAxpyShort(t *testing.T) {
	for _, c := range []struct{ na, nb, ny int }{{3, 2, 3}, {3, 3, 2}, {17, 16, 17}, {17, 17, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("DotAxpy with lengths %d, %d, %d did not panic", c.na, c.nb, c.ny)
				}
			}()
			simd.DotAxpy(make([]float64, c.na), make([]float64, c.nb), make([]float64, c.ny), 1)
		}()
	}
}

func TestEquivExp(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		r := rand.New(rand.NewPCG(9, 10))
		special := []float32{0, float32(math.Copysign(0, -1)), simd.ExpMin, simd.ExpMax, -87.5, 88.5, 1, -1,
			0.34657359, -0.34657359, 1e-45, -1e-45, 1e30, -1e30,
			float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
			math.MaxFloat32, -math.MaxFloat32}
		for _, n := range vectorCounts() {
			src := make([]float32, n)
			for i := range src {
				if i < len(special) && n%2 == 1 {
					src[i] = special[i]
				} else {
					src[i] = float32(r.Float64()*200 - 100)
				}
			}
			checkExp(t, fmt.Sprintf("n=%d skew=%d", n, n), src, n)
		}
	})
}

// checkExp compares Exp of a guarded, misaligned (by skew) copy of src
// with refExp (relative error at most 2e-7, the documented bound; exactly 0
// below ExpMin, NaN for NaN) and returns the output.
func checkExp(tb testing.TB, what string, src []float32, skew int) []float32 {
	tb.Helper()
	sg := newGuarded(src, nan[float32](), skew)
	dst := newOutput[float32](len(src), skew+1)
	simd.Exp(dst.s(), sg.s())
	dst.check(tb, what+" dst")
	sg.checkInput(tb, what+" src")
	for i, x := range src {
		want := refExp(x)
		if math.IsNaN(float64(x)) {
			want = math.NaN()
		}
		if got := dst.s()[i]; !closeTo(got, want, 2e-7*want) {
			tb.Fatalf("%s: exp(%v): got %v, want %v (relative error %.3g)", what, x, got, want, (float64(got)-want)/want)
		}
	}
	return dst.s()
}

// minLengths lists the lengths Min is tested with: every length from 1 to
// 67 (all remainders of one to four vectors of 16), primes past the
// unrolled blocks of the vector code, the benchmark's length and a long
// one. Short mode stops at 257: the lengths are tested with the minimum at
// every position, quadratic work that qemu runs slowly.
func minLengths() []int {
	var ns []int
	for n := 1; n <= 67; n++ {
		ns = append(ns, n)
	}
	ns = append(ns, 97, 127, 257)
	if !testing.Short() {
		ns = append(ns, 1008, 1021, 4099)
	}
	return ns
}

// minKinds generate the elements of a Min test case and a value low at most
// every one of them, placed at each position in turn.
var minKinds = []struct {
	name string
	gen  func(r *rand.Rand) float32
	low  float32
}{
	{"distances", func(r *rand.Rand) float32 { return 1 + 100*r.Float32() }, 0},
	{"inf", func(r *rand.Rand) float32 {
		if r.IntN(2) == 0 {
			return float32(math.Inf(1))
		}
		return 1e30 * r.Float32()
	}, 0},
	{"allinf", func(*rand.Rand) float32 { return float32(math.Inf(1)) }, math.MaxFloat32},
	// One ulp apart: the minimum is found exactly.
	{"ulp", func(*rand.Rand) float32 { return 1 }, math.Nextafter32(1, 0)},
	{"signed", func(r *rand.Rand) float32 {
		return float32(math.Ldexp(r.NormFloat64(), r.IntN(250)-125))
	}, -math.MaxFloat32},
}

func TestEquivMin(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		skew := 0 // misalignment of the slices, varied over the cases
		r := rand.New(rand.NewPCG(11, 12))
		for _, n := range minLengths() {
			for _, kind := range minKinds {
				a := make([]float32, n)
				for i := range a {
					a[i] = kind.gen(r)
				}
				checkMinEverywhere(t, fmt.Sprintf("%s n=%d skew=%d", kind.name, n, skew), a, kind.low, skew)
				skew++
			}
		}
	})
}

// TestMinNegInf: −Inf is an ordinary element (the −Inf guards of
// withMinGuards cannot tell it from an out-of-bounds read, so it is tested
// alone).
func TestMinNegInf(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		for _, n := range []int{1, 15, 16, 17, 64, 65, 200} {
			a := make([]float32, n)
			for p := range a {
				clear(a)
				a[p] = float32(math.Inf(-1))
				if got := simd.Min(a); !math.IsInf(float64(got), -1) {
					t.Fatalf("n=%d, -Inf at %d: got %v", n, p, got)
				}
			}
		}
	})
}

func TestMinEmpty(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Min of an empty slice did not panic")
		}
	}()
	simd.Min(nil)
}

// checkMin compares Min of a with the exact minimum (a must have no NaN).
func checkMin(tb testing.TB, what string, a []float32, skew int) {
	tb.Helper()
	want := refMin(a)
	withMinGuards(tb, what, a, skew, func(s []float32, fill float32) {
		if got := simd.Min(s); got != want {
			tb.Fatalf("%s, guards %v: got %v, want %v", what, fill, got, want)
		}
	})
}

// checkMinEverywhere is checkMin, then Min with low (at most every element
// of a) written at every position in turn: the minimum first, last, in the
// vector loop's blocks and in the Go tail.
func checkMinEverywhere(tb testing.TB, what string, a []float32, low float32, skew int) {
	tb.Helper()
	checkMin(tb, what, a, skew)
	withMinGuards(tb, what, a, skew, func(s []float32, fill float32) {
		for p := range s {
			s[p] = low
			if got := simd.Min(s); got != low {
				tb.Fatalf("%s, guards %v, %v at %d: got %v", what, fill, low, p, got)
			}
			s[p] = a[p]
		}
	})
}

// withMinGuards calls f with a copy of a, misaligned by skew, held between
// NaN guards, the other inputs' convention, then between −Inf guards, which
// make any out-of-bounds read of Min its result (VMINPS lets a NaN go), and
// checks the guards and a after each call.
func withMinGuards(tb testing.TB, what string, a []float32, skew int, f func(s []float32, fill float32)) {
	tb.Helper()
	for _, fill := range []float32{nan[float32](), float32(math.Inf(-1))} {
		g := newGuarded(a, fill, skew)
		f(g.s(), fill)
		g.checkInput(tb, what)
	}
}

func TestEquivDotColumns(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		skew := 0 // misalignment of the slices, varied over the cases
		r := rand.New(rand.NewPCG(15, 16))
		cols := make([]int, 0, 32)
		for c := 0; c <= 30; c++ {
			cols = append(cols, c)
		}
		cols = append(cols, 52)
		lengths := make([]int, 0, 70)
		for n := 0; n <= 67; n++ {
			lengths = append(lengths, n)
		}
		for _, n := range append(lengths, 1000, 1008, 2051) {
			// Every column count with the short lengths; the long ones
			// with a few counts that hit every block size.
			cs := cols
			if n > 67 {
				cs = []int{0, 1, 3, 7, 10, 26, 52}
			}
			for _, c := range cs {
				// The columns packed (stride len(k)), then apart by a
				// few values or by whole tiles, as the engine stores them.
				for _, stride := range []int{n, n + 1 + r.IntN(5), (n + 31) &^ 15} {
					k := make([]float32, n)
					for i := range k {
						k[i] = float32(r.Float64()) // kernel values: (0, 1]
					}
					w := make([][]float32, c)
					for j := range w {
						w[j] = randVecs(r, 1, n, func() float32 { return float32(r.NormFloat64()) })[0]
					}
					checkDotColumns(t, fmt.Sprintf("cols=%d n=%d stride=%d skew=%d", c, n, stride, skew), k, w, stride, skew)
					skew++
				}
			}
		}
	})
}

// TestDotColumnsLaneOrder: every implementation adds the lanes of each
// column's sum in sumLanes's order, whatever the block of columns it falls
// in (AVX-512 adds eight columns' lanes at once, by permutes between the
// adds). With one tile of k, all ones, a column's sum is exactly sumLanes
// of its values, and values of widely spread magnitudes round differently
// in any other order.
func TestDotColumnsLaneOrder(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		r := rand.New(rand.NewPCG(41, 42))
		k := make([]float32, 16)
		for i := range k {
			k[i] = 1
		}
		for cols := 1; cols <= 26; cols++ {
			w := randVecs(r, 1, cols*16, func() float32 { return float32(r.NormFloat64() * math.Exp(4*r.NormFloat64())) })[0]
			dst := make([]float32, cols)
			simd.DotColumns(dst, k, w, 16)
			for c, got := range dst {
				if want := simd.SumLanes(w[c*16 : (c+1)*16]); math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("%d columns: column %d sums to %v, want %v (the lanes in sumLanes's order)", cols, c, got, want)
				}
			}
		}
	})
}

// checkDotColumns runs DotColumns with k and the columns w laid out stride
// apart, every slice guarded and misaligned (by skew), compares each output
// with the float64 dot product, and returns the outputs. The values
// between the columns (stride > len(k)) are NaN, like the guards: a read
// past the end of a column makes its sum NaN. Tolerance per column as
// checkDot's: at most n/16 + 1 roundings per lane, 4 for the horizontal sum
// and 17 for a scalar tail and its addition, each bounded by u·Σ|kᵢ·wᵢ|.
func checkDotColumns(tb testing.TB, what string, k []float32, w [][]float32, stride, skew int) []float32 {
	tb.Helper()
	n := len(k)
	kg := newGuarded(k, nan[float32](), skew)
	wg := newGuarded(columns(w, n, stride), nan[float32](), skew+1)
	dst := newOutput[float32](len(w), skew+2)
	simd.DotColumns(dst.s(), kg.s(), wg.s(), stride)
	dst.check(tb, what+" dst")
	kg.checkInput(tb, what+" k")
	wg.checkInput(tb, what+" w")
	for c, col := range w {
		var want, mag float64
		for i := range k {
			p := float64(k[i]) * float64(col[i])
			want += p
			mag += math.Abs(p)
		}
		tol := float64(n/16+22) * u32 * mag
		if got := dst.s()[c]; !closeTo(got, want, tol) {
			tb.Fatalf("%s: column %d: got %v, want %v (tolerance %.3g)", what, c, got, want, tol)
		}
	}
	return dst.s()
}

// TestColumnsArgs: DotColumns and GaussianSumColumns accept every shape
// their contract allows (empty outputs and columns included) and panic on
// the others.
func TestColumnsArgs(t *testing.T) {
	for _, c := range []struct {
		cols, n, stride, w int
		ok                 bool
	}{
		{0, 0, 0, 0, true},
		{0, 5, 5, 0, true},  // no columns: w is not read
		{3, 0, 0, 0, true},  // empty columns: zero sums
		{3, 0, 7, 14, true}, // the contract's (3−1)·7 + 0
		{3, 0, 7, 13, false},
		{1, 5, 5, 5, true},    // one column needs only len(k) values
		{3, 5, 8, 21, true},   // (3−1)·8 + 5
		{3, 5, 8, 20, false},  // one short
		{3, 5, 4, 100, false}, // stride < len(k)
		{2, 0, -1, 10, false}, // negative stride
		{1, 5, 5, 4, false},
		{2, 17, 17, 33, false},
		{2, 17, 17, 34, true},
	} {
		for name, f := range map[string]func(dst, k, w []float32, stride int){
			"DotColumns": simd.DotColumns,
			"GaussianSumColumns": func(dst, buf, w []float32, stride int) {
				simd.GaussianSumColumns(dst, buf, w, stride, -1, 0)
			},
		} {
			func() {
				defer func() {
					if p := recover(); (p == nil) != c.ok {
						t.Errorf("%s with %d columns of %d, stride %d, %d weights: panic %v, want ok %v", name, c.cols, c.n, c.stride, c.w, p, c.ok)
					}
				}()
				f(make([]float32, c.cols), make([]float32, c.n), make([]float32, c.w), c.stride)
			}()
		}
	}
}
