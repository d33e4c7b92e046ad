// Package jetstream is package wal's log on a NATS JetStream stream.
//
// Replicas that share the stream apply the same records in the same order, so
// they hold the same model at the same position, the stream sequence.
//
// JetStream makes a record durable as its server is configured to: with
// one server, set jetstream { sync_interval: always } (the default syncs
// every two minutes); with a cluster, a stream of three replicas acknowledges
// a record once a majority of the servers stored it.
package jetstream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/bogd-project/bogd/serve/wal"
)

// Config names the stream of a Log.
type Config struct {
	// Stream is the stream's name; Open creates it, on file storage with
	// Subject as its only subject, when it does not exist.
	Stream string
	// Subject is where records are published and read from.
	Subject string
	// Replicas is the number of JetStream servers that store a created
	// stream (1 by default; 3 or 5 in a cluster).
	Replicas int
}

// Log is a wal.Log on a JetStream stream. Its positions are stream
// sequence numbers: they grow with every message of the stream, so a
// stream that carries other subjects too leaves gaps between them.
type Log struct {
	js      jetstream.JetStream
	stream  jetstream.Stream
	subject string
	name    string

	quit  chan struct{}
	close sync.Once
}

var _ wal.Log = (*Log)(nil)

// Open binds a Log to the stream cfg names over nc, creating the stream
// when it does not exist. The connection stays the caller's to close.
func Open(ctx context.Context, nc *nats.Conn, cfg Config) (*Log, error) {
	if cfg.Stream == "" || cfg.Subject == "" {
		return nil, errors.New("open a JetStream log: a stream and a subject are required")
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("open the JetStream log: %w", err)
	}
	stream, err := js.Stream(ctx, cfg.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		stream, err = js.CreateStream(ctx, jetstream.StreamConfig{
			Name: cfg.Stream, Subjects: []string{cfg.Subject}, Storage: jetstream.FileStorage, Replicas: max(cfg.Replicas, 1),
		})
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) { // another replica created it meanwhile
			stream, err = js.Stream(ctx, cfg.Stream)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open the JetStream stream %s: %w", cfg.Stream, err)
	}
	return &Log{js: js, stream: stream, subject: cfg.Subject, name: cfg.Stream, quit: make(chan struct{})}, nil
}

// Append publishes record to the subject and returns its stream sequence
// once the stream has stored it.
func (l *Log) Append(ctx context.Context, record []byte) (uint64, error) {
	select {
	case <-l.quit:
		return 0, wal.ErrClosed
	default:
	}
	// While a new stream, or one whose server failed, elects its leader,
	// nothing answers a publish: ask again (the record reached no server,
	// so it cannot be stored twice) for up to 10 s, within ctx.
	ack, err := l.js.Publish(ctx, l.subject, record, jetstream.WithRetryAttempts(40), jetstream.WithRetryWait(250*time.Millisecond))
	if err != nil {
		return 0, fmt.Errorf("publish to %s: %w", l.subject, err)
	}
	return ack.Sequence, nil
}

// Follow reads the subject's messages after sequence after, in stream
// order, with an ordered consumer (which the client recreates when it
// misses a message, so none is skipped).
func (l *Log) Follow(ctx context.Context, after uint64, apply func(pos uint64, record []byte) error) error {
	if err := l.check(ctx, after); err != nil {
		return err
	}
	cons, err := l.js.OrderedConsumer(ctx, l.name, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{l.subject},
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    after + 1,
	})
	if err != nil {
		return fmt.Errorf("follow %s: %w", l.name, err)
	}
	msgs, err := cons.Messages()
	if err != nil {
		return fmt.Errorf("follow %s: %w", l.name, err)
	}
	defer msgs.Stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-l.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	pos := after
	for {
		msg, err := msgs.Next(jetstream.NextContext(ctx))
		if err != nil {
			select {
			case <-l.quit:
				return wal.ErrClosed
			default:
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("follow %s after %d: %w", l.name, pos, err)
		}
		meta, err := msg.Metadata()
		if err != nil {
			return fmt.Errorf("follow %s after %d: %w", l.name, pos, err)
		}
		seq := meta.Sequence.Stream
		if seq <= pos {
			continue // delivered again after the consumer was recreated
		}
		if seq > pos+1 {
			// A gap: other subjects' messages, or ours removed by the
			// stream's limits before this replica read them, which the
			// stream's first message then lies beyond.
			if err := l.check(ctx, pos); err != nil {
				return err
			}
		}
		pos = seq
		if err := apply(seq, msg.Data()); err != nil {
			return err
		}
	}
}

// check fails with wal.ErrTruncated when the stream no longer holds the
// messages after after: its first message is later, and some were
// stored after after.
func (l *Log) check(ctx context.Context, after uint64) error {
	info, err := l.stream.Info(ctx)
	if err != nil {
		return fmt.Errorf("the state of %s: %w", l.name, err)
	}
	if st := info.State; st.FirstSeq > after+1 && st.LastSeq > after {
		return fmt.Errorf("follow %s after %d: its first message is %d: %w", l.name, after, st.FirstSeq, wal.ErrTruncated)
	}
	return nil
}

// End returns the sequence of the subject's last message (0: none).
func (l *Log) End(ctx context.Context) (uint64, error) {
	msg, err := l.stream.GetLastMsgForSubject(ctx, l.subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	} else if err != nil {
		return 0, fmt.Errorf("the last message of %s: %w", l.subject, err)
	}
	return msg.Sequence, nil
}

// Truncate does nothing: replicas share the stream, and one replica's
// snapshot does not hold what another one may need. The stream's own
// limits (max age, messages, bytes) decide what it keeps; a replica whose
// newest snapshot is older than the stream's first message cannot catch
// up (wal.ErrTruncated) and must start from a newer snapshot.
func (l *Log) Truncate(uint64) error { return nil }

// Close ends the Follows under way and refuses further Appends.
func (l *Log) Close() error {
	l.close.Do(func() { close(l.quit) })
	return nil
}
