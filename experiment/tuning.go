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
	// Extend, when positive, makes Run try up to Extend values beyond
	// each end of each list where a selection lies on the edge of its
	// grid (PhaseAll only: the shards of a phase cannot agree on it).
	Extend int

	// Set by Report (PhaseAll and PhaseTables): the selections, the
	// held-out runs, and the selected parameters still on an edge of their
	// cell's grid.
	Selections map[Cell]Selection
	Reported   map[Cell][]*Record
	Edges      map[Cell][]Edge
	// Extensions, set by Run, lists the values tried beyond an edge.
	Extensions map[Cell][]Extension
}

// Extension is a value that Run tried beyond the edge of a cell's grid.
type Extension struct {
	Edge
	// Before and After are the cell's selection mean before and after the
	// value was tried; Taken reports that the value was then selected.
	Before, After float64
	Taken         bool
}

// Run runs the tuning through Execute with e. In PhaseAll with Extend, it
// runs the selection first, then, while a cell's selection lies on an
// edge of its grid (Grid.Edges) that has been extended fewer than Extend
// times, adds the value beyond (Grid.Extend: the cell gets its own grid,
// Plan.CellGrids) and runs the new points; a value it cannot run (a
// setting the learner refuses) ends that edge. Then the held-out runs
// and the report, as Execute does.
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
				exts[i].Taken = selectedValue(exts[i].Param, sel.Params) == exts[i].Next
			}
		}
	}
}

// extend adds, for every cell, the value beyond each edge of its selection
// that has been extended fewer than t.Extend times and whose points the
// learner accepts, and reports whether it added any.
func (t *Tuning) extend(sels map[Cell]Selection, tried map[Cell]map[Edge]int) bool {
	p := t.Plan
	added := false
	for _, c := range p.Cells {
		sel, ok := sels[c]
		if !ok || sel.Runs == 0 {
			continue
		}
		g := p.CellGrid(c).For(c.Algo, p.Task)
		grown := false
		for _, e := range g.Edges(c.Algo, p.Task, sel.Params, t.Data.Len()) {
			end := Edge{Param: e.Param, Low: e.Low}
			if tried[c] == nil {
				tried[c] = map[Edge]int{}
			}
			if tried[c][end] >= t.Extend || !t.runnable(c, g.Extend(e), e) {
				continue
			}
			tried[c][end]++
			g, grown = g.Extend(e), true
			t.Extensions[c] = append(t.Extensions[c], Extension{Edge: e, Before: sel.Mean, After: math.NaN()})
		}
		if grown {
			if p.CellGrids == nil {
				p.CellGrids = map[Cell]Grid{}
			}
			p.CellGrids[c], added = g, true
		}
	}
	return added
}

// runnable reports whether the learner of cell c accepts the points of
// grid g that hold the value edge e adds. A setting's validity does not
// depend on the data's dimension: the check builds learners of
// dimension 1, which cost nothing.
func (t *Tuning) runnable(c Cell, g Grid, e Edge) bool {
	p := t.Plan
	for _, params := range g.Points(c.Algo, p.Task) {
		if selectedValue(e.Param, params) != e.Next {
			continue
		}
		j := p.job(c, params, StreamSelect, 0, p.SelectSeed)
		cfg, err := jobConfig(j, t.Data)
		if err != nil {
			return false
		}
		cfg.Dim = 1
		if _, err := bogd.New(c.Algo, cfg); err != nil {
			return false
		}
	}
	return true
}

// selectedValue is the value of the list named param (Edge.Param) in p.
func selectedValue(param string, p Params) float64 {
	switch param {
	case "η":
		return p.Eta
	case "λT²":
		return p.LambdaT2
	case "λ":
		return p.AbsLambda
	case "γ":
		return p.Gamma
	case "C":
		return p.C
	}
	return p.Sigma
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
			if edges := t.Plan.CellGrid(c).Edges(c.Algo, t.Plan.Task, sel.Params, t.Data.Len()); len(edges) > 0 {
				t.Edges[c] = edges
			}
		}
	}
	return nil
}
