package prep

import (
	"fmt"
	"math"
	"slices"
)

// method is how a Scaling was measured; its number is its code in the
// binary form.
type method uint8

const (
	noScaling method = iota
	minMax
	maxAbs
)

// Scaling maps every feature, and optionally a regression label, as the
// training data were mapped: by an affine map per feature measured on
// those data (see the package documentation, Scalings). A Scaling never
// changes once made, so that any number of goroutines may use it.
type Scaling struct {
	method method
	// min and max are each feature's bounds over the training data, an
	// absent (sparse) feature counting as 0 (max-abs: 0 and the largest
	// absolute value): its shift and its shift plus its spread.
	min, max           []float32
	labels             bool // labels are scaled too
	labelMin, labelMax float64
	// shifted lists, ascending, the features whose absent 0 maps to a
	// non-zero value: a prepared row holds them whether or not the raw
	// row does.
	shifted []int32
}

// NewMinMax returns the min-max scaling of features whose minima and
// maxima over the training data are min and max, x' = (x − min)/(max −
// min), a constant feature giving 0; with label, the labels too, from
// their minimum label[0] and maximum label[1]. Every bound must be finite
// and no minimum above its maximum.
func NewMinMax(min, max []float32, label *[2]float64) (*Scaling, error) {
	if len(min) != len(max) {
		return nil, fmt.Errorf("prep: min-max scaling: %d minima but %d maxima", len(min), len(max))
	}
	for j := range min {
		if !(min[j] <= max[j]) || math.IsInf(float64(min[j]), 0) || math.IsInf(float64(max[j]), 0) {
			return nil, fmt.Errorf("prep: min-max scaling: feature %d: minimum %v and maximum %v", j+1, min[j], max[j])
		}
	}
	return newScaling(minMax, slices.Clone(min), slices.Clone(max), label)
}

// NewMaxAbs returns the scaling that divides every feature by peak, its
// largest absolute value over the training data, x' = x/peak (a feature
// of peak 0 giving 0): every feature lies in [−1, 1] and a zero stays a
// zero, so that sparse rows stay sparse, and features whose ranges are
// orders of magnitude apart weigh alike in a distance. With label, the
// labels are min-max scaled as NewMinMax scales them, from their minimum
// label[0] and maximum label[1]: a regression's ε and step sizes then
// have one scale whatever the targets'. Every peak must be finite and
// not negative.
func NewMaxAbs(peak []float32, label *[2]float64) (*Scaling, error) {
	for j, p := range peak {
		if !(p >= 0) || math.IsInf(float64(p), 0) {
			return nil, fmt.Errorf("prep: max-abs scaling: feature %d: largest absolute value %v", j+1, p)
		}
	}
	return newScaling(maxAbs, make([]float32, len(peak)), slices.Clone(peak), label)
}

// newScaling makes a scaling of method m with the features' shifts min
// and shifts plus spreads max (checked by the constructors), and with
// label, the labels' minimum and maximum.
func newScaling(m method, min, max []float32, label *[2]float64) (*Scaling, error) {
	s := &Scaling{method: m, min: min, max: max}
	if label != nil {
		lo, hi := label[0], label[1]
		if !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return nil, fmt.Errorf("prep: %v scaling: label minimum %v and maximum %v", m, lo, hi)
		}
		s.labels, s.labelMin, s.labelMax = true, lo, hi
	}
	for j := range int32(len(min)) {
		if float32(s.feature(j, 0)) != 0 {
			s.shifted = append(s.shifted, j)
		}
	}
	return s, nil
}

func (m method) String() string {
	if m == maxAbs {
		return "max-abs"
	}
	return "min-max"
}

// Method names how the scaling was measured: "minmax" or "maxabs", as
// bogdbench's --scale does.
func (s *Scaling) Method() string {
	if s.method == maxAbs {
		return "maxabs"
	}
	return "minmax"
}

// Dim is the number of features the scaling maps.
func (s *Scaling) Dim() int { return len(s.min) }

// ScalesLabels reports whether the scaling maps labels too (a regression's).
func (s *Scaling) ScalesLabels() bool { return s.labels }

// feature maps value x of feature j, in float64 so that the only rounding
// before the float32 result is the division's.
func (s *Scaling) feature(j int32, x float64) float64 {
	lo, hi := float64(s.min[j]), float64(s.max[j])
	if hi == lo {
		return 0
	}
	return (x - lo) / (hi - lo)
}

// label maps a label to the scaled range (the identity when labels are
// not scaled).
func (s *Scaling) label(y float64) float64 {
	switch {
	case !s.labels:
		return y
	case s.labelMax == s.labelMin:
		return 0
	}
	return (y - s.labelMin) / (s.labelMax - s.labelMin)
}

// unlabel is the inverse of label (a constant label comes back as that
// constant).
func (s *Scaling) unlabel(y float64) float64 {
	if !s.labels {
		return y
	}
	return s.labelMin + y*(s.labelMax-s.labelMin)
}

// appendRow appends the scaled features of a row (ascending 0-based
// indices, values) to row: the given features merged with the shifted
// ones, values that scale to 0 left out.
func (s *Scaling) appendRow(row *Row, index []int32, value []float32) error {
	for k, o := 0, 0; k < len(index) || o < len(s.shifted); {
		var j int32
		x := 0.0
		if k < len(index) && (o == len(s.shifted) || index[k] <= s.shifted[o]) {
			j, x = index[k], float64(value[k])
			if o < len(s.shifted) && s.shifted[o] == j {
				o++
			}
			k++
		} else {
			j = s.shifted[o]
			o++
		}
		if int(j) >= s.Dim() {
			return rowErrorf("feature %d is beyond the %d features of the scaling", j+1, s.Dim())
		}
		v := float32(s.feature(j, x))
		if math.IsInf(float64(v), 0) {
			return rowErrorf("feature %d: value %v scales to %g, beyond the float32 range", j+1, x, s.feature(j, x))
		}
		if v != 0 {
			row.Index = append(row.Index, j)
			row.Value = append(row.Value, v)
		}
	}
	return nil
}
