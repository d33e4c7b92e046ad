package main

import (
	"context"
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
	keep := fs.Int("keep", 3, "snapshots kept, at least 2: older ones are removed (the --model file never is); the log is kept from the oldest on, so that a newest snapshot that does not load falls back to the one before")
	maxBody := fs.Int64("max-request", serve.DefaultMaxBody, "largest request body, in bytes (beyond: 413); with --max-rows and --max-in-flight, what bounds the memory requests take")
	maxRows := fs.Int("max-rows", serve.DefaultMaxRows, "most rows in one /predict or /learn request (beyond: 413)")
	maxInFlight := fs.Int("max-in-flight", serve.DefaultMaxInFlight, "most /predict and /learn requests handled at once (beyond: 503 with Retry-After); with --max-request, what bounds the memory requests take")
	readOnly := fs.Bool("read-only", false, "predict only: /learn is refused (with --nats the server still learns what the stream holds)")
	learnTokenFile := fs.String("learn-token-file", "", "file holding the bearer token /learn requires (Authorization: Bearer TOKEN; default: $"+learnTokenEnv+"; neither: anyone who reaches --addr learns)")
	predictTokenFile := fs.String("predict-token-file", "", "file holding the bearer token /predict requires (default: $"+predictTokenEnv+"; neither: predictions are open)")
	tlsCert := fs.String("tls-cert", "", "serve HTTPS with this PEM certificate (chain) and --tls-key, both read again on SIGHUP")
	tlsKey := fs.String("tls-key", "", "the PEM private key of --tls-cert")
	insecure := fs.Bool("insecure", false, "listen beyond loopback although anyone who reaches --addr may learn (no learning token, not --read-only)")
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
	case *keep < 2:
		return usagef("--keep must be at least 2, got %d: when the newest snapshot does not load, the server starts from the one before", *keep)
	case *maxBody < 1 || *maxRows < 1 || *maxInFlight < 1:
		return usagef("--max-request, --max-rows and --max-in-flight must be positive")
	case (*tlsCert == "") != (*tlsKey == ""):
		return usagef("--tls-cert and --tls-key go together")
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
	httpOpt := serve.HTTPOptions{MaxBody: *maxBody, MaxRows: *maxRows, MaxInFlight: *maxInFlight, ReadOnly: *readOnly}
	var err error
	if httpOpt.LearnToken, err = readToken(*learnTokenFile, learnTokenEnv); err != nil {
		return err
	}
	if httpOpt.PredictToken, err = readToken(*predictTokenFile, predictTokenEnv); err != nil {
		return err
	}
	var certs *serve.CertificateFiles
	if *tlsCert != "" {
		if certs, err = serve.LoadCertificate(*tlsCert, *tlsKey); err != nil {
			return err
		}
		httpOpt.TLS = certs.TLSConfig()
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() && httpOpt.LearnToken == "" && !*readOnly && !*events && !*insecure {
		return usagef("--addr %s listens beyond loopback, where anyone who reaches it could teach the model: give a learning token (--learn-token-file, or $%s), or --read-only, or say --insecure", *addr, learnTokenEnv)
	}
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
	scheme := "http"
	if certs != nil {
		scheme = "https"
		reloadOnHangup(certs, logf)
	}
	// The signals are caught before the line that tells a supervisor the
	// server is up.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf("listening on %s://%s (POST /predict, POST /learn, GET /healthz, GET /metrics)", scheme, ln.Addr())
	return s.Serve(ctx, ln, httpOpt)
}

// The environment variables a token is read from when no file is named.
const (
	learnTokenEnv   = "BOGD_LEARN_TOKEN"
	predictTokenEnv = "BOGD_PREDICT_TOKEN"
)

// minTokenLength is the shortest token taken: a shorter one is guessed.
const minTokenLength = 16

// readToken returns a bearer token: the content of file (surrounding
// white space removed), or else of the environment variable env; "" when
// neither is set.
func readToken(file, env string) (string, error) {
	token, from := os.Getenv(env), "$"+env
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", err
		}
		token, from = strings.TrimSpace(string(b)), file
		if token == "" {
			return "", fmt.Errorf("%s holds no token", file)
		}
	}
	switch {
	case token == "":
		return "", nil
	case len(token) < minTokenLength:
		return "", fmt.Errorf("%s: a token of %d characters is easily guessed: use at least %d (for example: openssl rand -hex 32)", from, len(token), minTokenLength)
	case strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return "", fmt.Errorf("%s: a token cannot hold white space or control characters", from)
	}
	return token, nil
}

// reloadOnHangup reads the certificate files again at every SIGHUP; when
// they do not hold a certificate, the one in use stays.
func reloadOnHangup(certs *serve.CertificateFiles, logf func(string, ...any)) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for range hup {
			if err := certs.Reload(); err != nil {
				logf("SIGHUP: %v: the certificate in use stays (it expires %s)", err, certs.NotAfter().Format(time.RFC3339))
				continue
			}
			logf("SIGHUP: reloaded the TLS certificate (it expires %s)", certs.NotAfter().Format(time.RFC3339))
		}
	}()
}
