package experiment

import (
	"fmt"
	"slices"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/task"
)

// Edge is a parameter whose selected value is the smallest or the largest
// that a cell tried: the best value may lie beyond, where Next is.
type Edge struct {
	// Param names the parameter, as Params.Describe does: "η", "λT²"
	// (λ·T²), "λ" (λ given directly), "γ", "C" or "σ".
	Param string
	Value float64 // the selected value
	Low   bool    // the smallest value tried (else the largest)
	// Next is the value to try beyond: one step of the spacing of the
	// values tried at that end (a factor of at least 2 and at most 10).
	Next float64
}

func (e Edge) String() string {
	end := "largest"
	if e.Low {
		end = "smallest"
	}
	return fmt.Sprintf("%s = %.4g is the %s tried", e.Param, e.Value, end)
}

// Apply returns p with e's parameter set to Next: the point beyond the
// edge, the other parameters as selected.
func (e Edge) Apply(p Params) Params {
	switch e.Param {
	case "η":
		p.Eta = e.Next
	case "λT²":
		p.LambdaT2 = e.Next
	case "λ":
		p.AbsLambda = e.Next
	case "γ":
		p.Gamma = e.Next
	case "C":
		p.C = e.Next
	case "σ":
		p.Sigma = e.Next
	}
	return p
}

// Edges lists the parameters of the point p, selected for algorithm a in
// task t over rows rows among points (the cell's, Plan.Points), whose
// value is the smallest or the largest of the values the points hold. A
// parameter of one value is no search and has no edge; λ is compared as
// λ·T²/T² and λ, over both, and a λ of 0 has no lower edge.
func Edges(points []Params, p Params, a bogd.Algorithm, t task.Task, rows int) []Edge {
	read := a.Params(t)
	values := func(get func(Params) float64) []float64 {
		var out []float64
		for _, q := range points {
			if v := get(q); v != 0 {
				out = append(out, v)
			}
		}
		return out
	}
	var out []Edge
	add := func(param string, list []float64, v, scale float64) {
		if e, ok := edgeOf(list, v, scale); ok {
			e.Param = param
			out = append(out, e)
		}
	}
	if read.Has(bogd.ParamLambda) {
		// Every λ on one scale, the direct λ; the edge is given back on
		// the scale of the selected value's.
		t2 := float64(rows) * float64(rows)
		all := values(func(q Params) float64 {
			if q.AbsLambda != 0 {
				return q.AbsLambda
			}
			return q.LambdaT2 / t2
		})
		if p.AbsLambda != 0 {
			add("λ", all, p.AbsLambda, 1)
		} else {
			add("λT²", all, p.LambdaT2/t2, t2)
		}
	}
	if read.Has(bogd.ParamEta) {
		add("η", values(func(q Params) float64 { return q.Eta }), p.Eta, 1)
	}
	if read.Has(bogd.ParamGamma) {
		add("γ", values(func(q Params) float64 { return q.Gamma }), p.Gamma, 1)
	}
	if read.Has(bogd.ParamC) {
		add("C", values(func(q Params) float64 { return q.C }), p.C, 1)
	}
	if p.Sigma != 0 {
		add("σ", values(func(q Params) float64 { return q.Sigma }), p.Sigma, 1)
	}
	return out
}

// edgeOf finds whether v is the smallest or the largest of list (at
// least two distinct values), and the value beyond; both are multiplied
// by scale, the factor from the list's scale to the value's.
func edgeOf(list []float64, v, scale float64) (Edge, bool) {
	s := slices.Compact(slices.Sorted(slices.Values(list)))
	n := len(s)
	if n < 2 || v <= 0 {
		return Edge{}, false
	}
	step := func(ratio float64) float64 { return min(10, max(2, ratio)) }
	switch v {
	case s[0]:
		return Edge{Value: v * scale, Low: true, Next: v / step(s[1]/s[0]) * scale}, true
	case s[n-1]:
		return Edge{Value: v * scale, Next: v * step(s[n-1]/s[n-2]) * scale}, true
	}
	return Edge{}, false
}
