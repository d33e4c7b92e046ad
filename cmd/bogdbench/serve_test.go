package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
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

// startServer serves model over httptest, its learner loop running until
// the test ends.
func startServer(t *testing.T, model string, every time.Duration) (*server, *httptest.Server, *logLines) {
	t.Helper()
	log := new(logLines)
	s, err := newServer(snapshots{model: model, dir: filepath.Dir(model)}, every, 2, 1<<20, log.add)
	if err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		s.loop(stop)
		close(done)
	}()
	ts := httptest.NewServer(s.handler())
	t.Cleanup(func() {
		ts.Close()
		close(stop)
		<-done
	})
	return s, ts, log
}

// post sends body to url and decodes the JSON answer into out.
func post(t *testing.T, url, body string, out any) int {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusMethodNotAllowed && ct != "application/json" {
		t.Errorf("%s: Content-Type %q", url, ct)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s: %v", url, err)
		}
	}
	return resp.StatusCode
}

// germanRows are the first rows of german as a request body, with their
// labels, and as LIBSVM text.
func germanRows(t *testing.T, n int) (body, text string) {
	t.Helper()
	lines := strings.SplitN(germanText(t), "\n", n+1)[:n]
	var rows []string
	for _, line := range lines {
		f := strings.Fields(line)
		var feats []string
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, ":")
			feats = append(feats, fmt.Sprintf("%q:%s", k, v))
		}
		rows = append(rows, fmt.Sprintf(`{"label":%s,"features":{%s}}`, strings.TrimPrefix(f[0], "+"), strings.Join(feats, ",")))
	}
	return `{"rows":[` + strings.Join(rows, ",") + `]}`, strings.Join(lines, "\n") + "\n"
}

// TestServePredictLearn: /predict answers what predict writes for the
// same model; /learn learns in order, and the next /predict answers with
// the model that learnt (exactly a learner that learnt the same rows).
func TestServePredictLearn(t *testing.T) {
	dir := t.TempDir()
	model := trainGerman(t, dir)
	_, ts, _ := startServer(t, model, 0)
	body, text := germanRows(t, 5)

	code, want, stderr := benchStdin(t, text, "predict", "--model", model, "--format", "json", "-q")
	if code != 0 {
		t.Fatal(stderr)
	}
	var fromFile struct{ Predictions []predictionJSON }
	if err := json.Unmarshal([]byte(want), &fromFile); err != nil {
		t.Fatal(err)
	}
	var got predictResponse
	if code := post(t, ts.URL+"/predict", body, &got); code != 200 {
		t.Fatalf("/predict: %d", code)
	}
	if jsonOf(t, got.Predictions) != jsonOf(t, fromFile.Predictions) || got.Version != 0 || got.Predictions[0].Probability == nil {
		t.Fatalf("/predict %s, version %d\npredict  %s", jsonOf(t, got.Predictions), got.Version, jsonOf(t, fromFile.Predictions))
	}

	var learnt learnOutcome
	if code := post(t, ts.URL+"/learn", body, &learnt); code != 200 || learnt.Learned != 5 || learnt.Version != 1 || learnt.Mistakes == nil {
		t.Fatalf("/learn: %d %+v", code, learnt)
	}
	l, err := bogd.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	var mistakes int
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		x, y := parseRow(t, line)
		st, err := l.Learn(x, y)
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
	if code := post(t, ts.URL+"/predict", body, &got); code != 200 || got.Version != 1 {
		t.Fatalf("/predict after /learn: %d, version %d", code, got.Version)
	}
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		x, _ := parseRow(t, line)
		p, err := l.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		if got.Predictions[i].Score != p.Score || got.Predictions[i].Label != p.Label || *got.Predictions[i].Probability != p.Probability || p.Probability < 0.5 {
			t.Errorf("row %d after /learn: %+v, the learner %+v (the probability of the label is at least 0.5)", i+1, got.Predictions[i], p)
		}
	}

	var health healthResponse
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&health)
	resp.Body.Close()
	if health != (healthResponse{"ok", "bogd++", "binary", 1, l.SupportVectors()}) {
		t.Errorf("/healthz: %+v", health)
	}
	resp, err = http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, m := range []string{
		"bogd_examples_learned_total 5\n", "bogd_examples_predicted_total 10\n", "bogd_model_version 1\n",
		fmt.Sprintf("bogd_support_vectors %d\n", l.SupportVectors()),
		`bogd_http_requests_total{code="200",handler="predict"} 2`, `bogd_http_request_duration_seconds_count{handler="learn"} 1`,
	} {
		if !strings.Contains(string(metrics), m) {
			t.Errorf("/metrics lacks %q", m)
		}
	}
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
		idx, val = append(idx, i-1), append(val, v)
	}
	var y float64
	fmt.Sscan(f[0], &y)
	return engine.Sparse(idx, val), y
}

func TestServeErrors(t *testing.T) {
	model := trainGerman(t, t.TempDir())
	_, ts, _ := startServer(t, model, 0)
	for _, c := range []struct {
		path, body string
		code       int
		want       string
	}{
		{"/predict", `{"rows":[]}`, 400, "no rows"},
		{"/predict", `{"rows":[{"features":{"1":1}}]} {}`, 400, "more than one JSON value"},
		{"/predict", `{"rows":[{"feature":{"1":1}}]}`, 400, `unknown field "feature"`},
		{"/predict", `{"rows":[{"features":{"0":1}}]}`, 400, `row 1: feature "0" is not a 1-based index`},
		{"/predict", `{"rows":[{"features":{"1":1}},{"features":{"2":"x"}}]}`, 400, "the body is not a request"},
		{"/predict", `{"rows":[{"features":{"1":1}},{"features":{"2":1e99}}]}`, 400, "row 2: "},
		{"/learn", `{"rows":[{"features":{"1":1}}]}`, 400, "row 1: no label: /learn needs one"},
		{"/learn", `{"rows":[{"label":1,"features":{"1":1}},{"label":2,"features":{"1":1}}]}`, 400, "row 2: label 2: a binary model learns -1 or +1"},
		{"/learn", `{"rows":[{"label":1,"features":{"1":1}}` + strings.Repeat(" ", 1<<20) + `]}`, 413, "request body too large"},
	} {
		var out map[string]string
		code := post(t, ts.URL+c.path, c.body, &out)
		if code != c.code || !strings.Contains(out["error"], c.want) {
			t.Errorf("%s %.60s: %d %q, want %d %q", c.path, c.body, code, out["error"], c.code, c.want)
		}
	}
	var health healthResponse
	resp, _ := http.Get(ts.URL + "/healthz")
	json.NewDecoder(resp.Body).Decode(&health)
	resp.Body.Close()
	if health.Version != 0 {
		t.Errorf("a refused /learn changed the model: version %d", health.Version)
	}
	if code := post(t, ts.URL+"/predict", "", nil); code != 400 {
		t.Errorf("empty body: %d", code)
	}
	resp, err := http.Get(ts.URL + "/predict")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /predict: %d", resp.StatusCode)
	}
	// Features beyond the model's dimension are ignored, and counted.
	var got predictResponse
	if code := post(t, ts.URL+"/predict", `{"rows":[{"features":{"1":1,"99":1}}]}`, &got); code != 200 || got.IgnoredFeatures != 1 {
		t.Errorf("a feature beyond the model: %d, %+v", code, got)
	}
}

// TestServeSnapshots: snapshots are written on the timer when the model
// learnt, as numbered files of which the newest are kept; at shutdown the
// requests under way finish and a last snapshot is written; a new server
// starts from the newest snapshot.
func TestServeSnapshots(t *testing.T) {
	dir := t.TempDir()
	model := trainGerman(t, dir)
	original := readFile(t, model)
	log := new(logLines)
	s, err := newServer(snapshots{model: model, dir: dir}, 20*time.Millisecond, 2, 1<<20, log.add)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error)
	go func() { served <- s.serve(ctx, ln) }()
	url := "http://" + ln.Addr().String()
	body, _ := germanRows(t, 20)
	for i := range 3 {
		if code := post(t, url+"/learn", body, nil); code != 200 {
			t.Fatalf("/learn %d: %d", i, code)
		}
		waitFor(t, log, fmt.Sprintf("(version %d,", i+1))
	}
	if code := post(t, url+"/learn", body, nil); code != 200 {
		t.Fatal("/learn")
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "wrote "+filepath.Join(dir, "german.snapshot-000004.bogd")+" (version 4,") {
		t.Fatalf("no snapshot at shutdown:\n%s", log)
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "german.bogd german.snapshot-000003.bogd german.snapshot-000004.bogd" {
		t.Errorf("files %s: want the model and the 2 newest snapshots", got)
	}
	if !bytes.Equal(readFile(t, model), original) {
		t.Error("serve changed the model file")
	}
	if !bytes.Equal(readFile(t, filepath.Join(dir, "german.snapshot-000004.bogd")), saved(t, s.learner)) {
		t.Error("the last snapshot is not the learner")
	}

	restarted, log2 := startServerLog(t, model)
	if !bytes.Equal(saved(t, restarted.learner), saved(t, s.learner)) || !strings.Contains(log2.String(), "loaded "+filepath.Join(dir, "german.snapshot-000004.bogd")+", the newest snapshot") {
		t.Errorf("the restarted server did not start from the last snapshot:\n%s", log2)
	}
	// A model trained again since is newer than the snapshots: it wins.
	later := time.Now().Add(time.Minute)
	os.Chtimes(model, later, later)
	fresh, log3 := startServerLog(t, model)
	if !bytes.Equal(saved(t, fresh.learner), original) || !strings.Contains(log3.String(), "it is newer than its snapshots") {
		t.Errorf("a newer model was not preferred:\n%s", log3)
	}
}

func startServerLog(t *testing.T, model string) (*server, *logLines) {
	t.Helper()
	log := new(logLines)
	s, err := newServer(snapshots{model: model, dir: filepath.Dir(model)}, 0, 2, 1<<20, log.add)
	if err != nil {
		t.Fatal(err)
	}
	return s, log
}

// waitFor waits (5 s at most) for a log line holding want.
func waitFor(t *testing.T, log *logLines, want string) {
	t.Helper()
	for start := time.Now(); !strings.Contains(log.String(), want); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("no %q in the log:\n%s", want, log)
		}
	}
}

// TestServeKillRecovery runs the built binary, kills it with SIGKILL
// while it learns, and checks that a new one starts from the last
// snapshot and continues.
func TestServeKillRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bogdbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	model := trainGerman(t, dir)
	start := func() (*exec.Cmd, string, *logLines) {
		cmd := exec.Command(bin, "serve", "--model", model, "--addr", "127.0.0.1:0", "--snapshot-every", "50ms")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		log := new(logLines)
		addr := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				log.add(sc.Text())
				if m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
					addr <- m[1]
				}
			}
		}()
		select {
		case url := <-addr:
			return cmd, url, log
		case <-time.After(10 * time.Second):
			t.Fatalf("the server did not start:\n%s", log)
		}
		return nil, "", nil
	}
	cmd, url, log := start()
	body, _ := germanRows(t, 50)
	for i := range 4 {
		if code := post(t, url+"/learn", body, nil); code != 200 {
			t.Fatalf("/learn %d: %d", i, code)
		}
	}
	waitFor(t, log, "(version 4,")
	// Learning goes on while the process is killed.
	go func() {
		for range 50 {
			if _, err := http.Post(url+"/learn", "application/json", strings.NewReader(body)); err != nil {
				return
			}
		}
	}()
	time.Sleep(20 * time.Millisecond)
	cmd.Process.Kill()
	cmd.Wait()

	entries, _ := os.ReadDir(dir)
	var newest string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "german.snapshot-") {
			newest = filepath.Join(dir, e.Name())
		}
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("a temporary file is left: %s", e.Name())
		}
	}
	snap, err := bogd.LoadFile(newest)
	if err != nil {
		t.Fatalf("the newest snapshot %s does not load: %v", newest, err)
	}
	_, url, log = start()
	waitFor(t, log, "loaded "+newest+", the newest snapshot")
	_, text := germanRows(t, 3)
	code, want, stderr := benchStdin(t, text, "predict", "--model", newest, "--format", "json", "-q")
	if code != 0 {
		t.Fatal(stderr)
	}
	var fromFile struct{ Predictions []predictionJSON }
	json.Unmarshal([]byte(want), &fromFile)
	var got predictResponse
	rows3, _ := germanRows(t, 3)
	if post(t, url+"/predict", rows3, &got); jsonOf(t, got.Predictions) != jsonOf(t, fromFile.Predictions) {
		t.Errorf("the restarted server predicts %s, the snapshot %s", jsonOf(t, got.Predictions), jsonOf(t, fromFile.Predictions))
	}
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var health healthResponse
	json.NewDecoder(resp.Body).Decode(&health)
	resp.Body.Close()
	if health.SupportVectors != snap.SupportVectors() || health.Version != 0 {
		t.Errorf("/healthz after the restart: %+v; the snapshot has %d support vectors", health, snap.SupportVectors())
	}
	var learnt learnOutcome
	if code := post(t, url+"/learn", body, &learnt); code != 200 || learnt.Learned != 50 || learnt.Version != 1 {
		t.Errorf("/learn after the restart: %d %+v", code, learnt)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServeHashed: a model trained on hashed names takes names, hashed
// as the file's were; a scaled regression model answers on the label's
// scale, as predict does.
func TestServeHashedAndScaled(t *testing.T) {
	dir := t.TempDir()
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
		{words, `{"rows":[{"features":{"great":2,"nice":1}},{"features":{"poor":1,"awful":1}}]}`, "1 great:2 nice\n1 poor awful\n"},
		{scaled, `{"rows":[{"features":{"1":1.5,"2":7,"3":0.25}},{"features":{"2":3}}]}`, "0 1:1.5 2:7 3:0.25\n0 2:3\n"},
	} {
		_, ts, _ := startServer(t, c.model, 0)
		code, want, stderr := benchStdin(t, c.rows, "predict", "--model", c.model, "--format", "json", "-q")
		if code != 0 {
			t.Fatal(stderr)
		}
		var fromFile struct{ Predictions []predictionJSON }
		json.Unmarshal([]byte(want), &fromFile)
		var got predictResponse
		if code := post(t, ts.URL+"/predict", c.body, &got); code != 200 || jsonOf(t, got.Predictions) != jsonOf(t, fromFile.Predictions) {
			t.Errorf("%s: /predict %d %s, predict %s", c.model, code, jsonOf(t, got.Predictions), jsonOf(t, fromFile.Predictions))
		}
	}
}

// TestSnapshotList: only the model's own snapshot files count, not other
// files whose names end in digits and .bogd.
func TestSnapshotList(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"german.snapshot-000002.bogd", "german.snapshot-000010.bogd", "000005.bogd", "other.snapshot-000007.bogd", "german.snapshot-x.bogd"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	seqs, err := snapshots{model: filepath.Join(dir, "german.bogd"), dir: dir}.list()
	if err != nil || !slices.Equal(seqs, []int{2, 10}) {
		t.Fatalf("snapshots %v (%v), want [2 10]", seqs, err)
	}
}
