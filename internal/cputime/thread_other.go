//go:build !linux

package cputime

import "time"

// threadTime reports that a thread's time is not known here.
func threadTime() (time.Duration, bool) { return 0, false }
