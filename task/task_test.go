package task

import (
	"strings"
	"testing"
)

func TestParseString(t *testing.T) {
	for _, want := range []Task{Auto, Binary, Multiclass, Regression} {
		for _, s := range []string{want.String(), strings.ToUpper(want.String()), " " + want.String() + "\t"} {
			got, err := Parse(s)
			if err != nil || got != want {
				t.Errorf("Parse(%q) = %v, %v; want %v", s, got, err, want)
			}
		}
		if !want.Valid() {
			t.Errorf("%v is not valid", want)
		}
	}
	if Auto != 0 {
		t.Errorf("Auto is %d: it must be the zero value", Auto)
	}
	for _, s := range []string{"", "multi-class", "classification", "Task(4)"} {
		if _, err := Parse(s); err == nil || !strings.Contains(err.Error(), "regression") {
			t.Errorf("Parse(%q): error %v, want one listing the tasks", s, err)
		}
	}
	if bad := Task(4); bad.Valid() || bad.String() != "Task(4)" {
		t.Errorf("Task(4): valid %v, name %q", bad.Valid(), bad.String())
	}
}
