// Command gen writes package simd's assembly kernels with avo.
//
// It writes one Go assembly file and one file of Go declarations per backend
// (AVX2 + FMA, or AVX-512F). It is run by go generate from simd/gen.go:
//
//	go run ../asm/gen -backend avx2 -out kernels_avx2_amd64.s -stubs kernels_avx2_amd64.go -pkg simd
//
// Both backends are produced by the same code: a backend value (backend.go)
// says how wide a register is, how many registers there are, whether the exp
// constants live in registers or in memory, and which few instructions differ.
// The kernels (kernels.go) and the exponential (exp.go) are written once
// against it. The output is deterministic, so regenerating must leave the
// committed files unchanged (TestGeneratedUpToDate checks it).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
	"github.com/mmcloughlin/avo/reg"
)

func main() {
	// A flag set of our own: importing avo's build package registers its
	// flags (-out, -stubs, -pkg) on flag.CommandLine for avo's Generate,
	// which this program does not use.
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	var (
		name  = fs.String("backend", "", "backend to generate: "+backendNames())
		out   = fs.String("out", "", "assembly output `file`")
		stubs = fs.String("stubs", "", "Go declarations output `file`")
		pkg   = fs.String("pkg", "simd", "Go package `name` of the output")
	)
	fs.Parse(os.Args[1:])
	be := lookupBackend(*name)
	if be == nil || *out == "" || *stubs == "" || fs.NArg() != 0 {
		fmt.Fprintf(os.Stderr, "usage: gen -backend %s -out file.s -stubs file.go [-pkg name]\n", backendNames())
		os.Exit(2)
	}
	asm, decls, err := generate(be, *pkg, os.Args[1:])
	if err == nil {
		err = os.WriteFile(*out, asm, 0o666)
	}
	if err == nil {
		err = os.WriteFile(*stubs, decls, 0o666)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// generate builds every kernel for backend be and returns the assembly and
// the Go declarations. args are the command-line arguments recorded in the
// "Code generated" header.
func generate(be *backend, pkg string, args []string) (asm, decls []byte, err error) {
	ctx := build.NewContext()
	// The _amd64 file suffix restricts the files to amd64; purego excludes
	// them so that the pure-Go kernels can be tested and used alone.
	ctx.ConstraintExpr("!purego")
	g := newGen(ctx, be)
	g.all()

	f, err := ctx.Result()
	if err != nil {
		return nil, nil, err
	}
	if err := pass.Compile.Execute(f); err != nil {
		return nil, nil, err
	}
	if err := be.checkRegisters(f); err != nil {
		return nil, nil, err
	}
	// avo prints the required CPU features above each TEXT of the assembly;
	// repeat them in the Go doc comment, where callers read them.
	isas := map[string]bool{}
	for _, fn := range f.Functions() {
		var names []string
		for _, isa := range fn.ISA {
			names = append(names, cpuidName(isa))
			isas[cpuidName(isa)] = true
		}
		if len(names) > 0 {
			fn.Doc = append(fn.Doc, "", "Requires: "+strings.Join(names, ", "))
		}
	}

	cfg := printer.Config{
		Argv: append([]string{"go", "run", "../asm/gen"}, args...),
		Pkg:  pkg,
	}
	if asm, err = printer.NewGoAsm(cfg).Print(f); err != nil {
		return nil, nil, err
	}
	if decls, err = printer.NewStubs(cfg).Print(f); err != nil {
		return nil, nil, err
	}
	if decls, err = be.appendDecls(decls, pkg, slices.Sorted(maps.Keys(isas))); err != nil {
		return nil, nil, err
	}
	return asm, decls, nil
}

// cpuidName returns cpuid's name of the CPU feature avo calls isa. They
// are the same but for the prefetch instructions, which avo files under
// "MMX+" (AMD's name for the integer half of SSE, which brought them) and
// cpuid under SSE: cpuid's MMXEXT is AMD's CPUID bit alone, which Intel
// processors do not set.
func cpuidName(isa string) string {
	if isa == "MMX+" {
		return "SSE"
	}
	return isa
}

// appendDecls adds to the Go declarations of package pkg what the Go code
// needs to know of the backend: the CPU features its functions require,
// the union of their Requires lines, as cpuid.FeatureID values (avo's ISA
// names are cpuid's), so that the dispatch checks exactly what the
// generated code needs (a name cpuid lacks fails to compile); the number
// of columns gaussianSumColumns takes; and the flops of an iteration of
// fmaLoop.
func (be *backend) appendDecls(decls []byte, pkg string, isas []string) ([]byte, error) {
	clause := "package " + pkg + "\n"
	head, tail, ok := bytes.Cut(decls, []byte(clause))
	if !ok {
		return nil, fmt.Errorf("%s: no %q in the declarations avo printed", be.name, clause)
	}
	var b bytes.Buffer
	b.Write(head)
	b.WriteString(clause)
	b.WriteString("\nimport \"github.com/klauspost/cpuid/v2\"\n")
	b.Write(tail)
	fmt.Fprintf(&b, "\n// features%s lists the CPU features the functions above require: the union\n", be.suffix)
	b.WriteString("// of their Requires lines, all of which the dispatch checks.\n")
	fmt.Fprintf(&b, "var features%s = []cpuid.FeatureID{", be.suffix)
	for i, isa := range isas {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("cpuid." + isa)
	}
	b.WriteString("}\n")
	fmt.Fprintf(&b, "\n// fusedCols%s is the largest number of columns gaussianSumColumns%s takes.\n", be.suffix, be.suffix)
	fmt.Fprintf(&b, "const fusedCols%s = %d\n", be.suffix, be.fusedCols)
	fmt.Fprintf(&b, "\n// colBlock%s is the number of columns dotColumns%s takes per pass over k.\n", be.suffix, be.suffix)
	fmt.Fprintf(&b, "const colBlock%s = %d\n", be.suffix, be.colBlock)
	fmt.Fprintf(&b, "\n// fmaFlops%s is the number of flops of one iteration of fmaLoop%s.\n", be.suffix, be.suffix)
	fmt.Fprintf(&b, "const fmaFlops%s = %d\n", be.suffix, 2*be.fmaChains()*be.lanes)
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s: formatting the declarations: %w", be.name, err)
	}
	return out, nil
}

// checkRegisters rejects register allocations the target CPU cannot encode.
// avo's allocator hands out all 32 vector registers, but VEX-encoded
// instructions (every AVX2 instruction, and xmm/ymm instructions without
// AVX512VL) only reach the first 16; the Go assembler would silently switch
// to an EVEX encoding that AVX2-only CPUs cannot run.
func (be *backend) checkRegisters(f *ir.File) error {
	for _, fn := range f.Functions() {
		for _, i := range fn.Instructions() {
			wide := false // the instruction has a zmm operand, so it is EVEX-encoded
			high := false // it names a vector register above 15
			for _, r := range i.Registers() {
				if r.Kind() != reg.KindVector {
					continue
				}
				if r.Size() == 64 {
					wide = true
				}
				if p := reg.ToPhysical(r); p != nil && p.PhysicalIndex() >= 16 {
					high = true
				}
			}
			if !high {
				continue
			}
			if be.vecRegs <= 16 {
				return fmt.Errorf("%s: %s uses a vector register above 15, which AVX2 cannot encode", fn.Name, i.Opcode)
			}
			// AVX-512F encodes scalar instructions with any register.
			if !wide && !be.scalarEVEX[i.Opcode] {
				return fmt.Errorf("%s: %s on a vector register above 15 needs AVX512VL", fn.Name, i.Opcode)
			}
		}
	}
	return nil
}
