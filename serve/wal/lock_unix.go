//go:build unix

package wal

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockDir creates and locks the file at path, so that a second process
// (or a second Open) cannot write the same log: it fails at once while
// the lock is held. Closing the file releases the lock, as does the
// process's end, however it ends.
func lockDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is locked: another process has the log open", path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}
