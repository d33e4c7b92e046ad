package main

import (
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The vector sine and cosine are sincos32 of simd/generic.go: clamp the
// argument p to ±2²⁰, reduce it to r = p − q·π with q = round(p/π), and
// evaluate sin r = r + r³·S(r²) and cos r = 1 − r²/2 + r⁴·C(r²) (minimax
// polynomials of degree 3 in r² for |r| ≤ 1.7); then sin p = (−1)^q·sin r
// and cos p = (−1)^q·cos r, a sign flip for both. Reducing by π rather than
// π/2 costs one FMA more per polynomial and saves the quadrant's swap of
// sine and cosine and its two signs.
//
//   - Rounding. t = p·(1/π) + 1.5·2²³ rounds p/π to an integer inside the
//     FMA, as exp's shift does, and the lowest bit of t is the parity of q:
//     t << 31 is the sign to flip.
//   - Reduction. π = pi1 + pi2 with pi1 = float32(π). p − q·pi1 is exact (an
//     FMA, and the difference is a multiple of pi1's and p's last bits below
//     2), so r carries one rounding, of r − q·pi2; what pi1 + pi2 misses of
//     π (3.6e-15) moves r by under 1.2e-9 at |q| ≤ 2²⁰/π.
//
// With |p| ≤ 2²⁰ the rounding of p/π puts q at most 0.014 from the nearest
// integer (0.03 for the generic code's rounded product), so |r| ≤ 1.66,
// within the polynomials' range.

// sinConsts are the constants of sin and cos (values as simd/generic.go's;
// the simd tests check them).
var sinConsts = []constant{
	{"sinmax", 1 << 20, true},              // sinMax; VMINPS's first source
	{"sinmin", -(1 << 20), true},           // −sinMax; VMAXPS's first source
	{"invpi", 0.318309886183790671, false}, // sinInvPi
	{"sinshift", 1.5 * (1 << 23), false},   // sinShift
	{"pi1", 3.1415927410125732, false},     // sinPi1 = float32(π)
	{"pi2", -8.7422776573e-08, false},      // sinPi2 = float32(π − pi1)
	{"sin4", 2.5742326670e-06, false},      // sinS4 … sinS1, highest degree first
	{"sin3", -1.9794024411e-04, false},     //
	{"sin2", 8.3328289911e-03, false},      //
	{"sin1", -1.6666649282e-01, false},     //
	{"cos5", -2.5966829753e-07, false},     // sinC5 … sinC2
	{"cos4", 2.4757542633e-05, false},      //
	{"cos3", -1.3888378162e-03, false},     //
	{"cos2", 4.1666645557e-02, false},      //
	{"half", 0.5, false},                   // the −r²/2 of cos r
	{"one", 1, false},                      // the 1 of cos r
}

// loadSinConsts loads the constants of sinCos (see loadConsts): sin4 and
// cos5 start the Horner chains from memory.
func (g *gen) loadSinConsts() *constK {
	var names []string
	for _, c := range sinConsts {
		if c.name != "sin4" && c.name != "cos5" {
			names = append(names, c.name)
		}
	}
	return g.loadConsts(names...)
}

// sinCos computes sin p and cos p for the register p (clobbered) and
// returns the registers holding them. Live registers: p/r, t, z and the
// two results.
func (g *gen) sinCos(k *constK, p reg.VecVirtual) (sin, cos reg.VecVirtual) {
	g.Comment("p = max(min(p, 2²⁰), −2²⁰), p the second source so that NaN stays NaN")
	g.VMINPS(p, k.reg("sinmax"), p)
	g.VMAXPS(p, k.reg("sinmin"), p)

	g.Comment("t = p·(1/π) + 1.5·2²³: q = round(p/π) = t − 1.5·2²³; r = p − q·pi1 − q·pi2")
	t, q := g.vec(), g.vec()
	g.VBROADCASTSS(g.constEntry("sinshift"), t)
	g.VFMADD231PS(k.op("invpi"), p, t)
	g.VSUBPS(k.op("sinshift"), t, q)
	g.VFNMADD231PS(k.op("pi1"), q, p)
	g.VFNMADD231PS(k.op("pi2"), q, p)
	r := p

	g.Comment("z = r²; sin r = (S(z)·z)·r + r")
	z := g.vec()
	g.VMULPS(r, r, z)
	sin = g.vec()
	g.VBROADCASTSS(g.constEntry("sin4"), sin)
	for _, c := range []string{"sin3", "sin2", "sin1"} {
		g.VFMADD213PS(k.op(c), z, sin)
	}
	g.VMULPS(z, sin, sin)
	g.VFMADD213PS(r, r, sin)

	g.Comment("cos r = (C(z)·z − ½)·z + 1")
	cos = g.vec()
	g.VBROADCASTSS(g.constEntry("cos5"), cos)
	for _, c := range []string{"cos4", "cos3", "cos2"} {
		g.VFMADD213PS(k.op(c), z, cos)
	}
	g.VFMSUB213PS(k.op("half"), z, cos)
	g.VFMADD213PS(k.op("one"), z, cos)

	g.Comment("both signs flip when q is odd: the lowest bit of t, moved to the sign")
	g.VPSLLD(operand.U8(31), t, t)
	g.be.xor(g, t, sin, sin)
	g.be.xor(g, t, cos, cos)
	return sin, cos
}
