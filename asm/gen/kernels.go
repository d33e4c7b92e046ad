package main

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The kernels of package simd. Their contracts are those of the generic
// versions in simd/generic.go, plus what the wrappers in simd/simd.go
// guarantee: the distance kernels get whole tiles (len(tiles) a multiple of
// dim·16, possibly zero, dst exactly one float32 per slot, dim ≥ 1), the
// others lengths that are multiples of 16 elements, float32 or float64
// (possibly zero; min's is positive).
// So no kernel needs a masked or scalar tail.

// function starts a kernel: name gets the backend suffix, and the arguments
// do not escape (the kernels keep no pointer), which lets callers keep
// their buffers on the stack.
func (g *gen) function(name, sig string, doc ...string) {
	g.Function(name + g.be.suffix)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(sig)
	g.Pragma("noescape")
	lines := []string{fmt.Sprintf("%s%s is %sGeneric for %s:", name, g.be.suffix, name, g.be.cpu), ""}
	for _, d := range doc {
		lines = append(lines, strings.Split(d, "\n")...)
	}
	g.Doc(lines...)
}

// rows addresses one feature row of each of several consecutive tiles (or
// the current block of each of several weight columns): tile m starts at
// base[m/4] + (m%4)·stride, where stride is the size of a tile (dim·64
// bytes; for columns, the column stride in bytes) and stride3 = 3·stride.
// x86 addressing has one base and one scaled index, hence a base per four
// tiles.
type rows struct {
	base            []reg.GPVirtual
	stride, stride3 reg.GPVirtual
}

// at returns the address of register h of the row of tile m.
func (r rows) at(m, h, width int) operand.Mem {
	mem := operand.Mem{Base: r.base[m/4], Disp: h * width}
	switch m % 4 {
	case 1:
		mem.Index, mem.Scale = r.stride, 1
	case 2:
		mem.Index, mem.Scale = r.stride, 2
	case 3:
		mem.Index, mem.Scale = r.stride3, 1
	}
	return mem
}

// tileLoop covers the n bytes of dst (64 per tile) with blocks of
// consecutive tiles and calls body(nt, t) to emit the code of a block of nt
// tiles starting at byte offset t of dst (tile t/64). Blocks of the largest
// size go while they fit; a remainder is covered by one more block that
// ends at the last tile and overlaps the previous one: it recomputes a few
// slots with the same result, which is cheaper than the latency-bound
// narrower blocks would be. Fewer tiles than a block fall to a smaller
// block size, halving down to one tile.
func (g *gen) tileLoop(n reg.GPVirtual, body func(nt int, t reg.GPVirtual)) {
	g.blockLoop(n, g.be.tileBlock, tileRowBytes, true, body)
}

// blockLoop covers n bytes with blocks of largest, largest/2, … 1 items of
// unit bytes each, and calls body(nb, t) to emit the code of a block of nb
// items starting at byte offset t. Blocks of one size go while they fit.
// With overlap, a remainder is covered by one more block of that size that
// ends at the last item and overlaps the previous block (the items must be
// idempotent), and smaller sizes are only used when not even one block of
// the larger size fits; without, the remainder goes to the smaller sizes.
func (g *gen) blockLoop(n reg.GPVirtual, largest, unit int, overlap bool, body func(nb int, t reg.GPVirtual)) {
	t := g.GP64()
	rem := g.GP64()
	done := g.label("done")
	g.XORQ(t, t)
	for nb := largest; nb >= 1; nb /= 2 {
		size := operand.U32(nb * unit)
		smaller := g.label(fmt.Sprintf("below%d", nb))
		loop := g.label(fmt.Sprintf("blocks%d", nb))
		g.Commentf("blocks of %d", nb)
		g.MOVQ(n, rem)
		g.SUBQ(t, rem)
		g.CMPQ(rem, size)
		g.JB(smaller)
		g.Label(string(loop))
		body(nb, t)
		g.ADDQ(size, t)
		g.MOVQ(n, rem)
		g.SUBQ(t, rem)
		g.CMPQ(rem, size)
		g.JAE(loop)
		if overlap {
			if nb > 1 {
				g.TESTQ(rem, rem)
				g.JZ(done)
				g.Commentf("last %d, overlapping the previous block", nb)
				g.MOVQ(n, t)
				g.SUBQ(size, t)
				body(nb, t)
			}
			g.JMP(done)
		}
		g.Label(string(smaller))
	}
	g.Label(string(done))
}

// accumulators allocates the nt·rowRegs accumulators of a block of nt tiles.
func (g *gen) accumulators(nt int) [][]reg.VecVirtual {
	acc := make([][]reg.VecVirtual, nt)
	for m := range acc {
		acc[m] = make([]reg.VecVirtual, g.be.rowRegs())
		for h := range acc[m] {
			acc[m][h] = g.vec()
		}
	}
	return acc
}

const sqdistDoc = `	for t := range len(tiles) / (dim * 16) {
		for l := range 16 {
			var acc float32
			for j := range dim {
				d := x[j] - tiles[(t*dim+j)*16+l]
				acc += d * d
			}
			dst[t*16+l] = acc
		}
	}

len(tiles) must be a multiple of dim·16 (dim ≥ 1), dst must hold one value
per slot and x exactly dim values. Differences are formed before squaring:
no cancellation on large raw features. dst must not overlap the inputs: the
last block of tiles may overlap the previous one and be computed twice.`

// sqdist: for a block of tiles, each accumulator register collects
// (x_j − s_j)² over j for its lanes; one broadcast of x_j serves the block.
func (g *gen) sqdist() {
	g.function("sqdist", "func(dst, x, tiles []float32, dim int)", sqdistDoc)
	be := g.be
	dst := g.load(g.Param("dst").Base())
	n := g.load(g.Param("dst").Len())
	g.SHLQ(operand.U8(2), n) // bytes of dst
	g.denseTiles(n, func(xj reg.VecVirtual, s operand.Mem, a reg.VecVirtual) {
		d := g.vec()
		g.VSUBPS(s, xj, d)
		g.VFMADD231PS(d, d, a)
	}, func(t reg.GPVirtual, acc [][]reg.VecVirtual) {
		for m := range acc {
			for h, a := range acc[m] {
				g.VMOVUPS(a, operand.Mem{Base: dst, Index: t, Scale: 1, Disp: m*tileRowBytes + h*be.width()})
			}
		}
	})
	g.VZEROUPPER()
	g.RET()
}

// denseTiles emits the loop of a kernel with a dense query x (dim values)
// over the tiles (arguments x, tiles and dim): it covers the n bytes of a
// one-float-per-slot output with blocks of tiles (tileLoop), and for each
// block starts the accumulators of its slots at zero, calls term(xj, s, a)
// for every feature j to add to accumulator a the contribution of x_j,
// broadcast in xj, and of the tile row s (a memory operand), and then
// store(t, acc) with the block's accumulators (acc[m][h]: register h of
// tile m) and its byte offset t in the output.
func (g *gen) denseTiles(n reg.GPVirtual, term func(xj reg.VecVirtual, s operand.Mem, a reg.VecVirtual), store func(t reg.GPVirtual, acc [][]reg.VecVirtual)) {
	be := g.be
	q := g.loadDense()
	// The accumulators are cleared from zero: avo reads the zeroing idiom
	// VPXORD a, a, a as a use of a, which would keep the accumulators of
	// every block size live from the start.
	zero := g.vec()
	be.zero(g, zero)

	g.tileLoop(n, func(nt int, t reg.GPVirtual) {
		r := g.blockRows(q, nt, t)
		acc := g.accumulators(nt)
		for m := range acc {
			for _, a := range acc[m] {
				be.zeroFrom(g, zero, a)
			}
		}
		g.featureLoop(q, r, func(x operand.Mem) {
			xj := g.vec()
			g.VBROADCASTSS(x, xj)
			for m := range acc {
				for h, a := range acc[m] {
					term(xj, r.at(m, h, be.width()), a)
				}
			}
		})
		store(t, acc)
	})
}

// denseQuery holds the arguments of a kernel with a dense query x over
// the tiles: tiles and dim, the end of x, and the size of a tile in bytes
// (stride) and three times it.
type denseQuery struct {
	tiles, dim, xEnd, stride, stride3 reg.GPVirtual
}

// loadDense loads the arguments x, tiles and dim of a dense-query kernel.
func (g *gen) loadDense() denseQuery {
	q := denseQuery{
		tiles: g.load(g.Param("tiles").Base()),
		dim:   g.load(g.Param("dim")),
		xEnd:  g.load(g.Param("x").Base()),
	}
	g.LEAQ(operand.Mem{Base: q.xEnd, Index: q.dim, Scale: 4}, q.xEnd)
	q.stride = g.GP64()
	g.MOVQ(q.dim, q.stride)
	g.SHLQ(operand.U8(6), q.stride) // bytes of a tile
	q.stride3 = g.GP64()
	g.LEAQ(operand.Mem{Base: q.stride, Index: q.stride, Scale: 2}, q.stride3)
	return q
}

// blockRows returns the rows of feature 0 of the nt tiles of the block at
// byte offset t of a one-float32-per-slot output (tile t/64).
func (g *gen) blockRows(q denseQuery, nt int, t reg.GPVirtual) rows {
	// Tile t/64 starts at tiles + (t/64)·dim·64 = tiles + t·dim.
	r := rows{stride: q.stride, stride3: q.stride3}
	p := g.GP64()
	g.MOVQ(t, p)
	g.IMULQ(q.dim, p)
	g.ADDQ(q.tiles, p)
	r.base = append(r.base, p)
	if nt > 4 {
		p4 := g.GP64()
		g.LEAQ(operand.Mem{Base: p, Index: q.stride, Scale: 4}, p4)
		r.base = append(r.base, p4)
	}
	return r
}

// featureLoop emits the loop over the features of a dense query: body(x)
// emits the work of feature j, whose value is at x and whose rows are
// those of r, which then advance one row.
func (g *gen) featureLoop(q denseQuery, r rows, body func(x operand.Mem)) {
	// j runs from −dim to 0 over x.
	j := g.GP64()
	g.MOVQ(q.dim, j)
	g.NEGQ(j)
	loop := g.label("feature")
	g.Label(string(loop))
	body(operand.Mem{Base: q.xEnd, Index: j, Scale: 4})
	for _, b := range r.base {
		g.ADDQ(operand.U8(tileRowBytes), b)
	}
	g.INCQ(j)
	g.JNZ(loop)
}

const sqdist64Doc = `	for t := range len(tiles) / (dim * 16) {
		for l := range 16 {
			var acc float64
			for j := range dim {
				d := float64(tiles[(t*dim+j)*16+l]) - float64(x[j])
				acc += float64(d * d)
			}
			dst[t*16+l] = acc
		}
	}

len(tiles) must be a multiple of dim·16 (dim ≥ 1), dst must hold one value
per slot and x exactly dim values. The float32 values are converted exactly
(VCVTPS2PD); the difference, the square and each addition are rounded once,
in feature order: the generic code's bits (the difference is an FMA
s·1 − x_j, whose product is exact: one rounding, as a subtraction's). dst
must not overlap the inputs: the last block of tiles may overlap the
previous one and be computed twice.`

// sqdist64: sqdist in float64 on registers of exactWidth bytes. For a
// block of tileBlock64 tiles, each half register of float32 of a tile row
// is converted to a register of float64, x_j (converted once per feature)
// subtracted, the difference squared and added to its accumulator: four
// instructions for as many float64, which bound the kernel by throughput.
//
// The subtraction is an FMA, d·1 − x_j, rather than VSUBPD: the product
// d·1 is exact, so the FMA rounds s − x_j once, to the subtraction's bits,
// but on the multiply ports instead of the add ports the conversion and
// the accumulation use (Zen 4), or instead of the single add port
// (Haswell). On Zen 4 that made the kernel 26% faster. The square and the
// addition stay separate instructions: their fusion would change the bits.
func (g *gen) sqdist64() {
	g.function("sqdist64", "func(dst []float64, x, tiles []float32, dim int)", sqdist64Doc)
	be := g.be
	w := be.exactWidth
	dst := g.load(g.Param("dst").Base())
	n := g.load(g.Param("dst").Len())
	g.SHLQ(operand.U8(2), n) // 4 bytes per slot, as blockRows counts
	q := g.loadDense()
	one := g.vec64()
	g.VCVTPS2PD(g.constEntry("one"), one) // the multiplier of the subtractions
	// The accumulators are cleared from zero, as in denseTiles.
	zero := g.vec64()
	g.zero64(zero, zero)

	g.blockLoop(n, be.tileBlock64, tileRowBytes, true, func(nt int, t reg.GPVirtual) {
		r := g.blockRows(q, nt, t)
		acc := make([][]reg.VecVirtual, nt) // register h of tile m: lanes h·w/8 … of its row
		for m := range acc {
			for range tileLanes * 8 / w {
				a := g.vec64()
				g.zero64(zero, a)
				acc[m] = append(acc[m], a)
			}
		}
		g.featureLoop(q, r, func(x operand.Mem) {
			// x_j as float32 in every lane, half the register of
			// them converted (exactly) to a full register of float64.
			xs, xj := g.vec64(), g.vec64()
			g.VBROADCASTSS(x, xs)
			g.VCVTPS2PD(half(xs), xj)
			for m := range acc {
				for h, a := range acc[m] {
					d := g.vec64()
					g.VCVTPS2PD(r.at(m, h, w/2), d) // w/2 bytes of float32: w/8 lanes
					g.VFMSUB213PD(xj, one, d)       // d = d·1 − x_j
					g.VMULPD(d, d, d)
					g.VADDPD(d, a, a)
				}
			}
		})
		for m := range acc {
			for h, a := range acc[m] {
				// Byte offset 2t in dst: t counts 4 bytes per slot.
				g.VMOVUPD(a, operand.Mem{Base: dst, Index: t, Scale: 2, Disp: 2*m*tileRowBytes + h*w})
			}
		}
	})
	g.VZEROUPPER()
	g.RET()
}

// vec64 allocates a float64 register of sqdist64 or paCosts: exactWidth
// bytes.
func (g *gen) vec64() reg.VecVirtual {
	if g.be.exactWidth == 64 {
		return g.ZMM()
	}
	return g.YMM()
}

// zero64 clears the float64 register v by the XOR of src with itself:
// VXORPS on ymm (VEX, AVX), the backend's XOR on its full-width registers.
func (g *gen) zero64(src, v reg.VecVirtual) {
	if g.be.exactWidth == g.be.width() {
		g.be.zeroFrom(g, src, v)
		return
	}
	g.VXORPS(src, src, v)
}

// half returns the lower half of the vector register v (the xmm of a ymm,
// the ymm of a zmm): the float32 VCVTPS2PD widens into a full register.
func half(v reg.VecVirtual) reg.Register {
	if v.Size() == 64 {
		return v.AsY()
	}
	return v.AsX()
}

const sqdistSparseDoc = `	for t := range len(tiles) / (dim * 16) {
		for l := range 16 {
			acc := norms[t*16+l] + xnorm
			for k, j := range idx {
				acc += -2 * val[k] * tiles[(t*dim+int(j))*16+l]
			}
			dst[t*16+l] = max(acc, 0)
		}
	}

len(tiles) must be a multiple of dim·16 (dim ≥ 1), dst and norms must hold
one value per slot, every idx[k] must be in [0, dim) and len(val) ==
len(idx). dst must not overlap the inputs (not even norms, unlike the
generic version): the last block of tiles may overlap the previous one and
be computed twice.`

// sqdistSparse: the norm expansion ‖s‖² + ‖x‖² − 2·x·s over the non-zero
// features of the query only; a block of tiles shares each broadcast of
// 2·val[k].
func (g *gen) sqdistSparse() {
	g.function("sqdistSparse", "func(dst, norms []float32, idx []int32, val []float32, xnorm float32, tiles []float32, dim int)", sqdistSparseDoc)
	be := g.be
	dst := g.load(g.Param("dst").Base())
	norms := g.load(g.Param("norms").Base())
	n := g.load(g.Param("dst").Len())
	g.SHLQ(operand.U8(2), n) // bytes of dst
	xnorm := g.vec()
	g.VBROADCASTSS(g.addr(g.Param("xnorm")), xnorm)
	zero := g.vec()
	be.zero(g, zero)
	g.sparseTiles(n, func(t reg.GPVirtual, m, h int, a reg.VecVirtual) {
		g.VADDPS(operand.Mem{Base: norms, Index: t, Scale: 1, Disp: m*tileRowBytes + h*be.width()}, xnorm, a)
	}, func(c reg.VecVirtual, s operand.Mem, a reg.VecVirtual) {
		g.VFNMADD231PS(s, c, a) // a −= 2·val[k]·s
	}, func(t reg.GPVirtual, acc [][]reg.VecVirtual) {
		for m := range acc {
			for h, a := range acc[m] {
				g.VMAXPS(a, zero, a) // a the second source: NaN stays NaN, like Go's max
				g.VMOVUPS(a, operand.Mem{Base: dst, Index: t, Scale: 1, Disp: m*tileRowBytes + h*be.width()})
			}
		}
	}, true)
	g.VZEROUPPER()
	g.RET()
}

// sparseTiles emits the loop of a kernel with a sparse query (arguments
// idx, val, tiles and dim) over the tiles: it covers the n bytes of a
// one-float-per-slot output with blocks of tiles (tileLoop), and for each
// block sets accumulator a (register h of tile m) with start(t, m, h, a),
// calls term(c, s, a) for every non-zero k to add to it the contribution of
// val[k], broadcast in c (doubled when double is set: 2·val[k] is exact),
// and of the row s of feature idx[k] (a memory operand), and then
// store(t, acc) with the block's accumulators and its byte offset t in the
// output.
func (g *gen) sparseTiles(n reg.GPVirtual, start func(t reg.GPVirtual, m, h int, a reg.VecVirtual), term func(c reg.VecVirtual, s operand.Mem, a reg.VecVirtual), store func(t reg.GPVirtual, acc [][]reg.VecVirtual), double bool) {
	be := g.be
	stride := g.load(g.Param("dim"))
	g.SHLQ(operand.U8(6), stride) // bytes of a tile
	stride3 := g.GP64()
	g.LEAQ(operand.Mem{Base: stride, Index: stride, Scale: 2}, stride3)
	// k runs from −len(idx) to 0 over idx and val.
	nnz := g.load(g.Param("idx").Len())
	idxEnd := g.load(g.Param("idx").Base())
	g.LEAQ(operand.Mem{Base: idxEnd, Index: nnz, Scale: 4}, idxEnd)
	valEnd := g.load(g.Param("val").Base())
	g.LEAQ(operand.Mem{Base: valEnd, Index: nnz, Scale: 4}, valEnd)

	g.tileLoop(n, func(nt int, t reg.GPVirtual) {
		p := g.load(g.Param("dim"))
		g.IMULQ(t, p)
		g.ADDQ(g.addr(g.Param("tiles").Base()), p) // tile t/64 (from the frame: registers are short here)
		acc := g.accumulators(nt)
		for m := range acc {
			for h, a := range acc[m] {
				start(t, m, h, a)
			}
		}
		done := g.label("store")
		k := g.load(g.Param("idx").Len())
		g.NEGQ(k)
		g.JZ(done)
		loop := g.label("nonzero")
		g.Label(string(loop))
		// The row of feature idx[k] is idx[k]·64 bytes into each tile.
		q := g.GP64()
		g.MOVLQSX(operand.Mem{Base: idxEnd, Index: k, Scale: 4}, q)
		g.SHLQ(operand.U8(6), q)
		g.ADDQ(p, q)
		r := rows{base: []reg.GPVirtual{q}, stride: stride, stride3: stride3}
		if nt > 4 {
			q4 := g.GP64()
			g.LEAQ(operand.Mem{Base: q, Index: stride, Scale: 4}, q4)
			r.base = append(r.base, q4)
		}
		c := g.vec()
		g.VBROADCASTSS(operand.Mem{Base: valEnd, Index: k, Scale: 4}, c)
		if double {
			g.VADDPS(c, c, c) // 2·val[k], exact
		}
		for m := range acc {
			for h, a := range acc[m] {
				term(c, r.at(m, h, be.width()), a)
			}
		}
		g.INCQ(k)
		g.JNZ(loop)
		g.Label(string(done))
		store(t, acc)
	})
}

const fourierDoc = `	for t := range len(tiles) / (dim * 16) {
		for l := range 16 {
			var p float32
			for j := range dim {
				p += x[j] * tiles[(t*dim+j)*16+l]
			}
			sin[t*16+l], cos[t*16+l] = sincos32(p)
		}
	}

len(tiles) must be a multiple of dim·16 (dim ≥ 1), cos and sin must hold
one value per slot and x exactly dim values. Each p is a chain of FMAs.
cos and sin must not overlap the inputs: the last block of tiles may
overlap the previous one and be computed twice.`

// fourier: the projections of a block of tiles accumulate as sqdist's
// distances do, then each register of them goes through sinCos and is
// stored twice, cosines and sines.
func (g *gen) fourier() {
	g.function("fourier", "func(cos, sin, x, tiles []float32, dim int)", fourierDoc)
	k := g.loadSinConsts()
	n := g.load(g.Param("cos").Len())
	g.SHLQ(operand.U8(2), n) // bytes of cos
	g.denseTiles(n, func(xj reg.VecVirtual, s operand.Mem, a reg.VecVirtual) {
		g.VFMADD231PS(s, xj, a)
	}, g.storeSinCos(k))
	g.VZEROUPPER()
	g.RET()
}

const fourierSparseDoc = `	for t := range len(tiles) / (dim * 16) {
		for l := range 16 {
			var p float32
			for k, j := range idx {
				p += val[k] * tiles[(t*dim+int(j))*16+l]
			}
			sin[t*16+l], cos[t*16+l] = sincos32(p)
		}
	}

len(tiles) must be a multiple of dim·16 (dim ≥ 1), cos and sin must hold
one value per slot, every idx[k] must be in [0, dim) and len(val) ==
len(idx). Each p is a chain of FMAs. cos and sin must not overlap the
inputs: the last block of tiles may overlap the previous one and be
computed twice.`

// fourierSparse: fourier over the non-zero features only, as sqdistSparse.
func (g *gen) fourierSparse() {
	g.function("fourierSparse", "func(cos, sin []float32, idx []int32, val []float32, tiles []float32, dim int)", fourierSparseDoc)
	k := g.loadSinConsts()
	n := g.load(g.Param("cos").Len())
	g.SHLQ(operand.U8(2), n) // bytes of cos
	// The accumulators are cleared from zero, as in denseTiles.
	zero := g.vec()
	g.be.zero(g, zero)
	g.sparseTiles(n, func(_ reg.GPVirtual, _, _ int, a reg.VecVirtual) {
		g.be.zeroFrom(g, zero, a)
	}, func(c reg.VecVirtual, s operand.Mem, a reg.VecVirtual) {
		g.VFMADD231PS(s, c, a)
	}, g.storeSinCos(k), false)
	g.VZEROUPPER()
	g.RET()
}

// storeSinCos returns the store step of the fourier kernels: the cosines
// and sines of a block's projections at byte offset t of the arguments
// cos and sin, one register at a time (sinCos needs five).
func (g *gen) storeSinCos(k *constK) func(t reg.GPVirtual, acc [][]reg.VecVirtual) {
	return func(t reg.GPVirtual, acc [][]reg.VecVirtual) {
		be := g.be
		cosBase := g.load(g.Param("cos").Base())
		sinBase := g.load(g.Param("sin").Base())
		for m := range acc {
			for h, a := range acc[m] {
				s, c := g.sinCos(k, a)
				disp := m*tileRowBytes + h*be.width()
				g.VMOVUPS(c, operand.Mem{Base: cosBase, Index: t, Scale: 1, Disp: disp})
				g.VMOVUPS(s, operand.Mem{Base: sinBase, Index: t, Scale: 1, Disp: disp})
			}
		}
	}
}

const gaussianSumColumnsDoc = `	for i := range buf {
		buf[i] = exp32(scale*buf[i] + offset)
	}
	for c := range dst {
		var sum float32
		for i := range buf {
			sum += buf[i] * w[c*stride+i]
		}
		dst[c] = sum
	}

in one pass over buf. len(buf) must be a multiple of 16 (possibly zero),
len(dst) between 1 and %d, stride ≥ len(buf) (any value for one column), and
w must hold every column: (len(dst)−1)·stride + len(buf) values. The
argument scale·buf[i] + offset is one FMA: a single rounding, so with
offset = 0 it is the rounded product. Each sum is formed in vector lanes
and added horizontally at the end.`

// gaussianSumColumns: the kernel values of expUnroll (or fewer) blocks of
// buf are stored back and, still in registers, multiplied into the sums of
// every column. The column count selects one of fusedCols loops, each with
// as many exp blocks in flight as the registers left by its accumulators
// allow. One column (the binary f(x)) spreads its sum over sumAccs
// accumulators; more columns take one each.
func (g *gen) gaussianSumColumns() {
	be := g.be
	g.function("gaussianSumColumns", "func(dst, buf, w []float32, stride int, scale, offset float32)", fmt.Sprintf(gaussianSumColumnsDoc, be.fusedCols))
	scale := g.vec()
	g.VBROADCASTSS(g.addr(g.Param("scale")), scale)
	k := g.loadExpConsts()
	free := be.vecRegs - len(k.regs) - 1 // besides the constants and scale
	g.columnVariants("columns", func(c int) {
		accs := 1
		if c == 1 {
			accs = be.sumAccs
		}
		unroll := min(be.expUnroll, (free-c*accs)/3) // three registers per exp block
		if unroll < 1 {
			panic(fmt.Sprintf("%s: no register left for the exp blocks of %d columns", be.name, c))
		}
		g.gaussianSumLoop(c, accs, unroll, scale, k)
	})
}

// columnVariants emits the entry of a kernel with one variant for each
// count of columns (argument dst's length) from 1 to fusedCols: a jump to
// the variant, a return for any other count, then the variants, each
// labelled prefix and its count, emitted by variant.
func (g *gen) columnVariants(prefix string, variant func(cols int)) {
	cols := g.load(g.Param("dst").Len())
	labels := make([]operand.LabelRef, g.be.fusedCols+1)
	for c := 1; c <= g.be.fusedCols; c++ {
		labels[c] = g.label(fmt.Sprintf("%s%d", prefix, c))
		g.CMPQ(cols, operand.U32(c))
		g.JE(labels[c])
	}
	g.RET() // no other column count is allowed
	for c := 1; c <= g.be.fusedCols; c++ {
		g.Label(string(labels[c]))
		variant(c)
	}
}

// gaussianSumLoop emits the loop of gaussianSumColumns for cols columns,
// each summed in accs accumulators, with unroll exp blocks per iteration.
func (g *gen) gaussianSumLoop(cols, accs, unroll int, scale reg.VecVirtual, k *constK) {
	be := g.be
	buf := g.load(g.Param("buf").Base())
	n := g.load(g.Param("buf").Len())
	r := g.columnRows(cols)
	offset := g.addr(g.Param("offset"))
	acc := make([][]reg.VecVirtual, cols)
	for c := range acc {
		for range accs {
			a := g.vec()
			// Zero from scale, not a: avo reads the idiom VXORPS a, a, a
			// as a use of a, which would keep the accumulators of every
			// column count live from the entry and exhaust the registers.
			be.zeroFrom(g, scale, a)
			acc[c] = append(acc[c], a)
		}
	}
	g.unrolled(n, unroll, be.lanes, func(nb int) {
		// The FMA overwrites its addend, so each block starts from a
		// fresh broadcast of offset (a load, no ALU µop), as the exp
		// code does with shift: the argument frame is the memory operand,
		// which leaves AVX2's 16 registers as they were.
		xs := make([]reg.VecVirtual, nb)
		for i := range xs {
			xs[i] = g.vec()
			g.VBROADCASTSS(offset, xs[i])
			g.VFMADD231PS(operand.Mem{Base: buf, Disp: i * be.width()}, scale, xs[i])
		}
		for i, y := range g.expBlocks(k, xs) {
			g.VMOVUPS(y, operand.Mem{Base: buf, Disp: i * be.width()})
			for c := range acc {
				g.VFMADD231PS(r.at(c, i, be.width()), y, acc[c][i%accs])
			}
		}
		g.ADDQ(operand.U32(nb*be.width()), buf)
		for _, b := range r.base {
			g.ADDQ(operand.U32(nb*be.width()), b)
		}
		g.SUBQ(operand.U32(nb*be.lanes), n)
	})
	g.storeSums(acc, operand.Mem{Base: g.load(g.Param("dst").Base())})
	g.VZEROUPPER()
	g.RET()
}

// columnRows addresses the blocks of cols weight columns (argument w,
// stride apart, argument stride) of gaussianSumColumns and scoreTiles.
func (g *gen) columnRows(cols int) rows {
	w := rows{base: []reg.GPVirtual{g.load(g.Param("w").Base())}}
	if cols > 1 {
		w.stride = g.load(g.Param("stride"))
		g.SHLQ(operand.U8(2), w.stride) // bytes
		w.stride3 = g.GP64()
		g.LEAQ(operand.Mem{Base: w.stride, Index: w.stride, Scale: 2}, w.stride3)
		for m := 4; m < cols; m += 4 {
			b := g.GP64()
			g.LEAQ(operand.Mem{Base: w.base[len(w.base)-1], Index: w.stride, Scale: 4}, b)
			w.base = append(w.base, b)
		}
	}
	return w
}

// unrolled emits a loop running blocks(unroll) while n ≥ unroll·per, then
// blocks(1) while n > 0, where blocks(k) covers k·per elements of n (n is a
// multiple of per). blocks must decrement n by that much. With unroll 1
// only the second loop is emitted. The float32
// kernels count n in floats with per = lanes (a block is a register); dotAxpy
// counts float64 with per = 16.
func (g *gen) unrolled(n reg.GPVirtual, unroll, per int, blocks func(nb int)) {
	loop, tail, tailLoop, done := g.label("unrolled"), g.label("tail"), g.label("single"), g.label("done")
	if unroll > 1 {
		g.Label(string(loop))
		g.CMPQ(n, operand.U32(unroll*per))
		g.JB(tail)
		blocks(unroll)
		g.JMP(loop)
	}
	g.Label(string(tail))
	g.TESTQ(n, n)
	g.JZ(done)
	g.Label(string(tailLoop))
	blocks(1)
	g.JNZ(tailLoop) // flags of the decrement of n
	g.Label(string(done))
}

// A reduction is the associative operation of a horizontal reduction over
// float32 or float64 lanes: its full-width instruction, the scalar one that
// ends the AVX2 code, and the scalar move that stores the result.
type reduction struct {
	name                  string
	f64                   bool // float64 lanes
	packed, scalar, store func(...operand.Op)
}

func (g *gen) sum() reduction       { return reduction{"sum", false, g.VADDPS, g.VADDSS, g.VMOVSS} }
func (g *gen) minimum() reduction   { return reduction{"min", false, g.VMINPS, g.VMINSS, g.VMOVSS} }
func (g *gen) sum64() reduction     { return reduction{"sum", true, g.VADDPD, g.VADDSD, g.VMOVSD} }
func (g *gen) minimum64() reduction { return reduction{"min", true, g.VMINPD, g.VMINSD, g.VMOVSD} }

// reduce combines the accumulators acc with op, pairwise, then the lanes of
// the last one, and stores lane 0 (float32 or float64, as op's lanes) at
// dst. acc are clobbered.
func (g *gen) reduce(acc []reg.VecVirtual, op reduction, dst operand.Mem) {
	g.Comment("horizontal " + op.name)
	op.store(g.hreduce(g.combine(acc, op), op), dst)
}

// combine combines the accumulators acc with op, pairwise, into the first,
// which it returns: the first step of reduce.
func (g *gen) combine(acc []reg.VecVirtual, op reduction) reg.VecVirtual {
	for len(acc) > 1 {
		for i := 0; i+1 < len(acc); i += 2 {
			op.packed(acc[i+1], acc[i], acc[i])
		}
		acc = compact(acc)
	}
	return acc[0]
}

// compact keeps every other register: after pairwise operations into the
// even ones.
func compact(rs []reg.VecVirtual) []reg.VecVirtual {
	out := rs[:0:0]
	for i := 0; i < len(rs); i += 2 {
		out = append(out, rs[i])
	}
	return out
}

// hreduce combines the lanes of v with op in the order simd's sumLanes adds
// a 16-lane accumulator (lane l with lane l+8, then with l+4, then 0 with 2
// and 1 with 3, then the two) and returns an xmm register whose lane 0
// holds the result. v is clobbered. The order matters for sums only: it
// fixes their rounding. float64 lanes take the same steps by 64-bit halves
// of 128-bit lanes, one step fewer.
func (g *gen) hreduce(v reg.VecVirtual, op reduction) reg.Register {
	if v.Size() == 64 {
		// Full-width zmm instructions only: the xmm and ymm forms of
		// registers 16–31 would need AVX512VL.
		t := g.vec()
		g.VSHUFF64X2(operand.U8(0x4e), v, v, t) // 128-bit quarters 2,3,0,1
		op.packed(t, v, v)
		g.VSHUFF64X2(operand.U8(0xb1), v, v, t) // quarters 1,0,3,2
		op.packed(t, v, v)
		if op.f64 {
			g.VPERMILPD(operand.U8(0x01), v, t) // lane 1 to 0
			op.packed(t, v, v)
			return v.AsX()
		}
		g.VPERMILPS(operand.U8(0x0e), v, t) // lanes 2,3 to 0,1
		op.packed(t, v, v)
		g.VPERMILPS(operand.U8(0x01), v, t) // lane 1 to 0
		op.packed(t, v, v)
		return v.AsX()
	}
	x := g.XMM()
	t := g.XMM()
	g.VEXTRACTF128(operand.U8(1), v, x)
	op.packed(x, v.AsX(), x)
	g.VMOVHLPS(x, x, t) // float32 lanes 2,3 to 0,1; float64 lane 1 to 0
	if op.f64 {
		op.scalar(t, x, x)
		return x
	}
	op.packed(t, x, x)
	g.VMOVSHDUP(x, t) // lane 1 to 0
	op.scalar(t, x, x)
	return x
}

const dotDoc = `	var sum float32
	for i := range a {
		sum += a[i] * b[i]
	}
	return sum

len(a) must be a multiple of 16 and len(b) == len(a). The sum is formed in
vector lanes and added horizontally at the end.`

// dot: dotUnroll independent FMA accumulators.
func (g *gen) dot() {
	g.function("dot", "func(a, b []float32) float32", dotDoc)
	be := g.be
	a := g.load(g.Param("a").Base())
	b := g.load(g.Param("b").Base())
	n := g.load(g.Param("a").Len())
	acc := make([]reg.VecVirtual, be.dotUnroll)
	for i := range acc {
		acc[i] = g.vec()
		be.zero(g, acc[i])
	}
	g.unrolled(n, be.dotUnroll, be.lanes, func(nb int) {
		for i := 0; i < nb; i++ {
			v := g.vec()
			g.VMOVUPS(operand.Mem{Base: a, Disp: i * be.width()}, v)
			g.VFMADD231PS(operand.Mem{Base: b, Disp: i * be.width()}, v, acc[i])
		}
		g.ADDQ(operand.U32(nb*be.width()), a)
		g.ADDQ(operand.U32(nb*be.width()), b)
		g.SUBQ(operand.U32(nb*be.lanes), n)
	})
	g.reduce(acc, g.sum(), g.addr(g.ReturnIndex(0)))
	g.VZEROUPPER()
	g.RET()
}

const dotColumnsDoc = `	for c := range dst {
		var sum float32
		for i := range k {
			sum += k[i] * w[c*stride+i]
		}
		dst[c] = sum
	}

len(k) must be a multiple of 16 (possibly zero), stride ≥ len(k), and w
must hold every column: (len(dst)−1)·stride + len(k) values when dst is not
empty. Each sum is formed in vector lanes and added horizontally at the end.`

// dotColumns: blocks of up to colBlock columns share every load of a block
// of k, each column accumulating with its row of w as a memory operand;
// narrower blocks (the last columns) unroll over k instead, so that about
// colChains accumulators are always in flight.
func (g *gen) dotColumns() {
	g.function("dotColumns", "func(dst, k, w []float32, stride int)", dotColumnsDoc)
	be := g.be
	dst := g.load(g.Param("dst").Base())
	n := g.load(g.Param("dst").Len())
	g.SHLQ(operand.U8(2), n) // bytes of dst
	strideBytes := g.load(g.Param("stride"))
	g.SHLQ(operand.U8(2), strideBytes)
	stride3 := g.GP64()
	g.LEAQ(operand.Mem{Base: strideBytes, Index: strideBytes, Scale: 2}, stride3)

	// The accumulators start as copies of one zero register: avo reads
	// the zeroing idiom VPXORD a, a, a as a use of a, which would keep the
	// accumulators of every block size live from the start and exhaust
	// the registers.
	zero := g.vec()
	be.zero(g, zero)

	g.blockLoop(n, be.colBlock, 4, false, func(nc int, t reg.GPVirtual) {
		// Column t/4 starts at w + (t/4)·stride·4 = w + t·stride.
		p := g.load(g.Param("stride"))
		g.IMULQ(t, p)
		g.ADDQ(g.addr(g.Param("w").Base()), p)
		r := rows{base: []reg.GPVirtual{p}, stride: strideBytes, stride3: stride3}
		for m := 4; m < nc; m += 4 {
			q := g.GP64()
			g.LEAQ(operand.Mem{Base: r.base[len(r.base)-1], Index: strideBytes, Scale: 4}, q)
			r.base = append(r.base, q)
		}
		unroll := max(1, be.colChains/(nc*be.rowRegs()))
		acc := make([][]reg.VecVirtual, nc) // column m, unrolled block b, register h: acc[m][b*rowRegs+h]
		for m := range acc {
			for range unroll * be.rowRegs() {
				a := g.vec()
				g.VMOVAPS(zero, a)
				acc[m] = append(acc[m], a)
			}
		}
		k := g.load(g.Param("k").Base())
		left := g.load(g.Param("k").Len())
		g.unrolled(left, unroll, tileLanes, func(nb int) {
			for b := 0; b < nb; b++ {
				for h := 0; h < be.rowRegs(); h++ {
					v := g.vec()
					g.VMOVUPS(operand.Mem{Base: k, Disp: b*tileRowBytes + h*be.width()}, v)
					for m := range acc {
						g.VFMADD231PS(r.at(m, h, be.width()).Offset(b*tileRowBytes), v, acc[m][b*be.rowRegs()+h])
					}
				}
			}
			g.ADDQ(operand.U32(nb*tileRowBytes), k)
			for _, base := range r.base {
				g.ADDQ(operand.U32(nb*tileRowBytes), base)
			}
			g.SUBQ(operand.U32(nb*tileLanes), left)
		})
		g.storeSums(acc, operand.Mem{Base: dst, Index: t, Scale: 1})
	})
	g.VZEROUPPER()
	g.RET()
}

// storeSums stores the sums of the columns' accumulators (acc[c] column
// c's) at dst, one float32 each, in column order and each in reduce's
// order: the columns by groups of half a register's lanes through
// reduceColumns, the rest one by one. acc are clobbered.
func (g *gen) storeSums(acc [][]reg.VecVirtual, dst operand.Mem) {
	group := g.be.lanes / 2
	c := 0
	for ; c+group <= len(acc); c += group {
		single := make([]reg.VecVirtual, group)
		for m := range single {
			single[m] = g.combine(acc[c+m], g.sum())
		}
		g.reduceColumns(single, dst.Offset(4*c))
	}
	for ; c < len(acc); c++ {
		g.reduce(acc[c], g.sum(), dst.Offset(4*c))
	}
}

// columnSumTable returns the lanes of reduceColumns's last permute, one per
// register lane, emitted on first use: after the folds, column c of a
// group is in lane 4·(c mod q) + 2·⌊c/q⌋ of the register's q 128-bit
// quarters (the lanes past the group's are not stored).
func (g *gen) columnSumTable() operand.Mem {
	if g.columnSums != nil {
		return *g.columnSums
	}
	be := g.be
	quarters := be.lanes / 4
	table := g.StaticGlobal("columnsumlanes")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for c := range be.lanes {
		lane := 0
		if c < be.lanes/2 {
			lane = 4*(c%quarters) + 2*(c/quarters)
		}
		g.AddDatum(4*c, operand.U32(lane))
	}
	g.columnSums = &table
	return table
}

// reduceColumns stores at dst the sums of the lanes of acc, one register
// per column and half a register's lanes of columns (8 zmm, 4 ymm), in
// columns' order: each in the order of sumLanes (lane l with l+8, then
// with l+4, then 0 with 2 and 1 with 3, then the two; an AVX2 column
// arrives with the first done, by combine), so with hreduce's bits, but
// all at once. Each fold first gathers the halves it adds of two
// registers into two registers (VSHUFF64X2 by 256 and 128 bits,
// VPERM2F128 by 128, VSHUFPS by 64), so that one add serves two columns,
// then four, then eight: 28 instructions for eight zmm columns where
// hreduce took 72, 14 for four ymm columns where it took 28. acc are
// clobbered.
func (g *gen) reduceColumns(acc []reg.VecVirtual, dst operand.Mem) {
	be := g.be
	g.Commentf("horizontal sums of %d columns at once", len(acc))
	// fold pairs registers a and b into a: the lanes of a the selector lo
	// picks plus those hi picks, from a in the low half and b in the high.
	fold := func(shuffle func(...operand.Op), lo, hi uint8, a, b reg.VecVirtual) {
		t := g.vec()
		shuffle(operand.U8(hi), b, a, t)
		shuffle(operand.U8(lo), b, a, a)
		g.VADDPS(t, a, a)
	}
	if be.lanes == 16 {
		for i := 0; i < 8; i += 2 { // lane l + lane l+8: columns i, i+1 by 256-bit halves
			fold(g.VSHUFF64X2, 0x44, 0xee, acc[i], acc[i+1])
		}
		for i := 0; i < 8; i += 4 { // l + l+4: columns i…i+3 by 128-bit quarters
			fold(g.VSHUFF64X2, 0x88, 0xdd, acc[i], acc[i+2])
		}
	} else {
		halves := func(ops ...operand.Op) { g.VPERM2F128(ops[0], ops[1], ops[2], ops[3]) }
		for i := 0; i < 4; i += 2 { // l + l+4: columns i, i+1 by 128-bit halves
			fold(halves, 0x20, 0x31, acc[i], acc[i+1])
		}
	}
	// 0 + 2 and 1 + 3 within each quarter: one column in lanes 0 and 1,
	// another in 2 and 3.
	fold(g.VSHUFPS, 0x44, 0xee, acc[0], acc[len(acc)/2])
	t := g.vec()
	g.VPERMILPS(operand.U8(0xb1), acc[0], t) // the two of each column: lane 1 to 0, 3 to 2
	g.VADDPS(t, acc[0], acc[0])
	perm := g.vec()
	g.VMOVUPS(g.columnSumTable(), perm)
	g.VPERMPS(acc[0], perm, acc[0])
	if !be.opmask {
		g.VMOVUPS(acc[0].AsX(), dst)
		return
	}
	mask, bits := g.K(), g.GP32()
	g.MOVL(operand.U32(1<<len(acc)-1), bits)
	g.KMOVW(bits, mask)
	g.VMOVUPS(acc[0], mask, dst)
}

const dotAxpyDoc = `	var sum float64
	for i := range a {
		sum += a[i] * b[i]
		y[i] += c * a[i]
	}
	return sum

len(a) must be a multiple of 16 and len(b) == len(y) == len(a); y must not
overlap a or b. Each c·a[i] + y[i] is one FMA (one rounding). The sum is
formed in vector lanes and added horizontally at the end.`

// f64Block is the number of float64 dotAxpy takes at a time: 16, the
// granularity of the wrappers (128 bytes: 4 ymm or 2 zmm registers).
const f64Block = 16

// dotAxpyBlocks is the number of blocks of f64Block per loop iteration of
// dotAxpy, on both backends: 8 ymm or 4 zmm accumulators. Each register of
// a costs three loads (a, b, y) and a store, so at two loads per cycle an
// accumulator's next FMA comes at least 6 cycles later, past the 4-cycle
// latency; unrolling further only saves loop overhead.
const dotAxpyBlocks = 2

// dotAxpy: one accumulator per register of a block (dotAxpyBlocks·16
// float64); each register of a is loaded once, accumulated with b as a
// memory operand, then scaled by c and added to y in one FMA (y a memory
// operand too) and stored.
func (g *gen) dotAxpy() {
	g.function("dotAxpy", "func(a, b, y []float64, c float64) float64", dotAxpyDoc)
	be := g.be
	a := g.load(g.Param("a").Base())
	b := g.load(g.Param("b").Base())
	y := g.load(g.Param("y").Base())
	n := g.load(g.Param("a").Len())
	c := g.vec()
	g.VBROADCASTSD(g.addr(g.Param("c")), c)
	regs := f64Block * 8 / be.width() // registers in a block
	acc := make([]reg.VecVirtual, dotAxpyBlocks*regs)
	for i := range acc {
		acc[i] = g.vec()
		be.zero(g, acc[i])
	}
	g.unrolled(n, dotAxpyBlocks, f64Block, func(nb int) {
		for i := 0; i < nb*regs; i++ {
			v := g.vec()
			g.VMOVUPD(operand.Mem{Base: a, Disp: i * be.width()}, v)
			g.VFMADD231PD(operand.Mem{Base: b, Disp: i * be.width()}, v, acc[i])
			g.VFMADD213PD(operand.Mem{Base: y, Disp: i * be.width()}, c, v) // v = c·v + y
			g.VMOVUPD(v, operand.Mem{Base: y, Disp: i * be.width()})
		}
		g.ADDQ(operand.U32(nb*f64Block*8), a)
		g.ADDQ(operand.U32(nb*f64Block*8), b)
		g.ADDQ(operand.U32(nb*f64Block*8), y)
		g.SUBQ(operand.U32(nb*f64Block), n)
	})
	g.reduce(acc, g.sum64(), g.addr(g.ReturnIndex(0)))
	g.VZEROUPPER()
	g.RET()
}

const axpyDoc = `	for i := range x {
		y[i] += a * x[i]
	}

len(x) must be a multiple of 16 and len(y) == len(x); y must not overlap x.
Each a·x[i] + y[i] is one FMA (one rounding).`

// axpyUnroll is the number of registers of axpy per loop iteration, on
// both backends. Each costs two loads and a store for one FMA, so the
// loads and stores bound it; unrolling only saves loop overhead.
const axpyUnroll = 4

// axpy: each register of x is loaded, scaled by a and added to y (a memory
// operand) in one FMA, and stored.
func (g *gen) axpy() {
	g.function("axpy", "func(y, x []float32, a float32)", axpyDoc)
	be := g.be
	y := g.load(g.Param("y").Base())
	x := g.load(g.Param("x").Base())
	n := g.load(g.Param("x").Len())
	a := g.vec()
	g.VBROADCASTSS(g.addr(g.Param("a")), a)
	g.unrolled(n, axpyUnroll, be.lanes, func(nb int) {
		for i := 0; i < nb; i++ {
			v := g.vec()
			g.VMOVUPS(operand.Mem{Base: x, Disp: i * be.width()}, v)
			g.VFMADD213PS(operand.Mem{Base: y, Disp: i * be.width()}, a, v) // v = a·v + y
			g.VMOVUPS(v, operand.Mem{Base: y, Disp: i * be.width()})
		}
		g.ADDQ(operand.U32(nb*be.width()), x)
		g.ADDQ(operand.U32(nb*be.width()), y)
		g.SUBQ(operand.U32(nb*be.lanes), n)
	})
	g.VZEROUPPER()
	g.RET()
}

const expDoc = `	for i := range dst {
		dst[i] = exp32(src[i])
	}

len(dst) must be a multiple of 16 and len(src) == len(dst). Arguments below
ExpMin give +0, those above ExpMax are clamped to it; the relative error is
about 1 ulp.`

// exp: expUnroll independent blocks per iteration.
func (g *gen) exp() {
	g.function("exp", "func(dst, src []float32)", expDoc)
	be := g.be
	dst := g.load(g.Param("dst").Base())
	src := g.load(g.Param("src").Base())
	n := g.load(g.Param("dst").Len())
	k := g.loadExpConsts()
	g.unrolled(n, be.expUnroll, be.lanes, func(nb int) {
		xs := make([]reg.VecVirtual, nb)
		for i := range xs {
			xs[i] = g.vec()
			g.VMOVUPS(operand.Mem{Base: src, Disp: i * be.width()}, xs[i])
		}
		for i, y := range g.expBlocks(k, xs) {
			g.VMOVUPS(y, operand.Mem{Base: dst, Disp: i * be.width()})
		}
		g.ADDQ(operand.U32(nb*be.width()), src)
		g.ADDQ(operand.U32(nb*be.width()), dst)
		g.SUBQ(operand.U32(nb*be.lanes), n)
	})
	g.VZEROUPPER()
	g.RET()
}

const minDoc = `	m := float32(math.Inf(1))
	for _, v := range a {
		if v < m {
			m = v
		}
	}
	return m

len(a) must be a positive multiple of 16. The result for NaN elements is
unspecified, and so is the sign of a zero minimum when both −0 and +0
occur (VMINPS returns its second source on NaN and on equal zeros).`

// minAccs is the number of accumulators of min, on both backends: VMINPS
// runs about 2 per cycle with a 2-cycle latency, so 4 keep it busy, and
// more only lengthen the final reduction (on Zen 5 over 1008 values, 8 and
// 16 were no faster).
const minAccs = 4

// min: minAccs independent accumulators, each VMINPS taking its vector of a
// as a memory operand.
func (g *gen) min() {
	g.function("min", "func(a []float32) float32", minDoc)
	be := g.be
	a := g.load(g.Param("a").Base())
	n := g.load(g.Param("a").Len())
	// The first vector of a seeds every accumulator (len(a) ≥ 16): no
	// +Inf constant is needed, and the loop meeting it again is harmless.
	acc := make([]reg.VecVirtual, minAccs)
	for i := range acc {
		acc[i] = g.vec()
		g.VMOVUPS(operand.Mem{Base: a}, acc[i])
	}
	g.unrolled(n, minAccs, be.lanes, func(nb int) {
		for i := 0; i < nb; i++ {
			g.VMINPS(operand.Mem{Base: a, Disp: i * be.width()}, acc[i], acc[i])
		}
		g.ADDQ(operand.U32(nb*be.width()), a)
		g.SUBQ(operand.U32(nb*be.lanes), n)
	})
	g.reduce(acc, g.minimum(), g.addr(g.ReturnIndex(0)))
	g.VZEROUPPER()
	g.RET()
}

const fmaLoopDoc = `	var acc [chains][lanes]float32 // chain i starts at seed + i·add in every lane
	for range n {
		for i := range acc {
			for l := range acc[i] {
				acc[i][l] = acc[i][l]*mul + add
			}
		}
	}
	return the sum of every acc[i][l]

as fused multiply-adds on %d registers (chains) of %d lanes, which no
dependency chain can slow down: the peak FMA throughput of one core, when
timed (PeakFLOPS). n ≥ 0.`

// fmaChains is the number of independent FMA chains of fmaLoop, on both
// backends: at two FMAs per cycle with a 4-cycle latency, 8 would keep a
// core busy; more amortize the loop's counter over more flops.
func (be *backend) fmaChains() int { return be.vecRegs - 4 }

// fmaLoop: fmaChains accumulators, each one FMA per iteration with mul and
// add in registers.
func (g *gen) fmaLoop() {
	be := g.be
	g.function("fmaLoop", "func(n int, mul, add, seed float32) float32", fmt.Sprintf(fmaLoopDoc, be.fmaChains(), be.lanes))
	n := g.load(g.Param("n"))
	mul, add := g.vec(), g.vec()
	g.VBROADCASTSS(g.addr(g.Param("mul")), mul)
	g.VBROADCASTSS(g.addr(g.Param("add")), add)
	acc := make([]reg.VecVirtual, be.fmaChains())
	for i := range acc {
		acc[i] = g.vec()
		if i == 0 {
			g.VBROADCASTSS(g.addr(g.Param("seed")), acc[i])
		} else {
			g.VADDPS(add, acc[i-1], acc[i])
		}
	}
	done, loop := g.label("done"), g.label("fma")
	g.TESTQ(n, n)
	g.JZ(done)
	g.Label(string(loop))
	for _, a := range acc {
		g.VFMADD213PS(add, mul, a) // a = a·mul + add
	}
	g.DECQ(n)
	g.JNZ(loop)
	g.Label(string(done))
	g.reduce(acc, g.sum(), g.addr(g.ReturnIndex(0)))
	g.VZEROUPPER()
	g.RET()
}

const prefetchDoc = `	// nothing: Go has no prefetch instruction, and a hint changes no result

The assembly asks the processor to start loading the cache line holding *p
into every cache level (PREFETCHT0) and returns at once: it neither waits
for the line nor faults, whatever p points to.`

// prefetch: one PREFETCHT0. It needs neither AVX2 nor AVX-512, but each
// backend carries its copy so that the dispatch stays one switch per
// kernel.
func (g *gen) prefetch() {
	g.function("prefetch", "func(p *byte)", prefetchDoc)
	p := g.load(g.Param("p"))
	g.PREFETCHT0(operand.Mem{Base: p})
	g.RET()
}
