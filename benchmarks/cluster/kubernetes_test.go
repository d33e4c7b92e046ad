package cluster

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// manifest is what a Job of kubernetes/ runs: its command and arguments,
// and, for an Indexed Job, its completions and the BOGD_SHARDS it sets.
type manifest struct {
	completions int
	shards      string
	command     []string
}

var (
	completionsField = regexp.MustCompile(`(?m)^\s+completions: (\d+)$`)
	shardsVar        = regexp.MustCompile(`\{name: BOGD_SHARDS, value: "(\d+)"\}`)
	commandField     = regexp.MustCompile(`(?m)^\s+command: (\[.*\])$`)
	argsField        = regexp.MustCompile(`(?m)^\s+args: (\[.*\])$`)
)

// readManifest reads a manifest of kubernetes/, whose command and args are
// written as flow sequences of quoted strings (JSON, as YAML allows).
func readManifest(t *testing.T, name string) manifest {
	text, err := os.ReadFile(filepath.Join("kubernetes", name))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	for _, f := range []*regexp.Regexp{commandField, argsField} {
		match := f.FindSubmatch(text)
		if match == nil {
			t.Fatalf("%s: no %s", name, f)
		}
		var list []string
		if err := json.Unmarshal(match[1], &list); err != nil {
			t.Fatalf("%s: %s: %v", name, match[1], err)
		}
		m.command = append(m.command, list...)
	}
	if match := completionsField.FindSubmatch(text); match != nil {
		m.completions, _ = strconv.Atoi(string(match[1]))
	}
	if match := shardsVar.FindSubmatch(text); match != nil {
		m.shards = string(match[1])
	}
	return m
}

// The manifests' commands, run here as Kubernetes would run them (every
// completion index of the Indexed Jobs with JOB_COMPLETION_INDEX and the
// manifest's BOGD_SHARDS, select before report, then the merge), give
// what one process gives (compareRuns): the three files agree with each
// other and with bogdbench's flags and file names. The runs are `paper
// --quick` on the bundled german data, the flags added to each command.
func TestKubernetesManifests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bogdbench and runs it 33 times")
	}
	ctx := testContext(t)
	dir := t.TempDir()
	bin := buildBogdbench(t, ctx, dir)
	data, err := filepath.Abs("../../dataset/testdata")
	if err != nil {
		t.Fatal(err)
	}
	extra := []string{"--quick", "--only", "german"}
	ref := filepath.Join(dir, "one-process")
	if out, err := exec.CommandContext(ctx, bin, append([]string{"paper", "--out", ref, "--datasets", data}, extra...)...).CombinedOutput(); err != nil {
		t.Fatalf("the single process: %v\n%s", err, out)
	}

	results := filepath.Join(dir, "results")
	// The pods' volumes, here: an argument, or a word of the merge's script.
	local := func(arg string) string {
		if arg == "/data" {
			return data
		}
		return strings.NewReplacer("/results/", results+"/", " /data ", " "+data+" ").Replace(arg)
	}
	run := func(m manifest, env ...string) {
		t.Helper()
		var args []string
		for _, a := range m.command {
			args = append(args, local(a))
		}
		if args[0] == "sh" {
			args[len(args)-1] += " " + strings.Join(extra, " ")
		} else {
			args = append(args, extra...)
		}
		program := args[0]
		if program == "bogdbench" {
			program = bin
		}
		cmd := exec.CommandContext(ctx, program, args[1:]...)
		cmd.Env = append(jobEnv(), append(env, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	for _, name := range []string{"select.yaml", "report.yaml"} {
		m := readManifest(t, name)
		if m.completions < 1 || m.shards != strconv.Itoa(m.completions) {
			t.Fatalf("%s: completions %d, BOGD_SHARDS %q: they must be equal", name, m.completions, m.shards)
		}
		for i := range m.completions {
			run(m, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i), "BOGD_SHARDS="+m.shards)
		}
	}
	run(readManifest(t, "merge.yaml"))
	compareRuns(t, ctx, bin, ref, filepath.Join(results, "paper"))
}
