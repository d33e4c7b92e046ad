# bogd: build, test and benchmark targets. `make test` is what CI runs.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
GO      ?= go
QEMU    ?= qemu-x86_64
BENCH   ?= .
COUNT   ?= 6
FUZZTIME ?= 3s
# The model loaders and the data reader parse files from outside: they
# fuzz longer. FuzzLoad on the code before the load limits found a model
# that crashed every command (an unbudgeted learner's Budget taken as a
# slice capacity) within 1 to 7 s in 8 runs from the committed corpus;
# 30 s is four times the slowest.
FUZZTIME_LOADERS ?= 30s
LOADER_FUZZERS = FuzzLoad FuzzLoadModel FuzzRead

.PHONY: all build generate check-generate check-qemu check-slurm test test-unit test-purego test-race test-cpus test-slurm test-attack fuzz fuzz-long bench bench-score pgo demo vet staticcheck fmt-check load clean

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

# staticcheck at a pinned version, built by go run on first use.
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck:
	$(STATICCHECK) ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

test-unit:
	$(GO) test ./...

# No assembly at all: the pure-Go build must pass the same tests.
test-purego:
	BOGD_REQUIRE_IMPL=generic $(GO) test -tags purego ./...

# The race detector, on the pure-Go build (the detector does not see inside assembly).
test-race:
	BOGD_REQUIRE_IMPL=generic $(GO) test -race -tags purego -short ./engine/ ./bogd/ ./layout/ ./dataset/ ./prep/ ./eval/ ./cmd/... ./serve/...

# Dispatch on CPUs without the features: the whole simd, engine and bogd
# suites (-short) run on an emulated Haswell (AVX2, no AVX-512) and qemu64
# (no AVX at all), asserting which implementation is chosen and requiring
# the one the CPU has (zeebo/blake3 does the same). Without qemu-x86_64
# (Debian's qemu-user) these runs are skipped loudly; BOGD_REQUIRE_QEMU=1
# (set by .ci/run) makes that an error.
EMULATED ?= ./simd/ ./engine/ ./bogd/
test-cpus: check-qemu
	@if command -v $(QEMU) >/dev/null; then \
	  set -o pipefail; \
	  echo "== emulated Haswell (avx2): $(EMULATED)"; \
	  BOGD_EXPECT_IMPL=avx2 BOGD_REQUIRE_IMPL=avx2 $(GO) test -short -count=1 -exec '$(QEMU) -cpu Haswell' $(EMULATED) 2>&1 | $(QEMU_QUIET) && \
	  echo "== emulated qemu64 (generic): $(EMULATED)" && \
	  BOGD_EXPECT_IMPL=generic BOGD_REQUIRE_IMPL=generic $(GO) test -short -count=1 -exec '$(QEMU) -cpu qemu64' $(EMULATED) 2>&1 | $(QEMU_QUIET); \
	fi

# The prerequisites of the emulated runs, checked before anything else runs.
check-qemu:
	@if ! command -v $(QEMU) >/dev/null; then \
	  if [ -n "$$BOGD_REQUIRE_QEMU" ]; then \
	    echo "$(QEMU) not found and BOGD_REQUIRE_QEMU is set: install Debian's qemu-user (apt-get install qemu-user)"; exit 1; \
	  fi; \
	  echo "************************************************************************"; \
	  echo "* $(QEMU) not found: the tests on emulated CPUs (Haswell, qemu64) will"; \
	  echo "* be SKIPPED. Install Debian's qemu-user (apt-get install qemu-user) to"; \
	  echo "* run them; everything else runs now."; \
	  echo "************************************************************************"; \
	fi

# qemu warns about every CPU flag its emulator lacks; the tests' output matters.
QEMU_QUIET = { grep -v "TCG doesn't support requested feature" || true; }

# Short runs of every fuzz target (the seed corpora also run in `go test`).
# Go before 1.27 can end a run bounded by -fuzztime with a bare "context
# deadline exceeded" failure when the deadline falls mid-execution
# (golang/go#75804). Such a run, which wrote no failing input, runs once
# more; any other failure fails.
FUZZ_RUN = $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $$t $$pkg
fuzz:
	@for pkg in ./simd/ ./dataset/ ./prep/ ./bogd/ ./engine/ ./serve/ ./serve/wal/; do \
	  for f in $$($(GO) test -list 'Fuzz.*' $$pkg | grep ^Fuzz); do \
	    t=$(FUZZTIME); case " $(LOADER_FUZZERS) " in *" $$f "*) t=$(FUZZTIME_LOADERS);; esac; \
	    echo "fuzz $$pkg $$f ($$t)"; \
	    if ! out=$$($(FUZZ_RUN) 2>&1); then \
	      echo "$$out"; \
	      if ! grep -q 'context deadline exceeded' <<<"$$out" || grep -q 'Failing input written' <<<"$$out"; then exit 1; fi; \
	      echo "fuzz $$pkg $$f: the fuzzing engine's deadline race (golang/go#75804), no failing input: once more"; \
	      $(FUZZ_RUN) || exit 1; \
	    else echo "$$out"; fi; \
	  done; \
	done

test: check-qemu check-slurm fmt-check vet staticcheck test-unit test-purego test-race check-generate test-cpus fuzz test-slurm test-attack

# The server under attack (cmd/bogdbench TestServeUnderAttack, about 30 s):
# bogdbench serve, its address space capped at 1 GiB, takes 64 concurrent
# requests of the largest size while 500 connections send their bodies a
# byte a second; it must stay alive, answer /healthz (99% within 100 ms,
# or twice what an idle server beside it takes on a loaded machine) and
# come back to within 50 MB of its idle memory. Its own target: it
# asserts latencies, which a plain go test leaves alone.
test-attack:
	BOGD_ATTACK_TEST=1 $(GO) test -count=1 -v -run '^TestServeUnderAttack$$' ./cmd/bogdbench/

# A grid on a real scheduler (benchmarks/cluster/slurm_test.go): a
# single-node Slurm with 2 CPUs started from Debian's slurm-wlm and munge
# (configuration, state and logs in a temporary directory; the daemons
# stopped on every exit), the `paper --quick` grid submitted with
# benchmarks/cluster/slurm.sh as two arrays of 4 tasks and a merge, and its
# records, report and plots compared with one process's; then a task
# cancelled mid-run and the chain resubmitted with -r. Without Slurm it is
# skipped loudly; BOGD_REQUIRE_SLURM=1 (set by .ci/run) makes that an
# error. The daemons live in /usr/sbin, which a user's PATH may lack.
SLURM_PROGRAMS = munged mungekey slurmctld slurmd sbatch scontrol scancel sinfo squeue
SLURM_PATH = $(PATH):/usr/sbin:/sbin
test-slurm: check-slurm
	PATH="$(SLURM_PATH)" BOGD_SLURM_TEST=1 $(GO) test -count=1 -v -timeout 20m -run '^TestSlurm' ./benchmarks/cluster/

check-slurm:
	@missing=""; for p in $(SLURM_PROGRAMS); do PATH="$(SLURM_PATH)" command -v $$p >/dev/null || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ -n "$$BOGD_REQUIRE_SLURM" ]; then \
	    echo "not found:$$missing, and BOGD_REQUIRE_SLURM is set: install Debian's slurm-wlm and munge (apt-get install slurm-wlm munge)"; exit 1; \
	  fi; \
	  echo "************************************************************************"; \
	  echo "* not found:$$missing"; \
	  echo "* The test on a real Slurm will be SKIPPED. Install Debian's slurm-wlm"; \
	  echo "* and munge (apt-get install slurm-wlm munge) to run it."; \
	  echo "************************************************************************"; \
	fi

# A longer search than make test's: every fuzz target for FUZZ_LONG (10
# minutes) each, the loaders and the reader included. New failing inputs
# land in testdata/fuzz/, to be fixed and committed as regressions.
FUZZ_LONG ?= 10m
fuzz-long:
	$(MAKE) fuzz FUZZTIME=$(FUZZ_LONG) FUZZTIME_LOADERS=$(FUZZ_LONG)

bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -count $(COUNT) ./...

# The issue's headline shapes, every implementation, for benchstat.
bench-score:
	$(GO) test -run '^$$' -bench 'BenchmarkScore$$' -count $(COUNT) ./engine/

# The profile behind bogdbench's profile-guided optimization:
# cmd/bogdbench/default.pgo, which `go build` and `go run` of the command
# apply by themselves (the library's own tests and benchmarks are built
# without it). It merges the CPU profiles of experiment's BenchmarkPass
# (codrna's passes, or random rows of its shape without ../shared) and
# bogd's BenchmarkStep (skipped without ../shared). The profile is sampled,
# so it differs from run to run: regenerate it after changing the hot path,
# and measure (benchmarks/README.md, "Round 7").
pgo:
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(GO) test -run '^$$' -bench 'BenchmarkPass$$' -benchtime 2x -o "$$tmp/experiment.test" -cpuprofile "$$tmp/pass.pprof" ./experiment/ && \
	$(GO) test -run '^$$' -bench 'BenchmarkStep$$' -benchtime 2x -o "$$tmp/bogd.test" -cpuprofile "$$tmp/step.pprof" ./bogd/ && \
	$(GO) tool pprof -proto "$$tmp/pass.pprof" "$$tmp/step.pprof" > cmd/bogdbench/default.pgo

# The paper's protocol in quick form: parameter selection on held-out
# permutations, reported runs, Tables 2 and 3 against the paper, plots. On the
# four smaller datasets when ../shared/datasets is there, else on the bundled
# german data. Results go to bin/demo, recomputed by every run: the
# previous demo's output, generated here, is removed first.
DEMO_DATA ?= $(if $(wildcard ../shared/datasets/german.svm.gz),../shared/datasets,dataset/testdata)
demo:
	$(GO) build -o bin/bogdbench ./cmd/bogdbench
	rm -rf bin/demo
	bin/bogdbench paper --quick --datasets $(DEMO_DATA) $(if $(filter dataset/testdata,$(DEMO_DATA)),--only german) --out bin/demo
	@echo "tables: bin/demo/paper.md, figures: bin/demo/plots/"

clean:
	rm -rf bin

# The server's load test (serve.BenchmarkLoad): one-row /predict requests
# from 1, 8 and 64 connections against a bare handler of the same JSON, with
# and without learning, in interleaved rounds (about 30 s); and acknowledged
# /learn requests per second with the file log and a memory log
# (BenchmarkLearn, about 20 s).
load:
	$(GO) test -run '^$$' -bench 'BenchmarkLoad' -benchtime 1x ./serve/
	$(GO) test -run '^$$' -bench 'BenchmarkLearn' -benchtime 1x ./serve/
