// Package serve is the model server as a library.
//
// A Server learns from a durable, ordered log of learn records and predicts
// with what it learnt, and its HTTP handler is what `bogdbench serve` serves.
//
// An online learner is a deterministic state machine over the ordered
// examples it learns, so a model is a snapshot plus a log position:
//
//   - Learn appends a record of prepared examples to the log (package wal:
//     a file log with group commit on the local disk, or a NATS JetStream
//     stream shared by replicas, package serve/jetstream) and returns once
//     the server has learnt it, with its position. Only records the log
//     made durable are learnt.
//   - One goroutine follows the log and learns every record in order,
//     whoever appended it: replicas on one stream hold the same model at
//     the same position.
//   - Snapshots are model files named by their position
//     (NAME.snapshot-POSITION.bogd); at start the server loads the newest
//     that loads (one that does not is reported and moved aside) and
//     learns the log after it, so that the model equals, bit for bit, the
//     model of a server that never stopped. A snapshot truncates the log
//     up to the oldest snapshot kept. A snapshot that fails makes the
//     server fail (Err, /healthz) until one succeeds; the last, at Close,
//     is Close's error.
//   - The version of a model is its log position: it never goes back,
//     across restarts included. A prediction may ask for at least a
//     position (read-your-writes).
//
// Server.Handler is the HTTP API (POST /predict, POST /learn, GET
// /healthz, GET /metrics) a service mounts; Server.Serve runs it with
// timeouts, optionally TLS (CertificateFiles), and a graceful shutdown.
// HTTPOptions holds what a hostile client meets: the limits on a request
// (body, rows, a body deadline) and on the requests in flight (503 with
// Retry-After beyond), the bearer tokens of /learn and /predict, a
// read-only mode; and the points where a service adds its own policy: Wrap
// around each route, Configure on the http.Server. Options.Events makes a
// server a learn-only consumer of rows other programs publish.
package serve
