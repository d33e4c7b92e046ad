//go:build !purego

package simd

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
// It is f(x) at small budgets, where a call's fixed cost is much of the
// time: the distances, kernel values and products of a block of tiles stay
// in registers from the tile rows to the sums, the call goes straight to
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
	// gaussianSumColumns does.
	fused := len(dst)
	switch {
	case useAVX512:
		fused = min(fused, fusedColsAVX512)
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

// ScoreTilesSlots is the number of slots (len(kv)) up to which ScoreTiles
// is the faster way to f(x) with the implementation that runs, and at most
// 256, past which a far query (computed twice) costs the most. On a Zen 4
// (BenchmarkScoreTiles) AVX-512's ScoreTiles took 69 ns against the three
// calls' 85 at 112 slots and 136 against 150 at 256; AVX2's, whose 16
// registers hold the chains of two tiles where the two phases keep four,
// 93 against 101 at 112 and 184 against 159 at 256.
func ScoreTilesSlots() int {
	if useAVX2 {
		return 128
	}
	return 256
}
