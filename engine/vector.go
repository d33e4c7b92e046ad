package engine

import (
	"fmt"
	"math"

	"github.com/bogd-project/bogd/simd"
)

// Vector is one input point, dense or sparse. Exactly one form is used: a
// Dense slice of length Dim (Dense), or Index/Value pairs (Sparse). Sparse
// indices are 0-based (feature j of a point is Index k with Index[k] = j,
// so the feature a LIBSVM file numbers 1 is index 0), strictly increasing
// and each below Dim. A sparse vector with no entries, the zero Vector
// included, is the zero vector; Dense(nil) is a dense vector of length 0,
// which every method rejects.
type Vector struct {
	Dense []float32
	Index []int32
	Value []float32
	// dense marks a Vector made by Dense, so that Dense(nil) is not the
	// sparse zero vector.
	dense bool
}

// Dense wraps a dense point: x[j] is feature j, len(x) must be the
// dimension.
func Dense(x []float32) Vector { return Vector{Dense: x, dense: true} }

// Sparse wraps a sparse point given by its non-zero features: value[k] is
// feature index[k], counted from 0 (LIBSVM's 1-based feature 1 is index
// 0), indices strictly increasing and below the dimension.
func Sparse(index []int32, value []float32) Vector { return Vector{Index: index, Value: value} }

// IsSparse reports whether v is given in sparse form.
func (v Vector) IsSparse() bool { return v.isSparse() }

// isSparse is IsSparse for the engine's own use: inlined, a method on a
// value copies the ten words of a Vector first.
func (v *Vector) isSparse() bool { return v.Dense == nil && !v.dense }

// validate checks that v is a well-formed point of dimension dim with finite
// values: one form only, a dense slice of length dim, or sparse indices
// increasing and below dim with one value each.
func (v *Vector) validate(dim int) error {
	if !v.isSparse() {
		switch {
		case v.Index != nil || v.Value != nil:
			return fmt.Errorf("vector has both a dense form and sparse indices or values")
		case v.Dense == nil:
			return fmt.Errorf("dense vector is nil, want dimension %d", dim)
		case len(v.Dense) != dim:
			return fmt.Errorf("dense vector of length %d, want dimension %d", len(v.Dense), dim)
		}
		for j, x := range v.Dense {
			if !finite(x) {
				return fmt.Errorf("feature %d is %v", j, x)
			}
		}
		return nil
	}
	idx, val := v.Index, v.Value
	if len(idx) != len(val) {
		return fmt.Errorf("sparse vector with %d indices and %d values", len(idx), len(val))
	}
	if len(idx) == dim && simd.FullRow(idx, val) {
		return nil // every feature set, in order, finite: codrna's rows, nearly all
	}
	// One test per feature here, the message after: the loop is part of
	// every step of a learner.
	prev := int32(-1)
	for k, j := range idx {
		if j <= prev || int(j) >= dim || !finite(val[k]) {
			return badFeature(idx, val, k, dim)
		}
		prev = j
	}
	return nil
}

// badFeature says what is wrong with feature k of a sparse vector, whose
// features before it are valid.
func badFeature(idx []int32, val []float32, k, dim int) error {
	j := idx[k]
	switch {
	case k > 0 && j <= idx[k-1]:
		return fmt.Errorf("sparse feature index %d follows %d: indices must increase from 0", j, idx[k-1])
	case j < 0:
		return fmt.Errorf("sparse feature index %d follows %d: indices must increase from 0", j, -1)
	case int(j) >= dim:
		return fmt.Errorf("sparse feature index %d out of range for dimension %d (indices count from 0)", j, dim)
	}
	return fmt.Errorf("feature %d is %v", j, val[k])
}

// sqNorm returns ‖v‖² in float64 (sqSum's) and whether every value is an
// integer, in one pass: the test of a sparse query's norm expansion needs
// both for every query.
func (v *Vector) sqNorm() (norm float64, integral bool) {
	integral = true
	for _, x := range v.values() {
		f := float64(x)
		norm += f * f
		integral = integral && f == math.Trunc(f)
	}
	return norm, integral
}

// values returns v's values: its dense slice, or its non-zeros.
func (v *Vector) values() []float32 {
	if v.isSparse() {
		return v.Value
	}
	return v.Dense
}

// sqSum returns ‖v‖² in float64, summed in the order of v's values.
func (v *Vector) sqSum() float64 {
	var norm float64
	for _, x := range v.values() {
		norm += float64(x) * float64(x)
	}
	return norm
}

// integral reports whether every value of v is an integer.
func (v *Vector) integral() bool {
	for _, x := range v.values() {
		if f := float64(x); f != math.Trunc(f) {
			return false
		}
	}
	return true
}

// densify returns v as a dense slice of length len(dst), using dst as
// storage for a sparse v. Scoring calls it through Scratch.scatter, which
// is not inlined: in the large functions that call it, its loop kept its
// counter on the stack, a store and a load per feature.
func (v *Vector) densify(dst []float32) []float32 {
	if !v.isSparse() {
		return v.Dense
	}
	clear(dst)
	idx, val := v.Index, v.Value // read once: the stores below could alias *v
	val = val[:len(idx)]
	for k, j := range idx {
		dst[j] = val[k]
	}
	return dst
}

// finite reports whether x is neither NaN nor ±Inf: whether its exponent
// bits are not all ones (one test, where IsNaN and IsInf are three).
func finite(x float32) bool {
	const exponent = 0x7f800000
	return math.Float32bits(x)&exponent != exponent
}
