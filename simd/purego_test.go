//go:build purego || !amd64

package simd

import (
	"slices"
	"testing"
)

// Without assembly only the generic kernels exist (TestSelect checks that
// the others cannot be selected).
func TestOnlyGeneric(t *testing.T) {
	if got := Available(); !slices.Equal(got, []Impl{Generic}) {
		t.Fatalf("Available() = %v, want [generic]", got)
	}
}
