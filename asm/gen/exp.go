package main

import (
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The vector exponential is exp32 of simd/generic.go: 0 for an argument
// below ExpMin, the argument clamped to ExpMax above; in between, write
// x = n·ln2 + r with n = round(x·log2e) (Cody–Waite: ln2 = c1 + c2, c1 exact
// in 9 bits so n·c1 is exact), approximate e^r on |r| ≤ ln2/2 by Cephes'
// degree-5 polynomial, and multiply by 2ⁿ built in the exponent bits.
// Relative error about 1 ulp; never NaN, Inf or denormal for a finite
// argument (2ⁿ·e^r stays normal down to ExpMin = −87).
//
// Arguments below ExpMin give +0, on each backend at the cost of one
// compare per register:
//
//   - AVX-512 compares into an opmask register, and the final FMA zeroes
//     the lanes below ExpMin (zero-masking): their arithmetic runs on
//     unclamped arguments and is discarded, so no lower clamp is needed.
//   - AVX2, which has no opmask registers and no register to spare for a
//     mask until the end, replaces those arguments by zeroArg = −88 in
//     place of the lower clamp: round(−88·log2e) = −127, so the exponent
//     bits of 2ⁿ are 0 and 2ⁿ = +0 exactly, and e^x = y·0 + 0 = +0.
//
// Arguments at or above ExpMin are untouched by either, so their results
// are those of the former clamp to [ExpMin, ExpMax] bit for bit.
//
// Two tricks save three ALU instructions per register compared to a literal
// translation:
//
//   - Rounding. t = x·log2e + shift with shift = 1.5·2²³ + 127 rounds x·log2e
//     to an integer inside the FMA (float32 spacing is 1 in [2²³, 2²⁴)), so
//     n = t − shift needs no convert instructions, and the low bits of t hold
//     n + 127: t << 23 is the float32 2ⁿ. The FMA rounds the exact product,
//     which is never a tie (log2e has an odd 24-bit significand), so this is
//     round-to-nearest of x·log2e; exp32 rounds a rounded product and may
//     pick the other neighbour when that product is k + ½, which only moves
//     r across ±ln2/2.
//   - Scaling. e^x = (y + 1)·2ⁿ with y = p·r·r + r is computed as the FMA
//     y·2ⁿ + 2ⁿ: the same single rounding of y + 1, since scaling by 2ⁿ is
//     exact, and one instruction instead of an add and a multiply.
//
// y is formed as (p·r)·r + r rather than exp32's p·(r·r) + r: the product
// r·r would be a fourth live register per block, which the 16 registers of
// AVX2 cannot afford with four blocks in flight; the difference is a
// rounding of a term below 0.06, far below the final ulp.

// expConsts are the constants of the exponential. The values are those of
// simd/generic.go (the simd tests check them against it); they are
// converted to float32 exactly as Go converts the untyped constants there.
var expConsts = []constant{
	{"min", -87, false},                   // ExpMin: e^−87 ≈ 1.6e−38 is still normal
	{"max", 88, true},                     // ExpMax: e^88 ≈ 1.7e38 < MaxFloat32; VMINPS's first source
	{"zeroarg", -88, false},               // AVX2's stand-in below ExpMin: 2ⁿ = +0
	{"log2e", 1.44269504088896341, false}, // expLog2e
	{"shift", 1.5*(1<<23) + 127, false},   // expShift + 127: rounds; low bits n + 127
	{"c1", 0.693359375, false},            // expC1
	{"c2", -2.12194440e-4, false},         // expC2
	{"p0", 1.9875691500e-4, false},        // expP0 … expP5, highest degree first
	{"p1", 1.3981999507e-3, false},
	{"p2", 8.3334519073e-3, false},
	{"p3", 4.1665795894e-2, false},
	{"p4", 1.6666665459e-1, false},
	{"p5", 5.0000001201e-1, false},
}

// loadExpConsts loads the constants of expBlocks (see loadConsts).
func (g *gen) loadExpConsts() *constK { return g.loadConsts(g.expConstNames()...) }

// expConstNames lists the constants expBlocks takes from a constK: p0
// starts each Horner chain from memory, and AVX-512 masks the lanes below
// ExpMin instead of using zeroarg.
func (g *gen) expConstNames() []string {
	var names []string
	for _, c := range expConsts {
		if c.name != "p0" && !(c.name == "zeroarg" && g.be.opmask) {
			names = append(names, c.name)
		}
	}
	return names
}

// expBlocks computes e^x for every register of xs and returns the registers
// holding the results; xs are clobbered. Each step is emitted for all blocks
// before the next one, so independent instructions sit next to each other
// and the live registers per block stay at three (x/r, t, p).
func (g *gen) expBlocks(k *constK, xs []reg.VecVirtual) []reg.VecVirtual {
	// keep[i] marks the lanes of xs[i] at or above ExpMin (or NaN), on
	// AVX-512; AVX2 substitutes zeroArg for the others.
	var keep []reg.OpmaskVirtual
	if g.be.opmask {
		g.Comment("exp: keep = x ≥ ExpMin or NaN (the others become +0); x = min(x, ExpMax), x the second source so that NaN stays NaN")
		for _, x := range xs {
			kx := g.K()
			g.VCMPPS(operand.U8(cmpNLTUQ), k.op("min"), x, kx)
			keep = append(keep, kx)
		}
	} else {
		g.Comment("exp: x = zeroArg where x < ExpMin (e^x becomes +0); x = min(x, ExpMax), x the second source so that NaN stays NaN")
		for _, x := range xs {
			below := g.vec()
			g.VCMPPS(operand.U8(cmpLTOQ), k.op("min"), x, below)
			g.VBLENDVPS(below, k.op("zeroarg"), x, x)
		}
	}
	for _, x := range xs {
		g.VMINPS(x, k.reg("max"), x)
	}

	g.Comment("t = x·log2e + shift: round(x·log2e) + 127 in the low bits")
	ts := make([]reg.VecVirtual, len(xs))
	for i, x := range xs {
		ts[i] = g.vec()
		g.VBROADCASTSS(g.constEntry("shift"), ts[i])
		g.VFMADD231PS(k.op("log2e"), x, ts[i])
	}

	g.Comment("n = t − shift; r = x − n·c1 − n·c2")
	for i, x := range xs {
		n := g.vec()
		g.VSUBPS(k.op("shift"), ts[i], n)
		g.VFNMADD231PS(k.op("c1"), n, x)
		g.VFNMADD231PS(k.op("c2"), n, x)
	}

	g.Comment("p = ((((p0·r + p1)·r + p2)·r + p3)·r + p4)·r + p5")
	ps := make([]reg.VecVirtual, len(xs))
	for i, r := range xs {
		ps[i] = g.vec()
		g.VBROADCASTSS(g.constEntry("p0"), ps[i])
		g.VFMADD213PS(k.op("p1"), r, ps[i])
	}
	for _, c := range []string{"p2", "p3", "p4", "p5"} {
		for i, r := range xs {
			g.VFMADD213PS(k.op(c), r, ps[i])
		}
	}

	g.Comment("y = (p·r)·r + r")
	for i, r := range xs {
		g.VMULPS(r, ps[i], ps[i])
		g.VFMADD213PS(r, r, ps[i])
	}

	g.Comment("e^x = y·2ⁿ + 2ⁿ with 2ⁿ = t << 23")
	for i := range xs {
		g.VPSLLD(operand.U8(23), ts[i], ts[i])
		if g.be.opmask {
			g.VFMADD213PS_Z(ts[i], ts[i], keep[i], ps[i]) // +0 in the lanes below ExpMin
		} else {
			g.VFMADD213PS(ts[i], ts[i], ps[i])
		}
	}
	return ps
}
