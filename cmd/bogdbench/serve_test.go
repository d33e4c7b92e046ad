package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/serve"
	"github.com/bogd-project/bogd/serve/wal"
)

// logLines collects a server's log lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// built is the bogdbench binary the tests that run processes share (serve,
// and train's and tune's streams and signals): built once, removed by
// TestMain.
var built struct {
	once      sync.Once
	dir, path string
	err       error
}

// buildBench returns the built bogdbench binary (skipped with -short).
func buildBench(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "bogdbench-test-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "bogdbench")
		if out, err := goBuild(built.path).CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// buildTags are the tags of this test binary (purego_test.go sets them), so
// the binary a test runs computes what the test computes in process.
var buildTags []string

// goBuild is the command that builds bogdbench into path with buildTags.
func goBuild(path string) *exec.Cmd {
	return exec.Command("go", append(append([]string{"build"}, buildTags...), "-o", path, ".")...)
}

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// process is a running `bogdbench serve`.
type process struct {
	cmd  *exec.Cmd
	url  string
	log  *logLines
	done chan struct{} // closed when its stderr is read to the end
}

var listening = regexp.MustCompile(`listening on (https?://\S+)`)

// startServe runs bin serve with args and waits until it listens.
func startServe(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	return startServeEnv(t, bin, nil, args...)
}

// startServeEnv is startServe with env added to the environment.
func startServeEnv(t *testing.T, bin string, env []string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return startProcess(t, cmd)
}

// startProcess starts cmd, a bogdbench serve, and waits until it listens.
func startProcess(t *testing.T, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{cmd: cmd, log: new(logLines), done: make(chan struct{})}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.log.add(sc.Text())
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case p.url = <-addr:
		return p
	case <-p.done:
		p.cmd.Wait()
		t.Fatalf("%s stopped: %v\n%s", strings.Join(cmd.Args, " "), p.cmd.ProcessState, p.log)
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not start:\n%s", p.log)
	}
	return nil
}

// kill ends p with SIGKILL, as a crash would.
func (p *process) kill() {
	p.cmd.Process.Kill()
	p.cmd.Wait()
	<-p.done
}

// stop ends p with SIGTERM and returns how long it took to exit.
func (p *process) stop(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	p.cmd.Process.Signal(syscall.SIGTERM)
	err := p.cmd.Wait()
	took := time.Since(start)
	<-p.done
	if err != nil {
		t.Fatalf("serve after SIGTERM: %v\n%s", err, p.log)
	}
	return took
}

// post sends body to url and decodes the JSON answer into out.
func post(t *testing.T, url, body string, out any) int {
	t.Helper()
	code, err := tryPost(url, body, out)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// tryPost sends body to url and decodes the JSON answer into out (when
// it is 200, or out is not nil).
func tryPost(url, body string, out any) (int, error) {
	return tryPostAs(http.DefaultClient, url, "", body, out)
}

// tryPostAs is tryPost from client, with the bearer token (none when "").
func tryPostAs(client *http.Client, url, token, body string, out any) (int, error) {
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		return resp.StatusCode, fmt.Errorf("%s: Content-Type %q", url, ct)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s: %w", url, err)
		}
	}
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

func health(t *testing.T, url string) serve.Health {
	t.Helper()
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h serve.Health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// germanLines are german's rows as LIBSVM lines.
func germanLines(t *testing.T) []string {
	t.Helper()
	return strings.Split(strings.TrimSpace(germanText(t)), "\n")
}

// requestOf is the request body of LIBSVM lines, labelled or not.
func requestOf(lines []string, labelled bool) string {
	var rows []string
	for _, line := range lines {
		f := strings.Fields(line)
		var feats []string
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, ":")
			feats = append(feats, fmt.Sprintf("%q:%s", k, v))
		}
		label := ""
		if labelled {
			label = fmt.Sprintf(`"label":%s,`, strings.TrimPrefix(f[0], "+"))
		}
		rows = append(rows, fmt.Sprintf(`{%s"features":{%s}}`, label, strings.Join(feats, ",")))
	}
	return `{"rows":[` + strings.Join(rows, ",") + `]}`
}

// parseRow reads one LIBSVM line as the learner sees it.
func parseRow(t *testing.T, line string) (engine.Vector, float64) {
	t.Helper()
	var idx []int32
	var val []float32
	f := strings.Fields(line)
	for _, kv := range f[1:] {
		var i int32
		var v float32
		fmt.Sscanf(kv, "%d:%g", &i, &v)
		if v != 0 {
			idx, val = append(idx, i-1), append(val, v)
		}
	}
	var y float64
	fmt.Sscan(f[0], &y)
	return engine.Sparse(idx, val), y
}

// predictFile is what `predict --format json` answers for lines.
func predictFile(t *testing.T, model string, lines []string) []serve.Prediction {
	t.Helper()
	code, out, stderr := benchStdin(t, strings.Join(lines, "\n")+"\n", "predict", "--model", model, "--format", "json", "-q")
	if code != 0 {
		t.Fatal(stderr)
	}
	var doc struct{ Predictions []serve.Prediction }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Predictions
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServe: /predict answers what predict writes for the same model;
// /learn answers once learnt with the log position, and a /predict at
// that position answers with the model that learnt; an idle server stops
// at once on SIGTERM, writing its snapshot, and a restart goes on from the
// same position.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	bin := buildBench(t)
	model := trainGerman(t, dir)
	p := startServe(t, bin, "--model", model)
	lines := germanLines(t)[:5]

	var got serve.PredictResponse
	if code := post(t, p.url+"/predict", requestOf(lines, false), &got); code != 200 || got.Version != 0 ||
		jsonOf(t, got.Predictions) != jsonOf(t, predictFile(t, model, lines)) || got.Predictions[0].Probability == nil {
		t.Fatalf("/predict %d %s, version %d\npredict  %s", code, jsonOf(t, got.Predictions), got.Version, jsonOf(t, predictFile(t, model, lines)))
	}
	var learnt serve.Outcome
	if code := post(t, p.url+"/learn", requestOf(lines, true), &learnt); code != 200 || learnt.Learned != 5 || learnt.Version != 1 || learnt.Mistakes == nil {
		t.Fatalf("/learn: %d %+v", code, learnt)
	}
	l, err := bogd.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	mistakes := 0
	for _, line := range lines {
		st, err := l.Learn(parseRow(t, line))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mistake {
			mistakes++
		}
	}
	if *learnt.Mistakes != mistakes || learnt.SupportVectors != l.SupportVectors() {
		t.Errorf("/learn: %d mistakes, %d support vectors; the learner: %d, %d", *learnt.Mistakes, learnt.SupportVectors, mistakes, l.SupportVectors())
	}
	if code := post(t, p.url+"/predict?at_least=1", requestOf(lines, false), &got); code != 200 || got.Version != 1 {
		t.Fatalf("/predict?at_least=1: %d, version %d", code, got.Version)
	}
	for i, line := range lines {
		x, _ := parseRow(t, line)
		want, err := l.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		if g := got.Predictions[i]; g.Score != want.Score || g.Label != want.Label || *g.Probability != want.Probability {
			t.Errorf("row %d after /learn: %+v, the learner %+v", i+1, g, want)
		}
	}
	if h := health(t, p.url); h != (serve.Health{Status: "ok", Algorithm: "bogd++", Task: "binary", Version: 1, SupportVectors: l.SupportVectors()}) {
		t.Errorf("/healthz: %+v", h)
	}
	took := p.stop(t)
	t.Logf("an idle server stopped %v after SIGTERM", took)
	if took > 2*time.Second {
		t.Errorf("an idle server took %v to stop after SIGTERM", took)
	}
	snap := filepath.Join(dir, "german.snapshot-000001.bogd")
	if !bytes.Equal(readFile(t, snap), saved(t, l)) {
		t.Errorf("the snapshot at shutdown is not the learner\n%s", p.log)
	}
	p = startServe(t, bin, "--model", model)
	if h := health(t, p.url); h.Version != 1 || !strings.Contains(p.log.String(), "loaded "+snap+", the newest snapshot") {
		t.Errorf("after a restart: version %d\n%s", h.Version, p.log)
	}
	if code := post(t, p.url+"/learn", requestOf(lines[:2], true), &learnt); code != 200 || learnt.Version != 2 {
		t.Errorf("/learn after a restart: %d, version %d (versions never go back)", code, learnt.Version)
	}
}

// TestServeHashedAndScaled: a model trained on hashed names takes names,
// hashed as the file's were; a scaled regression model answers on the
// label's scale, as predict does.
func TestServeHashedAndScaled(t *testing.T) {
	dir := t.TempDir()
	bin := buildBench(t)
	words := filepath.Join(dir, "words.bogd")
	text := "+1 good great\n-1 bad awful\n+1 great:2 nice\n-1 awful poor\n"
	if code, _, stderr := benchStdin(t, text, "train", "--hash", "12", "--sigma", "1", "--passes", "3", "--save", words, "-q"); code != 0 {
		t.Fatal(stderr)
	}
	reg := writeData(t, dir, "reg.svm", 200, target)
	scaled := filepath.Join(dir, "reg.bogd")
	if code, _, stderr := bench(t, "train", "--data", reg, "--scale", "minmax", "--algo", "bogd++", "--budget", "30", "--save", scaled, "-q"); code != 0 {
		t.Fatal(stderr)
	}
	for _, c := range []struct{ model, body, rows string }{
		{words, `{"rows":[{"features":{"great":2,"nice":1}},{"features":{"poor":1,"awful":1}}]}`, "1 great:2 nice\n1 poor awful"},
		{scaled, `{"rows":[{"features":{"1":1.5,"2":7,"3":0.25}},{"features":{"2":3}}]}`, "0 1:1.5 2:7 3:0.25\n0 2:3"},
	} {
		p := startServe(t, bin, "--model", c.model)
		var got serve.PredictResponse
		want := predictFile(t, c.model, strings.Split(c.rows, "\n"))
		if code := post(t, p.url+"/predict", c.body, &got); code != 200 || jsonOf(t, got.Predictions) != jsonOf(t, want) {
			t.Errorf("%s: /predict %d %s, predict %s", c.model, code, jsonOf(t, got.Predictions), jsonOf(t, want))
		}
		p.stop(t)
	}
}

// examplesOf prepares LIBSVM lines as the server does a request of them
// (german: features by index, no scaling).
func examplesOf(t *testing.T, lines []string) []serve.Example {
	t.Helper()
	var out []serve.Example
	for _, line := range lines {
		x, y := parseRow(t, line)
		out = append(out, serve.Example{Index: x.Index, Value: x.Value, Label: y})
	}
	return out
}

// readLog returns the examples of every record the log in dir holds, by
// position, and where it ends.
func readLog(t *testing.T, dir string) (map[uint64][]serve.Example, uint64) {
	t.Helper()
	l, err := wal.Open(dir, wal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	end, _ := l.End(context.Background())
	records := make(map[uint64][]serve.Example)
	if end == l.Start() {
		return records, end
	}
	done := errors.New("done")
	err = l.Follow(context.Background(), l.Start(), func(pos uint64, data []byte) error {
		examples, err := serve.DecodeLearnRecord(data, 24)
		if err != nil {
			return err
		}
		records[pos] = slices.Clone(examples)
		if pos == end {
			return done
		}
		return nil
	})
	if err != done {
		t.Fatal(err)
	}
	return records, end
}

// TestServeKillRecovery: clients learn and predict while the server is
// killed with SIGKILL at random moments, 20 times. After each restart
// every acknowledged learn is in the model, which predicts exactly as a
// learner that learnt the log's records in order; no temporary file is
// left; at the end the model file is byte for byte the learner's.
func TestServeKillRecovery(t *testing.T) {
	dir := t.TempDir()
	bin := buildBench(t)
	model := trainGerman(t, dir)
	logDir := filepath.Join(dir, "german.log")
	lines := germanLines(t)
	args := []string{"--model", model, "--snapshot-every", "100ms", "--keep", "3", "--publish-every", "5ms"}

	var mu sync.Mutex
	known := make(map[uint64][]serve.Example) // by position: acknowledged, or read from the log
	var acked uint64                          // the highest position acknowledged
	url := ""                                 // "" while the server is down
	clash := func(pos uint64, ex []serve.Example, from string) {
		if old, ok := known[pos]; ok && jsonOf(t, old) != jsonOf(t, ex) {
			t.Errorf("position %d: %s says %v, before %v", pos, from, ex, old)
		}
		known[pos] = ex
	}
	stop := make(chan struct{})
	var clients sync.WaitGroup
	for c := range 4 {
		clients.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				u := url
				mu.Unlock()
				if u == "" {
					time.Sleep(time.Millisecond)
					continue
				}
				if c == 3 { // one client predicts
					tryPost(u+"/predict", requestOf(lines[:3], false), nil)
					continue
				}
				k := rng.IntN(len(lines) - 3)
				batch := lines[k : k+1+rng.IntN(3)]
				var out serve.Outcome
				if code, err := tryPost(u+"/learn", requestOf(batch, true), &out); err != nil || code != 200 {
					continue // killed under it, or refused while down
				}
				mu.Lock()
				clash(out.Version, examplesOf(t, batch), "an acknowledgement")
				acked = max(acked, out.Version)
				mu.Unlock()
			}
		})
	}
	reference, err := bogd.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	refPos := uint64(0)
	const kills = 20
	for k := 0; k <= kills; k++ {
		p := startServe(t, bin, args...)
		// Before the clients go on: the model is the reference learner at
		// the position the server restarted at.
		h := health(t, p.url)
		mu.Lock()
		if h.Version < acked {
			t.Fatalf("restart %d: at position %d, below the acknowledged %d: acknowledged learns lost\n%s", k, h.Version, acked, p.log)
		}
		for ; refPos < h.Version; refPos++ {
			ex, ok := known[refPos+1]
			if !ok {
				t.Fatalf("restart %d at position %d: the record at %d was neither acknowledged nor read from the log", k, h.Version, refPos+1)
			}
			for _, e := range ex {
				if _, err := reference.Learn(engine.Sparse(e.Index, e.Value), e.Label); err != nil {
					t.Fatal(err)
				}
			}
		}
		mu.Unlock()
		var got serve.PredictResponse
		if code := post(t, p.url+"/predict?at_least="+fmt.Sprint(h.Version), requestOf(lines[:3], false), &got); code != 200 || got.Version != h.Version {
			t.Fatalf("restart %d: /predict %d at version %d, want %d", k, code, got.Version, h.Version)
		}
		for i, line := range lines[:3] {
			x, _ := parseRow(t, line)
			want, _ := reference.Predict(x)
			if g := got.Predictions[i]; g.Score != want.Score || *g.Probability != want.Probability {
				t.Fatalf("restart %d at position %d: row %d scores %v, the learner of the log %v", k, h.Version, i+1, g.Score, want.Score)
			}
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Errorf("restart %d: a temporary file is left: %s", k, e.Name())
			}
		}
		if k == kills {
			mu.Lock()
			url = ""
			mu.Unlock()
			close(stop)
			clients.Wait()
			p.stop(t)
			break
		}
		mu.Lock()
		url = p.url
		mu.Unlock()
		time.Sleep(time.Duration(30+rand.IntN(300)) * time.Millisecond)
		mu.Lock()
		url = ""
		mu.Unlock()
		p.kill()
		records, _ := readLog(t, logDir)
		mu.Lock()
		for pos, ex := range records {
			clash(pos, ex, "the log")
		}
		mu.Unlock()
	}
	// The last position: the snapshot SIGTERM wrote is the reference learner.
	positions, _ := filepath.Glob(filepath.Join(dir, "german.snapshot-*.bogd"))
	slices.Sort(positions)
	last := positions[len(positions)-1]
	records, end := readLog(t, logDir)
	for pos, ex := range records {
		clash(pos, ex, "the log")
	}
	for ; refPos < end; refPos++ {
		ex, ok := known[refPos+1]
		if !ok {
			t.Fatalf("the record at %d was neither acknowledged nor read from the log", refPos+1)
		}
		for _, e := range ex {
			reference.Learn(engine.Sparse(e.Index, e.Value), e.Label)
		}
	}
	if want := fmt.Sprintf("german.snapshot-%06d.bogd", end); filepath.Base(last) != want {
		t.Fatalf("the last snapshot is %s, want %s", last, want)
	}
	if !bytes.Equal(readFile(t, last), saved(t, reference)) {
		t.Fatalf("%s is not the model learnt from the %d records of the log in order, without interruption", last, end)
	}
	t.Logf("%d kills; %d records, the highest acknowledged at %d", kills, end, acked)
}

func TestServeUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "--model is required"},
		{[]string{"serve", "--model", "m.bogd", "--no-log", "--log", "x"}, "--no-log and --log or --nats: choose one"},
		{[]string{"serve", "--model", "m.bogd", "--events"}, "--events learns from a NATS subject: give --nats"},
		{[]string{"serve", "--model", "m.bogd", "--keep", "1"}, "--keep must be at least 2"},
		{[]string{"serve", "--model", "m.bogd", "--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"serve", "--model", "m.bogd", "--max-rows", "0"}, "must be positive"},
	} {
		if code, _, stderr := bench(t, c.args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
