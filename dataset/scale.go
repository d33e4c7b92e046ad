package dataset

import (
	"fmt"
	"math"
	"slices"

	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/task"
)

// MinMax measures the min-max scaling (prep.NewMinMax) of d's Dim features
// and, if labels is set, of its labels (meant for regression: Prepare
// refuses to scale classes), an absent (sparse) feature counting as 0.
// That is how the reference toolbox prepared its data (LSOKL's scale.m).
// Only a value or label that is not finite, which Read never gives, is
// an error.
func MinMax(d *Dataset, labels bool) (*prep.Scaling, error) {
	s, err := minMaxOf(d).Scaling(d.Dim, labels)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", d.Name, err)
	}
	return s, nil
}

// minMaxOf is a MinMaxOf over every row of d.
func minMaxOf(d *Dataset) *MinMaxOf {
	m := NewMinMax()
	var buf RowBuffer
	for i := range d.Len() {
		idx, val := d.RowTo(i, &buf)
		m.Add(d.Labels[i], idx, val)
	}
	return m
}

// MinMaxOf measures MinMax over rows given one at a time, as a Scanner
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

// Add takes one row: its label and its features (0-based indices,
// ascending).
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
func (m *MinMaxOf) Scaling(dim int, labels bool) (*prep.Scaling, error) {
	m.grow(dim)
	lo, hi := slices.Clone(m.min[:dim]), slices.Clone(m.max[:dim])
	for j, c := range m.count[:dim] {
		if c < m.rows { // some row lacks feature j: a 0 there
			lo[j], hi[j] = min(lo[j], 0), max(hi[j], 0)
		}
	}
	var label *[2]float64
	if labels && m.rows > 0 {
		label = &[2]float64{m.labelMin, m.labelMax}
	}
	return prep.NewMinMax(lo, hi, label)
}

// ScaleMinMax returns d min-max scaled over itself (MinMax, then Scale),
// and the scaling.
func (d *Dataset) ScaleMinMax(labels bool) (*Dataset, *prep.Scaling, error) {
	s, err := MinMax(d, labels)
	if err != nil {
		return nil, nil, err
	}
	scaled, err := d.Scale(s)
	return scaled, s, err
}

// Scale returns d scaled by s (Prepare with no other preparation, for a
// model of d's dimension).
func (d *Dataset) Scale(s *prep.Scaling) (*Dataset, error) {
	out, _, err := d.Prepare(prep.Input{Scaling: s}, d.Dim)
	return out, err
}

// Prepare returns a copy of d prepared for a model of dim features by in
// (prep.Input.PrepareIndexed, row by row): the features at or beyond dim
// dropped, and said where in Clipped; the rest, and a regression's labels,
// scaled. A problem is an error naming the row's line. Hashing is the
// reader's: read d with Options.HashBits = in.HashBits.
func (d *Dataset) Prepare(in prep.Input, dim int) (*Dataset, Clipped, error) {
	clipped := Clipped{Dim: dim}
	if in.Scaling != nil && in.Scaling.ScalesLabels() && (d.Task == task.Binary || d.Task == task.Multiclass) {
		return nil, clipped, fmt.Errorf("dataset: scaling %s: the labels of a %v dataset are classes, not numbers to scale", d.Name, d.Task)
	}
	n := d.Len()
	out := &Dataset{
		Name:    d.Name,
		Dim:     dim,
		Task:    d.Task,
		Labels:  make([]float64, n),
		Classes: slices.Clone(d.Classes),
		RowPtr:  make([]int, n+1),
		Index:   make([]int32, 0, d.NonZeros()),
		Value:   make([]float32, 0, d.NonZeros()),
		lines:   slices.Clone(d.lines),
		zeroOne: d.zeroOne,

		plainLines: d.plainLines,
	}
	if in.Scaling != nil {
		out.Dim = max(dim, in.Scaling.Dim())
	}
	var row prep.Row
	var buf RowBuffer
	for i := range n {
		idx, val := d.RowTo(i, &buf)
		if err := in.PrepareIndexed(&row, idx, val, dim); err != nil {
			return nil, clipped, &ParseError{File: d.Name, Line: d.line(i), Msg: err.Error(), Err: err}
		}
		if len(row.Ignored) > 0 {
			if clipped.Features == 0 {
				clipped.First, clipped.FirstIndex = d.Where(i), row.Ignored[0]+1
			}
			clipped.Features += len(row.Ignored)
			clipped.Rows++
		}
		out.Index = append(out.Index, row.Index...)
		out.Value = append(out.Value, row.Value...)
		out.RowPtr[i+1] = len(out.Index)
		y := in.Label(d.Labels[i])
		if math.IsInf(y, 0) {
			return nil, clipped, errAt(d.Name, d.line(i), "label %v scales to %v", d.Labels[i], y)
		}
		out.Labels[i] = y
	}
	return out, clipped, nil
}

// Clipped counts the features that a model's dimension left out of a
// data set.
type Clipped struct {
	Dim            int // the model's dimension
	Features, Rows int
	First          string // where the first one is (Dataset.Where)
	FirstIndex     int32  // its index, 1-based as in the file
}
