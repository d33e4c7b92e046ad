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

// scoreTilesGeneric is ScoreTiles in pure Go: the generic kernels of the
// three calls it stands for, through kv, which gives their bits by
// construction (the vector kernels are tested against them). Pure Go has
// no registers to keep a block in, and one loop per phase runs faster
// than a loop over tiles doing all three.
func scoreTilesGeneric(dst, kv, x, tiles, w []float32, stride, dim, n int, scale float32) float32 {
	sqdistGeneric(kv, x, tiles, dim)
	nearest := minGeneric(kv[:n])
	gaussianSumColumnsGeneric(dst, kv, w, stride, scale, 0)
	return nearest
}
