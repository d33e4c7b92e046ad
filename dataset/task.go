package dataset

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/bogd-project/bogd/task"
)

// Resolve returns d with its labels checked against t and its Task and
// Classes set, exactly as if the file had been read with Options.Task =
// task: one read can serve several tasks. It starts from the labels as
// parsed (0/1 labels that an earlier resolution mapped to −1/+1 are 0/1
// again) and shares the rows (RowPtr, Index, Value) with d, not the labels.
// Errors name d.Name and the line of the row in its file (a Dataset not made
// by this package has no line numbers: its errors name the file only);
// warnings go to warn (nil: ignore).
func (d *Dataset) Resolve(t task.Task, warn func(msg string)) (*Dataset, error) {
	if !t.Valid() {
		return nil, fmt.Errorf("dataset: resolving %s: unknown task %d", d.Name, t)
	}
	r := *d
	r.Labels = slices.Clone(d.Labels)
	if d.zeroOne {
		for i, y := range r.Labels {
			if y == -1 {
				r.Labels[i] = 0
			}
		}
		r.zeroOne = false
	}
	c := newLabelCheck(d.Name, t)
	for i, y := range r.Labels {
		if err := c.add(y, r.line(i)); err != nil {
			return nil, err
		}
	}
	if err := c.settle(&r, warn); err != nil {
		return nil, err
	}
	return &r, nil
}

// labelCheck follows the labels of a file in order. With an explicit task
// it fails at the first label that breaks it; for Auto it keeps what the
// choice at the end needs.
type labelCheck struct {
	file string
	task task.Task // as asked

	started bool
	prev    float64 // the last label added: a repeat changes nothing

	first [3]int // line of the first label −1, 0 and +1 (0: none yet)
	other int    // line of the first label outside {−1, 0, +1}

	fraction int                  // line of the first label that is not a class (isClass)
	classes  map[float64]struct{} // distinct class labels, at most task.MaxClasses+1 kept
	excess   int                  // line of the label that made them task.MaxClasses+1
}

func newLabelCheck(file string, t task.Task) *labelCheck {
	return &labelCheck{file: file, task: t, classes: map[float64]struct{}{}}
}

// isClass reports whether y can be a multi-class label: an integer in
// int32 range, as the learners accept.
func isClass(y float64) bool { return y == math.Trunc(y) && math.Abs(y) <= math.MaxInt32 }

// add takes the label y of line ln.
func (c *labelCheck) add(y float64, ln int) error {
	if c.started && y == c.prev {
		return nil
	}
	c.started, c.prev = true, y
	switch y {
	case -1, 0, 1:
		if k := int(y) + 1; c.first[k] == 0 {
			c.first[k] = ln
		}
	default:
		if c.other == 0 {
			c.other = ln
		}
	}
	if !isClass(y) {
		if c.fraction == 0 {
			c.fraction = ln
		}
	} else if len(c.classes) <= task.MaxClasses {
		c.classes[y] = struct{}{}
		if len(c.classes) > task.MaxClasses {
			c.excess = ln
		}
	}
	switch {
	case c.task == task.Binary && y != -1 && y != 0 && y != 1:
		return errAt(c.file, ln, "label %v is not -1 or +1 (nor 0/1)", y)
	case c.task == task.Binary && c.first[0] != 0 && c.first[1] != 0:
		return errAt(c.file, c.first[1],
			"label 0 is not -1 or +1, and the file also has label -1 (line %d), so 0/1 labels cannot be mapped to -1/+1 (more than two distinct labels)",
			c.first[0])
	case c.task == task.Multiclass && !isClass(y):
		return errAt(c.file, ln, "label %v is not a class: multi-class labels are integers within ±%d", y, math.MaxInt32)
	}
	return nil
}

// settle finishes the check of d's labels (all added): it chooses the task
// if Auto, checks the class count of a multi-class set, sets d.Task and
// d.Classes, and maps 0/1 binary labels to −1/+1 in place.
func (c *labelCheck) settle(d *Dataset, warn func(msg string)) error {
	t, classes, zeroOne, err := c.resolve(func() int { return distinct(d.Labels) })
	if err != nil {
		return err
	}
	d.Task, d.Classes = t, classes
	if !zeroOne {
		return nil
	}
	for i, y := range d.Labels {
		if y == 0 {
			d.Labels[i] = -1
		}
	}
	d.zeroOne = true
	if warn != nil {
		warn(c.file + ": labels 0/1 mapped to -1/+1")
	}
	return nil
}

// resolve finishes the check of the labels added: the task (chosen if
// Auto), a multi-class set's classes, and whether binary labels are 0/1,
// to be mapped to −1/+1. count counts the distinct labels for the message
// about too many classes.
func (c *labelCheck) resolve(count func() int) (t task.Task, classes []int, zeroOne bool, err error) {
	binary := c.other == 0 && (c.first[0] == 0 || c.first[1] == 0)
	t = c.task
	if t == task.Auto {
		switch {
		case binary:
			t = task.Binary
		case c.fraction == 0 && len(c.classes) >= 2 && len(c.classes) <= task.MaxClasses:
			t = task.Multiclass
		default:
			t = task.Regression
		}
	}
	switch t {
	case task.Multiclass:
		switch n := len(c.classes); {
		case n < 2:
			return t, nil, false, errAt(c.file, 0, "%d distinct label(s): a multi-class set needs at least 2 classes", n)
		case n > task.MaxClasses:
			return t, nil, false, errAt(c.file, c.excess, "%d distinct labels, more than the limit of %d classes (this line's label is the %d-th)",
				count(), task.MaxClasses, task.MaxClasses+1)
		}
		classes = make([]int, 0, len(c.classes))
		for _, y := range slices.Sorted(maps.Keys(c.classes)) {
			classes = append(classes, int(y))
		}
	case task.Binary:
		zeroOne = c.first[1] != 0 // a label 0: the labels are 0/1
	}
	return t, classes, zeroOne, nil
}

// distinct counts the distinct values of labels.
func distinct(labels []float64) int {
	s := slices.Clone(labels)
	slices.Sort(s)
	return len(slices.Compact(s))
}
