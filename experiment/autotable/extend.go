package autotable

import (
	"context"
	"slices"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/task"
)

// MaxExtensions bounds the rounds of grid extension: a selection on the
// edge of its grid (η, λ, γ, C or σ at the smallest or largest value tried)
// is tried again with that value pushed one step further (η, λ, γ and C
// ten times, σ twice), and again while the selection moves to the new
// edge, at most this many times: the tuned learners are not held back by
// the grid's bounds (issue 20 asks the same of bogdbench tune).
const MaxExtensions = 3

// extension is the grid a cell's selection has explored, the grid's own
// values and those added beyond its edges, per parameter.
type extension struct {
	grid     experiment.Grid
	extended []string // the parameters extended, for the report
}

// newExtension starts from the plan's grid.
func newExtension(g experiment.Grid) *extension {
	g.Eta, g.AbsLambda, g.Gamma, g.C, g.Sigma = slices.Clone(g.Eta), slices.Clone(g.AbsLambda), slices.Clone(g.Gamma), slices.Clone(g.C), slices.Clone(g.Sigma)
	return &extension{grid: g}
}

// local returns the grid of the selected point p of algorithm a in task t
// and of the points one step beyond every edge p is on (the explored
// values extended by them), and whether p is on an edge at all.
func (x *extension) local(p experiment.Params, a bogd.Algorithm, t task.Task) (experiment.Grid, bool) {
	read := a.Params(t)
	g := experiment.Grid{Name: x.grid.Name + "-extended", Sigma: []float64{p.Sigma}}
	edge := false
	// beyond returns [v] or, when v is at an end of the explored values
	// (at least two; with upOnly, the largest), [v, the next value past
	// it], and records it.
	beyond := func(name string, v float64, explored *[]float64, factor float64, upOnly bool) []float64 {
		if len(*explored) < 2 {
			return []float64{v}
		}
		var next float64
		switch {
		case v == slices.Max(*explored):
			next = v * factor
		case v == slices.Min(*explored) && !upOnly:
			next = v / factor
		default:
			return []float64{v}
		}
		edge = true
		*explored = append(*explored, next)
		if !slices.Contains(x.extended, name) {
			x.extended = append(x.extended, name)
		}
		return []float64{v, next}
	}
	if read.Has(bogd.ParamEta) {
		g.Eta = beyond("η", p.Eta, &x.grid.Eta, 10, false)
	}
	if read.Has(bogd.ParamLambda) {
		// λ·T² values are λ ≈ 0, below every λ given directly: only the
		// largest direct λ is an edge to push.
		if p.AbsLambda != 0 {
			g.AbsLambda = beyond("λ", p.AbsLambda, &x.grid.AbsLambda, 10, true)
		} else {
			g.LambdaT2 = []float64{p.LambdaT2}
		}
	}
	if read.Has(bogd.ParamGamma) {
		g.Gamma = beyond("γ", p.Gamma, &x.grid.Gamma, 10, false)
	}
	if read.Has(bogd.ParamC) {
		g.C = beyond("C", p.C, &x.grid.C, 10, false)
	}
	g.Sigma = beyond("σ", p.Sigma, &x.grid.Sigma, 2, false)
	for i := range g.Sigma {
		g.Sigma[i] = significant(g.Sigma[i], 3)
	}
	return g, edge
}

// extend runs the rounds of grid extension over the selections sels of
// the cells of plans (updated in place), and returns what each cell
// extended and the jobs it ran.
func extend(ctx context.Context, runner *experiment.Runner, rs *experiment.ResultSet, plans []*experiment.Plan, sels map[*experiment.Plan]map[experiment.Cell]experiment.Selection) (map[*experiment.Plan]map[experiment.Cell][]string, []experiment.Job, error) {
	type cellOf struct {
		plan *experiment.Plan
		cell experiment.Cell
	}
	explored := map[cellOf]*extension{}
	for _, plan := range plans {
		for _, c := range plan.Cells {
			explored[cellOf{plan, c}] = newExtension(plan.Grid)
		}
	}
	var all []experiment.Job
	for range MaxExtensions {
		var jobs []experiment.Job
		locals := map[cellOf]*experiment.Plan{}
		for _, plan := range plans {
			for _, c := range plan.Cells {
				k := cellOf{plan, c}
				g, edge := explored[k].local(sels[plan][c].Params, c.Algo, plan.Task)
				if !edge {
					continue
				}
				local := *plan
				local.Cells, local.Grid, local.Widths = []experiment.Cell{c}, g, nil
				locals[k] = &local
				jobs = append(jobs, local.SelectJobs()...)
			}
		}
		if len(jobs) == 0 {
			break
		}
		if _, err := runner.Run(ctx, experiment.PhaseSelect, jobs); err != nil {
			return nil, nil, err
		}
		all = append(all, jobs...)
		for k, local := range locals {
			s, missing := local.Select(k.cell, rs)
			if missing == 0 && s.Mean < sels[k.plan][k.cell].Mean {
				sels[k.plan][k.cell] = s
			}
		}
	}
	out := map[*experiment.Plan]map[experiment.Cell][]string{}
	for k, x := range explored {
		if out[k.plan] == nil {
			out[k.plan] = map[experiment.Cell][]string{}
		}
		out[k.plan][k.cell] = x.extended
	}
	return out, all, nil
}
