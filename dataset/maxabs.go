package dataset

import (
	"fmt"
	"math"
	"slices"

	"github.com/bogd-project/bogd/prep"
)

// MaxAbs measures the max-abs scaling (prep.NewMaxAbs) of d's Dim
// features: each divided by its largest absolute value over d, which
// keeps sparse rows sparse; with labels, d's labels min-max scaled as
// MinMax scales them (meant for regression). Measured on the first rows
// of a stream, it scales the later ones by the same peaks: a larger value
// then lies beyond [−1, 1], which a kernel takes as it comes.
func MaxAbs(d *Dataset, labels bool) (*prep.Scaling, error) {
	peak := make([]float32, d.Dim)
	for k, j := range d.Index {
		peak[j] = max(peak[j], float32(math.Abs(float64(d.Value[k]))))
	}
	var label *[2]float64
	if labels && d.Len() > 0 {
		label = &[2]float64{slices.Min(d.Labels), slices.Max(d.Labels)}
	}
	s, err := prep.NewMaxAbs(peak, label)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", d.Name, err)
	}
	return s, nil
}
