package main

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// backend describes one instruction set the kernels are generated for. The
// kernels are written once; everything that differs between AVX2 and
// AVX-512 is here.
type backend struct {
	name   string // value of -backend
	suffix string // appended to the kernel names: sqdist → sqdistAVX512
	cpu    string // how the doc comments name the instruction set

	// lanes is the number of float32 in one vector register. A tile row
	// (16 slots of one feature) is 16/lanes registers.
	lanes int
	// vecRegs is the number of vector registers the encoding reaches: VEX
	// (AVX2) stops at 16, EVEX (AVX-512) has 32.
	vecRegs int
	// vec allocates a virtual vector register of the backend's width.
	vec func(*build.Context) reg.VecVirtual
	// xor and or set dst to the bitwise XOR or OR of a and b. VXORPS and
	// VORPS on zmm are AVX512DQ, so the AVX-512F code uses VPXORD and
	// VPORD.
	xor, or func(g *gen, a, b, dst reg.VecVirtual)

	// opmask is set when the instruction set has opmask registers
	// (AVX-512): exp zeroes the lanes below ExpMin by masking its last
	// FMA instead of substituting their arguments.
	opmask bool
	// constsInRegs broadcasts every exp constant into a register once per
	// call. With 32 registers that leaves room for four exp blocks and four
	// accumulators. With 16, four blocks in flight need 12 registers and the
	// constants are read as full-width memory operands instead (a load port
	// µop, no ALU µop); only the upper clamp bound stays in a register,
	// because a memory operand of VMINPS would have to be the NaN-winning
	// one.
	constsInRegs bool
	// tileBlock is the number of tiles a distance kernel processes at
	// once: tileBlock·16/lanes accumulators share each broadcast of a
	// query feature and hide the 4-cycle FMA latency.
	tileBlock int
	// tileBlock64 is tileBlock for sqdist64: its float64 accumulators
	// take twice the registers per tile, and its four instructions per
	// register and feature bound it by throughput, not by the latency of
	// the additions, so fewer tiles keep the vector units busy (and the
	// overlapping last block recomputes fewer).
	tileBlock64 int
	// exactWidth is the size in bytes of the float64 registers of sqdist64
	// and paCosts, 32 (ymm) on both backends. On Zen 4 (EPYC 9004) the
	// AVX-512 form of sqdist64 on zmm (64) took 5.0–5.2 µs for 200
	// vectors of 180 features, with or without
	// the FMA subtraction, against 3.4 µs on ymm: presumably the
	// conversion VCVTPS2PD zmm ← ymm, which feeds both 256-bit halves of
	// a double-pumped register from one of them. Intel's AVX-512 cores
	// have no such split and may run the zmm form faster (not measured).
	// On ymm the AVX-512 form is the AVX2 one: VEX-encoded, registers
	// 0–15 only, which checkRegisters enforces.
	exactWidth int
	// expUnroll is the number of exp blocks (registers) in flight per loop
	// iteration of gaussianSumColumns (at most) and exp; the blocks are independent, so their
	// dependency chains (about 15 instructions deep) overlap.
	expUnroll int
	// sumAccs is the number of accumulators of Σ w·k in gaussianSumColumns
	// with one column.
	sumAccs int
	// fusedCols is the largest number of columns gaussianSumColumns sums
	// in its exp pass; the wrapper leaves the others to dotColumns. More
	// would leave registers for fewer exp blocks in flight.
	fusedCols int
	// dotUnroll is the number of accumulators of dot.
	dotUnroll int
	// colBlock is the number of columns dotColumns takes per pass over k:
	// each load of a block of k serves that many FMAs, one per column.
	colBlock int
	// colChains is the number of accumulator registers dotColumns keeps
	// in flight: a block of fewer columns gives each column more of them
	// (one per unrolled block of k), so that the FMA latency stays hidden.
	colChains int

	// scalarEVEX lists the instructions without a zmm operand that the
	// AVX-512 kernels may apply to registers 16–31: scalar instructions
	// have EVEX encodings in AVX-512F itself (no AVX512VL needed).
	scalarEVEX map[string]bool
}

var backends = []*backend{
	{
		name:         "avx2",
		suffix:       "AVX2",
		cpu:          "AVX2 and FMA",
		lanes:        8,
		vecRegs:      16,
		vec:          (*build.Context).YMM,
		xor:          func(g *gen, a, b, dst reg.VecVirtual) { g.VXORPS(a, b, dst) },
		or:           func(g *gen, a, b, dst reg.VecVirtual) { g.VORPS(a, b, dst) },
		constsInRegs: false,
		tileBlock:    4, // 8 ymm accumulators
		tileBlock64:  2, // 8 ymm accumulators
		exactWidth:   32,
		expUnroll:    4,
		sumAccs:      1, // 12 registers for the blocks + scale, bounds, sum
		fusedCols:    7, // 2 exp blocks in flight
		dotUnroll:    8, // 2 FMA/cycle × 4 cycles latency
		colBlock:     6, // 12 ymm accumulators, 2 for a block of k
		colChains:    12,
	},
	{
		name:         "avx512",
		suffix:       "AVX512",
		cpu:          "AVX-512F",
		lanes:        16,
		vecRegs:      32,
		vec:          (*build.Context).ZMM,
		xor:          func(g *gen, a, b, dst reg.VecVirtual) { g.VPXORD(a, b, dst) },
		or:           func(g *gen, a, b, dst reg.VecVirtual) { g.VPORD(a, b, dst) },
		opmask:       true,
		constsInRegs: true,
		tileBlock:    8, // 8 zmm accumulators
		tileBlock64:  2, // 8 ymm accumulators (exactWidth)
		exactWidth:   32,
		expUnroll:    4,
		sumAccs:      4,
		fusedCols:    10, // 3 exp blocks in flight
		dotUnroll:    4,  // two zmm loads per FMA limit it to 1 FMA/cycle
		colBlock:     8,  // 9 loads per 8 FMAs
		colChains:    8,
		scalarEVEX:   map[string]bool{"VMOVSS": true, "VMOVSD": true},
	},
}

func lookupBackend(name string) *backend {
	for _, be := range backends {
		if be.name == name {
			return be
		}
	}
	return nil
}

func backendNames() string {
	var names []string
	for _, be := range backends {
		names = append(names, be.name)
	}
	return strings.Join(names, "|")
}

// width is the size of a vector register in bytes.
func (be *backend) width() int { return be.lanes * 4 }

// rowRegs is the number of vector registers in one tile row.
func (be *backend) rowRegs() int { return tileLanes / be.lanes }

// tileLanes is the number of slots of a tile (layout.Lanes): one tile row is
// tileLanes float32 of one feature.
const tileLanes = 16

// tileRowBytes is the size of one tile row.
const tileRowBytes = tileLanes * 4

// gen emits the kernels of one backend into an avo context.
type gen struct {
	*build.Context
	be     *backend
	table  operand.Mem // the exp constants (exp.go)
	labels int
	// columnSums is the table of reduceColumns, once emitted.
	columnSums *operand.Mem
}

func newGen(ctx *build.Context, be *backend) *gen {
	g := &gen{Context: ctx, be: be}
	g.table = g.constTable()
	return g
}

// vec allocates a vector register of the backend's width.
func (g *gen) vec() reg.VecVirtual { return g.be.vec(g.Context) }

// zeroFrom clears the vector register v by the XOR of src with itself (a
// zeroing idiom: no dependency on src).
func (be *backend) zeroFrom(g *gen, src, v reg.VecVirtual) { be.xor(g, src, src, v) }

// zero clears the vector register v.
func (be *backend) zero(g *gen, v reg.VecVirtual) { be.zeroFrom(g, v, v) }

// label returns a label name unique within the generated file.
func (g *gen) label(name string) operand.LabelRef {
	g.labels++
	return operand.LabelRef(fmt.Sprintf("%s_%d", name, g.labels))
}

// addr returns the stack address of an argument or result.
func (g *gen) addr(c gotypes.Component) operand.Mem {
	b, err := c.Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// load loads an integer or pointer argument into a new register.
func (g *gen) load(c gotypes.Component) reg.GPVirtual {
	r := g.GP64()
	g.Load(c, r)
	return r
}

// all emits every kernel.
func (g *gen) all() {
	g.sqdist()
	g.sqdistSparse()
	g.gaussianSumColumns()
	g.dot()
	g.dotAxpy()
	g.dotColumns()
	g.exp()
	g.fourier()
	g.fourierSparse()
	g.axpy()
	g.mergeSearch()
	g.min()
	g.fmaLoop()
	g.sqdist64()
	g.prefetch()
	g.fullRow()
	g.paCosts()
	g.axpyRows()
	g.mulAdd64("mulAdd64", mulAddCols)
	g.mulAdd64("mulAdd64Half", mulAddCols/2)
	g.scoreTiles()
	g.doubleAngles()
}
