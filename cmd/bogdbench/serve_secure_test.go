package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bogd-project/bogd/internal/tlstest"
)

// TestServeTokens: the learning token from a file and the prediction
// token from the environment are required by /learn and /predict;
// --read-only refuses /learn.
func TestServeTokens(t *testing.T) {
	dir := t.TempDir()
	bin := buildBench(t)
	model := trainGerman(t, dir)
	learnToken, predictToken := "learn-6f1c0a9e8d7b6a5f4e3d", "predict-0a1b2c3d4e5f6a7b8c9d"
	tokenFile := filepath.Join(dir, "learn-token")
	os.WriteFile(tokenFile, []byte(learnToken+"\n"), 0o600)
	lines := germanLines(t)[:2]
	learn, predict := requestOf(lines, true), requestOf(lines, false)

	p := startServeEnv(t, bin, []string{predictTokenEnv + "=" + predictToken}, "--model", model, "--learn-token-file", tokenFile)
	for _, c := range []struct {
		path, token, body string
		code              int
	}{
		{"/learn", "", learn, 401},
		{"/learn", predictToken, learn, 401},
		{"/learn", learnToken, learn, 200},
		{"/predict", "", predict, 401},
		{"/predict", learnToken, predict, 401},
		{"/predict", predictToken, predict, 200},
	} {
		if code, err := tryPostAs(http.DefaultClient, p.url+c.path, c.token, c.body, nil); err != nil || code != c.code {
			t.Errorf("%s with token %q: %d %v, want %d", c.path, c.token, code, err, c.code)
		}
	}
	p.stop(t)

	p = startServe(t, bin, "--model", model, "--read-only")
	if code, _ := tryPost(p.url+"/learn", learn, nil); code != 403 {
		t.Errorf("/learn on a --read-only server: %d", code)
	}
	if code, _ := tryPost(p.url+"/predict", predict, nil); code != 200 {
		t.Errorf("/predict on a --read-only server: %d", code)
	}
	p.stop(t)
}

// TestServeBeyondLoopback: listening beyond loopback is refused while
// anyone could learn there; a learning token, --read-only or --insecure
// allow it.
func TestServeBeyondLoopback(t *testing.T) {
	dir := t.TempDir()
	bin := buildBench(t)
	model := trainGerman(t, dir)
	if code, _, stderr := bench(t, "serve", "--model", model, "--addr", "0.0.0.0:0"); code != 2 || !strings.Contains(stderr, "listens beyond loopback") {
		t.Errorf("--addr 0.0.0.0:0 without a learning token: exit %d, %s", code, stderr)
	}
	tokenFile := filepath.Join(dir, "learn-token")
	os.WriteFile(tokenFile, []byte("0123456789abcdef0123"), 0o600)
	for _, allow := range [][]string{{"--insecure"}, {"--read-only"}, {"--learn-token-file", tokenFile}} {
		p := startServe(t, bin, append([]string{"--model", model, "--addr", "0.0.0.0:0", "--no-log"}, allow...)...)
		p.stop(t)
	}
	os.WriteFile(tokenFile, []byte("short"), 0o600)
	if code, _, stderr := bench(t, "serve", "--model", model, "--learn-token-file", tokenFile); code != 1 || !strings.Contains(stderr, "a token of 5 characters is easily guessed") {
		t.Errorf("a short token: exit %d, %s", code, stderr)
	}
}

// TestServeTLS: --tls-cert and --tls-key serve HTTPS; after SIGHUP new
// connections get the certificate the files hold then.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	bin := buildBench(t)
	model := trainGerman(t, dir)
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	first := tlstest.WriteCertificate(t, certFile, keyFile, 1)
	p := startServe(t, bin, "--model", model, "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(p.url, "https://") {
		t.Fatalf("listening on %s", p.url)
	}
	predict := requestOf(germanLines(t)[:1], false)
	if code, err := tryPostAs(tlstest.Client(first), p.url+"/predict", "", predict, nil); err != nil || code != 200 {
		t.Fatalf("/predict over HTTPS: %d %v", code, err)
	}
	second := tlstest.WriteCertificate(t, certFile, keyFile, 2)
	p.cmd.Process.Signal(syscall.SIGHUP)
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(p.log.String(), "SIGHUP: reloaded the TLS certificate"); {
		if time.Now().After(deadline) {
			t.Fatalf("no reload after SIGHUP:\n%s", p.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, err := tryPostAs(tlstest.Client(second), p.url+"/predict", "", predict, nil); err != nil || code != 200 {
		t.Errorf("/predict with the renewed certificate: %d %v", code, err)
	}
	p.stop(t)
}

// TestServeSnapshotFailure: while snapshots fail, /healthz answers 503
// with the reason; a last snapshot that fails at shutdown exits 1 with
// the reason.
func TestServeSnapshotFailure(t *testing.T) {
	dir := t.TempDir()
	bin := buildBench(t)
	model := trainGerman(t, dir)
	snaps := filepath.Join(dir, "snapshots")
	os.Mkdir(snaps, 0o755)
	p := startServe(t, bin, "--model", model, "--snapshots", snaps, "--log", filepath.Join(dir, "log"), "--snapshot-every", "20ms")
	if code := post(t, p.url+"/learn", requestOf(germanLines(t)[:1], true), nil); code != 200 {
		t.Fatalf("/learn: %d", code)
	}
	os.RemoveAll(snaps)
	for deadline := time.Now().Add(5 * time.Second); ; {
		h := health(t, p.url)
		if h.Status == "failing" && strings.Contains(h.Error, "snapshot at position 1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz %+v while snapshots fail\n%s", h, p.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	err := p.cmd.Wait()
	<-p.done
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 || !strings.Contains(p.log.String(), "bogdbench serve: snapshot at position 1") {
		t.Errorf("a last snapshot that fails: %v\n%s", err, p.log)
	}
}
