package serve

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/atomicfile"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/serve/wal"
	"github.com/bogd-project/bogd/task"
)

// Options configure a Server. Model is required; the zero value of the
// others is the default.
type Options struct {
	// Model is the model file the server starts from when it has no
	// snapshot, or when the file is newer than its snapshots (it was
	// trained again). The server never writes it.
	Model string
	// SnapshotDir holds the snapshots, NAME.snapshot-POSITION.bogd
	// (default: the model's directory).
	SnapshotDir string
	// SnapshotEvery is how often a snapshot is written when the model has
	// learnt since the last one (0: at Close only).
	SnapshotEvery time.Duration
	// Keep is the number of snapshots kept (default 3, at least 2). The
	// log is kept from the oldest of them on, so that any of them restarts
	// the model: when the newest does not load, the one before it does.
	Keep int
	// PublishEvery is the least time between two publications of the
	// model to predictions (a publication copies it); 0 publishes after
	// every learn record, before Learn returns.
	PublishEvery time.Duration
	// OpenLog opens the log of learn records, given the position of the
	// state the server starts from (where a new log begins) and a function
	// to report each sync to (for the metrics). Nil: a wal.Memory log,
	// whose records survive only in snapshots. FileLog opens the
	// embedded default.
	OpenLog func(base uint64, onSync func(d time.Duration, records int)) (wal.Log, error)
	// Events makes the server a learn-only consumer of a stream other
	// programs publish: each record of the log is a request body of
	// labelled rows, {"rows":[{"label":1,"features":{"1":0.5}}, …]} (what
	// /learn takes), learnt in order; a record that is not one is skipped
	// (logged, counted), as every replica skips it. Learn is refused.
	Events bool
	// Load, when set, loads a model or snapshot file (default
	// bogd.LoadFile): where a program applies its own policy, such as the
	// preparation beside an older model file (prep.ReadBeside).
	Load func(path string) (*bogd.Learner, error)
	// Logf, when set, receives the server's log lines: what it loaded,
	// replayed and wrote.
	Logf func(format string, args ...any)
}

// FileLog returns an Options.OpenLog that opens the wal.File log in dir.
func FileLog(dir string) func(uint64, func(time.Duration, int)) (wal.Log, error) {
	return func(base uint64, onSync func(time.Duration, int)) (wal.Log, error) {
		f, err := wal.Open(dir, wal.Options{Base: base, OnSync: onSync})
		if err != nil {
			return nil, err
		}
		return f, nil
	}
}

// Server learns from a log and predicts with what it learnt. Learn appends
// a record of examples to the log; one goroutine follows the log and
// learns every record in order, whoever appended it (the server itself,
// or, on a shared log, its replicas); predictions read an immutable copy
// of the model, published after learning, so that they never wait for it.
// A model is a snapshot plus a log position: at start the server loads its
// newest snapshot and replays the log after it.
type Server struct {
	opt   Options
	snaps snapshots
	log   wal.Log
	// The learner's configuration and input preparation, which never
	// change: handlers read them.
	cfg bogd.Config
	in  prep.Input

	mu      sync.Mutex // the learner and the positions
	learner *bogd.Learner
	version uint64 // the position of the last record learnt
	saved   uint64 // the position of the newest snapshot
	record  learnRecord

	origin  uint64 // this server's identity in the records it appends
	tokens  atomic.Uint64
	waitMu  sync.Mutex
	waiters map[uint64]chan Outcome

	current    atomic.Pointer[published]
	pubMu      sync.Mutex
	pubChanged chan struct{} // closed, and replaced, at every publication
	dirty      chan struct{} // the learner changed since the last publication
	urgent     chan struct{} // a prediction waits for a version not published yet

	closing  atomic.Bool
	draining chan struct{} // closed by Drain: waiting predictions give up
	drain    sync.Once
	stop     context.CancelFunc // the publisher and the snapshotter
	routines sync.WaitGroup
	unfollow context.CancelFunc
	followed chan struct{}         // closed when the follower returns
	fatal    atomic.Pointer[error] // why the follower stopped
	// Why the last snapshot, or the last publication, failed (nil once
	// one succeeds): the server goes on, but says so (Err).
	snapshotErr, publishErr atomic.Pointer[error]

	metrics *metrics
}

// published is what predictions read: a frozen copy of the learner at a
// log position.
type published struct {
	predictor *bogd.Predictor
	version   uint64
}

// Outcome is what learning one record did.
type Outcome struct {
	Learned  int      `json:"learned"`
	Mistakes *int     `json:"mistakes,omitempty"`      // classification: of the predictions before each update
	Squared  *float64 `json:"squared_error,omitempty"` // regression: Σ (y − ŷ)², on the model's scale
	// Version is the log position of the record: predictions answer with
	// it or a later one once it is published (at once, or within
	// Options.PublishEvery; Predictor can wait for it).
	Version        uint64 `json:"version"`
	SupportVectors int    `json:"support_vectors"`
	err            error
}

// Errors of a Server.
var (
	ErrClosed = errors.New("the server is closed")
	// ErrEventsOnly: the server learns from a stream of events only
	// (Options.Events).
	ErrEventsOnly = errors.New("this server learns only from its event stream")
	// ErrNotLearnt: the record was appended to the log but the server
	// stopped following it before learning it; it will be learnt from the
	// log at the next start.
	ErrNotLearnt = errors.New("the record is in the log but the server stopped before learning it")
)

// New starts a server: it loads the newest snapshot of the model (or the
// model), opens the log and learns the records after the snapshot's
// position before it returns.
func New(opt Options) (*Server, error) {
	if opt.Model == "" {
		return nil, errors.New("serve: a model file is required")
	}
	if opt.SnapshotDir == "" {
		opt.SnapshotDir = filepath.Dir(opt.Model)
	}
	switch {
	case opt.Keep <= 0:
		opt.Keep = 3
	case opt.Keep == 1:
		return nil, errors.New("serve: Keep must be at least 2: when the newest snapshot does not load, the server starts from the one before")
	}
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	if opt.Load == nil {
		opt.Load = bogd.LoadFile
	}
	s := &Server{
		opt: opt, snaps: snapshots{model: opt.Model, dir: opt.SnapshotDir},
		waiters: make(map[uint64]chan Outcome), pubChanged: make(chan struct{}),
		dirty: make(chan struct{}, 1), urgent: make(chan struct{}, 1), followed: make(chan struct{}), draining: make(chan struct{}),
		metrics: newMetrics(),
	}
	var id [8]byte
	rand.Read(id[:])
	s.origin = binary.LittleEndian.Uint64(id[:])
	if removed, err := s.snaps.removeTemporary(); err != nil {
		return nil, err
	} else if len(removed) > 0 {
		opt.Logf("removed %d temporary files a crash left while writing a snapshot (%s)", len(removed), removed[0])
	}
	from, err := s.load()
	if err != nil {
		return nil, err
	}
	s.cfg, s.in = s.learner.Config(), s.learner.Input()
	if err := s.openLog(from); err != nil {
		return nil, err
	}
	if err := s.replay(); err != nil {
		s.log.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.routines.Add(1)
	go func() {
		defer s.routines.Done()
		s.publishLoop(ctx)
	}()
	if opt.SnapshotEvery > 0 {
		s.routines.Add(1)
		go func() {
			defer s.routines.Done()
			s.snapshotLoop(ctx)
		}()
	}
	return s, nil
}

// load loads the learner the server starts from: the model file when it
// is newer than its snapshots, else the newest snapshot that loads. A
// snapshot that does not load is reported and moved aside (NAME.….bogd.bad,
// for the operator to look at), and the one before it is loaded: the log
// is kept from the oldest snapshot on, so nothing acknowledged is lost.
func (s *Server) load() (start, error) {
	starts, err := s.snaps.starts()
	if err != nil {
		return start{}, err
	}
	for i, from := range starts {
		l, err := s.opt.Load(from.path)
		if err == nil {
			s.learner = l
			switch {
			case from.path == s.opt.Model && from.newer:
				s.opt.Logf("loaded %s: it is newer than its snapshots (the newest, at position %d, is kept)", from.path, from.pos)
			case from.path == s.opt.Model:
				s.opt.Logf("loaded %s", from.path)
			case i == 0:
				s.opt.Logf("loaded %s, the newest snapshot of %s (position %d)", from.path, s.opt.Model, from.pos)
			default:
				s.opt.Logf("loaded %s, the newest snapshot of %s that loads (position %d)", from.path, s.opt.Model, from.pos)
			}
			return from, nil
		}
		if from.path == s.opt.Model || i == len(starts)-1 {
			if i > 0 {
				err = fmt.Errorf("%w (and no later snapshot of it loads)", err)
			}
			return start{}, err
		}
		s.metrics.snapshotLoadErrors.Inc()
		aside := from.path + ".bad"
		if mv := os.Rename(from.path, aside); mv != nil {
			aside = from.path + " (not moved aside: " + mv.Error() + ")"
		}
		s.opt.Logf("the snapshot at position %d does not load, %v: moved to %s; starting from the one before", from.pos, err, aside)
	}
	return start{}, errors.New("serve: no model to start from")
}

// openLog opens the log and sets the position the server starts at: the
// snapshot's; for a model newer than its snapshots, the log's end (the
// records before are of the model it replaced), where a snapshot is
// written at once so that a restart starts there too.
func (s *Server) openLog(from start) error {
	onSync := func(d time.Duration, n int) { s.metrics.syncSeconds.Observe(d.Seconds()) }
	var err error
	if s.opt.OpenLog == nil {
		s.log = wal.NewMemory(from.pos)
	} else if s.log, err = s.opt.OpenLog(from.pos, onSync); err != nil {
		return err
	}
	end, err := s.log.End(context.Background())
	if err != nil {
		s.log.Close()
		return fmt.Errorf("the end of the log: %w", err)
	}
	s.version, s.saved = from.pos, from.pos
	switch {
	case from.newer:
		// The snapshot at the log's end replaces the old model's, if any.
		s.version, s.saved = max(end, from.pos), 0
		if err := s.snapshot(); err != nil {
			s.log.Close()
			return err
		}
	case end < from.pos:
		s.log.Close()
		return fmt.Errorf("the log ends at position %d, before the model's position %d: it is not this model's log", end, from.pos)
	}
	return nil
}

// replay starts the follower and waits until it has learnt the log up to
// the end it had when the server started; when it fails, the follower is
// stopped.
func (s *Server) replay() (err error) {
	start := time.Now()
	end, err := s.log.End(context.Background())
	if err != nil {
		return fmt.Errorf("the end of the log: %w", err)
	}
	from := s.version
	caughtUp := make(chan struct{})
	var once sync.Once
	ctx, cancel := context.WithCancel(context.Background())
	s.unfollow = cancel
	go func() {
		defer close(s.followed)
		err := s.log.Follow(ctx, from, func(pos uint64, data []byte) error {
			err := s.apply(pos, data)
			if pos >= end {
				once.Do(func() { close(caughtUp) })
			}
			return err
		})
		if ctx.Err() == nil {
			err = fmt.Errorf("learning from the log stopped: %w", err)
			s.fatal.Store(&err)
			s.opt.Logf("%v", err)
		}
		s.failWaiters()
	}()
	defer func() {
		if err != nil {
			s.unfollow()
			<-s.followed
		}
	}()
	if end > from {
		select {
		case <-caughtUp:
		case <-s.followed:
			return *s.fatal.Load()
		}
	}
	if err := s.publish(); err != nil {
		return err
	}
	d := time.Since(start)
	s.metrics.replaySeconds.Set(d.Seconds())
	p := s.current.Load()
	records := "records"
	if p.version-from == 1 {
		records = "record"
	}
	s.opt.Logf("%v %v, %d support vectors, at log position %d (%d %s replayed in %.3f s)",
		p.predictor.Config().Task, p.predictor.Algorithm(), p.predictor.SupportVectors(), p.version, p.version-from, records, d.Seconds())
	return nil
}

// apply learns the record at pos: the follower's callback.
func (s *Server) apply(pos uint64, data []byte) error {
	if s.opt.Events {
		return s.applyEvent(pos, data)
	}
	s.mu.Lock()
	if err := decodeLearnRecord(data, s.cfg.Dim, &s.record); err != nil {
		// Not written by a server of this model (another program's
		// message on a shared subject, or a bug): skipped alike by every
		// replica and every replay, rather than stopping them all.
		s.version = pos
		s.mu.Unlock()
		s.metrics.skipped.Inc()
		s.opt.Logf("skipped the record at position %d: %v", pos, err)
		s.learnt(pos, 0)
		return nil
	}
	out := s.learn(s.record.examples)
	out.Version, out.SupportVectors = pos, s.learner.SupportVectors()
	s.version = pos
	origin, token := s.record.origin, s.record.token
	s.mu.Unlock()
	s.learnt(pos, out.Learned)
	if origin == s.origin {
		s.waitMu.Lock()
		ch := s.waiters[token]
		delete(s.waiters, token)
		s.waitMu.Unlock()
		if ch != nil {
			ch <- out
		}
	}
	return nil
}

// applyEvent learns a record of a stream of events: a request body of
// labelled rows.
func (s *Server) applyEvent(pos uint64, data []byte) error {
	// Events are bounded by the log's record size, not by a row limit a
	// replica could set apart from the others.
	examples, _, err := s.Rows(bytes.NewReader(data), true, 0)
	s.mu.Lock()
	if err == nil {
		err = s.checkLosses(s.learner.Predict, examples)
	}
	if err != nil {
		s.metrics.skipped.Inc()
		s.opt.Logf("skipped the event at position %d: %v", pos, err)
		examples = nil
	}
	out := s.learn(examples)
	s.version = pos
	s.mu.Unlock()
	if out.err != nil {
		s.opt.Logf("the event at position %d: %v", pos, out.err)
	}
	s.learnt(pos, out.Learned)
	return nil
}

// learnt counts what the follower learnt at pos and publishes it, at once
// or within PublishEvery. A model that cannot be published (its weights
// overflowed) stays what predictions read, with the reason in the log.
func (s *Server) learnt(pos uint64, learned int) {
	s.metrics.learned.Add(float64(learned))
	s.metrics.position.Set(float64(pos))
	if s.opt.PublishEvery > 0 {
		select {
		case s.dirty <- struct{}{}:
		default:
		}
	} else {
		s.published(s.publish())
	}
}

// published records the outcome of a publication: a model that cannot be
// published (its weights overflowed) stays what predictions read, with
// the reason in the log and in Err.
func (s *Server) published(err error) {
	if err == nil {
		s.publishErr.Store(nil)
		return
	}
	s.publishErr.Store(&err)
	s.opt.Logf("%v", err)
}

// learn learns examples in order; s.mu is held. A row the learner refuses
// stops the record there: replay refuses it at the same place.
func (s *Server) learn(examples []Example) Outcome {
	var out Outcome
	var mistakes int
	var squared float64
	for i, e := range examples {
		st, err := s.learner.Learn(engine.Sparse(e.Index, e.Value), e.Label)
		if err != nil {
			out.err = fmt.Errorf("row %d: %w (the rows before it were learnt)", i+1, err)
			break
		}
		out.Learned++
		if st.Mistake {
			mistakes++
		}
		squared += (e.Label - st.Label) * (e.Label - st.Label)
	}
	if s.cfg.Task == task.Regression {
		out.Squared = &squared
		if math.IsInf(squared, 0) || math.IsNaN(squared) {
			// Learn checks the losses on the model predictions read, which
			// may lag the learner by the records under way.
			out.err = fmt.Errorf("the squared error of the rows learnt is %v: the model has diverged", squared)
		}
	} else {
		out.Mistakes = &mistakes
	}
	return out
}

// failWaiters answers the Learns still waiting when the follower stopped.
func (s *Server) failWaiters() {
	s.waitMu.Lock()
	defer s.waitMu.Unlock()
	for token, ch := range s.waiters {
		ch <- Outcome{err: ErrNotLearnt}
		delete(s.waiters, token)
	}
}

// Learn appends a record of examples to the log and returns, once the
// server has learnt it, what learning did and its position. The examples
// must be prepared for the model (Example: within its dimension, finite),
// their labels valid for its task (CheckLabels) and, in regression, their
// squared errors against the predictions of the published model finite
// (as train refuses a learner that diverges), or Learn refuses them before
// they reach the log; a row the learner still refuses stops the record
// there, the rows before it learnt.
func (s *Server) Learn(ctx context.Context, examples []Example) (Outcome, error) {
	if s.closing.Load() {
		return Outcome{}, ErrClosed
	}
	if s.opt.Events {
		return Outcome{}, ErrEventsOnly
	}
	labels := make([]float64, len(examples))
	for i, e := range examples {
		if err := e.check(s.cfg.Dim); err != nil {
			return Outcome{}, fmt.Errorf("example %d: %w", i+1, err)
		}
		labels[i] = e.Label
	}
	if err := s.CheckLabels(labels); err != nil {
		return Outcome{}, err
	}
	if err := s.checkLosses(s.current.Load().predictor.Predict, examples); err != nil {
		return Outcome{}, badRequest{err}
	}
	if err := s.followErr(); err != nil {
		return Outcome{}, err
	}
	token := s.tokens.Add(1)
	ch := make(chan Outcome, 1)
	s.waitMu.Lock()
	s.waiters[token] = ch
	s.waitMu.Unlock()
	forget := func() {
		s.waitMu.Lock()
		delete(s.waiters, token)
		s.waitMu.Unlock()
	}
	start := time.Now()
	pos, err := s.log.Append(ctx, appendLearnRecord(nil, s.origin, token, examples))
	if err != nil {
		forget()
		return Outcome{}, fmt.Errorf("append to the log: %w", err)
	}
	s.metrics.appendSeconds.Observe(time.Since(start).Seconds())
	select {
	case out := <-ch:
		return out, out.err
	case <-ctx.Done():
		forget()
		return Outcome{Version: pos}, ctx.Err()
	case <-s.followed:
		select {
		case out := <-ch:
			return out, out.err
		default:
			forget()
			return Outcome{Version: pos}, ErrNotLearnt
		}
	}
}

// CheckLabels checks labels against the model's task, so that a record is
// learnt whole or refused before it reaches the log.
func (s *Server) CheckLabels(labels []float64) error {
	for i, y := range labels {
		switch s.cfg.Task {
		case task.Binary:
			if y != 1 && y != -1 {
				return fmt.Errorf("row %d: label %v: a binary model learns -1 or +1", i+1, y)
			}
		case task.Multiclass:
			if y != float64(int(y)) || !slices.Contains(s.cfg.Classes, int(y)) {
				return fmt.Errorf("row %d: label %v is not one of the model's classes %v", i+1, y, s.cfg.Classes)
			}
		}
	}
	return nil
}

// checkLosses refuses, in regression, rows whose squared errors against
// predict's predictions do not sum to a finite number: learning them would
// drive the model to infinite weights, and their loss cannot be answered.
func (s *Server) checkLosses(predict func(engine.Vector) (bogd.Prediction, error), examples []Example) error {
	if s.cfg.Task != task.Regression {
		return nil
	}
	var squared float64
	for i, e := range examples {
		p, err := predict(engine.Sparse(e.Index, e.Value))
		if err != nil {
			return fmt.Errorf("row %d: %w", i+1, err)
		}
		r := e.Label - p.Label
		if squared += r * r; math.IsInf(squared, 0) || math.IsNaN(squared) {
			return fmt.Errorf("row %d: label %v: its squared error against the model's prediction %v is not finite (a learner that learnt it would diverge)", i+1, s.in.Unlabel(e.Label), s.in.Unlabel(p.Label))
		}
	}
	return nil
}

// Predictor returns the published copy of the model and its position,
// waiting until the position is at least atLeast (read-your-writes: the
// Version of a Learn), or ctx ends.
func (s *Server) Predictor(ctx context.Context, atLeast uint64) (*bogd.Predictor, uint64, error) {
	for {
		s.pubMu.Lock()
		changed := s.pubChanged
		s.pubMu.Unlock()
		if p := s.current.Load(); p.version >= atLeast {
			return p.predictor, p.version, nil
		}
		select {
		case s.urgent <- struct{}{}:
		default:
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, 0, fmt.Errorf("the model is not at position %d yet (it is at %d): %w", atLeast, s.current.Load().version, ctx.Err())
		case <-s.draining:
			return nil, 0, fmt.Errorf("the model is not at position %d (it is at %d): %w", atLeast, s.current.Load().version, ErrClosed)
		}
	}
}

// publish makes the learner's present state what predictions read.
func (s *Server) publish() error {
	s.mu.Lock()
	if p := s.current.Load(); p != nil && p.version == s.version {
		s.mu.Unlock()
		return nil
	}
	frozen, err := s.learner.Predictor()
	version := s.version
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("publish the model: %w", err)
	}
	s.current.Store(&published{predictor: frozen, version: version})
	s.metrics.supportVectors.Set(float64(frozen.SupportVectors()))
	s.metrics.version.Set(float64(version))
	s.pubMu.Lock()
	close(s.pubChanged)
	s.pubChanged = make(chan struct{})
	s.pubMu.Unlock()
	return nil
}

// publishLoop publishes what the follower learnt, at most every
// PublishEvery unless a prediction waits for it.
func (s *Server) publishLoop(ctx context.Context) {
	var last time.Time
	for {
		select {
		case <-s.dirty:
		case <-s.urgent:
		case <-ctx.Done():
			return
		}
		if wait := s.opt.PublishEvery - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-s.urgent:
			case <-ctx.Done():
				t.Stop()
				return
			}
			t.Stop()
		}
		s.published(s.publish())
		last = time.Now()
	}
}

func (s *Server) snapshotLoop(ctx context.Context) {
	t := time.NewTicker(s.opt.SnapshotEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := s.snapshot(); err != nil {
				s.opt.Logf("%v", err)
			}
		case <-ctx.Done():
			return
		}
	}
}

// snapshot writes the learner to a snapshot of its position when it has
// learnt since the last one, removes the snapshots beyond Keep, and
// truncates the log up to the oldest snapshot kept. Its failure is the
// server's (Err) until a snapshot succeeds.
func (s *Server) snapshot() error {
	err := s.writeSnapshot()
	if err != nil {
		s.metrics.snapshotErrors.Inc()
		s.snapshotErr.Store(&err)
	} else {
		s.snapshotErr.Store(nil)
	}
	return err
}

func (s *Server) writeSnapshot() error {
	s.mu.Lock()
	if s.version == s.saved {
		s.mu.Unlock()
		return nil
	}
	var model bytes.Buffer
	err := s.learner.Save(&model)
	pos, svs := s.version, s.learner.SupportVectors()
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("snapshot at position %d: %w", pos, err)
	}
	path, err := s.snaps.free(pos)
	if err == nil {
		err = atomicfile.Write(path, model.Bytes(), atomicfile.Options{})
	}
	if err != nil {
		return fmt.Errorf("snapshot at position %d: %w", pos, err)
	}
	s.mu.Lock()
	s.saved = pos
	s.mu.Unlock()
	s.metrics.snapshots.Inc()
	s.opt.Logf("wrote %s (version %d, %d support vectors)", path, pos, svs)
	files, err := s.snaps.list()
	if err != nil {
		return fmt.Errorf("list the snapshots: %w", err)
	}
	var errs []error
	old := files[:max(0, len(files)-s.opt.Keep)]
	for _, f := range old {
		if err := os.Remove(f.path); err != nil {
			errs = append(errs, err)
		}
	}
	if kept := files[len(old):]; len(kept) > 0 {
		if err := s.log.Truncate(kept[0].pos); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("after the snapshot at %d: %w", pos, err)
	}
	return nil
}

// Err returns why the server is failing, if it is: it stopped learning
// from the log (it learns no more), or its last snapshot or publication
// failed (it goes on learning, into the log, and predicting with the
// model last published).
func (s *Server) Err() error {
	var errs []error
	for _, p := range []*atomic.Pointer[error]{&s.fatal, &s.snapshotErr, &s.publishErr} {
		if err := p.Load(); err != nil {
			errs = append(errs, *err)
		}
	}
	return errors.Join(errs...)
}

// followErr returns why the server stopped learning from the log, if it
// did.
func (s *Server) followErr() error {
	if err := s.fatal.Load(); err != nil {
		return *err
	}
	return nil
}

// Version returns the log position of the last record learnt.
func (s *Server) Version() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Config returns the learner's configuration: its task, classes and
// dimension.
func (s *Server) Config() bogd.Config { return s.cfg }

// Drain makes predictions that wait for a position give up (ErrClosed),
// so that a shutdown need not wait for them; everything else goes on.
func (s *Server) Drain() { s.drain.Do(func() { close(s.draining) }) }

// Close stops learning, writes the last snapshot and closes the log.
// Learns under way should be finished first (http.Server.Shutdown does):
// a Learn that Close interrupts after its record reached the log answers
// ErrNotLearnt, and the record is learnt at the next start.
func (s *Server) Close() error {
	if s.closing.Swap(true) {
		return ErrClosed
	}
	s.Drain()
	s.stop()
	s.routines.Wait()
	s.unfollow()
	<-s.followed
	return errors.Join(s.snapshot(), s.log.Close())
}
