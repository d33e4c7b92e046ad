// Package wal is the durable, ordered log of what a server learns.
//
// A model is a snapshot plus a log position, and recovery is replay.
//
// Log is what the server needs of a log; File is the embedded default, an
// append-only directory of segment files on the local disk, and package
// serve/jetstream puts the same interface on a NATS JetStream stream shared
// by replicas.
//
// # The file format
//
// A File log is a directory of segment files named by the position before
// their first record, in 20 decimal digits (00000000000000000000.wal),
// beside a LOCK file that keeps a second process out. A segment is
//
//	header  magic "bogd-wal" (8 bytes), format version uint32 (1), base
//	        position uint64, CRC-32C (Castagnoli) uint32 of those 20 bytes
//	records each: payload length uint32, CRC-32C uint32 of the length, the
//	        position and the payload, position uint64 (base+1, base+2, …),
//	        payload
//
// all little-endian. Records are only ever appended: a batch of them is
// written with one write and made durable with one fsync (group commit),
// and Append returns only after that fsync. A crash can therefore leave
// only the last segment's tail half written; Open finds the first record
// there that does not check (short, a checksum or a position that does not
// match, a length beyond the limit), cuts the file there and reports it
// (File.Torn): no part of a torn record is ever replayed. The same fault in
// any earlier segment is corruption, an error naming the file and offset.
// A record beyond the limit that is whole and checks is neither: it was
// written under a larger Options.MaxRecord, and Open fails without
// cutting it.
package wal

import (
	"context"
	"errors"
)

// Log is an ordered, durable log of records, each at a position that
// grows with every record and never goes backwards, across restarts and
// truncation included.
type Log interface {
	// Append makes record durable and returns its position. Concurrent
	// calls are safe and may share one sync. Once the record is handed to
	// the log, Append waits for the outcome even if ctx ends: the record
	// may already be durable.
	Append(ctx context.Context, record []byte) (uint64, error)
	// Follow calls apply with every durable record after position after,
	// in order, including records appended later (by this process or, for
	// a shared log, by others), until ctx ends (ctx.Err()), apply fails
	// (its error) or the log does (an error, ErrTruncated when the records
	// after after are gone). The record passed to apply is valid only
	// during the call.
	Follow(ctx context.Context, after uint64, apply func(pos uint64, record []byte) error) error
	// End returns the position of the last durable record (the position
	// the log started at when it holds none).
	End(ctx context.Context) (uint64, error)
	// Truncate lets the log drop the records at positions up to upTo
	// (a snapshot holds them). A log may keep them longer.
	Truncate(upTo uint64) error
	// Close ends the log: pending Appends and Follows return ErrClosed.
	Close() error
}

// Errors a Log reports, wrapped with details.
var (
	// ErrTruncated: the records asked for were dropped by Truncate (or a
	// shared log's retention): start from a newer snapshot.
	ErrTruncated = errors.New("the records asked for are no longer in the log")
	// ErrCorrupt: a record that is not the last one does not check.
	ErrCorrupt = errors.New("the log is corrupt")
	// ErrClosed: the log was closed.
	ErrClosed = errors.New("the log is closed")
)
