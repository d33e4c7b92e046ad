package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The merge search of BSGD (mergeSearch32 of simd/generic.go), one
// candidate per lane: every lane runs its own golden-section search, with
// its own bracket, for the same number of steps.
//
// A step is a chain of two exponentials (the comparison's scale, then the
// new point's value) and about 80 instructions: some 75 cycles deep, but
// about 20 cycles of throughput per register. So mergeVecs registers of
// candidates run their steps interleaved. Their state (the bracket and the
// two kept values, each an exponent and a scaled value: six registers per
// register of candidates) lives in the stack frame, 64-byte aligned: each
// step loads it and stores it back, little next to its exponentials, and
// the registers stay free for the constants and the exponentials.

// mergeConsts are the constants of the merge search besides the sine's
// one and half (values as simd/generic.go's; the simd tests check them).
var mergeConsts = []constant{
	{"gamma", 0.618033988749894848, false},     // mergeGamma = (√5 − 1)/2
	{"inner", 0.236067977499789696, false},     // mergeInner = 2γ − 1
	{"minusone", -1, true},                     // VMAXPS's first source in the NaN probe; −1 ⊕ 1 is the sign bit
	{"minusfive", -5, false},                   // the interval [−5, 0]
	{"six", 6, false},                          // the interval [1, 6]
	{"zero", 0, false},                         // the interval end 0; h = 0 for orthogonal points
	{"lowest", -3.4028234663852886e+38, false}, // −MaxFloat32: lk below it is −Inf
}

// mergeVecs is the number of registers of candidates whose searches run
// interleaved: four cover the latency of a step, about four times a
// register's throughput.
const mergeVecs = 4

// mergeSlots are the registers of state per register of candidates in the
// stack frame: the bracket, then the exponent and scaled value of f at
// its interior points p < q.
const (
	slotLo = iota
	slotHi
	slotMp
	slotVp
	slotMq
	slotVq
	mergeSlots
)

const mergeSearchDoc = `	for i := range h {
		h[i] = mergeSearch32(a1[i], a2[i], lk[i]) // with steps steps
	}

len(h) must be a multiple of 16 and len(a1) == len(a2) == len(lk) == len(h);
h must not overlap the inputs. The arithmetic is mergeSearch32's with every
a·b + c one FMA (steps ≤ 0 runs none).`

// mergeSearch: blocks of mergeVecs registers (then 2, then 1), each block's
// searches started, stepped steps times one register after the other, and
// finished.
func (g *gen) mergeSearch() {
	g.function("mergeSearch", "func(h, a1, a2, lk []float32, steps int)", mergeSearchDoc)
	g.Attributes(0) // not NOSPLIT: the frame is too large for the nosplit limit
	be := g.be
	k := g.loadConsts(append(g.expConstNames(), "one", "half", "gamma", "inner", "zero", "minusone")...)
	// The sign bit, for −|x| = x | sign: the XOR of 1 and −1.
	sign := g.bcast("one")
	be.xor(g, k.reg("minusone"), sign, sign)
	m := &merge{g: g, k: k, sign: sign}

	frame := g.AllocLocal(mergeVecs*mergeSlots*be.width() + 64)
	m.state = g.GP64()
	g.LEAQ(frame.Offset(63), m.state)
	g.ANDQ(operand.I32(-64), m.state) // aligned: stores forward to full loads
	m.h = g.load(g.Param("h").Base())
	m.a1 = g.load(g.Param("a1").Base())
	m.a2 = g.load(g.Param("a2").Base())
	m.lk = g.load(g.Param("lk").Base())
	n := g.load(g.Param("h").Len())
	g.SHLQ(operand.U8(2), n) // bytes of h
	g.blockLoop(n, mergeVecs, be.width(), false, func(nb int, t reg.GPVirtual) {
		m.t = t
		for v := range nb {
			m.start(v)
		}
		steps := g.load(g.Param("steps"))
		loop, done := g.label(fmt.Sprintf("steps%d", nb)), g.label("finish")
		g.TESTQ(steps, steps)
		g.JLE(done)
		g.Label(string(loop))
		for v := range nb {
			m.step(v)
		}
		g.DECQ(steps)
		g.JNZ(loop)
		g.Label(string(done))
		for v := range nb {
			m.finish(v)
		}
	})
	g.VZEROUPPER()
	g.RET()
}

// merge holds what the code of a block of searches refers to.
type merge struct {
	g         *gen
	k         *constK
	sign      reg.VecVirtual // the sign bit in every lane
	state     reg.GPVirtual  // the 64-byte aligned state in the frame
	h, a1, a2 reg.GPVirtual  // argument bases
	lk, t     reg.GPVirtual  // argument base; the block's byte offset
}

// slot returns the state s of register v of the block.
func (m *merge) slot(v, s int) operand.Mem {
	return operand.Mem{Base: m.state, Disp: (v*mergeSlots + s) * m.g.be.width()}
}

// arg returns register v of the block in the argument whose base is base.
func (m *merge) arg(base reg.GPVirtual, v int) operand.Mem {
	return operand.Mem{Base: base, Index: m.t, Scale: 1, Disp: v * m.g.be.width()}
}

// loadSlot loads state s of register v into a new register.
func (m *merge) loadSlot(v, s int) reg.VecVirtual {
	r := m.g.vec()
	m.g.VMOVUPS(m.slot(v, s), r)
	return r
}

// start chooses the interval of every lane of register v and evaluates f
// at its interior points.
func (m *merge) start(v int) {
	g, k := m.g, m.k
	g.Commentf("start %d: [0, 1] where a1·a2 > 0, else [1, 6] where a1 > 0, else [−5, 0]", v)
	a1 := g.vec()
	g.VMOVUPS(m.arg(m.a1, v), a1)
	prod := g.vec()
	g.VMULPS(m.arg(m.a2, v), a1, prod)
	both := g.compare(cmpGTOQ, k.op("zero"), prod)
	pos := g.compare(cmpGTOQ, k.op("zero"), a1)
	lo, hi := g.bcast("minusfive"), g.bcast("zero")
	g.blend(pos, k.op("one"), lo)
	g.blend(both, k.op("zero"), lo)
	g.blend(pos, g.bcast("six"), hi)
	g.blend(both, k.op("one"), hi)
	g.VMOVUPS(lo, m.slot(v, slotLo))
	g.VMOVUPS(hi, m.slot(v, slotHi))
	g.Comment("p = hi − γ·w, q = lo + γ·w")
	w := g.vec()
	g.VSUBPS(lo, hi, w)
	g.VFNMADD231PS(k.op("gamma"), w, hi)
	g.VFMADD231PS(k.op("gamma"), w, lo)
	mp, vp := m.value(v, hi)
	g.VMOVUPS(mp, m.slot(v, slotMp))
	g.VMOVUPS(vp, m.slot(v, slotVp))
	mq, vq := m.value(v, lo)
	g.VMOVUPS(mq, m.slot(v, slotMq))
	g.VMOVUPS(vq, m.slot(v, slotVq))
}

// step runs one step of the searches of register v.
func (m *merge) step(v int) {
	g, k := m.g, m.k
	g.Commentf("step %d: f(p) ≥ f(q)?", v)
	keep := m.atLeast(m.loadSlot(v, slotMp), m.loadSlot(v, slotVp), m.slot(v, slotMq), m.slot(v, slotVq))

	g.Comment("[lo, q] where f(p) ≥ f(q), else [p, hi]: from the end kept, base, the other end at base ± γ·w and the new point at base ± (2γ−1)·w")
	base, other := m.loadSlot(v, slotHi), m.loadSlot(v, slotLo)
	g.blend(keep, m.slot(v, slotLo), base)
	g.blend(keep, m.slot(v, slotHi), other)
	w := other
	g.VSUBPS(base, other, w)
	end, x := g.vec(), g.vec()
	g.VMOVAPS(base, end)
	g.VFMADD231PS(k.op("gamma"), w, end)
	g.VMOVAPS(base, x)
	g.VFMADD231PS(k.op("inner"), w, x)
	hi := m.loadSlot(v, slotHi)
	g.blend(keep, end, hi) // q where f(p) ≥ f(q)
	lo := end
	g.blend(keep, m.slot(v, slotLo), lo) // else p
	g.VMOVUPS(lo, m.slot(v, slotLo))
	g.VMOVUPS(hi, m.slot(v, slotHi))

	mx, vx := m.value(v, x)
	g.Comment("the new point is p where f(p) ≥ f(q), and p moves to q; else it is q, and q moves to p")
	for _, s := range []struct{ p, q int }{{slotMp, slotMq}, {slotVp, slotVq}} {
		newX := mx
		if s.p == slotVp {
			newX = vx
		}
		p := m.loadSlot(v, s.q)
		g.blend(keep, newX, p)
		q := newX
		g.blend(keep, m.slot(v, s.p), q) // the old p, read before it is stored
		g.VMOVUPS(p, m.slot(v, s.p))
		g.VMOVUPS(q, m.slot(v, s.q))
	}
}

// finish writes the middle of the brackets of register v into h: 1 where
// lk = −Inf and |a1| ≥ |a2|, 0 where lk = −Inf otherwise, NaN where an
// input is NaN.
func (m *merge) finish(v int) {
	g, k := m.g, m.k
	g.Commentf("finish %d: h = (lo + hi)·½", v)
	h := m.loadSlot(v, slotLo)
	g.VADDPS(m.slot(v, slotHi), h, h)
	g.VMULPS(k.op("half"), h, h)
	g.Comment("where lk = −Inf (below −MaxFloat32): h = 1 if −|a1| ≤ −|a2| else 0")
	lk := g.vec()
	g.VMOVUPS(m.arg(m.lk, v), lk)
	orth := g.compare(cmpLTOQ, g.bcast("lowest"), lk)
	n1, n2 := g.vec(), g.vec()
	g.VMOVUPS(m.arg(m.a1, v), n1)
	g.VMOVUPS(m.arg(m.a2, v), n2)
	g.be.or(g, m.sign, n1, n1)
	g.be.or(g, m.sign, n2, n2)
	first := g.compare(cmpLEOQ, n2, n1)
	ho := g.bcast("zero")
	g.blend(first, k.op("one"), ho)
	g.blend(orth, ho, h)
	g.Comment("NaN where a1, a2 or lk is: h += 0·(max(−1, lk) + a1 + a2), lk the NaN-winning source")
	probe := g.vec()
	g.VMAXPS(lk, k.reg("minusone"), probe)
	g.VADDPS(m.arg(m.a1, v), probe, probe)
	g.VADDPS(m.arg(m.a2, v), probe, probe)
	g.VFMADD231PS(k.op("zero"), probe, h)
	g.VMOVUPS(h, m.arg(m.h, v))
}

// value emits mergeValue of simd/generic.go for the points x of register
// v: f(x) = e^M·V with M = max(A, B), A = (x−1)²·lk, B = x²·lk, and
// V = a1 + a2·e^(B−A) where B − A is negative, else a1·e^(A−B) + a2. x is
// clobbered.
func (m *merge) value(v int, x reg.VecVirtual) (mx, vx reg.VecVirtual) {
	g, k := m.g, m.k
	g.Comment("f(x) = e^M·V: A = (x−1)²·lk, B = x²·lk, M = max(A, B), V = big + small·e^(−|B−A|)")
	lk := m.arg(m.lk, v)
	a := g.vec()
	g.VSUBPS(k.op("one"), x, a)
	g.VMULPS(a, a, a)
	g.VMULPS(lk, a, a)
	g.VMULPS(x, x, x)
	g.VMULPS(lk, x, x)
	b := x
	mx = g.vec()
	g.VMAXPS(b, a, mx)
	diff := g.vec()
	g.VSUBPS(a, b, diff)
	e := g.vec()
	g.be.or(g, m.sign, diff, e)
	e = g.expBlocks(k, []reg.VecVirtual{e})[0]
	neg := g.negative(diff, k)
	small, vx := g.vec(), g.vec()
	g.VMOVUPS(m.arg(m.a1, v), small)
	g.VMOVUPS(m.arg(m.a2, v), vx)
	g.blend(neg, m.arg(m.a1, v), vx)    // the big term: a1 where B ≤ A, else a2
	g.blend(neg, m.arg(m.a2, v), small) // the small one
	g.VFMADD231PS(e, small, vx)
	return mx, vx
}

// atLeast returns the lanes where e^mp·vp ≥ e^mq·vq: the value of the
// smaller exponent is scaled by e^(−|mp − mq|).
func (m *merge) atLeast(mp, vp reg.VecVirtual, mq, vq operand.Mem) selector {
	g, k := m.g, m.k
	delta := g.vec()
	g.VSUBPS(mq, mp, delta)
	e := g.vec()
	g.be.or(g, m.sign, delta, e)
	e = g.expBlocks(k, []reg.VecVirtual{e})[0]
	neg := g.negative(delta, k)
	scaled, rhs := g.vec(), g.vec()
	g.VMULPS(e, vp, scaled)
	lhs := vp
	g.blend(neg, scaled, lhs) // vp·e where mp ≤ mq, else vp
	g.VMULPS(vq, e, rhs)
	g.blend(neg, vq, rhs) // vq where mp ≤ mq, else vq·e
	return g.compare(cmpGEOQ, rhs, lhs)
}
