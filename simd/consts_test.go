package simd

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// zeroArg is the argument AVX2's exp substitutes for those below ExpMin:
// n = round(zeroArg·log2e) = −127 (−126.96 exactly: no tie), so the
// exponent bits of its 2ⁿ are 0 and the result is +0.
const zeroArg = -88

// TestAsmConstants checks that the constants assembled into each generated
// file are, bit for bit, the float32 conversions of the constants of exp32
// and sincos32 (asm/gen keeps its own copy of the values: the two must
// agree; its exp rounding constant also carries the exponent bias 127), and
// that zeroArg does what it is for. The table holds each constant 8 times,
// 32 bytes apart, in this order: exp's, sin's and cos's, then the merge
// search's (γ, 2γ − 1, the NaN probe's −1, the interval ends −5, 6 and 0,
// and −MaxFloat32, below which lk is −Inf).
func TestAsmConstants(t *testing.T) {
	if n := math.Round(zeroArg * expLog2e); !(zeroArg < ExpMin) || n != -127 {
		t.Fatalf("zeroArg = %v: round(zeroArg·log2e) = %v, want −127 below ExpMin", zeroArg, n)
	}
	want := []float32{ExpMin, ExpMax, zeroArg, expLog2e, expShift + 127, expC1, expC2, expP0, expP1, expP2, expP3, expP4, expP5,
		sinMax, -sinMax, sinInvPi, sinShift, sinPi1, sinPi2, sinS4, sinS3, sinS2, sinS1, sinC5, sinC4, sinC3, sinC2, 0.5, 1,
		mergeGamma, mergeInner, -1, -5, 6, 0, -math.MaxFloat32}
	data := regexp.MustCompile(`(?m)^DATA consts<>\+(\d+)\(SB\)/4, \$\(?([^)\s]+)\)?$`)
	for _, file := range []string{"kernels_avx2_amd64.s", "kernels_avx512_amd64.s"} {
		src, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			t.Skipf("%v: the test binary runs outside the package directory", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, m := range data.FindAllStringSubmatch(string(src), -1) {
			off, _ := strconv.Atoi(m[1])
			// The assembler reads a float literal as a float64 and
			// rounds it to the operand size.
			v, err := strconv.ParseFloat(m[2], 64)
			if err != nil {
				t.Fatalf("%s: %s: %v", file, m[0], err)
			}
			i := off / 32
			if off%4 != 0 || i >= len(want) {
				t.Fatalf("%s: unexpected %s", file, m[0])
			}
			if got := float32(v); math.Float32bits(got) != math.Float32bits(want[i]) {
				t.Errorf("%s: %s is %v, want %v", file, m[0], got, want[i])
			}
			seen++
		}
		if seen != 8*len(want) {
			t.Errorf("%s: %d DATA entries, want %d", file, seen, 8*len(want))
		}
	}
}
