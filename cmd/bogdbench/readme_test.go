package main

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bogd-project/bogd/simd"
)

// The documents whose examples TestREADME runs, from the repository root.
var readmes = []string{"README.md", "benchmarks/README.md"}

// readmeSIMD is the implementation whose outputs the documents show: the
// others round scores and probabilities in their last digits otherwise.
const readmeSIMD = simd.AVX512

var update = flag.Bool("update", false, "TestREADME: rewrite the outputs of the README examples that fail with this build's")

// runMainEnv set to 1 makes the test binary run as bogdbench (TestMain):
// the README's examples run it as the command they show.
const runMainEnv = "BOGDBENCH_TEST_RUN_MAIN"

// TestREADME runs every example of README.md and benchmarks/README.md
// whose output is shown — in a fenced block, a line "$ command" followed
// by the lines it prints — with this build, and compares the output, so
// that no shown output goes stale. The rules, for whoever writes one:
//
//   - A document's examples run in document order in one fresh directory,
//     so that later ones see the files earlier ones wrote, with the
//     repository's dataset/ and ../shared beside them as in a checkout.
//     An example that names a file of ../shared that is absent is skipped
//     with the rest of its block, saying which file.
//   - "bogdbench" is this build: the test binary run again as the command,
//     a process whose stdout and stderr interleave as on a terminal. head,
//     cat, zcat and curl are small stand-ins (see readmeTools); a pipeline
//     (|) runs its stages in turn. A command ending in & runs in the
//     background until the document's examples end and shows no output;
//     a loopback HOST:PORT in it listens on a free port instead, and the
//     same HOST:PORT (localhost or 127.0.0.1) in later commands addresses
//     that port. A command must exit 0.
//   - A line "..." stands for any number of lines, "..." in a line for any
//     text.
//   - Times and speeds are not compared: a number followed by a unit of
//     time or by /s ("0.000943 s", "1059979/s", "12ms"), and, in a table (a
//     heading of columns separated by two or more spaces, then the lines
//     with as many columns, up to a blank line), the column whose heading
//     names a time or speed (it ends in /s or begins with "seconds" or
//     "time"). The rows of such a table are compared column by column, so
//     that their padding may change.
//   - The outputs are those of the avx512 kernels (readmeSIMD). With
//     another implementation the examples run, and must succeed, but
//     their outputs are not compared: the differences are logged.
//
// go test ./cmd/bogdbench -run TestREADME -update rewrites the output of
// each failing example: the lines that match stay as they are, the others
// become this build's (a line with an inline "..." that no longer matches
// is written out in full), and a "..." line stays where it still stands
// for some lines.
func TestREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example of the documents, tunes included (minutes under the race detector): not with -short")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	compared := simd.Active() == readmeSIMD
	if !compared {
		if *update {
			t.Fatalf("-update writes the %v kernels' outputs, and this build runs %v", readmeSIMD, simd.Active())
		}
		t.Logf("the documents show the %v kernels' outputs, and this build runs %v: the examples run, their outputs are not compared", readmeSIMD, simd.Active())
	}
	for _, name := range readmes {
		t.Run(strings.ReplaceAll(name, "/", "-"), func(t *testing.T) {
			path := filepath.Join("..", "..", filepath.FromSlash(name))
			doc, err := readDoc(path)
			if err != nil {
				t.Fatal(err)
			}
			s := newSession(t, self)
			outputs := map[int][]string{} // by example: the lines an update writes
			skipped := map[int]string{}   // by block: why its examples are skipped
			for i, ex := range doc.examples {
				t.Run(strconv.Itoa(ex.line), func(t *testing.T) {
					if why, ok := skipped[ex.block]; ok {
						t.Skip(why)
					}
					if missing := s.missingShared(ex.command); missing != "" {
						skipped[ex.block] = fmt.Sprintf("%s:%d needs %s, which is absent", name, ex.line, missing)
						t.Skipf("%s, so this block's examples are not checked", skipped[ex.block])
					}
					got, err := s.run(ex.command)
					if err != nil {
						t.Fatalf("%s:%d: $ %s\n%v", name, ex.line, ex.command, err)
					}
					if a := align(ex.output, got); a.cost > 0 {
						if !compared {
							t.Logf("%s:%d: $ %s\nwith %v (not compared):\n%s", name, ex.line, ex.command, simd.Active(), a.diff(ex.first+1))
							return
						}
						if *update {
							outputs[i] = a.rewrite()
							t.Logf("%s:%d: rewriting the output of $ %s", name, ex.line, ex.command)
							return
						}
						t.Errorf("%s:%d: $ %s\nthe output differs from the document's (- document, + this build; times and speeds not compared):\n%s",
							name, ex.line, ex.command, a.diff(ex.first+1))
					}
				})
			}
			if len(outputs) > 0 {
				if err := doc.rewrite(path, outputs); err != nil {
					t.Fatal(err)
				}
				t.Logf("rewrote the output of %d examples in %s: review them with git diff", len(outputs), name)
			}
		})
	}
}

// An example is a command of a document and the output shown under it.
type example struct {
	line       int    // of the command, from 1
	block      int    // the fenced block it is in, counted from 1
	command    string // after "$ ", continued lines joined
	output     []string
	first, end int // the output's lines, [first, end) from 0
}

type doc struct {
	lines    []string
	examples []example
}

// readDoc reads the examples of the Markdown file at path.
func readDoc(path string) (*doc, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d := &doc{lines: strings.Split(string(text), "\n")}
	block, inBlock := 0, false
	var cur *example
	for i := 0; i < len(d.lines); i++ {
		line := d.lines[i]
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			inBlock = !inBlock
			if inBlock {
				block++
			}
			cur = nil
			continue
		}
		if !inBlock {
			continue
		}
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			start := i
			for strings.HasSuffix(cmd, `\`) && i+1 < len(d.lines) {
				i++
				cmd = strings.TrimRight(strings.TrimSuffix(cmd, `\`), " ") + " " + strings.TrimSpace(d.lines[i])
			}
			d.examples = append(d.examples, example{line: start + 1, block: block, command: cmd, first: i + 1, end: i + 1})
			cur = &d.examples[len(d.examples)-1]
			continue
		}
		if cur != nil {
			cur.output = append(cur.output, line)
			cur.end = i + 1
		}
	}
	if inBlock {
		return nil, fmt.Errorf("%s: a fenced block is not closed", path)
	}
	return d, nil
}

// rewrite writes the document to path with the outputs of some of its
// examples replaced.
func (d *doc) rewrite(path string, outputs map[int][]string) error {
	var lines []string
	next := 0
	for i, ex := range d.examples {
		out, ok := outputs[i]
		if !ok {
			continue
		}
		lines = append(append(lines, d.lines[next:ex.first]...), out...)
		next = ex.end
	}
	lines = append(lines, d.lines[next:]...)
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

// A session is the shell a document's examples run in.
type session struct {
	t     *testing.T
	self  string            // this test binary
	dir   string            // the working directory
	addrs map[string]string // a background server's address as the document writes it: the one it listens on
}

// newSession makes the working directory: dataset/ of the repository in
// it, and ../shared beside it when the repository has one.
func newSession(t *testing.T, self string) *session {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	top := t.TempDir()
	s := &session{t: t, self: self, dir: filepath.Join(top, "work"), addrs: map[string]string{}}
	if err := os.Mkdir(s.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	links := [][2]string{{filepath.Join(root, "dataset"), filepath.Join(s.dir, "dataset")}}
	if shared := filepath.Join(filepath.Dir(root), "shared"); exists(shared) {
		links = append(links, [2]string{shared, filepath.Join(top, "shared")})
	}
	for _, l := range links {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// missingShared returns the first path of ../shared that the command names
// and that does not exist, or "".
func (s *session) missingShared(command string) string {
	for _, m := range regexp.MustCompile(`\.\./shared[^\s'",]*`).FindAllString(command, -1) {
		if !exists(filepath.Join(s.dir, m)) {
			return m
		}
	}
	return ""
}

// run runs a command line and returns the lines it printed.
func (s *session) run(command string) ([]string, error) {
	words, background, err := splitCommand(command)
	if err != nil {
		return nil, err
	}
	if background {
		return nil, s.start(words)
	}
	for i, w := range words {
		words[i] = loopback.ReplaceAllStringFunc(w, func(addr string) string { return cmp.Or(s.addrs[addr], addr) })
	}
	var shown, in []byte
	for stages := words; len(stages) > 0; {
		stage := stages
		i := slices.Index(stages, "|")
		if i >= 0 {
			stage, stages = stages[:i], stages[i+1:]
		} else {
			stages = nil
		}
		if len(stage) == 0 {
			return nil, errors.New("an empty stage of a pipeline")
		}
		var out, errOut bytes.Buffer
		if err := s.stage(stage, in, &out, &errOut, len(stages) == 0); err != nil {
			return nil, fmt.Errorf("%s: %w\n%s%s%s", stage[0], err, shown, errOut.Bytes(), out.Bytes())
		}
		shown, in = append(shown, errOut.Bytes()...), out.Bytes()
	}
	return lines(append(shown, in...)), nil
}

// stage runs one command of a pipeline. The last one's stderr goes where
// its stdout goes, interleaved as a terminal shows them.
func (s *session) stage(words []string, stdin []byte, stdout, stderr *bytes.Buffer, last bool) error {
	if words[0] != "bogdbench" {
		tool, ok := readmeTools[words[0]]
		if !ok {
			return fmt.Errorf("TestREADME runs bogdbench, %s; give it a stand-in in readmeTools or show no output", strings.Join(slices.Sorted(maps.Keys(readmeTools)), ", "))
		}
		out, err := tool(words[1:], stdin, s.dir)
		stdout.Write(out)
		return err
	}
	cmd := s.bogdbench(words[1:])
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if last {
		cmd.Stderr = stdout
	}
	return cmd.Run()
}

func (s *session) bogdbench(args []string) *exec.Cmd {
	cmd := exec.Command(s.self, args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	return cmd
}

// loopback matches an address of this machine as examples write them.
var loopback = regexp.MustCompile(`\b(localhost|127\.0\.0\.1):[0-9]+\b`)

// httpURL finds the address a server says it listens on.
var httpURL = regexp.MustCompile(`http://([^\s/]+)`)

// start runs bogdbench in the background until the test ends: a loopback
// address among its arguments becomes port 0, and the address the server
// then prints (http://HOST:PORT, within 30 s) replaces the document's in
// later commands.
func (s *session) start(words []string) error {
	if words[0] != "bogdbench" {
		return fmt.Errorf("only bogdbench runs in the background, not %s", words[0])
	}
	var addr string
	for i, w := range words {
		if a := loopback.FindString(w); a != "" {
			addr = a
			words[i] = strings.Replace(w, a, a[:strings.LastIndex(a, ":")]+":0", 1)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := s.bogdbench(words[1:])
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		return err
	}
	var log bytes.Buffer
	listening, done := make(chan string, 1), make(chan struct{})
	go func() {
		defer close(done)
		defer r.Close()
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			log.Write(append(sc.Bytes(), '\n')) // read after done
			if m := httpURL.FindStringSubmatch(sc.Text()); m != nil && addr != "" {
				select {
				case listening <- m[1]:
				default:
				}
			}
		}
	}()
	s.t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
		err := cmd.Wait()
		timer.Stop()
		<-done
		if err != nil {
			s.t.Errorf("$ %s (in the background): %v\n%s", strings.Join(words, " "), err, log.Bytes())
		}
	})
	if addr == "" {
		return nil
	}
	select {
	case got := <-listening:
		for _, host := range []string{"localhost", "127.0.0.1"} {
			s.addrs[host+addr[strings.LastIndex(addr, ":"):]] = got
		}
		return nil
	case <-done:
		return errors.New("the server ended before it said where it listens (http://HOST:PORT)")
	case <-time.After(30 * time.Second):
		return errors.New("the server did not say where it listens (http://HOST:PORT) within 30 s")
	}
}

// splitCommand splits a command line into words as a shell would, for
// the syntax examples use: quotes, backslash escapes, pipes and a final
// &. Anything else a shell would interpret is an error.
func splitCommand(line string) (words []string, background bool, err error) {
	var word strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, false, fmt.Errorf("an unclosed ' in %q", line)
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case c == '"':
			inWord = true
			for i++; i < len(line) && line[i] != '"'; i++ {
				switch {
				case line[i] == '$' || line[i] == '`':
					return nil, false, fmt.Errorf("TestREADME expands nothing (%q) in %q", line[i], line)
				case line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\`, line[i+1]) >= 0:
					i++
				}
				word.WriteByte(line[i])
			}
			if i == len(line) {
				return nil, false, fmt.Errorf(`an unclosed " in %q`, line)
			}
		case c == '\\' && i+1 < len(line):
			i++
			word.WriteByte(line[i])
			inWord = true
		case c == '|':
			end()
			words = append(words, "|")
		case c == '&' && strings.TrimSpace(line[i+1:]) == "":
			end()
			background = true
			i = len(line)
		case strings.IndexByte(";&<>()$`", c) >= 0:
			return nil, false, fmt.Errorf("TestREADME does not run the shell syntax %q of %q", c, line)
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	end()
	if len(words) == 0 {
		return nil, false, errors.New("an empty command")
	}
	if background && slices.Contains(words, "|") {
		return nil, false, errors.New("TestREADME runs no pipeline in the background")
	}
	return words, background, nil
}

// lines splits output into lines, without the newline of the last.
func lines(out []byte) []string {
	if len(out) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

// readmeTools are the commands other than bogdbench that examples run:
// just enough of each for what examples do with it.
var readmeTools = map[string]func(args []string, stdin []byte, dir string) ([]byte, error){
	"head": head,
	"cat":  func(args []string, stdin []byte, dir string) ([]byte, error) { return concat(args, stdin, dir, false) },
	"zcat": func(args []string, stdin []byte, dir string) ([]byte, error) { return concat(args, stdin, dir, true) },
	"curl": curl,
}

// head: head [-N | -n N] [FILE].
func head(args []string, stdin []byte, dir string) ([]byte, error) {
	n := 10
	if len(args) > 0 && strings.HasPrefix(args[0], "-") {
		v := args[0][1:]
		args = args[1:]
		if v == "n" && len(args) > 0 {
			v, args = args[0], args[1:]
		}
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 0 {
			return nil, fmt.Errorf("head: a line count, not %q", v)
		}
	}
	in, err := concat(args, stdin, dir, false)
	if err != nil {
		return nil, err
	}
	var out []byte
	for ; n > 0 && len(in) > 0; n-- {
		line, rest, _ := bytes.Cut(in, []byte("\n"))
		out, in = append(append(out, line...), '\n'), rest
	}
	return out, nil
}

// concat: cat or zcat FILE... (stdin without files).
func concat(files []string, stdin []byte, dir string, gunzip bool) ([]byte, error) {
	if len(files) == 0 {
		if gunzip {
			return gunzipped(bytes.NewReader(stdin))
		}
		return stdin, nil
	}
	var out []byte
	for _, name := range files {
		if strings.HasPrefix(name, "-") {
			return nil, fmt.Errorf("no flags (%s)", name)
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil && gunzip {
			data, err = gunzipped(bytes.NewReader(data))
		}
		if err != nil {
			return nil, err
		}
		out = append(out, data...)
	}
	return out, nil
}

func gunzipped(r io.Reader) ([]byte, error) {
	z, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}

// curl: curl [-s] [-X METHOD] [-H HEADER]... [-d DATA] URL, printing the
// body of the reply whatever its status, as curl does.
func curl(args []string, _ []byte, _ string) ([]byte, error) {
	method, url := "", ""
	var body io.Reader
	header := http.Header{}
	for i := 0; i < len(args); i++ {
		flagValue := func() (string, error) {
			if i+1 == len(args) {
				return "", fmt.Errorf("curl: %s needs a value", args[i])
			}
			i++
			return args[i], nil
		}
		var v string
		var err error
		switch a := args[i]; a {
		case "-s", "--silent", "-S", "--show-error":
		case "-X", "--request":
			method, err = flagValue()
		case "-H", "--header":
			if v, err = flagValue(); err == nil {
				name, value, ok := strings.Cut(v, ":")
				if !ok {
					return nil, fmt.Errorf("curl: a header is NAME: VALUE, not %q", v)
				}
				header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
			}
		case "-d", "--data", "--data-raw":
			if v, err = flagValue(); err == nil {
				body = strings.NewReader(v)
				if header.Get("Content-Type") == "" {
					header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
			}
		default:
			if strings.HasPrefix(a, "-") || url != "" {
				return nil, fmt.Errorf("curl: the stand-in knows -s, -S, -X, -H, -d and one URL, not %q", a)
			}
			url = a
		}
		if err != nil {
			return nil, err
		}
	}
	if !strings.Contains(url, "://") {
		url = "http://" + url
	}
	if method == "" {
		method = http.MethodGet
		if body != nil {
			method = http.MethodPost
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, err
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// A time or speed in running text: a number with a unit of time, or per
// second.
var timeValue = regexp.MustCompile(`[-+]?(?:[0-9]+h)?(?:[0-9]+m)?[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?(?:/s\b| ?(?:ns|µs|us|ms|s|sec|seconds?)\b)`)

// A table heading that names a time or speed.
var timeHeading = regexp.MustCompile(`(?i)(/s|^seconds\b.*|^time\b.*)$`)

var columnGap = regexp.MustCompile(`\s{2,}`)

const masked = "<time>"

// comparable returns the lines as they are compared: times and speeds
// masked, the rows of tables with such a column reduced to their columns.
func comparable(lines []string) []string {
	out := make([]string, len(lines))
	var timed []bool // the columns of the current table that hold times
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch cols := columnGap.Split(trimmed, -1); {
		case trimmed == "":
			timed = nil
		case trimmed == ellipsis:
		case len(cols) > 1 && slices.ContainsFunc(cols, timeHeading.MatchString):
			timed = make([]bool, len(cols))
			for j, c := range cols {
				timed[j] = timeHeading.MatchString(c)
			}
		case len(cols) == len(timed):
			for j := range cols {
				if timed[j] {
					cols[j] = masked
				}
			}
			line = strings.Join(cols, "  ")
		}
		out[i] = timeValue.ReplaceAllString(line, masked)
	}
	return out
}

const ellipsis = "..."

var digits = regexp.MustCompile(`[0-9]+`)

// matches reports whether a line of the document (in comparable form)
// matches a line of output; "..." in it matches any text.
func matches(want, got string) bool {
	parts := strings.Split(want, ellipsis)
	if len(parts) == 1 {
		return want == got
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	got = got[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(got, p)
		if i < 0 {
			return false
		}
		got = got[i+len(p):]
	}
	return strings.HasSuffix(got, parts[len(parts)-1])
}

// An alignment of a document's output with the build's: the cheapest
// sequence of steps, where a line that matches and the lines a "..."
// stands for cost nothing, a line whose numbers changed costs 1, and a
// line changed otherwise, missing or added costs 2.
type alignment struct {
	want, got []string
	steps     []step
	cost      int
}

type step struct {
	op   byte // '=' match, '~' changed, '-' missing from the output, '+' added by it, '.' elided by "...", '>' past a "..."
	i, j int  // the document's line and the output's
}

func align(want, got []string) alignment {
	cw, cg := comparable(want), comparable(got)
	shape := func(s string) string { return digits.ReplaceAllString(s, "#") }
	n, m := len(want), len(got)
	// cost[i][j]: the cheapest alignment of want[i:] with got[j:]; ties
	// prefer the steps in the order tried, so that "..." stands for as
	// few lines as it can.
	cost := make([][]int, n+1)
	choice := make([][]byte, n+1)
	for i := range cost {
		cost[i], choice[i] = make([]int, m+1), make([]byte, m+1)
	}
	for i := n; i >= 0; i-- {
		for j := m; j >= 0; j-- {
			if i == n && j == m {
				continue
			}
			best, op := int(^uint(0)>>1), byte(0)
			try := func(o byte, c int) {
				if c < best {
					best, op = c, o
				}
			}
			isEllipsis := i < n && strings.TrimSpace(want[i]) == ellipsis
			switch {
			case isEllipsis:
				try('>', cost[i+1][j])
				if j < m {
					try('.', cost[i][j+1])
				}
			case i < n && j < m:
				switch {
				case matches(cw[i], cg[j]):
					try('=', cost[i+1][j+1])
				case shape(cw[i]) == shape(cg[j]):
					try('~', 1+cost[i+1][j+1])
				default:
					try('~', 2+cost[i+1][j+1])
				}
			}
			if i < n && !isEllipsis {
				try('-', 2+cost[i+1][j])
			}
			if j < m {
				try('+', 2+cost[i][j+1])
			}
			cost[i][j], choice[i][j] = best, op
		}
	}
	a := alignment{want: want, got: got, cost: cost[0][0]}
	for i, j := 0, 0; i < n || j < m; {
		op := choice[i][j]
		a.steps = append(a.steps, step{op, i, j})
		switch op {
		case '=', '~':
			i, j = i+1, j+1
		case '-', '>':
			i++
		case '+', '.':
			j++
		}
	}
	return a
}

// diff shows the alignment, the document's lines numbered from first.
func (a alignment) diff(first int) string {
	var b strings.Builder
	elided := 0
	for _, s := range a.steps {
		switch s.op {
		case '=':
			fmt.Fprintf(&b, "%5d    %s\n", first+s.i, a.got[s.j])
		case '~':
			fmt.Fprintf(&b, "%5d  - %s\n       + %s\n", first+s.i, a.want[s.i], a.got[s.j])
		case '-':
			fmt.Fprintf(&b, "%5d  - %s\n", first+s.i, a.want[s.i])
		case '+':
			fmt.Fprintf(&b, "       + %s\n", a.got[s.j])
		case '.':
			elided++
		case '>':
			fmt.Fprintf(&b, "%5d    %s (%d lines)\n", first+s.i, a.want[s.i], elided)
			elided = 0
		}
	}
	return b.String()
}

// rewrite returns the output the document should show: its own lines
// where they match (times as it shows them, inline "..." kept), the
// build's where they do not, and each "..." that stands for some lines.
func (a alignment) rewrite() []string {
	var out []string
	elided := 0
	for _, s := range a.steps {
		switch s.op {
		case '=':
			out = append(out, a.want[s.i])
		case '~', '+':
			out = append(out, a.got[s.j])
		case '.':
			elided++
		case '>':
			if elided > 0 {
				out = append(out, a.want[s.i])
			}
			elided = 0
		}
	}
	return out
}
