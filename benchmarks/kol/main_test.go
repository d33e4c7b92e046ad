package main

import (
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/task"
)

// kolOutput is what KOL prints for one pass, in its format.
func kolOutput(algo, rows, accuracy, time string) string {
	return "--------------------------------------------------\nAlgorithm: " + algo +
		"\n0\t10000\t20000\t\n#Training Instances:" + rows + "\nLearn acuracy: " + accuracy +
		"%\n#SV:100\nLearning time: " + time + " s\n"
}

func TestParseKOL(t *testing.T) {
	rec, err := parseKOL([]byte(kolOutput("kernel_bogd", "271617", "85.104767", "0.769012")))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Tool != "KOL" || rec.Algorithm != "kernel_bogd" || rec.Rows != 271617 || rec.Seconds != 0.769012 || rec.SupportVectors != 100 {
		t.Errorf("parsed %+v", rec)
	}
	if d := rec.MistakeRate - 14.895233; d > 1e-9 || d < -1e-9 {
		t.Errorf("mistake rate %v, want 14.895233", rec.MistakeRate)
	}
	broken := strings.Replace(kolOutput("kernel_bogd", "10", "50", "1"), "Learning time", "Learn time", 1)
	if _, err := parseKOL([]byte(broken)); err == nil || !strings.Contains(err.Error(), "no Learning time") {
		t.Errorf("output without its time: error %v, want one naming Learning time", err)
	}
}

// fakeKOL is a KOL that prints out whatever it is given.
func fakeKOL(t *testing.T, out string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "out"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "KOL")
	script := "#!/bin/sh\ncat '" + filepath.Join(dir, "out") + "'\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunKOLChecksTheRows(t *testing.T) {
	in := &inputs{rows: 100}
	in.kol = fakeKOL(t, kolOutput("kernel_bogd", "95", "90", "0.5"))
	if _, err := in.runKOL(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "learnt 95 rows, the data have 100") {
		t.Errorf("BOGD over 95 of 100 rows: error %v", err)
	}
	// NOGD restarts its row counter at the transition: its rate is still
	// over every row.
	in.kol = fakeKOL(t, kolOutput("kernel_nogd", "95", "90", "0.5"))
	rec, err := in.runKOL(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Rows != 100 || rec.Mistakes != 10 {
		t.Errorf("NOGD: %d rows, %d mistakes, want 100 and 10", rec.Rows, rec.Mistakes)
	}
	in.kol = fakeKOL(t, kolOutput("kernel_nogd", "101", "90", "0.5"))
	if _, err := in.runKOL(context.Background(), nil); err == nil {
		t.Error("NOGD over more rows than the data: no error")
	}
	in.kol = filepath.Join(t.TempDir(), "missing")
	if _, err := in.runKOL(context.Background(), nil); err == nil {
		t.Error("a missing KOL binary: no error")
	}
}

func writeGzip(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	if _, err := gz.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReadRowsRefusesOtherLabels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.svm")
	if err := os.WriteFile(path, []byte("+1 1:1\n# comment\n0 1:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readRows(path); err == nil || !strings.Contains(err.Error(), "d.svm:3: label \"0\"") {
		t.Errorf("label 0 on line 3: error %v", err)
	}
}

// sameRowsInOrder checks that the file both tools learn holds, at position
// k, row perm[k] of the original, and that bogdbench's order reads it in
// file order in every pass.
func sameRowsInOrder(t *testing.T, original string, seed uint64) {
	t.Helper()
	rows, err := readRows(original)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	text, orderPath := filepath.Join(dir, "rows.svm"), filepath.Join(dir, "order.txt")
	perm := experiment.Permutation(seed, 0, len(rows))
	if err := writeOrdered(text, orderPath, 3, rows, perm); err != nil {
		t.Fatal(err)
	}
	orig, err := dataset.ReadFile(original, dataset.Options{Task: task.Binary})
	if err != nil {
		t.Fatal(err)
	}
	learnt, err := dataset.ReadFile(text, dataset.Options{Task: task.Binary})
	if err != nil {
		t.Fatal(err)
	}
	orders, err := dataset.ReadOrders(orderPath, learnt.Len(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(orders) != 3 || !slices.Equal(orders[1], orders[0]) || !slices.Equal(orders[2], orders[0]) || learnt.Len() != orig.Len() {
		t.Fatalf("%d orders, %d rows written for %d", len(orders), learnt.Len(), orig.Len())
	}
	for k, i := range orders[0] {
		if i != k {
			t.Fatalf("bogdbench's order has %d at position %d, want file order", i, k)
		}
		li, lv := learnt.Row(k)
		oi, ov := orig.Row(perm[k])
		if learnt.Labels[k] != orig.Labels[perm[k]] || !slices.Equal(li, oi) || !slices.Equal(lv, ov) {
			t.Fatalf("row %d of the file is not row %d of %s", k, perm[k], original)
		}
	}
}

func TestSameRowsInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.svm.gz")
	writeGzip(t, path, "# a header\n-1 1:0.5 3:2\n\n+1 2:1e-3 # trailing\n1 1:-7\n  -1\t2:4\n+1 1:1 2:2 3:3\n")
	rows, err := readRows(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-1 1:0.5 3:2", "+1 2:1e-3", "1 1:-7", "-1\t2:4", "+1 1:1 2:2 3:3"}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if string(r) != want[i] {
			t.Errorf("row %d: %q, want %q", i, r, want[i])
		}
	}
	if d := maxIndex(rows); d != 3 {
		t.Errorf("dimension %d, want 3", d)
	}
	sameRowsInOrder(t, path, 1)
}

func TestSameRowsInOrderCodrna(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "datasets", "codrna.svm.gz")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("the shared data set is absent (%v)", err)
	}
	if testing.Short() {
		t.Skip("reads codrna's 271,617 rows three times")
	}
	sameRowsInOrder(t, path, 1)
}

func TestTableLines(t *testing.T) {
	c := bogdCell(100)
	runs := []record{
		{Cell: c.Name, Round: 1, Tool: "bogdbench", Algorithm: "bogd-oldest", Seconds: 0.10, PassCPU: 0.1, MistakeRate: 14.6},
		{Cell: c.Name, Round: 1, Tool: "bogdbench", Algorithm: "bogd", Seconds: 0.20, PassCPU: 0.2, MistakeRate: 16.6},
		{Cell: c.Name, Round: 1, Tool: "KOL", Algorithm: "kernel_bogd", Seconds: 1.0, ProcessCPU: 0.9, MistakeRate: 14.9},
		{Cell: kolFloor.Name, Round: 1, Tool: "KOL", Seconds: 0.05, ProcessCPU: 0.1},
		{Cell: c.Name, Round: 2, Tool: "bogdbench", Algorithm: "bogd-oldest", Seconds: 0.30, PassCPU: 0.125, MistakeRate: 14.6},
		{Cell: c.Name, Round: 2, Tool: "bogdbench", Algorithm: "bogd", Seconds: 0.25, PassCPU: 0.2, MistakeRate: 16.6},
		{Cell: c.Name, Round: 2, Tool: "KOL", Algorithm: "kernel_bogd", Seconds: 1.5, ProcessCPU: 1.2, MistakeRate: 14.9},
		{Cell: kolFloor.Name, Round: 2, Tool: "KOL", Seconds: 0.08, ProcessCPU: 0.2},
	}
	ls := lines(withFloor([]cell{c}), runs)
	if len(ls) != 3 || ls[0].algorithm != "bogd-oldest" || ls[1].algorithm != "bogd" || ls[2].algorithm != "" {
		t.Fatalf("lines %+v", ls)
	}
	// Ratios pair the runs of a round: 1.0/0.1 and 1.5/0.3.
	if got := spread(ls[0].ratios(), formatRatio); got != "7.5× (5.0×–10.0×)" {
		t.Errorf("bogd-oldest's ratios: %s", got)
	}
	// KOL's CPU time less the floor of its round: 0.8 and 1.0.
	floor := floorCPU(runs)
	if got := spread(ls[0].kolCPU(floor), formatSeconds); got != "0.900 (0.800–1.00)" {
		t.Errorf("KOL's CPU seconds: %s", got)
	}
	if got := spread(ls[0].cpuRatios(floor), formatRatio); got != "8.0×" {
		t.Errorf("bogd-oldest's CPU ratios: %s", got)
	}
	if got := spread(seconds(ls[1].ours), formatSeconds); got != "0.225 (0.200–0.250)" {
		t.Errorf("bogd's seconds: %s", got)
	}
	if got := spread(rates(ls[0].kol), formatRate); got != "14.900" {
		t.Errorf("KOL's mistake rates: %s", got)
	}
	if len(ls[2].kol) != 2 || len(ls[2].ours) != 0 || ls[2].ratios() != nil || ls[2].cpuRatios(floor) != nil {
		t.Errorf("KOL alone: %+v", ls[2])
	}
}

func TestSelectCells(t *testing.T) {
	cs, err := selectCells("fogd-100, bogd-100")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Name != "bogd-100" || cs[1].Name != "fogd-100" {
		t.Errorf("cells %v, want bogd-100 and fogd-100 in the table's order", cs)
	}
	if _, err := selectCells("bogd-100,bogd-7"); err == nil || !strings.Contains(err.Error(), `"bogd-7"`) {
		t.Errorf("an unknown cell: error %v", err)
	}
}

func TestKOLArgsFillLambda(t *testing.T) {
	in := &inputs{kolCache: "/w/c", gamma: "0.0078125", lambda: "1e-10", text: "/w/rows.svm", order: "/w/o"}
	got := strings.Join(in.kolArgs(bogdCell(1000)), " ")
	if want := "-c /w/c -loss Hinge -gamma 0.0078125 -opt kernel-bogd -B 1000 -eta 0.2 -lambda 1e-10"; got != want {
		t.Errorf("KOL's arguments\n%s, want\n%s", got, want)
	}
	got = strings.Join(in.oursArgs(bogdCell(1000), "bogd", 11), " ")
	if want := "run --data /w/rows.svm --order /w/o --runs 11 --task binary --scale none --sigma 8 --format json --algo bogd --budget 1000 --eta 0.2 --lambda 1e-10 --gamma 10"; got != want {
		t.Errorf("bogdbench's arguments\n%s, want\n%s", got, want)
	}
}

func TestParsePeak(t *testing.T) {
	out := "  avx512 codrna 2000 8 - 1413\n\npeak GFLOP/s (% of peak is against it), measured by simd.PeakFLOPS per implementation: ..., one core: generic 9.4 avx2 118.2 avx512 115.8\n"
	got, err := parsePeak([]byte(out))
	if err != nil || got != "generic 9.4 avx2 118.2 avx512 115.8" {
		t.Errorf("peak %q, %v", got, err)
	}
	if _, err := parsePeak([]byte("no such line\n")); err == nil {
		t.Error("no peak line: no error")
	}
}
