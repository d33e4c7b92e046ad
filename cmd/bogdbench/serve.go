package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/simd"
	"github.com/bogd-project/bogd/task"
)

// serveCommand is `bogdbench serve`: a small HTTP server over a saved
// model. POST /predict answers from an immutable copy of the model, so
// that prediction never waits for learning; POST /learn applies rows in
// order on the one goroutine that owns the learner, which then publishes
// a new copy; the learner is saved to versioned snapshot files on a timer
// and at shutdown, and the newest is loaded at start.
func serveCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stderr)
	modelPath := fs.String("model", "", "model file written by train, tune or run --save (required); its input preparation (hashing, scaling) applies to the rows")
	addr := fs.String("addr", "127.0.0.1:8080", "HOST:PORT to listen on (port 0: any free port, printed)")
	dir := fs.String("snapshots", "", "directory of the snapshots, MODEL-NAME.snapshot-NNNNNN.bogd (default: the model's); at start the newest snapshot of the model is loaded, unless the model file is newer")
	every := fs.Duration("snapshot-every", time.Minute, "write a snapshot this often when the model has learnt since the last (0: at shutdown only)")
	publishEvery := fs.Duration("publish-every", 10*time.Millisecond, "publish what /learn learnt to /predict at most this often (a publication copies the model); 0: after every /learn, before it answers")
	keep := fs.Int("keep", 3, "snapshots kept: older ones are removed (the --model file never is)")
	maxBody := fs.Int64("max-request", 32<<20, "largest request body, in bytes")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *modelPath == "":
		return usagef("--model is required")
	case *every < 0 || *publishEvery < 0:
		return usagef("--snapshot-every and --publish-every must not be negative")
	case *keep < 1:
		return usagef("--keep must be at least 1, got %d", *keep)
	case *maxBody < 1:
		return usagef("--max-request must be positive, got %d", *maxBody)
	}
	if err := simd.EnvError(); err != nil {
		return err
	}
	log := func(msg string) { fmt.Fprintf(stderr, "bogdbench serve: %s\n", msg) }
	snaps := snapshots{model: *modelPath, dir: *dir}
	if snaps.dir == "" {
		snaps.dir = filepath.Dir(*modelPath)
	}
	s, err := newServer(snaps, *every, *keep, *maxBody, log)
	if err != nil {
		return err
	}
	s.publishEvery = *publishEvery
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return s.serve(ctx, ln)
}

// snapshots names the snapshot files of a model: NAME.snapshot-NNNNNN.bogd
// in dir, NAME the model's file name without its extension, NNNNNN a
// sequence number that grows by one per snapshot.
type snapshots struct{ model, dir string }

func (s snapshots) prefix() string {
	base := filepath.Base(s.model)
	return strings.TrimSuffix(base, filepath.Ext(base)) + ".snapshot-"
}

func (s snapshots) path(seq int) string {
	return filepath.Join(s.dir, fmt.Sprintf("%s%06d.bogd", s.prefix(), seq))
}

// list returns the sequence numbers of the snapshot files, ascending.
func (s snapshots) list() ([]int, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	var seqs []int
	for _, e := range entries {
		digits, ok := strings.CutPrefix(e.Name(), s.prefix())
		if !ok {
			continue
		}
		if digits, ok = strings.CutSuffix(digits, ".bogd"); !ok {
			continue
		}
		if n, err := strconv.Atoi(digits); err == nil && n > 0 {
			seqs = append(seqs, n)
		}
	}
	slices.Sort(seqs)
	return seqs, nil
}

// newest returns the file to start from: the newest snapshot, unless the
// model file is newer (it was trained again since); and the last sequence
// number in use.
func (s snapshots) newest() (path string, last int, err error) {
	seqs, err := s.list()
	if err != nil {
		return "", 0, err
	}
	if len(seqs) == 0 {
		return s.model, 0, nil
	}
	last = seqs[len(seqs)-1]
	model, err := os.Stat(s.model)
	if err != nil {
		return "", 0, err
	}
	snap, err := os.Stat(s.path(last))
	if err != nil {
		return "", 0, err
	}
	if model.ModTime().After(snap.ModTime()) {
		return s.model, last, nil
	}
	return s.path(last), last, nil
}

// published is what predictions read: a frozen copy of the learner (any
// number of goroutines may predict with it) and what it counts.
type published struct {
	predictor      *bogd.Predictor
	version        uint64 // grows by one per publication
	supportVectors int
}

// server serves one model. The learner belongs to the goroutine of loop:
// handlers reach it through the learn channel only.
type server struct {
	learner *bogd.Learner
	model   bogd.Config // the learner's, which never changes: handlers read it
	in      prep.Input  // the learner's, which never changes
	current atomic.Pointer[published]

	learn chan learnRequest
	snaps snapshots
	seq   int           // of the last snapshot written or loaded
	every time.Duration // snapshot period (0: none)
	// publishEvery is the least time between two publications (0: one
	// after every batch, before /learn answers).
	publishEvery time.Duration
	keep         int
	maxBody      int64
	log          func(string)

	// Owned by loop: the version of the last snapshot, and the version
	// the learner is at; when it last published.
	savedVersion, version uint64
	published             time.Time

	metrics serverMetrics
}

// serverMetrics are the Prometheus metrics of /metrics.
type serverMetrics struct {
	registry                      *prometheus.Registry
	requests                      *prometheus.CounterVec
	duration                      *prometheus.HistogramVec
	learned, predicted, snapshots prometheus.Counter
	snapshotErrors                prometheus.Counter
	supportVectors, version       prometheus.Gauge
}

func newServerMetrics() serverMetrics {
	m := serverMetrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bogd_http_requests_total", Help: "HTTP requests by handler and status code.",
		}, []string{"handler", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "bogd_http_request_duration_seconds", Help: "HTTP request latencies by handler.",
			Buckets: prometheus.ExponentialBuckets(25e-6, 2, 16),
		}, []string{"handler"}),
		learned:        prometheus.NewCounter(prometheus.CounterOpts{Name: "bogd_examples_learned_total", Help: "Examples learnt through /learn."}),
		predicted:      prometheus.NewCounter(prometheus.CounterOpts{Name: "bogd_examples_predicted_total", Help: "Rows predicted through /predict."}),
		snapshots:      prometheus.NewCounter(prometheus.CounterOpts{Name: "bogd_snapshots_total", Help: "Snapshots written to disk."}),
		snapshotErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "bogd_snapshot_errors_total", Help: "Snapshots that failed to be written."}),
		supportVectors: prometheus.NewGauge(prometheus.GaugeOpts{Name: "bogd_support_vectors", Help: "Support vectors of the model predictions read."}),
		version:        prometheus.NewGauge(prometheus.GaugeOpts{Name: "bogd_model_version", Help: "Publications of the model since the server started."}),
	}
	m.registry.MustRegister(m.requests, m.duration, m.learned, m.predicted, m.snapshots, m.snapshotErrors, m.supportVectors, m.version,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// newServer loads the newest snapshot of the model (or the model).
func newServer(snaps snapshots, every time.Duration, keep int, maxBody int64, log func(string)) (*server, error) {
	path, last, err := snaps.newest()
	if err != nil {
		return nil, err
	}
	l, err := loadModel(path, log)
	if err != nil {
		return nil, err
	}
	if path != snaps.model {
		log(fmt.Sprintf("loaded %s, the newest snapshot of %s", path, snaps.model))
	} else if last > 0 {
		log(fmt.Sprintf("loaded %s: it is newer than its snapshots (the newest, %s, is kept)", path, snaps.path(last)))
	} else {
		log(fmt.Sprintf("loaded %s", path))
	}
	log(describeLearner(l) + fmt.Sprintf(", %d support vectors", l.SupportVectors()))
	s := &server{
		learner: l, model: l.Config(), in: l.Input(), learn: make(chan learnRequest, 64),
		snaps: snaps, seq: last, every: every, keep: keep, maxBody: maxBody, log: log,
		metrics: newServerMetrics(),
	}
	if err := s.publish(); err != nil {
		return nil, err
	}
	return s, nil
}

// publish makes the learner's present state what predictions read: its
// Predictor, which predicts exactly as the learner and as `predict` on a
// saved file.
func (s *server) publish() error {
	frozen, err := s.learner.Predictor()
	if err != nil {
		return err
	}
	p := &published{predictor: frozen, version: s.version, supportVectors: frozen.SupportVectors()}
	s.current.Store(p)
	s.published = time.Now()
	s.metrics.supportVectors.Set(float64(p.supportVectors))
	s.metrics.version.Set(float64(p.version))
	return nil
}

// learnRequest is a batch of rows for the learner, ready for it (labels
// checked and scaled, features prepared), and where its outcome goes.
type learnRequest struct {
	xs     []engine.Vector
	labels []float64
	done   chan learnOutcome
}

// learnOutcome is what /learn answers.
type learnOutcome struct {
	Learned  int      `json:"learned"`
	Mistakes *int     `json:"mistakes,omitempty"`      // classification: of the predictions before each update
	Squared  *float64 `json:"squared_error,omitempty"` // regression: Σ (y − ŷ)², the model's scale
	// Version is the model version that includes these rows: /predict
	// answers with it or a later one once it is published (at once, or
	// within serve --publish-every).
	Version        uint64 `json:"version"`
	SupportVectors int    `json:"support_vectors"`
	err            error
}

// loop owns the learner: it learns the batches of /learn in the order
// they come (batches waiting together are learnt at once), publishes
// what they changed (at most every s.publishEvery), writes snapshots
// every s.every, and a last one when stop is closed.
func (s *server) loop(stop <-chan struct{}) {
	var tick <-chan time.Time
	if s.every > 0 {
		t := time.NewTicker(s.every)
		defer t.Stop()
		tick = t.C
	}
	var publishLater <-chan time.Time // armed while a publication waits
	publish := func() {
		if err := s.publish(); err != nil {
			s.log(fmt.Sprintf("publish the model: %v", err))
		}
	}
	for {
		select {
		case req := <-s.learn:
			batch := []learnRequest{req}
		more:
			for len(batch) < cap(s.learn) {
				select {
				case r := <-s.learn:
					batch = append(batch, r)
				default:
					break more
				}
			}
			outcomes := make([]learnOutcome, len(batch))
			for i, r := range batch {
				outcomes[i] = s.apply(r.xs, r.labels)
			}
			s.version++
			if wait := s.publishEvery - time.Since(s.published); wait <= 0 {
				publish()
			} else if publishLater == nil {
				publishLater = time.After(wait)
			}
			for i, r := range batch {
				outcomes[i].Version, outcomes[i].SupportVectors = s.version, s.learner.SupportVectors()
				r.done <- outcomes[i]
			}
		case <-publishLater:
			publishLater = nil
			if s.current.Load().version != s.version {
				publish()
			}
		case <-tick:
			s.snapshot()
		case <-stop:
			s.snapshot()
			return
		}
	}
}

// apply learns rows in order.
func (s *server) apply(xs []engine.Vector, labels []float64) learnOutcome {
	var out learnOutcome
	var mistakes int
	var squared float64
	for i, x := range xs {
		st, err := s.learner.Learn(x, labels[i])
		if err != nil {
			out.err = fmt.Errorf("row %d: %w (the rows before it were learnt)", i+1, err)
			break
		}
		out.Learned++
		if st.Mistake {
			mistakes++
		}
		squared += (labels[i] - st.Label) * (labels[i] - st.Label)
	}
	if s.model.Task == task.Regression {
		out.Squared = &squared
	} else {
		out.Mistakes = &mistakes
	}
	s.metrics.learned.Add(float64(out.Learned))
	return out
}

// snapshot writes the learner to the next snapshot file when it has
// learnt since the last one, then removes the snapshots beyond s.keep.
func (s *server) snapshot() {
	if s.version == s.savedVersion {
		return
	}
	path := s.snaps.path(s.seq + 1)
	if err := saveModel(path, s.learner, false); err != nil {
		s.metrics.snapshotErrors.Inc()
		s.log(fmt.Sprintf("snapshot: %v", err))
		return
	}
	s.seq++
	s.savedVersion = s.version
	s.metrics.snapshots.Inc()
	s.log(fmt.Sprintf("wrote %s (version %d, %d support vectors)", path, s.version, s.learner.SupportVectors()))
	seqs, err := s.snaps.list()
	if err != nil {
		s.log(fmt.Sprintf("list snapshots: %v", err))
		return
	}
	for _, old := range seqs[:max(0, len(seqs)-s.keep)] {
		p := s.snaps.path(old)
		for _, f := range append([]string{p}, prep.BesideFiles(p)...) {
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				s.log(fmt.Sprintf("remove an old snapshot: %v", err))
			}
		}
	}
}

// serve answers on ln until ctx is done, then stops accepting, lets the
// requests under way finish (10 s at most), and writes the last snapshot.
func (s *server) serve(ctx context.Context, ln net.Listener) error {
	stop := make(chan struct{})
	looped := make(chan struct{})
	go func() {
		s.loop(stop)
		close(looped)
	}()
	srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	failed := make(chan error, 1)
	go func() { failed <- srv.Serve(ln) }()
	s.log(fmt.Sprintf("listening on http://%s (POST /predict, POST /learn, GET /healthz, GET /metrics)", ln.Addr()))
	var err error
	select {
	case <-ctx.Done():
		s.log("shutting down: finishing the requests under way")
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = srv.Shutdown(sctx)
		cancel()
	case err = <-failed:
	}
	close(stop)
	<-looped
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// handler routes the endpoints, each counted and timed for /metrics.
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	route := func(pattern, name string, h http.HandlerFunc) {
		mux.Handle(pattern, promhttp.InstrumentHandlerDuration(s.metrics.duration.MustCurryWith(prometheus.Labels{"handler": name}),
			promhttp.InstrumentHandlerCounter(s.metrics.requests.MustCurryWith(prometheus.Labels{"handler": name}), h)))
	}
	route("POST /predict", "predict", s.handlePredict)
	route("POST /learn", "learn", s.handleLearn)
	route("GET /healthz", "healthz", s.handleHealth)
	route("GET /metrics", "metrics", promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{}).ServeHTTP)
	return mux
}

// requestJSON is the body of /predict and /learn.
type requestJSON struct {
	Rows []struct {
		// Label is the true label (/learn; /predict ignores it).
		Label *json.Number `json:"label"`
		// Features maps LIBSVM's 1-based feature indices (or names, for a
		// model that hashes them) to values.
		Features map[string]json.Number `json:"features"`
	} `json:"rows"`
}

// badRequest is a problem of the request, answered with 400.
type badRequest struct{ error }

// readRows decodes a request: the features of its rows, values parsed as
// the LIBSVM reader parses them, and their labels, required and checked
// against the model's task when labelled.
func (s *server) readRows(w http.ResponseWriter, r *http.Request, labelled bool) ([][]prep.Feature, []float64, error) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.maxBody))
	dec.DisallowUnknownFields()
	var req requestJSON
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, nil, err
		}
		return nil, nil, badRequest{fmt.Errorf("the body is not a request: %w", err)}
	}
	if dec.More() {
		return nil, nil, badRequest{errors.New("the body holds more than one JSON value")}
	}
	if len(req.Rows) == 0 {
		return nil, nil, badRequest{errors.New(`no rows: want {"rows":[{"features":{"1":0.5}}, ...]}`)}
	}
	labels := make([]float64, len(req.Rows))
	rows := make([][]prep.Feature, len(req.Rows))
	for i, row := range req.Rows {
		switch {
		case row.Label != nil:
			y, err := row.Label.Float64()
			if err != nil {
				return nil, nil, badRequest{fmt.Errorf("row %d: label %s is not a finite number", i+1, *row.Label)}
			}
			labels[i] = y
		case labelled:
			return nil, nil, badRequest{fmt.Errorf("row %d: no label: /learn needs one", i+1)}
		}
		rows[i] = make([]prep.Feature, 0, len(row.Features))
		for k, num := range row.Features {
			v, err := strconv.ParseFloat(string(num), 32)
			if err != nil {
				return nil, nil, badRequest{fmt.Errorf("row %d: feature %q: %s is not a float32", i+1, k, num)}
			}
			rows[i] = append(rows[i], prep.Feature{Key: k, Value: v})
		}
	}
	if labelled {
		if err := s.checkLabels(labels); err != nil {
			return nil, nil, badRequest{err}
		}
	}
	return rows, labels, nil
}

// checkLabels checks the labels of /learn against the model's task, so
// that a batch is learnt whole or not at all.
func (s *server) checkLabels(labels []float64) error {
	for i, y := range labels {
		switch s.model.Task {
		case task.Binary:
			if y != 1 && y != -1 {
				return fmt.Errorf("row %d: label %v: a binary model learns -1 or +1", i+1, y)
			}
		case task.Multiclass:
			if !slices.Contains(s.model.Classes, int(y)) || y != float64(int(y)) {
				return fmt.Errorf("row %d: label %v is not one of the model's classes %v", i+1, y, s.model.Classes)
			}
		}
	}
	return nil
}

// fail answers an error: 400 for a bad request, 413 for a body too large,
// 500 otherwise.
func fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, new(badRequest)):
		code = http.StatusBadRequest
	case errors.As(err, &tooBig):
		code = http.StatusRequestEntityTooLarge
	}
	reply(w, code, map[string]string{"error": err.Error()})
}

func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// predictResponse is the answer of /predict.
type predictResponse struct {
	Predictions []predictionJSON `json:"predictions"`
	Classes     []int            `json:"classes,omitempty"` // multi-class: the order of scores and probabilities
	Version     uint64           `json:"version"`
	// IgnoredFeatures counts features beyond the model's dimension.
	IgnoredFeatures int `json:"ignored_features,omitempty"`
}

// handlePredict predicts the rows of a request with the published
// Predictor, from raw features to the label's scale: what a Go service
// gets from bogd.Predictor.PredictRow.
func (s *server) handlePredict(w http.ResponseWriter, r *http.Request) {
	rows, _, err := s.readRows(w, r, false)
	if err != nil {
		fail(w, err)
		return
	}
	p := s.current.Load()
	resp := predictResponse{Predictions: make([]predictionJSON, len(rows)), Version: p.version}
	if s.model.Task == task.Multiclass {
		resp.Classes = s.model.Classes
	}
	var row prep.Row
	for i, features := range rows {
		pred, err := p.predictor.PredictRow(&row, features)
		if errors.Is(err, prep.ErrRow) {
			err = badRequest{err}
		}
		if err == nil {
			resp.Predictions[i], err = newPredictionJSON(pred, s.model.Task)
		}
		if err != nil {
			fail(w, fmt.Errorf("row %d: %w", i+1, err))
			return
		}
		resp.IgnoredFeatures += len(row.Ignored)
	}
	s.metrics.predicted.Add(float64(len(rows)))
	reply(w, http.StatusOK, resp)
}

// handleLearn prepares the rows of a request as the model's were, all of
// them before the learner learns any, and waits for the learner.
func (s *server) handleLearn(w http.ResponseWriter, r *http.Request) {
	rows, labels, err := s.readRows(w, r, true)
	if err != nil {
		fail(w, err)
		return
	}
	req := learnRequest{xs: make([]engine.Vector, len(rows)), labels: labels, done: make(chan learnOutcome, 1)}
	for i, features := range rows {
		var row prep.Row
		if err := s.in.Prepare(&row, features, s.model.Dim); err != nil {
			fail(w, badRequest{fmt.Errorf("row %d: %w", i+1, err)})
			return
		}
		req.xs[i] = engine.Sparse(row.Index, row.Value)
		y := s.in.Label(labels[i])
		if math.IsInf(y, 0) {
			fail(w, badRequest{fmt.Errorf("row %d: label %v scales to %v", i+1, labels[i], y)})
			return
		}
		labels[i] = y
	}
	select {
	case s.learn <- req:
	case <-r.Context().Done():
		return
	}
	out := <-req.done // the learner answers every request it took
	if out.err != nil {
		fail(w, out.err)
		return
	}
	reply(w, http.StatusOK, out)
}

// healthResponse is the answer of /healthz.
type healthResponse struct {
	Status         string `json:"status"`
	Algorithm      string `json:"algorithm"`
	Task           string `json:"task"`
	Version        uint64 `json:"version"`
	SupportVectors int    `json:"support_vectors"`
}

func (s *server) handleHealth(w http.ResponseWriter, r *http.Request) {
	p := s.current.Load()
	reply(w, http.StatusOK, healthResponse{"ok", p.predictor.Algorithm().String(), s.model.Task.String(), p.version, p.supportVectors})
}
