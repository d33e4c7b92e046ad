package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// BenchmarkLearn: acknowledged one-row /learn requests per second from 1,
// 8 and 64 concurrent clients over loopback, to the server with the file
// log on the disk of the test's temporary directory (every answer after
// an fsync, shared by the requests waiting together) and to the same
// server with a memory log (learning that does not survive a crash), in
// loadRounds interleaved rounds of loadTime each. Run it with -benchtime 1x.
func BenchmarkLearn(b *testing.B) {
	rows := german(b)[100:]
	bodies := make([]string, len(rows))
	for i := range rows {
		bodies[i] = body(rows[i:i+1], true)
	}
	logs := []string{"file", "memory"}
	urls := make(map[string]string)
	for _, log := range logs {
		dir := b.TempDir()
		opt := Options{Model: newModel(b, dir), PublishEvery: 10 * time.Millisecond}
		if log == "file" {
			opt.OpenLog = FileLog(filepath.Join(dir, "log"))
		}
		urls[log] = serveHTTP(b, startServer(b, opt), loadOptions) + "/learn"
	}
	for _, clients := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			learnt := make(map[string]int64)
			for range loadRounds {
				for _, log := range logs {
					learnt[log] += learnFor(b, urls[log], bodies, clients)
				}
			}
			for _, log := range logs {
				b.ReportMetric(float64(learnt[log])/(loadRounds*loadTime).Seconds(), log+"-learns/s")
			}
			b.ReportMetric(float64(learnt["file"])/float64(learnt["memory"]), "file/memory")
		})
	}
}

// learnFor sends one-row /learn requests from clients concurrent clients,
// each its next when the last is answered, for loadTime, and returns how
// many were acknowledged.
func learnFor(b *testing.B, url string, bodies []string, clients int) int64 {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer client.CloseIdleConnections()
	var acked atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(loadTime)
	for c := range clients {
		wg.Go(func() {
			for i := c; time.Now().Before(deadline); i += clients {
				resp, err := client.Post(url, "application/json", strings.NewReader(bodies[i%len(bodies)]))
				if err != nil {
					b.Error(err)
					return
				}
				var out Outcome
				err = json.NewDecoder(resp.Body).Decode(&out)
				io.Copy(io.Discard, resp.Body) // the connection is reused only when read to its end
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 || out.Learned != 1 {
					b.Errorf("/learn: %d %+v %v", resp.StatusCode, out, err)
					return
				}
				acked.Add(1)
			}
		})
	}
	wg.Wait()
	return acked.Load()
}

// BenchmarkLoad is the load test (make load): vegeta sends one-row
// /predict requests over loopback from 1, 8 and 64 connections, each
// sending its next request when the last is answered, to
//
//	bare      a net/http handler that decodes the same JSON and answers a
//	          constant: this machine's ceiling for the protocol
//	predict   the server, nothing learning
//	learning  the server while another client learns 200 rows a second
//	          through /learn (file log, an fsync per group)
//
// in loadRounds interleaved rounds of loadTime each (a shared machine's
// noise then falls on every case alike), and reports, per case over its
// rounds, requests per second and the p50 and p99 latencies, and the
// ratios the targets are about. Run it with -benchtime 1x.
func BenchmarkLoad(b *testing.B) {
	rows := german(b)[100:]
	dir := b.TempDir()
	s := startServer(b, Options{Model: newModel(b, dir), OpenLog: FileLog(filepath.Join(dir, "log")), PublishEvery: 10 * time.Millisecond})
	served := serveHTTP(b, s, loadOptions)
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Rows []requestRow `json:"rows"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"predictions":[{"label":1,"score":0.5,"probability":0.6}],"version":0}` + "\n"))
	}))
	b.Cleanup(bare.Close)
	predict := []byte(body(rows[:1], false))
	modes := []string{"bare", "predict", "learning"}
	for _, conns := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			metrics := make(map[string]*vegeta.Metrics)
			for _, mode := range modes {
				metrics[mode] = new(vegeta.Metrics)
			}
			for range loadRounds {
				for _, mode := range modes {
					url := served + "/predict"
					if mode == "bare" {
						url = bare.URL + "/predict"
					}
					var stopLearning func()
					if mode == "learning" {
						stopLearning = learnAtRate(b, served+"/learn", rows, 200)
					}
					attack(b, metrics[mode], url, predict, conns)
					if stopLearning != nil {
						stopLearning()
					}
				}
			}
			for _, mode := range modes {
				m := metrics[mode]
				m.Close()
				if m.Success < 1 {
					b.Fatalf("%s: %.2f%% of %d requests succeeded: %v %v", mode, 100*m.Success, m.Requests, m.StatusCodes, m.Errors)
				}
				rate := float64(m.Requests) / (loadRounds * loadTime).Seconds()
				b.ReportMetric(rate, mode+"-req/s")
				b.ReportMetric(float64(m.Latencies.P50.Microseconds()), mode+"-p50-µs")
				b.ReportMetric(float64(m.Latencies.P99.Microseconds()), mode+"-p99-µs")
			}
			rps := func(mode string) float64 { return float64(metrics[mode].Requests) }
			b.ReportMetric(rps("predict")/rps("bare"), "predict/bare")
			b.ReportMetric(float64(metrics["learning"].Latencies.P99)/float64(metrics["predict"].Latencies.P99), "p99-learning/predict")
		})
	}
}

// loadOptions are the server's under load: more requests in flight than
// the 64 clients and the learner of the largest case, which the default
// cap would answer 503.
var loadOptions = HTTPOptions{MaxInFlight: 2 * DefaultMaxInFlight}

// Each case of BenchmarkLoad runs loadRounds attacks of loadTime.
const (
	loadRounds = 3
	loadTime   = time.Second
)

// attack adds to m the results of POSTs of body to url from conns
// connections, each sending its next request when the last is answered,
// for loadTime.
func attack(b *testing.B, m *vegeta.Metrics, url string, body []byte, conns int) {
	b.Helper()
	target := vegeta.NewStaticTargeter(vegeta.Target{Method: "POST", URL: url, Body: body, Header: http.Header{"Content-Type": {"application/json"}}})
	a := vegeta.NewAttacker(vegeta.Workers(uint64(conns)), vegeta.MaxWorkers(uint64(conns)), vegeta.Connections(conns), vegeta.MaxConnections(conns))
	for res := range a.Attack(target, vegeta.Rate{Freq: 0}, loadTime, "load") {
		m.Add(res)
	}
}

// learnAtRate sends one-row /learn requests at perSecond until the
// function it returns is called, and fails the benchmark if one fails.
func learnAtRate(b *testing.B, url string, rows []Example, perSecond int) (stop func()) {
	b.Helper()
	var targets []vegeta.Target
	for i := range rows {
		targets = append(targets, vegeta.Target{Method: "POST", URL: url, Body: []byte(body(rows[i:i+1], true))})
	}
	a := vegeta.NewAttacker(vegeta.Workers(8))
	results := a.Attack(vegeta.NewStaticTargeter(targets...), vegeta.Rate{Freq: perSecond, Per: time.Second}, time.Hour, "learn")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var learnt, failed int
	go func() {
		defer close(done)
		for res := range results {
			if res.Code == 200 {
				learnt++
			} else if ctx.Err() == nil {
				failed++
			}
		}
	}()
	return func() {
		cancel()
		a.Stop()
		<-done
		if failed > 0 {
			b.Errorf("%d of %d learns failed", failed, learnt+failed)
		}
	}
}
