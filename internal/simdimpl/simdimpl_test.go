package simdimpl

import (
	"strings"
	"testing"
)

// fake is a registry of a base and three toggled implementations, one of
// which cannot run, with b selected as at start.
func fake() (r registry, a, b, c *bool) {
	a, b, c = new(bool), new(bool), new(bool)
	*b = true
	r = registry{
		{name: "base", available: true},
		{name: "a", toggle: a, available: true},
		{name: "b", toggle: b, available: true},
		{name: "c", toggle: c, available: false},
	}
	return r, a, b, c
}

// TestSelectToggles: selecting sets exactly the chosen toggle (none for the
// base), and restoring brings back the toggles as they were, also when
// selections nest.
func TestSelectToggles(t *testing.T) {
	r, a, b, c := fake()
	state := func() [3]bool { return [3]bool{*a, *b, *c} }
	for _, step := range []struct {
		name string
		want [3]bool
	}{
		{"base", [3]bool{}},
		{"a", [3]bool{true, false, false}},
		{"b", [3]bool{false, true, false}},
	} {
		before := state()
		restore, err := r.selectImpl(step.name)
		if err != nil {
			t.Fatalf("select %s: %v", step.name, err)
		}
		if got := state(); got != step.want {
			t.Errorf("select %s: toggles %v, want %v", step.name, got, step.want)
		}
		inner, err := r.selectImpl("a")
		if err != nil {
			t.Fatal(err)
		}
		inner()
		if got := state(); got != step.want {
			t.Errorf("select %s, then a and its restore: toggles %v, want %v", step.name, got, step.want)
		}
		restore()
		if got := state(); got != before {
			t.Errorf("select %s and restore: toggles %v, want %v", step.name, got, before)
		}
	}
}

// TestSelectRefuses: an unknown name and an implementation that cannot run
// are errors that name them, and change no toggle.
func TestSelectRefuses(t *testing.T) {
	r, a, b, c := fake()
	for name, want := range map[string]string{
		"c":    `"c" cannot run on this CPU`,
		"d":    `"d" is not built in (built in: base, a, b, c)`,
		"Base": `"Base" is not built in`,
	} {
		restore, err := r.selectImpl(name)
		if err == nil || restore != nil || !strings.Contains(err.Error(), want) {
			t.Errorf("select %s: %v, restore %v; want an error containing %s", name, err, restore != nil, want)
		}
		if *a || !*b || *c {
			t.Errorf("select %s changed the toggles: %v %v %v", name, *a, *b, *c)
		}
	}
}
