package simd

// Internals the external tests (package simd_test) check.
var (
	FMALoop  = fmaLoop
	FMAFlops = fmaFlops
)
