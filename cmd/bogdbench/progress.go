package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress draws a one-line progress bar (done/total, elapsed, ETA) on a
// terminal, redrawn five times a second. The ETA
// extrapolates the elapsed time by the estimated cost of the jobs left, so
// that a few long jobs do not make it jump. A disabled bar draws nothing.
type progress struct {
	w         io.Writer
	label     string
	total     int
	totalCost float64
	start     time.Time

	mu       sync.Mutex
	done     int
	doneCost float64
	stop     chan struct{}
	stopped  sync.WaitGroup
}

func newProgress(w io.Writer, label string, total int, totalCost float64, enabled bool) *progress {
	p := &progress{w: w, label: label, total: total, totalCost: totalCost, start: time.Now()}
	if !enabled {
		return p
	}
	p.stop = make(chan struct{})
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
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
	}()
	p.draw()
	return p
}

// add counts one finished job of the given cost.
func (p *progress) add(cost float64) {
	p.mu.Lock()
	p.done++
	p.doneCost += cost
	p.mu.Unlock()
}

// finish draws the final state and ends the line.
func (p *progress) finish() {
	if p.stop == nil {
		return
	}
	close(p.stop)
	p.stopped.Wait()
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
