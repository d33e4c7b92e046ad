//go:build race

package engine

// raceEnabled: under the race detector sync.Pool drops a quarter of what
// it is given, so a Model's scratch is sometimes rebuilt and allocation
// counts mean nothing.
const raceEnabled = true
