package simd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// BenchmarkKernels measures one evaluation of the kernel expansion
// f(x) = Σᵢ wᵢ·exp(−‖x − sᵢ‖²/(2σ²)) as the engine computes it: SqDist into
// a scratch buffer, then GaussianSum over the padded slots (padding weights
// zero).
func BenchmarkKernels(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		for _, budget := range []int{100, 500, 1000, 2000} {
			for _, dim := range []int{8, 22, 57, 300} {
				b.Run(fmt.Sprintf("budget=%d/dim=%d", budget, dim), func(b *testing.B) {
					r := rand.New(rand.NewPCG(uint64(budget), uint64(dim)))
					vecs := randVecs(r, budget, dim, r.Float32)
					x := randVecs(r, 1, dim, r.Float32)[0]
					tiles := tiled(vecs, dim)
					n := slots(budget)
					w := make([]float32, n)
					for i := 0; i < budget; i++ {
						w[i] = 2*r.Float32() - 1
					}
					buf := make([]float32, n)
					scale := float32(-1.0 / float64(dim)) // σ² = d/2: kernel values spread over (0, 1]
					var sink float32
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						simd.SqDist(buf, x, tiles, dim)
						sink += simd.GaussianSum(buf, w, scale, 0)
					}
					if sink != sink {
						b.Fatal("NaN")
					}
				})
			}
		}
	})
}

// BenchmarkExp measures Exp over 1024 values in [ExpMin, 0].
func BenchmarkExp(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		r := rand.New(rand.NewPCG(1, 1))
		src := make([]float32, 1024)
		for i := range src {
			src[i] = simd.ExpMin * r.Float32()
		}
		dst := make([]float32, len(src))
		b.ReportAllocs()
		b.SetBytes(int64(4 * len(src)))
		for b.Loop() {
			simd.Exp(dst, src)
		}
	})
}

// BenchmarkSqDistSparse measures the sparse distance kernel for a query
// with 12 non-zero features of 300 (w8a-like).
func BenchmarkSqDistSparse(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		const budget, dim, nnz = 600, 300, 12
		r := rand.New(rand.NewPCG(2, 2))
		vecs := randVecs(r, budget, dim, func() float32 { return float32(r.IntN(2)) })
		tiles := tiled(vecs, dim)
		n := slots(budget)
		norms := make([]float32, n)
		for i, s := range vecs {
			norms[i] = float32(refNorm(s))
		}
		idx := make([]int32, nnz)
		val := make([]float32, nnz)
		for k := range idx {
			idx[k] = int32(r.IntN(dim))
			val[k] = 1
		}
		dst := make([]float32, n)
		b.ReportAllocs()
		for b.Loop() {
			simd.SqDistSparse(dst, norms, idx, val, nnz, tiles, dim)
		}
	})
}

// sqDist64Shapes are the (budget, dim) shapes of the SqDist64 benchmarks:
// a Projectron++ on dna (200 vectors of 180 features), and small and tiny
// dimensions with more vectors.
var sqDist64Shapes = [][2]int{{200, 180}, {100, 16}, {1000, 8}}

// BenchmarkSqDist64 measures SqDist64 (the exact squared distances of the
// Projectrons' ExactKernels) over whole tiles, next to
// BenchmarkSqDist64Scalar, the loop package engine ran before.
// ns/distance is per stored vector.
func BenchmarkSqDist64(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		for _, shape := range sqDist64Shapes {
			budget, dim := shape[0], shape[1]
			b.Run(fmt.Sprintf("budget=%d/dim=%d", budget, dim), func(b *testing.B) {
				tiles, x := sqDist64Input(budget, dim)
				dst := make([]float64, slots(budget))
				b.ReportAllocs()
				for b.Loop() {
					simd.SqDist64(dst, x, tiles, dim)
				}
				perDistance(b, budget)
			})
		}
	})
}

// BenchmarkSqDist64Scalar measures, on BenchmarkSqDist64's shapes, the
// scalar loop that package engine's exact distances ran before SqDist64
// (the same bits on amd64 with GOAMD64 below v3): a tile at a time, its
// 16 sums in an array, every feature's row added to them.
func BenchmarkSqDist64Scalar(b *testing.B) {
	for _, shape := range sqDist64Shapes {
		budget, dim := shape[0], shape[1]
		b.Run(fmt.Sprintf("budget=%d/dim=%d", budget, dim), func(b *testing.B) {
			tiles, x := sqDist64Input(budget, dim)
			dst := make([]float64, budget)
			b.ReportAllocs()
			for b.Loop() {
				var acc [lanes]float64
				for t := 0; t*lanes < len(dst); t++ {
					clear(acc[:])
					tile := tiles[t*dim*lanes : (t+1)*dim*lanes]
					for j, xj := range x {
						lane := tile[j*lanes : (j+1)*lanes]
						for l, v := range lane {
							diff := float64(v) - float64(xj)
							acc[l] += diff * diff
						}
					}
					copy(dst[t*lanes:], acc[:min(lanes, len(dst)-t*lanes)])
				}
			}
			perDistance(b, budget)
		})
	}
}

// sqDist64Input returns the tiles of budget random vectors of dimension
// dim and a query, the same for every benchmark of that shape.
func sqDist64Input(budget, dim int) (tiles, x []float32) {
	r := rand.New(rand.NewPCG(uint64(budget), uint64(dim)))
	tiles = tiled(randVecs(r, budget, dim, r.Float32), dim)
	return tiles, randVecs(r, 1, dim, r.Float32)[0]
}

// perDistance reports the time per stored vector of one query.
func perDistance(b *testing.B, budget int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(budget), "ns/distance")
}

// BenchmarkDot measures Dot over 1024 values.
func BenchmarkDot(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		r := rand.New(rand.NewPCG(3, 3))
		a := randVecs(r, 1, 1024, r.Float32)[0]
		c := randVecs(r, 1, 1024, r.Float32)[0]
		var sink float32
		b.ReportAllocs()
		b.SetBytes(int64(8 * len(a)))
		for b.Loop() {
			sink += simd.Dot(a, c)
		}
		if sink != sink {
			b.Fatal("NaN")
		}
	})
}

// BenchmarkDotAxpy measures DotAxpy over n = 1000 and 2000 float64 (a
// Projectron's K⁻¹ row at those budgets), in cache. Bytes: a, b and y read,
// y written.
func BenchmarkDotAxpy(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		for _, n := range []int{1000, 2000} {
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				r := rand.New(rand.NewPCG(5, uint64(n)))
				a := make([]float64, n)
				x := make([]float64, n)
				y := make([]float64, n)
				for i := range a {
					a[i], x[i], y[i] = r.NormFloat64(), r.NormFloat64(), r.NormFloat64()
				}
				c := 0.5
				var sink float64
				b.ReportAllocs()
				b.SetBytes(int64(32 * n))
				for b.Loop() {
					sink += simd.DotAxpy(a, x, y, c)
					c = -c // y oscillates instead of growing
				}
				if sink != sink {
					b.Fatal("NaN")
				}
			})
		}
	})
}

// BenchmarkMin measures Min over 1008 squared distances (a budget of 1000
// padded to whole tiles: 63 vectors of 16, 126 of 8).
func BenchmarkMin(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		r := rand.New(rand.NewPCG(4, 4))
		a := make([]float32, 1008)
		for i := range a {
			a[i] = 100 * r.Float32()
		}
		var sink float32
		b.ReportAllocs()
		b.SetBytes(int64(4 * len(a)))
		for b.Loop() {
			sink += simd.Min(a)
		}
		if sink != sink {
			b.Fatal("NaN")
		}
	})
}

// BenchmarkPhases measures the two phases of BenchmarkKernels separately
// (SqDist on shapes in and out of L1; GaussianSum per budget).
func BenchmarkPhases(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		for _, shape := range [][2]int{{1000, 8}, {2000, 8}, {1000, 22}, {500, 57}} {
			budget, dim := shape[0], shape[1]
			r := rand.New(rand.NewPCG(uint64(budget), uint64(dim)))
			vecs := randVecs(r, budget, dim, r.Float32)
			x := randVecs(r, 1, dim, r.Float32)[0]
			tiles := tiled(vecs, dim)
			n := slots(budget)
			w := randVecs(r, 1, n, r.Float32)[0]
			buf := make([]float32, n)
			b.Run(fmt.Sprintf("phase=sqdist/budget=%d/dim=%d", budget, dim), func(b *testing.B) {
				for b.Loop() {
					simd.SqDist(buf, x, tiles, dim)
				}
			})
			if dim != 8 {
				continue // GaussianSum does not depend on the dimension
			}
			b.Run(fmt.Sprintf("phase=gaussiansum/budget=%d", budget), func(b *testing.B) {
				var sink float32
				for b.Loop() {
					sink += simd.GaussianSum(buf, w, -0.1, 0)
				}
				if sink != sink {
					b.Fatal("NaN")
				}
			})
		}
	})
}

// BenchmarkDotColumns measures DotColumns for the kernel values of a
// budget of n = 1000 (1008 slots, whole tiles) against cols weight columns
// stored a tile-padded stride apart, as a multi-output learner keeps them
// (52 columns are 210 KB: out of L1). Bytes: k once and every column.
func BenchmarkDotColumns(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		const n = 1000
		k := randVecs(rand.New(rand.NewPCG(6, 6)), 1, slots(n), rand.Float32)[0]
		for _, cols := range []int{1, 3, 10, 26, 52} {
			b.Run(fmt.Sprintf("n=%d/cols=%d", n, cols), func(b *testing.B) {
				r := rand.New(rand.NewPCG(7, uint64(cols)))
				w := randVecs(r, 1, cols*slots(n), func() float32 { return float32(r.NormFloat64()) })[0]
				dst := make([]float32, cols)
				b.ReportAllocs()
				b.SetBytes(int64(4 * slots(n) * (cols + 1)))
				for b.Loop() {
					simd.DotColumns(dst, k, w, slots(n))
				}
			})
		}
	})
}

// BenchmarkMultiOutput measures one multi-output f(x) at a budget of 1000
// and dimension 16 (SqDist, kernel values, K sums), in the kept design
// (GaussianSumColumns: the sums of the first columns while the kernel
// values are in registers) against GaussianSum for one column followed by
// DotColumns for the others, next to the binary f(x) (SqDist and
// GaussianSum) the target is stated against.
func BenchmarkMultiOutput(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		const budget, dim = 1000, 16
		r := rand.New(rand.NewPCG(8, 8))
		tiles := tiled(randVecs(r, budget, dim, func() float32 { return float32(r.NormFloat64()) }), dim)
		x := randVecs(r, 1, dim, func() float32 { return float32(r.NormFloat64()) })[0]
		n := slots(budget)
		w := randVecs(r, 1, 26*n, func() float32 { return float32(r.NormFloat64()) })[0]
		buf := make([]float32, n)
		const scale = -1.0 / 32 // σ² = 16 = d: kernel values spread over (0, 1]
		b.Run("binary", func(b *testing.B) {
			var sink float32
			b.ReportAllocs()
			for b.Loop() {
				simd.SqDist(buf, x, tiles, dim)
				sink += simd.GaussianSum(buf, w[:n], scale, 0)
			}
			if sink != sink {
				b.Fatal("NaN")
			}
		})
		for _, k := range []int{3, 10, 26} {
			dst := make([]float32, k)
			b.Run(fmt.Sprintf("K=%d/design=fused", k), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					simd.SqDist(buf, x, tiles, dim)
					simd.GaussianSumColumns(dst, buf, w, n, scale, 0)
				}
			})
			b.Run(fmt.Sprintf("K=%d/design=twopass", k), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					simd.SqDist(buf, x, tiles, dim)
					dst[0] = simd.GaussianSum(buf, w[:n], scale, 0)
					simd.DotColumns(dst[1:], buf, w[n:], n)
				}
			})
		}
	})
}

// BenchmarkFourier measures the random Fourier features of FOGD for one
// example: FourierFeatures with D = features frequencies (2·D outputs) of
// dimension dim, the shapes of the issue (400 frequencies of 8 features,
// 4000 of 22), and FourierFeaturesSparse for a w8a-like query (12 non-zero
// features of 300). Frequencies ~ N(0, σ⁻²) with σ = 8 and raw features
// up to 1e4: projections up to a few thousand. ns/frequency is per
// frequency, for its two features. Target: at least 20 times the generic
// code's speed with AVX-512 and AVX2 alike (the vector code runs dim FMAs
// and about 24 instructions of sine and cosine per register of 16 or 8
// frequencies, the generic code a call to sincos32 per frequency).
func BenchmarkFourier(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		for _, c := range []struct{ features, dim, nnz int }{{400, 8, 0}, {4000, 22, 0}, {4000, 300, 12}} {
			name := fmt.Sprintf("features=%d/dim=%d", c.features, c.dim)
			if c.nnz > 0 {
				name += fmt.Sprintf("/nnz=%d", c.nnz)
			}
			b.Run(name, func(b *testing.B) {
				r := rand.New(rand.NewPCG(uint64(c.features), uint64(c.dim)))
				tiles := tiled(randVecs(r, c.features, c.dim, func() float32 { return float32(r.NormFloat64() / 8) }), c.dim)
				x := randVecs(r, 1, c.dim, func() float32 { return float32(r.IntN(10000)) })[0]
				dst := make([]float32, 2*slots(c.features))
				idx, val := make([]int32, c.nnz), make([]float32, c.nnz)
				for k, j := range r.Perm(c.dim)[:c.nnz] {
					idx[k], val[k] = int32(j), x[j]
				}
				b.ReportAllocs()
				for b.Loop() {
					if c.nnz > 0 {
						simd.FourierFeaturesSparse(dst, idx, val, tiles, c.dim)
					} else {
						simd.FourierFeatures(dst, x, tiles, c.dim)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.features), "ns/frequency")
			})
		}
	})
}

// BenchmarkAxpy measures Axpy over n = 800 and 8000 float32: FOGD's weight
// update with 400 and 4000 frequencies (two features each). Bytes: x and
// y read, y written. Target: at least 5 times the generic code's speed at
// n = 800, in L1 (the vector code is bound by two loads and a store per
// register); at 8000 (64 KB) both are bound by L2's bandwidth.
func BenchmarkAxpy(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		for _, n := range []int{800, 8000} {
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				r := rand.New(rand.NewPCG(9, uint64(n)))
				x := randVecs(r, 1, n, func() float32 { return float32(r.NormFloat64()) })[0]
				y := randVecs(r, 1, n, func() float32 { return float32(r.NormFloat64()) })[0]
				a := float32(0.5)
				b.ReportAllocs()
				b.SetBytes(int64(12 * n))
				for b.Loop() {
					simd.Axpy(y, x, a)
					a = -a // y oscillates instead of growing
				}
			})
		}
	})
}

// mergeInputs returns the weights and kernel logarithms of n merge
// candidates as BSGD makes them (bogd/bsgd.go's merge): a1 = α_m/d,
// a2 = α_n/d with d = α_m + α_n (10⁻⁴ where that is within rounding of 0),
// and k = e^lk with lk exponentially distributed (mean −3, as
// bogd's TestMergeSearch draws k).
func mergeInputs(r *rand.Rand, n int) (a1, a2, lk []float32) {
	a1, a2, lk = make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range a1 {
		am, an := r.NormFloat64(), r.NormFloat64()
		d := am + an
		if math.Abs(d) <= 1e-5*(math.Abs(am)+math.Abs(an)) {
			d = 1e-4
		}
		a1[i], a2[i], lk[i] = float32(am/d), float32(an/d), float32(-3*r.ExpFloat64())
	}
	return a1, a2, lk
}

// BenchmarkMergeSearch measures MergeSearch over the candidates of a BSGD
// merge at budgets 100 and 1000, next to BenchmarkMergeSearchScalar, the
// float64 search one candidate at a time it replaces. ns/candidate is per
// candidate. Target (the issue: vectorise the search across candidate
// partners rather than one candidate at a time): at least 10 times faster
// than the scalar float64 form with AVX-512, 5 times with AVX2 (half the
// lanes; at 100 candidates part of the searches run in blocks of one or
// two registers, latency-bound).
func BenchmarkMergeSearch(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		for _, n := range []int{100, 1000} {
			b.Run(fmt.Sprintf("candidates=%d", n), func(b *testing.B) {
				a1, a2, lk := mergeInputs(rand.New(rand.NewPCG(10, uint64(n))), n)
				h := make([]float32, n)
				b.ReportAllocs()
				for b.Loop() {
					simd.MergeSearch(h, a1, a2, lk)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/candidate")
			})
		}
	})
}

// BenchmarkMergeSearchScalar measures MergeSearch64, BudgetedSVM's float64
// golden-section search (one candidate at a time, math.Exp, stopping at a
// bracket of 2·10⁻⁴), on BenchmarkMergeSearch's candidates.
func BenchmarkMergeSearchScalar(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("candidates=%d", n), func(b *testing.B) {
			a1f, a2f, lkf := mergeInputs(rand.New(rand.NewPCG(10, uint64(n))), n)
			a1, a2, k := make([]float64, n), make([]float64, n), make([]float64, n)
			for i := range a1 {
				a1[i], a2[i], k[i] = float64(a1f[i]), float64(a2f[i]), math.Exp(float64(lkf[i]))
			}
			h := make([]float64, n)
			b.ReportAllocs()
			for b.Loop() {
				for i := range h {
					h[i] = simd.MergeSearch64(a1[i], a2[i], k[i])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/candidate")
		})
	}
}

// BenchmarkAxpyRows measures AxpyRows at NOGD's shapes, z = M·k from Mᵀ's
// rows: rank 200 (208 floats a row) over 1000 landmarks, rank 20 (32) over
// 100, with a third, half or all of the kernel values non-zero;
// calls=byrow is the loop of Axpy calls it replaces, side by side.
func BenchmarkAxpyRows(b *testing.B) {
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		for _, c := range []struct{ width, rows int }{{208, 1000}, {32, 100}} {
			for _, share := range []int{3, 2, 1} {
				r := rand.New(rand.NewPCG(11, uint64(c.rows)))
				rows := randRows(r, c.rows, c.width, c.width)
				coef := make([]float32, c.rows)
				for i := range coef {
					if r.IntN(share) == 0 {
						coef[i] = float32(r.Float64())
					}
				}
				y := make([]float32, c.width)
				for _, byRow := range []bool{false, true} {
					calls := "one"
					if byRow {
						calls = "byrow"
					}
					b.Run(fmt.Sprintf("width=%d/rows=%d/nonzero=1of%d/calls=%s", c.width, c.rows, share, calls), func(b *testing.B) {
						for b.Loop() {
							clear(y)
							if !byRow {
								simd.AxpyRows(y, coef, rows, c.width)
								continue
							}
							for i, v := range coef {
								if v != 0 {
									simd.Axpy(y, rows[i*c.width:(i+1)*c.width], v)
								}
							}
						}
					})
				}
			}
		}
	})
}
