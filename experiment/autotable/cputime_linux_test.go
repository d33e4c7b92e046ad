package autotable

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// threadTime is the CPU time the calling thread has used
// (CLOCK_THREAD_CPUTIME_ID): unlike the wall clock it does not count the
// time other processes of a shared machine take the core. The caller must
// hold its thread (lockThread).
func threadTime() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		panic(errno)
	}
	return time.Duration(ts.Nano())
}

// lockThread keeps the goroutine on its thread, so that threadTime
// measures it; the returned function lets it go.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
