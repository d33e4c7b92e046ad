package serve

import (
	"bufio"
	"bytes"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/tlstest"
	"github.com/bogd-project/bogd/task"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestRowLimits: a request of more rows than MaxRows is answered 413 as
// soon as the row beyond the limit is read, the rest of the body unread;
// a body beyond the default limit is answered 413.
func TestRowLimits(t *testing.T) {
	s := startServer(t, Options{Model: newModel(t, t.TempDir())})
	h := s.Handler(HTTPOptions{MaxRows: 10})
	rows := german(t)[100:110]
	if w := serveOnce(h, "/learn", body(rows, true)); w.Code != 200 {
		t.Fatalf("10 rows: %d %s", w.Code, w.Body)
	}
	big := body(german(t)[:1000], true)
	in := &countingReader{r: strings.NewReader(big)}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/learn", in))
	if w.Code != 413 || !strings.Contains(w.Body.String(), "more than 10 rows") {
		t.Errorf("1000 rows: %d %s", w.Code, w.Body)
	}
	if in.n > 16<<10 {
		t.Errorf("1000 rows refused after reading %d of the body's %d bytes: the rows are not read one at a time", in.n, len(big))
	}
	if s.Version() != 1 {
		t.Errorf("at position %d: the refused request was learnt", s.Version())
	}
	huge := `{"rows":[` + strings.Repeat(`{"features":{"1":1}},`, DefaultMaxBody/20) + `{"features":{"1":1}}]}`
	if w := serveOnce(s.Handler(HTTPOptions{MaxRows: 1 << 30}), "/predict", huge); w.Code != 413 || !strings.Contains(w.Body.String(), "request body too large") {
		t.Errorf("a body of %d bytes, beyond the default limit: %d %.100s", len(huge), w.Code, w.Body)
	}
}

func serveOnce(h http.Handler, path, body string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", path, strings.NewReader(body)))
	return w
}

// writes records the size of each Write of a response.
type writes struct {
	*httptest.ResponseRecorder
	sizes []int
}

func (w *writes) Write(b []byte) (int, error) {
	w.sizes = append(w.sizes, len(b))
	return w.ResponseRecorder.Write(b)
}

// TestPredictStreams: a long /predict answer is written as it is
// computed, in pieces of about streamHeld bytes, never whole; it is the
// learner's predictions.
func TestPredictStreams(t *testing.T) {
	model := newModel(t, t.TempDir())
	s := startServer(t, Options{Model: model})
	rows := german(t)
	rows = append(append(rows, rows...), rows...)
	w := &writes{ResponseRecorder: httptest.NewRecorder()}
	s.Handler(HTTPOptions{}).ServeHTTP(w, httptest.NewRequest("POST", "/predict", strings.NewReader(body(rows, false))))
	var got PredictResponse
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != 200 || len(got.Predictions) != len(rows) {
		t.Fatalf("%d, %d predictions: %v", w.Code, len(got.Predictions), err)
	}
	largest := 0
	for _, n := range w.sizes {
		largest = max(largest, n)
	}
	if len(w.sizes) < 2 || largest > streamHeld+1024 {
		t.Errorf("an answer of %d bytes in %d writes, the largest %d: want pieces of about %d", w.Body.Len(), len(w.sizes), largest, streamHeld)
	}
	l := must(bogd.LoadFile(model))
	for i, e := range rows {
		p := must(l.Predict(engine.Sparse(e.Index, e.Value)))
		if g := got.Predictions[i]; g.Score != p.Score || g.Label != p.Label || *g.Probability != p.Probability {
			t.Fatalf("row %d: %+v, the learner %+v", i+1, g, p)
		}
	}
}

// TestReplyNeverBroken: an answer JSON cannot hold is a 500 with the
// reason, never a 200 with an empty body.
func TestReplyNeverBroken(t *testing.T) {
	w := httptest.NewRecorder()
	inf := math.Inf(1)
	reply(w, http.StatusOK, Outcome{Learned: 1, Squared: &inf})
	if w.Code != 500 || !strings.Contains(w.Body.String(), "the answer cannot be written") {
		t.Errorf("%d %q", w.Code, w.Body)
	}
}

// newRegressionModel writes a BOGD regression model of german's 24
// features, trained on its first 100 rows with their labels as targets,
// to dir/reg.bogd.
func newRegressionModel(t testing.TB, dir string) string {
	t.Helper()
	l := must(bogd.New(bogd.BOGD, bogd.Config{Dim: 24, Budget: 40, Sigma: 30, Task: task.Regression, Seed: 1}))
	for _, e := range german(t)[:100] {
		must(l.Learn(engine.Sparse(e.Index, e.Value), e.Label))
	}
	path := filepath.Join(dir, "reg.bogd")
	if err := l.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestNonFiniteLoss: a regression row whose squared error is not finite
// (a label of 1e308) is refused, 400, before it is learnt: the model stays
// where it was, and the rows after it are learnt as before. A learn-only
// server skips such an event.
func TestNonFiniteLoss(t *testing.T) {
	dir := t.TempDir()
	model := newRegressionModel(t, dir)
	s := startServer(t, Options{Model: model})
	url := serveHTTP(t, s, HTTPOptions{})
	for _, b := range []string{
		`{"rows":[{"label":1e308,"features":{"1":0.5}}]}`,
		`{"rows":[{"label":1,"features":{"1":0.5}},{"label":-1.5e308,"features":{"2":1}}]}`,
		`{"rows":[{"label":1e154,"features":{"1":0.5}},{"label":1e154,"features":{"2":1}}]}`,
	} {
		var out map[string]string
		if code := call(t, "POST", url+"/learn", b, &out); code != 400 || !strings.Contains(out["error"], "squared error against the model's prediction") {
			t.Errorf("%s: %d %q", b, code, out["error"])
		}
	}
	if s.Version() != 0 {
		t.Fatalf("the refused rows reached the log: at position %d", s.Version())
	}
	rows := german(t)[100:103]
	var out Outcome
	if code := call(t, "POST", url+"/learn", body(rows, true), &out); code != 200 || out.Learned != 3 || out.Squared == nil {
		t.Fatalf("/learn after: %d %+v", code, out)
	}
	s.Close()
	if got := must(bogd.LoadFile(s.snaps.path(1))); !bytes.Equal(saved(t, got), learnt(t, model, [][]Example{rows})) {
		t.Error("the model differs from one that never saw the refused rows")
	}
}

func saved(t testing.TB, l *bogd.Learner) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := l.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// slowRequest sends the headers of a POST to path with a body of n bytes
// and its first byte, then nothing: what a client sending a byte a second
// does. It returns the connection.
func slowRequest(t testing.TB, addr, path string, n int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", path, n)
	return c
}

// TestInFlightAndSlowBodies: beyond MaxInFlight requests under way a
// request is answered 503 with Retry-After at once, while /healthz
// answers; a body that does not arrive within BodyTimeout is answered 408
// and its connection closed, which frees its place.
func TestInFlightAndSlowBodies(t *testing.T) {
	s := startServer(t, Options{Model: newModel(t, t.TempDir())})
	ts := httptest.NewServer(s.Handler(HTTPOptions{MaxInFlight: 2, BodyTimeout: 500 * time.Millisecond}))
	defer ts.Close()
	addr := strings.TrimPrefix(ts.URL, "http://")
	start := time.Now()
	slow := []net.Conn{slowRequest(t, addr, "/predict", 1000), slowRequest(t, addr, "/learn", 1000)}
	time.Sleep(100 * time.Millisecond) // both handlers hold their places
	req := body(german(t)[:1], false)
	resp, err := http.Post(ts.URL+"/predict", "application/json", strings.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || !strings.Contains(string(msg), "busy: 2 requests are under way") {
		t.Errorf("a third request: %d, Retry-After %q, %s", resp.StatusCode, resp.Header.Get("Retry-After"), msg)
	}
	if code := call(t, "GET", ts.URL+"/healthz", "", nil); code != 200 {
		t.Errorf("/healthz while busy: %d", code)
	}
	for _, c := range slow {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("a slow body: %v", err)
		}
		msg, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 408 || !strings.Contains(string(msg), "did not arrive in time") {
			t.Errorf("a slow body: %d %s", resp.StatusCode, msg)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("a slow body answered after %v, BodyTimeout is 500ms", took)
		}
		if _, err := c.Read(make([]byte, 1)); err != io.EOF {
			t.Errorf("the connection of a slow body is not closed: %v", err)
		}
	}
	if code := call(t, "POST", ts.URL+"/predict", req, nil); code != 200 {
		t.Errorf("after the slow bodies: %d", code)
	}
}

// TestTokens: /learn and /predict need their bearer tokens when they are
// set (401 without, or with another); /healthz and /metrics need none; a
// read-only server refuses /learn.
func TestTokens(t *testing.T) {
	s := startServer(t, Options{Model: newModel(t, t.TempDir())})
	learnToken, predictToken := "learn-0123456789abcdef", "predict-0123456789abcdef"
	secured := serveHTTP(t, s, HTTPOptions{LearnToken: learnToken, PredictToken: predictToken})
	readOnly := serveHTTP(t, s, HTTPOptions{ReadOnly: true})
	rows := german(t)[100:101]
	send := func(url, path, token string, labelled bool) (int, string) {
		req, _ := http.NewRequest("POST", url+path, strings.NewReader(body(rows, labelled)))
		if token != "" {
			req.Header.Set("Authorization", token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		msg, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == 401 && resp.Header.Get("WWW-Authenticate") != `Bearer realm="bogd"` {
			t.Errorf("401 without WWW-Authenticate: %q", resp.Header.Get("WWW-Authenticate"))
		}
		return resp.StatusCode, string(msg)
	}
	for _, c := range []struct {
		url, path, auth string
		code            int
	}{
		{secured, "/learn", "", 401},
		{secured, "/learn", "Bearer " + predictToken, 401},
		{secured, "/learn", "Bearer " + learnToken + "x", 401},
		{secured, "/learn", "Basic " + learnToken, 401},
		{secured, "/learn", "Bearer " + learnToken, 200},
		{secured, "/learn", "bearer " + learnToken, 200},
		{secured, "/predict", "", 401},
		{secured, "/predict", "Bearer " + learnToken, 401},
		{secured, "/predict", "Bearer " + predictToken, 200},
		{readOnly, "/learn", "", 403},
		{readOnly, "/predict", "", 200},
	} {
		if code, msg := send(c.url, c.path, c.auth, c.path == "/learn"); code != c.code {
			t.Errorf("%s %q: %d %s, want %d", c.path, c.auth, code, msg, c.code)
		}
	}
	if s.Version() != 2 {
		t.Errorf("at position %d: want the 2 authorized learns", s.Version())
	}
	for _, path := range []string{"/healthz", "/metrics"} {
		resp, err := http.Get(secured + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s without a token: %d", path, resp.StatusCode)
		}
	}
}

// TestServeTimeouts: Serve's http.Server has read, write and idle
// timeouts, and its body deadline cuts a slow body.
func TestServeTimeouts(t *testing.T) {
	s, err := New(Options{Model: newModel(t, t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	var srv *http.Server
	addr, stop := serveOn(t, s, HTTPOptions{BodyTimeout: 300 * time.Millisecond, Configure: func(h *http.Server) { srv = h }})
	c := slowRequest(t, addr, "/learn", 100)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 408 {
		t.Errorf("a slow body: %v %v", resp, err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if srv.ReadHeaderTimeout != 5*time.Second || srv.ReadTimeout != srv.ReadHeaderTimeout+300*time.Millisecond ||
		srv.WriteTimeout != 30*time.Second || srv.IdleTimeout != time.Minute {
		t.Errorf("timeouts: header %v, read %v, write %v, idle %v", srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout)
	}
}

// TestTLS: Serve answers HTTPS with the certificate files; after Reload
// new connections get the certificate the files hold now; files that do
// not hold one leave the one in use.
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	first := tlstest.WriteCertificate(t, certFile, keyFile, 1)
	certs, err := LoadCertificate(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Model: newModel(t, dir)})
	if err != nil {
		t.Fatal(err)
	}
	addr, stop := serveOn(t, s, HTTPOptions{TLS: certs.TLSConfig()})
	defer func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	}()
	get := func(trusted *x509.Certificate) error {
		resp, err := tlstest.Client(trusted).Get("https://" + addr + "/healthz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("/healthz: %d", resp.StatusCode)
		}
		return nil
	}
	if err := get(first); err != nil {
		t.Fatalf("HTTPS with the first certificate: %v", err)
	}
	if resp, err := http.Get("http://" + addr + "/healthz"); err == nil && resp.StatusCode == 200 {
		t.Error("plain HTTP answered 200 on the HTTPS port")
	}
	second := tlstest.WriteCertificate(t, certFile, keyFile, 2)
	if err := get(second); err == nil {
		t.Error("the renewed certificate is served before Reload")
	}
	if err := certs.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := get(second); err != nil {
		t.Errorf("after Reload: %v", err)
	}
	if err := get(first); err == nil {
		t.Error("after Reload the first certificate is still served")
	}
	os.WriteFile(keyFile, []byte("not a key"), 0o600)
	if err := certs.Reload(); err == nil || !strings.Contains(err.Error(), keyFile) {
		t.Errorf("Reload of a broken key: %v", err)
	}
	if err := get(second); err != nil {
		t.Errorf("after a failed Reload the certificate in use is gone: %v", err)
	}
	if !certs.NotAfter().Equal(second.NotAfter) {
		t.Errorf("NotAfter %v, want %v", certs.NotAfter(), second.NotAfter)
	}
}
