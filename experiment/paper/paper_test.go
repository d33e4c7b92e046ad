package paper

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/experiment"
)

// testDatasets holds german.svm.gz, the same file as shared/datasets'.
const testDatasets = "../../dataset/testdata"

// log collects the warnings of a run.
type log struct {
	mu   sync.Mutex
	msgs []string
}

func (l *log) add(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, msg)
}

func (l *log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.msgs, "\n")
}

// tinyOptions is the tiny configuration of the tests: german only, two
// budgets, two reported and two selection runs, the tiny grid, results
// and report in out.
func tinyOptions(out string) (*Options, *log) {
	d, _ := Lookup("german")
	d.Budgets = []int{100, 150}
	warnings := &log{}
	return &Options{
		DatasetsDir: testDatasets, Datasets: []Dataset{d}, Algorithms: Algorithms,
		Runs: 2, SelectRuns: 2, Grid: Grids["tiny"], Seed: 1, SelectSeed: 1 + 1<<32, Sigma: 8,
		Execution:   experiment.Execution{Phase: experiment.PhaseAll, Workers: 2, Results: filepath.Join(out, "paper-runs.jsonl"), Warn: warnings.add},
		OutDir:      out,
		CommandLine: "bogdbench paper (test)",
	}, warnings
}

// tinyJobs is the number of jobs of the tiny configuration. Selection:
// BOGD and BOGD++ 4 points × 2 budgets, OGD 2 points; 2 runs each.
// Report: 6 budgeted algorithms × 2 budgets + 2 without budget; 2 runs each.
const tinyJobs = (4*2*2+2)*2 + (6*2+2)*2

func mustRun(t *testing.T, opt *Options) experiment.Stats {
	t.Helper()
	stats, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return stats
}

// outcomes maps every job of the results files to its record.
func outcomes(t *testing.T, paths ...string) map[experiment.Key]*experiment.Record {
	t.Helper()
	rs := experiment.NewResultSet()
	for _, p := range paths {
		dups, err := rs.Load(p, func(msg string) { t.Errorf("warning: %s", msg) })
		if err != nil || dups > 0 {
			t.Fatalf("read %s: %v (%d duplicates)", p, err, dups)
		}
	}
	out := map[experiment.Key]*experiment.Record{}
	for r := range rs.All() {
		out[r.Key()] = r
	}
	return out
}

// equalOutcomes compares everything deterministic of two sets of records.
func equalOutcomes(t *testing.T, got, want map[experiment.Key]*experiment.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d jobs, want %d", len(got), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Fatalf("job %v missing", k)
		}
		if g.Rule != w.Rule || g.Rows != w.Rows || g.Lambda != w.Lambda || g.Mistakes != w.Mistakes ||
			g.SupportVectors != w.SupportVectors || !slices.Equal(g.Checkpoints, w.Checkpoints) {
			t.Fatalf("job %v: %+v, want %+v", k, g, w)
		}
	}
}

func TestTinyConfiguration(t *testing.T) {
	dir := t.TempDir()
	opt, _ := tinyOptions(dir)
	stats := mustRun(t, opt)
	if stats.Ran != tinyJobs || stats.Skipped != 0 {
		t.Fatalf("ran %d, skipped %d; want %d, 0", stats.Ran, stats.Skipped, tinyJobs)
	}
	for _, r := range outcomes(t, opt.Results) {
		a, _ := bogd.ParseAlgorithm(r.Algorithm)
		if r.Rule != a.RuleVersion() || r.SIMD == "" {
			t.Fatalf("%v: rule %d, simd %q", r.Key(), r.Rule, r.SIMD)
		}
		if r.Stream == experiment.StreamReport {
			if len(r.Checkpoints) != experiment.CheckpointCount || r.Checkpoints[len(r.Checkpoints)-1] != r.Mistakes {
				t.Fatalf("%v: checkpoints %v end at %d mistakes", r.Key(), r.Checkpoints, r.Mistakes)
			}
		} else if r.Checkpoints != nil {
			t.Fatalf("%v: selection run with checkpoints", r.Key())
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Table 2", "## Table 3", "**german**", "| BOGD++ |", "## Selected parameters", "(34.805, ",
		"**Rule versions**", "BOGD++ 2, Perceptron 2"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("paper.md lacks %q", want)
		}
	}
}

// A run never appends to an existing results file, nor replaces an
// existing report, unless it resumes; the tables phase replaces the
// report it exists to write.
func TestFreshRunRefusesExistingFiles(t *testing.T) {
	dir := t.TempDir()
	opt, _ := tinyOptions(dir)
	mustRun(t, opt)
	before, _ := os.ReadFile(opt.Results)
	report, _ := os.ReadFile(filepath.Join(dir, ReportName))

	again, _ := tinyOptions(dir)
	_, err := Run(context.Background(), again)
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), filepath.Join(dir, ReportName)) {
		t.Fatalf("a fresh run over a finished one: %v", err)
	}
	// The report moved away: the results file still stops it.
	os.Rename(filepath.Join(dir, ReportName), filepath.Join(dir, "old.md"))
	_, err = Run(context.Background(), again)
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), opt.Results+" already exists") {
		t.Fatalf("a fresh run over a results file: %v", err)
	}
	if now, _ := os.ReadFile(opt.Results); !bytes.Equal(now, before) {
		t.Fatal("a refused run changed the results file")
	}
	os.Rename(filepath.Join(dir, "old.md"), filepath.Join(dir, ReportName))

	tables, _ := tinyOptions(dir)
	tables.Phase = experiment.PhaseTables
	mustRun(t, tables)
	if now, _ := os.ReadFile(filepath.Join(dir, ReportName)); bytes.Equal(now, report) && !bytes.Contains(now, []byte("## Table 3")) {
		t.Fatal("the tables phase wrote no report")
	}
}

func TestResumeSkipsFinishedJobs(t *testing.T) {
	dir := t.TempDir()
	opt, _ := tinyOptions(dir)
	first := mustRun(t, opt)
	opt2, _ := tinyOptions(dir)
	opt2.Resume = true
	second := mustRun(t, opt2)
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
	opt3, warnings := tinyOptions(dir)
	opt3.Resume = true
	third := mustRun(t, opt3)
	if third.Ran != 1 || !strings.Contains(warnings.String(), "incomplete last line") {
		t.Fatalf("after a torn line: ran %d jobs; warnings %s", third.Ran, warnings)
	}
	equalOutcomes(t, outcomes(t, opt3.Results), outcomes(t, opt.Results))
}

// cancelAfter is a Progress that cancels its context after n saved jobs.
type cancelAfter struct {
	n, saved int
	cancel   func()
}

func (c *cancelAfter) Start(string, int, int, float64) {}
func (c *cancelAfter) Stop()                           {}
func (c *cancelAfter) Finished(float64) {
	if c.saved++; c.saved == c.n {
		c.cancel()
	}
}

func TestInterruptKeepsFinishedJobs(t *testing.T) {
	dir := t.TempDir()
	opt, _ := tinyOptions(dir)
	ctx, cancel := context.WithCancel(context.Background())
	opt.Progress = &cancelAfter{n: 5, cancel: cancel}
	stats, err := Run(ctx, opt)
	if !errors.Is(err, experiment.ErrInterrupted) || !strings.Contains(err.Error(), "finished now and saved in "+opt.Results) {
		t.Fatalf("interrupted run: %v", err)
	}
	done := len(outcomes(t, opt.Results))
	if done < 5 || done != stats.Ran {
		t.Fatalf("%d results saved, %d reported run", done, stats.Ran)
	}
	opt2, _ := tinyOptions(dir)
	opt2.Resume = true
	rest := mustRun(t, opt2)
	if rest.Skipped != done || rest.Ran+done != tinyJobs {
		t.Fatalf("resume: ran %d, skipped %d after %d", rest.Ran, rest.Skipped, done)
	}
}

func TestShardsMergedEqualUnsharded(t *testing.T) {
	dir := t.TempDir()
	whole, _ := tinyOptions(filepath.Join(dir, "whole"))
	mustRun(t, whole)
	want := outcomes(t, whole.Results)

	shardOptions := func(phase string, k int, results string, read ...string) *Options {
		opt, _ := tinyOptions(dir)
		opt.Phase, opt.Shard, opt.Results, opt.Read = phase, experiment.Shard{K: k, N: 3}, results, read
		return opt
	}
	merge := func(out string, in ...string) {
		merged, dups, err := experiment.Merge(in, func(msg string) { t.Errorf("warning: %s", msg) })
		if err != nil || dups > 0 {
			t.Fatalf("merge: %v, %d duplicates", err, dups)
		}
		if err := experiment.WriteRecords(out, merged.Sorted(Order)); err != nil {
			t.Fatal(err)
		}
	}
	var selFiles, repFiles []string
	for k := range 3 {
		f := filepath.Join(dir, "sel-"+string(rune('0'+k))+".jsonl")
		mustRun(t, shardOptions(experiment.PhaseSelect, k, f))
		selFiles = append(selFiles, f)
	}
	sel := filepath.Join(dir, "sel.jsonl")
	merge(sel, selFiles...)

	// The report phase refuses to start before the selection is complete.
	var inc *experiment.IncompleteError
	if _, err := Run(context.Background(), shardOptions(experiment.PhaseReport, 0, filepath.Join(dir, "x.jsonl"), selFiles[0])); !errors.As(err, &inc) || inc.Phase != experiment.StreamSelect {
		t.Fatalf("report phase with a third of the selection: %v", err)
	}
	for k := range 3 {
		f := filepath.Join(dir, "rep-"+string(rune('0'+k))+".jsonl")
		if stats := mustRun(t, shardOptions(experiment.PhaseReport, k, f, sel)); stats.Ran == 0 {
			t.Fatalf("report shard %d ran nothing", k)
		}
		repFiles = append(repFiles, f)
	}
	all := filepath.Join(dir, "all.jsonl")
	merge(all, append([]string{sel}, repFiles...)...)
	equalOutcomes(t, outcomes(t, all), want)

	// The shards are disjoint.
	seen := map[experiment.Key]string{}
	for _, f := range append(selFiles, repFiles...) {
		for k := range outcomes(t, f) {
			if other, dup := seen[k]; dup {
				t.Fatalf("job %v in %s and %s", k, other, f)
			}
			seen[k] = f
		}
	}

	// A --read file must exist.
	missing := shardOptions(experiment.PhaseReport, 0, filepath.Join(dir, "y.jsonl"), filepath.Join(dir, "nosuch.jsonl"))
	if _, err := Run(context.Background(), missing); err == nil || !strings.Contains(err.Error(), "nosuch.jsonl") {
		t.Fatalf("missing --read file: %v", err)
	}

	// Tables from the merged file.
	tables, _ := tinyOptions(filepath.Join(dir, "tables"))
	tables.Phase, tables.Results = experiment.PhaseTables, all
	mustRun(t, tables)
	if _, err := os.Stat(filepath.Join(dir, "tables", ReportName)); err != nil {
		t.Fatal(err)
	}
}

// Selection never sees reported permutations: the (seed, index) pairs of
// the two streams are disjoint, no selection permutation equals a reported
// one, and the selected parameters do not change with the report seed.
func TestSelectionNeverSeesReportedPermutations(t *testing.T) {
	for _, grid := range []string{"tiny", "quick", "full"} {
		opt, _ := tinyOptions(t.TempDir())
		opt.Grid, opt.Runs, opt.SelectRuns = Grids[grid], 20, 3
		plan := opt.Plan()
		sel := plan.SelectJobs()
		sels := map[experiment.Cell]experiment.Selection{}
		for _, c := range plan.Cells {
			sels[c] = experiment.Selection{Params: plan.Points(c)[0]}
		}
		rep := plan.ReportJobs(sels)
		type pair struct {
			seed uint64
			run  int
		}
		selPairs := map[pair]bool{}
		for _, j := range sel {
			if j.Key.Stream != experiment.StreamSelect {
				t.Fatalf("selection job in stream %q", j.Key.Stream)
			}
			selPairs[pair{j.Key.Seed, j.Key.Run}] = true
		}
		for _, j := range rep {
			if j.Key.Stream != experiment.StreamReport {
				t.Fatalf("report job in stream %q", j.Key.Stream)
			}
			if selPairs[pair{j.Key.Seed, j.Key.Run}] {
				t.Fatalf("grid %s: reported job %v uses a selection permutation", grid, j.Key)
			}
		}
		if len(selPairs) == 0 {
			t.Fatalf("grid %s: no selection jobs", grid)
		}
		for p := range selPairs {
			for r := range opt.Runs {
				if slices.Equal(experiment.Permutation(p.seed, p.run, 1000), experiment.Permutation(opt.Seed, r, 1000)) {
					t.Fatalf("selection permutation %v equals reported permutation %d", p, r)
				}
			}
		}
	}

	// Changing the report seed changes no selection job and no selected
	// parameter; selection ignores report records.
	dir := t.TempDir()
	a, _ := tinyOptions(filepath.Join(dir, "a"))
	b, _ := tinyOptions(filepath.Join(dir, "b"))
	b.Seed = 12345
	if !slices.EqualFunc(a.Plan().SelectJobs(), b.Plan().SelectJobs(), func(x, y experiment.Job) bool { return x.Key == y.Key }) {
		t.Fatal("selection jobs depend on the report seed")
	}
	mustRun(t, a)
	mustRun(t, b)
	selsOf := func(opt *Options, tamper bool) map[experiment.Cell]experiment.Selection {
		rs := experiment.NewResultSet()
		if _, err := rs.Load(opt.Results, func(string) {}); err != nil {
			t.Fatal(err)
		}
		if tamper { // reported runs that would favour another grid point
			for r := range rs.All() {
				if r.Stream == experiment.StreamReport {
					r.Mistakes = 0
				}
			}
		}
		s, err := opt.Plan().Selections(rs)
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
			t.Fatalf("%v: selected %+v with seed 1, %+v with seed 12345, %+v with tampered reports", c, s.Params, sb[c].Params, st[c].Params)
		}
	}
}

// Collect marks the lowest mean mistake rate of each budget in bold.
func TestBestPerBlock(t *testing.T) {
	dir := t.TempDir()
	opt, _ := tinyOptions(dir)
	mustRun(t, opt)
	rs := experiment.NewResultSet()
	if _, err := rs.Load(opt.Results, func(string) {}); err != nil {
		t.Fatal(err)
	}
	tables, err := Collect(opt, rs)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int{100, 150} {
		var best []bogd.Algorithm
		lowest := 101.0
		for _, a := range Budgeted {
			cr := tables.Cells[experiment.Cell{Dataset: "german", Algo: a, Budget: b}]
			lowest = min(lowest, cr.Metric)
			if cr.Best {
				best = append(best, a)
			}
		}
		if len(best) != 1 || tables.Cells[experiment.Cell{Dataset: "german", Algo: best[0], Budget: b}].Metric != lowest {
			t.Fatalf("B=%d: best %v, lowest mistake rate %v", b, best, lowest)
		}
	}
}

// Tables before the report phase: an error that says which phase is
// missing.
func TestTablesNeedReportedRuns(t *testing.T) {
	dir := t.TempDir()
	opt, _ := tinyOptions(dir)
	opt.Phase = experiment.PhaseSelect
	mustRun(t, opt)
	opt, _ = tinyOptions(dir)
	opt.Phase = experiment.PhaseTables
	var inc *experiment.IncompleteError
	if _, err := Run(context.Background(), opt); !errors.As(err, &inc) || inc.Phase != experiment.StreamReport || !strings.Contains(err.Error(), "reported runs are missing") {
		t.Fatalf("tables without reported runs: %v", err)
	}
	d := filepath.Join(t.TempDir(), "none")
	opt, _ = tinyOptions(d)
	opt.DatasetsDir = d
	opt.Datasets = append(opt.Datasets, Datasets[2])
	if _, err := Run(context.Background(), opt); !errors.Is(err, experiment.ErrMissingData) || !strings.Contains(err.Error(), "w7a.svm.gz (the paper's w8a)") {
		t.Fatalf("missing datasets: %v", err)
	}
	if _, err := os.Stat(opt.Results); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("a run without data left a results file")
	}
}

// Run writes its figures under the same names as before, through the code
// `run --plot` uses, and the tables phase regenerates them.
func TestPaperPlots(t *testing.T) {
	dir := t.TempDir()
	opt, _ := tinyOptions(dir)
	opt.Plots = true
	mustRun(t, opt)
	names := []string{
		"german-B100-online.png", "german-B100-online.svg",
		"german-B150-online.png", "german-B150-online.svg",
		"german-time.png", "german-time.svg",
	}
	listing := func() []string {
		entries, err := os.ReadDir(filepath.Join(dir, experiment.PlotsDir))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		return got
	}
	if got := listing(); !slices.Equal(got, names) {
		t.Fatalf("plots: %v, want %v", got, names)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"![german, B=100: online mistake rate](plots/german-B100-online.png)",
		"![german, B=150: online mistake rate](plots/german-B150-online.png)",
		"![german: mistake rate against time per pass](plots/german-time.png)",
	} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("paper.md lacks %q", want)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, experiment.PlotsDir, "german-B100-online.svg"))
	for _, want := range []string{"RBP", "Forgetron", "Projectron++", "BOGD++", "Perceptron (no budget)", "OGD (no budget)"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("german-B100-online.svg lacks %q", want)
		}
	}
	opt, _ = tinyOptions(dir)
	opt.Plots, opt.Phase = true, experiment.PhaseTables
	mustRun(t, opt)
	if got := listing(); !slices.Equal(got, names) {
		t.Fatalf("plots after the tables phase: %v", got)
	}
}
