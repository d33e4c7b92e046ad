// Package simdtest runs a test or benchmark once per implementation of package simd.
//
// Every implementation is tested against the same expectations (the model is
// Go's crypto/internal/cryptotest).
//
// Each implementation gets its own subtest named "impl=<name>", in the fixed
// order generic, avx2, avx512, whether or not it can run here: one that the
// CPU or the build (-tags purego, another architecture) lacks is skipped
// with its name in the message, so a test log shows what was not tested.
// Setting the environment variable BOGD_REQUIRE_IMPL to a comma-separated
// list of names (for example "avx512,avx2") turns those skips into failures
// for the listed implementations, so that a CI machine known to have them
// cannot pass without testing them; an unknown name in the list fails every
// call.
//
// The implementation is selected through internal/simdimpl, which flips
// package simd's dispatch for the whole process: the subtests must not call
// t.Parallel, and no other test may run kernels in parallel with them.
//
// The package also holds the references that tests outside package simd
// compare a kernel's results with (SqDist64).
package simdtest

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/internal/simdimpl"
	"github.com/bogd-project/bogd/simd"
)

// RequireEnv is the environment variable listing the implementations that
// must not be skipped.
const RequireEnv = "BOGD_REQUIRE_IMPL"

// impls are the implementations every call runs, slowest first.
var impls = []simd.Impl{simd.Generic, simd.AVX2, simd.AVX512}

// ForEachImpl runs f in one subtest per implementation, with that
// implementation selected; the previous selection is restored when the
// subtest ends.
func ForEachImpl(t *testing.T, f func(t *testing.T, impl simd.Impl)) {
	t.Helper()
	forEach(t, f)
}

// ForEachImplB is ForEachImpl for benchmarks.
func ForEachImplB(b *testing.B, f func(b *testing.B, impl simd.Impl)) {
	b.Helper()
	forEach(b, f)
}

// runner is *testing.T or *testing.B: what runs subtests of its own kind.
type runner[T any] interface {
	testing.TB
	Run(name string, f func(T)) bool
}

// forEach is ForEachImpl and ForEachImplB.
func forEach[T runner[T]](tb T, f func(T, simd.Impl)) {
	tb.Helper()
	required, err := parseRequired(os.Getenv(RequireEnv))
	if err != nil {
		tb.Fatal(err)
	}
	for _, impl := range impls {
		tb.Run("impl="+impl.String(), func(tb T) {
			activate(tb, impl, required)
			f(tb, impl)
		})
	}
}

// With runs f with impl selected and restores the previous selection when
// f returns or ends the test (Fatal, Skip); it fails tb when impl cannot
// run here. A test computes its reference results this way, with
// simd.Generic, before comparing every implementation with them.
func With(tb testing.TB, impl simd.Impl, f func()) {
	tb.Helper()
	restore, err := simdimpl.Select(impl.String())
	if err != nil {
		tb.Fatal(err)
	}
	defer restore()
	f()
}

// activate selects impl until tb ends, or skips tb when impl cannot run
// here (fails it when impl is required).
func activate(tb testing.TB, impl simd.Impl, required []simd.Impl) {
	tb.Helper()
	if !simd.Supported(impl) {
		msg := fmt.Sprintf("impl=%v: %v", impl, simd.ErrUnsupported)
		if slices.Contains(required, impl) {
			tb.Fatalf("%s, but %s=%s requires it", msg, RequireEnv, os.Getenv(RequireEnv))
		}
		tb.Skip(msg)
	}
	restore, err := simdimpl.Select(impl.String())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(restore)
}

// parseRequired parses the value of RequireEnv: implementation names
// separated by commas, spaces around them ignored; empty means none.
func parseRequired(s string) ([]simd.Impl, error) {
	var out []simd.Impl
	for _, name := range strings.Split(s, ",") {
		if strings.TrimSpace(name) == "" {
			continue
		}
		impl, err := simd.ParseImpl(name)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %w", RequireEnv, s, err)
		}
		out = append(out, impl)
	}
	return out, nil
}

// SqDist64 is simd.SqDist64's definition for one stored vector s, the
// reference its tests and those of its users compare with bit for bit:
// the float64 squared distance summed in feature order, each square
// rounded before its addition (the conversion forbids a fused
// multiply-add).
func SqDist64(x, s []float32) float64 {
	var sum float64
	for j := range x {
		d := float64(s[j]) - float64(x[j])
		sum += float64(d * d)
	}
	return sum
}
