package main

import (
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The replacement costs of BPA-S (paCostsGeneric of simd/generic.go), one
// support vector per float64 lane, in registers of exactWidth bytes (ymm on
// both backends: see exactWidth). Every operation is the generic code's,
// rounded once and in its order, so the costs are its bits: products and
// sums are separate instructions (no FMA), 2·kr is kr + kr and /2 is ·0.5,
// both exact. The loss's max(0, ·) is VMAXPD with +0 as the first source:
// it returns the second, the loss, when the loss is NaN, −0 or +0, as the
// generic code's "if loss < 0" keeps it.
//
// Ten registers hold the scalars and the running least, five the work of
// one register of candidates: fifteen of the sixteen a VEX encoding
// reaches, so there is no unrolling; the iterations are independent but
// for the least, and overlap. With no register left for the candidates'
// indices, the first index of the least is found after the loop, by
// comparing the costs, still in L1, with it, a register at a time: the
// first equal one, as the generic code's strict "<" keeps the first
// (−0 and +0 are equal in both).

const paCostsDoc = `	best, least := -1, math.Inf(1)
	for r := range q {
		kr := factor * float64(kernels[r])
		a := alpha[r]
		beta := a*kr + step
		fr := f - a*kr + beta
		loss := math.Float64frombits(math.Float64bits(o+s*fr)&mask) - eps
		if loss < 0 {
			loss = 0
		}
		q[r] = (a*a+beta*beta-2*kr*(a*beta))/2 + c*loss
		if q[r] < least {
			best, least = r, q[r]
		}
	}
	return best, least

with every product and sum rounded once, in this order: the generic code's
bits. len(q) must be a multiple of 4, kernels and alpha at least as long;
q must not overlap them. A NaN cost is never the least; +Inf and −1 are
returned when no cost is below it.`

func (g *gen) paCosts() {
	g.function("paCosts", "func(q []float64, kernels []float32, alpha []float64, factor, step, f, o, s, eps, c float64, mask uint64) (best int, least float64)", paCostsDoc)
	w := g.be.exactWidth
	lanes := w / 8
	q := g.load(g.Param("q").Base())
	kernels := g.load(g.Param("kernels").Base())
	alpha := g.load(g.Param("alpha").Base())
	n := g.load(g.Param("q").Len())
	scalar := func(name string) reg.VecVirtual {
		v := g.vec64()
		g.VBROADCASTSD(g.addr(g.Param(name)), v)
		return v
	}
	factor, step, f, o, s := scalar("factor"), scalar("step"), scalar("f"), scalar("o"), scalar("s")
	eps, c, mask := scalar("eps"), scalar("c"), scalar("mask")
	half := g.vec64()
	g.VCVTPS2PD(g.constEntry("half"), half)
	least := g.vec64()
	g.infinity(least)

	g.unrolled(n, 1, lanes, func(int) {
		g.Comment("kr = factor·k, akr = a·kr, beta = akr + step")
		kr, akr, beta := g.vec64(), g.vec64(), g.vec64()
		g.VCVTPS2PD(operand.Mem{Base: kernels}, kr) // w/2 bytes of float32
		g.VMULPD(kr, factor, kr)
		g.VMULPD(operand.Mem{Base: alpha}, kr, akr)
		g.VADDPD(step, akr, beta)
		g.Comment("fr = (f − akr) + beta; loss = max(0, (o + s·fr) & mask − eps)")
		fr := akr
		g.VSUBPD(akr, f, fr)
		g.VADDPD(beta, fr, fr)
		g.VMULPD(fr, s, fr)
		g.VADDPD(o, fr, fr)
		g.VANDPD(mask, fr, fr)
		loss := fr
		g.VSUBPD(eps, loss, loss)
		zero := g.vec64()
		g.zero64(zero, zero)
		g.VMAXPD(loss, zero, loss)
		g.VMULPD(loss, c, loss)
		g.Comment("q = ((a·a + beta·beta) − (kr + kr)·(a·beta))·½ + c·loss")
		a, ab := g.vec64(), g.vec64()
		g.VMOVUPD(operand.Mem{Base: alpha}, a)
		g.VMULPD(beta, a, ab)
		g.VMULPD(a, a, a)
		g.VMULPD(beta, beta, beta)
		g.VADDPD(beta, a, a)
		g.VADDPD(kr, kr, kr)
		g.VMULPD(ab, kr, ab)
		g.VSUBPD(ab, a, a)
		g.VMULPD(half, a, a)
		g.VADDPD(loss, a, a)
		g.VMOVUPD(a, operand.Mem{Base: q})
		g.Comment("least = q < least ? q : least (a NaN q keeps least)")
		g.VMINPD(least, a, least)
		g.ADDQ(operand.U32(w), q)
		g.ADDQ(operand.U32(w/2), kernels)
		g.ADDQ(operand.U32(w), alpha)
		g.SUBQ(operand.U32(lanes), n)
	})
	g.reduce([]reg.VecVirtual{least}, g.minimum64(), g.addr(g.ReturnIndex(1)))
	g.firstEqual(lanes)
	g.VZEROUPPER()
	g.RET()
}

// infinity sets every float64 lane of v to +Inf: all ones, shifted down
// to an exponent's 11 bits and back up.
func (g *gen) infinity(v reg.VecVirtual) {
	g.Comment("+Inf: all ones, shifted down to an exponent's 11 bits and back up")
	g.VPCMPEQQ(v, v, v)
	g.VPSRLQ(operand.U8(53), v, v)
	g.VPSLLQ(operand.U8(52), v, v)
}

// firstEqual stores as paCosts' best the first r with q[r] equal to the
// least it stored (never NaN), or −1 when the least is +Inf, comparing
// lanes costs at a time.
func (g *gen) firstEqual(lanes int) {
	g.Comment("best = the first r with q[r] == least; −1 when least is +Inf")
	best := g.GP64()
	g.MOVQ(operand.I32(-1), best)
	target, inf := g.vec64(), g.vec64()
	g.VBROADCASTSD(g.addr(g.ReturnIndex(1)), target)
	g.infinity(inf)
	done, loop, found := g.label("none"), g.label("search"), g.label("found")
	g.VUCOMISD(half(inf), half(target))
	g.JE(done)
	q := g.load(g.Param("q").Base())
	n := g.load(g.Param("q").Len())
	g.XORQ(best, best)
	g.Label(string(loop))
	eq := g.vec64()
	g.VCMPPD(operand.U8(0), operand.Mem{Base: q, Index: best, Scale: 8}, target, eq) // EQ_OQ
	bits := g.GP32()
	g.VMOVMSKPD(eq, bits)
	g.TESTL(bits, bits)
	g.JNZ(found)
	g.ADDQ(operand.U32(lanes), best)
	g.CMPQ(best, n)
	g.JB(loop)
	g.MOVQ(operand.I32(-1), best) // not reached: the least is one of the costs
	g.JMP(done)
	g.Label(string(found))
	g.BSFL(bits, bits)
	g.ADDQ(bits.As64(), best)
	g.Label(string(done))
	g.Store(best, g.ReturnIndex(0))
}
