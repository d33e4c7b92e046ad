package main

import (
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

const doubleAnglesDoc = `	for k := 1; k < levels; k++ {
		for i := range n {
			c, s := z[(k-1)*2*n+i], z[(k-1)*2*n+n+i]
			z[k*2*n+i] = c*c - s*s // one FMA of c·c and −(s·s)
			z[k*2*n+n+i] = (s + s) * c
		}
	}

n must be a multiple of 16 and len(z) ≥ levels·2·n, levels ≥ 1: the
cosines and sines of FourierWidths's level 0 turned into those of the
doubled angles, level after level.`

// doubleAngles: a block of registers of level 0's cosines and sines is
// loaded once and carried through every level in registers, each level
// stored as it is made. A level costs four instructions per register
// (s·s, s+s, (2s)·c, c·c − s·s); the registers of a block are independent
// chains, which hide the latency of the level before.
func (g *gen) doubleAngles() {
	g.function("doubleAngles", "func(z []float32, n, levels int)", doubleAnglesDoc)
	be := g.be
	z := g.load(g.Param("z").Base())
	n := g.load(g.Param("n"))
	levels := g.load(g.Param("levels"))
	half := g.GP64() // bytes of one level's cosines
	g.MOVQ(n, half)
	g.SHLQ(operand.U8(2), half)
	stride := g.GP64() // bytes of one level
	g.LEAQ(operand.Mem{Base: half, Index: half, Scale: 1}, stride)
	done := g.label("done")
	g.CMPQ(levels, operand.U32(2))
	g.JB(done)
	// Three registers per chain: the cosine, the sine and s·s.
	unroll := min(8, (be.vecRegs-2)/3)
	g.unrolled(n, unroll, be.lanes, func(nb int) {
		c, s := make([]reg.VecVirtual, nb), make([]reg.VecVirtual, nb)
		for i := range nb {
			c[i], s[i] = g.vec(), g.vec()
			g.VMOVUPS(operand.Mem{Base: z, Disp: i * be.width()}, c[i])
			g.VMOVUPS(operand.Mem{Base: z, Index: half, Scale: 1, Disp: i * be.width()}, s[i])
		}
		q, left := g.GP64(), g.GP64()
		g.MOVQ(z, q)
		g.MOVQ(levels, left)
		g.DECQ(left)
		level := g.label("level")
		g.Label(string(level))
		g.ADDQ(stride, q)
		for i := range nb {
			ss := g.vec()
			g.VMULPS(s[i], s[i], ss)
			g.VADDPS(s[i], s[i], s[i])
			g.VMULPS(c[i], s[i], s[i])    // sin 2θ = (2s)·c
			g.VFMSUB213PS(ss, c[i], c[i]) // cos 2θ = c·c − s·s
			g.VMOVUPS(c[i], operand.Mem{Base: q, Disp: i * be.width()})
			g.VMOVUPS(s[i], operand.Mem{Base: q, Index: half, Scale: 1, Disp: i * be.width()})
		}
		g.DECQ(left)
		g.JNZ(level)
		g.ADDQ(operand.U32(nb*be.width()), z)
		g.SUBQ(operand.U32(nb*be.lanes), n)
	})
	g.Label(string(done))
	g.VZEROUPPER()
	g.RET()
}
