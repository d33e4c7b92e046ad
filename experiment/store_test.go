package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/task"
)

// rbpRecord is a reported run of RBP on german at today's rule version.
func rbpRecord() *Record {
	return &Record{Dataset: "german", Algorithm: "rbp", Rule: bogd.RBP.RuleVersion(), Budget: 100, Stream: StreamReport, Seed: 1, Sigma: 8,
		Rows: 1000, Result: Result{Mistakes: 380, SupportVectors: 100, Seconds: 0.1}, SIMD: "avx2"}
}

// warnings collects what a loader warns about.
type warnings []string

func (w *warnings) add(msg string) { *w = append(*w, msg) }

func (w warnings) contain(s string) bool {
	return strings.Contains(strings.Join(w, "\n"), s)
}

func writeLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRecordFormat(t *testing.T) {
	r := rbpRecord()
	r.Checkpoints = []int{1, 2}
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"dataset":"german","algorithm":"rbp","rule":%d,"budget":100,"eta":0,"lambda_t2":0,"gamma":0,"stream":"report","run":0,"seed":1,"sigma":8,"rows":1000,"lambda":0,"mistakes":380,"support_vectors":100,"seconds":0.1,"checkpoints":[1,2],"simd":"avx2"}`,
		bogd.RBP.RuleVersion())
	if string(line) != want {
		t.Fatalf("record\n%s\nwant\n%s", line, want)
	}
}

// Merge keeps one of identical records (time and SIMD may differ), refuses
// conflicting ones naming both implementations, and fails on a missing file.
func TestMergeDuplicatesAndConflicts(t *testing.T) {
	dir := t.TempDir()
	rec := rbpRecord()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	same, other := *rec, *rec
	same.Seconds, same.SIMD = 0.2, "generic"
	other.Mistakes++
	other.SIMD = "avx512"
	for path, r := range map[string]*Record{a: rec, b: &same, c: &other} {
		if err := WriteRecords(path, []*Record{r}); err != nil {
			t.Fatal(err)
		}
	}
	var w warnings
	merged, dups, err := Merge([]string{a, b}, w.add)
	if err != nil || merged.Len() != 1 || dups != 1 {
		t.Fatalf("merge: %d records, %d duplicates, %v", merged.Len(), dups, err)
	}
	_, _, err = Merge([]string{a, c}, w.add)
	if err == nil || !strings.Contains(err.Error(), "conflicting") || !strings.Contains(err.Error(), "simd avx2") || !strings.Contains(err.Error(), "simd avx512") || !strings.Contains(err.Error(), c) {
		t.Fatalf("conflicting merge: %v", err)
	}
	if _, _, err := Merge([]string{a, filepath.Join(dir, "missing")}, w.add); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("merge of a missing file: %v", err)
	}
	if len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
}

// Records of another rule version (no field: version 1) are left out of a
// set, whether merged or resumed, and counted per algorithm and version.
func TestOtherRuleVersionsIgnored(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "runs.jsonl")
	cur := rbpRecord()
	line, _ := json.Marshal(cur)
	rule := fmt.Sprintf(`"rule":%d`, cur.Rule)
	old := strings.Replace(string(line), rule+",", "", 1)
	oldRun1 := strings.Replace(old, `"run":0`, `"run":1`, 1)
	future := strings.Replace(string(line), rule, `"rule":99`, 1)
	conflicting := strings.Replace(old, `"mistakes":380`, `"mistakes":1`, 1) // an old rule may differ
	writeLines(t, path, string(line)+"\n", old+"\n", oldRun1+"\n", future+"\n", conflicting+"\n")

	var w warnings
	merged, _, err := Merge([]string{path}, w.add)
	if err != nil || merged.Len() != 1 {
		t.Fatalf("merge: %d records, %v", merged.Len(), err)
	}
	for _, want := range []string{fmt.Sprintf("ignoring 3 records of rbp rule version 1 (this build computes version %d)", cur.Rule), "ignoring 1 records of rbp rule version 99"} {
		if !w.contain(want) {
			t.Errorf("warnings %q lack %q", w, want)
		}
	}
	w = nil
	st, err := OpenStore(path, true, w.add)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Len() != 1 || !w.contain("ignoring 3 records of rbp rule version 1") {
		t.Fatalf("resume: %d records, warnings %q", st.Len(), w)
	}
	got, _ := st.Get(cur.Key())
	if got.Rule != cur.Rule || got.Mistakes != 380 {
		t.Fatalf("resumed %+v", got)
	}
}

// Without resume, a results file is created, never appended to; with it,
// a torn last line is cut off and an unterminated one completed.
func TestStoreResumeAndTornLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "runs.jsonl")
	var w warnings
	st, err := OpenStore(path, false, w.add)
	if err != nil {
		t.Fatal(err)
	}
	a, b := rbpRecord(), rbpRecord()
	b.Run = 1
	if err := st.Save(a); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = OpenStore(path, false, w.add)
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path+" already exists") {
		t.Fatalf("a second fresh store on the same file: %v", err)
	}

	data, _ := os.ReadFile(path)
	lineB, _ := json.Marshal(b)
	writeLines(t, path, string(data), string(lineB[:len(lineB)/2])) // a write cut short
	st, err = OpenStore(path, true, w.add)
	if err != nil {
		t.Fatal(err)
	}
	if st.Len() != 1 || !w.contain("runs.jsonl:2: ignoring an incomplete last line") {
		t.Fatalf("torn line: %d records, warnings %q", st.Len(), w)
	}
	if err := st.Save(b); err != nil {
		t.Fatal(err)
	}
	st.Close()
	now, _ := os.ReadFile(path)
	if want := string(data) + string(lineB) + "\n"; string(now) != want {
		t.Fatalf("after the torn line:\n%s\nwant\n%s", now, want)
	}

	// A last line that parsed but lost its newline gets one before the next.
	writeLines(t, path, strings.TrimSuffix(string(now), "\n"))
	st, err = OpenStore(path, true, w.add)
	if err != nil {
		t.Fatal(err)
	}
	c := rbpRecord()
	c.Run = 2
	st.Save(c)
	st.Close()
	if lines := bytes.Count(mustRead(t, path), []byte("\n")); lines != 3 {
		t.Fatalf("%d lines after completing an unterminated one", lines)
	}

	// Any other bad line is an error naming file and line.
	writeLines(t, path, string(data), "{\"dataset\":\"german\",\"algorithm\":\"svm\"}\n", string(data))
	if _, err := OpenStore(path, true, w.add); err == nil || !strings.Contains(err.Error(), path+":2: ") || !strings.Contains(err.Error(), "svm") {
		t.Fatalf("bad line: %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A regression record carries its task, settings and squared errors;
// the fields of other tasks are left out, and binary records keep the form
// of TestRecordFormat.
func TestRegressionRecordFormat(t *testing.T) {
	r := &Record{Dataset: "housing", Algorithm: "norma", Rule: bogd.NORMA.RuleVersion(), Eta: 0.2, Stream: StreamSelect, Seed: 2, Sigma: 0.5,
		Task: "regression", Scaling: ScalingMinMax, Epsilon: 0.1, Nu: 0.4, AbsLambda: 0.03,
		Rows: 506, Lambda: 0.03, Result: Result{SquaredError: 20.24, SupportVectors: 300, Seconds: 0.01, ErrorCheckpoints: []float64{0.5}}, SIMD: "avx2"}
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"dataset":"housing","algorithm":"norma","rule":%d,"budget":0,"eta":0.2,"lambda_t2":0,"gamma":0,"stream":"select","run":0,"seed":2,"sigma":0.5,"task":"regression","scaling":"minmax","epsilon":0.1,"nu":0.4,"abs_lambda":0.03,"rows":506,"lambda":0.03,"mistakes":0,"squared_error":20.24,"support_vectors":300,"seconds":0.01,"error_checkpoints":[0.5],"simd":"avx2"}`,
		bogd.NORMA.RuleVersion())
	if string(line) != want {
		t.Fatalf("record\n%s\nwant\n%s", line, want)
	}
	if got := r.Metric(); got != r.SquaredError/float64(r.Rows) || got > 0.05 {
		t.Fatalf("metric %v, want the MSE", got)
	}
	k := r.Key()
	if k.Task != "regression" || k.AbsLambda != 0.03 || k.Nu != 0.4 || k.Epsilon != 0.1 || k.Scaling != ScalingMinMax {
		t.Fatalf("key %+v", k)
	}
}

// Records that break a task's rules are errors naming file and line.
func TestRecordValidation(t *testing.T) {
	dir := t.TempDir()
	good, _ := json.Marshal(rbpRecord())
	for _, c := range []struct{ from, to, want string }{
		{`"stream"`, `"task":"binary","stream"`, `task "binary"`},
		{`"stream"`, `"task":"ranking","stream"`, `task "ranking"`},
		{`"stream"`, `"scaling":"zscore","stream"`, `scaling "zscore"`},
		{`"stream"`, `"task":"regression","stream"`, "a regression pass with mistakes"},
		{`"mistakes":380`, `"mistakes":380,"squared_error":2`, "a binary pass with squared errors"},
		{`"mistakes":380`, `"mistakes":380,"squared_error":-2`, "squared error -2 is negative"},
	} {
		path := filepath.Join(dir, "runs.jsonl")
		writeLines(t, path, string(good)+"\n", strings.Replace(string(good), c.from, c.to, 1)+"\n")
		_, err := NewResultSet().Load(path, func(string) {})
		if err == nil || !strings.Contains(err.Error(), path+":2: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.to, err)
		}
	}
	if tk, err := ParseTaskName(""); err != nil || tk != task.Binary || TaskName(task.Binary) != "" || TaskName(task.Multiclass) != "multiclass" {
		t.Fatalf("binary is the empty task name: %v %v", tk, err)
	}
}
