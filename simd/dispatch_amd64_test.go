//go:build !purego

package simd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// TestRequiresChecked parses the generated Go declarations and fails if a
// function's Requires line names a CPU feature that the dispatch does not
// check before making the function's implementation active.
func TestRequiresChecked(t *testing.T) {
	files, err := filepath.Glob("kernels_*_amd64.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no generated declarations: the test binary runs outside the package directory")
	}
	seen := map[Impl]int{}
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Doc == nil {
				continue
			}
			impl, ok := implOf(fn.Name.Name)
			if !ok {
				t.Errorf("%s: %s: no implementation's suffix", file, fn.Name.Name)
				continue
			}
			seen[impl]++
			for _, line := range strings.Split(fn.Doc.Text(), "\n") {
				list, ok := strings.CutPrefix(line, "Requires: ")
				if !ok {
					continue
				}
				for _, name := range strings.Split(list, ", ") {
					id := cpuid.ParseFeature(name)
					if id == cpuid.UNKNOWN || !slices.Contains(features[impl], id) {
						t.Errorf("%s: %s requires %s, which the dispatch of %v does not check (it checks %v)", file, fn.Name.Name, name, impl, features[impl])
					}
				}
			}
		}
	}
	for _, impl := range []Impl{AVX2, AVX512} {
		if seen[impl] == 0 {
			t.Errorf("no generated functions of %v found", impl)
		}
	}
}

// implOf returns the implementation a generated function belongs to, by
// the suffix asm/gen gives its name (sqdistAVX512).
func implOf(name string) (Impl, bool) {
	for i := Generic + 1; i < numImpls; i++ {
		if strings.HasSuffix(name, strings.ToUpper(i.String())) {
			return i, true
		}
	}
	return 0, false
}
