package experiment

import (
	"math"
	"slices"

	"github.com/bogd-project/bogd/dataset"
)

// MedianDistance estimates the median Euclidean distance between two rows
// of d (the "median heuristic" for a Gaussian kernel's width, which puts σ
// on the data's own scale): the median of the distances between every pair
// of a sample of min(sample, rows) distinct rows, drawn by
// Permutation(seed, 0, rows). The result depends on nothing else: stored
// grids built from it can be checked against the data.
func MedianDistance(d *dataset.Dataset, sample int, seed uint64) float64 {
	rows := Permutation(seed, 0, d.Len())[:min(sample, d.Len())]
	dense := make([][]float64, len(rows))
	var buf dataset.RowBuffer
	for i, r := range rows {
		dense[i] = make([]float64, d.Dim)
		idx, val := d.RowTo(r, &buf)
		for k, j := range idx {
			dense[i][j] = float64(val[k])
		}
	}
	dists := make([]float64, 0, len(rows)*(len(rows)-1)/2)
	for i := range dense {
		for j := range i {
			var ss float64
			for k, v := range dense[i] {
				diff := v - dense[j][k]
				ss += diff * diff
			}
			dists = append(dists, math.Sqrt(ss))
		}
	}
	if len(dists) == 0 {
		return math.NaN()
	}
	slices.Sort(dists)
	mid := len(dists) / 2
	if len(dists)%2 == 1 {
		return dists[mid]
	}
	return (dists[mid-1] + dists[mid]) / 2
}
