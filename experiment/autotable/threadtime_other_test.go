//go:build !linux

package autotable

import "time"

var started = time.Now()

// threadTime is the wall clock where the thread's CPU time is not at
// hand.
func threadTime() time.Duration { return time.Since(started) }
