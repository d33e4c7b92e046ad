package paper

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
)

// paperText is the paper's text, outside the repository.
const paperText = "../../../shared/paper/bogd-paper.md"

func TestPaperNumbers(t *testing.T) {
	// Spot checks against the paper's Tables 2 and 3.
	if c := Table2["codrna"][bogd.OGD]; c.Mistake != 10.467 || c.SV != 51423.900 || c.Time != 1782.763 {
		t.Errorf("Table 2 codrna OGD: %+v", c)
	}
	if c := Table2["german"][bogd.Perceptron]; c.Mistake != 34.805 || c.MistakeStd != 1.017 || c.SVStd != 10.175 {
		t.Errorf("Table 2 german Perceptron: %+v", c)
	}
	for _, tc := range []struct {
		ds     string
		a      bogd.Algorithm
		budget int
		want   Published
	}{
		{"german", bogd.BOGD, 100, Published{Mistake: 30.440, MistakeStd: 0.991, Time: 0.025}},
		{"spambase", bogd.ProjectronPP, 200, Published{Mistake: 28.468, MistakeStd: 0.702, Time: 1.752}},
		{"w8a", bogd.BOGDpp, 600, Published{Mistake: 2.701, MistakeStd: 0.047, Time: 9.478}},
		{"magic04", bogd.ProjectronPP, 1500, Published{Mistake: 27.089, MistakeStd: 0.310, Time: 366.590}},
		{"ijcnn1", bogd.Forgetron, 2000, Published{Mistake: 15.273, MistakeStd: 0.134, Time: 41.723}},
		{"codrna", bogd.BOGDpp, 1000, Published{Mistake: 14.418, MistakeStd: 0.206, Time: 28.552}},
	} {
		if got, ok := Table3Cell(tc.ds, tc.a, tc.budget); !ok || got != tc.want {
			t.Errorf("Table 3 %s %v B=%d: %+v, want %+v", tc.ds, tc.a, tc.budget, got, tc.want)
		}
	}
	if _, ok := Table3Cell("german", bogd.BOGD, 300); ok {
		t.Error("a Table 3 cell for a budget the paper did not run")
	}
}

// TestPublishedMatchesPaperText compares every figure of Table2 and Table3
// with the tables of the paper's markdown, when it is present.
func TestPublishedMatchesPaperText(t *testing.T) {
	text, err := os.ReadFile(paperText)
	if err != nil {
		t.Skipf("the paper's text is not here, nothing compared: %v", err)
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
	for _, a := range Algorithms {
		names[experiment.DisplayName(a)] = a
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
			for k, a := range Unbudgeted {
				c := cols[1+4*k:]
				m, s := meanStd(c[0])
				sv, svs := meanStd(c[1])
				want := Published{Mistake: m, MistakeStd: s, SV: sv, SVStd: svs, Time: num(c[2])}
				if got := Table2[cols[0]][a]; got != want {
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
		d, _ := Lookup(ds)
		for k, b := range d.Budgets {
			m, s := meanStd(cols[2+2*k])
			want := Published{Mistake: m, MistakeStd: s, Time: num(cols[3+2*k])}
			if got, ok := Table3Cell(ds, a, b); !ok || got != want {
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
// Datasets against the files in shared/datasets, when present.
func TestDatasetsMatchFiles(t *testing.T) {
	const dir = "../../../shared/datasets"
	for _, d := range Datasets {
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
