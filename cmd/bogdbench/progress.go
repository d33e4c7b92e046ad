package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// progress reports the phases of a study (`paper`, `lsokl`) on stderr: a line when a phase
// starts and, on a terminal, a one-line bar (done/total, elapsed, ETA)
// redrawn five times a second. The ETA extrapolates the elapsed time by
// the estimated cost of the jobs left, so that a few long jobs do not make
// it jump.
type progress struct {
	w       io.Writer
	command string // the subcommand, prefixing the phase lines
	bar     bool   // w is a terminal

	mu                  sync.Mutex
	label               string
	total, done         int
	totalCost, doneCost float64
	start               time.Time
	stop                chan struct{}
	stopped             sync.WaitGroup
}

func newProgress(w io.Writer, command string) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, command: command, bar: ok && term.IsTerminal(int(f.Fd()))}
}

// Start announces a phase and starts drawing its bar.
func (p *progress) Start(phase string, todo, done int, cost float64) {
	fmt.Fprintf(p.w, "%s: %s: %d jobs to run, %d already in the results\n", p.command, phase, todo, done)
	p.mu.Lock()
	p.label, p.total, p.done, p.totalCost, p.doneCost, p.start = phase, todo, 0, cost, 0, time.Now()
	p.mu.Unlock()
	if !p.bar || todo == 0 {
		return
	}
	p.stop = make(chan struct{})
	p.stopped.Go(func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.draw()
			}
		}
	})
	p.draw()
}

// Finished counts one saved job of the given cost.
func (p *progress) Finished(cost float64) {
	p.mu.Lock()
	p.done++
	p.doneCost += cost
	p.mu.Unlock()
}

// Stop draws the final state and ends the line.
func (p *progress) Stop() {
	if p.stop == nil {
		return
	}
	close(p.stop)
	p.stopped.Wait()
	p.stop = nil
	p.draw()
	fmt.Fprintln(p.w)
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\x1b[K"+p.line(time.Since(p.start)))
}

// line renders the bar for the given elapsed time.
func (p *progress) line(elapsed time.Duration) string {
	const width = 30
	frac := 0.0
	if p.totalCost > 0 {
		frac = min(1, p.doneCost/p.totalCost)
	}
	filled := int(frac * width)
	eta := "?"
	if p.done == p.total {
		eta = "0s"
	} else if p.doneCost > 0 {
		eta = roundDuration(time.Duration(float64(elapsed) * (p.totalCost - p.doneCost) / p.doneCost)).String()
	}
	return fmt.Sprintf("%s [%s%s] %d/%d jobs  elapsed %s  ETA %s", p.label,
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), p.done, p.total,
		roundDuration(elapsed), eta)
}

// roundDuration keeps durations short: whole seconds past ten seconds.
func roundDuration(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
