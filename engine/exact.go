package engine

import (
	"fmt"
	"math"

	"github.com/bogd-project/bogd/layout"
)

// ExactKernels writes κ(x, sᵢ) for every support vector into dst (resized to
// Len) and returns it, computed in float64 from the stored float32 values:
// no SIMD, no float32 rounding of distances or exponentials.
//
// Score's float32 kernel values are accurate to about 1e-7, which is plenty
// for a prediction. It is not enough for a learner that solves linear systems
// in the Gram matrix (the Projectrons): the distance of x from the span of
// near-collinear support vectors, 1 − kᵀK⁻¹k, loses every digit when k carries
// 1e-7 errors and K⁻¹ has entries of 1e6. Those learners call this at
// O(Len·Dim) scalar cost, small next to their O(Len²) solve.
func (s *Set) ExactKernels(x Vector, dst []float64) ([]float64, error) {
	if err := x.Validate(s.dim); err != nil {
		return nil, fmt.Errorf("engine: exact kernels: %w", err)
	}
	n := s.m.Len()
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	xs := x.densify(s.own.dense, s.dim)
	tiles := s.m.Tiles()
	c := -1 / (2 * s.sigma * s.sigma)
	var acc [layout.Lanes]float64
	for t := 0; t*layout.Lanes < n; t++ {
		clear(acc[:])
		tile := tiles[t*s.dim*layout.Lanes : (t+1)*s.dim*layout.Lanes]
		for j, xj := range xs {
			lane := tile[j*layout.Lanes : (j+1)*layout.Lanes]
			for l, v := range lane {
				d := float64(v) - float64(xj)
				acc[l] += d * d
			}
		}
		for l, d2 := range acc[:min(layout.Lanes, n-t*layout.Lanes)] {
			dst[t*layout.Lanes+l] = math.Exp(c * d2)
		}
	}
	return dst, nil
}
