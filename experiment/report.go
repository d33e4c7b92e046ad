package experiment

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// The pieces every study's report shares.

// FormatSeconds renders a time in tables: five decimals below 0.01 s,
// four below 1 s, three above.
func FormatSeconds(v float64) string {
	switch {
	case v < 0.01:
		return fmt.Sprintf("%.5f", v)
	case v < 1:
		return fmt.Sprintf("%.4f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// GridSpan returns the grid points of lowest and highest selection mean,
// if the cell has more than one complete point: how much the grid alone
// moves a cell.
func GridSpan(grid []GridMean) (lo, hi GridMean, ok bool) {
	complete := completeMeans(grid)
	if len(complete) < 2 {
		return lo, hi, false
	}
	byMean := func(a, b GridMean) int { return cmp.Compare(a.Mean, b.Mean) }
	return slices.MinFunc(complete, byMean), slices.MaxFunc(complete, byMean), true
}

// Nearest returns the complete grid point whose selection mean comes
// nearest target (the first of equal ones); ok is false without one.
func Nearest(grid []GridMean, target float64) (near GridMean, ok bool) {
	complete := completeMeans(grid)
	if len(complete) == 0 {
		return near, false
	}
	return slices.MinFunc(complete, func(a, b GridMean) int {
		return cmp.Compare(math.Abs(a.Mean-target), math.Abs(b.Mean-target))
	}), true
}

func completeMeans(grid []GridMean) []GridMean {
	var out []GridMean
	for _, g := range grid {
		if g.Complete {
			out = append(out, g)
		}
	}
	return out
}
