package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
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
	modelPath := fs.String("model", "", "model file written by train, tune or run --save (required); the input preparation beside it applies to the rows")
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
	in      modelInput
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
	l, in, err := loadModel(path)
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
		learner: l, model: l.Config(), in: in, learn: make(chan learnRequest, 64),
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
// checked, features prepared), and where its outcome goes.
type learnRequest struct {
	rows *dataset.Dataset
	done chan learnOutcome
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
				outcomes[i] = s.apply(r.rows)
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
func (s *server) apply(rows *dataset.Dataset) learnOutcome {
	var out learnOutcome
	var mistakes int
	var squared float64
	for i := range rows.Len() {
		idx, val := rows.Row(i)
		st, err := s.learner.Learn(engine.Sparse(idx, val), rows.Labels[i])
		if err != nil {
			out.err = fmt.Errorf("row %d: %w (the rows before it were learnt)", i+1, err)
			break
		}
		out.Learned++
		if st.Mistake {
			mistakes++
		}
		squared += (rows.Labels[i] - st.Label) * (rows.Labels[i] - st.Label)
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
	if err := saveModel(path, s.learner, s.in, false); err != nil {
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
		for _, f := range []string{p, p + scalingSuffix} {
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

// readRows decodes a request and makes its rows ready for the model:
// labels required when labelled, features beyond the model's dimension
// ignored (counted), scaled as the model's training data.
func (s *server) readRows(w http.ResponseWriter, r *http.Request, labelled bool) (*dataset.Dataset, int, error) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.maxBody))
	dec.DisallowUnknownFields()
	var req requestJSON
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, 0, err
		}
		return nil, 0, badRequest{fmt.Errorf("the body is not a request: %w", err)}
	}
	if dec.More() {
		return nil, 0, badRequest{errors.New("the body holds more than one JSON value")}
	}
	if len(req.Rows) == 0 {
		return nil, 0, badRequest{errors.New(`no rows: want {"rows":[{"features":{"1":0.5}}, ...]}`)}
	}
	labels := make([]float64, len(req.Rows))
	for i, row := range req.Rows {
		switch {
		case row.Label != nil:
			y, err := row.Label.Float64()
			if err != nil {
				return nil, 0, badRequest{fmt.Errorf("row %d: label %s is not a finite number", i+1, *row.Label)}
			}
			labels[i] = y
		case labelled:
			return nil, 0, badRequest{fmt.Errorf("row %d: no label: /learn needs one", i+1)}
		}
	}
	if labelled {
		if err := s.checkLabels(labels); err != nil {
			return nil, 0, badRequest{err}
		}
	}
	read := indexedRows
	if s.in.HashBits > 0 {
		read = s.hashedRows
	}
	rows, err := read(req, labels)
	if err != nil {
		return nil, 0, badRequest{err}
	}
	ignored := clip(rows, s.model.Dim).features
	if s.in.Scaling != nil {
		if rows, err = s.in.Scaling.Apply(rows); err != nil {
			return nil, 0, badRequest{err}
		}
	}
	return rows, ignored, nil
}

// indexedRows makes the rows of a request whose features are 1-based
// indices, as the reader makes those of a file: values finite float32s,
// zeros dropped.
func indexedRows(req requestJSON, labels []float64) (*dataset.Dataset, error) {
	d := &dataset.Dataset{Name: "rows", Task: task.Regression, Labels: labels, RowPtr: make([]int, 1, len(labels)+1)}
	type feature struct {
		index int32 // 0-based
		value float32
	}
	var row []feature
	for i, r := range req.Rows {
		row = row[:0]
		for k, num := range r.Features {
			j, err := strconv.ParseInt(k, 10, 32)
			if err != nil || j < 1 {
				return nil, fmt.Errorf("row %d: feature %q is not a 1-based index", i+1, k)
			}
			v, err := strconv.ParseFloat(string(num), 32)
			if err != nil {
				return nil, fmt.Errorf("row %d: feature %d: %s is not a float32", i+1, j, num)
			}
			if v != 0 {
				row = append(row, feature{int32(j - 1), float32(v)})
			}
		}
		slices.SortFunc(row, func(a, b feature) int { return int(a.index - b.index) })
		for k, f := range row {
			if k > 0 && f.index == row[k-1].index {
				return nil, fmt.Errorf("row %d: feature %d is given twice", i+1, f.index+1)
			}
			d.Index, d.Value = append(d.Index, f.index), append(d.Value, f.value)
			d.Dim = max(d.Dim, int(f.index)+1)
		}
		d.RowPtr = append(d.RowPtr, len(d.Index))
	}
	return d, nil
}

// hashedRows makes the rows of a request whose features are names: they
// go through the LIBSVM reader, whose hasher made the model's features.
func (s *server) hashedRows(req requestJSON, labels []float64) (*dataset.Dataset, error) {
	var text strings.Builder
	for i, row := range req.Rows {
		text.WriteString("0")
		for k, v := range row.Features {
			if k == "" || strings.ContainsAny(k, " \t\r\n#") {
				return nil, fmt.Errorf("row %d: feature name %q: names are not empty and hold no space, tab, newline or #", i+1, k)
			}
			fmt.Fprintf(&text, " %s:%s", k, v)
		}
		text.WriteByte('\n')
	}
	rows, err := dataset.Read(strings.NewReader(text.String()), "rows", dataset.Options{Task: task.Regression, HashBits: s.in.HashBits})
	if pe := (*dataset.ParseError)(nil); errors.As(err, &pe) {
		return nil, fmt.Errorf("row %d: %s", pe.Line, pe.Msg)
	} else if err != nil {
		return nil, err
	}
	rows.Labels = labels
	return rows, nil
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

func (s *server) handlePredict(w http.ResponseWriter, r *http.Request) {
	rows, ignored, err := s.readRows(w, r, false)
	if err != nil {
		fail(w, err)
		return
	}
	p := s.current.Load()
	resp := predictResponse{Predictions: make([]predictionJSON, rows.Len()), Version: p.version, IgnoredFeatures: ignored}
	if s.model.Task == task.Multiclass {
		resp.Classes = s.model.Classes
	}
	for i := range rows.Len() {
		idx, val := rows.Row(i)
		pred, err := p.predictor.Predict(engine.Sparse(idx, val))
		if err == nil {
			resp.Predictions[i], err = newPredictionJSON(pred, s.model.Task, s.in.Scaling)
		}
		if err != nil {
			fail(w, fmt.Errorf("row %d: %w", i+1, err))
			return
		}
	}
	s.metrics.predicted.Add(float64(rows.Len()))
	reply(w, http.StatusOK, resp)
}

func (s *server) handleLearn(w http.ResponseWriter, r *http.Request) {
	rows, _, err := s.readRows(w, r, true)
	if err != nil {
		fail(w, err)
		return
	}
	req := learnRequest{rows: rows, done: make(chan learnOutcome, 1)}
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
