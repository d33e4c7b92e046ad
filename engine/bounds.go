package engine

import (
	"fmt"
	"math"
)

// Bounds returns what the set remembers about every vector stored since it
// was last empty, removed ones included: an upper bound of their squared
// norms and whether all their values were integers. Together they decide
// whether a sparse query may take the norm-expansion path (see the package
// documentation: exactness), so they change the rounding of later scores.
// A learner that saves its set saves them too, and SetBounds restores
// them: a set rebuilt from its current vectors alone would forget removed
// ones.
func (s *Set) Bounds() (maxNorm float64, integral bool) { return s.maxNorm, s.integral }

// SetBounds restores the values Bounds reported. It fails, changing nothing,
// when they cannot describe the stored vectors: maxNorm negative, not finite
// or below the squared norm of a stored vector, integral with a stored
// non-integer value, or anything but (0, true) for an empty set.
func (s *Set) SetBounds(maxNorm float64, integral bool) error {
	if !(maxNorm >= 0) || math.IsInf(maxNorm, 0) {
		return fmt.Errorf("engine: norm bound %v is not a finite non-negative number", maxNorm)
	}
	n := s.vs.Len()
	if n == 0 && (maxNorm != 0 || !integral) {
		return fmt.Errorf("engine: an empty set has norm bound 0 and integer values, got %v and %v", maxNorm, integral)
	}
	for i := range n {
		norm, whole := s.vs.sqNorm(i, &s.work)
		if norm > maxNorm {
			return fmt.Errorf("engine: norm bound %v is below the squared norm %v of vector %d", maxNorm, norm, i)
		}
		if integral && !whole {
			return fmt.Errorf("engine: vector %d has a non-integer value, but the set is marked integral", i)
		}
	}
	s.maxNorm, s.integral = maxNorm, integral
	return nil
}
