package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/task"
)

// Defaults of HTTPOptions. A request body of DefaultMaxBody holds about a
// thousand rows of fifty features; scoring a whole file is `bogdbench
// predict`'s job. A request of the largest size (1 MiB, 10,000 rows) takes
// about 3 MB while it is answered (its prepared rows and the buffers of
// its decoding and its answer), so DefaultMaxInFlight of them stay within
// about 200 MB.
const (
	DefaultMaxBody     = 1 << 20
	DefaultMaxRows     = 10000
	DefaultMaxInFlight = 64
)

// HTTPOptions configure Server.Handler and Server.Serve. The zero value is
// the default.
type HTTPOptions struct {
	// MaxBody is the largest request body, in bytes (default
	// DefaultMaxBody); beyond it a request is answered 413.
	MaxBody int64
	// MaxRows is the most rows a /predict or /learn request may hold
	// (default DefaultMaxRows); beyond it a request is answered 413.
	MaxRows int
	// MaxInFlight caps the /predict and /learn requests handled at once
	// (default DefaultMaxInFlight), what bounds the memory requests take;
	// beyond it a request is answered 503 with Retry-After, its body
	// unread. /healthz and /metrics are not counted: they answer under
	// any load.
	MaxInFlight int
	// BodyTimeout bounds how long the body of a /predict or /learn request
	// may take to arrive (default 10 s: DefaultMaxBody at 100 KiB/s), so
	// that a client sending a byte a second does not hold its place.
	BodyTimeout time.Duration
	// MaxWait bounds how long /predict?at_least=P waits for position P
	// (default 10 s); then it answers 503.
	MaxWait time.Duration
	// LearnToken, when set, is the bearer token /learn requires
	// (Authorization: Bearer TOKEN), and PredictToken the one /predict
	// requires; they are compared in constant time. A request without the
	// token is answered 401. /healthz and /metrics need none.
	LearnToken, PredictToken string
	// ReadOnly refuses /learn (403): the server predicts, and learns only
	// from its log (a replica of a shared stream learns what the others
	// accept).
	ReadOnly bool
	// Wrap, when set, wraps the handler of each route (named "predict",
	// "learn", "healthz", "metrics") inside the metrics and outside the
	// tokens and limits above: where a service adds its own
	// authentication, limits or logging.
	Wrap func(route string, h http.Handler) http.Handler

	// ReadHeaderTimeout, WriteTimeout and IdleTimeout are those of the
	// http.Server Serve runs (defaults 5 s; 30 s, what a request's body,
	// a wait for a position and its answer take at most; 60 s). Its
	// ReadTimeout is ReadHeaderTimeout plus BodyTimeout.
	ReadHeaderTimeout, WriteTimeout, IdleTimeout time.Duration
	// TLS, when set, makes Serve answer HTTPS with it, such as
	// CertificateFiles.TLSConfig.
	TLS *tls.Config
	// ShutdownTimeout bounds how long Serve lets the requests under way
	// finish once its context ends (default 10 s).
	ShutdownTimeout time.Duration
	// Configure, when set, adjusts the http.Server Serve runs before it
	// starts.
	Configure func(*http.Server)
}

// withDefaults fills the zero fields of opt.
func (opt HTTPOptions) withDefaults() HTTPOptions {
	or := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if opt.MaxBody <= 0 {
		opt.MaxBody = DefaultMaxBody
	}
	if opt.MaxRows <= 0 {
		opt.MaxRows = DefaultMaxRows
	}
	if opt.MaxInFlight <= 0 {
		opt.MaxInFlight = DefaultMaxInFlight
	}
	or(&opt.BodyTimeout, 10*time.Second)
	or(&opt.MaxWait, 10*time.Second)
	or(&opt.ReadHeaderTimeout, 5*time.Second)
	or(&opt.WriteTimeout, 30*time.Second)
	or(&opt.IdleTimeout, time.Minute)
	or(&opt.ShutdownTimeout, 10*time.Second)
	return opt
}

// Serve answers the Handler's API on ln (HTTPS with opt.TLS) until ctx
// ends; then it stops accepting, lets the requests under way finish
// (predictions waiting for a position give up at once, Drain), closes the
// server (which writes the last snapshot) and returns. An idle server
// stops within milliseconds.
func (s *Server) Serve(ctx context.Context, ln net.Listener, opt HTTPOptions) error {
	opt = opt.withDefaults()
	srv := &http.Server{
		Handler:           s.Handler(opt),
		ReadHeaderTimeout: opt.ReadHeaderTimeout,
		ReadTimeout:       opt.ReadHeaderTimeout + opt.BodyTimeout,
		WriteTimeout:      opt.WriteTimeout,
		IdleTimeout:       opt.IdleTimeout,
		TLSConfig:         opt.TLS,
		// A library does not print: the server's complaints (a client's
		// failed TLS handshake) go to the server's log.
		ErrorLog: log.New(logWriter(s.opt.Logf), "", 0),
	}
	if opt.Configure != nil {
		opt.Configure(srv)
	}
	srv.RegisterOnShutdown(s.Drain)
	failed := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
			failed <- srv.ServeTLS(ln, "", "")
		} else {
			failed <- srv.Serve(ln)
		}
	}()
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

// logWriter writes each line to a log function.
type logWriter func(format string, args ...any)

func (l logWriter) Write(p []byte) (int, error) {
	l("%s", bytes.TrimSuffix(p, []byte("\n")))
	return len(p), nil
}

// Handler returns the server's HTTP API:
//
//	POST /predict  {"rows":[{"features":{"1":0.5,"7":1}}, …]}: predictions,
//	               from the model at position ?at_least=P or later
//	POST /learn    {"rows":[{"label":1,"features":{…}}, …]}: learnt in
//	               order once in the log; the answer carries the position
//	GET  /healthz  the model's algorithm, task and position, or why the
//	               server is failing (503)
//	GET  /metrics  Prometheus metrics
//
// Features are keyed by 1-based index, or by name for a model that
// hashes names, and prepared as the model's input says (prep.Input:
// hashed, scaled; a regression's predictions come back on the label's
// scale). A bad request is answered 400 with the problem, and a /learn
// batch with a bad row is refused whole. The limits and tokens of opt
// apply to /predict and /learn; its server timeouts are Serve's. Once idle
// for a second after a burst of requests (32 MiB of bodies), the handler
// returns the memory they took to the system (debug.FreeOSMemory): the
// runtime, which collects only as it allocates, would keep it.
func (s *Server) Handler(opt HTTPOptions) http.Handler {
	opt = opt.withDefaults()
	h := &handler{s: s, opt: opt, slots: make(chan struct{}, opt.MaxInFlight), turns: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))}
	h.idle = time.AfterFunc(time.Hour, h.returnMemory)
	h.idle.Stop()
	mux := http.NewServeMux()
	route := func(pattern, name string, f http.Handler) {
		if opt.Wrap != nil {
			f = opt.Wrap(name, f)
		}
		mux.Handle(pattern, promhttp.InstrumentHandlerDuration(s.metrics.duration.MustCurryWith(prometheus.Labels{"handler": name}),
			promhttp.InstrumentHandlerCounter(s.metrics.requests.MustCurryWith(prometheus.Labels{"handler": name}), f)))
	}
	route("POST /predict", "predict", h.guard(opt.PredictToken, h.predict))
	route("POST /learn", "learn", h.guard(opt.LearnToken, h.learn))
	route("GET /healthz", "healthz", http.HandlerFunc(h.health))
	route("GET /metrics", "metrics", promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{}))
	return mux
}

type handler struct {
	s     *Server
	opt   HTTPOptions
	slots chan struct{} // a place for each request in flight
	turns chan struct{} // a processor for each request computing (turn)
	// read counts the bytes of request bodies since the memory was last
	// returned to the system; idle returns it a second after a burst.
	read atomic.Int64
	idle *time.Timer
}

// A burst of requests whose bodies took more than burstBytes leaves its
// memory to the system once the server is idle for burstIdle: else the
// runtime, which collects only as it allocates, keeps it until its
// two-minute collection.
const (
	burstBytes = 32 << 20
	burstIdle  = time.Second
)

// returnMemory returns the memory of a burst of requests to the system,
// when the burst was large and no request is under way.
func (h *handler) returnMemory() {
	if len(h.slots) == 0 && h.read.Load() >= burstBytes {
		h.read.Store(0)
		debug.FreeOSMemory()
	}
}

// guard runs f for a request that holds token (when one is set) while
// fewer than MaxInFlight requests are handled, with its body due within
// BodyTimeout, on a turn. A request refused here is answered at once, its
// body unread, and its connection closed: whatever it still sends is not
// read.
func (h *handler) guard(token string, f func(http.ResponseWriter, *http.Request, *turn)) http.Handler {
	authorized := bearer(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r) {
			w.Header().Set("Connection", "close")
			w.Header().Set("WWW-Authenticate", `Bearer realm="bogd"`)
			reply(w, http.StatusUnauthorized, map[string]string{"error": "this route needs the bearer token: Authorization: Bearer TOKEN"})
			return
		}
		select {
		case h.slots <- struct{}{}:
			defer func() {
				if <-h.slots; len(h.slots) == 0 {
					h.idle.Reset(burstIdle)
				}
			}()
		default:
			h.s.metrics.busy.Inc()
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", "1")
			reply(w, http.StatusServiceUnavailable, map[string]string{"error": fmt.Sprintf("busy: %d requests are under way, the most this server handles at once", h.opt.MaxInFlight)})
			return
		}
		// A server that cannot set deadlines (a test's recorder) has its own.
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.opt.BodyTimeout))
		t := &turn{turns: h.turns}
		t.take()
		defer t.leave()
		f(w, r, t)
	})
}

// turn is a request's hold on a processor. The requests that compute at
// once are one fewer than the processors (at least one): the others wait
// blocked, out of the scheduler's run queues, where they would delay every
// goroutine that needs a moment (64 decoding requests on two processors
// kept /healthz waiting 0.4 s), and a processor stays for the rest: the
// follower that learns, the log, /healthz. A request leaves its turn while
// it waits for its client (reading the body, writing the answer), the log
// or a position.
type turn struct {
	turns chan struct{}
	held  bool
}

func (t *turn) take() {
	if !t.held {
		t.turns <- struct{}{}
		t.held = true
	}
}

func (t *turn) leave() {
	if t.held {
		<-t.turns
		t.held = false
	}
}

// turnReader reads from r, its turn left during each Read, and counts the
// bytes read.
type turnReader struct {
	r    io.Reader
	t    *turn
	read *atomic.Int64
}

func (tr turnReader) Read(p []byte) (int, error) {
	tr.t.leave()
	defer tr.t.take()
	n, err := tr.r.Read(p)
	tr.read.Add(int64(n))
	return n, err
}

// bearer returns whether a request carries token as its bearer token
// (always, for no token). Both sides are hashed first, so that the
// comparison takes the same time whatever the length or the first
// difference.
func bearer(token string) func(*http.Request) bool {
	if token == "" {
		return func(*http.Request) bool { return true }
	}
	want := sha256.Sum256([]byte(token))
	return func(r *http.Request) bool {
		auth := r.Header.Get("Authorization")
		const scheme = "bearer "
		if len(auth) < len(scheme) || !strings.EqualFold(auth[:len(scheme)], scheme) {
			return false
		}
		got := sha256.Sum256([]byte(auth[len(scheme):]))
		return subtle.ConstantTimeCompare(got[:], want[:]) == 1
	}
}

// requestRow is a row of the body of /predict and /learn:
// {"rows":[ROW, …]}.
type requestRow struct {
	// Label is the true label (/learn; /predict ignores it).
	Label *json.Number `json:"label"`
	// Features maps 1-based feature indices (or names, for a model that
	// hashes them) to values.
	Features map[string]json.Number `json:"features"`
}

// badRequest is a problem of the request, answered with 400.
type badRequest struct{ error }

func (b badRequest) Unwrap() error { return b.error }

// TooManyRowsError is a request of more rows than the limit, answered
// with 413.
type TooManyRowsError struct{ Limit int }

func (e *TooManyRowsError) Error() string {
	return fmt.Sprintf("the request holds more than %d rows, the most this server takes at once: send them in several requests", e.Limit)
}

// rows decodes the body of a request (see Server.Rows), and lifts its
// deadline once it is read: the connection's deadline then bounds the
// server's watch for a client that goes away, which must not end the
// request while it waits for a position or the log.
func (h *handler) rows(w http.ResponseWriter, r *http.Request, t *turn, labelled bool) ([]Example, int, error) {
	examples, ignored, err := h.s.Rows(turnReader{http.MaxBytesReader(w, r.Body, h.opt.MaxBody), t, &h.read}, labelled, h.opt.MaxRows)
	if err == nil {
		http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
	return examples, ignored, err
}

// Rows decodes a request body, {"rows":[{"label":1,"features":{"1":0.5}},
// …]}, row by row, and prepares its rows for the model; labelled, it
// requires labels valid for the model's task. It returns the rows, and how
// many features lay beyond the model's dimension (ignored). A problem of
// the request is an error that names the row and the problem; more than
// maxRows rows (when maxRows > 0), a *TooManyRowsError; a body beyond the
// limit of an http.MaxBytesReader, its *http.MaxBytesError. Only the
// prepared rows are held, not the body nor its decoded form.
func (s *Server) Rows(body io.Reader, labelled bool, maxRows int) ([]Example, int, error) {
	var (
		labels  []float64
		ends    []int // of each row's features in index and value
		index   []int32
		value   []float32
		ignored int
		raw     []prep.Feature
		row     prep.Row
	)
	err := decodeRows(body, maxRows, func(i int, rr *requestRow) error {
		switch {
		case rr.Label != nil:
			y, err := rr.Label.Float64()
			if err != nil || math.IsInf(y, 0) {
				return badRequestf("row %d: label %s is not a finite number", i, *rr.Label)
			}
			labels = append(labels, y)
		case labelled:
			return badRequestf("row %d: no label: /learn needs one", i)
		default:
			labels = append(labels, 0)
		}
		raw = raw[:0]
		for k, num := range rr.Features {
			v, err := strconv.ParseFloat(string(num), 32)
			if err != nil {
				return badRequestf("row %d: feature %s: %s is not a float32", i, k, num)
			}
			raw = append(raw, prep.Feature{Key: k, Value: v})
		}
		if err := s.in.Prepare(&row, raw, s.cfg.Dim); err != nil {
			return badRequestf("row %d: %w", i, err)
		}
		ignored += len(row.Ignored)
		index, value = append(index, row.Index...), append(value, row.Value...)
		ends = append(ends, len(index))
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	examples := make([]Example, len(ends))
	begin := 0
	for i, end := range ends {
		examples[i] = Example{Index: index[begin:end:end], Value: value[begin:end:end]}
		begin = end
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

// decodeRows reads {"rows":[ROW, …]} from body and calls each with every
// row (numbered from 1) as it is decoded, so that no more than one row's
// decoded form is held at once.
func decodeRows(body io.Reader, maxRows int, each func(i int, rr *requestRow) error) error {
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	notRequest := func(err error) error {
		if errors.As(err, new(*http.MaxBytesError)) || errors.Is(err, os.ErrDeadlineExceeded) {
			return err
		}
		return badRequestf("the body is not a request: %w", err)
	}
	delim := func(want json.Delim) error {
		tok, err := dec.Token()
		if err == nil && tok != want {
			err = fmt.Errorf("%v where %v belongs", tok, want)
		}
		return err
	}
	if err := delim('{'); err != nil {
		return notRequest(err)
	}
	rows := 0
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return notRequest(err)
		}
		if key != "rows" {
			return notRequest(fmt.Errorf("json: unknown field %q", key))
		}
		if rows > 0 {
			return badRequestf(`the body holds "rows" twice`)
		}
		if err := delim('['); err != nil {
			return notRequest(fmt.Errorf("rows: %w", err))
		}
		for dec.More() {
			if maxRows > 0 && rows == maxRows {
				return &TooManyRowsError{maxRows}
			}
			rows++
			var rr requestRow
			if err := dec.Decode(&rr); err != nil {
				return notRequest(fmt.Errorf("row %d: %w", rows, err))
			}
			if err := each(rows, &rr); err != nil {
				return err
			}
		}
		if err := delim(']'); err != nil {
			return notRequest(err)
		}
	}
	if err := delim('}'); err != nil {
		return notRequest(err)
	}
	if dec.More() {
		return badRequestf("the body holds more than one JSON value")
	}
	if rows == 0 {
		return badRequestf(`no rows: want {"rows":[{"features":{"1":0.5}}, ...]}`)
	}
	return nil
}

func badRequestf(format string, args ...any) error {
	return badRequest{fmt.Errorf(format, args...)}
}

func clone[T any](s []T) []T { return append([]T(nil), s...) }

// fail answers an error: 400 for a bad request, 403 for a server that does
// not take /learn, 408 for a body that did not arrive in time, 413 for a
// body or a batch too large, 503 when the server cannot learn or the model
// is not at the position asked for, 500 otherwise.
func fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	switch {
	case errors.As(err, new(badRequest)):
		code = http.StatusBadRequest
	case errors.Is(err, os.ErrDeadlineExceeded):
		code = http.StatusRequestTimeout
		err = fmt.Errorf("the request body did not arrive in time: %w", err)
		w.Header().Set("Connection", "close")
	case errors.As(err, new(*http.MaxBytesError)), errors.As(err, new(*TooManyRowsError)):
		code = http.StatusRequestEntityTooLarge
		w.Header().Set("Connection", "close") // the rest of the body is not read
	case errors.Is(err, ErrEventsOnly), errors.Is(err, ErrReadOnly):
		code = http.StatusForbidden
	case errors.Is(err, ErrClosed), errors.Is(err, ErrNotLearnt), errors.Is(err, context.DeadlineExceeded):
		code = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "1")
	}
	reply(w, code, map[string]string{"error": err.Error()})
}

// reply answers v as JSON with code; a v that JSON cannot hold (a number
// that is not finite) is answered 500 with the reason, never as a
// success with a broken body.
func reply(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b, _ = json.Marshal(map[string]string{"error": fmt.Sprintf("the answer cannot be written: %v", err)})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// ErrReadOnly: the server was started read-only (HTTPOptions.ReadOnly).
var ErrReadOnly = errors.New("this server is read-only: it predicts, and learns only from its log")

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
// form. Its numbers must be finite: JSON has no other numbers.
func NewPrediction(p bogd.Prediction, t task.Task) (Prediction, error) {
	pj := Prediction{Label: p.Label, Score: p.Score}
	if t == task.Multiclass {
		pj.Scores = clone(p.Scores)
	}
	numbers := append([]float64{pj.Label, pj.Score}, pj.Scores...)
	if !math.IsNaN(p.Probability) {
		prob := p.Probability
		pj.Probability = &prob
		if t == task.Multiclass {
			pj.Probabilities = clone(p.Probabilities)
		}
		numbers = append(append(numbers, prob), pj.Probabilities...)
	}
	for _, v := range numbers {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return pj, fmt.Errorf("the model's score is %v: the model has diverged", v)
		}
	}
	return pj, nil
}

// PredictResponse is the answer of /predict.
type PredictResponse struct {
	Version uint64 `json:"version"`           // the log position of the model that predicted
	Classes []int  `json:"classes,omitempty"` // multi-class: the order of scores and probabilities
	// IgnoredFeatures counts features beyond the model's dimension.
	IgnoredFeatures int          `json:"ignored_features,omitempty"`
	Predictions     []Prediction `json:"predictions"`
}

func (h *handler) predict(w http.ResponseWriter, r *http.Request, turn *turn) {
	var atLeast uint64
	if q := r.URL.Query().Get("at_least"); q != "" {
		var err error
		if atLeast, err = strconv.ParseUint(q, 10, 64); err != nil {
			fail(w, badRequestf("at_least=%q is not a log position", q))
			return
		}
	}
	rows, ignored, err := h.rows(w, r, turn, false)
	if err != nil {
		fail(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.opt.MaxWait)
	defer cancel()
	turn.leave()
	p, version, err := h.s.Predictor(ctx, atLeast)
	turn.take()
	if err != nil {
		fail(w, err)
		return
	}
	t := h.s.cfg.Task
	head := PredictResponse{Version: version, IgnoredFeatures: ignored}
	if t == task.Multiclass {
		head.Classes = h.s.cfg.Classes
	}
	out := newStream(w, turn, head)
	for i, e := range rows {
		pred, err := p.Predict(engine.Sparse(e.Index, e.Value))
		pred.Label = p.Input().Unlabel(pred.Label) // a regression's, on the label's scale
		var pj Prediction
		if err == nil {
			pj, err = NewPrediction(pred, t)
		}
		if err != nil {
			out.fail(fmt.Errorf("row %d: %w", i+1, err))
			return
		}
		if err := out.add(pj, i); err != nil {
			return // the client went away
		}
	}
	if out.end() == nil {
		h.s.metrics.predicted.Add(float64(len(rows)))
	}
}

// stream writes the answer of /predict as it is computed, so that a long
// one is never held whole: {"version":…,"predictions":[…]}. The first
// streamHeld bytes are held, so that an error before them is answered as
// an error; one after them (a model whose scores are not finite, which
// cannot be published) breaks the connection, so that the client sees a
// broken answer, never a complete one.
type stream struct {
	w    http.ResponseWriter
	turn *turn // left while writing
	buf  []byte
	sent bool
}

const streamHeld = 64 << 10

func newStream(w http.ResponseWriter, t *turn, head PredictResponse) *stream {
	b, _ := json.Marshal(head) // no predictions: {…,"predictions":null}
	b = append(b[:len(b)-len(`null}`)], '[')
	return &stream{w: w, turn: t, buf: b}
}

func (s *stream) add(p Prediction, i int) error {
	if i > 0 {
		s.buf = append(s.buf, ',')
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err // NewPrediction made every number finite
	}
	s.buf = append(s.buf, b...)
	if len(s.buf) < streamHeld {
		return nil
	}
	return s.flush()
}

func (s *stream) flush() error {
	if !s.sent {
		s.w.Header().Set("Content-Type", "application/json")
		s.w.WriteHeader(http.StatusOK)
		s.sent = true
	}
	s.turn.leave()
	_, err := s.w.Write(s.buf)
	s.turn.take()
	s.buf = s.buf[:0]
	return err
}

func (s *stream) end() error {
	s.buf = append(s.buf, "]}\n"...)
	return s.flush()
}

func (s *stream) fail(err error) {
	if s.sent {
		panic(http.ErrAbortHandler)
	}
	fail(s.w, err)
}

func (h *handler) learn(w http.ResponseWriter, r *http.Request, turn *turn) {
	if h.opt.ReadOnly {
		fail(w, ErrReadOnly)
		return
	}
	rows, _, err := h.rows(w, r, turn, true)
	if err != nil {
		fail(w, err)
		return
	}
	turn.leave()
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
