package simd

import (
	"errors"
	"os"
	"slices"
	"testing"
)

// initialActive is the implementation chosen at start (by the package's
// init), before any test calls Use.
var initialActive Impl

func TestMain(m *testing.M) {
	initialActive = Active()
	os.Exit(m.Run())
}

// TestDispatchExpected checks the choice made at start. With
// BOGD_EXPECT_IMPL set (make test-cpus runs the tests under emulated CPUs
// that way) the best and initially active implementation must be that one;
// otherwise the best must be the last available one.
func TestDispatchExpected(t *testing.T) {
	avail := Available()
	if len(avail) == 0 || avail[0] != Generic {
		t.Fatalf("Available() = %v: want generic first", avail)
	}
	if !slices.IsSorted(avail) {
		t.Fatalf("Available() = %v: want slowest first", avail)
	}
	if best := Best(); best != avail[len(avail)-1] {
		t.Fatalf("Best() = %v, want the last of Available() = %v", best, avail)
	}
	if err := EnvError(); err != nil {
		t.Fatalf("EnvError() = %v", err)
	}
	wantActive := Best()
	if s := os.Getenv(EnvVar); s != "" {
		forced, err := ParseImpl(s)
		if err != nil {
			t.Fatalf("%s=%s: %v", EnvVar, s, err)
		}
		wantActive = forced
	}
	if initialActive != wantActive {
		t.Fatalf("Active() at start = %v, want %v", initialActive, wantActive)
	}
	s := os.Getenv("BOGD_EXPECT_IMPL")
	if s == "" {
		t.Logf("Available() = %v, Best() = %v (set BOGD_EXPECT_IMPL to assert one)", avail, Best())
		return
	}
	want, err := ParseImpl(s)
	if err != nil {
		t.Fatalf("BOGD_EXPECT_IMPL=%s: %v", s, err)
	}
	if Best() != want {
		t.Fatalf("Best() = %v, want %v (Available() = %v)", Best(), want, avail)
	}
	if os.Getenv(EnvVar) == "" && initialActive != want {
		t.Fatalf("Active() at start = %v, want %v", initialActive, want)
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

// TestUse: every available implementation can be made active; the others
// (avx2 and avx512 under -tags purego or on an older CPU) and unknown
// values are refused with an error wrapping ErrUnsupported, leaving the
// active implementation unchanged.
func TestUse(t *testing.T) {
	prev := Active()
	defer Use(prev)
	for impl := Generic; impl <= numImpls+1; impl++ {
		before := Active()
		err := Use(impl)
		if Supported(impl) != slices.Contains(Available(), impl) {
			t.Errorf("Supported(%v) = %v disagrees with Available() = %v", impl, Supported(impl), Available())
		}
		if Supported(impl) {
			if err != nil || Active() != impl {
				t.Errorf("Use(%v) = %v, Active() = %v", impl, err, Active())
			}
			continue
		}
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("Use(%v) = %v, want an error wrapping ErrUnsupported", impl, err)
		}
		if Active() != before {
			t.Errorf("failed Use(%v) changed Active() from %v to %v", impl, before, Active())
		}
	}
	if !Supported(Generic) {
		t.Error("generic must always be supported")
	}
}
