package binrec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
)

var testFormat = &Format{
	Magic:     "TESTREC\x00",
	Version:   3,
	Oldest:    2,
	NotRecord: errors.New("not a test record"),
	Truncated: errors.New("truncated test record"),
	Checksum:  errors.New("test record corrupted"),
	Newer:     errors.New("newer test record"),
	Invalid:   errors.New("invalid test record"),
	TooLarge:  errors.New("test record too large"),
}

// The errors of testFormat.
var (
	errNot, errTruncated, errChecksum = testFormat.NotRecord, testFormat.Truncated, testFormat.Checksum
	errNewer, errInvalid              = testFormat.Newer, testFormat.Invalid
)

// record returns a record of testFormat whose body holds every kind of
// field, and that body.
func record() (rec, body []byte) {
	rec = testFormat.Begin(0)
	rec = append(rec, 7)
	rec = binary.LittleEndian.AppendUint32(rec, 0xdeadbeef)
	rec = binary.LittleEndian.AppendUint64(rec, 1<<40+5)
	minus3 := int64(-3)
	rec = binary.LittleEndian.AppendUint64(rec, uint64(minus3))
	rec = AppendF32(rec, -1.5)
	rec = AppendF64(rec, math.Pi)
	rec = AppendBool(rec, true)
	rec = AppendBool(rec, false)
	rec = binary.LittleEndian.AppendUint64(rec, 12) // a count
	rec = append(rec, "xyz"...)
	body = bytes.Clone(rec[HeaderSize:])
	return End(rec), body
}

func TestFrame(t *testing.T) {
	rec, want := record()
	le := binary.LittleEndian
	if string(rec[:MagicSize]) != testFormat.Magic || le.Uint32(rec[MagicSize:]) != 3 ||
		le.Uint64(rec[12:]) != uint64(len(rec)) || len(rec) != HeaderSize+len(want)+TrailerSize {
		t.Fatalf("header % x of a %d-byte record", rec[:HeaderSize], len(rec))
	}
	body, version, err := testFormat.Open(rec)
	if err != nil || !bytes.Equal(body, want) || version != 3 {
		t.Fatalf("Open: % x, %d, %v", body, version, err)
	}
	// Reseal makes an edited record whole again.
	edited := bytes.Clone(rec)
	edited[HeaderSize] = 8
	if _, _, err := testFormat.Open(edited); !errors.Is(err, errChecksum) {
		t.Fatalf("edited: %v", err)
	}
	Reseal(edited)
	if body, _, err := testFormat.Open(edited); err != nil || body[0] != 8 {
		t.Fatalf("resealed: %v", err)
	}
	Reseal(edited[:5]) // too short: left alone
}

func TestDecoder(t *testing.T) {
	_, body := record()
	d := NewDecoder(body, errInvalid)
	if v := d.U8(); v != 7 {
		t.Errorf("U8 %d", v)
	}
	if v := d.U32(); v != 0xdeadbeef {
		t.Errorf("U32 %#x", v)
	}
	if v := d.U64(); v != 1<<40+5 {
		t.Errorf("U64 %d", v)
	}
	if v := d.I64(); v != -3 {
		t.Errorf("I64 %d", v)
	}
	if v := d.F32(); v != -1.5 {
		t.Errorf("F32 %v", v)
	}
	if v := d.F64(); v != math.Pi {
		t.Errorf("F64 %v", v)
	}
	if a, b := d.Bool("a"), d.Bool("b"); !a || b {
		t.Errorf("Bool %v %v", a, b)
	}
	if v := d.Count("count", 12); v != 12 {
		t.Errorf("Count %d", v)
	}
	if d.Len() != 3 || string(d.Rest()) != "xyz" {
		t.Errorf("%d bytes left: %q", d.Len(), d.Rest())
	}
	if err := d.Done("the count"); !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), "3 unexpected bytes after the count") {
		t.Errorf("Done with 3 bytes left: %v", err)
	}
	d = NewDecoder([]byte("xyz"), errInvalid)
	if b := d.Bytes(3); string(b) != "xyz" || d.Done("the bytes") != nil || d.Err() != nil {
		t.Errorf("Bytes: %q, %v", b, d.Err())
	}
}

// TestDecoderSticky: the first problem sticks, later reads return zero and
// read nothing, and later problems are not recorded.
func TestDecoderSticky(t *testing.T) {
	d := NewDecoder([]byte{1, 2, 3, 4, 5, 6}, errInvalid)
	if v := d.U32(); v != 0x04030201 {
		t.Fatalf("U32 %#x", v)
	}
	if v := d.U64(); v != 0 {
		t.Fatalf("U64 of 2 bytes: %d", v)
	}
	first := d.Err()
	if !errors.Is(first, errInvalid) || first.Error() != "invalid test record: a field needs 8 bytes, 2 remain" {
		t.Fatalf("truncated field: %v", first)
	}
	if d.U8() != 0 || d.Bytes(1) != nil || d.Len() != 2 {
		t.Fatal("a read after the problem read something")
	}
	if err := d.Fail("a later problem"); err != first || d.Err() != first || d.Done("x") != first {
		t.Fatalf("the first problem did not stick: %v", d.Err())
	}
}

func TestDecoderLimits(t *testing.T) {
	le := binary.LittleEndian
	for _, c := range []struct {
		name string
		data []byte
		read func(d *Decoder)
		want string // "" for no problem
	}{
		{"count at the limit", le.AppendUint64(nil, 9), func(d *Decoder) { d.Count("width", 9) }, ""},
		{"count above", le.AppendUint64(nil, 10), func(d *Decoder) { d.Count("width", 9) }, "width 10 is above the limit 9"},
		{"negative count", le.AppendUint64(nil, 1<<63), func(d *Decoder) { d.Count("width", 9) }, "width is negative (-9223372036854775808)"},
		{"short count", []byte{1}, func(d *Decoder) { d.Count("width", 9) }, "a field needs 8 bytes, 1 remain"},
		{"bool", []byte{2}, func(d *Decoder) { d.Bool("flag") }, "flag is 2, want 0 or 1"},
		{"negative bytes", []byte{2}, func(d *Decoder) { d.Bytes(-1) }, "a field needs -1 bytes, 1 remain"},
		{"empty", nil, func(d *Decoder) { d.U8() }, "a field needs 1 bytes, 0 remain"},
	} {
		d := NewDecoder(c.data, errInvalid)
		c.read(d)
		switch err := d.Err(); {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, errInvalid) || !strings.HasSuffix(err.Error(), ": "+c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestOpenErrors: every damaged input is the error of its kind, naming
// the problem.
func TestOpenErrors(t *testing.T) {
	rec, _ := record()
	le := binary.LittleEndian
	edit := func(f func(b []byte)) []byte {
		b := bytes.Clone(rec)
		f(b)
		Reseal(b)
		return b
	}
	for _, c := range []struct {
		name string
		data []byte
		want error
		text string
	}{
		{"empty", nil, errTruncated, ""},
		{"magic prefix", rec[:3], errTruncated, ""},
		{"other magic", []byte("TESTREC\x01 and more"), errNot, ""},
		{"short other", []byte("GIF"), errNot, ""},
		{"no version", rec[:MagicSize+2], errTruncated, ""},
		{"newer", edit(func(b []byte) { le.PutUint32(b[MagicSize:], 4) }), errNewer, "version 4, this program reads up to 3"},
		{"short newer", append([]byte(testFormat.Magic), 9, 0, 0, 0), errNewer, "version 9"},
		{"older", edit(func(b []byte) { le.PutUint32(b[MagicSize:], 1) }), errInvalid, "format version 1, this program reads 2 to 3"},
		{"header only", rec[:HeaderSize], errTruncated, ""},
		{"truncated", rec[:len(rec)-1], errTruncated, fmt.Sprintf("(%d of %d bytes)", len(rec)-1, len(rec))},
		{"checksum", func() []byte { b := bytes.Clone(rec); b[HeaderSize] ^= 1; return b }(), errChecksum, ""},
		{"long length", func() []byte { b := bytes.Clone(rec); b[13] ^= 1; return b }(), errChecksum, "the checksum holds for"},
		{"huge length", func() []byte { b := bytes.Clone(rec); b[19] ^= 0x80; return b }(), errChecksum, "declared length"},
		{"short length", func() []byte { b := bytes.Clone(rec); le.PutUint64(b[12:], 3); return b }(), errChecksum, "declared length 3"},
		{"short length, resealed", edit(func(b []byte) { le.PutUint64(b[12:], 3) }), errInvalid, "declared length 3"},
		{"a byte after", append(bytes.Clone(rec), 0), errInvalid, fmt.Sprintf("1 bytes after the end of the record (the %d its header declares)", len(rec))},
		{"a byte after, corrupted", func() []byte { b := append(bytes.Clone(rec), 0); b[HeaderSize] ^= 1; return b }(), errChecksum, ""},
	} {
		_, _, err := testFormat.Open(c.data)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v, want %v with %q", c.name, err, c.want, c.text)
		}
	}
	// Every prefix is an error.
	for n := range len(rec) {
		if _, _, err := testFormat.Open(rec[:n]); err == nil {
			t.Fatalf("a prefix of %d bytes opened", n)
		}
	}
}

func TestRead(t *testing.T) {
	rec, _ := record()
	var stream bytes.Buffer
	stream.Write(rec)
	stream.Write(rec)
	stream.WriteString("TESTREC") // the start of a third
	for i := range 2 {
		data, err := testFormat.Read(iotest.HalfReader(&stream), math.MaxInt64)
		if err != nil || !bytes.Equal(data, rec) {
			t.Fatalf("record %d: %d bytes, %v", i, len(data), err)
		}
	}
	data, err := testFormat.Read(&stream, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := testFormat.Open(data); !errors.Is(err, errTruncated) {
		t.Fatalf("the end of the stream: %v", err)
	}
	// A hostile length costs only what arrives.
	huge := bytes.Clone(rec[:HeaderSize])
	binary.LittleEndian.PutUint64(huge[12:], math.MaxInt64)
	data, err = testFormat.Read(bytes.NewReader(append(huge, 1, 2, 3)), math.MaxInt64)
	if err != nil || len(data) != HeaderSize+3 {
		t.Fatalf("a record declaring %d bytes: %d bytes, %v", int64(math.MaxInt64), len(data), err)
	}
	// r's errors are Read's.
	boom := errors.New("boom")
	if _, err := testFormat.Read(iotest.ErrReader(boom), math.MaxInt64); err != boom {
		t.Fatalf("a failing reader: %v", err)
	}
	if _, err := testFormat.Read(io.MultiReader(bytes.NewReader(rec[:30]), iotest.ErrReader(boom)), math.MaxInt64); err != boom {
		t.Fatalf("a reader failing in the body: %v", err)
	}
}

// A record longer than Read's limit is refused from its header, before
// its body is read: a stream declaring 2^62 bytes of zeros costs nothing.
func TestReadLimit(t *testing.T) {
	rec, _ := record()
	if data, err := testFormat.Read(bytes.NewReader(rec), int64(len(rec))); err != nil || !bytes.Equal(data, rec) {
		t.Fatalf("a record at the limit: %d bytes, %v", len(data), err)
	}
	if _, err := testFormat.Read(bytes.NewReader(rec), int64(len(rec)-1)); !errors.Is(err, testFormat.TooLarge) {
		t.Fatalf("a record one byte over the limit: %v", err)
	}
	huge := bytes.Clone(rec[:HeaderSize])
	binary.LittleEndian.PutUint64(huge[12:], 1<<62)
	endless := io.MultiReader(bytes.NewReader(huge), zeros{})
	if _, err := testFormat.Read(endless, 1<<20); !errors.Is(err, testFormat.TooLarge) || !strings.Contains(err.Error(), "4611686018427387904") {
		t.Fatalf("an endless record: %v", err)
	}
}

// zeros is an endless reader of zero bytes, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// ReadFile reads regular files within its limit only: a device, a
// directory or a named pipe is refused before anything is read (a pipe
// without a writer would block its opening), a larger file before it is
// read.
func TestReadFile(t *testing.T) {
	rec, _ := record()
	dir := t.TempDir()
	path := filepath.Join(dir, "rec")
	if err := os.WriteFile(path, rec, 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := testFormat.ReadFile(path, int64(len(rec))); err != nil || !bytes.Equal(data, rec) {
		t.Fatalf("a file at the limit: %d bytes, %v", len(data), err)
	}
	if _, err := testFormat.ReadFile(path, int64(len(rec)-1)); !errors.Is(err, testFormat.TooLarge) || !strings.Contains(err.Error(), path) {
		t.Fatalf("a file over the limit: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/zero", dir, fifo} {
		if _, err := testFormat.ReadFile(p, 1<<20); err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := testFormat.ReadFile(filepath.Join(dir, "absent"), 1<<20); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an absent file: %v", err)
	}
}

func TestBeginChecksMagic(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a 7-byte magic did not panic")
		}
	}()
	(&Format{Magic: "SHORT"}).Begin(0)
}

// TestBeginVersion: a record of an older version opens as that version.
func TestBeginVersion(t *testing.T) {
	rec := End(append(testFormat.BeginVersion(2, 0), 9))
	body, version, err := testFormat.Open(rec)
	if err != nil || version != 2 || !bytes.Equal(body, []byte{9}) {
		t.Fatalf("Open: % x, version %d, %v", body, version, err)
	}
}
