//go:build !unix

package wal

import "os"

// lockDir creates the file at path. Without flock, nothing keeps a second
// process out: run one server per log.
func lockDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}
