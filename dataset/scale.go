package dataset

import (
	"github.com/bogd-project/bogd/task"

	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// Scaling maps every feature, and optionally a regression label, to [0, 1]
// with the minimum and maximum of its column over a whole dataset:
// x' = (x − min)/(max − min), a constant column giving 0. That is how the
// reference toolbox prepared its data (LSOKL's scale.m). A Scaling is kept
// beside a model (see MarshalJSON) so that new data get the same map; their
// values may fall outside [0, 1].
type Scaling struct {
	min, max           []float32 // per feature; an absent (sparse) feature counts as 0
	labels             bool      // labels are scaled too
	labelMin, labelMax float64
}

// MinMax computes the scaling of d's Dim features and, if labels is set,
// of its labels (meant for regression: Apply refuses to scale classes).
func MinMax(d *Dataset, labels bool) *Scaling {
	s := &Scaling{min: make([]float32, d.Dim), max: make([]float32, d.Dim), labels: labels}
	count := make([]int, d.Dim)
	for k, j := range d.Index {
		v := d.Value[k]
		if count[j] == 0 {
			s.min[j], s.max[j] = v, v
		} else {
			s.min[j], s.max[j] = min(s.min[j], v), max(s.max[j], v)
		}
		count[j]++
	}
	for j, c := range count {
		if c < d.Len() { // some row lacks feature j: a 0 there
			s.min[j], s.max[j] = min(s.min[j], 0), max(s.max[j], 0)
		}
	}
	if labels && d.Len() > 0 {
		s.labelMin, s.labelMax = slices.Min(d.Labels), slices.Max(d.Labels)
	}
	return s
}

// Dim is the number of features the scaling knows.
func (s *Scaling) Dim() int { return len(s.min) }

// feature maps value x of feature j, in float64 so that the only rounding
// before the float32 result is the division's.
func (s *Scaling) feature(j int32, x float64) float64 {
	lo, hi := float64(s.min[j]), float64(s.max[j])
	if hi == lo {
		return 0
	}
	return (x - lo) / (hi - lo)
}

// Label maps a label to the scaled range (the identity when the scaling
// leaves labels alone).
func (s *Scaling) Label(y float64) float64 {
	switch {
	case !s.labels:
		return y
	case s.labelMax == s.labelMin:
		return 0
	}
	return (y - s.labelMin) / (s.labelMax - s.labelMin)
}

// Unlabel maps a scaled label or prediction back to the original scale:
// the inverse of Label (a constant label comes back as that constant).
func (s *Scaling) Unlabel(y float64) float64 {
	if !s.labels {
		return y
	}
	return s.labelMin + y*(s.labelMax-s.labelMin)
}

// Apply returns a scaled copy of d (sharing no memory with it). A feature
// whose minimum is not 0 gets explicit values in the rows that lack it;
// values that scale to 0 are dropped, so rows stay as sparse as the data
// allow. A feature beyond the scaling's Dim is an error naming the row's
// line rather than a silent pass-through: the scaling never saw it vary.
// So is a value that leaves the float32 range, which new data far outside
// a narrow column can do.
func (s *Scaling) Apply(d *Dataset) (*Dataset, error) {
	if s.labels && (d.Task == task.Binary || d.Task == task.Multiclass) {
		return nil, fmt.Errorf("dataset: scaling %s: the labels of a %v dataset are classes, not numbers to scale", d.Name, d.Task)
	}
	var shifted []int32 // features whose absent 0 maps to a non-zero value, ascending
	for j := range int32(s.Dim()) {
		if float32(s.feature(j, 0)) != 0 {
			shifted = append(shifted, j)
		}
	}
	n := d.Len()
	out := &Dataset{
		Name:    d.Name,
		Dim:     max(d.Dim, s.Dim()),
		Task:    d.Task,
		Labels:  make([]float64, n),
		Classes: slices.Clone(d.Classes),
		RowPtr:  make([]int, n+1),
		Index:   make([]int32, 0, len(d.Index)+n*len(shifted)),
		Value:   make([]float32, 0, len(d.Index)+n*len(shifted)),
		lines:   slices.Clone(d.lines),
		zeroOne: d.zeroOne,
	}
	for i := range n {
		idx, val := d.Row(i)
		for k, o := 0, 0; k < len(idx) || o < len(shifted); {
			var j int32
			x := 0.0
			if k < len(idx) && (o == len(shifted) || idx[k] <= shifted[o]) {
				j, x = idx[k], float64(val[k])
				if o < len(shifted) && shifted[o] == j {
					o++
				}
				k++
			} else {
				j = shifted[o]
				o++
			}
			if int(j) >= s.Dim() {
				return nil, errAt(d.Name, d.line(i), "feature %d is beyond the %d features of the scaling", j+1, s.Dim())
			}
			v := float32(s.feature(j, x))
			if math.IsInf(float64(v), 0) {
				return nil, errAt(d.Name, d.line(i), "feature %d: value %v scales to %g, beyond the float32 range", j+1, x, s.feature(j, x))
			}
			if v != 0 {
				out.Index = append(out.Index, j)
				out.Value = append(out.Value, v)
			}
		}
		out.RowPtr[i+1] = len(out.Index)
		y := s.Label(d.Labels[i])
		if math.IsInf(y, 0) {
			return nil, errAt(d.Name, d.line(i), "label %v scales to %v", d.Labels[i], y)
		}
		out.Labels[i] = y
	}
	return out, nil
}

// scalingJSON is the stored form of a Scaling. Float32 bounds print in their
// shortest exact form, so a stored scaling is the computed one.
type scalingJSON struct {
	Method string      `json:"method"` // "minmax", so that other scalings can be told apart
	Min    []float32   `json:"min"`
	Max    []float32   `json:"max"`
	Label  *[2]float64 `json:"label,omitempty"` // min and max of the labels, when they are scaled
}

const minMaxMethod = "minmax"

// MarshalJSON stores the scaling as {"method":"minmax","min":[...],
// "max":[...],"label":[min,max]} ("label" only when labels are scaled).
func (s *Scaling) MarshalJSON() ([]byte, error) {
	j := scalingJSON{Method: minMaxMethod, Min: s.min, Max: s.max}
	if s.labels {
		j.Label = &[2]float64{s.labelMin, s.labelMax}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the form of MarshalJSON and checks it: unknown fields,
// another method, bounds of different lengths or a minimum above its
// maximum are errors.
func (s *Scaling) UnmarshalJSON(data []byte) error {
	var j scalingJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("dataset: scaling: %w", err)
	}
	switch {
	case j.Method != minMaxMethod:
		return fmt.Errorf("dataset: scaling: method %q, want %q", j.Method, minMaxMethod)
	case len(j.Min) != len(j.Max):
		return fmt.Errorf("dataset: scaling: %d minima but %d maxima", len(j.Min), len(j.Max))
	case j.Label != nil && !(j.Label[0] <= j.Label[1]):
		return fmt.Errorf("dataset: scaling: label minimum %v above its maximum %v", j.Label[0], j.Label[1])
	}
	for f := range j.Min {
		if !(j.Min[f] <= j.Max[f]) {
			return fmt.Errorf("dataset: scaling: feature %d: minimum %v above its maximum %v", f+1, j.Min[f], j.Max[f])
		}
	}
	*s = Scaling{min: j.Min, max: j.Max}
	if j.Label != nil {
		s.labels, s.labelMin, s.labelMax = true, j.Label[0], j.Label[1]
	}
	return nil
}
