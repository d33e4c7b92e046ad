package simdtest

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/simd"
)

func TestParseRequired(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []simd.Impl
	}{
		{"", nil},
		{"avx512", []simd.Impl{simd.AVX512}},
		{"avx512,avx2", []simd.Impl{simd.AVX512, simd.AVX2}},
		{" generic , AVX2,", []simd.Impl{simd.Generic, simd.AVX2}},
	} {
		got, err := parseRequired(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("parseRequired(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"avx", "avx2;avx512", "avx2,sse4"} {
		if got, err := parseRequired(in); err == nil || !strings.Contains(err.Error(), requireEnv) {
			t.Errorf("parseRequired(%q) = %v, %v; want an error naming %s", in, got, err, requireEnv)
		}
	}
}

// TestImplsComplete: every implementation package simd knows is run.
func TestImplsComplete(t *testing.T) {
	for i := range 256 {
		impl := simd.Impl(i)
		if back, err := simd.ParseImpl(impl.String()); err == nil && back == impl && !slices.Contains(impls, impl) {
			t.Errorf("implementation %v is missing from impls %v", impl, impls)
		}
	}
}

// TestForEachImpl: the subtests that run are exactly the available
// implementations, each with its implementation active, and the active one
// is restored afterwards.
func TestForEachImpl(t *testing.T) {
	prev := simd.Active()
	var ran []simd.Impl
	ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		if got := simd.Active(); got != impl {
			t.Errorf("active implementation %v in the subtest of %v", got, impl)
		}
		if want := "TestForEachImpl/impl=" + impl.String(); t.Name() != want {
			t.Errorf("subtest named %q, want %q", t.Name(), want)
		}
		ran = append(ran, impl)
	})
	if !slices.Equal(ran, simd.Available()) {
		t.Errorf("ran %v, want the available implementations %v", ran, simd.Available())
	}
	if simd.Active() != prev {
		t.Errorf("active implementation %v after ForEachImpl, was %v", simd.Active(), prev)
	}
}

// recorder is a testing.TB that records how activate ends a test. Methods
// activate does not call are left to the nil embedded TB (they panic).
type recorder struct {
	testing.TB
	skipped, failed string
	cleanups        []func()
}

func (r *recorder) Helper()                      {}
func (r *recorder) Cleanup(f func())             { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Skip(args ...any)             { r.skipped = fmt.Sprint(args...); runtime.Goexit() }
func (r *recorder) Fatal(args ...any)            { r.failed = fmt.Sprint(args...); runtime.Goexit() }
func (r *recorder) Errorf(f string, args ...any) { r.failed = fmt.Sprintf(f, args...) }
func (r *recorder) Fatalf(f string, args ...any) {
	r.failed = fmt.Sprintf(f, args...)
	runtime.Goexit()
}

// activateIn runs activate with a recorder, on a goroutine of its own as the
// testing package runs a test (Skip and Fatal end it), then the cleanups.
func activateIn(impl simd.Impl, required []simd.Impl) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		activate(r, impl, required)
	}()
	<-done
	for _, f := range slices.Backward(r.cleanups) {
		f()
	}
	return r
}

// TestActivateUnsupported: an implementation that cannot run is skipped
// with its name in the message, or fails when it is required.
func TestActivateUnsupported(t *testing.T) {
	unknown := simd.Impl(200) // never supported
	want := "impl=Impl(200): not supported on this CPU or build"
	if r := activateIn(unknown, nil); r.skipped != want || r.failed != "" {
		t.Errorf("not required: skipped %q, failed %q; want skipped %q", r.skipped, r.failed, want)
	}
	if r := activateIn(unknown, []simd.Impl{simd.AVX2, unknown}); r.skipped != "" || !strings.HasPrefix(r.failed, want) {
		t.Errorf("required: skipped %q, failed %q; want a failure starting %q", r.skipped, r.failed, want)
	}
}

// TestActivateRestores: activate makes a supported implementation active
// and its cleanup restores the previous one, required or not.
func TestActivateRestores(t *testing.T) {
	prev := simd.Active()
	for _, impl := range simd.Available() {
		for _, required := range [][]simd.Impl{nil, {impl}} {
			r := &recorder{}
			activate(r, impl, required)
			during := simd.Active()
			for _, f := range slices.Backward(r.cleanups) {
				f()
			}
			if during != impl || simd.Active() != prev || r.skipped != "" || r.failed != "" {
				t.Errorf("activate(%v): active %v during, %v after (want %v); skipped %q, failed %q",
					impl, during, simd.Active(), prev, r.skipped, r.failed)
			}
		}
	}
}

// TestWith: f runs with the implementation selected, and the previous one
// is back afterwards, also when f ends the test's goroutine as Fatal does;
// an implementation that cannot run fails the test without running f.
func TestWith(t *testing.T) {
	prev := simd.Active()
	for _, impl := range simd.Available() {
		var during simd.Impl
		With(t, impl, func() { during = simd.Active() })
		if during != impl || simd.Active() != prev {
			t.Errorf("With(%v): active %v during, %v after (want %v)", impl, during, simd.Active(), prev)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			With(&recorder{}, impl, func() { runtime.Goexit() })
		}()
		<-done
		if simd.Active() != prev {
			t.Errorf("With(%v) ended by Goexit: active %v after, want %v", impl, simd.Active(), prev)
		}
	}
	r := &recorder{}
	ran := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		With(r, simd.Impl(200), func() { ran = true })
	}()
	<-done
	if ran || r.failed == "" || simd.Active() != prev {
		t.Errorf("With(Impl(200)): ran %v, failed %q, active %v (want %v)", ran, r.failed, simd.Active(), prev)
	}
}
