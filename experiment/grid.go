package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/task"
)

// Params is one point of a parameter grid; parameters an algorithm does
// not read are 0.
type Params struct {
	Eta, LambdaT2, Gamma float64 // λ·T² rather than λ: one grid serves datasets of any size T
	// AbsLambda is λ itself, for grids that give it directly (LambdaT2
	// is then 0): a rule's own scale, such as the toolbox's λ = 10⁻⁵.
	AbsLambda float64
	C         float64 // BPA-S's aggressiveness
	Sigma     float64 // the kernel width, when the grid lists widths (0: the plan's)
}

// Describe renders the parameters algorithm a reads in task t, and σ when
// the point sets it: "η=0.5, λT²=1, γ=4", "-" for none.
func (p Params) Describe(a bogd.Algorithm, t task.Task) string {
	read := a.Params(t)
	var parts []string
	if read.Has(bogd.ParamEta) {
		parts = append(parts, fmt.Sprintf("η=%g", p.Eta))
	}
	if read.Has(bogd.ParamLambda) {
		if p.AbsLambda != 0 {
			parts = append(parts, fmt.Sprintf("λ=%g", p.AbsLambda))
		} else {
			parts = append(parts, fmt.Sprintf("λT²=%g", p.LambdaT2))
		}
	}
	if read.Has(bogd.ParamGamma) {
		parts = append(parts, fmt.Sprintf("γ=%g", p.Gamma))
	}
	if read.Has(bogd.ParamC) {
		parts = append(parts, fmt.Sprintf("C=%g", p.C))
	}
	if p.Sigma != 0 {
		parts = append(parts, fmt.Sprintf("σ=%g", p.Sigma))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// Grid is the parameter grid of a selection phase: the values of every
// parameter it varies. A parameter an algorithm reads must have values
// (Plan.Check).
type Grid struct {
	Name                 string
	LambdaT2, Eta, Gamma []float64
	AbsLambda            []float64 // λ given directly, tried after the LambdaT2 values
	C                    []float64
	Sigma                []float64 // kernel widths; none: the plan's σ for every point
	// Defaults makes the lists of every algorithm also hold its own
	// defaults (DefaultParams), so that a selection is never worse, on
	// the selection runs, than the settings a user gets without choosing.
	Defaults bool
}

// DefaultParams are the settings of algorithm a in task t that bogdbench
// train uses unless told otherwise: bogd.Defaults's η, γ and C, and λ =
// 1/T² (λ·T² = 1), except BSGD-merge's Pegasos λ = 10⁻⁴.
func DefaultParams(a bogd.Algorithm, t task.Task) Params {
	d := bogd.Defaults(a, t)
	p := Params{Eta: d.Eta, Gamma: d.Gamma, C: d.C, LambdaT2: 1}
	if a == bogd.BSGDMerge {
		p.LambdaT2, p.AbsLambda = 0, d.Lambda
	}
	return p
}

// For returns the grid as algorithm a in task t searches it: with its
// defaults added to the lists of the parameters it reads when g.Defaults
// is set (each where it keeps an ascending list ascending), else g.
func (g Grid) For(a bogd.Algorithm, t task.Task) Grid {
	if !g.Defaults {
		return g
	}
	read, d := a.Params(t), DefaultParams(a, t)
	if read.Has(bogd.ParamEta) {
		g.Eta = withValue(g.Eta, d.Eta)
	}
	if read.Has(bogd.ParamGamma) {
		g.Gamma = withValue(g.Gamma, d.Gamma)
	}
	if read.Has(bogd.ParamC) {
		g.C = withValue(g.C, d.C)
	}
	if read.Has(bogd.ParamLambda) && d.AbsLambda != 0 {
		g.AbsLambda = withValue(g.AbsLambda, d.AbsLambda)
	} else if read.Has(bogd.ParamLambda) {
		g.LambdaT2 = withValue(g.LambdaT2, d.LambdaT2)
	}
	g.Defaults = false
	return g
}

// withValue returns a copy of list with v in it: where it keeps an
// ascending list ascending, else at the end.
func withValue(list []float64, v float64) []float64 {
	if slices.Contains(list, v) {
		return list
	}
	out := slices.Clone(list)
	if slices.IsSorted(list) {
		i, _ := slices.BinarySearch(list, v)
		return slices.Insert(out, i, v)
	}
	return append(out, v)
}

// Missing names the parameters algorithm a reads in task t that the grid
// (with its defaults, For) has no value of: a grid point needs them all.
func (g Grid) Missing(a bogd.Algorithm, t task.Task) []string {
	g = g.For(a, t)
	read := a.Params(t)
	var out []string
	for _, l := range []struct {
		param bogd.Param
		name  string
		empty bool
	}{
		{bogd.ParamLambda, "λ", len(g.LambdaT2)+len(g.AbsLambda) == 0},
		{bogd.ParamEta, "η", len(g.Eta) == 0},
		{bogd.ParamGamma, "γ", len(g.Gamma) == 0},
		{bogd.ParamC, "C", len(g.C) == 0},
	} {
		if read.Has(l.param) && l.empty {
			out = append(out, l.name)
		}
	}
	return out
}

// Pow2s returns 2^lo, …, 2^hi.
func Pow2s(lo, hi int) []float64 {
	var out []float64
	for k := lo; k <= hi; k++ {
		out = append(out, math.Ldexp(1, k))
	}
	return out
}

// Points lists the grid points for algorithm a in task t, in the order
// that breaks ties of the selection: λ (the λ·T² values, then the direct
// ones), then η, γ, C and σ, each in the order of its list. A point varies
// exactly the parameters a reads in t (Algorithm.Params), and σ for every
// algorithm when the grid lists widths, but Auto, which weighs widths
// around the plan's σ itself; without either there is one point, all
// zero.
func (g Grid) Points(a bogd.Algorithm, t task.Task) []Params {
	if a == bogd.Auto {
		return []Params{{}}
	}
	g = g.For(a, t)
	read := a.Params(t)
	lambdas := []Params{{}}
	if read.Has(bogd.ParamLambda) {
		lambdas = nil
		for _, l := range g.LambdaT2 {
			lambdas = append(lambdas, Params{LambdaT2: l})
		}
		for _, l := range g.AbsLambda {
			lambdas = append(lambdas, Params{AbsLambda: l})
		}
	}
	values := func(p bogd.Param, list []float64) []float64 {
		if !read.Has(p) {
			return []float64{0}
		}
		return list
	}
	sigmas := g.Sigma
	if len(sigmas) == 0 {
		sigmas = []float64{0}
	}
	var out []Params
	for _, l := range lambdas {
		for _, eta := range values(bogd.ParamEta, g.Eta) {
			for _, gamma := range values(bogd.ParamGamma, g.Gamma) {
				for _, c := range values(bogd.ParamC, g.C) {
					for _, s := range sigmas {
						p := l
						p.Eta, p.Gamma, p.C, p.Sigma = eta, gamma, c, s
						out = append(out, p)
					}
				}
			}
		}
	}
	return out
}

// Describe renders the grid for a report: "λ ∈ {…} / T², η ∈ {…}, γ ∈
// {…}", with the lists the grid has.
func (g Grid) Describe() string {
	set := func(xs []float64) string {
		var parts []string
		for _, x := range xs {
			parts = append(parts, fmt.Sprintf("%g", x))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	var parts []string
	switch {
	case len(g.LambdaT2) > 0 && len(g.AbsLambda) > 0:
		parts = append(parts, fmt.Sprintf("λ ∈ %s / T² ∪ %s", set(g.LambdaT2), set(g.AbsLambda)))
	case len(g.LambdaT2) > 0:
		parts = append(parts, fmt.Sprintf("λ ∈ %s / T²", set(g.LambdaT2)))
	case len(g.AbsLambda) > 0:
		parts = append(parts, fmt.Sprintf("λ ∈ %s", set(g.AbsLambda)))
	}
	for _, l := range []struct {
		name   string
		values []float64
	}{{"η", g.Eta}, {"γ", g.Gamma}, {"C", g.C}, {"σ", g.Sigma}} {
		if len(l.values) > 0 {
			parts = append(parts, fmt.Sprintf("%s ∈ %s", l.name, set(l.values)))
		}
	}
	return strings.Join(parts, ", ")
}
