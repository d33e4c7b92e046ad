# bogd: build, test and benchmark targets. `make test` is what CI runs.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
GO      ?= go
QEMU    ?= qemu-x86_64
BENCH   ?= .
COUNT   ?= 6
FUZZTIME ?= 3s

.PHONY: all build generate check-generate test test-unit test-purego test-race test-cpus fuzz bench bench-score demo vet fmt-check clean

all: build

build:
	$(GO) build ./...

# Regenerate the AVX2 and AVX-512 assembly from the avo generators in asm/gen.
generate:
	$(GO) generate ./simd/

# The committed assembly must be exactly what the generators produce.
check-generate: generate
	git diff --exit-code -- simd/

vet:
	$(GO) vet ./...
	$(GO) vet -tags purego ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

test-unit:
	$(GO) test ./...

# No assembly at all: the pure-Go build must pass the same tests.
test-purego:
	$(GO) test -tags purego ./...

# The race detector, on the pure-Go build (the detector does not see inside assembly).
test-race:
	$(GO) test -race -tags purego -short ./engine/ ./bogd/ ./layout/ ./dataset/ ./cmd/...

# Dispatch on CPUs without the features: Haswell has AVX2 but no AVX-512,
# qemu64 has no AVX at all. Each run asserts which implementation was chosen.
test-cpus:
	@command -v $(QEMU) >/dev/null || { echo "$(QEMU) not found: apt-get install qemu-user"; exit 1; }
	$(GO) test -c -o bin/simd.test ./simd/
	$(GO) test -c -o bin/engine.test ./engine/
	BOGD_EXPECT_IMPL=avx2 $(QEMU) -cpu Haswell bin/simd.test -test.run 'TestDispatch|TestEquiv' -test.short 2>&1 | $(QEMU_QUIET)
	BOGD_EXPECT_IMPL=generic $(QEMU) -cpu qemu64 bin/simd.test -test.run 'TestDispatch|TestEquiv' -test.short 2>&1 | $(QEMU_QUIET)
	$(QEMU) -cpu Haswell bin/engine.test -test.run 'TestScoreMatchesReference|TestFarQueries|TestHugeValues' 2>&1 | $(QEMU_QUIET)
	$(QEMU) -cpu qemu64 bin/engine.test -test.run 'TestScoreMatchesReference|TestFarQueries|TestHugeValues' 2>&1 | $(QEMU_QUIET)

# qemu warns about every CPU flag its emulator lacks; the tests' output matters.
QEMU_QUIET = { grep -v "TCG doesn't support requested feature" || true; }

# Short runs of every fuzz target (the seed corpora also run in `go test`).
fuzz:
	@for pkg in ./simd/ ./dataset/ ./bogd/; do \
	  for f in $$($(GO) test -list 'Fuzz.*' $$pkg | grep ^Fuzz); do \
	    echo "fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

test: fmt-check vet test-unit test-purego test-race check-generate test-cpus fuzz

bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -count $(COUNT) ./...

# The issue's headline shapes, every implementation, for benchstat.
bench-score:
	$(GO) test -run '^$$' -bench 'BenchmarkScore$$' -count $(COUNT) ./engine/

# The paper's protocol in quick form: parameter selection on held-out
# permutations, reported runs, Tables 2 and 3 against the paper, plots. On the
# four smaller datasets when ../shared/datasets is there, else on the bundled
# german data. Results go to bin/demo (a second run resumes from them).
DEMO_DATA ?= $(if $(wildcard ../shared/datasets/german.svm.gz),../shared/datasets,dataset/testdata)
demo:
	$(GO) build -o bin/bogdbench ./cmd/bogdbench
	bin/bogdbench paper --quick --datasets $(DEMO_DATA) $(if $(filter dataset/testdata,$(DEMO_DATA)),--only german) --out bin/demo
	@echo "tables: bin/demo/paper.md, figures: bin/demo/plots/"

clean:
	rm -rf bin
