package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedUpToDate regenerates every file named by the go:generate
// directives of package simd, with their arguments, and compares the result
// with the committed files: the generator must be deterministic and the
// committed assembly must be what it produces.
func TestGeneratedUpToDate(t *testing.T) {
	dir := filepath.Join("..", "..", "simd")
	src, err := os.ReadFile(filepath.Join(dir, "gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(src), "\n") {
		args, ok := strings.CutPrefix(line, "//go:generate go run ../asm/gen ")
		if !ok {
			continue
		}
		argv := strings.Fields(args)
		opt := map[string]string{}
		for i := 0; i+1 < len(argv); i += 2 {
			opt[strings.TrimPrefix(argv[i], "-")] = argv[i+1]
		}
		be := lookupBackend(opt["backend"])
		if be == nil {
			t.Fatalf("gen.go: unknown backend in %q", line)
		}
		seen[be.name] = true
		for run := 0; run < 2; run++ { // twice: the output must not vary
			asm, decls, err := generate(be, opt["pkg"], argv)
			if err != nil {
				t.Fatalf("%s: %v", be.name, err)
			}
			for file, got := range map[string][]byte{opt["out"]: asm, opt["stubs"]: decls} {
				want, err := os.ReadFile(filepath.Join(dir, file))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("simd/%s is not what asm/gen generates: run go generate ./simd", file)
				}
			}
		}
	}
	for _, be := range backends {
		if !seen[be.name] {
			t.Errorf("simd/gen.go has no go:generate directive for backend %s", be.name)
		}
	}
}
