//go:build !amd64 || purego

package simd

// Without assembly (another architecture, or -tags purego) only the generic
// kernels exist.

func supported(i Impl) bool { return i == Generic }

func choose(Impl) {}

func registerVector() {}

func active() Impl { return Generic }

func sqdist(dst, x, tiles []float32, dim int) { sqdistGeneric(dst, x, tiles, dim) }

func sqdist64(dst []float64, x, tiles []float32, dim int) { sqdist64Generic(dst, x, tiles, dim) }

func sqdistSparse(dst, norms []float32, idx []int32, val []float32, xnorm float32, tiles []float32, dim int) {
	sqdistSparseGeneric(dst, norms, idx, val, xnorm, tiles, dim)
}

func gaussianSum(buf, w []float32, scale, offset float32) float32 {
	return gaussianSumGeneric(buf, w, scale, offset)
}

func gaussianSumColumns(dst, buf, w []float32, stride int, scale, offset float32) {
	gaussianSumColumnsGeneric(dst, buf, w, stride, scale, offset)
}

func dot(a, b []float32) float32 { return dotGeneric(a, b) }

func dotColumns(dst, k, w []float32, stride int) { dotColumnsGeneric(dst, k, w, stride) }

func dotAxpy(a, b, y []float64, c float64) float64 { return dotAxpyGeneric(a, b, y, c) }

func minimum(a []float32) float32 { return minGeneric(a) }

func exp(dst, src []float32) { expGeneric(dst, src) }

func fourier(cos, sin, x, tiles []float32, dim int) { fourierGeneric(cos, sin, x, tiles, dim) }

func fourierSparse(cos, sin []float32, idx []int32, val []float32, tiles []float32, dim int) {
	fourierSparseGeneric(cos, sin, idx, val, tiles, dim)
}

func axpy(y, x []float32, a float32) { axpyGeneric(y, x, a) }

func axpyRows(y, coef, rows []float32, stride int) { axpyRowsGeneric(y, coef, rows, stride) }

func mergeSearch(h, a1, a2, lk []float32) { mergeSearchGeneric(h, a1, a2, lk) }

func fmaLoop(n int, mul, add, seed float32) float32 { return fmaLoopGeneric(n, mul, add, seed) }

func fmaFlops() int { return fmaFlopsGeneric }

func prefetch(p *byte) { prefetchGeneric(p) }

func fullRow(idx []int32, val []float32) bool { return fullRowGeneric(idx, val) }

func paCosts(q []float64, kernels []float32, alpha []float64, factor, step, f, o, s, eps, c float64, mask uint64) (best int, least float64) {
	return paCostsGeneric(q, kernels, alpha, factor, step, f, o, s, eps, c, mask)
}

func mulAdd64(c []float64, ldc int, a []float64, aRow, aCol int, b []float64, ldb int, k int) {
	mulAdd64Generic(c, ldc, a, aRow, aCol, b, ldb, k)
}

func mulAdd64Half(c []float64, ldc int, a []float64, aRow, aCol int, b []float64, ldb int, k int) {
	mulAdd64HalfGeneric(c, ldc, a, aRow, aCol, b, ldb, k)
}
