package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/bogd-project/bogd/dataset"
)

// Phases of a study's run: both computing phases and the report, or one
// of them.
const (
	PhaseAll    = "all"
	PhaseSelect = "select"
	PhaseReport = "report"
	PhaseTables = "tables"
)

// Study is a reproduction as Execute runs it: its job plans, its data and
// its report. Each publication's package (experiment/paper,
// experiment/lsokl) implements it.
type Study interface {
	// Plans lists the job plans; a job that several plans share runs once.
	Plans() []*Plan
	// DataFiles lists the files the computing phases read.
	DataFiles() []DataFile
	// LoadData reads the datasets, by Cell.Dataset, sending warnings to
	// warn (safe for concurrent use).
	LoadData(warn func(string)) (map[string]*dataset.Dataset, error)
	// ReportPaths lists the files Report may write.
	ReportPaths() []string
	// Report writes the report of the results: all of every plan's
	// selections and reported runs must be there (else an
	// *IncompleteError). Unless replace, existing files are an
	// *ExistsError and nothing is written.
	Report(rs *ResultSet, replace bool) error
}

// DataFile is a file a study reads, with what messages call it.
type DataFile struct {
	Path string
	What string // "the paper's german"
}

// Execution is how and where a study runs: which phases, which slice of
// the jobs on how many workers, and the results files.
type Execution struct {
	Phase    string
	Shard    Shard
	Workers  int
	Results  string   // results file, appended one line per job (PhaseTables: read, if given)
	Resume   bool     // continue Results if it exists; else it must not
	Read     []string // extra read-only results files
	Progress Progress // nil: none
	Warn     func(string)
}

// ErrMissingData marks a run whose dataset files are not all there.
var ErrMissingData = errors.New("missing dataset files")

// Execute runs the phase(s) of e for study s and, for PhaseAll and
// PhaseTables, writes the report. The report's files replace older ones
// only with e.Resume or for PhaseTables, whose whole job they are;
// otherwise existing ones stop the run before it starts.
func Execute(ctx context.Context, e *Execution, s Study) (stats Stats, err error) {
	for _, p := range s.Plans() {
		if err := p.Check(); err != nil {
			return stats, err
		}
	}
	report := e.Phase == PhaseAll || e.Phase == PhaseTables
	replace := e.Resume || e.Phase == PhaseTables
	if report && !replace {
		if err := CheckFree(s.ReportPaths()); err != nil {
			return stats, err
		}
	}
	var rs *ResultSet
	if e.Phase == PhaseTables {
		rs = NewResultSet()
		if err := e.loadInto(rs, e.Results); err != nil {
			return stats, err
		}
	} else {
		st, err := e.openStore(s)
		if err != nil {
			return stats, err
		}
		defer func() {
			if cerr := st.Close(); err == nil {
				err = cerr
			}
		}()
		if stats, err = e.compute(ctx, s, st); err != nil {
			return stats, err
		}
		rs = st.ResultSet
	}
	if !report {
		return stats, nil
	}
	return stats, s.Report(rs, replace)
}

// loadInto adds the records of the read-only files and of first, if given
// (an empty name is none: PhaseTables may read only the Read files).
func (e *Execution) loadInto(rs *ResultSet, first ...string) error {
	for _, p := range append(first, e.Read...) {
		if p == "" {
			continue
		}
		if _, err := rs.Load(p, e.warn); err != nil {
			return err
		}
	}
	return nil
}

func (e *Execution) warn(msg string) {
	if e.Warn != nil {
		e.Warn(msg)
	}
}

// openStore checks that the dataset files exist (cheap) before it opens
// the results file, so that a run that cannot start leaves no file behind.
func (e *Execution) openStore(s Study) (*Store, error) {
	var missing []string
	for _, f := range s.DataFiles() {
		if _, err := os.Stat(f.Path); err != nil {
			missing = append(missing, fmt.Sprintf("%s (%s)", f.Path, f.What))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrMissingData, strings.Join(missing, ", "))
	}
	if !e.Resume {
		if err := CheckFree([]string{e.Results}); err != nil {
			return nil, err
		}
	}
	st, err := OpenStore(e.Results, e.Resume, e.warn)
	if err != nil {
		return nil, err
	}
	if err := e.loadInto(st.ResultSet); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// compute runs the select and report phases that e asks for.
func (e *Execution) compute(ctx context.Context, s Study, st *Store) (Stats, error) {
	var total Stats
	var mu sync.Mutex
	data, err := s.LoadData(func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		e.warn(msg)
	})
	if err != nil {
		return total, err
	}
	for rec := range st.All() {
		if d, ok := data[rec.Dataset]; ok && d.Len() != rec.Rows {
			return total, fmt.Errorf("results for %s were made from %d rows, but the dataset file has %d: use another results file", rec.Dataset, rec.Rows, d.Len())
		}
	}
	plans := s.Plans()
	runner := Runner{Store: st, Data: data, Workers: e.Workers, Progress: e.Progress}
	if !slices.ContainsFunc(plans, func(p *Plan) bool { return !p.KeepGoing }) {
		runner.Failed = func(j Job, err error) {
			for _, p := range plans {
				if slices.Contains(p.Cells, j.Cell) {
					p.fail(j.Cell, err)
				}
			}
		}
	}
	if e.Phase == PhaseAll || e.Phase == PhaseSelect {
		var jobs [][]Job
		for _, p := range plans {
			jobs = append(jobs, p.SelectJobs())
		}
		stats, err := runner.Run(ctx, PhaseSelect, e.Shard.Of(union(plans[0].Order, jobs)))
		if total = total.Add(stats); err != nil {
			return total, err
		}
	}
	if e.Phase == PhaseAll || e.Phase == PhaseReport {
		var jobs [][]Job
		for _, p := range plans {
			sels, err := p.Selections(st.ResultSet)
			if err != nil {
				return total, err
			}
			jobs = append(jobs, p.ReportJobs(sels))
		}
		stats, err := runner.Run(ctx, PhaseReport, e.Shard.Of(union(plans[0].Order, jobs)))
		if total = total.Add(stats); err != nil {
			return total, err
		}
	}
	return total, nil
}

// union merges job lists into one in key order, each job once.
func union(order Ranking, lists [][]Job) []Job {
	var all []Job
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.SortStableFunc(all, func(a, b Job) int { return order.Compare(a.Key, b.Key) })
	return slices.CompactFunc(all, func(a, b Job) bool { return a.Key == b.Key })
}

// Effort counts the passes of plans (their selection and reported jobs,
// each once) and sums their seconds, from the records of rs: what the
// results cost to compute. Every plan's selection must be complete.
func Effort(plans []*Plan, rs *ResultSet) (passes int, seconds float64, err error) {
	var lists [][]Job
	for _, p := range plans {
		sels, err := p.Selections(rs)
		if err != nil {
			return 0, 0, err
		}
		lists = append(lists, p.SelectJobs(), p.ReportJobs(sels))
	}
	for _, j := range union(plans[0].Order, lists) {
		if rec, ok := rs.Get(j.Key); ok {
			passes++
			seconds += rec.Seconds
		}
	}
	return passes, seconds, nil
}

// LoadEach calls load for every name concurrently and collects the
// datasets by name, stored compactly (Dataset.Compact): they are held for
// the whole study. The error joins those of every load.
func LoadEach(names []string, load func(name string) (*dataset.Dataset, error)) (map[string]*dataset.Dataset, error) {
	out := map[string]*dataset.Dataset{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, name := range names {
		wg.Go(func() {
			d, err := load(name)
			if err != nil {
				errs[i] = err
				return
			}
			d = d.Compact()
			mu.Lock()
			defer mu.Unlock()
			out[name] = d
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
