package main

import (
	"fmt"
	"math"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

const scoreTilesDoc = `	nearest := float32(math.Inf(1))
	for i := range kv {
		var d float32 // the squared distance, as sqdist
		for j := range dim {
			e := x[j] - tiles[(i/16*dim+j)*16+i%%16]
			d += e * e
		}
		if i < n {
			nearest = min(nearest, d)
		}
		kv[i] = exp32(scale * d)
	}
	for c := range dst {
		var sum float32
		for i := range kv {
			sum += kv[i] * w[c*stride+i]
		}
		dst[c] = sum
	}
	return nearest

in one pass over the tiles, each distance, kernel value and product in
registers from the tile row to the sums. len(tiles) must be a multiple of
dim·16 (dim ≥ 1), kv must hold one value per slot, x exactly dim values,
0 ≤ n ≤ len(kv), len(dst) between 1 and %d, stride ≥ len(kv) (any value for
one column), and w must hold every column. The bits of every distance, kernel
value and sum are those of sqdist followed by gaussianSumColumns with offset
0: the same instructions in the same order for each lane and accumulator.`

// scoreTiles is f(x) at small budgets in one call: the distances of a
// block of tiles (sqdist's feature loop, accumulators starting at zero),
// the least of them over the first n slots (the far-query test of package
// engine), their kernel values (gaussianSumColumns's exponential) stored
// to kv and, still in registers, multiplied into the column sums. Nothing
// goes through memory between the phases, and the exp constants stay in
// registers from the first tile to the last.
//
// The exponent is scale·d rounded (VMULPS), where gaussianSumColumns forms
// scale·d + 0 in one FMA: the two differ only in the sign of a zero
// product (d = 0), and the exponential maps both ±0 to exactly 1 (n = 0,
// r = +0 after the Cody–Waite steps). The offset, the shift of far queries,
// is not known before the least distance is: a caller that finds the
// least distance too far (engine's floorMargin) computes again with the
// two-phase kernels.
//
// The kernel values of a block go into the column sums as in
// gaussianSumLoop: one column over sumAccs accumulators, register i of a
// block of expUnroll registers into accumulator i, every register of a
// shorter block into the first; several columns one accumulator each, in
// register order. So the sums are gaussianSumColumns's bit for bit, for
// every column count up to fusedCols.
func (g *gen) scoreTiles() {
	be := g.be
	g.function("scoreTiles", "func(dst, kv, x, tiles, w []float32, stride, dim, n int, scale float32) float32",
		fmt.Sprintf(scoreTilesDoc, be.fusedCols))
	table := g.scoreTable()
	g.columnVariants("scoreColumns", func(c int) { g.scoreTilesLoop(c, table) })
}

// scoreTable emits the lane constants of scoreTiles, each a full register
// wide: the slot numbers of a register's lanes (from 0 with AVX-512, whose
// opmask compare picks the slots below n; from 1 with AVX2, whose compare
// picks those at or above it), the slots of one register (their step from
// register to register) and +Inf (the least distance before any).
func (g *gen) scoreTable() operand.Mem {
	be := g.be
	m := g.StaticGlobal("scorelanes")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	first := 1
	if be.opmask {
		first = 0
	}
	entries := []func(l int) uint32{
		func(l int) uint32 { return uint32(first + l) },
		func(int) uint32 { return uint32(be.lanes) },
		func(int) uint32 { return math.Float32bits(float32(math.Inf(1))) },
	}
	for e, value := range entries { // in order: the assembler wants DATA so
		for l := range be.lanes {
			g.AddDatum(e*be.width()+4*l, operand.U32(value(l)))
		}
	}
	return m
}

// scoreTilesLoop emits the loop of scoreTiles for cols columns.
func (g *gen) scoreTilesLoop(cols int, table operand.Mem) {
	be := g.be
	accs := 1
	if cols == 1 {
		accs = be.sumAccs
	}
	k := g.loadExpConsts()
	tiles, merged, free := g.scorePlan(cols, accs, len(k.regs))

	q := g.loadDense()
	tile := q.tiles // the first tile of the block
	kv := g.load(g.Param("kv").Base())
	n := g.load(g.Param("kv").Len())
	w := g.columnRows(cols)
	scale := g.vec()
	g.VBROADCASTSS(g.addr(g.Param("scale")), scale)
	nearest := g.vec()
	g.VMOVUPS(table.Offset(2*be.width()), nearest)
	slot := g.vec()
	g.VMOVUPS(table, slot)
	count := g.vec()
	g.VPBROADCASTD(g.addr(g.Param("n")), count)
	sums := g.zeroSums(cols, accs, scale)
	g.tileBlocks(n, tiles, merged, func(nt int) {
		nr := nt * be.rowRegs()
		inFlight := min(nr, (free-nr)/2)
		r := rows{base: []reg.GPVirtual{tile}, stride: q.stride, stride3: q.stride3}
		for m := 4; m < nt; m += 4 {
			b := g.GP64()
			g.LEAQ(operand.Mem{Base: r.base[len(r.base)-1], Index: q.stride, Scale: 4}, b)
			r.base = append(r.base, b)
		}
		d := make([]reg.VecVirtual, nr) // register i: half i%rowRegs of tile i/rowRegs
		for i := range d {
			d[i] = g.vec()
			be.zeroFrom(g, scale, d[i])
		}
		g.featureLoop(q, r, func(x operand.Mem) {
			xj := g.vec()
			g.VBROADCASTSS(x, xj)
			for i, a := range d {
				e := g.vec()
				g.VSUBPS(r.at(i/be.rowRegs(), i%be.rowRegs(), be.width()), xj, e)
				g.VFMADD231PS(e, e, a)
			}
		})
		// The feature loop moved tile on by one tile: on to the next block.
		for range nt - 1 {
			g.ADDQ(q.stride, tile)
		}
		g.Comment("nearest = min(nearest, d) over the slots below n")
		for _, a := range d {
			g.minBelow(nearest, a, slot, count, table)
		}
		g.Comment("the exponent scale·d")
		for _, a := range d {
			g.VMULPS(scale, a, a)
		}
		for first := 0; first < nr; first += inFlight {
			for i, y := range g.expBlocks(k, d[first:min(nr, first+inFlight)]) {
				i += first
				g.VMOVUPS(y, operand.Mem{Base: kv, Disp: i * be.width()})
				for c := range sums {
					// gaussianSumLoop's accumulators: by place in a whole
					// block, the first for the registers of the rest (in
					// a merged block, those after its whole block).
					a := 0
					if i < nt/tiles*tiles*be.rowRegs() {
						a = i % accs
					}
					g.VFMADD231PS(w.at(c, i, be.width()), y, sums[c][a])
				}
			}
		}
		g.ADDQ(operand.U32(nr*be.width()), kv)
		for _, b := range w.base {
			g.ADDQ(operand.U32(nr*be.width()), b)
		}
		g.SUBQ(operand.U32(nt*tileLanes), n)
	})
	g.scoreReturn(sums, nearest)
}

// zeroSums allocates accs accumulators per column, cleared from zero (not
// from themselves: see gaussianSumLoop).
func (g *gen) zeroSums(cols, accs int, zero reg.VecVirtual) [][]reg.VecVirtual {
	sums := make([][]reg.VecVirtual, cols)
	for c := range sums {
		for range accs {
			a := g.vec()
			g.be.zeroFrom(g, zero, a)
			sums[c] = append(sums[c], a)
		}
	}
	return sums
}

// scoreReturn stores the column sums in dst and the least distance as the
// result, and returns.
func (g *gen) scoreReturn(sums [][]reg.VecVirtual, nearest reg.VecVirtual) {
	g.storeSums(sums, operand.Mem{Base: g.load(g.Param("dst").Base())})
	g.reduce([]reg.VecVirtual{nearest}, g.minimum(), g.addr(g.ReturnIndex(0)))
	g.VZEROUPPER()
	g.RET()
}

// tileBlocks emits a loop running block(largest) while n (floats, 16 a
// tile) holds more than merged tiles, then one block(r) for the r ≤ merged
// tiles left, if any: the tiles of the rest go through their chains at
// once rather than one after the other. A small budget is mostly the
// rest: 100 vectors are 7 tiles, one block of 7 where two of 4 and 3 put
// the second block's distances and exponentials after the first's on the
// critical path of f(x). block must decrement n by its tiles' floats.
func (g *gen) tileBlocks(n reg.GPVirtual, largest, merged int, block func(nt int)) {
	loop, rest, done := g.label("tileBlocks"), g.label("rest"), g.label("blocksDone")
	g.Label(string(loop))
	g.CMPQ(n, operand.U32(merged*tileLanes))
	g.JBE(rest)
	block(largest)
	g.JMP(loop)
	g.Label(string(rest))
	for r := merged; r >= 1; r-- {
		next := g.label("rest")
		g.CMPQ(n, operand.U32(r*tileLanes))
		g.JNE(next)
		block(r)
		g.JMP(done)
		g.Label(string(next))
	}
	g.Label(string(done))
}

// scorePlan chooses the blocks of scoreTilesLoop for cols columns of
// accs accumulators, given the exp constants held in registers: the
// tiles of a whole block (their distances accumulate at once, one
// register of each per feature), the most tiles of the last block, which
// takes the whole block before it with the rest (merged: fewer than two
// whole blocks), and the registers free for a block's distances and
// exponentials. A block's registers go through the exponential as many
// at once as the free registers allow, three each (the distance that
// becomes the argument, t and p). More of either hides more of the
// 4-cycle latency of each step. Four scalars stay in registers besides:
// scale, the least distance, the slot numbers and n. With one column the
// whole blocks must be gaussianSumLoop's, expUnroll registers, for its
// accumulators' order; AVX2 takes two tiles (four registers) at most and,
// past three columns, one.
func (g *gen) scorePlan(cols, accs, consts int) (tiles, merged, free int) {
	be := g.be
	free = be.vecRegs - consts - 4 - cols*accs
	// fits reports whether a block of t tiles has its registers: the
	// distance phase needs one for x_j and one for a difference besides,
	// the exponential two per register in flight.
	fits := func(t int) bool {
		nr := t * be.rowRegs()
		return nr+2 <= free && (free-nr)/2 >= 1
	}
	for tiles = be.expUnroll / be.rowRegs(); tiles >= 1 && !fits(tiles); tiles-- {
	}
	if tiles < 1 {
		panic(fmt.Sprintf("%s: no register left for the exp blocks of %d columns", be.name, cols))
	}
	if accs > 1 && tiles*be.rowRegs() != be.expUnroll {
		// gaussianSumLoop's accumulator of a register depends on its
		// place in a block of expUnroll: the blocks must be the same.
		panic(fmt.Sprintf("%s: blocks of %d registers, gaussianSumColumns's of %d", be.name, tiles*be.rowRegs(), be.expUnroll))
	}
	for merged = 2*tiles - 1; !fits(merged); merged-- {
	}
	return tiles, merged, free
}

// minBelow lowers the lanes of nearest to those of d in the slots below n,
// whose numbers slot holds (count: n in every lane), and moves slot on by
// one register. AVX-512 merges the minimum under the compare's opmask;
// AVX2 sets the other lanes of d to all ones, a NaN, which VMINPS passes
// over when it is the first source (it returns the second on a NaN).
func (g *gen) minBelow(nearest, d, slot, count reg.VecVirtual, table operand.Mem) {
	be := g.be
	step := table.Offset(be.width())
	if be.opmask {
		below := g.K()
		g.VPCMPGTD(slot, count, below) // n > slot
		g.VMINPS(d, nearest, below, nearest)
		g.VPADDD_BCST(step, slot, slot)
		return
	}
	beyond := g.vec()
	g.VPCMPGTD(count, slot, beyond) // slot + 1 > n: the slot is n or beyond
	g.VPOR(beyond, d, beyond)
	g.VMINPS(nearest, beyond, nearest)
	g.VPADDD(step, slot, slot)
}
