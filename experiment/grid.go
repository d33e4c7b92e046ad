package experiment

import (
	"fmt"
	"math"
	"strings"

	"github.com/bogd-project/bogd/bogd"
)

// Params is one point of a parameter grid; parameters an algorithm does
// not use are 0.
type Params struct {
	Eta, LambdaT2, Gamma float64 // λ·T² rather than λ: one grid serves datasets of any size T
}

// Describe renders the parameters algorithm a uses.
func (p Params) Describe(a bogd.Algorithm) string {
	switch a {
	case bogd.BOGD, bogd.BOGDpp:
		return fmt.Sprintf("η=%g, λT²=%g, γ=%g", p.Eta, p.LambdaT2, p.Gamma)
	case bogd.OGD:
		return fmt.Sprintf("η=%g, λT²=%g", p.Eta, p.LambdaT2)
	}
	return "-"
}

// Grid is the parameter grid of a selection phase.
type Grid struct {
	Name                 string
	LambdaT2, Eta, Gamma []float64
}

// Pow2s returns 2^lo, …, 2^hi.
func Pow2s(lo, hi int) []float64 {
	var out []float64
	for k := lo; k <= hi; k++ {
		out = append(out, math.Ldexp(1, k))
	}
	return out
}

// Points lists the grid points for algorithm a, in the order that breaks
// ties of the selection (λ, then η, then γ, ascending): BOGD and BOGD++ use
// λ, η and γ, OGD λ and η, the others nothing (one point, all zero).
func (g Grid) Points(a bogd.Algorithm) []Params {
	gammas := []float64{0}
	switch a {
	case bogd.BOGD, bogd.BOGDpp:
		gammas = g.Gamma
	case bogd.OGD:
	default:
		return []Params{{}}
	}
	var out []Params
	for _, l := range g.LambdaT2 {
		for _, e := range g.Eta {
			for _, c := range gammas {
				out = append(out, Params{Eta: e, LambdaT2: l, Gamma: c})
			}
		}
	}
	return out
}

// Describe renders the grid for a report: "λ ∈ {…} / T², η ∈ {…}, γ ∈ {…}".
func (g Grid) Describe() string {
	set := func(xs []float64) string {
		var parts []string
		for _, x := range xs {
			parts = append(parts, fmt.Sprintf("%g", x))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("λ ∈ %s / T², η ∈ %s, γ ∈ %s", set(g.LambdaT2), set(g.Eta), set(g.Gamma))
}
