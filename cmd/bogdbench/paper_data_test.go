package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
)

// paperText is the paper's text, outside the repository.
const paperText = "../../../shared/paper/bogd-paper.md"

// checkAgainstPaperText compares every figure of paperTable2 and
// paperTable3 with the tables of the paper's markdown, when it is present.
func checkAgainstPaperText(t *testing.T) {
	text, err := os.ReadFile(paperText)
	if err != nil {
		t.Logf("skipping the full comparison: %v", err)
		return
	}
	// "34.805 ± 1.017", "**30.440 %± 0.991**" → mean, std.
	meanStd := func(s string) (float64, float64) {
		s = strings.NewReplacer("*", "", "%", "", " ", "").Replace(s)
		a, b, ok := strings.Cut(s, "±")
		m, err1 := strconv.ParseFloat(a, 64)
		d, err2 := strconv.ParseFloat(b, 64)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("cannot parse %q", s)
		}
		return m, d
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			t.Fatalf("cannot parse %q", s)
		}
		return v
	}
	names := map[string]bogd.Algorithm{}
	for _, a := range paperAlgorithms {
		names[displayName(a)] = a
	}
	var table2, table3 int
	ds := ""
	for _, line := range strings.Split(string(text), "\n") {
		if !strings.HasPrefix(line, "|") || !strings.Contains(line, "±") {
			continue
		}
		cols := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i := range cols {
			cols[i] = strings.TrimSpace(cols[i])
		}
		if _, isAlgo := names[cols[1]]; !isAlgo && len(cols) == 8 { // Table 2
			for k, a := range unbudgetedAlgorithms {
				c := cols[1+4*k:]
				m, s := meanStd(c[0])
				sv, svs := meanStd(c[1])
				want := paperCell{Mistake: m, MistakeStd: s, SV: sv, SVStd: svs, Time: num(c[2])}
				if got := paperTable2[cols[0]][a]; got != want {
					t.Errorf("Table 2 %s %v: %+v, the paper %+v", cols[0], a, got, want)
				}
				table2++
			}
			continue
		}
		if cols[0] != "" {
			ds = cols[0]
		}
		a, ok := names[cols[1]]
		if !ok || len(cols) != 8 {
			t.Fatalf("unexpected table row %q", line)
		}
		d, _ := lookupDataset(ds)
		for k, b := range d.Budgets {
			m, s := meanStd(cols[2+2*k])
			want := paperCell{Mistake: m, MistakeStd: s, Time: num(cols[3+2*k])}
			if got, ok := paperTable3Cell(ds, a, b); !ok || got != want {
				t.Errorf("Table 3 %s %v B=%d: %+v, the paper %+v", ds, a, b, got, want)
			}
			table3++
		}
	}
	if table2 != 12 || table3 != 6*6*3 {
		t.Errorf("compared %d Table 2 and %d Table 3 cells, want 12 and 108", table2, table3)
	}
}

// TestPaperDatasetsMatchFiles checks the sizes and label counts of
// paperDatasets against the files in shared/datasets, when present.
func TestPaperDatasetsMatchFiles(t *testing.T) {
	const dir = "../../../shared/datasets"
	for _, d := range paperDatasets {
		path := filepath.Join(dir, d.File)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("the paper's datasets are not here (%v)", err)
		}
		if testing.Short() && d.Rows > 30000 {
			continue
		}
		data, err := dataset.ReadFile(path, dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pos := 0
		for _, y := range data.Labels {
			if y == 1 {
				pos++
			}
		}
		if data.Len() != d.Rows || data.Dim > d.Features || pos != d.Positives {
			t.Errorf("%s: %d rows, dimension %d, %d positives; the table says %d, %d, %d",
				d.Name, data.Len(), data.Dim, pos, d.Rows, d.Features, d.Positives)
		}
	}
}
