package wal

import (
	"context"
	"fmt"
	"sync"
)

// Memory is a Log that keeps nothing on disk: the log of a server whose
// learning need not survive a crash (what it learnt lives until the next
// snapshot), and the baseline the File log is measured against. It keeps a
// record only until Truncate drops it or a Follow has passed it, so it is
// meant for one follower.
type Memory struct {
	mu      sync.Mutex
	first   uint64   // the position of records[0]
	records [][]byte // not yet followed nor truncated
	end     uint64
	changed chan struct{}
	closed  bool
}

var _ Log = (*Memory)(nil)

// NewMemory returns an empty Memory log whose first record will be at
// position base+1.
func NewMemory(base uint64) *Memory {
	return &Memory{first: base + 1, end: base, changed: make(chan struct{})}
}

// Append keeps a copy of record.
func (m *Memory) Append(_ context.Context, record []byte) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, ErrClosed
	}
	m.records = append(m.records, append([]byte(nil), record...))
	m.end++
	close(m.changed)
	m.changed = make(chan struct{})
	return m.end, nil
}

// Follow passes the records after after to apply, dropping each once
// passed.
func (m *Memory) Follow(ctx context.Context, after uint64, apply func(pos uint64, record []byte) error) error {
	pos := after
	for {
		m.mu.Lock()
		if pos+1 < m.first {
			m.mu.Unlock()
			return fmt.Errorf("follow after position %d: the memory log starts at %d: %w", pos, m.first, ErrTruncated)
		}
		if pos > m.end {
			m.mu.Unlock()
			return fmt.Errorf("follow after position %d: the memory log ends at %d", pos, m.end)
		}
		have := pos < m.end
		var rec []byte
		if have {
			rec = m.records[pos+1-m.first]
			m.records[pos+1-m.first] = nil
		}
		closed, changed := m.closed, m.changed
		m.mu.Unlock()
		if have {
			pos++
			if err := apply(pos, rec); err != nil {
				return err
			}
			m.Truncate(pos)
			continue
		}
		if closed {
			return ErrClosed
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// End returns the position of the last record appended.
func (m *Memory) End(context.Context) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.end, nil
}

// Truncate drops the records up to upTo.
func (m *Memory) Truncate(upTo uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if upTo >= m.first {
		n := min(upTo+1-m.first, uint64(len(m.records)))
		m.records = m.records[n:]
		m.first += n
	}
	return nil
}

// Close wakes the follower, which returns ErrClosed once it has passed
// every record, and refuses further Appends.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.closed = true
		close(m.changed)
	}
	return nil
}
