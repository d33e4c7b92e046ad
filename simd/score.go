package simd

import (
	"fmt"
	"math"
)

// scoreTilesArgsBad reports whether the arguments of ScoreTiles break its
// contract. It divides nothing and formats nothing: at small budgets a
// division would be a noticeable part of the call (see ScoreTiles).
func scoreTilesArgsBad(cols, slots, x, tiles, w, stride, dim, n int) bool {
	return dim < 1 || dim > math.MaxInt32 || slots%lanes != 0 || slots > math.MaxInt32 || tiles != slots*dim ||
		x < dim || uint(n) > uint(slots) || cols == 0 ||
		stride < slots || w < slots || cols > 1 && !productAtMost(cols-1, stride, w-slots)
}

// scoreTilesPanic says which argument of ScoreTiles is wrong.
//
//go:noinline
func scoreTilesPanic(cols, slots, x, tiles, w, stride, dim, n int) {
	switch {
	case dim < 1 || dim > math.MaxInt32 || slots%lanes != 0 || slots > math.MaxInt32 || tiles != slots*dim:
		panic(fmt.Sprintf("simd: %d floats are not %d slots of dimension %d", tiles, slots, dim))
	case x < dim:
		panic(fmt.Sprintf("simd: query of length %d for dimension %d", x, dim))
	case n < 0 || n > slots:
		panic(fmt.Sprintf("simd: %d vectors in %d slots", n, slots))
	case cols == 0:
		panic("simd: ScoreTiles with no column to sum")
	}
	checkColumns(cols, slots, w, stride)
}

// genericScoreCols is the number of columns scoreTilesGeneric sums tile by
// tile (16 accumulators each, on the stack); it sums the others from kv.
const genericScoreCols = 4

// scoreTilesGeneric is ScoreTiles tile by tile: the tile's distances as
// sqdistGeneric computes them, their least over the first n slots, their
// kernel values and the column sums in gaussianSumGeneric's 16 lane
// accumulators. The exponent is scale·d, where gaussianSumGeneric adds an
// offset of 0 (possibly in one FMA): that changes only the sign of a zero
// exponent, and exp32 maps ±0 to exactly 1.
func scoreTilesGeneric(dst, kv, x, tiles, w []float32, stride, dim, n int, scale float32) float32 {
	row := dim * lanes
	fused := min(len(dst), genericScoreCols)
	var acc [genericScoreCols][lanes]float32
	var d [lanes]float32
	nearest := float32(math.Inf(1))
	for t := range len(tiles) / row {
		sqdistGeneric(d[:], x, tiles[t*row:(t+1)*row], dim)
		for _, v := range d[:max(0, min(lanes, n-t*lanes))] {
			if v < nearest {
				nearest = v
			}
		}
		k := kv[t*lanes : (t+1)*lanes : (t+1)*lanes]
		for l, v := range d {
			k[l] = exp32(scale * v)
		}
		for c := range fused {
			ww := w[c*stride+t*lanes : c*stride+(t+1)*lanes : c*stride+(t+1)*lanes]
			a := &acc[c]
			for l := range a {
				a[l] += ww[l] * k[l]
			}
		}
	}
	for c := range fused {
		var sum float32 // as gaussianSumGeneric's and dotGeneric's tail: 0 + a −0 sum is +0
		dst[c] = sum + sumLanes(&acc[c])
	}
	if fused < len(dst) {
		dotColumnsGeneric(dst[fused:], kv, w[fused*stride:], stride)
	}
	return nearest
}
