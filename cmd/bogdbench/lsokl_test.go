package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLSOKLUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", dir}, "--table is required"},
		{[]string{"--table", "ranking", "--out", dir}, `unknown table "ranking"`},
		{[]string{"--table", "regression", "--only", "iris", "--out", dir}, `Table 9 has no dataset "iris"`},
		{[]string{"--table", "regression", "--algo", "projectron++", "--out", dir}, "projectron++ is not a row of Table 9"},
		{[]string{"--table", "binary", "--algo", "bogd", "--grid", "huge", "--out", dir}, "--grid must be full or quick"},
		{[]string{"--table", "binary", "--algo", "bogd", "--budgets", "1", "--out", dir}, "a budget must be at least 2"},
		{[]string{"--table", "binary", "--algo", "bogd", "--phase", "tables"}, "--phase tables needs --out"},
	} {
		code, _, stderr := bench(t, append([]string{"lsokl"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// The regression table on housing alone, quick: scaled data, both widths,
// the report; the datasets directory must hold the file.
func TestLSOKLRegressionQuick(t *testing.T) {
	datasets := "../../../shared/datasets"
	if _, err := os.Stat(filepath.Join(datasets, "regression", "housing.svm.gz")); err != nil {
		t.Skipf("the regression datasets are not there: %v", err)
	}
	out := t.TempDir()
	code, stdout, stderr := bench(t, "lsokl", "--table", "regression", "--datasets", datasets, "--only", "housing", "--algo", "bogd++,bogd-oldest",
		"--quick", "--runs", "2", "--select-runs", "1", "--plots=false", "--out", out)
	if code != 0 || !strings.Contains(stdout, "wrote "+filepath.Join(out, "lsokl.md")) || !strings.Contains(stderr, "lsokl: select:") {
		t.Fatalf("lsokl: exit %d\n%s%s", code, stdout, stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "lsokl.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| BOGD (oldest removal) | ", "(0.0527)", "housing {8, 0.15, 0.29, 0.59, 1.2}"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("lsokl.md lacks %q", want)
		}
	}
	if code, _, stderr := bench(t, "lsokl", "--table", "regression", "--datasets", t.TempDir(), "--only", "housing", "--algo", "bogd", "--out", t.TempDir()); code != 1 ||
		!strings.Contains(stderr, "(Table 9's housing)") || !strings.Contains(stderr, "pass --datasets DIR") {
		t.Fatalf("missing data: exit %d, %s", code, stderr)
	}
}
