package paper

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/task"
)

// Run runs the phase(s) of opt and, for PhaseAll and PhaseTables, writes
// the report (see experiment.Execute).
func Run(ctx context.Context, opt *Options) (experiment.Stats, error) {
	return experiment.Execute(ctx, &opt.Execution, opt)
}

// Plans is the study's one plan (experiment.Study).
func (o *Options) Plans() []*experiment.Plan { return []*experiment.Plan{o.Plan()} }

// DataFiles lists the dataset files of the options.
func (o *Options) DataFiles() []experiment.DataFile {
	var out []experiment.DataFile
	for _, d := range o.Datasets {
		out = append(out, experiment.DataFile{Path: filepath.Join(o.DatasetsDir, d.File), What: "the paper's " + d.Name})
	}
	return out
}

// LoadData reads the datasets concurrently. Each gets at least its
// paper's dimension; a file of another size than the paper's is a warning.
func (o *Options) LoadData(warn func(string)) (map[string]*dataset.Dataset, error) {
	var names []string
	for _, d := range o.Datasets {
		names = append(names, d.Name)
	}
	return experiment.LoadEach(names, func(name string) (*dataset.Dataset, error) {
		d, _ := Lookup(name)
		data, err := dataset.ReadFile(filepath.Join(o.DatasetsDir, d.File), dataset.Options{Task: task.Binary})
		if err != nil {
			return nil, err
		}
		data.Dim = max(data.Dim, d.Features)
		if data.Len() != d.Rows || data.Dim > d.Features {
			warn(fmt.Sprintf("%s has %d rows and %d features, the paper's %s %d and %d",
				d.File, data.Len(), data.Dim, d.Name, d.Rows, d.Features))
		}
		return data, nil
	})
}

// Report collects the tables and writes the report.
func (o *Options) Report(rs *experiment.ResultSet, replace bool) error {
	tables, err := Collect(o, rs)
	if err != nil {
		return err
	}
	return WriteReport(o, tables, replace)
}
