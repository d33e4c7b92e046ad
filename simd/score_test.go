package simd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/internal/cputime"
	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// scoreCols lists the column counts ScoreTiles is tested with: one (the
// binary f(x), AVX-512's four accumulators), two (BOGD's free and capped
// weights), every count up to past the 10 (AVX-512) and 7 (AVX2) columns
// the vector code sums in registers, and NOGD's 21 at B = 100.
var scoreCols = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 21}

// TestEquivScoreTiles: on every shape and kind of data of the distance
// tests, with the column counts of scoreCols and two scales (kernel values
// near e⁻², and far queries whose every value underflows to 0), ScoreTiles
// gives bit for bit what SqDist, Min and GaussianSumColumns give in the
// same implementation, and every output is within its tolerance of the
// float64 reference (checkScoreTiles).
func TestEquivScoreTiles(t *testing.T) {
	eachCase(t, dataKinds, 31, func(t *testing.T, c tileCase) {
		n := len(c.vecs)
		cols := scoreCols[c.skew%len(scoreCols)]
		stride := slots(n)
		if c.skew%3 == 1 {
			stride += 16
		}
		w := randVecs(c.r, cols, stride, func() float32 { return float32(c.r.NormFloat64()) })
		// The least distance over every vector, and over a prefix that
		// ends inside a register (the slots beyond are not counted).
		for _, count := range []int{n, c.r.IntN(n + 1)} {
			for _, far := range []bool{false, true} {
				scale := typicalScale(c.vecs, c.x, far)
				what := fmt.Sprintf("%s count=%d cols=%d stride=%d scale=%v", c.what, count, cols, stride, scale)
				checkScoreTiles(t, what, c.vecs, c.x, c.dim, count, w, stride, scale, c.skew)
			}
		}
	})
}

// TestEquivScoreTilesLarge: at the budgets past the small ones of
// TestEquivScoreTiles, where AVX-512's ScoreTiles is f(x) too
// (ScoreTilesSlots), it gives bit for bit what the three calls give, for
// near and far queries, one column and more than the vector code fuses.
func TestEquivScoreTilesLarge(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		r := rand.New(rand.NewPCG(37, 38))
		skew := 0
		for _, n := range []int{1000, 1008, 2001, 4096} {
			for _, dim := range []int{1, 8, 22, 57} {
				for _, kind := range dataKinds[:2] {
					vecs, x := kind.gen(r, n, dim)
					cols := scoreCols[skew%len(scoreCols)]
					stride := slots(n) + 16*(skew%2)
					w := randVecs(r, cols, stride, func() float32 { return float32(r.NormFloat64()) })
					for _, far := range []bool{false, true} {
						scale := typicalScale(vecs, x, far)
						what := fmt.Sprintf("%s n=%d dim=%d cols=%d stride=%d scale=%v", kind.name, n, dim, cols, stride, scale)
						checkScoreTiles(t, what, vecs, x, dim, r.IntN(n+1), w, stride, scale, skew)
					}
					skew++
				}
			}
		}
	})
}

// typicalScale returns −2 over the mean squared distance of x to vecs, so
// that kernel values lie around e⁻², or with far a scale 1000 times that,
// below which every kernel value underflows to 0.
func typicalScale(vecs [][]float32, x []float32, far bool) float32 {
	var sum float64
	for _, s := range vecs {
		sum += refSqDist(x, s)
	}
	scale := float32(-0.5)
	if sum > 0 {
		scale = float32(-2 * float64(len(vecs)) / sum)
	}
	if far {
		scale *= 1000
	}
	return scale
}

// checkScoreTiles runs ScoreTiles on guarded, misaligned (by skew) copies
// of vecs (tiled), x and the columns w (slots(len(vecs)) values each,
// stride apart, NaN between them) and guarded outputs, for the least
// distance over the first count vectors. It checks the outputs bit for bit
// against SqDist, Min and GaussianSumColumns (offset 0) run on copies in
// the same implementation, the distances behind them against the float64
// reference (checkSqDist), the kernel values against exp of those
// distances (checkKernels) and the sums against refWeightedSum. It returns
// the kernel values, the sums and the least distance.
func checkScoreTiles(tb testing.TB, what string, vecs [][]float32, x []float32, dim, count int, w [][]float32, stride int, scale float32, skew int) []float32 {
	tb.Helper()
	n := slots(len(vecs))
	xg := newGuarded(x, nan[float32](), skew)
	tiles := newGuarded(tiled(vecs, dim), nan[float32](), skew+1)
	wg := newGuarded(columns(w, n, stride), nan[float32](), skew+2)
	kv := newOutput[float32](n, skew+3)
	dst := newOutput[float32](len(w), skew+1)
	nearest := simd.ScoreTiles(dst.s(), kv.s(), xg.s(), tiles.s(), wg.s(), stride, dim, count, scale)
	kv.check(tb, what+" kv")
	dst.check(tb, what+" dst")
	xg.checkInput(tb, what+" x")
	tiles.checkInput(tb, what+" tiles")
	wg.checkInput(tb, what+" w")

	// The three calls it replaces.
	dist := checkSqDist(tb, what, vecs, x, dim, skew)
	wantNearest := float32(math.Inf(1))
	if count > 0 {
		wantNearest = simd.Min(dist[:count])
	}
	buf := append([]float32(nil), dist...)
	sums := make([]float32, len(w))
	simd.GaussianSumColumns(sums, buf, columns(w, n, stride), stride, scale, 0)
	if math.Float32bits(nearest) != math.Float32bits(wantNearest) {
		tb.Fatalf("%s: least distance %v, SqDist and Min give %v", what, nearest, wantNearest)
	}
	for i, v := range kv.s() {
		if math.Float32bits(v) != math.Float32bits(buf[i]) {
			tb.Fatalf("%s: kernel value %d: %v, GaussianSumColumns gives %v", what, i, v, buf[i])
		}
	}
	for c, v := range dst.s() {
		if math.Float32bits(v) != math.Float32bits(sums[c]) {
			tb.Fatalf("%s: column %d: %v, GaussianSumColumns gives %v", what, c, v, sums[c])
		}
	}

	// The reference: distances checked above, kernel values and sums.
	k, ktol := checkKernels(tb, what, kv.s(), dist, scale, 0)
	for c, col := range w {
		want, tol := refWeightedSum(col, k, ktol)
		if got := dst.s()[c]; !closeTo(got, want, tol) {
			tb.Fatalf("%s: column %d: got %v, want %v (tolerance %.3g)", what, c, got, want, tol)
		}
	}
	if count > 0 {
		ref := math.Inf(1)
		for _, s := range vecs[:count] {
			ref = min(ref, refSqDist(x, s))
		}
		if !closeTo(nearest, ref, float64(dim+4)*u32*ref) {
			tb.Fatalf("%s: least distance %v, want %v", what, nearest, ref)
		}
	}
	return append(append(kv.s(), dst.s()...), nearest)
}

// TestScoreTilesArgs: ScoreTiles accepts the shapes its contract allows
// and panics on the others.
func TestScoreTilesArgs(t *testing.T) {
	for _, c := range []struct {
		name                                    string
		cols, kv, x, tiles, w, stride, dim, cnt int
		ok                                      bool
	}{
		{"one tile", 1, 16, 3, 48, 16, 16, 3, 16, true},
		{"no vectors", 1, 0, 3, 0, 0, 0, 3, 0, true},
		{"few counted", 2, 16, 3, 48, 32, 16, 3, 5, true},
		{"kv longer", 1, 32, 3, 48, 32, 32, 3, 16, false},
		{"tiles longer", 1, 16, 3, 96, 16, 16, 3, 16, false},
		{"kv of a partial tile", 1, 8, 1, 8, 8, 8, 1, 8, false},
		{"two tiles", 1, 32, 3, 96, 32, 32, 3, 20, true},
		{"x longer", 1, 16, 5, 48, 16, 16, 3, 16, true},
		{"no column", 0, 16, 3, 48, 16, 16, 3, 16, false},
		{"kv short", 1, 15, 3, 48, 16, 16, 3, 16, false},
		{"x short", 1, 16, 2, 48, 16, 16, 3, 16, false},
		{"partial tile", 1, 16, 3, 47, 16, 16, 3, 16, false},
		{"count above", 1, 16, 3, 48, 16, 16, 3, 17, false},
		{"count negative", 1, 16, 3, 48, 16, 16, 3, -1, false},
		{"columns short", 2, 16, 3, 48, 31, 16, 3, 16, false},
		{"stride short", 2, 16, 3, 48, 64, 15, 3, 16, false},
		{"dim zero", 1, 16, 3, 48, 16, 16, 0, 16, false},
	} {
		func() {
			defer func() {
				if p := recover(); (p == nil) != c.ok {
					t.Errorf("%s: panic %v, want ok %v", c.name, p, c.ok)
				}
			}()
			simd.ScoreTiles(make([]float32, c.cols), make([]float32, c.kv), make([]float32, c.x), make([]float32, c.tiles),
				make([]float32, c.w), c.stride, c.dim, c.cnt, -1)
		}()
	}
}

func FuzzScoreTiles(f *testing.F) {
	// More of the seed corpus is in testdata/fuzz/FuzzScoreTiles.
	f.Add([]byte{100, 0, 6, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{16, 0, 0, 0, 0xff, 0x7f, 10, 0, 0x80, 3})
	f.Add([]byte{67, 0, 11, 0, 4, 0, 33, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n, dim := d.intn(140), fuzzDims[d.intn(len(fuzzDims))]
		cols, count := 1+d.intn(24), d.intn(n+1)
		elo := -12 + d.intn(14)
		vecs := randVecsDec(d, n, dim, elo)
		x := randVecsDec(d, 1, dim, elo)[0]
		if d.intn(4) == 0 && n > 0 {
			copy(vecs[d.intn(n)], x) // distance exactly 0
		}
		stride := slots(n) + d.intn(40)
		w := make([][]float32, cols)
		for c := range w {
			w[c] = make([]float32, stride)
			for i := range w[c] {
				w[c][i] = d.value(-40, -24) // the sums cannot overflow, as FuzzGaussianSum's
			}
		}
		scale := typicalScale(vecs, x, d.intn(4) == 0)
		// The implementations agree within their tolerances of the
		// reference: the distances' and the kernel values', the sums'
		// and the least distance's.
		all := padded(vecs, dim)
		dist := make([]float32, len(all))
		var tol []float64
		for i, s := range all {
			dist[i] = float32(refSqDist(x, s))
		}
		k, ktol := refKernels(dist, scale, 0)
		for i, s := range all {
			// The distance's own error moves the kernel value by as much
			// as scale times it: nothing for a value of 0, where the
			// factor of a far vector is +Inf and 0·Inf would make the
			// tolerance NaN (testdata/fuzz/FuzzScoreTiles/2308600f19055a8b).
			if k[i] > 0 {
				ktol[i] += k[i] * math.Expm1(-float64(scale)*float64(dim+4)*u32*refSqDist(x, s))
			}
		}
		tol = append(tol, ktol...)
		for _, col := range w {
			_, sumTol := refWeightedSum(col, k, ktol)
			tol = append(tol, sumTol)
		}
		nearest := math.Inf(1)
		for _, s := range vecs[:count] {
			nearest = min(nearest, refSqDist(x, s))
		}
		tol = append(tol, float64(dim+4)*u32*nearest)
		skew := d.intn(4)
		implsAgree(t, tol, func(t *testing.T) []float32 {
			return checkScoreTiles(t, "fuzz input", vecs, x, dim, count, w, stride, scale, skew)
		})
	})
}

// BenchmarkScoreTiles measures one f(x) at the small budgets ScoreTiles
// is for (and one past them), next to the three calls it replaces (SqDist,
// Min and GaussianSumColumns), with one column, two (BOGD's), 10 (a
// multi-class BOGD of 5 classes) and 21 (NOGD's at B = 100, k = 20).
// calls=chained makes each call's query depend on the last call's sum, as
// a learner's next step depends on its f(x): the call's latency, where
// the other calls overlap one another.
func BenchmarkScoreTiles(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		for _, budget := range []int{100, 256, 1000} {
			for _, cols := range []int{1, 2, 10, 21} {
				const dim = 8
				r := rand.New(rand.NewPCG(uint64(budget), dim))
				vecs := randVecs(r, budget, dim, func() float32 { return float32(r.NormFloat64() * 4) })
				x := randVecs(r, 1, dim, func() float32 { return float32(r.NormFloat64() * 4) })[0]
				tiles := tiled(vecs, dim)
				n := slots(budget)
				w := randVecs(r, 1, cols*n, func() float32 { return float32(r.NormFloat64()) })[0]
				kv := make([]float32, n)
				dst := make([]float32, cols)
				scale := typicalScale(vecs, x, false)
				b.Run(fmt.Sprintf("budget=%d/cols=%d/calls=fused", budget, cols), func(b *testing.B) {
					cpu := cputime.Start()
					for b.Loop() {
						simd.ScoreTiles(dst, kv, x, tiles, w, n, dim, budget, scale)
					}
					cpu.Report(b, float64(b.N), "op")
				})
				b.Run(fmt.Sprintf("budget=%d/cols=%d/calls=chained", budget, cols), func(b *testing.B) {
					x0 := x[0]
					cpu := cputime.Start()
					for b.Loop() {
						simd.ScoreTiles(dst, kv, x, tiles, w, n, dim, budget, scale)
						x[0] = x0 + 0*dst[0]
					}
					cpu.Report(b, float64(b.N), "op")
					x[0] = x0
				})
				b.Run(fmt.Sprintf("budget=%d/cols=%d/calls=three", budget, cols), func(b *testing.B) {
					cpu := cputime.Start()
					for b.Loop() {
						simd.SqDist(kv, x, tiles, dim)
						simd.Min(kv[:budget])
						simd.GaussianSumColumns(dst, kv, w, n, scale, 0)
					}
					cpu.Report(b, float64(b.N), "op")
				})
			}
		}
	})
}
