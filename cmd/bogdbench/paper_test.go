package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/experiment/paper"
)

// testDatasets holds german.svm.gz, the same file as shared/datasets'.
const testDatasets = "../../dataset/testdata"

// tinyArgs is the tiny configuration of the tests: german only, two
// budgets, two reported and two selection runs, the tiny grid.
func tinyArgs(extra ...string) []string {
	return append([]string{
		"paper", "--datasets", testDatasets, "--only", "german", "--budgets", "100,150",
		"--runs", "2", "--select-runs", "2", "--grid", "tiny", "--workers", "2", "--plots=false",
	}, extra...)
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Every reported run of `paper` is the same pass as `bogdbench run --seed
// 1` with the selected parameters.
func TestReportedRunsMatchRunCommand(t *testing.T) {
	out := t.TempDir()
	if code, stdout, stderr := bench(t, tinyArgs("--algo", "bogd++", "--out", out)...); code != 0 {
		t.Fatalf("paper: exit %d\n%s%s", code, stdout, stderr)
	}
	opt, err := parsePaperFlags(tinyArgs("--algo", "bogd++", "--out", out)[1:], new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	rs := experiment.NewResultSet()
	if _, err := rs.Load(opt.Results, func(msg string) { t.Error(msg) }); err != nil {
		t.Fatal(err)
	}
	plan := opt.Plan()
	sels, err := plan.Selections(rs)
	if err != nil {
		t.Fatal(err)
	}
	c := experiment.Cell{Dataset: "german", Algo: bogd.BOGDpp, Budget: 150}
	sel := sels[c]
	code, stdout, stderr := bench(t, "run", "--data", filepath.Join(testDatasets, "german.svm.gz"), "--algo", "bogd++", "--budget", "150", "--runs", "2", "--scale", "none", "--sigma", "8",
		"--seed", "1", "--eta", ftoa(sel.Params.Eta), "--gamma", ftoa(sel.Params.Gamma), "--lambda", ftoa(sel.Params.LambdaT2)+"/T^2", "--format", "json")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	var total int
	for r := range 2 {
		rec, ok := rs.Get(plan.ReportJob(c, sel, r).Key)
		if !ok {
			t.Fatalf("reported run %d missing", r)
		}
		total += rec.Mistakes
	}
	var rows []row
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil || len(rows) != 2 || !rows[1].Trivial {
		t.Fatalf("run output %s: %v", stdout, err)
	}
	if want := 100 * float64(total) / 2 / 1000; rows[0].MistakeRateMean == nil || math.Abs(*rows[0].MistakeRateMean-want) > 1e-9 {
		t.Fatalf("run: mean mistake rate %v, the reported runs %v", *rows[0].MistakeRateMean, want)
	}
}

// A reproduction recomputes: without --out it writes a new directory;
// into an existing run it goes only with --resume, which skips what is
// done.
func TestPaperRecomputesUnlessResumed(t *testing.T) {
	data, err := filepath.Abs(testDatasets)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	args := tinyArgs("--datasets", data, "--algo", "rbp,bogd")
	code, stdout, stderr := bench(t, args...)
	if code != 0 {
		t.Fatalf("first run: exit %d\n%s%s", code, stdout, stderr)
	}
	entries, err := os.ReadDir(newRunsDir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("%s: %v, %v", newRunsDir, entries, err)
	}
	out := filepath.Join(newRunsDir, entries[0].Name())
	results := filepath.Join(out, "paper-runs.jsonl")
	if !strings.Contains(stdout, "wrote "+filepath.Join(out, "paper.md")+" (results in "+results+")") || !strings.Contains(stderr, "ran 24 jobs (0 were already done)") {
		t.Fatalf("first run:\n%s%s", stdout, stderr)
	}
	before, _ := os.ReadFile(results)

	code, _, stderr = bench(t, append(args, "--out", out)...)
	if code != 1 || !strings.Contains(stderr, "already exists: pass --resume to continue that run, or choose another --out") {
		t.Fatalf("into the same directory without --resume: exit %d: %s", code, stderr)
	}
	code, _, stderr = bench(t, append(args, "--results", results, "--out", t.TempDir())...)
	if code != 1 || !strings.Contains(stderr, results+" already exists") {
		t.Fatalf("onto the same results without --resume: exit %d: %s", code, stderr)
	}
	if now, _ := os.ReadFile(results); !bytes.Equal(now, before) {
		t.Fatal("a refused run changed the results")
	}
	code, _, stderr = bench(t, append(args, "--out", out, "--resume")...)
	if code != 0 || !strings.Contains(stderr, "ran 0 jobs (24 were already done)") {
		t.Fatalf("--resume: exit %d: %s", code, stderr)
	}
}

func TestPaperErrors(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := bench(t, "paper", "--datasets", dir, "--only", "german,w8a", "--out", dir)
	if code != 1 || !strings.Contains(stderr, filepath.Join(dir, "german.svm.gz")) || !strings.Contains(stderr, "w7a.svm.gz (the paper's w8a)") ||
		!strings.Contains(stderr, "pass --datasets DIR") {
		t.Fatalf("missing datasets: exit %d, %s", code, stderr)
	}
	for _, args := range [][]string{
		{"--only", "nosuch"},
		{"--shard", "2/2", "--phase", "select"},
		{"--shard", "0/2"}, // phase all cannot be sharded
		{"--grid", "huge"},
		{"--skip", "german"},
		{"--budgets", "1"},
		{"--projection", "squash"},
		{"--seed", "7", "--select-seed", "7"},
	} {
		if code, _, stderr := bench(t, append(tinyArgs("--out", dir), args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--resume"}, "--resume needs --out"},
		{[]string{"--phase", "tables"}, "--phase tables needs --out"},
	} {
		if code, _, stderr := bench(t, append(tinyArgs(), c.args...)...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %s", c.args, code, stderr)
		}
	}
	// Tables before the report phase: an error that says what to run.
	if code, _, stderr := bench(t, tinyArgs("--out", dir, "--phase", "select")...); code != 0 {
		t.Fatalf("select: %s", stderr)
	}
	code, _, stderr = bench(t, tinyArgs("--out", dir, "--phase", "tables")...)
	if code != 1 || !strings.Contains(stderr, "reported runs are missing") || !strings.Contains(stderr, "run `bogdbench paper --phase report` (every shard)") {
		t.Fatalf("tables without reported runs: exit %d, %s", code, stderr)
	}
}

// An interrupted run says how to continue it, with the directory it chose.
func TestPaperAdviceOnInterrupt(t *testing.T) {
	e := &experiment.Execution{Results: "r.jsonl"}
	err := studyAdvice("paper", "bogdbench paper --quick", "benchmarks/results/runs/quick-x", e, fmt.Errorf("%w: 3 of 10 select jobs finished now", experiment.ErrInterrupted))
	if want := "to continue, run `bogdbench paper --quick --resume --out benchmarks/results/runs/quick-x`"; !strings.Contains(err.Error(), want) {
		t.Fatalf("%v lacks %q", err, want)
	}
	if err := studyAdvice("paper", "bogdbench paper --out o --resume", "o", e, experiment.ErrInterrupted); !strings.Contains(err.Error(), "run `bogdbench paper --out o --resume`") {
		t.Fatalf("%v", err)
	}
}

func TestMergeCommand(t *testing.T) {
	dir := t.TempDir()
	rec := &experiment.Record{Dataset: "german", Algorithm: "rbp", Rule: bogd.RBP.RuleVersion(), Budget: 100, Stream: experiment.StreamReport, Seed: 1, Sigma: 8,
		Rows: 1000, Result: experiment.Result{Mistakes: 380, SupportVectors: 100, Seconds: 0.1}, SIMD: "avx2"}
	other := *rec
	other.Mistakes, other.SIMD = 381, "generic"
	a, c := filepath.Join(dir, "a"), filepath.Join(dir, "c")
	if err := experiment.WriteRecords(a, []*experiment.Record{rec}); err != nil {
		t.Fatal(err)
	}
	if err := experiment.WriteRecords(c, []*experiment.Record{&other}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, stdout, stderr := bench(t, "merge", "--out", out, a, a); code != 0 || !strings.Contains(stdout, "merged 1 records from 2 files into "+out+" (1 duplicates dropped)") {
		t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := bench(t, "merge", "--out", out, a, c); code != 1 || !strings.Contains(stderr, "conflicting") || !strings.Contains(stderr, "simd avx2") || !strings.Contains(stderr, "simd generic") {
		t.Fatalf("conflicting merge: exit %d: %s", code, stderr)
	}
	if code, _, _ := bench(t, "merge", "--out", out, a, filepath.Join(dir, "missing")); code != 1 {
		t.Fatalf("merge of a missing file: exit %d", code)
	}
	if code, _, _ := bench(t, "merge", a); code != 2 {
		t.Fatalf("merge without --out: exit %d", code)
	}
}

// committedQuick is the committed output of `make demo`'s command.
const committedQuick = "../../benchmarks/results/quick"

// The committed quick reproduction still tabulates as it did: its records
// are complete for the quick plan, and every table the report renders from
// them is the committed one (the machine's timing line aside).
func TestCommittedQuickTablesUnchanged(t *testing.T) {
	out := t.TempDir()
	results := filepath.Join(committedQuick, "paper-runs.jsonl")
	code, stdout, stderr := bench(t, "paper", "--quick", "--phase", "tables", "--results", results, "--out", out, "--plots=false")
	if code != 0 {
		t.Fatalf("paper --phase tables: exit %d\n%s%s", code, stdout, stderr)
	}
	got, err := os.ReadFile(filepath.Join(out, paper.ReportName))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(committedQuick, paper.ReportName))
	if err != nil {
		t.Fatal(err)
	}
	// From the protocol to the plots, without the line of this machine.
	body := func(md []byte) string {
		s := string(md)
		s = s[strings.Index(s, "## Protocol"):]
		if i := strings.Index(s, "## Plots"); i >= 0 {
			s = s[:i]
		}
		var keep []string
		for _, line := range strings.Split(s, "\n") {
			if !strings.HasPrefix(line, "- **Timing**") {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "\n")
	}
	if g, w := body(got), body(want); g != w {
		t.Fatalf("the tables of the committed quick runs changed:\n%s\nwant\n%s", g, w)
	}
}

// Resuming the committed quick reproduction has nothing left to run.
func TestCommittedQuickResumesComplete(t *testing.T) {
	datasets := "../../../shared/datasets"
	if _, err := os.Stat(filepath.Join(datasets, "w7a.svm.gz")); err != nil {
		t.Skipf("the quick datasets are not in %s: %v", datasets, err)
	}
	if testing.Short() {
		t.Skip("reads four datasets")
	}
	out := t.TempDir()
	runs, err := os.ReadFile(filepath.Join(committedQuick, "paper-runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "paper-runs.jsonl"), runs, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := bench(t, "paper", "--quick", "--datasets", datasets, "--out", out, "--resume", "--plots=false")
	if code != 0 || !strings.Contains(stderr, "ran 0 jobs (826 were already done)") {
		t.Fatalf("resume: exit %d\n%s%s", code, stdout, stderr)
	}
}
