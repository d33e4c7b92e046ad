//go:build !amd64 || purego

package simd

func doubleAngles(z []float32, n, levels int) { doubleAnglesGeneric(z, n, levels) }
