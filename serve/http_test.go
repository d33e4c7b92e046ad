package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
)

// serveHTTP serves s over httptest until the test ends.
func serveHTTP(t testing.TB, s *Server, opt HTTPOptions) string {
	t.Helper()
	ts := httptest.NewServer(s.Handler(opt))
	t.Cleanup(ts.Close)
	return ts.URL
}

// call sends body to url and decodes the JSON answer into out.
func call(t testing.TB, method, url, body string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusMethodNotAllowed && !strings.HasPrefix(ct, "application/json") && !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("%s: Content-Type %q", url, ct)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s: %v", url, err)
		}
	}
	return resp.StatusCode
}

// body is the request of examples (features by 1-based index).
func body(examples []Example, labelled bool) string {
	var rows []string
	for _, e := range examples {
		var feats []string
		for k, j := range e.Index {
			feats = append(feats, fmt.Sprintf(`"%d":%v`, j+1, e.Value[k]))
		}
		label := ""
		if labelled {
			label = fmt.Sprintf(`"label":%v,`, e.Label)
		}
		rows = append(rows, fmt.Sprintf(`{%s"features":{%s}}`, label, strings.Join(feats, ",")))
	}
	return `{"rows":[` + strings.Join(rows, ",") + `]}`
}

// TestHTTP: /learn learns in order and answers with the log position;
// /predict with at_least answers from a model at that position or later,
// exactly the learner's predictions; /healthz and /metrics say where the
// model is.
func TestHTTP(t *testing.T) {
	dir := t.TempDir()
	model := newModel(t, dir)
	s := startServer(t, Options{Model: model, OpenLog: FileLog(filepath.Join(dir, "log")), PublishEvery: time.Hour})
	url := serveHTTP(t, s, HTTPOptions{})
	rows := german(t)[100:110]
	var out Outcome
	if code := call(t, "POST", url+"/learn", body(rows[:5], true), &out); code != 200 || out.Learned != 5 || out.Version != 1 || out.Mistakes == nil {
		t.Fatalf("/learn: %d %+v", code, out)
	}
	l, _ := bogd.Load(bytes.NewReader(learnt(t, model, [][]Example{rows[:5]})))
	var got PredictResponse
	if code := call(t, "POST", url+"/predict?at_least=1", body(rows[5:], false), &got); code != 200 || got.Version != 1 {
		t.Fatalf("/predict?at_least=1: %d, version %d", code, got.Version)
	}
	for i, e := range rows[5:] {
		p := must(l.Predict(engine.Sparse(e.Index, e.Value)))
		if g := got.Predictions[i]; g.Score != p.Score || g.Label != p.Label || *g.Probability != p.Probability {
			t.Errorf("row %d: %+v, the learner %+v", i+1, g, p)
		}
	}
	var health Health
	if code := call(t, "GET", url+"/healthz", "", &health); code != 200 || health != (Health{"ok", "", "bogd++", "binary", 1, l.SupportVectors()}) {
		t.Errorf("/healthz: %d %+v", code, health)
	}
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, m := range []string{
		"bogd_examples_learned_total 5\n", "bogd_examples_predicted_total 5\n", "bogd_model_version 1\n", "bogd_log_position 1\n",
		"bogd_log_sync_seconds_count ", "bogd_log_append_seconds_count 1\n", "bogd_replay_seconds ",
		`bogd_http_requests_total{code="200",handler="predict"} 1`, `bogd_http_request_duration_seconds_count{handler="learn"} 1`,
	} {
		if !bytes.Contains(metrics, []byte(m)) {
			t.Errorf("/metrics lacks %q", m)
		}
	}
	promtool(t, metrics)
}

// promtool checks metrics with Prometheus's promtool, when it is there.
func promtool(t *testing.T, metrics []byte) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("BOGD_REQUIRE_PROMTOOL") != "" {
			t.Fatal("promtool not found and BOGD_REQUIRE_PROMTOOL is set: install Debian's prometheus package")
		}
		t.Log("************ promtool not found: /metrics NOT checked by promtool (install Debian's prometheus package) ************")
		return
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = bytes.NewReader(metrics)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// TestHTTPErrors: bad requests are answered 400 with the problem, a
// /learn batch with a bad row is refused whole (the model does not
// change), a body beyond the limit 413.
func TestHTTPErrors(t *testing.T) {
	s := startServer(t, Options{Model: newModel(t, t.TempDir())})
	url := serveHTTP(t, s, HTTPOptions{MaxBody: 1 << 20, MaxWait: 50 * time.Millisecond})
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
		{"/predict", `{"rows":[{"features":{"1":1}},{"features":{"2":1e99}}]}`, 400, "row 2: feature 2: 1e99 is not a float32"},
		{"/predict?at_least=x", `{"rows":[{"features":{"1":1}}]}`, 400, `at_least="x" is not a log position`},
		{"/predict", "", 400, "the body is not a request: EOF"},
		{"/learn", `{"rows":[{"features":{"1":1}}]}`, 400, "row 1: no label: /learn needs one"},
		{"/learn", `{"rows":[{"label":1,"features":{"1":1}},{"label":2,"features":{"1":1}}]}`, 400, "row 2: label 2: a binary model learns -1 or +1"},
		{"/learn", `{"rows":[{"label":1,"features":{"1":1}},{"label":1e999,"features":{"1":1}}]}`, 400, "row 2: label 1e999 is not a finite number"},
		{"/learn", `{"rows":[{"label":1,"features":{"1":1}},{"label":1,"features":{"3":1,"3.0":2}}]}`, 400, `row 2: feature "3.0" is not a 1-based index`},
		{"/learn", `{"rows":[{"label":1,"features":{"1":1}}` + strings.Repeat(" ", 1<<20) + `]}`, 413, "request body too large"},
	} {
		var out map[string]string
		code := call(t, "POST", url+c.path, c.body, &out)
		if code != c.code || !strings.Contains(out["error"], c.want) {
			t.Errorf("%s %.60s: %d %q, want %d %q", c.path, c.body, code, out["error"], c.code, c.want)
		}
	}
	if v := s.Version(); v != 0 {
		t.Errorf("refused requests changed the model: position %d", v)
	}
	if code := call(t, "GET", url+"/predict", "", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("GET /predict: %d", code)
	}
	var got PredictResponse
	if code := call(t, "POST", url+"/predict", `{"rows":[{"features":{"1":1,"99":1}}]}`, &got); code != 200 || got.IgnoredFeatures != 1 {
		t.Errorf("a feature beyond the model: %d, %+v", code, got)
	}
	var out map[string]string
	if code := call(t, "POST", url+"/predict?at_least=5", `{"rows":[{"features":{"1":1}}]}`, &out); code != 503 || !strings.Contains(out["error"], "not at position 5 yet (it is at 0)") {
		t.Errorf("at_least beyond the log: %d %q", code, out["error"])
	}
}

// FuzzLearnRequest: any body sent to /learn is answered without a panic,
// and a 400 or a 413 (a body or a batch beyond the limits) leaves the
// model as it was.
func FuzzLearnRequest(f *testing.F) {
	for _, b := range []string{
		`{"rows":[{"label":1,"features":{"1":0.5,"3":-2}}]}`,
		`{"rows":[{"label":-1,"features":{}},{"label":1,"features":{"24":1}}]}`,
		`{"rows":[{"label":1,"features":{"1":1}},{"label":2,"features":{"1":1}}]}`,
		`{"rows":[{"label":1,"features":{"0":1}}]}`,
		`{"rows":[{"label":1,"features":{"1":1e39}}]}`,
		`{"rows":[{"label":1e400,"features":{"1":1}}]}`,
		`{"rows":[{"label":1,"features":{"99":1,"2":0}}]}`,
		`{"rows":[{"label":1e308,"features":{"1":1}}]}`,
		`{"rows":[{"label":1,"features":{"1":1}},{"label":1,"features":{"1":1}},{"label":1,"features":{"1":1}},{"label":1,"features":{"1":1}}]}`,
		`{"rows":[{"label":1,"features":{"1":1}}],"rows":[{"label":1,"features":{"1":1}}]}`,
		`{"rows":null}`, `{"rows":{}}`, `{"rows":[]}`, `{}`, `[`, ``,
	} {
		f.Add(b)
	}
	dir := f.TempDir()
	s := startServer(f, Options{Model: newModel(f, dir)})
	h := s.Handler(HTTPOptions{MaxBody: 1 << 16, MaxRows: 3})
	f.Fuzz(func(t *testing.T, b string) {
		before := s.Version()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", "/learn", strings.NewReader(b)))
		switch w.Code {
		case 200:
		case 400, 413:
			if s.Version() != before {
				t.Fatalf("answered %d (%s) but the model moved from position %d to %d", w.Code, w.Body, before, s.Version())
			}
		default:
			t.Fatalf("answered %d: %s", w.Code, w.Body)
		}
	})
}
