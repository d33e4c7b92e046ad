package main

import (
	"slices"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// A constant is a float32 the kernels broadcast from the constant table.
type constant struct {
	name  string
	value float32
	// firstSource marks a constant that is the first source of a
	// VMINPS or VMAXPS: the second, the NaN-winning one, must be the
	// kernel's value, so the constant cannot be a memory operand and is
	// kept in a register on every backend.
	firstSource bool
}

// tableConsts are the entries of the constant table, in order: those of
// the exponential (exp.go), of sin and cos (sincos.go) and of the merge
// search (merge.go). The simd tests check the assembled table against the
// Go constants entry by entry.
var tableConsts = slices.Concat(expConsts, sinConsts, mergeConsts)

// constRepeat is the number of copies of each constant in the table: a
// full ymm register, so that AVX2 can use an entry as a memory operand.
// AVX-512 broadcasts the first copy.
const constRepeat = 8

// constTable emits the constant table, one constRepeat·4-byte entry per
// constant. It is file-local (<>) so both backends can have one.
func (g *gen) constTable() operand.Mem {
	m := g.StaticGlobal("consts")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for i, c := range tableConsts {
		for r := 0; r < constRepeat; r++ {
			g.AddDatum(4*(i*constRepeat+r), operand.F32(c.value))
		}
	}
	return m
}

// lookupConst returns the index of the named constant in the table.
func lookupConst(name string) int {
	for i, c := range tableConsts {
		if c.name == name {
			return i
		}
	}
	panic("unknown constant " + name)
}

// constEntry returns the table entry of the named constant.
func (g *gen) constEntry(name string) operand.Mem {
	return g.table.Offset(4 * constRepeat * lookupConst(name))
}

// constK gives a kernel its constants: registers where the backend keeps
// them there (and for first sources), full-width table entries otherwise.
type constK struct {
	g    *gen
	regs map[string]reg.VecVirtual
}

// loadConsts broadcasts the named constants that live in registers for the
// whole kernel: all of them with constsInRegs, else the first sources.
// Call it once, before the loop.
func (g *gen) loadConsts(names ...string) *constK {
	k := &constK{g: g, regs: map[string]reg.VecVirtual{}}
	for _, name := range names {
		if g.be.constsInRegs || tableConsts[lookupConst(name)].firstSource {
			r := g.vec()
			g.VBROADCASTSS(g.constEntry(name), r)
			k.regs[name] = r
		}
	}
	return k
}

// op returns the named constant as a source operand: its register, else
// its table entry, or where that is narrower than a register (zmm) a new
// register it is broadcast into.
func (k *constK) op(name string) operand.Op {
	if r, ok := k.regs[name]; ok {
		return r
	}
	if k.g.be.width() > 4*constRepeat {
		return k.g.bcast(name)
	}
	return k.g.constEntry(name)
}

// reg returns a constant that must be in a register.
func (k *constK) reg(name string) reg.VecVirtual {
	r, ok := k.regs[name]
	if !ok {
		panic("constant " + name + " is not in a register")
	}
	return r
}
