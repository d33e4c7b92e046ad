// Package binrec reads and writes the binary records model files are made of.
//
// The fields are little-endian (Decoder, and the Append functions), framed by
// a header and a trailer (Format):
//
//	header   magic (MagicSize bytes), format version uint32, total length
//	         uint64 (header and trailer included)
//	body     the fields, as the format's owner lays them out
//	trailer  CRC-32C (Castagnoli) uint32 of every byte before it
//
// The package knows no format of its own: each caller names its magic, its
// versions and the errors its checks wrap, so that errors.Is on the
// caller's sentinels keeps working.
package binrec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
)

// Sizes of the frame around a record's body.
const (
	MagicSize   = 8
	HeaderSize  = MagicSize + 4 + 8
	TrailerSize = 4

	lengthAt = MagicSize + 4 // offset of the length field
)

var le = binary.LittleEndian

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Format is one kind of record: its magic, the versions this program reads,
// and the errors its checks report (each returned as is or wrapped, with
// details, by fmt.Errorf's %w).
type Format struct {
	Magic string // MagicSize bytes
	// Version is the version Begin writes and the newest one Open reads;
	// Oldest is the oldest one it reads.
	Version, Oldest uint32

	NotRecord error // the input does not start with the magic
	Truncated error // the input ends before the record's declared length
	Checksum  error // the checksum does not match: the record is corrupted
	Newer     error // the version is newer than Version
	Invalid   error // the version is older than Oldest, or (with Decoder) a field is invalid
	TooLarge  error // the record, or the file, is longer than the limit Read and ReadFile are given
}

// Begin returns the header of a new record of format f, in a slice of the
// given capacity (at least the header's): its magic, its Version, and room
// for the length, which End fills in. The fields of the body are appended
// to it.
func (f *Format) Begin(capacity int) []byte { return f.BeginVersion(f.Version, capacity) }

// BeginVersion is Begin for a record of an older version, which a writer
// keeps writing where it holds everything (so that older programs read it).
func (f *Format) BeginVersion(version uint32, capacity int) []byte {
	if len(f.Magic) != MagicSize {
		panic(fmt.Sprintf("binrec: a magic of %d bytes, want %d", len(f.Magic), MagicSize))
	}
	out := make([]byte, 0, max(capacity, HeaderSize))
	out = append(out, f.Magic...)
	out = le.AppendUint32(out, version)
	return le.AppendUint64(out, 0)
}

// End completes rec, a record from Begin with its body appended: it fills
// in the total length and appends the checksum.
func End(rec []byte) []byte {
	le.PutUint64(rec[lengthAt:], uint64(len(rec)+TrailerSize))
	return le.AppendUint32(rec, crc32.Checksum(rec, castagnoli))
}

// Reseal rewrites the checksum of rec, a whole record (its length field
// unchanged), as a writer that edits fields in place must. A rec shorter
// than a header and a trailer is left alone.
func Reseal(rec []byte) {
	if len(rec) < HeaderSize+TrailerSize {
		return
	}
	body := rec[:len(rec)-TrailerSize]
	le.PutUint32(rec[len(body):], crc32.Checksum(body, castagnoli))
}

// checksumOK reports whether the last TrailerSize bytes of rec are the
// checksum of the rest.
func checksumOK(rec []byte) bool {
	body := rec[:len(rec)-TrailerSize]
	return crc32.Checksum(body, castagnoli) == le.Uint32(rec[len(body):])
}

// Size checks the magic and the version at the start of data (a whole
// record or any prefix of one) and returns the total length the header
// declares. A prefix too short to tell is Truncated. A length no record
// can have is corruption (Checksum), unless data is a whole record whose
// checksum holds: then it is Invalid.
func (f *Format) Size(data []byte) (int, error) {
	switch {
	case len(data) < len(f.Magic) && bytes.HasPrefix([]byte(f.Magic), data):
		return 0, f.Truncated
	case len(data) < len(f.Magic) || string(data[:len(f.Magic)]) != f.Magic:
		return 0, f.NotRecord
	case len(data) < lengthAt:
		return 0, f.Truncated
	}
	// The version comes before anything a later version might change: a
	// newer record is Newer however short.
	switch v := le.Uint32(data[MagicSize:]); {
	case v > f.Version:
		return 0, fmt.Errorf("%w: version %d, this program reads up to %d", f.Newer, v, f.Version)
	case v < f.Oldest:
		return 0, fmt.Errorf("%w: format version %d, this program reads %d to %d", f.Invalid, v, f.Oldest, f.Version)
	}
	if len(data) < HeaderSize {
		return 0, f.Truncated
	}
	declared := le.Uint64(data[lengthAt:])
	if declared < HeaderSize+TrailerSize || declared > math.MaxInt {
		if len(data) >= HeaderSize+TrailerSize && checksumOK(data) {
			return 0, fmt.Errorf("%w: declared length %d", f.Invalid, declared)
		}
		return 0, fmt.Errorf("%w: declared length %d", f.Checksum, declared)
	}
	return int(declared), nil
}

// Open checks the frame of data, which must hold one record and nothing
// after it (as a file does, or what Read returns), and returns the
// record's body and version. It checks, in this order, what Size does,
// the length (a shorter data is Truncated, unless the checksum holds with
// the actual length in place of the declared one: then the length field
// is corrupted), the checksum, and that nothing follows the record.
func (f *Format) Open(data []byte) (body []byte, version uint32, err error) {
	size, err := f.Size(data)
	if err != nil {
		return nil, 0, err
	}
	if len(data) < size {
		if len(data) >= HeaderSize+TrailerSize {
			patched := bytes.Clone(data)
			le.PutUint64(patched[lengthAt:], uint64(len(data)))
			if checksumOK(patched) {
				return nil, 0, fmt.Errorf("%w: declared length %d, the checksum holds for %d", f.Checksum, size, len(data))
			}
		}
		return nil, 0, fmt.Errorf("%w (%d of %d bytes)", f.Truncated, len(data), size)
	}
	if !checksumOK(data[:size]) {
		return nil, 0, f.Checksum
	}
	if len(data) > size {
		return nil, 0, fmt.Errorf("%w: %d bytes after the end of the record (the %d its header declares)", f.Invalid, len(data)-size, size)
	}
	return data[HeaderSize : size-TrailerSize], le.Uint32(data[MagicSize:]), nil
}

// Read reads one record from r and nothing after it, so that records may
// follow each other in a stream: the bytes up to the length its header
// declares, for Open to check. It returns fewer where r ends first or the
// header is not one of f (Open then says what is wrong), and allocates as
// the bytes arrive, so that a hostile length costs nothing. It reads at
// most limit bytes: a record declaring more is read up to the limit only
// (a stream ending before it goes to Open, which says how it is broken),
// and is TooLarge when the limit is passed. Its other errors are r's.
func (f *Format) Read(r io.Reader, limit int64) ([]byte, error) {
	head := make([]byte, HeaderSize)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	size, err := f.Size(head[:n])
	if err != nil {
		return head[:n], nil
	}
	want := int64(size)
	if want > limit {
		want = limit + 1
	}
	var buf bytes.Buffer
	buf.Write(head)
	if _, err := io.Copy(&buf, io.LimitReader(r, want-HeaderSize)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > limit {
		return nil, fmt.Errorf("%w: the record declares %d bytes, the limit is %d", f.TooLarge, size, limit)
	}
	return buf.Bytes(), nil
}

// ReadFile reads the file at path, which must be a regular file of at most
// limit bytes (TooLarge otherwise), for Open: a device (/dev/zero), a pipe
// or a directory given as a record file is an error before anything is
// read from it, and a file growing while it is read is read no further
// than the limit. Errors name the file.
func (f *Format) ReadFile(path string, limit int64) ([]byte, error) {
	if err := regularFile(path, limit, f.TooLarge, os.Stat); err != nil {
		return nil, err
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if err := regularFile(path, limit, f.TooLarge, func(string) (os.FileInfo, error) { return file.Stat() }); err != nil {
		return nil, err // replaced since the first look
	}
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w: it grew beyond %d bytes while it was read", path, f.TooLarge, limit)
	}
	return data, nil
}

// regularFile checks, through stat, that path is a regular file of at
// most limit bytes (tooLarge otherwise). It looks before opening, because
// opening a named pipe waits for a writer.
func regularFile(path string, limit int64, tooLarge error, stat func(string) (os.FileInfo, error)) error {
	fi, err := stat(path)
	switch {
	case err != nil:
		return err // *PathError names the file
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s: not a regular file (%s)", path, kindOf(fi.Mode()))
	case fi.Size() > limit:
		return fmt.Errorf("%s: %w: %d bytes, the limit is %d", path, tooLarge, fi.Size(), limit)
	}
	return nil
}

// kindOf names the kind of a file that is not regular.
func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file: " + m.Type().String()
}

// AppendF32 appends v's IEEE 754 bits.
func AppendF32(b []byte, v float32) []byte { return le.AppendUint32(b, math.Float32bits(v)) }

// AppendF64 appends v's IEEE 754 bits.
func AppendF64(b []byte, v float64) []byte { return le.AppendUint64(b, math.Float64bits(v)) }

// AppendBool appends v as a byte, 1 or 0.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}
