package serve_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/serve"
)

// A service mounts the server's API beside its own routes; learning is
// durable in the file log, and a prediction can ask for the position a
// learn answered.
func Example() {
	dir, _ := os.MkdirTemp("", "serve-example")
	defer os.RemoveAll(dir)
	l, _ := bogd.New(bogd.BOGDpp, bogd.Config{Dim: 2, Budget: 10, Sigma: 1, Seed: 1})
	l.SaveFile(filepath.Join(dir, "model.bogd"))

	s, err := serve.New(serve.Options{
		Model:   filepath.Join(dir, "model.bogd"),               // snapshots go beside it
		OpenLog: serve.FileLog(filepath.Join(dir, "model.log")), // nil: no durable log
	})
	if err != nil {
		panic(err)
	}
	defer s.Close() // the last snapshot
	mux := http.NewServeMux()
	mux.Handle("/model/", http.StripPrefix("/model", s.Handler(serve.HTTPOptions{})))

	ts := httptest.NewServer(mux)
	defer ts.Close()
	resp, _ := http.Post(ts.URL+"/model/learn", "application/json", strings.NewReader(`{"rows":[{"label":1,"features":{"1":0.5,"2":1}}]}`))
	resp.Body.Close()
	out, err := s.Learn(context.Background(), []serve.Example{{Index: []int32{0}, Value: []float32{-1}, Label: -1}})
	if err != nil {
		panic(err)
	}
	p, version, _ := s.Predictor(context.Background(), out.Version) // read your writes
	fmt.Println(out.Learned, out.Version, version, p.SupportVectors())
	// Output: 1 2 2 2
}
