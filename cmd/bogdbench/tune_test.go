package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTuneSavesWhatItPrints: tune selects on held-out permutations,
// prints the selection and the train command of it, and --save trains
// exactly the model that command trains.
func TestTuneSavesWhatItPrints(t *testing.T) {
	dir := t.TempDir()
	tuned, results := filepath.Join(dir, "tuned.bogd"), filepath.Join(dir, "runs.jsonl")
	args := []string{"tune", "--data", germanPath, "--algo", "bogd++", "--budget", "20", "--sigma", "8,16", "--select-runs", "1", "--runs", "2", "--results", results, "--save", tuned}
	code, stdout, stderr := bench(t, args...)
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s%s", code, stdout, stderr)
	}
	if !regexp.MustCompile(`(?m)^bogd\+\+ +20 +η=[0-9.]+, λT²=[0-9.]+, γ=[0-9.]+, σ=[0-9.]+ +[0-9.]+ +[0-9.]+ ± [0-9.]+ +20\.0 `).MatchString(stdout) {
		t.Errorf("no selection row in\n%s", stdout)
	}
	if !strings.Contains(stderr, "select: 32 jobs to run") || !strings.Contains(stderr, "report: 2 jobs to run") {
		t.Errorf("the phases: 16 grid points (the quick grid's η and γ with BOGD++'s defaults 0.2 and 10) × 2 widths, then 2 held-out runs:\n%s", stderr)
	}
	line := regexp.MustCompile(`bogdbench train --data .*`).FindString(stdout)
	if line == "" {
		t.Fatalf("no train command in\n%s", stdout)
	}
	retrained := filepath.Join(dir, "retrained.bogd")
	trainArgs := append(strings.Fields(line)[1:], "--save", retrained, "-q")
	if code, _, stderr := bench(t, trainArgs...); code != 0 {
		t.Fatalf("%v: %s", trainArgs, stderr)
	}
	if !bytes.Equal(readFile(t, tuned), readFile(t, retrained)) {
		t.Error("tune --save and the printed train command made different models")
	}
	// The passes are kept; --resume runs none again and prints the same
	// table but for the times of the trivial predictor, which runs again.
	code, again, stderr := bench(t, append(args[:len(args)-2], "--resume")...)
	seconds := regexp.MustCompile(`(?m)[0-9.]+$`)
	if code != 0 || seconds.ReplaceAllString(again, "") != seconds.ReplaceAllString(stdout, "") ||
		!strings.Contains(stderr, "select: 0 jobs to run, 32 already in the results") {
		t.Errorf("resume: exit %d\n%s%s", code, again, stderr)
	}
}

func TestTuneErrors(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "runs.jsonl")
	os.WriteFile(results, nil, 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "--data is required"},
		{[]string{"--data", germanPath, "--seed", "7", "--select-seed", "7"}, 2, "--seed and --select-seed must differ"},
		{[]string{"--data", germanPath, "--algo", "bogd,rbp", "--save", filepath.Join(dir, "m.bogd")}, 2, "--save needs exactly one algorithm and one budget"},
		{[]string{"--data", germanPath, "--grid", "huge"}, 2, "--grid must be quick or full"},
		{[]string{"--data", germanPath, "--sigma", "0"}, 2, `--sigma: "0" is not a positive number`},
		{[]string{"--data", germanPath, "--algo", "norma"}, 2, "norma is not defined for binary"},
		{[]string{"--data", germanPath, "--resume"}, 2, "--resume needs --results"},
		{[]string{"--data", germanPath, "--results", results, "--sigma", "8"}, 1, results + " already exists: pass --resume to continue it"},
	} {
		code, stdout, stderr := bench(t, append([]string{"tune", "-q"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}
