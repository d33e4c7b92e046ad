package simd

// The assembly kernels are generated with avo by the program in asm/gen, one
// backend per file pair; see asm/gen for how the code is built.

//go:generate go run ../asm/gen -backend avx2 -out kernels_avx2_amd64.s -stubs kernels_avx2_amd64.go -pkg simd
//go:generate go run ../asm/gen -backend avx512 -out kernels_avx512_amd64.s -stubs kernels_avx512_amd64.go -pkg simd
