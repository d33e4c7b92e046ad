package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/task"
)

// HTTPOptions configure Server.Handler. The zero value is the default.
type HTTPOptions struct {
	// MaxBody is the largest request body, in bytes (default 32 MiB);
	// beyond it a request is answered 413.
	MaxBody int64
	// MaxWait bounds how long /predict?at_least=P waits for position P
	// (default 10 s); then it answers 503.
	MaxWait time.Duration
	// Wrap, when set, wraps the handler of each route (named "predict",
	// "learn", "healthz", "metrics") inside the metrics: where a service
	// adds authentication, limits or logging.
	Wrap func(route string, h http.Handler) http.Handler
	// ShutdownTimeout bounds how long Serve lets the requests under way
	// finish once its context ends (default 10 s).
	ShutdownTimeout time.Duration
	// Configure, when set, adjusts the http.Server Serve runs before it
	// starts (timeouts, TLS, limits on connections).
	Configure func(*http.Server)
}

// Serve answers the Handler's API on ln until ctx ends; then it stops
// accepting, lets the requests under way finish (predictions waiting for
// a position give up at once, Drain), closes the server (which writes the
// last snapshot) and returns. An idle server stops within milliseconds.
func (s *Server) Serve(ctx context.Context, ln net.Listener, opt HTTPOptions) error {
	if opt.ShutdownTimeout <= 0 {
		opt.ShutdownTimeout = 10 * time.Second
	}
	srv := &http.Server{Handler: s.Handler(opt), ReadHeaderTimeout: 10 * time.Second}
	if opt.Configure != nil {
		opt.Configure(srv)
	}
	srv.RegisterOnShutdown(s.Drain)
	failed := make(chan error, 1)
	go func() { failed <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
		s.opt.Logf("shutting down: finishing the requests under way")
		sctx, cancel := context.WithTimeout(context.Background(), opt.ShutdownTimeout)
		err = srv.Shutdown(sctx)
		cancel()
	case err = <-failed:
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(err, s.Close())
}

// Handler returns the server's HTTP API:
//
//	POST /predict  {"rows":[{"features":{"1":0.5,"7":1}}, …]}: predictions,
//	               from the model at position ?at_least=P or later
//	POST /learn    {"rows":[{"label":1,"features":{…}}, …]}: learnt in
//	               order once in the log; the answer carries the position
//	GET  /healthz  the model's algorithm, task, position and size
//	GET  /metrics  Prometheus metrics
//
// Features are keyed by 1-based index, or by name for a model that
// hashes names, and prepared as the model's input says (prep.Input: hashed,
// scaled; a regression's predictions come back on the label's scale). A bad request is answered 400 with the problem, and a
// /learn batch with a bad row is refused whole.
func (s *Server) Handler(opt HTTPOptions) http.Handler {
	if opt.MaxBody <= 0 {
		opt.MaxBody = 32 << 20
	}
	if opt.MaxWait <= 0 {
		opt.MaxWait = 10 * time.Second
	}
	h := &handler{s: s, opt: opt}
	mux := http.NewServeMux()
	route := func(pattern, name string, f http.Handler) {
		if opt.Wrap != nil {
			f = opt.Wrap(name, f)
		}
		mux.Handle(pattern, promhttp.InstrumentHandlerDuration(s.metrics.duration.MustCurryWith(prometheus.Labels{"handler": name}),
			promhttp.InstrumentHandlerCounter(s.metrics.requests.MustCurryWith(prometheus.Labels{"handler": name}), f)))
	}
	route("POST /predict", "predict", http.HandlerFunc(h.predict))
	route("POST /learn", "learn", http.HandlerFunc(h.learn))
	route("GET /healthz", "healthz", http.HandlerFunc(h.health))
	route("GET /metrics", "metrics", promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{}))
	return mux
}

type handler struct {
	s   *Server
	opt HTTPOptions
}

// request is the body of /predict and /learn.
type request struct {
	Rows []struct {
		// Label is the true label (/learn; /predict ignores it).
		Label *json.Number `json:"label"`
		// Features maps 1-based feature indices (or names, for a model
		// that hashes them) to values.
		Features map[string]json.Number `json:"features"`
	} `json:"rows"`
}

// badRequest is a problem of the request, answered with 400.
type badRequest struct{ error }

func (b badRequest) Unwrap() error { return b.error }

// rows decodes the body of a request (see Server.Rows).
func (h *handler) rows(w http.ResponseWriter, r *http.Request, labelled bool) ([]Example, int, error) {
	return h.s.Rows(http.MaxBytesReader(w, r.Body, h.opt.MaxBody), labelled)
}

// Rows decodes a request body, {"rows":[{"label":1,"features":{"1":0.5}},
// …]}, and prepares its rows for the model; labelled, it requires labels
// valid for the model's task. It returns the rows, and how many features
// lay beyond the model's dimension (ignored). A problem of the request is
// an error that names the row and the problem; a body beyond the limit of
// an http.MaxBytesReader, its *http.MaxBytesError.
func (s *Server) Rows(body io.Reader, labelled bool) ([]Example, int, error) {
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	var req request
	if err := dec.Decode(&req); err != nil {
		if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
			return nil, 0, err
		}
		return nil, 0, badRequestf("the body is not a request: %w", err)
	}
	if dec.More() {
		return nil, 0, badRequestf("the body holds more than one JSON value")
	}
	if len(req.Rows) == 0 {
		return nil, 0, badRequestf(`no rows: want {"rows":[{"features":{"1":0.5}}, ...]}`)
	}
	examples := make([]Example, len(req.Rows))
	labels := make([]float64, len(req.Rows))
	ignored := 0
	var raw []prep.Feature
	var row prep.Row
	for i, rr := range req.Rows {
		switch {
		case rr.Label != nil:
			y, err := rr.Label.Float64()
			if err != nil || math.IsInf(y, 0) {
				return nil, 0, badRequestf("row %d: label %s is not a finite number", i+1, *rr.Label)
			}
			labels[i] = y
		case labelled:
			return nil, 0, badRequestf("row %d: no label: /learn needs one", i+1)
		}
		raw = raw[:0]
		for k, num := range rr.Features {
			v, err := strconv.ParseFloat(string(num), 32)
			if err != nil {
				return nil, 0, badRequestf("row %d: feature %s: %s is not a float32", i+1, k, num)
			}
			raw = append(raw, prep.Feature{Key: k, Value: v})
		}
		if err := s.in.Prepare(&row, raw, s.cfg.Dim); err != nil {
			return nil, 0, badRequestf("row %d: %w", i+1, err)
		}
		ignored += len(row.Ignored)
		examples[i] = Example{Index: clone(row.Index), Value: clone(row.Value)}
	}
	if labelled {
		if err := s.CheckLabels(labels); err != nil {
			return nil, 0, badRequest{err}
		}
		for i := range examples {
			// A regression model trained scaled learns scaled labels.
			if examples[i].Label = s.in.Label(labels[i]); math.IsInf(examples[i].Label, 0) || math.IsNaN(examples[i].Label) {
				return nil, 0, badRequestf("row %d: label %v is beyond what the model's scaling maps", i+1, labels[i])
			}
		}
	}
	return examples, ignored, nil
}

func badRequestf(format string, args ...any) error {
	return badRequest{fmt.Errorf(format, args...)}
}

func clone[T any](s []T) []T { return append([]T(nil), s...) }

// fail answers an error: 400 for a bad request, 413 for a body too large,
// 503 when the server cannot learn or the model is not at the position
// asked for, 500 otherwise.
func fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	switch {
	case errors.As(err, new(badRequest)):
		code = http.StatusBadRequest
	case errors.As(err, new(*http.MaxBytesError)):
		code = http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrEventsOnly):
		code = http.StatusForbidden
	case errors.Is(err, ErrClosed), errors.Is(err, ErrNotLearnt), errors.Is(err, context.DeadlineExceeded):
		code = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "1")
	}
	reply(w, code, map[string]string{"error": err.Error()})
}

func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// Prediction is one row's prediction as /predict and `bogdbench predict
// --format json` write it.
type Prediction struct {
	// Label is the predicted label: ±1, a class, or the regression value
	// (on the label's original scale when the model was trained scaled).
	Label float64 `json:"label"`
	// Score is f(x) (binary, regression) or the predicted class's score.
	Score float64 `json:"score"`
	// Scores holds every class's score, in the order of the classes.
	Scores []float64 `json:"scores,omitempty"`
	// Probability is the calibrated probability of the predicted label
	// (bogd.Prediction), Probabilities every class's (calibrated models
	// only).
	Probability   *float64  `json:"probability,omitempty"`
	Probabilities []float64 `json:"probabilities,omitempty"`
}

// NewPrediction turns a prediction of a model of task t into its output
// form. Scores must be finite: JSON has no other numbers.
func NewPrediction(p bogd.Prediction, t task.Task) (Prediction, error) {
	pj := Prediction{Label: p.Label, Score: p.Score}
	if t == task.Multiclass {
		pj.Scores = clone(p.Scores)
	}
	if !math.IsNaN(p.Probability) {
		prob := p.Probability
		pj.Probability = &prob
		if t == task.Multiclass {
			pj.Probabilities = clone(p.Probabilities)
		}
	}
	for _, v := range append([]float64{pj.Label, pj.Score}, pj.Scores...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return pj, fmt.Errorf("the model's score is %v: the model has diverged", v)
		}
	}
	return pj, nil
}

// PredictResponse is the answer of /predict.
type PredictResponse struct {
	Predictions []Prediction `json:"predictions"`
	Classes     []int        `json:"classes,omitempty"` // multi-class: the order of scores and probabilities
	Version     uint64       `json:"version"`           // the log position of the model that predicted
	// IgnoredFeatures counts features beyond the model's dimension.
	IgnoredFeatures int `json:"ignored_features,omitempty"`
}

func (h *handler) predict(w http.ResponseWriter, r *http.Request) {
	var atLeast uint64
	if q := r.URL.Query().Get("at_least"); q != "" {
		var err error
		if atLeast, err = strconv.ParseUint(q, 10, 64); err != nil {
			fail(w, badRequestf("at_least=%q is not a log position", q))
			return
		}
	}
	rows, ignored, err := h.rows(w, r, false)
	if err != nil {
		fail(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.opt.MaxWait)
	defer cancel()
	p, version, err := h.s.Predictor(ctx, atLeast)
	if err != nil {
		fail(w, err)
		return
	}
	t := h.s.cfg.Task
	resp := PredictResponse{Predictions: make([]Prediction, len(rows)), Version: version, IgnoredFeatures: ignored}
	if t == task.Multiclass {
		resp.Classes = h.s.cfg.Classes
	}
	for i, e := range rows {
		pred, err := p.Predict(engine.Sparse(e.Index, e.Value))
		pred.Label = p.Input().Unlabel(pred.Label) // a regression's, on the label's scale
		if err == nil {
			resp.Predictions[i], err = NewPrediction(pred, t)
		}
		if err != nil {
			fail(w, fmt.Errorf("row %d: %w", i+1, err))
			return
		}
	}
	h.s.metrics.predicted.Add(float64(len(rows)))
	reply(w, http.StatusOK, resp)
}

func (h *handler) learn(w http.ResponseWriter, r *http.Request) {
	rows, _, err := h.rows(w, r, true)
	if err != nil {
		fail(w, err)
		return
	}
	out, err := h.s.Learn(r.Context(), rows)
	if err != nil {
		fail(w, err)
		return
	}
	reply(w, http.StatusOK, out)
}

// Health is the answer of /healthz.
type Health struct {
	Status         string `json:"status"` // "ok", or "failing" with Error
	Error          string `json:"error,omitempty"`
	Algorithm      string `json:"algorithm"`
	Task           string `json:"task"`
	Version        uint64 `json:"version"`
	SupportVectors int    `json:"support_vectors"`
}

func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	p := h.s.current.Load()
	health := Health{"ok", "", p.predictor.Algorithm().String(), h.s.cfg.Task.String(), p.version, p.predictor.SupportVectors()}
	code := http.StatusOK
	if err := h.s.Err(); err != nil {
		health.Status, health.Error, code = "failing", err.Error(), http.StatusServiceUnavailable
	}
	reply(w, code, health)
}
