package dataset

import (
	"fmt"

	"github.com/bogd-project/bogd/prep"
)

// MaxAbs measures the max-abs scaling (prep.NewMaxAbs) of d's Dim
// features: each divided by its largest absolute value over d, which
// keeps sparse rows sparse; with labels, d's labels min-max scaled as
// MinMax scales them (meant for regression).
func MaxAbs(d *Dataset, labels bool) (*prep.Scaling, error) {
	s, err := minMaxOf(d).MaxAbs(d.Dim, labels)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", d.Name, err)
	}
	return s, nil
}

// MaxAbs returns the max-abs scaling of the rows added (prep.NewMaxAbs:
// each feature's largest absolute value is the larger of its minimum's
// and maximum's), for dim features (at least the largest index added),
// and of their labels if labels is set. Measured on the first rows of a
// stream, it scales the later ones by the same values: a larger value
// then lies beyond [−1, 1], which a kernel takes as it comes.
func (m *MinMaxOf) MaxAbs(dim int, labels bool) (*prep.Scaling, error) {
	m.grow(dim)
	peak := make([]float32, dim)
	for j := range peak {
		if m.count[j] > 0 {
			peak[j] = max(-m.min[j], m.max[j])
		}
	}
	var label *[2]float64
	if labels && m.rows > 0 {
		label = &[2]float64{m.labelMin, m.labelMax}
	}
	return prep.NewMaxAbs(peak, label)
}
