package autotable

import (
	"syscall"
	"time"
	"unsafe"
)

// threadTime is the CPU time the calling thread has used
// (CLOCK_THREAD_CPUTIME_ID), which the other processes of a shared machine
// do not add to. internal/cputime reads getrusage(RUSAGE_THREAD) instead,
// whose reading is scaled from ticks: over 1.6 ms of work it read from 6 µs
// to 1.97 ms on the development machine, where this clock read 1.6–2.0 ms,
// too coarse for BenchmarkAutoCost's blocks of a few milliseconds. The
// caller keeps its goroutine on its thread.
func threadTime() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		panic(errno)
	}
	return time.Duration(ts.Nano())
}
