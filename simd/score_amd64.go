//go:build !purego

package simd

import "math"

// ScoreTiles computes in one call what SqDist, Min and GaussianSumColumns
// (offset 0) compute in three, with the same bits in every implementation:
// for the dense query x (len ≥ dim) and every slot of tiles (whole tiles
// of dimension dim), it writes the kernel value exp(scale·‖x − sᵢ‖²) into
// kv[i], writes into dst[c], for every c < len(dst), Σᵢ w[c·stride+i]·kv[i],
// and returns the least squared distance over the first n slots (+Inf when
// n is 0). kv holds one value per slot: len(kv) is the number of slots, a
// multiple of 16, and len(tiles) = len(kv)·dim. The columns are laid out as
// for GaussianSumColumns with len(kv) values each; len(dst) ≥ 1,
// 0 ≤ n ≤ len(kv). dst and kv must not overlap the inputs.
//
// It is f(x) up to ScoreTilesSlots slots. At small budgets a call's fixed
// cost is much of the time: the distances, kernel values and products of a
// block of tiles stay in registers from the tile rows to the sums (at
// large budgets with AVX-512 that saves the pass over the kernel values
// between the phases), the call goes straight to
// the implementation's kernel (each layer of calls between passes its
// dozen words of arguments on), and its checks divide nothing
// (BenchmarkScoreTiles). The shift of far queries cannot be known before
// the least distance is, so ScoreTiles computes without it: a caller that
// finds scale·nearest too close to ExpMin for the kernel values it needs
// (package engine's far queries) computes again with SqDist and
// GaussianSumColumns and an offset.
func ScoreTiles(dst, kv, x, tiles, w []float32, stride, dim, n int, scale float32) (nearest float32) {
	if scoreTilesArgsBad(len(dst), len(kv), len(x), len(tiles), len(w), stride, dim, n) {
		scoreTilesPanic(len(dst), len(kv), len(x), len(tiles), len(w), stride, dim, n)
	}
	// The vector kernels sum as many columns as they take while the kernel
	// values are in registers, and the others from kv, as
	// gaussianSumColumns does; AVX-512's with fusedColsAVX512 columns or
	// more at up to fusedLessSlots slots takes a block of dotColumns fewer.
	fused := len(dst)
	switch {
	case useAVX512:
		fused = min(fused, fusedColsAVX512)
		if fused == fusedColsAVX512 && len(kv) <= fusedLessSlots {
			fused -= colBlockAVX512
		}
		nearest = scoreTilesAVX512(dst[:fused], kv, x, tiles, w, stride, dim, n, scale)
	case useAVX2:
		fused = min(fused, fusedColsAVX2)
		nearest = scoreTilesAVX2(dst[:fused], kv, x, tiles, w, stride, dim, n, scale)
	default:
		return scoreTilesGeneric(dst, kv, x, tiles, w, stride, dim, n, scale)
	}
	if fused < len(dst) {
		dotColumns(dst[fused:], kv, w[fused*stride:], stride)
	}
	return nearest
}

// fusedLessSlots is the most slots at which AVX-512's ScoreTiles, given
// fusedColsAVX512 columns or more, sums colBlockAVX512 (8) fewer in its
// kernel: those columns go to dotColumns instead, in one more of its whole
// blocks, where each column has one accumulator (colChains = colBlock),
// added to tile by tile as in the kernel, so every sum keeps its bits
// (TestEquivScoreTiles holds them to GaussianSumColumns'). The kernel with
// 2 columns keeps four exponentials in flight where with 10 it kept one.
// BenchmarkScoreTiles (d = 8, calls=chained, medians of 5–6 alternating
// rounds): 10 columns 105 → 92 ns at B = 100 and 200 → 180 at 256; 21
// columns (NOGD's k = 20) 148 → 128 and 267 → 260. At 1008 slots the
// pass of dotColumns over the kernel values costs more than it saves
// (10 columns 704 → 798 ns): there the kernel keeps its 10, as the
// two-phase GaussianSumColumns does at every size.
const fusedLessSlots = 256

// ScoreTilesSlots is the number of slots (len(kv)) up to which ScoreTiles
// is the faster way to f(x) with the implementation that runs. On a Zen 4
// (BenchmarkScoreTiles, cpu-ns/op at d = 8) AVX-512's ScoreTiles took 69 ns
// against the three calls' 85 at 112 slots, 136 against 150 at 256 and
// 496–533 against 579–635 at 1008, and no more than they at any budget
// measured (500 to 4000 slots, d = 8 to 300): it has no limit. AVX2's,
// whose 16 registers hold the chains of two tiles where the two phases keep
// four, took 93 against 101 at 112 and 184 against 159 at 256. The generic
// ScoreTiles is the three calls: past 256 slots a far query, computed
// twice, would cost it more than the call saves.
func ScoreTilesSlots() int {
	switch {
	case useAVX512:
		return math.MaxInt
	case useAVX2:
		return 128
	}
	return 256
}
