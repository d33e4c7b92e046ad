package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestThreadTime: a thread's time grows with its own work and not while it
// sleeps, and never faster than the clock on the wall.
func TestThreadTime(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, ok := threadTime()
	if !ok {
		t.Skip("this system does not report a thread's CPU time")
	}
	wall := time.Now()
	sink := 1.0
	var now time.Duration
	for now-start < 20*time.Millisecond {
		for i := range 100000 {
			sink = sink*1.0000001 + float64(i&1)
		}
		now, _ = threadTime()
		if time.Since(wall) > time.Minute {
			t.Fatalf("a minute of work added %v of thread time", now-start)
		}
	}
	// Getrusage counts in microseconds (the kernel may round to a tick).
	if elapsed := time.Since(wall); now-start > elapsed+10*time.Millisecond {
		t.Errorf("%v of thread time in %v on the wall", now-start, elapsed)
	}
	time.Sleep(100 * time.Millisecond)
	if after, _ := threadTime(); after-now > 50*time.Millisecond {
		t.Errorf("sleeping 100 ms added %v of thread time", after-now)
	}
	if sink == 0 {
		t.Log(sink) // keeps the loop
	}
}
