package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The output of a command as a document shows it, and as a build printed
// it with other times and more rows where the document elides them.
var (
	shownOutput = []string{
		"bogdbench train: σ = 29.7658, the median Euclidean distance (...)",
		"    examples  pass   mistakes %   examples/s",
		"           1     1      100.000        40755",
		"         ...",
		"        1000     1       32.200      1066512",
		"bogdbench train: 1000 examples in 0.000943 s (1059979/s, 0.000943 s per pass): mistake rate 32.200%",
		"",
		"algorithm  budget  seconds/pass",
		"bogd++     100     0.0022",
		"took 1m30.5s, 12ms a pass",
	}
	printedOutput = []string{
		"bogdbench train: σ = 29.7658, the median Euclidean distance (experiment.MedianDistance, seed 1)",
		"    examples  pass   mistakes %   examples/s",
		"           1     1      100.000         9755",
		"           2     1      100.000        46100",
		"         512     1       27.930      1298523",
		"        1000     1       32.200     11066512",
		"bogdbench train: 1000 examples in 0.0123 s (81300/s, 0.0123 s per pass): mistake rate 32.200%",
		"",
		"algorithm  budget  seconds/pass",
		"bogd++     100     0.13",
		"took 2m1s, 7.5ms a pass",
	}
)

func TestREADMEOutputsMatchButForTimes(t *testing.T) {
	if a := align(shownOutput, printedOutput); a.cost != 0 {
		t.Fatalf("cost %d:\n%s", a.cost, a.diff(1))
	}
	changed := func(i int, from, to string) []string {
		out := slices.Clone(printedOutput)
		if !strings.Contains(out[i], from) {
			t.Fatalf("line %d %q has no %q", i, out[i], from)
		}
		out[i] = strings.Replace(out[i], from, to, 1)
		return out
	}
	for name, got := range map[string][]string{
		"a mistake rate beside times":    changed(6, "32.200%", "32.300%"),
		"a row's count":                  changed(5, "32.200", "32.100"),
		"a column that is no time":       changed(9, "100", "150"),
		"the text an inline ... is in":   changed(0, "median", "mean"),
		"the first row":                  changed(2, "      1     1", "      1     2"),
		"a row missing after ...":        slices.Delete(slices.Clone(printedOutput), 5, 6),
		"a line more at the end":         append(slices.Clone(printedOutput), "bogdbench train: saved"),
		"a line more before the elision": slices.Insert(slices.Clone(printedOutput), 1, "bogdbench train: 1000 rows"),
		"a heading":                      changed(1, "examples/s", "rows/s"),
	} {
		if a := align(shownOutput, got); a.cost == 0 {
			t.Errorf("%s: the outputs match", name)
		}
	}
}

func TestREADMERewrite(t *testing.T) {
	want := []string{"took 1 s", "...", "rate 32.2%", "...", "saved"}
	got := []string{"took 2 s", "step 1", "step 2", "rate 32.3%", "saved", "new"}
	a := align(want, got)
	if a.cost != 3 {
		t.Errorf("cost %d, want 3 (a number changed, a line added)", a.cost)
	}
	// The matching line keeps the document's time, the elision that still
	// stands for lines stays, the one that stands for none goes.
	if out, expect := a.rewrite(), []string{"took 1 s", "...", "rate 32.3%", "saved", "new"}; !slices.Equal(out, expect) {
		t.Errorf("rewrite: %q, want %q", out, expect)
	}
	// A line after an elision that changed more than its numbers takes its
	// place; it does not vanish into the elision.
	b := align([]string{"a", "...", "ECE 0.1"}, []string{"a", "x", "ECE 0.2, plain 0.3"})
	if out, expect := b.rewrite(), []string{"a", "...", "ECE 0.2, plain 0.3"}; !slices.Equal(out, expect) {
		t.Errorf("rewrite: %q, want %q", out, expect)
	}
	diff := a.diff(40)
	for _, line := range []string{"   40    took 2 s", "   41    ... (2 lines)", "   42  - rate 32.2%", "       + rate 32.3%", "       + new"} {
		if !strings.Contains(diff, line+"\n") {
			t.Errorf("the diff lacks %q:\n%s", line, diff)
		}
	}

	path := filepath.Join(t.TempDir(), "README.md")
	text := "# Doc\n\n```\n$ one \\\n  two\nold 1\n...\nold 2\n$ three\n```\n\n```\n$ four\nkept\n```\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := readDoc(path)
	if err != nil {
		t.Fatal(err)
	}
	var commands []string
	for _, ex := range d.examples {
		commands = append(commands, ex.command)
	}
	if expect := []string{"one two", "three", "four"}; !slices.Equal(commands, expect) {
		t.Fatalf("commands %q, want %q", commands, expect)
	}
	if ex := d.examples[0]; ex.line != 4 || ex.block != 1 || !slices.Equal(ex.output, []string{"old 1", "...", "old 2"}) {
		t.Errorf("first example: %+v", ex)
	}
	if ex := d.examples[2]; ex.line != 13 || ex.block != 2 {
		t.Errorf("third example: %+v", ex)
	}
	if err := d.rewrite(path, map[int][]string{0: {"new"}, 1: {"printed"}}); err != nil {
		t.Fatal(err)
	}
	rewritten, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if expect := "# Doc\n\n```\n$ one \\\n  two\nnew\n$ three\nprinted\n```\n\n```\n$ four\nkept\n```\n"; string(rewritten) != expect {
		t.Errorf("rewritten:\n%s\nwant:\n%s", rewritten, expect)
	}

	if err := os.WriteFile(path, []byte("```\n$ one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readDoc(path); err == nil || !strings.Contains(err.Error(), "not closed") {
		t.Errorf("an unclosed block: %v", err)
	}
}

func TestREADMESplitCommand(t *testing.T) {
	for _, c := range []struct {
		line       string
		words      []string
		background bool
	}{
		{`bogdbench serve --addr 127.0.0.1:8080 &`, []string{"bogdbench", "serve", "--addr", "127.0.0.1:8080"}, true},
		{`curl -s -d '{"a":[1, 2]}' localhost:8080/x`, []string{"curl", "-s", "-d", `{"a":[1, 2]}`, "localhost:8080/x"}, false},
		{`bogdbench run --read "a b\"c" x\ y 'OUT/*.jsonl'`, []string{"bogdbench", "run", "--read", `a b"c`, "x y", "OUT/*.jsonl"}, false},
		{`zcat a.gz|bogdbench train --data -`, []string{"zcat", "a.gz", "|", "bogdbench", "train", "--data", "-"}, false},
	} {
		words, bg, err := splitCommand(c.line)
		if err != nil || !slices.Equal(words, c.words) || bg != c.background {
			t.Errorf("%s: %q, %v, %v; want %q, %v", c.line, words, bg, err, c.words, c.background)
		}
	}
	for _, line := range []string{`a > b`, `a; b`, `a && b`, `echo $HOME`, "echo `x`", `a "$X"`, `a 'b`, `a "b`, `a | b &`, ``, `a & b`} {
		if words, _, err := splitCommand(line); err == nil {
			t.Errorf("%s: %q, want an error", line, words)
		}
	}
}

func TestREADMESession(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, self)
	data, err := os.ReadFile(germanPath)
	if err == nil {
		data, err = gunzipped(bytes.NewReader(data))
	}
	if err != nil {
		t.Fatal(err)
	}
	german := lines(data)

	got, err := s.run("zcat dataset/testdata/german.svm.gz | head -2")
	if err != nil || !slices.Equal(got, german[:2]) {
		t.Errorf("zcat | head -2: %q, %v; want %q", got, err, german[:2])
	}
	got, err = s.run("zcat dataset/testdata/german.svm.gz | bogdbench train --data - --budget 10 --save m.bogd | cat")
	if err != nil || !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, "bogdbench train: saved the auto learner") }) {
		t.Errorf("training from a pipe: %q, %v", got, err)
	}
	got, err = s.run("bogdbench predict --model m.bogd --data dataset/testdata/german.svm.gz --output p.txt")
	if err != nil || !slices.Contains(got, "rows          1000") {
		t.Errorf("predict: %q, %v", got, err)
	}
	if got, err = s.run("head -n 1 p.txt"); err != nil || len(got) != 1 {
		t.Errorf("head -n 1: %q, %v", got, err)
	}
	if _, err = s.run("bogdbench predict --model missing.bogd"); err == nil || !strings.Contains(err.Error(), "exit status 1") || !strings.Contains(err.Error(), "missing.bogd") {
		t.Errorf("a failing command: %v", err)
	}
	if _, err = s.run("rm -rf dataset"); err == nil || !strings.Contains(err.Error(), "bogdbench, cat, curl, head, zcat") {
		t.Errorf("an unknown command: %v", err)
	}
	if m := s.missingShared("bogdbench run --data ../shared/datasets/no-such.svm.gz,x"); m != "../shared/datasets/no-such.svm.gz" {
		t.Errorf("missingShared: %q", m)
	}
}
