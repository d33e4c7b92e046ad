//go:build !purego

package simd

// doubleAngles dispatches the double-angle kernels (FourierWidths): z holds
// levels levels of n cosines and n sines, n a multiple of 16.
func doubleAngles(z []float32, n, levels int) {
	switch {
	case levels < 2:
	case useAVX512:
		doubleAnglesAVX512(z, n, levels)
	case useAVX2:
		doubleAnglesAVX2(z, n, levels)
	default:
		doubleAnglesGeneric(z, n, levels)
	}
}
