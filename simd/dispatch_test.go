package simd

import (
	"os"
	"testing"

	"github.com/bogd-project/bogd/internal/simdimpl"
)

// initialActive is the implementation chosen at start (by the package's
// init), before any test selects another.
var initialActive Impl

func TestMain(m *testing.M) {
	initialActive = Active()
	os.Exit(m.Run())
}

// TestDispatchExpected checks the choice made at start against what the
// environment says it must be. BOGD_EXPECT_IMPL names the implementation
// the CPU must get (make test-cpus sets it under emulated CPUs: Haswell
// avx2, qemu64 generic); BOGD_SIMD forces one, which must then be active
// if it can run here and reported by EnvError otherwise. With neither set
// there is nothing to compare with.
func TestDispatchExpected(t *testing.T) {
	expect, forced := os.Getenv("BOGD_EXPECT_IMPL"), os.Getenv(EnvVar)
	if expect == "" && forced == "" {
		t.Skipf("set BOGD_EXPECT_IMPL to the implementation this CPU must get (chosen: %v)", initialActive)
	}
	if expect != "" {
		want, err := ParseImpl(expect)
		if err != nil {
			t.Fatalf("BOGD_EXPECT_IMPL=%s: %v", expect, err)
		}
		if initialActive != want {
			t.Errorf("active at start: %v, want %v (BOGD_EXPECT_IMPL)", initialActive, want)
		}
	}
	if forced != "" {
		want, err := ParseImpl(forced)
		switch {
		case err != nil || !Supported(want):
			if EnvError() == nil {
				t.Errorf("%s=%s cannot be used here, but EnvError() is nil", EnvVar, forced)
			}
		case initialActive != want || EnvError() != nil:
			t.Errorf("%s=%s: active at start %v, EnvError() = %v", EnvVar, forced, initialActive, EnvError())
		}
	}
}

func TestParseImpl(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Impl
	}{
		{"generic", Generic}, {"avx2", AVX2}, {"avx512", AVX512},
		{"AVX2", AVX2}, {" Avx512 ", AVX512}, {"GENERIC", Generic},
	} {
		got, err := ParseImpl(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseImpl(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "avx", "sse", "avx-512", "generic2", "0"} {
		if got, err := ParseImpl(in); err == nil {
			t.Errorf("ParseImpl(%q) = %v, want an error", in, got)
		}
	}
}

func TestString(t *testing.T) {
	for impl, want := range map[Impl]string{Generic: "generic", AVX2: "avx2", AVX512: "avx512", numImpls: "Impl(3)", 200: "Impl(200)"} {
		if got := impl.String(); got != want {
			t.Errorf("Impl(%d).String() = %q, want %q", uint8(impl), got, want)
		}
		if impl < numImpls {
			if back, err := ParseImpl(want); err != nil || back != impl {
				t.Errorf("ParseImpl(%q) = %v, %v: does not round-trip", want, back, err)
			}
		}
	}
}

// TestSelect: internal/simdimpl makes every available implementation the
// one the dispatch calls until its restore; the others (avx2 and avx512
// under -tags purego or on an older CPU) and unknown values are refused,
// leaving the dispatch unchanged.
func TestSelect(t *testing.T) {
	prev := Active()
	for impl := Generic; impl <= numImpls+1; impl++ {
		restore, err := simdimpl.Select(impl.String())
		if !Supported(impl) {
			if err == nil {
				restore()
				t.Errorf("Select(%v) succeeded, but it cannot run here", impl)
			}
			if Active() != prev {
				t.Errorf("failed Select(%v) changed Active() from %v to %v", impl, prev, Active())
			}
			continue
		}
		if err != nil {
			t.Fatalf("Select(%v): %v", impl, err)
		}
		during := Active()
		restore()
		if during != impl || Active() != prev {
			t.Errorf("Select(%v): active %v during, %v after restore (want %v)", impl, during, Active(), prev)
		}
	}
	if !Supported(Generic) {
		t.Error("generic must always be supported")
	}
}
