package experiment

import (
	"fmt"
	"slices"

	"github.com/bogd-project/bogd/dataset"
)

// Tuning is the studies' protocol on one dataset already in memory (the
// data of `bogdbench tune`): a Study whose every cell reads Data, and
// whose report is not a file but the selections and held-out runs, kept
// in the fields below for the caller. Through Execute it runs in phases
// and shards as the publications' studies do, and its PhaseTables reads
// the merged results of the shards: the same records give the same
// selections whether one process or many computed them.
type Tuning struct {
	Plan *Plan
	Data *dataset.Dataset

	// Set by Report (PhaseAll and PhaseTables).
	Selections map[Cell]Selection
	Reported   map[Cell][]*Record
}

// Plans is the tuning's one plan.
func (t *Tuning) Plans() []*Plan { return []*Plan{t.Plan} }

// DataFiles is empty: the data is in memory.
func (t *Tuning) DataFiles() []DataFile { return nil }

// LoadData gives Data to every cell's dataset.
func (t *Tuning) LoadData(func(string)) (map[string]*dataset.Dataset, error) {
	out := map[string]*dataset.Dataset{}
	for _, c := range t.Plan.Cells {
		out[c.Dataset] = t.Data
	}
	return out, nil
}

// ReportPaths is empty: the report stays in memory.
func (t *Tuning) ReportPaths() []string { return nil }

// Report keeps the selections and the held-out runs of rs, or returns an
// *IncompleteError naming the cells whose records are missing. Records of
// the dataset's name over another number of rows are an error: they were
// made from other data.
func (t *Tuning) Report(rs *ResultSet, _ bool) error {
	for rec := range rs.All() {
		ours := slices.ContainsFunc(t.Plan.Cells, func(c Cell) bool { return c.Dataset == rec.Dataset })
		if ours && rec.Rows != t.Data.Len() {
			return fmt.Errorf("the results hold passes over %d rows of %s, the data has %d: another data set", rec.Rows, rec.Dataset, t.Data.Len())
		}
	}
	sels, err := t.Plan.Selections(rs)
	if err != nil {
		return err
	}
	reported, err := t.Plan.Reported(sels, rs)
	if err != nil {
		return err
	}
	t.Selections, t.Reported = sels, reported
	return nil
}
