package experiment

import (
	"fmt"
	"slices"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/task"
)

// Edge is a parameter whose selected value is the smallest or the largest
// that its grid tried: the best value may lie beyond, where Next is.
type Edge struct {
	// Param names the list, as Params.Describe does: "η", "λT²" (λ·T²),
	// "λ" (λ given directly), "γ", "C" or "σ".
	Param string
	Value float64 // the selected value, as its list holds it
	Low   bool    // the smallest value tried (else the largest)
	// Next is the value to try beyond: one step of the list's spacing at
	// that end (a factor of at least 2 and at most 10).
	Next float64
}

func (e Edge) String() string {
	end := "largest"
	if e.Low {
		end = "smallest"
	}
	return fmt.Sprintf("%s = %g is the %s tried", e.Param, e.Value, end)
}

// Edges lists the parameters of the point p, selected for algorithm a in
// task t over rows rows, that lie on an edge of the grid (as For gives
// it): the smallest or the largest of their list's values. A list of one
// value is no search and has no edge; λ is compared as λ·T²/T² and λ,
// over both lists, and a λ of 0 has no lower edge.
func (g Grid) Edges(a bogd.Algorithm, t task.Task, p Params, rows int) []Edge {
	g = g.For(a, t)
	read := a.Params(t)
	var out []Edge
	add := func(param string, list []float64, v, scale float64) {
		if e, ok := edgeOf(list, v, scale); ok {
			e.Param = param
			out = append(out, e)
		}
	}
	if read.Has(bogd.ParamLambda) {
		t2 := float64(rows) * float64(rows)
		// Every λ on one scale, the direct λ; the edge is given back on
		// the scale of the list the selected value came from.
		all := slices.Clone(g.AbsLambda)
		for _, l := range g.LambdaT2 {
			all = append(all, l/t2)
		}
		if p.AbsLambda != 0 {
			add("λ", all, p.AbsLambda, 1)
		} else {
			add("λT²", all, p.LambdaT2/t2, t2)
		}
	}
	if read.Has(bogd.ParamEta) {
		add("η", g.Eta, p.Eta, 1)
	}
	if read.Has(bogd.ParamGamma) {
		add("γ", g.Gamma, p.Gamma, 1)
	}
	if read.Has(bogd.ParamC) {
		add("C", g.C, p.C, 1)
	}
	if p.Sigma != 0 {
		add("σ", g.Sigma, p.Sigma, 1)
	}
	return out
}

// edgeOf finds whether v is the smallest or the largest of list (at
// least two distinct values), and the value beyond; both are multiplied
// by scale, the factor from the list's scale to the value's.
func edgeOf(list []float64, v, scale float64) (Edge, bool) {
	s := slices.Compact(slices.Sorted(slices.Values(list)))
	n := len(s)
	if n < 2 {
		return Edge{}, false
	}
	step := func(ratio float64) float64 { return min(10, max(2, ratio)) }
	switch v {
	case s[0]:
		if v <= 0 {
			return Edge{}, false
		}
		return Edge{Value: v * scale, Low: true, Next: v / step(s[1]/s[0]) * scale}, true
	case s[n-1]:
		return Edge{Value: v * scale, Next: v * step(s[n-1]/s[n-2]) * scale}, true
	}
	return Edge{}, false
}

// Extend returns g with e.Next at the end of the list e names (at the
// end, so that a tie still goes to a value tried before it).
func (g Grid) Extend(e Edge) Grid {
	grow := func(list []float64) []float64 {
		if slices.Contains(list, e.Next) {
			return list
		}
		return append(slices.Clip(list), e.Next)
	}
	switch e.Param {
	case "η":
		g.Eta = grow(g.Eta)
	case "λT²":
		g.LambdaT2 = grow(g.LambdaT2)
	case "λ":
		g.AbsLambda = grow(g.AbsLambda)
	case "γ":
		g.Gamma = grow(g.Gamma)
	case "C":
		g.C = grow(g.C)
	case "σ":
		g.Sigma = grow(g.Sigma)
	}
	return g
}
