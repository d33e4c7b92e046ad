//go:build !purego

package simd

import (
	"github.com/klauspost/cpuid/v2"

	"github.com/bogd-project/bogd/internal/simdimpl"
)

// features lists what each implementation needs: the CPU features its
// generated functions require (asm/gen emits the lists from their Requires
// lines; TestRequiresChecked holds this table to them). generic needs none.
var features = [numImpls][]cpuid.FeatureID{AVX2: featuresAVX2, AVX512: featuresAVX512}

// usable is decided once, at start; cpuid also checks that the operating
// system saves the wide registers (XCR0), so true means the code can run.
var usable = func() (u [numImpls]bool) {
	for i, f := range features {
		u[i] = cpuid.CPU.Supports(f...)
	}
	return u
}()

func supported(i Impl) bool { return usable[i] }

// useAVX512 and useAVX2 select the implementation every dispatch below
// calls: at most one is true, and neither means generic. They are set at
// start (choose) and change afterwards only through internal/simdimpl.
var useAVX512, useAVX2 bool

// choose makes i, which must be supported, the implementation the
// dispatch calls.
func choose(i Impl) { useAVX512, useAVX2 = i == AVX512, i == AVX2 }

// registerVector hands the vector implementations' bools to
// internal/simdimpl.
func registerVector() {
	simdimpl.Register(AVX2.String(), &useAVX2, usable[AVX2])
	simdimpl.Register(AVX512.String(), &useAVX512, usable[AVX512])
}

func active() Impl {
	switch {
	case useAVX512:
		return AVX512
	case useAVX2:
		return AVX2
	}
	return Generic
}

func sqdist(dst, x, tiles []float32, dim int) {
	switch {
	case useAVX512:
		sqdistAVX512(dst, x, tiles, dim)
	case useAVX2:
		sqdistAVX2(dst, x, tiles, dim)
	default:
		sqdistGeneric(dst, x, tiles, dim)
	}
}

func sqdist64(dst []float64, x, tiles []float32, dim int) {
	switch {
	case useAVX512:
		sqdist64AVX512(dst, x, tiles, dim)
	case useAVX2:
		sqdist64AVX2(dst, x, tiles, dim)
	default:
		sqdist64Generic(dst, x, tiles, dim)
	}
}

func sqdistSparse(dst, norms []float32, idx []int32, val []float32, xnorm float32, tiles []float32, dim int) {
	switch {
	case useAVX512:
		sqdistSparseAVX512(dst, norms, idx, val, xnorm, tiles, dim)
	case useAVX2:
		sqdistSparseAVX2(dst, norms, idx, val, xnorm, tiles, dim)
	default:
		sqdistSparseGeneric(dst, norms, idx, val, xnorm, tiles, dim)
	}
}

// gaussianSum takes the one-column form of the fused kernel.
func gaussianSum(buf, w []float32, scale, offset float32) float32 {
	var sum [1]float32
	switch {
	case useAVX512:
		gaussianSumColumnsAVX512(sum[:], buf, w, len(buf), scale, offset)
	case useAVX2:
		gaussianSumColumnsAVX2(sum[:], buf, w, len(buf), scale, offset)
	default:
		return gaussianSumGeneric(buf, w, scale, offset)
	}
	return sum[0]
}

// gaussianSumColumns sums as many columns as the vector kernel takes in
// its exp pass and the others from the kernel values it stored in buf.
// len(dst) must be at least 1.
func gaussianSumColumns(dst, buf, w []float32, stride int, scale, offset float32) {
	fused := len(dst)
	switch {
	case useAVX512:
		fused = min(fused, fusedColsAVX512)
		gaussianSumColumnsAVX512(dst[:fused], buf, w, stride, scale, offset)
	case useAVX2:
		fused = min(fused, fusedColsAVX2)
		gaussianSumColumnsAVX2(dst[:fused], buf, w, stride, scale, offset)
	default:
		gaussianSumColumnsGeneric(dst, buf, w, stride, scale, offset)
		return
	}
	if fused < len(dst) {
		dotColumns(dst[fused:], buf, w[fused*stride:], stride)
	}
}

func dot(a, b []float32) float32 {
	switch {
	case useAVX512:
		return dotAVX512(a, b)
	case useAVX2:
		return dotAVX2(a, b)
	}
	return dotGeneric(a, b)
}

func dotColumns(dst, k, w []float32, stride int) {
	switch {
	case useAVX512:
		dotColumnsAVX512(dst, k, w, stride)
	case useAVX2:
		dotColumnsAVX2(dst, k, w, stride)
	default:
		dotColumnsGeneric(dst, k, w, stride)
	}
}

func dotAxpy(a, b, y []float64, c float64) float64 {
	switch {
	case useAVX512:
		return dotAxpyAVX512(a, b, y, c)
	case useAVX2:
		return dotAxpyAVX2(a, b, y, c)
	}
	return dotAxpyGeneric(a, b, y, c)
}

// minimum dispatches the min kernels; a package-level min would hide the
// builtin. len(a) must be a positive multiple of 16.
func minimum(a []float32) float32 {
	switch {
	case useAVX512:
		return minAVX512(a)
	case useAVX2:
		return minAVX2(a)
	}
	return minGeneric(a)
}

func exp(dst, src []float32) {
	switch {
	case useAVX512:
		expAVX512(dst, src)
	case useAVX2:
		expAVX2(dst, src)
	default:
		expGeneric(dst, src)
	}
}

func fourier(cos, sin, x, tiles []float32, dim int) {
	switch {
	case useAVX512:
		fourierAVX512(cos, sin, x, tiles, dim)
	case useAVX2:
		fourierAVX2(cos, sin, x, tiles, dim)
	default:
		fourierGeneric(cos, sin, x, tiles, dim)
	}
}

func fourierSparse(cos, sin []float32, idx []int32, val []float32, tiles []float32, dim int) {
	switch {
	case useAVX512:
		fourierSparseAVX512(cos, sin, idx, val, tiles, dim)
	case useAVX2:
		fourierSparseAVX2(cos, sin, idx, val, tiles, dim)
	default:
		fourierSparseGeneric(cos, sin, idx, val, tiles, dim)
	}
}

func axpy(y, x []float32, a float32) {
	switch {
	case useAVX512:
		axpyAVX512(y, x, a)
	case useAVX2:
		axpyAVX2(y, x, a)
	default:
		axpyGeneric(y, x, a)
	}
}

func axpyRows(y, coef, rows []float32, stride int) {
	switch {
	case useAVX512:
		axpyRowsAVX512(y, coef, rows, stride)
	case useAVX2:
		axpyRowsAVX2(y, coef, rows, stride)
	default:
		axpyRowsGeneric(y, coef, rows, stride)
	}
}

func mergeSearch(h, a1, a2, lk []float32) {
	switch {
	case useAVX512:
		mergeSearchAVX512(h, a1, a2, lk, mergeSteps)
	case useAVX2:
		mergeSearchAVX2(h, a1, a2, lk, mergeSteps)
	default:
		mergeSearchGeneric(h, a1, a2, lk)
	}
}

func fmaLoop(n int, mul, add, seed float32) float32 {
	switch {
	case useAVX512:
		return fmaLoopAVX512(n, mul, add, seed)
	case useAVX2:
		return fmaLoopAVX2(n, mul, add, seed)
	}
	return fmaLoopGeneric(n, mul, add, seed)
}

// fmaFlops is the number of flops of one iteration of fmaLoop.
func fmaFlops() int {
	switch {
	case useAVX512:
		return fmaFlopsAVX512
	case useAVX2:
		return fmaFlopsAVX2
	}
	return fmaFlopsGeneric
}

func prefetch(p *byte) {
	switch {
	case useAVX512:
		prefetchAVX512(p)
	case useAVX2:
		prefetchAVX2(p)
	default:
		prefetchGeneric(p)
	}
}

func fullRow(idx []int32, val []float32) bool {
	switch {
	case useAVX512:
		return fullRowAVX512(idx, val)
	case useAVX2:
		return fullRowAVX2(idx, val)
	}
	return fullRowGeneric(idx, val)
}

func paCosts(q []float64, kernels []float32, alpha []float64, factor, step, f, o, s, eps, c float64, mask uint64) (best int, least float64) {
	switch {
	case useAVX512:
		return paCostsAVX512(q, kernels, alpha, factor, step, f, o, s, eps, c, mask)
	case useAVX2:
		return paCostsAVX2(q, kernels, alpha, factor, step, f, o, s, eps, c, mask)
	}
	return paCostsGeneric(q, kernels, alpha, factor, step, f, o, s, eps, c, mask)
}

func mulAdd64(c []float64, ldc int, a []float64, aRow, aCol int, b []float64, ldb int, k int) {
	switch {
	case useAVX512:
		mulAdd64AVX512(c, ldc, a, aRow, aCol, b, ldb, k)
	case useAVX2:
		mulAdd64AVX2(c, ldc, a, aRow, aCol, b, ldb, k)
	default:
		mulAdd64Generic(c, ldc, a, aRow, aCol, b, ldb, k)
	}
}

func mulAdd64Half(c []float64, ldc int, a []float64, aRow, aCol int, b []float64, ldb int, k int) {
	switch {
	case useAVX512:
		mulAdd64HalfAVX512(c, ldc, a, aRow, aCol, b, ldb, k)
	case useAVX2:
		mulAdd64HalfAVX2(c, ldc, a, aRow, aCol, b, ldb, k)
	default:
		mulAdd64HalfGeneric(c, ldc, a, aRow, aCol, b, ldb, k)
	}
}
