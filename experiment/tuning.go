package experiment

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/bogd-project/bogd/bogd"
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
	// Extend, when positive, makes Run try up to Extend points beyond
	// each end of each parameter where a selection lies on the edge of
	// what its cell tried (PhaseAll only: the shards of a phase cannot
	// agree on it).
	Extend int

	// Set by Report (PhaseAll and PhaseTables): the selections, the
	// held-out runs, and the selected parameters still on an edge of what
	// their cell tried.
	Selections map[Cell]Selection
	Reported   map[Cell][]*Record
	Edges      map[Cell][]Edge
	// Extensions, set by Run, lists the values tried beyond an edge.
	Extensions map[Cell][]Extension
}

// Extension is a point that Run tried beyond the edge of a cell's
// selection.
type Extension struct {
	Edge
	Point Params // the selected point with Edge's parameter at Next
	// Before and After are the cell's selection mean before and after the
	// point was tried; Taken reports that it was then selected.
	Before, After float64
	Taken         bool
}

// Run runs the tuning through Execute with e. In PhaseAll with Extend, it
// runs the selection first, then, while a cell's selection lies on an
// edge of the points it tried (Edges) that has been extended fewer than
// Extend times, adds the point beyond (Edge.Apply: the selected point with
// that one parameter moved, Plan.Extra) and runs it: a search along each
// parameter from the best point, where a grid of every combination would
// multiply the cost. A point the learner refuses (an invalid setting)
// ends that edge. Then the held-out runs and the report, as Execute does.
func (t *Tuning) Run(ctx context.Context, e *Execution) (Stats, error) {
	if e.Phase != PhaseAll || t.Extend <= 0 {
		return Execute(ctx, e, t)
	}
	t.Extensions = map[Cell][]Extension{}
	tried := map[Cell]map[Edge]int{} // extensions per cell, parameter and end (Value and Next zero)
	step := *e
	step.Phase = PhaseSelect
	var total Stats
	for {
		stats, err := Execute(ctx, &step, t)
		if total = total.Add(stats); err != nil {
			return total, err
		}
		step.Resume = true
		rs := NewResultSet()
		if err := step.loadInto(rs, step.Results); err != nil {
			return total, err
		}
		sels, err := t.Plan.Selections(rs)
		if err != nil {
			return total, err
		}
		t.settle(sels)
		if !t.extend(sels, tried) {
			break
		}
	}
	all := *e
	all.Resume = true
	stats, err := Execute(ctx, &all, t)
	return total.Add(stats), err
}

// settle completes the extensions of the last round with the selections
// that followed them.
func (t *Tuning) settle(sels map[Cell]Selection) {
	for c, exts := range t.Extensions {
		sel, ok := sels[c]
		for i := range exts {
			if ok && math.IsNaN(exts[i].After) {
				exts[i].After = sel.Mean
				exts[i].Taken = sel.Params == exts[i].Point
			}
		}
	}
}

// extend adds, for every cell, the point beyond each edge of its
// selection that has been extended fewer than t.Extend times and that
// the learner accepts, and reports whether it added any.
func (t *Tuning) extend(sels map[Cell]Selection, tried map[Cell]map[Edge]int) bool {
	p := t.Plan
	added := false
	for _, c := range p.Cells {
		sel, ok := sels[c]
		if !ok || sel.Runs == 0 {
			continue
		}
		for _, e := range Edges(p.Points(c), sel.Params, c.Algo, p.Task, t.Data.Len()) {
			end := Edge{Param: e.Param, Low: e.Low}
			if tried[c] == nil {
				tried[c] = map[Edge]int{}
			}
			point := e.Apply(sel.Params)
			if tried[c][end] >= t.Extend || !t.runnable(c, point) {
				continue
			}
			tried[c][end]++
			if p.Extra == nil {
				p.Extra = map[Cell][]Params{}
			}
			p.Extra[c] = append(p.Extra[c], point)
			t.Extensions[c] = append(t.Extensions[c], Extension{Edge: e, Point: point, Before: sel.Mean, After: math.NaN()})
			added = true
		}
	}
	return added
}

// runnable reports whether the learner of cell c accepts the setting of
// point. A setting's validity does not depend on the data's dimension:
// the check builds a learner of dimension 1, which costs nothing.
func (t *Tuning) runnable(c Cell, point Params) bool {
	cfg, err := jobConfig(t.Plan.job(c, point, StreamSelect, 0, t.Plan.SelectSeed), t.Data)
	if err != nil {
		return false
	}
	cfg.Dim = 1
	_, err = bogd.New(c.Algo, cfg)
	return err == nil
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
	t.Selections, t.Reported, t.Edges = sels, reported, map[Cell][]Edge{}
	for c, sel := range sels {
		if sel.Runs > 0 {
			if edges := Edges(t.Plan.Points(c), sel.Params, c.Algo, t.Plan.Task, t.Data.Len()); len(edges) > 0 {
				t.Edges[c] = edges
			}
		}
	}
	return nil
}
