// Package cluster holds the files that run bogdbench's grids on a cluster
// scheduler (slurm.sh, kubernetes/) and the test that runs slurm.sh on a
// real Slurm: `make test-slurm`.
package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Environment of the test: make test-slurm sets runEnv; .ci/run sets
// requireEnv, which makes a missing Slurm a failure instead of a skip.
const (
	runEnv     = "BOGD_SLURM_TEST"
	requireEnv = "BOGD_REQUIRE_SLURM"
)

// The programs of Debian's slurm-wlm and munge packages the test runs.
var slurmPrograms = []string{"munged", "mungekey", "slurmctld", "slurmd", "sbatch", "scontrol", "scancel", "sinfo", "squeue"}

const (
	tasks = 4 // the array size of the test
	cpus  = 2 // the node's CPUs
)

// A `paper --quick` grid submitted with slurm.sh to a single-node Slurm
// started here, as an array of 4 tasks per phase and the merge, gives the
// records, the report and the plots of one process (apart from the
// measured times, see compareRuns). Then a task cancelled mid-run and the
// chain resubmitted with -r (--resume) completes the grid, keeping the
// passes the task had finished, to the same result. The interrupted grid
// is the paper's full one on the bundled german data: its tasks take about
// half a second, where those of the quick grid on german alone (all there
// is without ../shared) end in milliseconds, before the test can stop one.
func TestSlurmGridMatchesOneProcess(t *testing.T) {
	requireSlurm(t)
	ctx := testContext(t)
	work := workDir(t)
	bin := buildBogdbench(t, ctx, work)
	flags := append([]string{"--quick"}, datasetFlags(t)...)

	ref := filepath.Join(work, "one-process")
	start := time.Now()
	if out, err := exec.CommandContext(ctx, bin, append([]string{"paper", "--out", ref}, flags...)...).CombinedOutput(); err != nil {
		t.Fatalf("the single process: %v\n%s", err, out)
	}
	oneProcess := time.Since(start)

	c := startCluster(t, ctx, work, bin)

	out := filepath.Join(work, "array")
	start = time.Now()
	jobs := c.submit(ctx, out, flags, false)
	c.requireCompleted(c.wait(ctx, jobs.all()...))
	onSlurm := time.Since(start)
	t.Logf("wall time: one process (--workers %d) %.1f s; Slurm, %d-task arrays of 1 CPU each on %d CPUs, submission to tables %.1f s (%.2f×)",
		cpus, oneProcess.Seconds(), tasks, cpus, onSlurm.Seconds(), onSlurm.Seconds()/oneProcess.Seconds())
	c.logSpans(ctx, jobs)
	compareRuns(t, ctx, bin, ref, out)
	if t.Failed() {
		return
	}

	// Interruption: cancel select task 1 once it has finished a quarter
	// of its passes. The task is first stopped where it is (SIGSTOP, sent
	// here at once), so that the cancel lands mid-run however long Slurm
	// takes to deliver it: once, on a loaded machine, scancel arrived only
	// after the task had ended. Slurm's cancel sends SIGCONT with its
	// SIGTERM.
	bundled, err := filepath.Abs("../../dataset/testdata")
	if err != nil {
		t.Fatal(err)
	}
	flags = []string{"--only", "german", "--datasets", bundled}
	ref = filepath.Join(work, "one-process-german")
	if out, err := exec.CommandContext(ctx, bin, append([]string{"paper", "--out", ref}, flags...)...).CombinedOutput(); err != nil {
		t.Fatalf("the single process: %v\n%s", err, out)
	}
	out = filepath.Join(work, "interrupted")
	jobs = c.submit(ctx, out, flags, false)
	const k = 1
	shardFile := filepath.Join(out, fmt.Sprintf("paper-select-%d-of-%d.jsonl", k, tasks))
	expected := shardJobs(countSelect(t, filepath.Join(ref, "paper-runs.jsonl")), k, tasks)
	c.poll(ctx, fmt.Sprintf("select task %d to finish %d of its %d passes", k, max(1, expected/4), expected), 10*time.Millisecond, func() bool {
		return bytes.Count(readIfThere(shardFile), []byte("\n")) >= max(1, expected/4)
	})
	c.freeze(jobs.selection, k)
	c.command(ctx, "scancel", fmt.Sprintf("%s_%d", jobs.selection, k))
	states := c.wait(ctx, jobs.all()...)
	for job, state := range states {
		want := "COMPLETED"
		if job == fmt.Sprintf("%s_%d", jobs.selection, k) || strings.HasPrefix(job, jobs.report+"_") || job == jobs.merge {
			want = "CANCELLED" // the task, and what depended on it
		}
		if state != want {
			t.Errorf("after scancel of select task %d: job %s is %s, want %s", k, job, state, want)
		}
	}
	kept := readIfThere(shardFile)
	kept = kept[:bytes.LastIndexByte(kept, '\n')+1] // a torn last line is cut off by --resume
	done := bytes.Count(kept, []byte("\n"))
	if done == 0 || done >= expected {
		t.Fatalf("the cancelled task had finished %d of its %d passes: it was not interrupted mid-run", done, expected)
	}
	t.Logf("cancelled select task %d after %d of its %d passes", k, done, expected)

	jobs = c.submit(ctx, out, flags, true)
	c.requireCompleted(c.wait(ctx, jobs.all()...))
	compareRuns(t, ctx, bin, ref, out)
	if now := readIfThere(shardFile); !bytes.HasPrefix(now, kept) {
		t.Errorf("the resumed task rewrote the passes it had finished (%d lines)", done)
	}
	taskLog := filepath.Join(out, "logs", fmt.Sprintf("bogd-select-%s_%d.out", jobs.selection, k))
	if want := fmt.Sprintf("ran %d jobs (%d were already done)", expected-done, done); !bytes.Contains(readIfThere(taskLog), []byte(want)) {
		t.Errorf("%s does not say %q:\n%s", taskLog, want, readIfThere(taskLog))
	}
}

// requireSlurm skips the test unless make test-slurm runs it, and, when
// Slurm is not installed, skips loudly or, under .ci/run, fails.
func requireSlurm(t *testing.T) {
	if os.Getenv(runEnv) == "" {
		t.Skipf("starts a Slurm cluster on this machine: run `make test-slurm` (which sets %s)", runEnv)
	}
	for _, p := range slurmPrograms {
		if _, err := exec.LookPath(p); err != nil {
			msg := fmt.Sprintf("%s not found: install Debian's slurm-wlm and munge (apt-get install slurm-wlm munge)", p)
			if os.Getenv(requireEnv) != "" {
				t.Fatalf("%s is set: %s", requireEnv, msg)
			}
			t.Skip("SKIPPED: " + msg)
		}
	}
}

// testContext ends a minute before the test binary's deadline, so that a
// hung job fails the test with its logs and the daemons are stopped.
func testContext(t *testing.T) context.Context {
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(20 * time.Minute)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline.Add(-time.Minute))
	t.Cleanup(cancel)
	return ctx
}

// workDir is a new directory, removed at the end, that every user can
// search: munged insists on that for each directory above its socket,
// which t.TempDir's are not.
func workDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "bogd-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// buildBogdbench builds the command into dir.
func buildBogdbench(t *testing.T, ctx context.Context, dir string) string {
	bin := filepath.Join(dir, "bogdbench")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/bogdbench")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// datasetFlags reads the quick datasets from ../shared/datasets, or, when
// they are absent, the bundled german data alone (as `make demo`).
func datasetFlags(t *testing.T) []string {
	shared, err := filepath.Abs("../../../shared/datasets")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"german", "spambase", "w7a", "magic04"} {
		if _, err := os.Stat(filepath.Join(shared, f+".svm.gz")); err != nil {
			t.Logf("%v: the grid runs on the bundled german data alone", err)
			bundled, err := filepath.Abs("../../dataset/testdata")
			if err != nil {
				t.Fatal(err)
			}
			return []string{"--datasets", bundled, "--only", "german"}
		}
	}
	return []string{"--datasets", shared}
}

// cluster is a single-node Slurm: munged, slurmctld and slurmd, each in
// the foreground, with their configuration, state and logs in dir.
type cluster struct {
	t       *testing.T
	dir     string
	bin     string   // the bogdbench the jobs run
	env     []string // of every Slurm command: this cluster's slurm.conf
	daemons []*daemon
	outs    []string // the output directories of the submitted runs
}

// startCluster starts the daemons and waits for the node to be idle; the
// test's cleanup cancels every job, waits for the jobs to end, and stops
// the daemons, on every exit path (failure, timeout of the test context),
// after showing the logs if the test failed.
func startCluster(t *testing.T, ctx context.Context, work, bin string) *cluster {
	c := &cluster{t: t, dir: filepath.Join(work, "slurm"), bin: bin}
	for _, d := range []string{"munge", "state", "spool"} {
		if err := os.MkdirAll(filepath.Join(c.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(c.stop)
	socket := filepath.Join(c.dir, "munge", "munge.socket")
	key := filepath.Join(c.dir, "munge", "munge.key")
	c.command(ctx, "mungekey", "--create", "--keyfile", key)
	c.start("munged", "munged", "--foreground", "--socket", socket, "--key-file", key,
		"--log-file", c.path("munged.log"), "--pid-file", c.path("munged.pid"), "--seed-file", c.path("munged.seed"))
	c.poll(ctx, "munged's socket", 50*time.Millisecond, func() bool { _, err := os.Stat(socket); return err == nil })

	conf := c.path("slurm.conf")
	if err := os.WriteFile(conf, []byte(c.config(socket)), 0o644); err != nil {
		t.Fatal(err)
	}
	c.env = append(jobEnv(), "SLURM_CONF="+conf, "BOGDBENCH="+bin)
	c.start("slurmctld", "slurmctld", "-D", "-f", conf)
	c.poll(ctx, "slurmctld to answer", 200*time.Millisecond, func() bool {
		out, err := c.output(ctx, "scontrol", "ping")
		return err == nil && strings.Contains(out, "is UP")
	})
	c.start("slurmd", "slurmd", "-D", "-f", conf)
	c.poll(ctx, "the node to be idle", 200*time.Millisecond, func() bool {
		out, err := c.output(ctx, "sinfo", "--noheader", "--Node", "--format", "%T")
		return err == nil && strings.TrimSpace(out) == "idle"
	})
	return c
}

// jobEnv is the test's environment without the variables of a scheduler's
// job (the test may run in one) and of the job scripts.
func jobEnv() []string {
	var env []string
	for _, e := range os.Environ() {
		name, _, _ := strings.Cut(e, "=")
		if !strings.HasPrefix(name, "SLURM_") && !strings.HasPrefix(name, "SBATCH_") &&
			name != "JOB_COMPLETION_INDEX" && name != "BOGD_SHARDS" && name != "BOGDBENCH" {
			env = append(env, e)
		}
	}
	return env
}

func (c *cluster) path(name string) string { return filepath.Join(c.dir, name) }

// config is the slurm.conf of the cluster: this host as controller and
// only node (on free ports, on loopback), no accounting, processes
// tracked by process group, a short grace between SIGTERM and SIGKILL,
// and batch jobs scheduled as soon as they can run (Slurm's default
// batch_sched_delay holds each wave of them up to 3 s: 12 of the 16 s a
// chain of trivial jobs took here, 4 tasks per array on 2 CPUs).
func (c *cluster) config(socket string) string {
	host, err := os.Hostname()
	if err != nil {
		c.t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	me, err := user.Current()
	if err != nil {
		c.t.Fatal(err)
	}
	return fmt.Sprintf(`ClusterName=bogdtest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmUser=%[2]s
SlurmdUser=%[2]s
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=%[5]s
StateSaveLocation=%[6]s/state
SlurmdSpoolDir=%[6]s/spool
SlurmctldPidFile=%[6]s/slurmctld.pid
SlurmdPidFile=%[6]s/slurmd.pid
SlurmctldLogFile=%[6]s/slurmctld.log
SlurmdLogFile=%[6]s/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
KillWait=5
MinJobAge=3600
SlurmdParameters=config_overrides
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[7]d State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, host, me.Username, freePort(c.t), freePort(c.t), socket, c.dir, cpus)
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// daemon is a running daemon; done is closed when it has exited.
type daemon struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error // of Wait, once done
}

func (d *daemon) exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// start runs a daemon in the foreground, its output in dir/name.out; it
// gets SIGTERM should the test process die without its cleanup.
func (c *cluster) start(name, program string, args ...string) {
	out, err := os.Create(c.path(name + ".out"))
	if err != nil {
		c.t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(program, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = c.env, out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("start %s: %v", name, err)
	}
	d := &daemon{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		d.err = cmd.Wait()
		close(d.done)
	}()
	c.daemons = append(c.daemons, d)
}

// output runs a Slurm command of the cluster and returns its output.
func (c *cluster) output(ctx context.Context, program string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", program, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// command runs a command that must succeed.
func (c *cluster) command(ctx context.Context, program string, args ...string) string {
	c.t.Helper()
	out, err := c.output(ctx, program, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

// poll waits until ready, checking every interval, failing with what it
// waited for when the test's time or a daemon runs out.
func (c *cluster) poll(ctx context.Context, what string, interval time.Duration, ready func() bool) {
	c.t.Helper()
	for !ready() {
		for _, d := range c.daemons {
			if d.exited() {
				c.t.Fatalf("waiting for %s: %s has exited (%v)", what, d.name, d.err)
			}
		}
		select {
		case <-ctx.Done():
			c.t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(interval):
		}
	}
}

// chain is the job IDs slurm.sh printed.
type chain struct{ selection, report, merge string }

func (ch chain) all() []string { return []string{ch.selection, ch.report, ch.merge} }

var submitted = regexp.MustCompile(`(?m)^select=(\d+) report=(\d+) merge=(\d+)$`)

// submit runs slurm.sh for `paper FLAGS` into out, with -r if resume.
func (c *cluster) submit(ctx context.Context, out string, flags []string, resume bool) chain {
	c.t.Helper()
	args := []string{"slurm.sh", "-n", fmt.Sprint(tasks), "-c", "1", "-o", out}
	if resume {
		args = append(args, "-r")
	}
	stdout := c.command(ctx, "bash", append(append(args, "paper"), flags...)...)
	m := submitted.FindStringSubmatch(stdout)
	if m == nil {
		c.t.Fatalf("slurm.sh printed no job IDs:\n%s", stdout)
	}
	if !slices.Contains(c.outs, out) {
		c.outs = append(c.outs, out)
	}
	return chain{m[1], m[2], m[3]}
}

var (
	jobLine  = regexp.MustCompile(`(?:^|\s)JobId=(\d+)(?:\s|$)`)
	arrayJob = regexp.MustCompile(`\sArrayJobId=(\d+) ArrayTaskId=(\S+)`)
	jobState = regexp.MustCompile(`\sJobState=(\S+)`)
	reason   = regexp.MustCompile(`\sReason=(\S+)`)
	// States a job leaves no more (squeue(1), JOB STATE CODES).
	terminal = []string{"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}
)

// states returns the state of every job and array task of ids, by name
// (an array task as ID_TASK, pending tasks of an array as ID_[RANGE]),
// and the reason of those pending.
func (c *cluster) states(ctx context.Context, ids ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, id := range ids {
		text, err := c.output(ctx, "scontrol", "show", "job", "--oneliner", id)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
			name := jobLine.FindStringSubmatch(line)
			state := jobState.FindStringSubmatch(line)
			if name == nil || state == nil {
				return nil, fmt.Errorf("scontrol show job %s: cannot read %q", id, line)
			}
			job := name[1]
			if a := arrayJob.FindStringSubmatch(line); a != nil {
				job = a[1] + "_" + a[2]
			}
			out[job] = state[1]
			if r := reason.FindStringSubmatch(line); r != nil && state[1] == "PENDING" && r[1] != "None" {
				out[job] += " (" + r[1] + ")"
			}
		}
	}
	return out, nil
}

// wait waits until every job and task of ids has ended, and returns their
// states.
func (c *cluster) wait(ctx context.Context, ids ...string) map[string]string {
	c.t.Helper()
	var states map[string]string
	c.poll(ctx, "jobs "+strings.Join(ids, ", ")+" to end", 200*time.Millisecond, func() bool {
		var err error
		if states, err = c.states(ctx, ids...); err != nil {
			c.t.Fatal(err)
		}
		for _, s := range states {
			if !slices.Contains(terminal, s) {
				return false
			}
		}
		return true
	})
	return states
}

// requireCompleted fails the test, naming them, unless every job completed.
func (c *cluster) requireCompleted(states map[string]string) {
	c.t.Helper()
	var failed []string
	for _, job := range slices.Sorted(maps.Keys(states)) {
		if states[job] != "COMPLETED" {
			failed = append(failed, job+" "+states[job])
		}
	}
	if len(failed) > 0 {
		c.t.Fatalf("jobs that did not complete: %s (their output is in the logs below)", strings.Join(failed, ", "))
	}
}

var jobTimes = regexp.MustCompile(`\sStartTime=(\S+) EndTime=(\S+)`)

// logSpans logs when each job of the chain ran (Slurm's times are to the
// second): the scheduler's share of the wall time.
func (c *cluster) logSpans(ctx context.Context, ch chain) {
	for _, step := range []struct{ name, id string }{{"select", ch.selection}, {"report", ch.report}, {"merge", ch.merge}} {
		text, err := c.output(ctx, "scontrol", "show", "job", "--oneliner", step.id)
		if err != nil {
			c.t.Error(err)
			return
		}
		var first, last time.Time
		for _, m := range jobTimes.FindAllStringSubmatch(text, -1) {
			s, err1 := time.ParseInLocation("2006-01-02T15:04:05", m[1], time.Local)
			e, err2 := time.ParseInLocation("2006-01-02T15:04:05", m[2], time.Local)
			if err1 != nil || err2 != nil {
				continue
			}
			if first.IsZero() || s.Before(first) {
				first = s
			}
			if e.After(last) {
				last = e
			}
		}
		c.t.Logf("%s: %s to %s (%s)", step.name, first.Format(time.TimeOnly), last.Format(time.TimeOnly), last.Sub(first))
	}
}

// stop cancels every job, waits for the jobs' processes to end, and stops
// the daemons (SIGTERM, then SIGKILL); a failed test shows the logs first.
func (c *cluster) stop() {
	if c.t.Failed() {
		c.showLogs()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if len(c.daemons) >= 2 && !c.daemons[1].exited() { // slurmctld answers
		if _, err := c.output(ctx, "scancel", "--user", currentUser(c.t)); err != nil {
			c.t.Logf("cleanup: %v", err)
		}
		for ctx.Err() == nil {
			out, err := c.output(ctx, "squeue", "--noheader")
			if err != nil || strings.TrimSpace(out) == "" {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	c.killStrays()
	for i := len(c.daemons) - 1; i >= 0; i-- {
		d := c.daemons[i]
		d.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.done:
		case <-time.After(10 * time.Second):
			c.t.Logf("cleanup: %s ignored SIGTERM for 10 s: killing it", d.name)
			d.cmd.Process.Kill()
			<-d.done
		}
	}
}

// killStrays kills any process still running the test's bogdbench (a job
// the cleanup could not cancel).
func (c *cluster) killStrays() {
	for _, pid := range c.processes() {
		c.t.Logf("cleanup: killing process %d, still running %s", pid, c.bin)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// processes lists the processes running the test's bogdbench, found by
// their executable.
func (c *cluster) processes() []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/exe")
	for _, p := range procs {
		if exe, err := os.Readlink(p); err == nil && exe == c.bin {
			var pid int
			fmt.Sscanf(p, "/proc/%d/exe", &pid)
			pids = append(pids, pid)
		}
	}
	return pids
}

// freeze sends SIGSTOP to the bogdbench of task k of the job array, found
// by the array job and task IDs Slurm put in its environment.
func (c *cluster) freeze(array string, k int) {
	c.t.Helper()
	want := []string{"SLURM_ARRAY_JOB_ID=" + array, fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", k)}
	for _, pid := range c.processes() {
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue // it has ended
		}
		vars := strings.Split(string(environ), "\x00")
		if slices.Contains(vars, want[0]) && slices.Contains(vars, want[1]) {
			if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
				c.t.Fatalf("stopping task %s_%d (process %d): %v", array, k, pid, err)
			}
			return
		}
	}
	c.t.Fatalf("task %s_%d: no process of %s has %s in its environment", array, k, c.bin, strings.Join(want, " "))
}

func currentUser(t *testing.T) string {
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return me.Username
}

// showLogs logs the daemons' logs and the jobs' output.
func (c *cluster) showLogs() {
	files := []string{c.path("munged.log"), c.path("munged.out"), c.path("slurmctld.log"), c.path("slurmctld.out"), c.path("slurmd.log"), c.path("slurmd.out")}
	for _, out := range c.outs {
		logs, _ := filepath.Glob(filepath.Join(out, "logs", "*.out"))
		files = append(files, logs...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > 60 {
			lines = append([]string{fmt.Sprintf("[... %d lines]", len(lines)-60)}, lines[len(lines)-60:]...)
		}
		c.t.Logf("==> %s <==\n%s", f, strings.Join(lines, "\n"))
	}
}

func readIfThere(path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		panic(err)
	}
	return data
}

// countSelect counts the selection records of a results file.
func countSelect(t *testing.T, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte(`"stream":"select"`))
}

// shardJobs is the number of jobs of shard k of n in a list of total:
// those whose index is k mod n.
func shardJobs(total, k, n int) int { return (total - k + n - 1) / n }

var (
	secondsField = regexp.MustCompile(`"seconds":[^,}]*`)
	timingLine   = regexp.MustCompile(`^- \*\*Timing\*\*: .*? \(--workers\)`)
)

// compareRuns compares the output of a run on Slurm (out) with that of
// one process (ref), field by field and byte for byte apart from what a
// clock measured:
//   - the records (paper-runs.jsonl, both sorted as `merge` writes them):
//     every byte but the value of "seconds";
//   - paper.md: every line, except the "Generated by" line (its command
//     line and date), the parallelism named in the Timing line (the
//     tables step's --workers), and the measured part of every cell
//     under a "Time (s)" header (the paper's time beside it stays);
//   - the plots: every file byte for byte, except the mistake rate
//     against time (DATASET-time.png, .svg), which must exist.
func compareRuns(t *testing.T, ctx context.Context, bin, ref, out string) {
	t.Helper()
	sorted := filepath.Join(t.TempDir(), "one-process.jsonl")
	if msg, err := exec.CommandContext(ctx, bin, "merge", "--out", sorted, filepath.Join(ref, "paper-runs.jsonl")).CombinedOutput(); err != nil {
		t.Fatalf("merge: %v\n%s", err, msg)
	}
	mask := func(path string) string {
		return secondsField.ReplaceAllString(string(readIfThere(path)), `"seconds":_`)
	}
	sameLines(t, "paper-runs.jsonl", mask(filepath.Join(out, "paper-runs.jsonl")), mask(sorted))
	sameLines(t, "paper.md", maskReport(readIfThere(filepath.Join(out, "paper.md"))), maskReport(readIfThere(filepath.Join(ref, "paper.md"))))

	plots, _ := filepath.Glob(filepath.Join(ref, "plots", "*"))
	if len(plots) == 0 {
		t.Errorf("no plots in %s", ref)
	}
	for _, p := range plots {
		got, err := os.ReadFile(filepath.Join(out, "plots", filepath.Base(p)))
		switch {
		case err != nil:
			t.Errorf("plot %s: %v", filepath.Base(p), err)
		case !strings.Contains(p, "-time.") && !bytes.Equal(got, readIfThere(p)):
			t.Errorf("plot %s differs from one process's", filepath.Base(p))
		}
	}
}

// maskReport masks the measured parts of paper.md (see compareRuns).
func maskReport(md []byte) string {
	lines := strings.Split(string(md), "\n")
	var timeColumns []int // of the table being read; nil outside a table
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "Generated by `"):
			lines[i] = "Generated by _"
		case timingLine.MatchString(l):
			lines[i] = timingLine.ReplaceAllString(l, "- **Timing**: _ (--workers)")
		case strings.HasPrefix(l, "|") && timeColumns == nil:
			timeColumns = []int{}
			for j, cell := range strings.Split(l, "|") {
				if strings.TrimSpace(cell) == "Time (s)" {
					timeColumns = append(timeColumns, j)
				}
			}
		case strings.HasPrefix(l, "|"):
			cells := strings.Split(l, "|")
			for _, j := range timeColumns {
				if k := strings.Index(cells[j], " ("); k >= 0 {
					cells[j] = " _" + cells[j][k:]
				}
			}
			lines[i] = strings.Join(cells, "|")
		default:
			timeColumns = nil
		}
	}
	return strings.Join(lines, "\n")
}

// sameLines reports the first line where got and want differ.
func sameLines(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		gl, wl := "(none)", "(none)"
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Errorf("%s differs from one process's at line %d (of %d and %d):\n  Slurm:       %s\n  one process: %s", what, i+1, len(g), len(w), gl, wl)
			return
		}
	}
}

// The comparison of reports hides what a clock measured, and only that.
func TestMaskReport(t *testing.T) {
	const report = "# Title\n\n" +
		"Generated by `bogdbench paper --quick` on 2026-11-23 21:01 UTC. Raw runs: `paper-runs.jsonl`.\n\n" +
		"- **Timing**: 2 passes ran in parallel (--workers) on AMD EPYC, 2 logical cores, SIMD avx512; the paper's times are C++.\n\n" +
		"| Algorithm | B=100: Mistake (%) | Time (s) |\n|---|---|---|\n| RBP | 38.340 ± 0.764 (38.060, +0.280) | 0.00030 (0.0320) |\n\n" +
		"| Cell | ours | paper |\n|---|---|---|\n| german/rbp | 0.5 (1) | 2 |\n"
	masked := maskReport([]byte(report))
	for _, c := range []struct{ old, new string }{
		{"on 2026-11-23 21:01 UTC", "on 2026-11-24 08:00 UTC"},
		{"paper --quick`", "paper --quick --phase tables --out x`"},
		{"2 passes ran in parallel", "1 pass ran at a time"},
		{"| 0.00030 (0.0320) |", "| 0.00099 (0.0320) |"},
	} {
		if got := maskReport([]byte(strings.Replace(report, c.old, c.new, 1))); got != masked {
			t.Errorf("%q for %q shows through the mask:\n%s", c.new, c.old, got)
		}
	}
	for _, c := range []struct{ old, new string }{
		{"38.340 ±", "38.341 ±"},
		{"(0.0320)", "(0.0330)"},
		{"SIMD avx512", "SIMD avx2"},
		{"| 0.5 (1) |", "| 0.6 (1) |"},
	} {
		if got := maskReport([]byte(strings.Replace(report, c.old, c.new, 1))); got == masked {
			t.Errorf("%q for %q is masked", c.new, c.old)
		}
	}
}
