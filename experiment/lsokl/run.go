package lsokl

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/task"
)

// Run runs the phase(s) of opt and, for the phases all and tables, writes
// the report (see experiment.Execute).
func Run(ctx context.Context, opt *Options) (experiment.Stats, error) {
	return experiment.Execute(ctx, &opt.Execution, opt)
}

// DataFiles lists the dataset files of the options.
func (o *Options) DataFiles() []experiment.DataFile {
	var out []experiment.DataFile
	for _, d := range o.Datasets {
		out = append(out, experiment.DataFile{Path: filepath.Join(o.DatasetsDir, d.File), What: fmt.Sprintf("Table %d's %s", o.Table.Number, d.Name)})
	}
	return out
}

// LoadData reads the datasets concurrently, as the table's task, min-max
// scaled where the table says. A file that is not the one the table knows
// (rows, the median distance its σ candidates come from, a scaling that
// should change nothing) is an error.
func (o *Options) LoadData(warn func(string)) (map[string]*dataset.Dataset, error) {
	var names []string
	for _, d := range o.Datasets {
		names = append(names, d.Name)
		if d.PaperScale != 0 && d.PaperScaling != "" && slices.Contains(o.widths(), PaperScaleWidth) {
			names = append(names, d.paperCopy())
		}
	}
	return experiment.LoadEach(names, func(name string) (*dataset.Dataset, error) {
		d, _ := o.Table.datasetOf(name)
		path := filepath.Join(o.DatasetsDir, d.File)
		data, err := dataset.ReadFile(path, dataset.Options{Task: o.Table.Task, Warn: warn})
		if err != nil {
			return nil, err
		}
		if name != d.Name { // the paper's copy: scaled as it was
			scaled, _, err := data.ScaleMinMax(o.Table.Task == task.Regression)
			return scaled, err
		}
		if data.Len() != d.Rows {
			return nil, fmt.Errorf("%s has %d rows, Table %d's %s %d: another file", path, data.Len(), o.Table.Number, d.Name, d.Rows)
		}
		if o.Table.Scaling == experiment.ScalingMinMax {
			scaled, _, err := data.ScaleMinMax(true)
			if err != nil {
				return nil, err
			}
			same := slices.Equal(scaled.Value, data.Value) && slices.Equal(scaled.Index, data.Index) && slices.Equal(scaled.Labels, data.Labels)
			if d.Prescaled && !same {
				return nil, fmt.Errorf("%s should be min-max scaled already, but scaling it changes it", path)
			}
			data = scaled
		}
		if m := experiment.MedianDistance(data, MedianSample, MedianSeed); math.Abs(m-d.Median) > 1e-9*d.Median {
			return nil, fmt.Errorf("%s: the median distance of its rows is %v, the σ candidates were made for %v: another file", path, m, d.Median)
		}
		return data, nil
	})
}
