package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The block of MatMul64 (simd/matmul.go): mulAddRows×mulAddCols elements of
// C kept in registers of exactWidth bytes (ymm on both backends, as
// sqdist64) while k rank-one updates are added to them, each product and
// each sum a separate instruction (no FMA): an element's sum is rounded
// after every term, in the order of l, as the generic loop and gonum's
// Dgemm add them. For every l, two registers of row l of B serve the six
// rows of A, one broadcast of a(r, l) each: 12 multiplications and 12
// additions for 2 loads and 6 broadcasts, which keeps both the multiply and
// the add ports busy (Zen 4: two of each) and every accumulator's chain of
// additions (12 in flight) ahead of its 3-cycle latency. Twelve
// accumulators, the two rows of B, the broadcast and a product fill the
// sixteen registers a VEX encoding reaches. Against four rows (8
// accumulators), six multiplied NOGD's kernel matrix 6% faster.
//
// mulAdd64Half is the same block four columns wide, for the columns of C
// beyond whole blocks of eight (a width of 300 leaves four): the generic
// loop there was an eighth of a product's time.

const (
	// mulAddRows is the number of rows of A (and C) of a block.
	mulAddRows = 6
	// mulAddCols is the number of columns of B (and C) of a block;
	// mulAdd64Half's are half as many.
	mulAddCols = 8
)

// mulAdd64Doc is the doc of the block of cols columns.
func mulAdd64Doc(cols int) string {
	return fmt.Sprintf(`	for r := range %d {
		for j := range %d {
			acc := c[r*ldc+j]
			for l := range k {
				acc += float64(a[r*aRow+l*aCol] * b[l*ldb+j])
			}
			c[r*ldc+j] = acc
		}
	}

Each product and each sum is rounded once, in the order of l. The caller
checks that every element read or written is in its slice; c must not
overlap a or b.`, mulAddRows, cols)
}

// mulAdd64 emits the block of cols columns as the function name.
func (g *gen) mulAdd64(name string, cols int) {
	g.function(name, "func(c []float64, ldc int, a []float64, aRow, aCol int, b []float64, ldb int, k int)", mulAdd64Doc(cols))
	w := g.be.exactWidth
	regsPerRow := cols * 8 / w
	bytes := func(name string) reg.GPVirtual { // a stride in elements, in bytes
		r := g.load(g.Param(name))
		g.SHLQ(operand.U8(3), r)
		return r
	}
	c := g.load(g.Param("c").Base())
	a := g.load(g.Param("a").Base())
	b := g.load(g.Param("b").Base())
	ldc, aRow, aCol, ldb := bytes("ldc"), bytes("aRow"), bytes("aCol"), bytes("ldb")
	k := g.load(g.Param("k"))
	// Rows 0–2 of a block are addressed from its row 0, rows 3–5 from its
	// row 3: x86 addresses have one scaled index.
	second := func(base, step reg.GPVirtual) reg.GPVirtual {
		r := g.GP64()
		g.LEAQ(operand.Mem{Base: step, Index: step, Scale: 2}, r)
		g.ADDQ(base, r)
		return r
	}
	c3, a3 := second(c, ldc), second(a, aRow)
	row := func(base, base3, step reg.GPVirtual, r, disp int) operand.Mem {
		m := operand.Mem{Base: base, Disp: disp}
		if r >= 3 {
			m.Base = base3
		}
		if r%3 > 0 {
			m.Index, m.Scale = step, uint8(r%3)
		}
		return m
	}
	acc := make([][]reg.VecVirtual, mulAddRows)
	for r := range acc {
		for h := range regsPerRow {
			v := g.vec64()
			g.VMOVUPD(row(c, c3, ldc, r, h*w), v)
			acc[r] = append(acc[r], v)
		}
	}
	loop, done := g.label("terms"), g.label("done")
	g.TESTQ(k, k)
	g.JZ(done)
	g.Label(string(loop))
	bs := make([]reg.VecVirtual, regsPerRow)
	for h := range bs {
		bs[h] = g.vec64()
		g.VMOVUPD(operand.Mem{Base: b, Disp: h * w}, bs[h])
	}
	for r := range acc {
		t := g.vec64()
		g.VBROADCASTSD(row(a, a3, aRow, r, 0), t)
		for h, v := range acc[r] {
			p := g.vec64()
			g.VMULPD(bs[h], t, p)
			g.VADDPD(p, v, v)
		}
	}
	g.ADDQ(aCol, a)
	g.ADDQ(aCol, a3)
	g.ADDQ(ldb, b)
	g.DECQ(k)
	g.JNZ(loop)
	g.Label(string(done))
	for r := range acc {
		for h, v := range acc[r] {
			g.VMOVUPD(v, row(c, c3, ldc, r, h*w))
		}
	}
	g.VZEROUPPER()
	g.RET()
}
