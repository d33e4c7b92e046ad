package dataset

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Task is what a dataset's labels are for. It decides which labels are
// valid and how they are stored; Auto lets the labels decide.
type Task uint8

const (
	// Auto chooses from the labels: Binary when they all lie in {−1, +1}
	// or all in {0, 1}, Multiclass when they are integers with 2 to
	// MaxClasses distinct values, Regression otherwise.
	Auto Task = iota
	// Binary classification: labels −1 and +1, or 0 and 1 (mapped to −1
	// and +1 with a warning).
	Binary
	// Multiclass classification: integer labels in int32 range, 2 to
	// MaxClasses distinct values.
	Multiclass
	// Regression: any finite label.
	Regression
	numTasks
)

// MaxClasses bounds the distinct labels of a multi-class dataset: more
// than that is almost surely a regression target.
const MaxClasses = 1000

var taskNames = [numTasks]string{"auto", "binary", "multiclass", "regression"}

// String returns the command-line name of the task.
func (t Task) String() string {
	if t < numTasks {
		return taskNames[t]
	}
	return fmt.Sprintf("Task(%d)", uint8(t))
}

// ParseTask parses a task name as printed by String (case-insensitive).
func ParseTask(s string) (Task, error) {
	for i, n := range taskNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Task(i), nil
		}
	}
	return 0, fmt.Errorf("unknown task %q (want one of %s)", s, strings.Join(taskNames[:], ", "))
}

// Resolve returns d with its labels checked against task and its Task and
// Classes set, exactly as if the file had been read with Options.Task =
// task: one read can serve several tasks. It starts from the labels as
// parsed (0/1 labels that an earlier resolution mapped to −1/+1 are 0/1
// again) and shares the rows (RowPtr, Index, Value) with d, not the labels.
// Errors name d.Name and the line of the row in its file (a Dataset not made
// by this package has no line numbers: its errors name the file only);
// warnings go to warn (nil: ignore).
func (d *Dataset) Resolve(task Task, warn func(msg string)) (*Dataset, error) {
	if task >= numTasks {
		return nil, fmt.Errorf("dataset: resolving %s: unknown task %d", d.Name, task)
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
	c := newLabelCheck(d.Name, task)
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
	task Task // as asked

	started bool
	prev    float64 // the last label added: a repeat changes nothing

	first [3]int // line of the first label −1, 0 and +1 (0: none yet)
	other int    // line of the first label outside {−1, 0, +1}

	fraction int                  // line of the first label that is not a class (isClass)
	classes  map[float64]struct{} // distinct class labels, at most MaxClasses+1 kept
	excess   int                  // line of the label that made them MaxClasses+1
}

func newLabelCheck(file string, task Task) *labelCheck {
	return &labelCheck{file: file, task: task, classes: map[float64]struct{}{}}
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
	} else if len(c.classes) <= MaxClasses {
		c.classes[y] = struct{}{}
		if len(c.classes) > MaxClasses {
			c.excess = ln
		}
	}
	switch {
	case c.task == Binary && y != -1 && y != 0 && y != 1:
		return errAt(c.file, ln, "label %v is not -1 or +1 (nor 0/1)", y)
	case c.task == Binary && c.first[0] != 0 && c.first[1] != 0:
		return errAt(c.file, c.first[1],
			"label 0 is not -1 or +1, and the file also has label -1 (line %d), so 0/1 labels cannot be mapped to -1/+1 (more than two distinct labels)",
			c.first[0])
	case c.task == Multiclass && !isClass(y):
		return errAt(c.file, ln, "label %v is not a class: multi-class labels are integers within ±%d", y, math.MaxInt32)
	}
	return nil
}

// settle finishes the check of d's labels (all added): it chooses the task
// if Auto, checks the class count of a multi-class set, sets d.Task and
// d.Classes, and maps 0/1 binary labels to −1/+1 in place.
func (c *labelCheck) settle(d *Dataset, warn func(msg string)) error {
	binary := c.other == 0 && (c.first[0] == 0 || c.first[1] == 0)
	task := c.task
	if task == Auto {
		switch {
		case binary:
			task = Binary
		case c.fraction == 0 && len(c.classes) >= 2 && len(c.classes) <= MaxClasses:
			task = Multiclass
		default:
			task = Regression
		}
	}
	d.Task, d.Classes = task, nil
	switch task {
	case Multiclass:
		switch n := len(c.classes); {
		case n < 2:
			return errAt(c.file, 0, "%d distinct label(s): a multi-class set needs at least 2 classes", n)
		case n > MaxClasses:
			return errAt(c.file, c.excess, "%d distinct labels, more than the limit of %d classes (this line's label is the %d-th)",
				distinct(d.Labels), MaxClasses, MaxClasses+1)
		}
		d.Classes = make([]int, 0, len(c.classes))
		for _, y := range slices.Sorted(maps.Keys(c.classes)) {
			d.Classes = append(d.Classes, int(y))
		}
	case Binary:
		if c.first[1] == 0 { // no label 0: already ±1
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
	}
	return nil
}

// distinct counts the distinct values of labels.
func distinct(labels []float64) int {
	s := slices.Clone(labels)
	slices.Sort(s)
	return len(slices.Compact(s))
}
