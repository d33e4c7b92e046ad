package main

import (
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// A selector picks lanes for blend. AVX2 keeps it in a vector register
// whose lanes are picked where their sign bit is set (as VBLENDVPS reads
// it: a comparison's all-ones lanes, or any value's negative lanes),
// AVX-512 in an opmask register.
type selector struct {
	v reg.VecVirtual
	k reg.OpmaskVirtual
}

// compare returns the lanes where a pred b (a VCMPPS predicate).
func (g *gen) compare(pred uint8, b operand.Op, a reg.VecVirtual) selector {
	if g.be.opmask {
		s := selector{k: g.K()}
		g.VCMPPS(operand.U8(pred), b, a, s.k)
		return s
	}
	s := selector{v: g.vec()}
	g.VCMPPS(operand.U8(pred), b, a, s.v)
	return s
}

// negative returns the lanes of v below zero. On AVX2 they are those with
// the sign bit set, which adds −0 and the NaNs with their sign bit set;
// AVX-512 compares with zero. Callers must give both the same result on
// −0 and not depend on NaN lanes.
func (g *gen) negative(v reg.VecVirtual, k *constK) selector {
	if g.be.opmask {
		return g.compare(cmpLTOQ, k.op("zero"), v)
	}
	return selector{v: v}
}

// blend sets the lanes of into that s picks to ifSel (a register or a
// memory operand). It works in place: avo reads the destination of an
// instruction under an opmask as a source (merge-masking), so a fresh
// destination would be live from the function's start.
func (g *gen) blend(s selector, ifSel operand.Op, into reg.VecVirtual) {
	if g.be.opmask {
		g.VBLENDMPS(ifSel, into, s.k, into)
		return
	}
	g.VBLENDVPS(s.v, ifSel, into, into)
}

// bcast broadcasts the named constant into a new register.
func (g *gen) bcast(name string) reg.VecVirtual {
	r := g.vec()
	g.VBROADCASTSS(g.constEntry(name), r)
	return r
}

// Predicates of VCMPPS, all quiet (no exception on a NaN operand).
const (
	cmpLTOQ  = 0x11 // less than, false for NaN
	cmpLEOQ  = 0x12 // less than or equal, false for NaN
	cmpNLTUQ = 0x15 // not less than, true for NaN
	cmpGEOQ  = 0x1d // greater than or equal, false for NaN
	cmpGTOQ  = 0x1e // greater than, false for NaN
	cmpNEQUQ = 0x04 // not equal, true for NaN
)
