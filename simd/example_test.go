package simd_test

import (
	"fmt"

	"github.com/bogd-project/bogd/layout"
	"github.com/bogd-project/bogd/simd"
)

// f(x) of a Gaussian kernel expansion in two kernel calls, as package
// engine computes it: the squared distances from x to every stored vector
// (tiles of 16 vectors from package layout), then the kernel values and
// their weighted sum. The implementation is chosen once from the CPU
// (simd.Active); BOGD_SIMD, set before the program starts, forces one.
func Example() {
	m, _ := layout.New(2, 3)
	m.Append([]float32{0, 0})
	m.Append([]float32{3, 4})
	m.Append([]float32{1, 0})
	buf := make([]float32, layout.TilesFor(m.Len())*layout.Lanes) // whole tiles: padding slots too
	simd.SqDist(buf, []float32{0, 0}, m.Tiles(), m.Dim())
	fmt.Println("distances²:", buf[:m.Len()])

	w := make([]float32, len(buf)) // the weights, zero on padding slots
	copy(w, []float32{1, 2, -1})
	const sigma = 2
	f := simd.GaussianSum(buf, w, -1.0/(2*sigma*sigma), 0)
	fmt.Printf("f(x) = %.4f\n", f) // 1·e⁰ + 2·e^(−25/8) − 1·e^(−1/8)
	// Output:
	// distances²: [0 25 1]
	// f(x) = 0.2054
}
