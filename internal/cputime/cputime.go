// Package cputime reports how much CPU time a benchmark's loop, or a pass
// (experiment.Pass), took on its own thread. On a machine shared with
// other work the wall-clock time that package testing reports counts the
// other processes' turns on the core too (a load of 6 on two cores made
// it 2–3 times the CPU time); the thread's CPU time does not, so ratios of
// it stay comparable from one run to the next. It still counts what
// sharing the caches costs.
package cputime

import (
	"runtime"
	"time"
)

// Timer measures the CPU time of the goroutine that started it, which it
// keeps on one thread until Report.
type Timer struct {
	start time.Duration
	ok    bool
}

// Start locks the calling goroutine to its thread and starts measuring the
// thread's CPU time.
func Start() Timer {
	runtime.LockOSThread()
	t, ok := threadTime()
	return Timer{start: t, ok: ok}
}

// Thread returns the calling thread's CPU time so far, false where the
// system does not tell it. Differences of it measure a piece of a
// benchmark's loop while its goroutine stays locked to its thread
// (runtime.LockOSThread, or between Start and Report).
func Thread() (time.Duration, bool) { return threadTime() }

// Metrics is where Report puts its figure: a *testing.B (the package does
// not import testing, so that a pass can measure itself in any program).
type Metrics interface {
	ReportMetric(n float64, unit string)
}

// Report adds to b the thread's CPU time since Start divided by units, as
// metric "cpu-ns/"+unit (nothing where the system does not tell a thread's
// time), and unlocks the goroutine from its thread. A benchmark reports
// per iteration with units b.N and unit "op".
func (t Timer) Report(b Metrics, units float64, unit string) {
	end, ok := threadTime()
	runtime.UnlockOSThread()
	if t.ok && ok && units > 0 {
		b.ReportMetric(float64((end-t.start).Nanoseconds())/units, "cpu-ns/"+unit)
	}
}
