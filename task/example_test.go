package task_test

import (
	"fmt"

	"github.com/bogd-project/bogd/task"
)

// A task reads from and prints as its command-line name.
func ExampleParse() {
	t, err := task.Parse("MultiClass")
	fmt.Println(t, err, t == task.Multiclass)
	// Output: multiclass <nil> true
}
