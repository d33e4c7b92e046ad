package engine

import (
	"fmt"
	"math"
)

// ExactKernels writes κ(x, sᵢ) for every support vector into dst (resized to
// Len) and returns it, computed in float64 from the stored float32 values:
// no SIMD, no float32 rounding of distances or exponentials. Dense and
// sparse storage give the same bits (the squared differences are summed in
// feature order; sparse storage skips the zero terms).
//
// Evaluate's float32 kernel values are accurate to about 1e-7, which is plenty
// for a prediction. It is not enough for a learner that solves linear systems
// in the Gram matrix (the Projectrons): the distance of x from the span of
// near-collinear support vectors, 1 − kᵀK⁻¹k, loses every digit when k carries
// 1e-7 errors and K⁻¹ has entries of 1e6. Those learners call this at
// O(Len·Dim) scalar cost (O(Len·non-zeros) with sparse storage), small next
// to their O(Len²) solve.
func (s *Set) ExactKernels(x Vector, dst []float64) ([]float64, error) {
	if err := s.work.take(&x, s.dim); err != nil {
		return nil, fmt.Errorf("engine: exact kernels: %w", err)
	}
	n := s.vs.Len()
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	s.vs.sqDists(&s.work.query, dst, &s.work)
	c := -1 / (2 * s.sigma * s.sigma)
	for i, d2 := range dst {
		dst[i] = math.Exp(c * d2)
	}
	return dst, nil
}
