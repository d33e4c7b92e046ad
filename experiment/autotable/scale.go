package autotable

import (
	"fmt"
	"math"
	"slices"

	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/task"
)

// MaxAbs returns a copy of d with every feature divided by its largest
// absolute value over d (a constant-zero feature stays 0), which keeps
// sparse rows sparse and puts every feature in [−1, 1], and, for
// regression, the labels min-max scaled to [0, 1] (as the LSOKL study and
// `bogdbench --scale minmax` scale them), so that the MSE of every data set
// is on one scale. It is the default scaling the table runs every learner
// on: features with ranges a thousand times apart would otherwise let one
// of them decide every distance.
func MaxAbs(d *dataset.Dataset) (*dataset.Dataset, error) {
	peak := make([]float64, d.Dim)
	for k, j := range d.Index {
		peak[j] = max(peak[j], math.Abs(float64(d.Value[k])))
	}
	out := *d
	out.Labels = slices.Clone(d.Labels)
	out.Classes = slices.Clone(d.Classes)
	out.RowPtr = slices.Clone(d.RowPtr)
	out.Index = slices.Clone(d.Index)
	out.Value = make([]float32, len(d.Value))
	for k, j := range d.Index {
		out.Value[k] = float32(float64(d.Value[k]) / peak[j])
	}
	if d.Task != task.Regression || d.Len() == 0 {
		return &out, nil
	}
	lo, hi := slices.Min(d.Labels), slices.Max(d.Labels)
	if !(hi > lo) {
		return nil, fmt.Errorf("%s: every label is %v: nothing to regress", d.Name, lo)
	}
	for i, y := range d.Labels {
		out.Labels[i] = (y - lo) / (hi - lo)
	}
	return &out, nil
}
