package simd

import (
	"fmt"
	"math"
)

// FourierWidths writes the random Fourier features of levels kernel widths
// that halve from one level to the next, from one projection: level k holds
// cos(2ᵏ·p_j) at dst[k·2·slots + j] and sin(2ᵏ·p_j) at dst[k·2·slots +
// slots + j], where p_j = Σ_f x[f]·tiles[(t*dim+f)*16+l] (j = 16t+l) and
// slots = len(tiles)/dim. Level 0 is FourierFeatures; level k is the features
// of the frequencies 2ᵏ·uⱼ, the Gaussian kernel of width σ/2ᵏ when the
// tiles hold frequencies of width σ. Projecting once serves every width:
// each further level costs four vector operations per feature instead of a
// projection and a sincos (the auto learner of package bogd uses it).
//
// Level k comes from level k−1 by the double-angle identities
// cos 2θ = cos²θ − sin²θ (one product and one FMA) and sin 2θ = (2·sinθ)·cosθ
// (an exact doubling and a product), in every implementation. Their
// rounding doubles from level to level: both the direction error and the
// departure of cos² + sin² from 1 of level k−1 double in level k, so level
// k is within about 2ᵏ times FourierFeatures's bound (plus the rounding of
// the steps, under 2·2⁻²⁴ each) of cos and sin of 2ᵏ times the float32
// projection. Measured (TestFourierWidthsAccuracy, |p| ≤ 64): 2.4·2⁻²⁴ at
// level 0, 44·2⁻²⁴ (2.6e-6) at level 4, 92·2⁻²⁴ (5.5e-6) at level 5 in the
// vector code; 2.7, 49 and 100·2⁻²⁴ in the generic code.
// 2ᵏ times the projection's own rounding is no more than a direct
// evaluation at 2ᵏ·p would carry: scaling a float by 2ᵏ is exact. Padding
// slots (p = 0) give cos 1 and sin 0 at every level, exactly.
//
// levels ≥ 1, len(x) ≥ dim, len(dst) ≥ levels·2·slots, len(tiles) a
// multiple of dim·16; dst must not overlap the inputs.
func FourierWidths(dst, x, tiles []float32, dim, levels int) {
	slots := checkWidths(len(tiles), dim, len(dst), levels)
	if len(x) < dim {
		panic(fmt.Sprintf("simd: query of length %d for dimension %d", len(x), dim))
	}
	fourier(dst[:slots], dst[slots:2*slots], x[:dim], tiles, dim)
	doubleAngles(dst[:levels*2*slots], slots, levels)
}

// FourierWidthsSparse is FourierWidths for a sparse x (non-zeros val at the
// 0-based indices idx, each < dim), with the projection of
// FourierFeaturesSparse. dst must not overlap the inputs.
func FourierWidthsSparse(dst []float32, idx []int32, val []float32, tiles []float32, dim, levels int) {
	slots := checkWidths(len(tiles), dim, len(dst), levels)
	if len(val) != len(idx) {
		panic(fmt.Sprintf("simd: %d values for %d indices", len(val), len(idx)))
	}
	checkIndices(idx, dim)
	fourierSparse(dst[:slots], dst[slots:2*slots], idx, val, tiles, dim)
	doubleAngles(dst[:levels*2*slots], slots, levels)
}

// checkWidths validates a tile slice for dimension dim and an output of
// length out for levels levels of two features per slot, and returns the
// number of slots.
func checkWidths(tiles, dim, out, levels int) int {
	slots := checkTiles(tiles, dim, math.MaxInt) // the output is checked here
	if levels < 1 || slots > 0 && (out/slots/2 < levels) {
		panic(fmt.Sprintf("simd: output of length %d for %d levels of 2 features of %d slots", out, levels, slots))
	}
	return slots
}

// doubleAnglesGeneric fills levels 1 … levels−1 of z (each 2·n values, n
// cosines then n sines) from the level before, by the double-angle
// identities: the cosine c² − s² as one FMA of c·c and −(s·s), the sine
// (s+s)·c.
func doubleAnglesGeneric(z []float32, n, levels int) {
	for k := 1; k < levels; k++ {
		src := z[(k-1)*2*n : k*2*n : k*2*n]
		dst := z[k*2*n : (k+1)*2*n : (k+1)*2*n]
		cos, sin := src[:n:n], src[n:]
		cos2, sin2 := dst[:n:n], dst[n:]
		for i, c := range cos {
			s := sin[i]
			cos2[i] = float32(math.FMA(float64(c), float64(c), float64(-(s * s))))
			sin2[i] = (s + s) * c
		}
	}
}
