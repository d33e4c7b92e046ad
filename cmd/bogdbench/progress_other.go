//go:build !linux

package main

import "io"

// isTerminal is false where terminal detection is not implemented: no
// progress bar there.
func isTerminal(io.Writer) bool { return false }
