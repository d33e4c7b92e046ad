package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
)

// startBench starts bin with args, its standard input (when stdin) and
// error output piped; the process is killed at the end of the test.
func startBench(t *testing.T, bin string, stdin bool, args ...string) (*exec.Cmd, io.WriteCloser, io.Reader) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var in io.WriteCloser
	var err error
	if stdin {
		if in, err = cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, in, stderr
}

// generator writes LIBSVM rows into w until it fails (the reader is gone).
func generator(w io.WriteCloser) {
	bw := bufio.NewWriterSize(w, 1<<16)
	for i := 0; ; i++ {
		x := float64(i%97) / 97
		if _, err := fmt.Fprintf(bw, "%d 1:%.4f 2:%.4f 3:%.4f\n", 1-2*(i%2), x, 1-x, float64(i%13)/13); err != nil {
			break
		}
	}
	w.Close()
}

// peakRSS returns the peak resident memory of a process in KiB (VmHWM).
func peakRSS(t *testing.T, pid int) int {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status)
	if m == nil {
		t.Fatalf("no VmHWM in /proc/%d/status", pid)
	}
	kb, _ := strconv.Atoi(string(m[1]))
	return kb
}

// TestTrainEndlessStream: an endless generator piped into train --data -
// is learnt with progress, in resident memory that does not grow with the
// rows, until SIGINT, which ends the stream there and saves the learner.
func TestTrainEndlessStream(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary on a stream of a million rows")
	}
	dir := t.TempDir()
	bin := buildBench(t)
	model := filepath.Join(dir, "stream.bogd")
	cmd, stdin, stderr := startBench(t, bin, true, "train", "--data", "-", "--algo", "bogd++", "--task", "binary", "--dim", "3", "--lambda", "0", "--budget", "50", "--save", model)
	go generator(stdin)
	var log bytes.Buffer
	lines := bufio.NewScanner(io.TeeReader(stderr, &log))
	progress := regexp.MustCompile(`^\s+(\d+)\s+1\s`)
	var early, late int // peak RSS at 2^16 and 2^20 examples
	for lines.Scan() {
		m := progress.FindStringSubmatch(lines.Text())
		if m == nil {
			continue
		}
		switch m[1] {
		case "65536":
			early = peakRSS(t, cmd.Process.Pid)
		case "1048576":
			late = peakRSS(t, cmd.Process.Pid)
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
		}
		if late > 0 {
			break
		}
	}
	io.Copy(io.Discard, io.TeeReader(stderr, &log))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("train still runs a minute after SIGINT:\n%s", log.String())
	}
	if err != nil || late == 0 {
		t.Fatalf("train: %v (peak RSS %d KiB at 2^20 examples)\n%s", err, late, log.String())
	}
	if late > early+8192 {
		t.Errorf("the peak resident memory grew from %d KiB at 65,536 examples to %d KiB at 1,048,576", early, late)
	}
	for _, want := range []string{"a stream of rows of 3 features", "the stream ends there", "saved the bogd++ learner"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, log.String())
		}
	}
	l, err := bogd.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if l.SupportVectors() != 50 {
		t.Errorf("the saved learner holds %d support vectors", l.SupportVectors())
	}
}

// TestTrainStreamHeld: a stream that needs every row (--task auto, --sigma
// auto, 1/T^2) is held within --max-rows, and past it the error names the
// line and says what learns it as a stream; given those, it is learnt as
// it comes, exactly as the same rows from a file.
func TestTrainStreamHeld(t *testing.T) {
	dir := t.TempDir()
	rows := "1 1:0.5 2:1\n-1 1:1 3:0.5\n1 2:0.25\n-1 1:0.75 3:1\n"
	code, _, stderr := benchStdin(t, rows, "train", "--data", "-", "--algo", "bogd++", "--max-rows", "3")
	if code == 0 || !strings.Contains(stderr, "<stdin>:4: more than 3 rows") || !strings.Contains(stderr, "--task binary or regression") || !strings.Contains(stderr, "--lambda") {
		t.Errorf("a stream over --max-rows: exit %d, %s", code, stderr)
	}
	file := filepath.Join(dir, "rows.svm")
	if err := os.WriteFile(file, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"train", "--task", "binary", "--dim", "3", "--lambda", "1e-3", "--budget", "2", "--algo", "bogd"}
	streamed, fromFile := filepath.Join(dir, "s.bogd"), filepath.Join(dir, "f.bogd")
	if code, _, stderr := benchStdin(t, rows, append(args, "--data", "-", "--max-rows", "1", "--save", streamed)...); code != 0 {
		t.Fatalf("the stream, learnt as it comes beyond --max-rows: %s", stderr)
	}
	if code, _, stderr := bench(t, append(args, "--data", file, "--max-rows", "1", "--save", fromFile)...); code != 0 {
		t.Fatalf("the file, read again for each pass beyond --max-rows: %s", stderr)
	}
	if !bytes.Equal(readFile(t, streamed), readFile(t, fromFile)) {
		t.Error("the stream and the file give different models")
	}
}

// TestTrainDenseIndexLimit: with dense storage, a feature index beyond what
// the budget's vectors hold within the memory a model may claim is an
// error at its line (a two-line file with index 2^26 once reserved 30 GB).
func TestTrainDenseIndexLimit(t *testing.T) {
	file := filepath.Join(t.TempDir(), "wide.svm")
	if err := os.WriteFile(file, []byte("1 1:1\n-1 67108864:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	limit := denseIndexLimit(bogd.BOGDpp, 100)
	if limit < 1<<20 || limit >= 1<<24 || bogd.Memory(bogd.BOGDpp, bogd.Config{Dim: limit + 1, Budget: 100, Storage: engine.DenseStorage}, 0) <= bogd.DefaultMaxMemory {
		t.Fatalf("dense limit %d at budget 100", limit)
	}
	code, _, stderr := bench(t, "train", "--data", file, "--algo", "bogd++", "--storage", "dense")
	if want := fmt.Sprintf("wide.svm:2: feature index \"67108864\" too large (limit %d)", limit); code == 0 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, %s; want %q", code, stderr, want)
	}
	if code, _, stderr := bench(t, "train", "--data", file, "--algo", "bogd++", "-q"); code != 0 {
		t.Errorf("auto storage (sparse at this dimension): %s", stderr)
	}
}

// TestModelNotRegular: a model that is not a regular file is refused
// before it is read (--model /dev/zero once read without end).
func TestModelNotRegular(t *testing.T) {
	for _, args := range [][]string{
		{"predict", "--model", "/dev/zero", "--data", germanPath},
		{"train", "--model", "/dev/zero", "--data", germanPath},
	} {
		if code, _, stderr := bench(t, args...); code == 0 || !strings.Contains(stderr, "/dev/zero: not a regular file") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}

// TestTuneInterruptedKeepsItsPasses: tune stopped by SIGINT says where the
// passes it finished are, and they are there: --results FILE --resume
// continues them (it once named a temporary file it had just removed).
func TestTuneInterruptedKeepsItsPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBench(t)
	args := []string{"tune", "--data", germanPath, "--algo", "projectron++", "--budget", "400", "--sigma", "1,2,4,8,16,32,64,128", "--select-runs", "3", "--runs", "2"}
	cmd, _, stderr := startBench(t, bin, false, args...)
	var log bytes.Buffer
	lines := bufio.NewScanner(io.TeeReader(stderr, &log))
	for lines.Scan() {
		if strings.Contains(lines.Text(), "select: 24 jobs to run") {
			time.Sleep(200 * time.Millisecond)
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	io.Copy(io.Discard, io.TeeReader(stderr, &log))
	if err := cmd.Wait(); err == nil {
		t.Fatalf("an interrupted tune exits 0:\n%s", log.String())
	}
	m := regexp.MustCompile(`saved in (\S+) \(kept: continue with --results (\S+) --resume\)`).FindStringSubmatch(log.String())
	if m == nil || m[1] != m[2] {
		t.Fatalf("no path of the kept passes in:\n%s", log.String())
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(m[1])) })
	kept := readFile(t, m[1])
	finished := bytes.Count(kept, []byte("\n"))
	code, _, out := bench(t, append(args, "--results", m[1], "--resume")...)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("select: %d jobs to run, %d already in the results", 24-finished, finished)) {
		t.Errorf("resuming from the kept passes (%d): exit %d\n%s", finished, code, out)
	}
}
