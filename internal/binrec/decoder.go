package binrec

import (
	"fmt"
	"math"
)

// Decoder reads little-endian fields from the front of a byte slice. The
// first problem sticks: Err returns it, and every read after it returns
// zero (nil for Bytes) and reads nothing, so that a caller may read a run
// of fields and check Err once. Every problem is an error wrapping the
// sentinel given to NewDecoder, with the field or the problem named.
type Decoder struct {
	buf     []byte
	err     error
	invalid error
}

// NewDecoder returns a Decoder of data whose errors wrap invalid.
func NewDecoder(data []byte, invalid error) *Decoder {
	return &Decoder{buf: data, invalid: invalid}
}

// Err returns the first problem, or nil.
func (d *Decoder) Err() error { return d.err }

// Len returns the number of bytes not read yet.
func (d *Decoder) Len() int { return len(d.buf) }

// Fail records a problem, described as by fmt.Sprintf, unless one is
// recorded already, and returns the first one.
func (d *Decoder) Fail(format string, args ...any) error {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", d.invalid, fmt.Sprintf(format, args...))
	}
	return d.err
}

// Bytes reads the next n bytes (not a copy).
func (d *Decoder) Bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.buf) {
		d.Fail("a field needs %d bytes, %d remain", n, len(d.buf))
		return nil
	}
	out := d.buf[:n:n]
	d.buf = d.buf[n:]
	return out
}

// U8 reads a byte.
func (d *Decoder) U8() uint8 {
	if b := d.Bytes(1); b != nil {
		return b[0]
	}
	return 0
}

// U32 reads a uint32.
func (d *Decoder) U32() uint32 {
	if b := d.Bytes(4); b != nil {
		return le.Uint32(b)
	}
	return 0
}

// U64 reads a uint64.
func (d *Decoder) U64() uint64 {
	if b := d.Bytes(8); b != nil {
		return le.Uint64(b)
	}
	return 0
}

// I64 reads an int64.
func (d *Decoder) I64() int64 { return int64(d.U64()) }

// F32 reads a float32 from its IEEE 754 bits, whatever they are.
func (d *Decoder) F32() float32 { return math.Float32frombits(d.U32()) }

// F64 reads a float64 from its IEEE 754 bits, whatever they are.
func (d *Decoder) F64() float64 { return math.Float64frombits(d.U64()) }

// Bool reads a byte that must be 0 or 1; what names it in the error.
func (d *Decoder) Bool(what string) bool {
	switch v := d.U8(); v {
	case 0, 1:
		return v == 1
	default:
		d.Fail("%s is %d, want 0 or 1", what, v)
		return false
	}
}

// Count reads an int64 count or size that must lie in [0, limit]; what
// names it in the error.
func (d *Decoder) Count(what string, limit int) int {
	v := d.I64()
	switch {
	case d.err != nil:
		return 0
	case v < 0:
		d.Fail("%s is negative (%d)", what, v)
		return 0
	case v > int64(limit):
		d.Fail("%s %d is above the limit %d", what, v, limit)
		return 0
	}
	return int(v)
}

// Done reports the first problem, or an error if bytes remain unread
// after the last field; after names that field (or what ends there).
func (d *Decoder) Done(after string) error {
	if d.err == nil && len(d.buf) > 0 {
		d.Fail("%d unexpected bytes after %s", len(d.buf), after)
	}
	return d.err
}
