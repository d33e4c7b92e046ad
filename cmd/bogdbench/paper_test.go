package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bogd-project/bogd/bogd"
)

// testDatasets holds german.svm.gz, the same file as shared/datasets'.
const testDatasets = "../../dataset/testdata"

// tinyArgs is the tiny configuration of the tests: german only, two
// budgets, two reported and two selection runs, the tiny grid.
func tinyArgs(out string, extra ...string) []string {
	return append([]string{
		"--datasets", testDatasets, "--only", "german", "--budgets", "100,150",
		"--runs", "2", "--select-runs", "2", "--grid", "tiny", "--workers", "2",
		"--plots=false", "--out", out,
	}, extra...)
}

// tinyOptions parses the tiny configuration plus extra flags.
func tinyOptions(t *testing.T, out string, extra ...string) (*paperOptions, *bytes.Buffer) {
	t.Helper()
	var stderr bytes.Buffer
	opt, err := parsePaperFlags(tinyArgs(out, extra...), &stderr)
	if err != nil {
		t.Fatalf("flags: %v\n%s", err, stderr.String())
	}
	return opt, &stderr
}

func mustRunPaper(t *testing.T, opt *paperOptions) paperStats {
	t.Helper()
	stats, err := runPaper(context.Background(), opt)
	if err != nil {
		t.Fatalf("runPaper: %v\n%s", err, opt.Stderr.(*bytes.Buffer).String())
	}
	return stats
}

// outcomes maps every job of a results file to its deterministic outcome.
func outcomes(t *testing.T, path string) map[jobKey]record {
	t.Helper()
	recs, torn, _, err := readRecords(path, func(msg string) { t.Errorf("warning: %s", msg) })
	if err != nil || torn >= 0 {
		t.Fatalf("read %s: %v (torn %d)", path, err, torn)
	}
	out := map[jobKey]record{}
	for _, r := range recs {
		if _, dup := out[r.key()]; dup {
			t.Fatalf("%s: job %v twice", path, r.key())
		}
		c := *r
		c.Seconds, c.SIMD = 0, ""
		out[r.key()] = c
	}
	return out
}

func equalOutcomes(t *testing.T, got, want map[jobKey]record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d jobs, want %d", len(got), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Fatalf("job %v missing", k)
		}
		if !sameOutcome(&g, &w) {
			t.Fatalf("job %v: %+v, want %+v", k, g, w)
		}
	}
}

func TestTinyConfiguration(t *testing.T) {
	dir := t.TempDir()
	opt, _ := tinyOptions(t, dir)
	stats := mustRunPaper(t, opt)
	// Selection: BOGD and BOGD++ 4 points × 2 budgets, OGD 2 points; 2 runs each.
	// Report: 6 budgeted algorithms × 2 budgets + 2 without budget; 2 runs each.
	if want := (4*2*2+2)*2 + (6*2+2)*2; stats.Ran != want || stats.Skipped != 0 {
		t.Fatalf("ran %d, skipped %d; want %d, 0", stats.Ran, stats.Skipped, want)
	}
	for _, r := range outcomes(t, opt.Results) {
		if r.Stream == streamReport {
			if len(r.Checkpoints) != checkpointCount || r.Checkpoints[len(r.Checkpoints)-1] != r.Mistakes {
				t.Fatalf("%v: checkpoints %v end at %d mistakes", r.key(), r.Checkpoints, r.Mistakes)
			}
		} else if r.Checkpoints != nil {
			t.Fatalf("%v: selection run with checkpoints", r.key())
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "paper.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Table 2", "## Table 3", "**german**", "| BOGD++ |", "## Selected parameters", "(34.805, "} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("paper.md lacks %q", want)
		}
	}
}

// Every reported run of the tiny configuration is the same pass as
// `bogdbench run --seed 1` with the selected parameters.
func TestReportedRunsMatchRunCommand(t *testing.T) {
	dir := t.TempDir()
	opt, _ := tinyOptions(t, dir, "--algo", "bogd++")
	mustRunPaper(t, opt)
	st, err := openStore(opt.Results, nil, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	sels, err := opt.selections(st.resultSet)
	if err != nil {
		t.Fatal(err)
	}
	sel := sels[cell{"german", bogd.BOGDpp, 150}]
	var out, errOut bytes.Buffer
	args := []string{"run", "--data", filepath.Join(testDatasets, "german.svm.gz"), "--algo", "bogd++", "--budget", "150", "--runs", "2",
		"--seed", "1", "--eta", ftoa(sel.Params.Eta), "--gamma", ftoa(sel.Params.Gamma), "--lambda", ftoa(sel.Params.LambdaT2) + "/T^2", "--format", "json"}
	if code := dispatch(args, &out, &errOut); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut.String())
	}
	var total int
	for r := range 2 {
		rec, ok := st.get(opt.reportJob(cell{"german", bogd.BOGDpp, 150}, sel, r).Key)
		if !ok {
			t.Fatalf("reported run %d missing", r)
		}
		total += rec.Mistakes
	}
	var rows []row
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("run output %s: %v", out.String(), err)
	}
	if want := 100 * float64(total) / 2 / 1000; math.Abs(rows[0].MistakeRateMean-want) > 1e-9 {
		t.Fatalf("run: mean mistake rate %v, the reported runs %v", rows[0].MistakeRateMean, want)
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func itoa(i int) string { return strconv.Itoa(i) }

func TestShardsMergedEqualUnsharded(t *testing.T) {
	dir := t.TempDir()
	whole, _ := tinyOptions(t, filepath.Join(dir, "whole"))
	mustRunPaper(t, whole)
	want := outcomes(t, whole.Results)

	const n = 3
	var selFiles, repFiles []string
	for k := range n {
		f := filepath.Join(dir, "sel-"+itoa(k)+".jsonl")
		opt, _ := tinyOptions(t, dir, "--phase", "select", "--shard", itoa(k)+"/"+itoa(n), "--results", f)
		mustRunPaper(t, opt)
		selFiles = append(selFiles, f)
	}
	sel := filepath.Join(dir, "sel.jsonl")
	mergeOK(t, sel, selFiles...)

	// The report phase refuses to start before the selection is complete.
	opt, _ := tinyOptions(t, dir, "--phase", "report", "--shard", "0/3", "--results", filepath.Join(dir, "x.jsonl"), "--read", selFiles[0])
	if _, err := runPaper(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "--phase select") {
		t.Fatalf("report phase with a third of the selection: %v", err)
	}

	for k := range n {
		f := filepath.Join(dir, "rep-"+itoa(k)+".jsonl")
		opt, _ := tinyOptions(t, dir, "--phase", "report", "--shard", itoa(k)+"/"+itoa(n), "--results", f, "--read", sel)
		stats := mustRunPaper(t, opt)
		if stats.Ran == 0 {
			t.Fatalf("report shard %d ran nothing", k)
		}
		repFiles = append(repFiles, f)
	}
	all := filepath.Join(dir, "all.jsonl")
	mergeOK(t, all, append([]string{sel}, repFiles...)...)
	equalOutcomes(t, outcomes(t, all), want)

	// The shards are disjoint: merging them found no duplicates.
	seen := map[jobKey]string{}
	for _, f := range append(selFiles, repFiles...) {
		for k := range outcomes(t, f) {
			if other, dup := seen[k]; dup {
				t.Fatalf("job %v in %s and %s", k, other, f)
			}
			seen[k] = f
		}
	}

	// A --read file must exist.
	missing, _ := tinyOptions(t, dir, "--phase", "report", "--results", filepath.Join(dir, "y.jsonl"), "--read", filepath.Join(dir, "nosuch.jsonl"))
	if _, err := runPaper(context.Background(), missing); err == nil || !strings.Contains(err.Error(), "nosuch.jsonl") {
		t.Fatalf("missing --read file: %v", err)
	}

	// Tables from the merged file.
	tables, _ := tinyOptions(t, filepath.Join(dir, "tables"), "--phase", "tables", "--results", all)
	mustRunPaper(t, tables)
	if _, err := os.Stat(filepath.Join(dir, "tables", "paper.md")); err != nil {
		t.Fatal(err)
	}
}

func mergeOK(t *testing.T, out string, in ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := dispatch(append([]string{"merge", "--out", out}, in...), &stdout, &stderr); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr.String())
	}
}

func TestMergeDuplicatesAndConflicts(t *testing.T) {
	dir := t.TempDir()
	rec := &record{Dataset: "german", Algorithm: "rbp", Budget: 100, Stream: streamReport, Run: 0, Seed: 1, Sigma: 8,
		Rows: 1000, Mistakes: 380, SupportVectors: 100, Seconds: 0.1, SIMD: "avx2"}
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	if err := writeRecords(a, []*record{rec}); err != nil {
		t.Fatal(err)
	}
	same := *rec
	same.Seconds, same.SIMD = 0.2, "generic" // time and SIMD may differ
	if err := writeRecords(b, []*record{&same}); err != nil {
		t.Fatal(err)
	}
	other := *rec
	other.Mistakes++
	if err := writeRecords(c, []*record{&other}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	mergeOK(t, out, a, b)
	if got := outcomes(t, out); len(got) != 1 {
		t.Fatalf("merged %d records, want 1", len(got))
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"merge", "--out", out, a, c}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "conflicting") {
		t.Fatalf("conflicting merge: exit %d: %s", code, stderr.String())
	}
	if code := dispatch([]string{"merge", "--out", out, a, filepath.Join(dir, "missing")}, &stdout, &stderr); code != 1 {
		t.Fatalf("merge of a missing file: exit %d", code)
	}
}

func TestResumeSkipsFinishedJobs(t *testing.T) {
	dir := t.TempDir()
	opt, _ := tinyOptions(t, dir)
	first := mustRunPaper(t, opt)
	opt2, _ := tinyOptions(t, dir)
	second := mustRunPaper(t, opt2)
	if second.Ran != 0 || second.Skipped != first.Ran {
		t.Fatalf("second run: ran %d, skipped %d; want 0, %d", second.Ran, second.Skipped, first.Ran)
	}

	// A write cut short leaves a torn last line: it is dropped and its job
	// runs again.
	data, err := os.ReadFile(opt.Results)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	last := lines[len(lines)-1]
	torn := append(bytes.Join(lines[:len(lines)-1], nil), last[:len(last)/2]...)
	if err := os.WriteFile(opt.Results, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	opt3, stderr := tinyOptions(t, dir)
	third := mustRunPaper(t, opt3)
	if third.Ran != 1 || !strings.Contains(stderr.String(), "incomplete last line") {
		t.Fatalf("after a torn line: ran %d jobs; stderr %s", third.Ran, stderr.String())
	}
	equalOutcomes(t, outcomes(t, opt3.Results), outcomes(t, opt.Results))
}

func TestInterruptKeepsFinishedJobs(t *testing.T) {
	dir := t.TempDir()
	opt, _ := tinyOptions(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel as soon as the fifth job is saved.
	var saved atomic.Int32
	opt.afterSave = func() {
		if saved.Add(1) == 5 {
			cancel()
		}
	}
	stats, err := runPaper(ctx, opt)
	if !errors.Is(err, errInterrupted) || !strings.Contains(err.Error(), "run the same command again to resume") {
		t.Fatalf("interrupted run: %v", err)
	}
	done := len(outcomes(t, opt.Results))
	if done < 5 || done != stats.Ran {
		t.Fatalf("%d results saved, %d reported run", done, stats.Ran)
	}
	opt2, _ := tinyOptions(t, dir)
	rest := mustRunPaper(t, opt2)
	if rest.Skipped != done || rest.Ran+done != (4*2*2+2)*2+(6*2+2)*2 {
		t.Fatalf("resume: ran %d, skipped %d after %d", rest.Ran, rest.Skipped, done)
	}
}

// Selection never sees reported permutations: the (seed, index) pairs of
// the two streams are disjoint, no selection permutation equals a reported
// one, and the selected parameters do not change with the report seed.
func TestSelectionNeverSeesReportedPermutations(t *testing.T) {
	for _, grid := range []string{"tiny", "quick", "full"} {
		opt, _ := tinyOptions(t, t.TempDir(), "--grid", grid, "--runs", "20", "--select-runs", "3")
		sel := opt.selectJobs()
		sels := map[cell]selection{}
		for _, c := range opt.cells() {
			sels[c] = selection{Params: opt.Grid.points(c.Algo)[0]}
		}
		rep := opt.reportJobs(sels)
		type pair struct {
			seed uint64
			run  int
		}
		selPairs := map[pair]bool{}
		for _, j := range sel {
			if j.Key.Stream != streamSelect {
				t.Fatalf("selection job in stream %q", j.Key.Stream)
			}
			selPairs[pair{j.Key.Seed, j.Key.Run}] = true
		}
		for _, j := range rep {
			if j.Key.Stream != streamReport {
				t.Fatalf("report job in stream %q", j.Key.Stream)
			}
			if selPairs[pair{j.Key.Seed, j.Key.Run}] {
				t.Fatalf("grid %s: reported job %v uses a selection permutation", grid, j.Key)
			}
		}
		if len(selPairs) == 0 && grid != "" {
			t.Fatalf("grid %s: no selection jobs", grid)
		}
		// The permutations themselves differ (german has 1000 rows).
		for p := range selPairs {
			for r := range opt.Runs {
				if slices.Equal(permutation(p.seed, p.run, 1000), permutation(opt.Seed, r, 1000)) {
					t.Fatalf("selection permutation %v equals reported permutation %d", p, r)
				}
			}
		}
	}

	// Changing the report seed changes no selection job and no selected
	// parameter; selection ignores report records.
	dir := t.TempDir()
	a, _ := tinyOptions(t, filepath.Join(dir, "a"), "--seed", "1")
	b, _ := tinyOptions(t, filepath.Join(dir, "b"), "--seed", "12345")
	if !slices.EqualFunc(a.selectJobs(), b.selectJobs(), func(x, y job) bool { return x.Key == y.Key }) {
		t.Fatal("selection jobs depend on --seed")
	}
	mustRunPaper(t, a)
	mustRunPaper(t, b)
	selsOf := func(opt *paperOptions, tamper bool) map[cell]selection {
		st, err := openStore(opt.Results, nil, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		defer st.close()
		if tamper { // reported runs that would favour another grid point
			for k, r := range st.recs {
				if k.Stream == streamReport {
					r.Mistakes = 0
				}
			}
		}
		s, err := opt.selections(st.resultSet)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	sa, sb, st := selsOf(a, false), selsOf(b, false), selsOf(a, true)
	if len(sa) == 0 {
		t.Fatal("no selections")
	}
	for c, s := range sa {
		if sb[c].Params != s.Params || st[c].Params != s.Params {
			t.Fatalf("%v: selected %+v with --seed 1, %+v with --seed 12345, %+v with tampered reports", c, s.Params, sb[c].Params, st[c].Params)
		}
	}
	// Equal seeds are refused.
	var stderr bytes.Buffer
	if _, err := parsePaperFlags(tinyArgs(dir, "--seed", "7", "--select-seed", "7"), &stderr); err == nil {
		t.Fatal("equal --seed and --select-seed accepted")
	}
}

func TestTableRendering(t *testing.T) {
	opt, _ := tinyOptions(t, t.TempDir())
	tables := &paperTables{Opt: opt, Cells: map[cell]*cellResult{}, Order: opt.cells()}
	// Fake results: mistakes fall with the algorithm's index; BOGD++ best.
	mistakes := map[bogd.Algorithm]float64{bogd.RBP: 38, bogd.Forgetron: 37, bogd.Projectron: 36, bogd.ProjectronPP: 35, bogd.BOGD: 31, bogd.BOGDpp: 30, bogd.Perceptron: 35, bogd.OGD: 30}
	for _, c := range tables.Order {
		cr := &cellResult{Cell: c, Mistake: mistakes[c.Algo] + float64(c.Budget)/1000, MistakeStd: 0.5, SV: 100, Seconds: 0.001}
		if c.Budget == 0 {
			cr.Paper, cr.HasPaper = paperTable2[c.Dataset][c.Algo]
		} else {
			cr.Paper, cr.HasPaper = paperTable3Cell(c.Dataset, c.Algo, c.Budget)
		}
		cr.Sel.Mean = 30
		tables.Cells[c] = cr
	}
	tables.Cells[cell{"german", bogd.BOGDpp, 100}].Best = true
	tables.Cells[cell{"german", bogd.BOGDpp, 150}].Best = true
	var b bytes.Buffer
	tables.renderTable3(&b)
	out := b.String()
	// BOGD++ at B=100: 30.1 against the paper's 31.080.
	if want := "| BOGD++ | **30.100 ± 0.500** (31.080, -0.980) | 0.00100 (0.0280) | **30.150 ± 0.500** (30.580, -0.430) | 0.00100 (0.0500) |"; !strings.Contains(out, want) {
		t.Errorf("Table 3 lacks\n%s\nin\n%s", want, out)
	}
	if want := "| RBP | 38.100 ± 0.500 (38.060, +0.040) |"; !strings.Contains(out, want) {
		t.Errorf("Table 3 lacks\n%s\nin\n%s", want, out)
	}
	if n := strings.Count(out, "**30."); n != 2 {
		t.Errorf("%d bold cells, want 2:\n%s", n, out)
	}
	b.Reset()
	tables.renderTable2(&b)
	if want := "| german | 35.000 ± 0.500 (34.805, +0.195) | 100.0 ± 0.0 (348.1, -248.1) | 0.00100 (0.0690) | 30.000 ± 0.500 (30.115, -0.115) |"; !strings.Contains(b.String(), want) {
		t.Errorf("Table 2 lacks\n%s\nin\n%s", want, b.String())
	}
}

// collectTables marks the lowest mean mistake rate of each budget in bold.
func TestBestPerBlock(t *testing.T) {
	dir := t.TempDir()
	opt, _ := tinyOptions(t, dir)
	mustRunPaper(t, opt)
	st, err := openStore(opt.Results, nil, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	tables, err := collectTables(opt, st.resultSet)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int{100, 150} {
		var best []bogd.Algorithm
		lowest := 101.0
		for _, a := range budgetedAlgorithms {
			cr := tables.Cells[cell{"german", a, b}]
			lowest = min(lowest, cr.Mistake)
			if cr.Best {
				best = append(best, a)
			}
		}
		if len(best) != 1 || tables.Cells[cell{"german", best[0], b}].Mistake != lowest {
			t.Fatalf("B=%d: best %v, lowest mistake rate %v", b, best, lowest)
		}
	}
}

func TestPaperErrors(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"paper", "--datasets", dir, "--only", "german,w8a", "--out", dir}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), filepath.Join(dir, "german.svm.gz")) || !strings.Contains(stderr.String(), "w7a.svm.gz (the paper's w8a)") {
		t.Fatalf("missing datasets: exit %d, %s", code, stderr.String())
	}
	for _, args := range [][]string{
		{"--only", "nosuch"},
		{"--shard", "2/2", "--phase", "select"},
		{"--shard", "0/2"}, // phase all cannot be sharded
		{"--grid", "huge"},
		{"--skip", "german"},
		{"--budgets", "1"},
	} {
		stderr.Reset()
		if code := dispatch(append([]string{"paper", "--datasets", testDatasets, "--out", dir}, args...), &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr.String())
		}
	}
	// Tables before the report phase: an error that says what to run.
	opt, _ := tinyOptions(t, dir, "--phase", "select")
	mustRunPaper(t, opt)
	opt, _ = tinyOptions(t, dir, "--phase", "tables")
	if _, err := runPaper(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "--phase report") {
		t.Fatalf("tables without reported runs: %v", err)
	}
}

func TestCheckpoints(t *testing.T) {
	for _, n := range []int{1, 7, 100, 1000, 271617} {
		at := checkpoints(n)
		if len(at) != min(n, checkpointCount) || at[len(at)-1] != n || at[0] < 1 || !slices.IsSorted(at) {
			t.Fatalf("checkpoints(%d) = %v", n, at)
		}
	}
}

func TestPaperNumbers(t *testing.T) {
	// Spot checks against the paper's Tables 2 and 3.
	if c := paperTable2["codrna"][bogd.OGD]; c.Mistake != 10.467 || c.SV != 51423.900 || c.Time != 1782.763 {
		t.Errorf("Table 2 codrna OGD: %+v", c)
	}
	if c := paperTable2["german"][bogd.Perceptron]; c.Mistake != 34.805 || c.MistakeStd != 1.017 || c.SVStd != 10.175 {
		t.Errorf("Table 2 german Perceptron: %+v", c)
	}
	for _, tc := range []struct {
		ds     string
		a      bogd.Algorithm
		budget int
		want   paperCell
	}{
		{"german", bogd.BOGD, 100, paperCell{Mistake: 30.440, MistakeStd: 0.991, Time: 0.025}},
		{"spambase", bogd.ProjectronPP, 200, paperCell{Mistake: 28.468, MistakeStd: 0.702, Time: 1.752}},
		{"w8a", bogd.BOGDpp, 600, paperCell{Mistake: 2.701, MistakeStd: 0.047, Time: 9.478}},
		{"magic04", bogd.ProjectronPP, 1500, paperCell{Mistake: 27.089, MistakeStd: 0.310, Time: 366.590}},
		{"ijcnn1", bogd.Forgetron, 2000, paperCell{Mistake: 15.273, MistakeStd: 0.134, Time: 41.723}},
		{"codrna", bogd.BOGDpp, 1000, paperCell{Mistake: 14.418, MistakeStd: 0.206, Time: 28.552}},
	} {
		if got, ok := paperTable3Cell(tc.ds, tc.a, tc.budget); !ok || got != tc.want {
			t.Errorf("Table 3 %s %v B=%d: %+v, want %+v", tc.ds, tc.a, tc.budget, got, tc.want)
		}
	}
	if _, ok := paperTable3Cell("german", bogd.BOGD, 300); ok {
		t.Error("a Table 3 cell for a budget the paper did not run")
	}
	checkAgainstPaperText(t)
}
