package main

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
)

const fullRowDoc = `	for k := range idx {
		if idx[k] != int32(k) || math.Float32bits(val[k])&0x7f800000 == 0x7f800000 {
			return false
		}
	}
	return true

eight features at a time, in ymm registers on both backends. len(idx) must
be a multiple of 8 and val at least as long.`

// fullRowLanes is the number of features fullRow checks per register: a
// ymm of int32 or float32, the width of codrna's rows (8).
const fullRowLanes = 8

// fullRow: the check of a query's every step (engine's validate) that a
// sparse vector sets every feature, in order, to a finite value. The
// indices are compared with their places, the values' exponents with all
// ones; the lanes that pass are ANDed into one register, tested once after
// the loop. On ymm with AVX2 on both backends: the rows it serves are
// short, and a zmm would leave codrna's 8 features to the generic tail.
func (g *gen) fullRow() {
	g.function("fullRow", "func(idx []int32, val []float32) bool", fullRowDoc)
	idx := g.load(g.Param("idx").Base())
	val := g.load(g.Param("val").Base())
	n := g.load(g.Param("idx").Len())

	// The lane constants: the places of the first register's lanes, the
	// step from one register to the next, the exponent mask.
	table := g.StaticGlobal("fullrowlanes")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := range fullRowLanes {
		g.AddDatum(4*l, operand.U32(l))
	}
	for l := range fullRowLanes {
		g.AddDatum(32+4*l, operand.U32(fullRowLanes))
	}
	for l := range fullRowLanes {
		g.AddDatum(64+4*l, operand.U32(0x7f800000))
	}
	place, step, exponent := g.YMM(), g.YMM(), g.YMM()
	g.VMOVDQU(table, place)
	g.VMOVDQU(table.Offset(32), step)
	g.VMOVDQU(table.Offset(64), exponent)
	ok := g.YMM()
	g.VPCMPEQD(ok, ok, ok) // every lane passes so far

	loop, done := g.label("fullrow_loop"), g.label("fullrow_done")
	g.Label(string(loop))
	g.TESTQ(n, n)
	g.JZ(done)
	inPlace, bits, nonFinite := g.YMM(), g.YMM(), g.YMM()
	g.VPCMPEQD(operand.Mem{Base: idx}, place, inPlace)
	g.VPAND(operand.Mem{Base: val}, exponent, bits)
	g.VPCMPEQD(exponent, bits, nonFinite)
	g.VPANDN(inPlace, nonFinite, inPlace) // in place and finite
	g.VPAND(inPlace, ok, ok)
	g.VPADDD(step, place, place)
	g.ADDQ(operand.U32(4*fullRowLanes), idx)
	g.ADDQ(operand.U32(4*fullRowLanes), val)
	g.SUBQ(operand.U32(fullRowLanes), n)
	g.JMP(loop)

	g.Label(string(done))
	mask := g.GP32()
	g.VPMOVMSKB(ok, mask)
	g.CMPL(mask, operand.U32(0xffffffff))
	result := g.GP8()
	g.SETEQ(result)
	g.VZEROUPPER()
	g.Store(result, g.ReturnIndex(0))
	g.RET()
}
