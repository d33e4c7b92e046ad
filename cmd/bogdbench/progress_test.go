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

// Off a terminal, a phase is one line: no bar, no escape codes.
func TestProgressOffTerminal(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, "paper")
	p.Start("report", 2, 3, 2)
	p.Finished(1)
	p.Finished(1)
	p.Stop()
	if want := "paper: report: 2 jobs to run, 3 already in the results\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}
