package main

import (
	"fmt"

	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/task"
)

// labelOrder follows the labels of a file in order, one at a time, to
// tell a file sorted by its labels, which online learning in file order
// learns one class (or one range of targets) after another, from one in
// no particular order.
type labelOrder struct {
	regression bool
	n          int
	prev       float64
	changes    int             // classification: consecutive rows of different labels
	counts     map[float64]int // classification: rows per label
	up, down   int             // regression: consecutive rows whose label rises, falls
}

func newLabelOrder(t task.Task) *labelOrder {
	return &labelOrder{regression: t == task.Regression, counts: map[float64]int{}}
}

func (o *labelOrder) add(y float64) {
	if o.n > 0 {
		switch {
		case o.regression && y > o.prev:
			o.up++
		case o.regression && y < o.prev:
			o.down++
		case !o.regression && y != o.prev:
			o.changes++
		}
	}
	if !o.regression {
		o.counts[y]++
	}
	o.prev = y
	o.n++
}

// sortedBy reports, when the labels come sorted, how it shows: in
// classification, fewer than a tenth of the changes of label between
// consecutive rows that a random order has (n−1)·(1 − Σ p_c²); in
// regression, nine in ten consecutive rows of different labels rising (or
// falling). Fewer than 20 rows, or pairs, tell nothing.
func (o *labelOrder) sortedBy() (string, bool) {
	if o.regression {
		moves := o.up + o.down
		if moves < 20 || o.up*10 < moves*9 && o.down*10 < moves*9 {
			return "", false
		}
		dir, k := "rises", o.up
		if o.down > o.up {
			dir, k = "falls", o.down
		}
		return fmt.Sprintf("the label %s from one row to the next in %.0f%% of the file", dir, 100*float64(k)/float64(moves)), true
	}
	if o.n < 20 {
		return "", false
	}
	same := 0.0 // Σ p_c²
	for _, c := range o.counts {
		p := float64(c) / float64(o.n)
		same += p * p
	}
	expected := float64(o.n-1) * (1 - same)
	if float64(o.changes)*10 >= expected {
		return "", false
	}
	return fmt.Sprintf("the label changes %s between consecutive rows, where a random order of the same labels changes it about %.0f times",
		experiment.Plural(o.changes, "time", "times"), expected), true
}
