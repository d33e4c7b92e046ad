//go:build !linux

package autotable

import "time"

var start = time.Now()

// threadTime is the wall clock where the thread's CPU time is not at
// hand.
func threadTime() time.Duration { return time.Since(start) }

func lockThread() func() { return func() {} }
