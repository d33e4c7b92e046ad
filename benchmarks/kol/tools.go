package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bogd-project/bogd/experiment"
)

// inputs are what every round runs on: the two tools, the rows in their
// order and the run-independent parameters.
type inputs struct {
	work           string // the temporary directory of the files below
	bogdbench, kol string
	text           string // the rows in their order, which both tools learn
	order          string // file order, for bogdbench --order
	kolCache       string // KOL's binary cache of text
	rows, dim      int
	cpuPasses      int    // the extra passes that measure bogdbench's CPU time
	lambda         string // 1/T², as both tools are given it
	gamma          string // KOL's -gamma for σ
	machine        machine
}

// prepare writes the rows in their order, and bogdbench's order of them,
// into work, builds bogdbench there, lets KOL make its binary cache of the
// rows and measures the machine.
func prepare(ctx context.Context, o options, work string, logf func(string, ...any)) (*inputs, error) {
	in := &inputs{
		work: work, kol: o.kol,
		text:      filepath.Join(work, "rows.svm"),
		order:     filepath.Join(work, "order.txt"),
		kolCache:  filepath.Join(work, "rows.kolcache"),
		bogdbench: filepath.Join(work, "bogdbench"),
		gamma:     strconv.FormatFloat(1/(2*sigma*sigma), 'g', -1, 64),
		cpuPasses: o.cpuPasses,
	}
	lines, err := readRows(o.data)
	if err != nil {
		return nil, err
	}
	in.rows = len(lines)
	in.dim = maxIndex(lines)
	in.lambda = strconv.FormatFloat(1/(float64(in.rows)*float64(in.rows)), 'g', -1, 64)
	if err := writeOrdered(in.text, in.order, 1+in.cpuPasses, lines, experiment.Permutation(o.seed, 0, in.rows)); err != nil {
		return nil, err
	}
	logf("%s: %d rows written in the order experiment.Permutation(%d, 0, n)", o.data, in.rows, o.seed)

	build := exec.CommandContext(ctx, "go", "build", "-o", in.bogdbench, "./cmd/bogdbench")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/bogdbench: %w\n%s", err, out)
	}
	// KOL writes its cache while it learns from the text file; a FOGD with
	// one feature pair learns next to nothing.
	mk := append([]string{"-i", in.text, "-c", in.kolCache, "-loss", "Hinge", "-gamma", in.gamma}, "-opt", "kernel-fogd", "-D", "1")
	if _, err := in.runKOL(ctx, mk); err != nil {
		return nil, fmt.Errorf("making KOL's cache: %w", err)
	}
	if in.machine, err = measureMachine(ctx, in.bogdbench, in.kol); err != nil {
		return nil, err
	}
	logf("bogdbench %s, KOL %s; FP32 peak %s", in.machine.ours, in.machine.kolSHA, in.machine.peak)
	return in, nil
}

// readRows returns the data rows of a LIBSVM file (plain or gzip) as KOL
// reads them: comments cut, blank lines dropped (bogdbench reads the same
// rows). KOL's labels are ±1, so any other label is an error.
func readRows(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<26)
	var rows [][]byte
	for line := 1; sc.Scan(); line++ {
		row := sc.Bytes()
		if k := bytes.IndexByte(row, '#'); k >= 0 {
			row = row[:k]
		}
		row = bytes.TrimSpace(row)
		if len(row) == 0 {
			continue
		}
		label, _, _ := bytes.Cut(row, []byte(" "))
		if l, _, _ := bytes.Cut(label, []byte("\t")); !isSignLabel(string(l)) {
			return nil, fmt.Errorf("%s:%d: label %q: KOL's binary learners need labels +1 and -1", path, line, l)
		}
		rows = append(rows, bytes.Clone(row))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no rows", path)
	}
	return rows, nil
}

func isSignLabel(s string) bool {
	switch s {
	case "1", "+1", "-1", "1.0", "+1.0", "-1.0":
		return true
	}
	return false
}

// maxIndex is the largest feature index of the rows, their dimension.
func maxIndex(rows [][]byte) int {
	d := 0
	for _, row := range rows {
		for _, f := range bytes.Fields(row)[1:] {
			idx, _, _ := bytes.Cut(f, []byte(":"))
			if i, err := strconv.Atoi(string(idx)); err == nil {
				d = max(d, i)
			}
		}
	}
	return d
}

// writeOrdered writes rows[perm[0]], rows[perm[1]], … to text, and to
// order the file order 1, 2, …, n as many times as bogdbench's passes
// need (its --order format): both tools then stream through the same rows
// in the same order (bogdbench run's own permutations would read them at
// random places in memory).
func writeOrdered(text, order string, passes int, rows [][]byte, perm []int) error {
	var t, o bytes.Buffer
	for k, i := range perm {
		t.Write(rows[i])
		t.WriteByte('\n')
		if k > 0 {
			o.WriteByte(',')
		}
		o.WriteString(strconv.Itoa(k + 1))
	}
	o.WriteByte('\n')
	return errors.Join(os.WriteFile(text, t.Bytes(), 0o644), os.WriteFile(order, bytes.Repeat(o.Bytes(), passes), 0o644))
}

// record is one timed run of one tool, a line of NAME-runs.jsonl.
type record struct {
	Cell           string  `json:"cell"`
	Round          int     `json:"round"`
	Tool           string  `json:"tool"`      // bogdbench or KOL
	Algorithm      string  `json:"algorithm"` // as the tool names it
	Seconds        float64 `json:"seconds"`   // the tool's own timer
	Rows           int     `json:"rows"`
	Mistakes       int     `json:"mistakes"`
	MistakeRate    float64 `json:"mistake_rate"` // %
	SupportVectors float64 `json:"support_vectors"`
	SIMD           string  `json:"simd,omitempty"`
	Load1          float64 `json:"load1"` // the 1-minute load average as the run started
	// ProcessCPU is the user and system time of the tool's whole process:
	// for KOL its learning, its loader thread and its start; for bogdbench
	// (one pass) also reading and parsing the text file.
	ProcessCPU float64 `json:"process_cpu_seconds"`
	PassCPU    float64 `json:"pass_cpu_seconds,omitempty"` // bogdbench: a pass's thread, see runOurs
}

// round runs cell c once with each tool, bogdbench first.
func (in *inputs) round(ctx context.Context, c cell, r int) ([]record, error) {
	var recs []record
	for _, algo := range c.Ours {
		load := loadAverage()
		rec, err := in.runOurs(ctx, c, algo)
		if err != nil {
			return nil, err
		}
		rec.Cell, rec.Round, rec.Load1 = c.Name, r, load
		recs = append(recs, rec)
	}
	load := loadAverage()
	rec, err := in.runKOL(ctx, in.kolArgs(c))
	if err != nil {
		return nil, err
	}
	rec.Cell, rec.Round, rec.Load1 = c.Name, r, load
	return append(recs, rec), nil
}

// oursArgs are the bogdbench command line of algorithm algo of cell c,
// over runs passes.
func (in *inputs) oursArgs(c cell, algo string, runs int) []string {
	args := []string{"run", "--data", in.text, "--order", in.order, "--runs", strconv.Itoa(runs), "--task", "binary", "--scale", "none",
		"--sigma", strconv.FormatFloat(sigma, 'g', -1, 64), "--format", "json", "--algo", algo}
	return append(args, in.fill(c.OursArgs)...)
}

// kolArgs are the KOL command line of cell c.
func (in *inputs) kolArgs(c cell) []string {
	args := []string{"-c", in.kolCache, "-loss", "Hinge", "-gamma", in.gamma}
	return append(args, in.fill(c.KOLArgs)...)
}

// fill puts the data's λ in place of its placeholder.
func (in *inputs) fill(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == lambdaT {
			a = in.lambda
		}
		out[i] = a
	}
	return out
}

// oursRow is the part of a `bogdbench run --format json` row read here.
type oursRow struct {
	Algorithm      string   `json:"algorithm"`
	MistakeRate    *float64 `json:"mistake_rate_mean"`
	SupportVectors float64  `json:"support_vectors_mean"`
	Seconds        float64  `json:"seconds_mean"`
	CPUSeconds     float64  `json:"cpu_seconds_mean"`
	SIMD           string   `json:"simd"`
	Trivial        bool     `json:"trivial"` // the trivial predictor's row, beside the learner's
}

// runOurs runs bogdbench's algo on cell c twice: one pass, whose time and
// mistakes are the record's, then 1 + cpuPasses passes, whose mean CPU
// time of the thread that ran each pass (cpu_seconds_mean) is PassCPU: a
// pass's CPU time without reading the data, its order or the trivial
// predictor's pass beside it, which other work on the machine inflates far
// less than the wall clock.
func (in *inputs) runOurs(ctx context.Context, c cell, algo string) (record, error) {
	one, cpu1, err := in.ours(ctx, c, algo, 1)
	if err != nil {
		return record{}, err
	}
	many, _, err := in.ours(ctx, c, algo, 1+in.cpuPasses)
	if err != nil {
		return record{}, err
	}
	if many.CPUSeconds <= 0 {
		return record{}, fmt.Errorf("bogdbench %s: no CPU time of its passes (this system does not tell a thread's)", algo)
	}
	return record{
		Tool: "bogdbench", Algorithm: algo, Seconds: one.Seconds, Rows: in.rows,
		Mistakes:    int(math.Round(*one.MistakeRate * float64(in.rows) / 100)),
		MistakeRate: *one.MistakeRate, SupportVectors: one.SupportVectors, SIMD: one.SIMD,
		ProcessCPU: cpu1, PassCPU: many.CPUSeconds,
	}, nil
}

// ours runs bogdbench's algo on cell c over runs passes and returns its
// row and the process's CPU time.
func (in *inputs) ours(ctx context.Context, c cell, algo string, runs int) (oursRow, float64, error) {
	args := in.oursArgs(c, algo, runs)
	out, cpu, err := command(ctx, in.bogdbench, args)
	if err != nil {
		return oursRow{}, 0, err
	}
	var rows []oursRow
	if err := json.Unmarshal(out, &rows); err != nil {
		return oursRow{}, 0, fmt.Errorf("bogdbench %s: its output: %w", strings.Join(args, " "), err)
	}
	rows = slices.DeleteFunc(rows, func(r oursRow) bool { return r.Trivial })
	if len(rows) != 1 || rows[0].Algorithm != algo || rows[0].MistakeRate == nil {
		return oursRow{}, 0, fmt.Errorf("bogdbench %s: want one row of %s with a mistake rate, got %+v", strings.Join(args, " "), algo, rows)
	}
	return rows[0], cpu, nil
}

// runKOL runs KOL with args and reads what it printed.
func (in *inputs) runKOL(ctx context.Context, args []string) (record, error) {
	out, cpu, err := command(ctx, in.kol, args)
	if err != nil {
		return record{}, err
	}
	rec, err := parseKOL(out)
	if err != nil {
		return record{}, fmt.Errorf("KOL %s: %w", strings.Join(args, " "), err)
	}
	// KOL's NOGD restarts the row counter it prints at its transition (its
	// mistake rate is still over all rows), so it can only be checked
	// against the data's length from above.
	if rec.Rows != in.rows && (rec.Algorithm != "kernel_nogd" || rec.Rows > in.rows) {
		return record{}, fmt.Errorf("KOL %s: learnt %d rows, the data have %d", strings.Join(args, " "), rec.Rows, in.rows)
	}
	rec.Rows, rec.ProcessCPU = in.rows, cpu
	rec.Mistakes = int(math.Round(rec.MistakeRate * float64(in.rows) / 100))
	return rec, nil
}

var (
	kolAlgorithm = regexp.MustCompile(`(?m)^Algorithm: (\S+)`)
	kolRows      = regexp.MustCompile(`#Training Instances:\s*(\d+)`)
	kolAccuracy  = regexp.MustCompile(`Learn acuracy: ([0-9.]+)%`) // sic
	kolSVs       = regexp.MustCompile(`#SV:\s*(\d+)`)
	kolTime      = regexp.MustCompile(`Learning time: ([0-9.]+) s`)
)

// parseKOL reads KOL's report of one learning pass: Rows is the count it
// prints. KOL prints the online accuracy (1 − mistakes/n)·100 of a float32
// with 6 decimals, which gives the mistakes to within a row while n < 2²².
func parseKOL(out []byte) (record, error) {
	find := func(re *regexp.Regexp, what string) (string, error) {
		m := re.FindSubmatch(out)
		if m == nil {
			return "", fmt.Errorf("no %s in its output:\n%s", what, tail(out))
		}
		return string(m[1]), nil
	}
	var fields [5]string
	for i, f := range []struct {
		re   *regexp.Regexp
		what string
	}{{kolAlgorithm, "algorithm"}, {kolRows, "#Training Instances"}, {kolAccuracy, "Learn acuracy"}, {kolSVs, "#SV"}, {kolTime, "Learning time"}} {
		v, err := find(f.re, f.what)
		if err != nil {
			return record{}, err
		}
		fields[i] = v
	}
	rows, err1 := strconv.Atoi(fields[1])
	acc, err2 := strconv.ParseFloat(fields[2], 64)
	svs, err3 := strconv.Atoi(fields[3])
	secs, err4 := strconv.ParseFloat(fields[4], 64)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return record{}, fmt.Errorf("reading its output: %w", err)
	}
	return record{
		Tool: "KOL", Algorithm: fields[0], Seconds: secs, Rows: rows, MistakeRate: 100 - acc, SupportVectors: float64(svs),
	}, nil
}

// command runs name with args and returns its standard output and the
// CPU time (user and system) the process used; a failure names the
// command and shows the end of what it wrote.
func command(ctx context.Context, name string, args []string) ([]byte, float64, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, 0, fmt.Errorf("interrupted: %w", ctx.Err())
		}
		return nil, 0, fmt.Errorf("%s %s: %w\n%s%s", name, strings.Join(args, " "), err, tail(stdout.Bytes()), tail(stderr.Bytes()))
	}
	return stdout.Bytes(), (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds(), nil
}

// tail is the end of a command's output, for error messages.
func tail(b []byte) []byte {
	const keep = 2000
	if len(b) > keep {
		b = b[len(b)-keep:]
	}
	return b
}

// loadAverage is the 1-minute load average (0 where /proc has none).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _, _ := strings.Cut(string(b), " ")
	v, _ := strconv.ParseFloat(f, 64)
	return v
}

// machine is what the report says about where and with what it ran.
type machine struct {
	cpu    string // model, family, model number, cores
	peak   string // bogdbench kernels' measured peak per implementation
	ours   string // commit of the repository, and whether it has changes
	goVer  string
	kolSHA string // of KOL's binary
}

func measureMachine(ctx context.Context, bogdbench, kol string) (machine, error) {
	var m machine
	m.cpu = cpuModel()
	out, _, err := command(ctx, bogdbench, []string{"kernels", "--quick"})
	if err != nil {
		return m, err
	}
	if m.peak, err = parsePeak(out); err != nil {
		return m, fmt.Errorf("bogdbench kernels --quick: %w", err)
	}
	m.ours = ourCommit()
	if v, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		m.goVer = strings.TrimSpace(string(v))
	}
	b, err := os.ReadFile(kol)
	if err != nil {
		return m, err
	}
	sum := sha256.Sum256(b)
	m.kolSHA = "sha256 " + hex.EncodeToString(sum[:8])
	return m, nil
}

var peakLine = regexp.MustCompile(`(?m)^peak GFLOP/s.*one core: (.+)$`)

// parsePeak returns the per-implementation peak of `bogdbench kernels`'
// closing line, e.g. "generic 9.4 avx2 118.2 avx512 115.8".
func parsePeak(out []byte) (string, error) {
	m := peakLine.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("no peak GFLOP/s line in its output:\n%s", tail(out))
	}
	return strings.TrimSpace(string(m[1])), nil
}

// cpuModel describes the first CPU of /proc/cpuinfo: model name, family,
// model, stepping, and the number of logical cores.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown (no /proc/cpuinfo)"
	}
	fields := map[string]string{}
	cores := 0
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "processor" {
			cores++
		}
		if _, seen := fields[k]; !seen {
			fields[k] = v
		}
	}
	return fmt.Sprintf("%s, family %s, model %s, stepping %s, %d logical cores",
		fields["model name"], fields["cpu family"], fields["model"], fields["stepping"], cores)
}

// ourCommit is the repository's HEAD, marked when the tracked files that
// make bogdbench (Go source, assembly, the module files) differ from it.
func ourCommit() string {
	head, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown (no git)"
	}
	c := strings.TrimSpace(string(head))
	diff := exec.Command("git", "diff", "--quiet", "HEAD", "--", "*.go", "*.s", "go.mod", "go.sum")
	if diff.Run() != nil {
		c += " with uncommitted changes to its code"
	}
	return c
}
