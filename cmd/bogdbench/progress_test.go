package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	p := &progress{label: "select", total: 10, totalCost: 100}
	if got := p.line(3 * time.Second); !strings.Contains(got, "0/10 jobs") || !strings.Contains(got, "ETA ?") {
		t.Errorf("no job done: %q", got)
	}
	p.done, p.doneCost = 4, 25 // a quarter of the cost in 30 s: 90 s to go
	got := p.line(30 * time.Second)
	for _, want := range []string{"select [=======       ", "4/10 jobs", "elapsed 30s", "ETA 1m30s"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	p.done, p.doneCost = 10, 100
	if got := p.line(time.Minute); !strings.Contains(got, "ETA 0s") || !strings.Contains(got, strings.Repeat("=", 30)) {
		t.Errorf("all done: %q", got)
	}
}

// A disabled bar (stderr not a terminal) writes nothing.
func TestProgressDisabled(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, "report", 2, 2, isTerminal(&b))
	p.add(1)
	p.add(1)
	p.finish()
	if b.Len() != 0 {
		t.Errorf("wrote %q", b.String())
	}
}
