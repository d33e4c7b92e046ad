package main

import (
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

const axpyRowsDoc = `	for i, c := range coef {
		if c != 0 {
			for r := range y {
				y[r] += c * rows[i*stride+r]
			}
		}
	}

len(y) must be a multiple of 16 and stride at least len(y); rows must hold
(len(coef)−1)·stride + len(y) values when coef is not empty, and y must not
overlap rows. Each c·rows[i·stride+r] + y[r] is one FMA (one rounding), in
the order of i, as axpy's row by row. The rows of zero coefficients are not
read.`

// axpyRowsRegs is the most registers of y that axpyRows holds in
// accumulators during one scan of coef: 16 zmm (256 floats: NOGD's rank
// up to 256 in one scan) or 12 ymm (with the broadcast coefficient, the
// zero and the comparison, 15 of AVX2's 16).
func (be *backend) axpyRowsRegs() int {
	if be.opmask {
		return 16
	}
	return 12
}

// axpyRows: y is taken in chunks of up to axpyRowsRegs registers, held in
// accumulators while coef is scanned once: a block of coefficients (one
// register) is compared with zero, and the rows of the non-zero ones,
// lowest first (BSF, then clearing that bit), are added by one FMA per
// register with the row as its memory operand. Coefficients past the last
// whole block go one at a time, tested as integers (the bits past the
// sign: zero for ±0 only, as c != 0). A chunk of n registers runs code of
// its own (n FMAs per row), reached by comparing what is left of y; y's
// length is a multiple of 16 floats, so n is a multiple of rowRegs.
func (g *gen) axpyRows() {
	g.function("axpyRows", "func(y, coef, rows []float32, stride int)", axpyRowsDoc)
	be := g.be
	y := g.load(g.Param("y").Base())
	left := g.load(g.Param("y").Len())
	coef := g.load(g.Param("coef").Base())
	m := g.load(g.Param("coef").Len())
	rows := g.load(g.Param("rows").Base())
	stride := g.load(g.Param("stride"))
	g.SHLQ(operand.U8(2), stride) // in bytes
	zero := g.vec()
	be.zero(g, zero)

	step, maxRegs := be.rowRegs(), be.axpyRowsRegs()
	chunk, done := g.label("axpyrows_chunk"), g.label("axpyrows_done")
	variants := map[int]operand.LabelRef{}
	for n := step; n <= maxRegs; n += step {
		variants[n] = g.label("axpyrows_regs")
	}
	g.Label(string(chunk))
	g.TESTQ(left, left)
	g.JZ(done)
	for n := maxRegs; n > step; n -= step {
		g.CMPQ(left, operand.U32(n*be.lanes))
		g.JAE(variants[n])
	}
	g.JMP(variants[step])
	for n := maxRegs; n >= step; n -= step {
		g.Label(string(variants[n]))
		g.axpyRowsChunk(n, y, coef, m, rows, stride, zero)
		g.ADDQ(operand.U32(n*be.width()), y)
		g.ADDQ(operand.U32(n*be.width()), rows)
		g.SUBQ(operand.U32(n*be.lanes), left)
		g.JMP(chunk)
	}
	g.Label(string(done))
	g.VZEROUPPER()
	g.RET()
}

// axpyRowsChunk emits one scan of coef's m coefficients that adds their
// rows' first n registers (at rows, stride bytes apart) to the n registers
// of y.
func (g *gen) axpyRowsChunk(n int, y, coef, m, rows, stride reg.GPVirtual, zero reg.VecVirtual) {
	be := g.be
	acc := make([]reg.VecVirtual, n)
	for q := range acc {
		acc[q] = g.vec()
		g.VMOVUPS(operand.Mem{Base: y, Disp: q * be.width()}, acc[q])
	}
	// addRow adds the row of coefficient i (an index register).
	addRow := func(i reg.GPVirtual) {
		c, at := g.vec(), g.GP64()
		g.VBROADCASTSS(operand.Mem{Base: coef, Index: i, Scale: 4}, c)
		g.MOVQ(i, at)
		g.IMULQ(stride, at)
		g.ADDQ(rows, at)
		for q := range acc {
			g.VFMADD231PS(operand.Mem{Base: at, Disp: q * be.width()}, c, acc[q])
		}
	}

	blocks, bits, next := g.label("axpyrows_blocks"), g.label("axpyrows_bits"), g.label("axpyrows_next")
	single, skip, end := g.label("axpyrows_single"), g.label("axpyrows_skip"), g.label("axpyrows_end")
	i, last := g.GP64(), g.GP64() // i: the block's first coefficient
	g.XORQ(i, i)
	g.Label(string(blocks))
	g.LEAQ(operand.Mem{Base: i, Disp: be.lanes}, last)
	g.CMPQ(last, m)
	g.JA(single)
	mask := g.GP32()
	if be.opmask {
		k := g.K()
		g.VCMPPS(operand.U8(cmpNEQUQ), operand.Mem{Base: coef, Index: i, Scale: 4}, zero, k)
		g.KMOVW(k, mask)
	} else {
		nz := g.vec()
		g.VCMPPS(operand.U8(cmpNEQUQ), operand.Mem{Base: coef, Index: i, Scale: 4}, zero, nz)
		g.VMOVMSKPS(nz, mask)
	}
	g.Label(string(bits))
	g.TESTL(mask, mask)
	g.JZ(next)
	j := g.GP64()
	g.XORQ(j, j)           // all of j defined (BSFL writes its low half), no false dependency
	g.BSFL(mask, j.As32()) // the lowest non-zero coefficient left
	g.BTRL(j.As32(), mask)
	g.ADDQ(i, j)
	addRow(j)
	g.JMP(bits)
	g.Label(string(next))
	g.MOVQ(last, i)
	g.JMP(blocks)

	g.Label(string(single))
	g.CMPQ(i, m)
	g.JAE(end)
	v := g.GP32()
	g.MOVL(operand.Mem{Base: coef, Index: i, Scale: 4}, v)
	g.SHLL(operand.U8(1), v) // the sign out: zero for ±0
	g.JZ(skip)
	addRow(i)
	g.Label(string(skip))
	g.INCQ(i)
	g.JMP(single)

	g.Label(string(end))
	for q := range acc {
		g.VMOVUPS(acc[q], operand.Mem{Base: y, Disp: q * be.width()})
	}
}
