package simd

// Internals the external tests (package simd_test) check.
var (
	FMALoop  = fmaLoop
	FMAFlops = fmaFlops
)

// SumLanes adds a register's 16 lanes in the order of every
// implementation's horizontal sum.
func SumLanes(lanes []float32) float32 { return sumLanes((*[16]float32)(lanes)) }
