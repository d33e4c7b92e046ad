package serve

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the Prometheus metrics of /metrics.
type metrics struct {
	registry                      *prometheus.Registry
	requests                      *prometheus.CounterVec
	duration                      *prometheus.HistogramVec
	learned, predicted, snapshots prometheus.Counter
	snapshotErrors, skipped       prometheus.Counter
	snapshotLoadErrors, busy      prometheus.Counter
	supportVectors, version       prometheus.Gauge
	position, replaySeconds       prometheus.Gauge
	syncSeconds, appendSeconds    prometheus.Histogram
}

func newMetrics() *metrics {
	latency := prometheus.ExponentialBuckets(25e-6, 2, 16) // 25 µs to 0.8 s
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bogd_http_requests_total", Help: "HTTP requests by handler and status code.",
		}, []string{"handler", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "bogd_http_request_duration_seconds", Help: "HTTP request latencies by handler.", Buckets: latency,
		}, []string{"handler"}),
		learned:            prometheus.NewCounter(prometheus.CounterOpts{Name: "bogd_examples_learned_total", Help: "Examples learnt from the log since the server started (replay included)."}),
		predicted:          prometheus.NewCounter(prometheus.CounterOpts{Name: "bogd_examples_predicted_total", Help: "Rows predicted through /predict."}),
		snapshots:          prometheus.NewCounter(prometheus.CounterOpts{Name: "bogd_snapshots_total", Help: "Snapshots written to disk."}),
		snapshotErrors:     prometheus.NewCounter(prometheus.CounterOpts{Name: "bogd_snapshot_errors_total", Help: "Snapshots that failed to be written."}),
		snapshotLoadErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "bogd_snapshot_load_errors_total", Help: "Snapshots that did not load at start (the one before was used)."}),
		busy:               prometheus.NewCounter(prometheus.CounterOpts{Name: "bogd_http_busy_total", Help: "Requests answered 503 at once because the most requests the server handles at once were under way."}),
		skipped:            prometheus.NewCounter(prometheus.CounterOpts{Name: "bogd_records_skipped_total", Help: "Records of the log skipped: not a learn record (an event: not a request of labelled rows) for the model."}),
		supportVectors:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "bogd_support_vectors", Help: "Support vectors of the model predictions read."}),
		version:            prometheus.NewGauge(prometheus.GaugeOpts{Name: "bogd_model_version", Help: "Log position of the model predictions read."}),
		position:           prometheus.NewGauge(prometheus.GaugeOpts{Name: "bogd_log_position", Help: "Log position of the last record learnt."}),
		replaySeconds:      prometheus.NewGauge(prometheus.GaugeOpts{Name: "bogd_replay_seconds", Help: "Time the server took at start to learn the log after its snapshot."}),
		syncSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "bogd_log_sync_seconds", Help: "Latency of the log's fsyncs (file log; one sync makes a group of records durable).", Buckets: latency,
		}),
		appendSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "bogd_log_append_seconds", Help: "Latency of appending a learn record until it is durable.", Buckets: latency,
		}),
	}
	m.registry.MustRegister(m.requests, m.duration, m.learned, m.predicted, m.snapshots, m.snapshotErrors, m.snapshotLoadErrors, m.busy, m.skipped,
		m.supportVectors, m.version, m.position, m.replaySeconds, m.syncSeconds, m.appendSeconds,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
