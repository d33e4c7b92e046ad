//go:build purego || !amd64

package simd

import (
	"errors"
	"slices"
	"testing"
)

// Without assembly only the generic kernels exist.
func TestOnlyGeneric(t *testing.T) {
	if got := Available(); !slices.Equal(got, []Impl{Generic}) {
		t.Fatalf("Available() = %v, want [generic]", got)
	}
	for _, impl := range []Impl{AVX2, AVX512} {
		if err := Use(impl); !errors.Is(err, ErrUnsupported) {
			t.Errorf("Use(%v) = %v, want ErrUnsupported", impl, err)
		}
	}
}
