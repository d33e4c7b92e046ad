package paper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
)

// Run runs the phase(s) of opt and, for PhaseAll and PhaseTables, writes
// the report. The report's files (paper.md, plots/) replace older ones only
// with opt.Resume or for PhaseTables, whose whole job they are; otherwise
// existing ones stop the run before it starts.
func Run(ctx context.Context, opt *Options) (stats experiment.Stats, err error) {
	report := opt.Phase == PhaseAll || opt.Phase == PhaseTables
	replace := opt.Resume || opt.Phase == PhaseTables
	if report && !replace {
		if err := experiment.CheckFree(opt.reportPaths()); err != nil {
			return stats, err
		}
	}
	var rs *experiment.ResultSet
	if opt.Phase == PhaseTables {
		rs = experiment.NewResultSet()
		if err := opt.loadInto(rs, opt.Results); err != nil {
			return stats, err
		}
	} else {
		st, err := opt.openStore()
		if err != nil {
			return stats, err
		}
		defer func() {
			if cerr := st.Close(); err == nil {
				err = cerr
			}
		}()
		if stats, err = opt.compute(ctx, st); err != nil {
			return stats, err
		}
		rs = st.ResultSet
	}
	if !report {
		return stats, nil
	}
	tables, err := Collect(opt, rs)
	if err != nil {
		return stats, err
	}
	return stats, WriteReport(opt, tables, replace)
}

// loadInto adds the records of the read-only files and of first, if given.
func (o *Options) loadInto(rs *experiment.ResultSet, first ...string) error {
	for _, p := range append(first, o.Read...) {
		if _, err := rs.Load(p, o.warn); err != nil {
			return err
		}
	}
	return nil
}

func (o *Options) warn(msg string) {
	if o.Warn != nil {
		o.Warn(msg)
	}
}

// openStore checks that the dataset files exist (cheap) before it opens
// the results file, so that a run that cannot start leaves no file behind.
func (o *Options) openStore() (*experiment.Store, error) {
	if err := o.checkDataFiles(); err != nil {
		return nil, err
	}
	if !o.Resume {
		if err := experiment.CheckFree([]string{o.Results}); err != nil {
			return nil, err
		}
	}
	st, err := experiment.OpenStore(o.Results, o.Resume, o.warn)
	if err != nil {
		return nil, err
	}
	if err := o.loadInto(st.ResultSet); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// compute runs the select and report phases that opt asks for.
func (o *Options) compute(ctx context.Context, st *experiment.Store) (experiment.Stats, error) {
	var total experiment.Stats
	data, err := o.loadData()
	if err != nil {
		return total, err
	}
	for rec := range st.All() {
		if d, ok := data[rec.Dataset]; ok && d.Len() != rec.Rows {
			return total, fmt.Errorf("results for %s were made from %d rows, but the dataset file has %d: use another results file", rec.Dataset, rec.Rows, d.Len())
		}
	}
	plan := o.Plan()
	runner := experiment.Runner{Store: st, Data: data, Workers: o.Workers, Progress: o.Progress}
	if o.Phase == PhaseAll || o.Phase == PhaseSelect {
		s, err := runner.Run(ctx, PhaseSelect, o.Shard.Of(plan.SelectJobs()))
		if total = total.Add(s); err != nil {
			return total, err
		}
	}
	if o.Phase == PhaseAll || o.Phase == PhaseReport {
		sels, err := plan.Selections(st.ResultSet)
		if err != nil {
			return total, err
		}
		s, err := runner.Run(ctx, PhaseReport, o.Shard.Of(plan.ReportJobs(sels)))
		if total = total.Add(s); err != nil {
			return total, err
		}
	}
	return total, nil
}

// ErrMissingData marks a run whose dataset files are not all there.
var ErrMissingData = errors.New("missing dataset files")

// checkDataFiles fails with the names of every missing dataset file.
func (o *Options) checkDataFiles() error {
	var missing []string
	for _, d := range o.Datasets {
		path := filepath.Join(o.DatasetsDir, d.File)
		if _, err := os.Stat(path); err != nil {
			missing = append(missing, fmt.Sprintf("%s (the paper's %s)", path, d.Name))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s", ErrMissingData, strings.Join(missing, ", "))
	}
	return nil
}

// loadData reads the datasets concurrently. Each gets at least its
// paper's dimension; a file of another size than the paper's is a warning.
func (o *Options) loadData() (map[string]*dataset.Dataset, error) {
	out := map[string]*dataset.Dataset{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(o.Datasets))
	for i, d := range o.Datasets {
		wg.Go(func() {
			data, err := dataset.ReadFile(filepath.Join(o.DatasetsDir, d.File), dataset.Options{Task: dataset.Binary})
			if err != nil {
				errs[i] = err
				return
			}
			data.Dim = max(data.Dim, d.Features)
			mu.Lock()
			defer mu.Unlock()
			if data.Len() != d.Rows || data.Dim > d.Features {
				o.warn(fmt.Sprintf("%s has %d rows and %d features, the paper's %s %d and %d",
					d.File, data.Len(), data.Dim, d.Name, d.Rows, d.Features))
			}
			out[d.Name] = data
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
