package serve

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// serveOn runs s.Serve with opt on a free loopback port and returns its
// address, and the function that ends Serve's context and returns what
// Serve returned.
func serveOn(t testing.TB, s *Server, opt HTTPOptions) (addr string, stop func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, opt) }()
	return ln.Addr().String(), func() error {
		cancel()
		return <-served
	}
}

// TestShutdown: when its context ends, Serve stops at once when idle (an
// idle keep-alive connection included); under load the learns under way
// finish and are answered, and a prediction waiting for a position not
// reached gives up with 503 instead of holding the shutdown.
func TestShutdown(t *testing.T) {
	dir := t.TempDir()
	model := newModel(t, dir)
	rows := german(t)[100:]
	start := func() (string, func() error) {
		s, err := New(Options{Model: model, OpenLog: FileLog(filepath.Join(dir, "log")), PublishEvery: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		addr, stop := serveOn(t, s, HTTPOptions{})
		return "http://" + addr, stop
	}

	url, stop := start()
	if code := call(t, "POST", url+"/predict", body(rows[:1], false), nil); code != 200 {
		t.Fatalf("/predict: %d", code)
	}
	began := time.Now()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	idle := time.Since(began)
	t.Logf("an idle server stopped in %v", idle)
	if idle > time.Second {
		t.Errorf("an idle server took %v to stop", idle)
	}

	url, stop = start()
	waiting := make(chan int, 1)
	go func() {
		resp, err := http.Post(url+"/predict?at_least=1000000", "application/json", strings.NewReader(body(rows[:1], false)))
		if err != nil {
			waiting <- 0
			return
		}
		resp.Body.Close()
		waiting <- resp.StatusCode
	}()
	var wg sync.WaitGroup
	codes := make(chan int, 400)
	for c := range 8 {
		wg.Go(func() {
			for i := range 50 {
				k := c*50 + i
				resp, err := http.Post(url+"/learn", "application/json", strings.NewReader(body(rows[k:k+1], true)))
				if err != nil {
					return // refused: the server stopped accepting
				}
				resp.Body.Close()
				codes <- resp.StatusCode
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	began = time.Now()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	t.Logf("under load: stopped in %v", time.Since(began))
	wg.Wait()
	close(codes)
	answered := 0
	for code := range codes {
		if code != 200 {
			t.Errorf("a learn under way at shutdown answered %d", code)
		}
		answered++
	}
	if code := <-waiting; code != 503 {
		t.Errorf("a prediction waiting at shutdown answered %d, want 503", code)
	}
	if answered == 0 {
		t.Error("no learn was answered")
	}
}
