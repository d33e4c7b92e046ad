package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Sizes and marks of the file format (see the package doc).
const (
	segmentMagic      = "bogd-wal"
	segmentVersion    = 1
	segmentHeaderSize = 8 + 4 + 8 + 4
	recordHeaderSize  = 4 + 4 + 8
)

var (
	le         = binary.LittleEndian
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
)

// What decodeRecord finds wrong with the bytes where a record should be.
var (
	errShort    = errors.New("the record is cut short")
	errChecksum = errors.New("the record's checksum does not match")
	errPosition = errors.New("the record is not at its position")
	errTooLong  = errors.New("the record's length is beyond the limit")
)

// appendRecord appends the record of payload at pos to b.
func appendRecord(b []byte, pos uint64, payload []byte) []byte {
	start := len(b)
	b = le.AppendUint32(b, uint32(len(payload)))
	b = le.AppendUint32(b, 0) // the checksum, below
	b = le.AppendUint64(b, pos)
	b = append(b, payload...)
	le.PutUint32(b[start+4:], recordChecksum(b[start:]))
	return b
}

// recordChecksum is the CRC-32C of a record's length, position and
// payload: everything but the checksum field itself.
func recordChecksum(rec []byte) uint32 {
	c := crc32.Update(0, castagnoli, rec[:4])
	return crc32.Update(c, castagnoli, rec[8:])
}

// decodeRecord decodes the record at the start of b, which must be at
// position want and hold at most limit bytes of payload. It returns the
// payload (a slice of b) and the record's size. errShort means b ends
// inside the record.
func decodeRecord(b []byte, want uint64, limit int) (payload []byte, size int, err error) {
	if len(b) < recordHeaderSize {
		return nil, 0, errShort
	}
	n := le.Uint32(b)
	if uint64(n) > uint64(limit) {
		return nil, 0, fmt.Errorf("%w: %d bytes, at most %d", errTooLong, n, limit)
	}
	size = recordHeaderSize + int(n)
	if len(b) < size {
		return nil, 0, errShort
	}
	if got := le.Uint32(b[4:]); got != recordChecksum(b[:size]) {
		return nil, 0, errChecksum
	}
	if pos := le.Uint64(b[8:]); pos != want {
		return nil, 0, fmt.Errorf("%w: position %d where %d should be", errPosition, pos, want)
	}
	return b[recordHeaderSize:size], size, nil
}

// segmentHeader returns the header of a segment whose records follow
// position base.
func segmentHeader(base uint64) []byte {
	b := make([]byte, 0, segmentHeaderSize)
	b = append(b, segmentMagic...)
	b = le.AppendUint32(b, segmentVersion)
	b = le.AppendUint64(b, base)
	return le.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// checkSegmentHeader checks a segment's header against the base its name
// gives.
func checkSegmentHeader(h []byte, base uint64) error {
	switch {
	case len(h) < segmentHeaderSize:
		return fmt.Errorf("the header is cut short (%d bytes, want %d)", len(h), segmentHeaderSize)
	case string(h[:8]) != segmentMagic:
		return fmt.Errorf("not a log segment (no %q at the start)", segmentMagic)
	case le.Uint32(h[20:]) != crc32.Checksum(h[:20], castagnoli):
		return errors.New("the header's checksum does not match")
	case le.Uint32(h[8:]) != segmentVersion:
		return fmt.Errorf("format version %d, this program reads %d", le.Uint32(h[8:]), segmentVersion)
	case le.Uint64(h[12:]) != base:
		return fmt.Errorf("the header says base position %d, the name %d", le.Uint64(h[12:]), base)
	}
	return nil
}
