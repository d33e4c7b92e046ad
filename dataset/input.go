package dataset

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"unicode/utf8"
)

// ParseError locates a problem in an input file.
type ParseError struct {
	File string // file name as given to ReadFile/ReadOrders, or the name given to Read/ParseOrders
	Line int    // 1-based line number; 0 means the problem concerns the whole file
	Msg  string // description of the problem
	Err  error  // underlying error (I/O, gzip), if any; see Unwrap
}

// Error formats the error as "FILE:LINE: MSG", or "FILE: MSG" when Line is 0.
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
	}
	return e.File + ": " + e.Msg
}

// Unwrap returns the underlying error, if any.
func (e *ParseError) Unwrap() error { return e.Err }

const (
	// maxIndex bounds a feature index (protects memory in Dense and users).
	maxIndex = 1 << 26
	// maxLine bounds the length of one line (protects memory on hostile input).
	maxLine = 256 << 20
	// bufSize is the size of the line reader's buffer.
	bufSize = 64 << 10
	// maxQuote is how many bytes of an offending token are quoted in messages.
	maxQuote = 40
)

func errAt(file string, line int, format string, args ...any) *ParseError {
	return &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// quote returns tok as a Go-quoted string, truncated to maxQuote bytes.
func quote(tok []byte) string {
	if len(tok) > maxQuote {
		// Back off to a rune boundary so the quoted text stays readable.
		n := maxQuote
		for n > 0 && !utf8.RuneStart(tok[n]) {
			n--
		}
		return strconv.Quote(string(tok[:n])) + "..."
	}
	return strconv.Quote(string(tok))
}

// openFile opens path, reporting failures as *ParseError.
func openFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		msg := err.Error()
		if errors.As(err, &pe) {
			msg = pe.Op + ": " + pe.Err.Error()
		}
		return nil, &ParseError{File: path, Msg: msg, Err: err}
	}
	return f, nil
}

// lineReader yields the lines of a plain or gzip-compressed stream, without
// the line terminator, and counts them. Lines of any length are handled in
// linear time.
type lineReader struct {
	name string
	br   *bufio.Reader
	gz   bool
	acc  []byte // accumulates lines longer than the buffer
	line int    // number of the line last returned
}

// newLineReader sniffs the gzip magic bytes and sets up decompression.
func newLineReader(r io.Reader, name string) (*lineReader, error) {
	lr := &lineReader{name: name}
	br := bufio.NewReaderSize(r, bufSize)
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, &ParseError{File: name, Msg: "read error: " + err.Error(), Err: err}
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, lr.ioError(err, true)
		}
		lr.gz = true
		br = bufio.NewReaderSize(zr, bufSize)
	}
	lr.br = br
	return lr, nil
}

// ioError turns a read error into a *ParseError naming the file.
func (lr *lineReader) ioError(err error, header bool) *ParseError {
	var msg string
	var ce flate.CorruptInputError
	switch {
	case header && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)):
		msg = "gzip header truncated"
	case header && errors.Is(err, gzip.ErrHeader):
		msg = "invalid gzip header"
	case !lr.gz:
		msg = "read error: " + err.Error()
	case errors.Is(err, io.ErrUnexpectedEOF):
		msg = "gzip stream truncated or corrupt (unexpected end of data)"
	case errors.Is(err, gzip.ErrChecksum):
		msg = "gzip stream corrupt (checksum mismatch)"
	case errors.Is(err, gzip.ErrHeader):
		msg = "gzip stream corrupt (invalid header of a following gzip member or trailing garbage)"
	case errors.As(err, &ce):
		msg = "gzip stream corrupt (" + ce.Error() + ")"
	default:
		msg = "read error in gzip stream: " + err.Error()
	}
	if !header {
		msg += fmt.Sprintf(" after line %d", lr.line)
	}
	return &ParseError{File: lr.name, Msg: msg, Err: err}
}

// next returns the next line without its "\n" (a trailing "\r" is kept; see
// trimSpace). It returns io.EOF at the end of input and a *ParseError
// otherwise. The returned slice is valid until the next call.
func (lr *lineReader) next() ([]byte, error) {
	b, err := lr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.acc = append(lr.acc[:0], b...)
		for err == bufio.ErrBufferFull {
			if len(lr.acc) > maxLine {
				return nil, errAt(lr.name, lr.line+1, "line longer than %d bytes", maxLine)
			}
			b, err = lr.br.ReadSlice('\n')
			lr.acc = append(lr.acc, b...)
		}
		b = lr.acc
	}
	switch {
	case err == nil:
		b = b[:len(b)-1]
	case err == io.EOF:
		if len(b) == 0 {
			return nil, io.EOF
		}
	default:
		return nil, lr.ioError(err, false)
	}
	lr.line++
	if len(b) > maxLine {
		return nil, errAt(lr.name, lr.line, "line longer than %d bytes", maxLine)
	}
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return nil, errAt(lr.name, lr.line, "binary data (NUL byte or invalid UTF-8); not a text file")
	}
	if lr.line == 1 {
		b = bytes.TrimPrefix(b, []byte("\uFEFF")) // UTF-8 byte-order mark
	}
	return b, nil
}

// trimSpace removes leading and trailing spaces, tabs and carriage returns.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }
