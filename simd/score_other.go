//go:build !amd64 || purego

package simd

// ScoreTiles is the generic implementation's only: see the amd64 build's
// documentation (score_amd64.go), which it follows.
func ScoreTiles(dst, kv, x, tiles, w []float32, stride, dim, n int, scale float32) (nearest float32) {
	if scoreTilesArgsBad(len(dst), len(kv), len(x), len(tiles), len(w), stride, dim, n) {
		scoreTilesPanic(len(dst), len(kv), len(x), len(tiles), len(w), stride, dim, n)
	}
	return scoreTilesGeneric(dst, kv, x, tiles, w, stride, dim, n, scale)
}

// ScoreTilesSlots is the amd64 build's (score_amd64.go): here ScoreTiles
// runs the generic kernels of the three calls, as fast as they are.
func ScoreTilesSlots() int { return 256 }
