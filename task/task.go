// Package task names what a learner predicts and a dataset's labels are for.
package task

import (
	"fmt"
	"strings"
)

// Task is what labels are for: binary or multi-class classification, or
// regression. The zero value, Auto, leaves the choice to whoever sees the
// labels (the dataset reader) or the configuration (a learner).
type Task uint8

const (
	// Auto is no choice yet: the dataset reader decides from the labels,
	// a learner from its configuration.
	Auto Task = iota
	// Binary classification: labels −1 and +1.
	Binary
	// Multiclass classification: 2 to MaxClasses integer labels.
	Multiclass
	// Regression: any finite label.
	Regression
	numTasks
)

// MaxClasses bounds the classes of a multi-class task: more distinct labels
// than that are almost surely a regression target.
const MaxClasses = 1000

var names = [numTasks]string{"auto", "binary", "multiclass", "regression"}

// String returns the command-line name of the task.
func (t Task) String() string {
	if t < numTasks {
		return names[t]
	}
	return fmt.Sprintf("Task(%d)", uint8(t))
}

// Valid reports whether t is one of the tasks above.
func (t Task) Valid() bool { return t < numTasks }

// Parse reads a name as String writes it (case-insensitive, surrounding
// space ignored).
func Parse(s string) (Task, error) {
	for i, n := range names {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Task(i), nil
		}
	}
	return Auto, fmt.Errorf("unknown task %q (want one of %s)", s, strings.Join(names[:], ", "))
}
