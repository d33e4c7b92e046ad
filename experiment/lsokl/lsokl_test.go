package lsokl

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/task"
)

// shared is the directory of the project's shared data and references.
const shared = "../../../shared"

// The published figures are those of shared/reference/lsokl-tables.md,
// every cell of the datasets available here.
func TestPublishedMatchesReference(t *testing.T) {
	f, err := os.Open(filepath.Join(shared, "reference", "lsokl-tables.md"))
	if err != nil {
		t.Skipf("the reference tables are not there: %v", err)
	}
	defer f.Close()
	names := map[string]string{"Perceptron": "perceptron", "OGD": "ogd", "RBP": "rbp", "Forgetron": "forgetron", "Projectron": "projectron",
		"Projectron++": "projectron++", "BPA-S": "bpas", "BOGD": "bogd", "BOGD (oldest removal)": "bogd-oldest", "FOGD": "fogd", "NOGD": "nogd", "NORMA": "norma"}
	tables := map[string]map[string]map[string]Published{"5": Table5, "7": Table7, "9": Table9}
	cell := regexp.MustCompile(`^([\d.]+) ± ([\d.]+) \(([\d.]+)\)$`)
	var table string
	var columns []string
	checked := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := regexp.MustCompile(`^## Table (\d+)`).FindStringSubmatch(line); m != nil {
			table, columns = m[1], nil
			continue
		}
		if !strings.HasPrefix(line, "|") || tables[table] == nil {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cells[0] == "algorithm" {
			for _, c := range cells[1:] {
				columns = append(columns, strings.Fields(c)[0])
			}
			continue
		}
		algo, ok := names[cells[0]]
		if !ok {
			continue
		}
		for i, c := range cells[1:] {
			ds := columns[i]
			got, have := tables[table][ds][algo]
			m := cell.FindStringSubmatch(c)
			if m == nil {
				if have {
					t.Errorf("Table %s %s %s: %v, the reference has %q", table, ds, algo, got, c)
				}
				continue
			}
			if _, known := tables[table][ds]; !known {
				continue // not available here
			}
			want := Published{num(t, m[1]), num(t, m[2]), num(t, m[3])}
			if got != want {
				t.Errorf("Table %s %s %s: %v, want %v", table, ds, algo, got, want)
			}
			checked++
		}
	}
	if checked != 60+68+60 { // casp has 6 figures, poker 8
		t.Errorf("checked %d cells", checked)
	}
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The constants of every dataset are those of its file: rows, the median
// distance of the σ candidates, and the baseline.
func TestDatasetConstants(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every dataset")
	}
	dir := filepath.Join(shared, "datasets")
	if _, err := os.Stat(filepath.Join(dir, "regression", "mg.svm.gz")); err != nil {
		t.Skipf("the datasets are not there: %v", err)
	}
	for _, tab := range AllTables {
		opt := &Options{Table: tab, DatasetsDir: dir, Datasets: tab.Datasets}
		data, err := opt.LoadData(func(msg string) { t.Errorf("%s: %s", tab.Name, msg) })
		if err != nil {
			t.Fatal(err) // rows and medians are checked by LoadData itself
		}
		for _, d := range tab.Datasets {
			if got := baseline(data[d.Name]); math.Abs(got-d.Baseline) > 1e-6*d.Baseline {
				t.Errorf("%s: baseline %v, the table has %v", d.Name, got, d.Baseline)
			}
		}
	}
}

// baseline computes Dataset.Baseline: the error rate (%) of the most
// frequent label, or the variance of the labels (the MSE of their mean).
func baseline(d *dataset.Dataset) float64 {
	n := float64(d.Len())
	if d.Task == task.Regression {
		_, std := experiment.MeanStd(d.Labels)
		return std * std * (n - 1) / n
	}
	counts := map[float64]int{}
	most := 0
	for _, y := range d.Labels {
		counts[y]++
		most = max(most, counts[y])
	}
	return 100 * (n - float64(most)) / n
}

func TestWidths(t *testing.T) {
	d := Dataset{Median: 2610.1547846817493}
	want := []float64{8, 330, 650, 1300, 2600}
	if got := d.Widths(); !equalFloats(got, want) {
		t.Fatalf("widths %v, want %v", got, want)
	}
	// A multiple that rounds to 8 is not listed twice.
	if got := (Dataset{Median: 64.1}).Widths(); !equalFloats(got, []float64{8, 16, 32, 64}) {
		t.Fatalf("widths %v", got)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A table naming an algorithm this build lacks cannot be made: the error
// names it.
func TestMissingAlgorithmNamed(t *testing.T) {
	tab := Multiclass
	tab.Algorithms = append([]string{"rbp"}, "nosuch")
	if _, err := tab.ParseAlgorithms(); err == nil || !strings.Contains(err.Error(), "needs nosuch, which this build lacks") {
		t.Fatalf("error %v", err)
	}
	if _, err := Lookup("ranking"); err == nil || !strings.Contains(err.Error(), "multiclass, regression, binary") {
		t.Fatalf("Lookup: %v", err)
	}
}

// testTable is a regression table over the bundled german data (labels
// ±1 read as real targets), with made-up published figures.
func testTable(t *testing.T, tk task.Task) *Table {
	t.Helper()
	tab := Regression
	if tk == task.Binary {
		tab = Binary
	}
	d := Dataset{Name: "german", File: "german.svm.gz", Rows: 1000, Budget: 20, PaperRows: 1000, Baseline: 30}
	data, err := dataset.ReadFile(filepath.Join("../../dataset/testdata", d.File), dataset.Options{Task: tk})
	if err != nil {
		t.Fatal(err)
	}
	if tk == task.Regression {
		if data, _, err = data.ScaleMinMax(true); err != nil {
			t.Fatal(err)
		}
		d.Baseline = baseline(data)
	}
	d.Median = experiment.MedianDistance(data, MedianSample, MedianSeed)
	tab.Datasets = []Dataset{d}
	tab.Algorithms = []string{"rbp", "bogd-oldest", "bogd", "bogd++"}
	tab.Published = map[string]map[string]Published{"german": {"rbp": {0.2, 0.01, 0.1}, "bogd-oldest": {0.9, 0.01, 0.2}}}
	tab.Datasets[0].PaperScale = 16
	if tk == task.Binary {
		tab.Datasets[0].PaperScale, tab.Datasets[0].PaperScaling = 0.5, experiment.ScalingMinMax
		tab.Algorithms = []string{"rbp", "bogd", "bogd++"}
		tab.Published = map[string]map[string]Published{"german": {"rbp": {37.5, 1.1, 0.086}, "bogd": {31.6, 1.5, 0.114}}}
		tab.Budgets = []int{20, 40}
	}
	tab.Grid = experiment.Grid{Name: "test", Eta: []float64{0.02, 0.2}, LambdaT2: []float64{1}, Gamma: []float64{10}, C: []float64{1}}
	return &tab
}

// syncLog collects warnings from the runner's goroutines.
type syncLog struct {
	mu   sync.Mutex
	msgs []string
}

func (l *syncLog) add(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, msg)
}

func testOptions(t *testing.T, tab *Table, out string) (*Options, *syncLog) {
	t.Helper()
	algos, err := tab.ParseAlgorithms()
	if err != nil {
		t.Fatal(err)
	}
	log := &syncLog{}
	return &Options{
		Table: tab, DatasetsDir: "../../dataset/testdata", Datasets: tab.Datasets, Algorithms: algos,
		Runs: 2, SelectRuns: 2, Grid: tab.Grid, Seed: 1, SelectSeed: 1 + 1<<32,
		Execution: experiment.Execution{Phase: experiment.PhaseAll, Workers: 2, Results: filepath.Join(out, "lsokl-runs.jsonl"), Warn: log.add},
		OutDir:    out, Plots: true, CommandLine: "bogdbench lsokl (test)",
	}, log
}

// A regression table end to end: scaled data, both widths (their σ = 8
// jobs shared), the report with every section, MSE figures.
func TestRegressionTableEndToEnd(t *testing.T) {
	out := t.TempDir()
	opt, log := testOptions(t, testTable(t, task.Regression), out)
	stats, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	// Selection: every algorithm reads η in regression, 2 values, times 5
	// widths (σ = 8 one of them, shared). Report: 4 cells × 2 runs per
	// width, those where the selected width is 8 shared too.
	fixed, selected := opt.Plan(FixedWidth), opt.Plan(SelectedWidth)
	if n := len(fixed.SelectJobs()); n != 4*2*2 {
		t.Fatalf("%d selection jobs at σ = 8", n)
	}
	if n := len(selected.SelectJobs()); n != 4*2*5*2 {
		t.Fatalf("%d selection jobs with σ selected", n)
	}
	// At the paper's scale (σ = 16 here), 4 × 2 more selection jobs and 4
	// cells × 2 runs.
	if stats.Ran > 4*2*5*2+2*4*2+4*2*2+4*2 || stats.Ran < 4*2*5*2+4*2+4*2*2+4*2 {
		t.Fatalf("ran %d jobs", stats.Ran)
	}
	rs := experiment.NewResultSet()
	if _, err := rs.Load(opt.Results, log.add); err != nil {
		t.Fatal(err)
	}
	for r := range rs.All() {
		if r.Task != "regression" || r.Scaling != experiment.ScalingMinMax || r.Epsilon != 0.1 || r.Mistakes != 0 || !(r.SquaredError > 0) {
			t.Fatalf("record %+v", r)
		}
		if r.Stream == experiment.StreamReport && len(r.ErrorCheckpoints) != experiment.CheckpointCount {
			t.Fatalf("report record without its curve: %v", r.Key())
		}
	}
	md, err := os.ReadFile(filepath.Join(out, ReportName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Table 9, σ = 8", "## Table 9, σ selected", "| RBP |", " (0.2) |", "(0.1000, ", "## Differences from the paper",
		"## Targets", "by at least 20% of its MSE", "## Selected parameters", "BOGD++ (ours)", "german {8, ", "scaled to [0, 1] over the whole file", "online MSE",
		fmt.Sprintf("- **Effort**: %d passes", stats.Ran)} {
		if !strings.Contains(string(md), want) {
			t.Errorf("lsokl.md lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "plots", "german-sigma-selected-B20-online.svg")); err != nil {
		t.Error(err)
	}
	if len(log.msgs) > 0 {
		t.Errorf("warnings: %v", log.msgs)
	}
}

// A binary table with two budgets: the paper's figures only beside its
// budget, the addition marked, the best-of-all row.
func TestBinaryTableTwoBudgets(t *testing.T) {
	out := t.TempDir()
	opt, _ := testOptions(t, testTable(t, task.Binary), out)
	opt.Plots = false
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, ReportName))
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	for _, want := range []string{"B = 20, as the paper", "B = 40 (not in their paper; our addition)", "(37.5)", "**Best of all**", "| german | ",
		"## Table 5, σ = 8 on the paper's feature scale", "german minmax scaled, σ = 0.5", "| german-minmax | BOGD++ | 20 | η=0.02, λT²=1, γ=10, σ=0.5 |"} {
		if !strings.Contains(s, want) {
			t.Errorf("lsokl.md lacks %q", want)
		}
	}
	// The paper copy's runs read the scaled data.
	rs := experiment.NewResultSet()
	if _, err := rs.Load(opt.Results, func(string) {}); err != nil {
		t.Fatal(err)
	}
	scaled := 0
	for r := range rs.All() {
		if r.Dataset == "german-minmax" {
			if r.Scaling != experiment.ScalingMinMax || r.Sigma != 0.5 {
				t.Fatalf("paper copy record %v", r.Key())
			}
			scaled++
		}
	}
	if scaled == 0 {
		t.Fatal("no run of the paper's copy")
	}
	addition := s[strings.Index(s, "B = 40 (not in their paper"):]
	addition = addition[:strings.Index(addition, "\n\n| algorithm")+200]
	if strings.Contains(addition, "(37.5)") {
		t.Errorf("a published figure beside the addition:\n%s", addition)
	}
}
