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
	m := NewMinMax()
	var idx []int32
	var val []float32
	for i := range d.Len() {
		idx, val = d.RowTo(i, idx, val)
		m.Add(d.Labels[i], idx, val)
	}
	return m.Scaling(d.Dim, labels)
}

// MinMaxOf computes MinMax over rows given one at a time, as a Scanner
// reads them: the same scaling, in memory proportional to the features
// rather than the rows.
type MinMaxOf struct {
	min, max           []float32
	count              []int // rows that have feature j
	rows               int
	labelMin, labelMax float64
}

// NewMinMax starts a MinMax over rows.
func NewMinMax() *MinMaxOf { return &MinMaxOf{} }

// Add takes one row: its label and its features (0-based indices).
func (m *MinMaxOf) Add(y float64, idx []int32, val []float32) {
	if m.rows == 0 {
		m.labelMin, m.labelMax = y, y
	}
	m.labelMin, m.labelMax = min(m.labelMin, y), max(m.labelMax, y)
	m.rows++
	if len(idx) > 0 {
		m.grow(int(idx[len(idx)-1]) + 1)
	}
	for k, j := range idx {
		v := val[k]
		if m.count[j] == 0 {
			m.min[j], m.max[j] = v, v
		} else {
			m.min[j], m.max[j] = min(m.min[j], v), max(m.max[j], v)
		}
		m.count[j]++
	}
}

// grow makes room for dim features.
func (m *MinMaxOf) grow(dim int) {
	if dim > len(m.count) {
		m.min = append(m.min, make([]float32, dim-len(m.min))...)
		m.max = append(m.max, make([]float32, dim-len(m.max))...)
		m.count = append(m.count, make([]int, dim-len(m.count))...)
	}
}

// Scaling returns the scaling of the rows added, for dim features (at
// least the largest index added), and of their labels if labels is set.
func (m *MinMaxOf) Scaling(dim int, labels bool) *Scaling {
	m.grow(dim)
	s := &Scaling{min: slices.Clone(m.min[:dim]), max: slices.Clone(m.max[:dim]), labels: labels}
	for j, c := range m.count[:dim] {
		if c < m.rows { // some row lacks feature j: a 0 there
			s.min[j], s.max[j] = min(s.min[j], 0), max(s.max[j], 0)
		}
	}
	if labels && m.rows > 0 {
		s.labelMin, s.labelMax = m.labelMin, m.labelMax
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
	if err := s.checkTask(d.Task, d.Name); err != nil {
		return nil, err
	}
	rs := s.Rows()
	n := d.Len()
	out := &Dataset{
		Name:    d.Name,
		Dim:     max(d.Dim, s.Dim()),
		Task:    d.Task,
		Labels:  make([]float64, n),
		Classes: slices.Clone(d.Classes),
		RowPtr:  make([]int, n+1),
		Index:   make([]int32, 0, d.NonZeros()+n*len(rs.shifted)),
		Value:   make([]float32, 0, d.NonZeros()+n*len(rs.shifted)),
		lines:   slices.Clone(d.lines),
		zeroOne: d.zeroOne,

		plainLines: d.plainLines,
	}
	var idx []int32
	var val []float32
	for i := range n {
		idx, val = d.RowTo(i, idx, val)
		var err error
		if out.Index, out.Value, err = rs.appendRow(out.Index, out.Value, idx, val); err != nil {
			return nil, errAt(d.Name, d.line(i), "%v", err)
		}
		out.RowPtr[i+1] = len(out.Index)
		y, err := rs.Label(d.Labels[i])
		if err != nil {
			return nil, errAt(d.Name, d.line(i), "%v", err)
		}
		out.Labels[i] = y
	}
	return out, nil
}

// checkTask refuses to scale the labels of classes.
func (s *Scaling) checkTask(t task.Task, name string) error {
	if s.labels && (t == task.Binary || t == task.Multiclass) {
		return fmt.Errorf("dataset: scaling %s: the labels of a %v dataset are classes, not numbers to scale", name, t)
	}
	return nil
}

// RowScaler applies a Scaling to one row at a time, as Apply maps the rows
// of a data set: for rows read by a Scanner.
type RowScaler struct {
	s       *Scaling
	shifted []int32 // features whose absent 0 maps to a non-zero value, ascending
	idx     []int32
	val     []float32
}

// Rows returns a RowScaler of s.
func (s *Scaling) Rows() *RowScaler {
	rs := &RowScaler{s: s}
	for j := range int32(s.Dim()) {
		if float32(s.feature(j, 0)) != 0 {
			rs.shifted = append(rs.shifted, j)
		}
	}
	return rs
}

// Row returns the row (idx, val) scaled, in slices valid until the next
// call; its errors are Apply's, without the line.
func (rs *RowScaler) Row(idx []int32, val []float32) ([]int32, []float32, error) {
	var err error
	rs.idx, rs.val, err = rs.appendRow(rs.idx[:0], rs.val[:0], idx, val)
	return rs.idx, rs.val, err
}

// Label returns the label y scaled (Scaling.Label), an error when it
// leaves the float64 range.
func (rs *RowScaler) Label(y float64) (float64, error) {
	v := rs.s.Label(y)
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("label %v scales to %v", y, v)
	}
	return v, nil
}

// appendRow appends the scaled features of the row (idx, val) to outIdx
// and outVal.
func (rs *RowScaler) appendRow(outIdx []int32, outVal []float32, idx []int32, val []float32) ([]int32, []float32, error) {
	s, shifted := rs.s, rs.shifted
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
			return outIdx, outVal, fmt.Errorf("feature %d is beyond the %d features of the scaling", j+1, s.Dim())
		}
		v := float32(s.feature(j, x))
		if math.IsInf(float64(v), 0) {
			return outIdx, outVal, fmt.Errorf("feature %d: value %v scales to %g, beyond the float32 range", j+1, x, s.feature(j, x))
		}
		if v != 0 {
			outIdx, outVal = append(outIdx, j), append(outVal, v)
		}
	}
	return outIdx, outVal, nil
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
