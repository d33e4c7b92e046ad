package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/experiment"
)

// schedulerEnv sets the environment of a scheduler's task, clearing the
// variables of the other scheduler.
func schedulerEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, k := range []string{experiment.EnvSlurmTaskID, experiment.EnvSlurmTaskCount, experiment.EnvSlurmTaskMin, experiment.EnvSlurmTaskMax,
		experiment.EnvSlurmTaskStep, experiment.EnvCompletionIdx, experiment.EnvShards} {
		t.Setenv(k, env[k])
	}
}

// slurmTask is task id of a Slurm array 1..n (IDs from 1, as many sites
// number them).
func slurmTask(t *testing.T, id, n int) {
	schedulerEnv(t, map[string]string{
		experiment.EnvSlurmTaskID: fmt.Sprint(id), experiment.EnvSlurmTaskCount: fmt.Sprint(n),
		experiment.EnvSlurmTaskMin: "1", experiment.EnvSlurmTaskMax: fmt.Sprint(n), experiment.EnvSlurmTaskStep: "1",
	})
}

// indexedJob is completion index k of a Kubernetes Indexed Job of n.
func indexedJob(t *testing.T, k, n int) {
	schedulerEnv(t, map[string]string{experiment.EnvCompletionIdx: fmt.Sprint(k), experiment.EnvShards: fmt.Sprint(n)})
}

// secondsField is the one field of a record that differs between two
// computations of a job on one machine.
var secondsField = regexp.MustCompile(`"seconds":[^,}]*`)

// sortedRecords is the results file as `merge` writes it, the seconds of
// every record masked.
func sortedRecords(t *testing.T, path string) string {
	t.Helper()
	sorted := filepath.Join(t.TempDir(), "sorted.jsonl")
	if code, _, stderr := bench(t, "merge", "--out", sorted, path); code != 0 {
		t.Fatalf("merge %s: %s", path, stderr)
	}
	return secondsField.ReplaceAllString(string(readFile(t, sorted)), `"seconds":_`)
}

// `paper --shard auto` in the tasks of a Slurm array (selection) and of a
// Kubernetes Indexed Job (reported runs, reading the selection shards by
// a pattern), merged and tabulated, holds the records of one process.
func TestPaperShardAuto(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole")
	if code, _, stderr := bench(t, tinyArgs("--out", whole)...); code != 0 {
		t.Fatalf("one process: %s", stderr)
	}
	out := filepath.Join(dir, "sharded")
	const n = 3
	for id := 1; id <= n; id++ {
		slurmTask(t, id, n)
		code, stdout, stderr := bench(t, tinyArgs("--out", out, "--phase", "select", "--shard", "auto")...)
		want := fmt.Sprintf("select phase done: results in %s\n", filepath.Join(out, fmt.Sprintf("paper-select-%d-of-%d.jsonl", id-1, n)))
		if code != 0 || stdout != want {
			t.Fatalf("select task %d: exit %d\n%s%s", id, code, stdout, stderr)
		}
	}
	selection := filepath.Join(out, "paper-select-*-of-3.jsonl")
	for k := range n {
		indexedJob(t, k, n)
		if code, _, stderr := bench(t, tinyArgs("--out", out, "--phase", "report", "--shard", "auto", "--read", selection)...); code != 0 {
			t.Fatalf("report index %d: %s", k, stderr)
		}
	}
	shards, _ := filepath.Glob(filepath.Join(out, "paper-*-of-3.jsonl"))
	if len(shards) != 2*n {
		t.Fatalf("shard files %v, want %d", shards, 2*n)
	}
	merged := filepath.Join(out, "paper-runs.jsonl")
	if code, _, stderr := bench(t, append([]string{"merge", "--out", merged}, shards...)...); code != 0 {
		t.Fatalf("merge: %s", stderr)
	}
	if code, _, stderr := bench(t, tinyArgs("--out", out, "--phase", "tables")...); code != 0 {
		t.Fatalf("tables: %s", stderr)
	}
	if got, want := sortedRecords(t, merged), sortedRecords(t, filepath.Join(whole, "paper-runs.jsonl")); got != want {
		t.Fatalf("the shards' records differ from one process's:\n%s\nwant\n%s", got, want)
	}
}

func TestResultsName(t *testing.T) {
	for _, c := range []struct {
		phase string
		shard experiment.Shard
		want  string
	}{
		{experiment.PhaseAll, experiment.Shard{}, "paper-runs.jsonl"},
		{experiment.PhaseSelect, experiment.Shard{}, "paper-runs.jsonl"},
		{experiment.PhaseSelect, experiment.Shard{K: 2, N: 4}, "paper-select-2-of-4.jsonl"},
		{experiment.PhaseReport, experiment.Shard{K: 0, N: 1}, "paper-report-0-of-1.jsonl"},
		{experiment.PhaseAll, experiment.Shard{K: 0, N: 1}, "paper-runs.jsonl"},
	} {
		if got := resultsName("paper", c.phase, c.shard); got != c.want {
			t.Errorf("%s, shard %v: %s, want %s", c.phase, c.shard, got, c.want)
		}
	}
}

func TestShardAutoErrors(t *testing.T) {
	dir := t.TempDir()
	schedulerEnv(t, nil)
	code, _, stderr := bench(t, tinyArgs("--out", dir, "--phase", "select", "--shard", "auto")...)
	if code != 1 || !strings.Contains(stderr, "--shard auto: no scheduler shard in the environment: looked for a Slurm job array (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_MIN) and a Kubernetes Indexed Job (JOB_COMPLETION_INDEX with BOGD_SHARDS)") {
		t.Errorf("no scheduler: exit %d, %s", code, stderr)
	}
	indexedJob(t, 1, 2)
	if code, _, stderr := bench(t, tinyArgs("--out", dir, "--shard", "auto")...); code != 2 || !strings.Contains(stderr, "--shard needs --phase select or --phase report") {
		t.Errorf("a shard of phase all: exit %d, %s", code, stderr)
	}
	code, _, stderr = bench(t, tinyArgs("--out", dir, "--phase", "report", "--shard", "auto", "--read", filepath.Join(dir, "sel-*.jsonl"))...)
	if code != 1 || !strings.Contains(stderr, "sel-*.jsonl\" matches no file") {
		t.Errorf("a pattern matching nothing: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "paper-report-1-of-2.jsonl")); err == nil {
		t.Error("a refused run left a results file")
	}
}

// tuneTable is tune's table on stdout without its seconds per pass (the
// last column): what two computations of the same passes agree on.
func tuneTable(stdout string) string {
	lines := strings.Split(stdout, "\n")
	for i, l := range lines {
		if l == "" {
			break
		}
		if i > 0 {
			lines[i] = l[:strings.LastIndexByte(l, ' ')+1] + "_"
		}
	}
	return strings.Join(lines, "\n")
}

// tune's grid spread over array tasks and tabulated from their files
// (the merge path) prints the table of one process, and saves its model.
// (Only one process extends a selection on an edge: the comparison is
// of grids that --extend 0 keeps as they are.)
func TestTuneShards(t *testing.T) {
	data, err := filepath.Abs(germanPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	tune := func(extra ...string) []string {
		return append([]string{"tune", "--data", data, "--algo", "bogd++", "--budget", "20", "--sigma", "8,16",
			"--select-runs", "2", "--runs", "2", "--extend", "0", "-q"}, extra...)
	}
	schedulerEnv(t, nil)
	code, want, stderr := bench(t, tune("--save", "whole.bogd")...)
	if code != 0 {
		t.Fatalf("one process: %s", stderr)
	}
	const n = 4
	for id := 1; id <= n; id++ {
		slurmTask(t, id, n)
		if code, stdout, stderr := bench(t, tune("--phase", "select", "--shard", "auto")...); code != 0 || stdout != fmt.Sprintf("select phase done: results in tune-select-%d-of-4.jsonl\n", id-1) {
			t.Fatalf("select task %d: exit %d\n%s%s", id, code, stdout, stderr)
		}
	}
	for k := range n {
		indexedJob(t, k, n)
		if code, _, stderr := bench(t, tune("--phase", "report", "--shard", "auto", "--read", "tune-select-*-of-4.jsonl")...); code != 0 {
			t.Fatalf("report index %d: %s", k, stderr)
		}
	}
	schedulerEnv(t, nil)
	code, got, stderr := bench(t, tune("--phase", "tables", "--read", "tune-*-of-4.jsonl", "--save", "merged.bogd")...)
	if code != 0 {
		t.Fatalf("tables: %s", stderr)
	}
	if tuneTable(got) != tuneTable(want) {
		t.Fatalf("the shards' table\n%s\nthe table of one process\n%s", got, want)
	}
	if !bytes.Equal(readFile(t, "merged.bogd"), readFile(t, "whole.bogd")) {
		t.Error("the model saved from the shards' selection differs from one process's")
	}
	// Without the report shards: the missing held-out runs are named.
	code, _, stderr = bench(t, tune("--phase", "tables", "--read", "tune-select-*-of-4.jsonl")...)
	if code != 1 || !strings.Contains(stderr, "reported runs are missing") {
		t.Errorf("tables without the report shards: exit %d, %s", code, stderr)
	}
	if code, _, stderr := bench(t, tune("--phase", "select", "--save", "m.bogd")...); code != 2 || !strings.Contains(stderr, "--save needs --phase all or tables") {
		t.Errorf("--save in a select task: exit %d, %s", code, stderr)
	}
}
