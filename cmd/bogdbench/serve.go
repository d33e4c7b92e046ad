package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/serve"
	"github.com/bogd-project/bogd/serve/jetstream"
	"github.com/bogd-project/bogd/serve/wal"
	"github.com/bogd-project/bogd/simd"
)

// serveCommand is `bogdbench serve`: package serve's server over a saved
// model, with its log on the local disk (the default), on a NATS
// JetStream stream shared by replicas, or none.
func serveCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stderr)
	modelPath := fs.String("model", "", "model file written by train, tune or run --save (required); its input preparation (hashing, scaling) applies to the rows")
	addr := fs.String("addr", "127.0.0.1:8080", "HOST:PORT to listen on (port 0: any free port, printed)")
	dir := fs.String("snapshots", "", "directory of the snapshots, MODEL-NAME.snapshot-POSITION.bogd (default: the model's); at start the newest snapshot of the model is loaded and the log after it learnt, unless the model file is newer")
	every := fs.Duration("snapshot-every", time.Minute, "write a snapshot this often when the model has learnt since the last (0: at shutdown only)")
	publishEvery := fs.Duration("publish-every", 10*time.Millisecond, "publish what was learnt to /predict at most this often (a publication copies the model); 0: after every learn record, before /learn answers")
	keep := fs.Int("keep", 3, "snapshots kept: older ones are removed (the --model file never is); the log is kept from the oldest on")
	maxBody := fs.Int64("max-request", 32<<20, "largest request body, in bytes")
	logDir := fs.String("log", "", "directory of the durable log of learn requests: /learn answers once its rows are in it (fsync) (default: MODEL-NAME.log in the snapshots' directory)")
	noLog := fs.Bool("no-log", false, "learn without a durable log: what was learnt since the last snapshot is lost in a crash")
	natsURL := fs.String("nats", "", "NATS server URLs, comma-separated: the log is the JetStream stream --stream, shared by every replica that names it, instead of a local log")
	stream := fs.String("stream", "BOGD", "with --nats: the JetStream stream (created, on file storage, when missing)")
	subject := fs.String("subject", "", "with --nats: the subject of the learn records (default bogd.learn.MODEL-NAME); with --events, of the rows other programs publish")
	streamReplicas := fs.Int("stream-replicas", 1, "with --nats: the JetStream servers that store the stream when serve creates it (3 in a cluster of three)")
	events := fs.Bool("events", false, "with --nats: learn only the rows other programs publish to --subject, each message a body as /learn takes; /learn is refused")
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
	case *noLog && (*logDir != "" || *natsURL != ""):
		return usagef("--no-log and --log or --nats: choose one")
	case *logDir != "" && *natsURL != "":
		return usagef("--log is a local log, --nats a shared one: choose one")
	case *events && *natsURL == "":
		return usagef("--events learns from a NATS subject: give --nats")
	}
	if err := simd.EnvError(); err != nil {
		return err
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "bogdbench serve: "+format+"\n", args...) }
	opt := serve.Options{
		Model: *modelPath, SnapshotDir: *dir, SnapshotEvery: *every, Keep: *keep, PublishEvery: *publishEvery, Events: *events,
		Load: func(path string) (*bogd.Learner, error) { return loadModel(path, func(msg string) { logf("%s", msg) }) },
		Logf: logf,
	}
	if opt.SnapshotDir == "" {
		opt.SnapshotDir = filepath.Dir(*modelPath)
	}
	name := strings.TrimSuffix(filepath.Base(*modelPath), filepath.Ext(*modelPath))
	switch {
	case *natsURL != "":
		nc, err := nats.Connect(*natsURL, nats.Name("bogdbench serve "+name), nats.MaxReconnects(-1))
		if err != nil {
			return fmt.Errorf("--nats %s: %w", *natsURL, err)
		}
		defer nc.Close()
		if *subject == "" {
			*subject = "bogd.learn." + name
		}
		logf("learning from the JetStream stream %s, subject %s, at %s", *stream, *subject, nc.ConnectedUrlRedacted())
		opt.OpenLog = func(uint64, func(time.Duration, int)) (wal.Log, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			return jetstream.Open(ctx, nc, jetstream.Config{Stream: *stream, Subject: *subject, Replicas: *streamReplicas})
		}
	case !*noLog:
		if *logDir == "" {
			*logDir = filepath.Join(opt.SnapshotDir, name+".log")
		}
		open := serve.FileLog(*logDir)
		opt.OpenLog = func(base uint64, onSync func(time.Duration, int)) (wal.Log, error) {
			l, err := open(base, onSync)
			if f, ok := l.(*wal.File); ok && f.Torn() != nil {
				logf("the log's last record was torn by a crash, never acknowledged: %v", f.Torn())
			}
			return l, err
		}
		logf("learning through the log in %s", *logDir)
	}
	s, err := serve.New(opt)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return errors.Join(err, s.Close())
	}
	logf("listening on http://%s (POST /predict, POST /learn, GET /healthz, GET /metrics)", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return s.Serve(ctx, ln, serve.HTTPOptions{MaxBody: *maxBody})
}
