package dataset

import (
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/task"

	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
)

// Options controls Read and ReadFile.
type Options struct {
	Dim int // if > 0: a fixed dimension; an index above it is an error
	// Task is what the labels are for; Auto (the zero value) chooses from
	// the labels. Dataset.Task holds the outcome.
	Task task.Task
	// HashBits, if > 0 (at most 30), makes every feature a name hashed into
	// 2^HashBits dimensions (see the package documentation).
	HashBits int
	// MaxIndex, if > 0, lowers the largest 1-based feature index accepted
	// (1<<26 otherwise, or Dim when set): a caller that will store rows
	// densely says what its storage holds, and an index beyond is an error
	// at its line.
	MaxIndex int
	// MaxRows and MaxBytes, if > 0, bound what Read and ReadFile hold: an
	// input with more rows, or whose rows take more bytes in memory
	// (HeldBytes), is an error at the line that passes the limit, before
	// the rest is read. MaxBytes 0 means DefaultMaxBytes. A Scanner holds
	// one row whatever their number: they do not apply to it.
	MaxRows  int
	MaxBytes int64
	// Unlabelled accepts rows without a label, those whose first token is
	// a feature ("index:value"): rows to predict. Their labels are NaN and
	// Dataset.Unlabelled is set; a file mixing rows with and without one
	// is an error at the first row that differs from the first.
	Unlabelled bool
	Warn       func(msg string) // optional: receives warnings (e.g. "labels 0/1 mapped to -1/+1"); nil = ignore
}

// ErrHeldLimit is the cause (ParseError.Err) of the error of Read and
// ReadFile at Options.MaxRows or MaxBytes.
var ErrHeldLimit = errors.New("the limit on the rows held")

// DefaultMaxBytes is the memory Read and ReadFile let a data set take
// unless Options.MaxBytes says otherwise: 4 GiB, so that a gzip bomb
// (47 MB of gzip, 10 GB of rows) is an error rather than the end of the
// process.
const DefaultMaxBytes int64 = 4 << 30

// maxBytes is the limit on held bytes the options set.
func (opt Options) maxBytes() int64 {
	if opt.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return opt.MaxBytes
}

// maxHashBits bounds Options.HashBits: 2^30 features is already far beyond
// what a dense support vector can hold.
const maxHashBits = prep.MaxHashBits

// check reports options that no file can satisfy.
func (opt Options) check() error {
	switch {
	case !opt.Task.Valid():
		return fmt.Errorf("unknown task %d", opt.Task)
	case opt.HashBits < 0 || opt.HashBits > maxHashBits:
		return fmt.Errorf("HashBits %d outside 1..%d (0: no hashing)", opt.HashBits, maxHashBits)
	case opt.HashBits > 0 && opt.Dim > 0 && opt.Dim < 1<<opt.HashBits:
		return fmt.Errorf("Options.Dim %d is below the 2^%d dimensions of HashBits", opt.Dim, opt.HashBits)
	case opt.HashBits > 0 && opt.MaxIndex > 0 && opt.MaxIndex < 1<<opt.HashBits:
		return fmt.Errorf("Options.MaxIndex %d is below the 2^%d dimensions of HashBits", opt.MaxIndex, opt.HashBits)
	case opt.MaxIndex < 0 || opt.MaxRows < 0:
		return fmt.Errorf("negative Options.MaxIndex %d or MaxRows %d", opt.MaxIndex, opt.MaxRows)
	}
	return nil
}

// limit is the largest 1-based feature index the options accept, and
// whether it is the fixed Dim.
func (opt Options) limit() (int, bool) {
	limit := maxIndex
	if opt.MaxIndex > 0 {
		limit = min(limit, opt.MaxIndex)
	}
	if opt.Dim > 0 && opt.Dim <= limit {
		return opt.Dim, true
	}
	return limit, false
}

// ReadFile reads a LIBSVM/SVMlight file, plain or gzip-compressed (detected
// by the magic bytes 1f 8b, not the extension). Dataset.Name is the base
// name of path; errors name path itself.
func ReadFile(path string, opt Options) (*Dataset, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := read(f, path, opt)
	if err != nil {
		return nil, err
	}
	d.Name = filepath.Base(path)
	return d, nil
}

// Read reads a LIBSVM/SVMlight stream, plain or gzip-compressed (detected by
// the magic bytes). name is used as Dataset.Name and in error messages.
func Read(r io.Reader, name string, opt Options) (*Dataset, error) {
	return read(r, name, opt)
}

// open checks opt and starts reading r: its lines and their parser; name
// ("" is "<input>") is used in error messages.
func open(r io.Reader, name string, opt Options) (*lineReader, *parser, error) {
	if name == "" {
		name = "<input>"
	}
	if err := opt.check(); err != nil {
		return nil, nil, fmt.Errorf("dataset: reading %s: %w", name, err)
	}
	lr, err := newLineReader(r, name)
	if err != nil {
		return nil, nil, err
	}
	return lr, newParser(name, opt), nil
}

func read(r io.Reader, name string, opt Options) (*Dataset, error) {
	lr, p, err := open(r, name, opt)
	if err != nil {
		return nil, err
	}
	name = p.name
	var labels builder[float64]
	var lines, rowPtr builder[int]
	var index builder[int32]
	var value builder[float32]
	rowPtr.add(0)
	maxBytes := opt.maxBytes()
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		y, ok, err := p.parseLine(line, lr.line)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		for k, j := range p.idx {
			index.add(j)
			value.add(p.val[k])
		}
		labels.add(y)
		lines.add(lr.line)
		rowPtr.add(index.len())
		var held *ParseError
		switch n := labels.len(); {
		case opt.MaxRows > 0 && n > opt.MaxRows:
			held = errAt(name, lr.line, "more than %d rows, the limit on the rows held in memory", opt.MaxRows)
		case HeldBytes(n, index.len()) > maxBytes:
			held = errAt(name, lr.line, "%d rows of %d non-zeros take more than %d bytes, the limit on the memory a data set holds",
				n, index.len(), maxBytes)
		}
		if held != nil {
			held.Err = ErrHeldLimit
			return nil, held
		}
	}
	d := &Dataset{
		Name:   name,
		Labels: labels.slice(),
		RowPtr: rowPtr.slice(),
		Index:  index.slice(),
		Value:  value.slice(),
		lines:  lines.slice(),

		Unlabelled: p.first > 0 && !p.labelled,
	}
	if d.Len() == 0 {
		return nil, errAt(name, 0, "no examples (empty file, or only blank and comment lines)")
	}
	if err := p.check.settle(d, opt.Warn); err != nil {
		return nil, err
	}
	switch {
	case opt.Dim > 0:
		d.Dim = opt.Dim
	case p.hash != nil:
		d.Dim = p.hash.dim()
	default:
		d.Dim = p.maxIdx
	}
	return d, nil
}

// HeldBytes is the memory, in bytes, of a data set of rows rows and nnz
// non-zeros as Read holds it: per row its label, its line and its offset,
// per non-zero its index and value.
func HeldBytes(rows, nnz int) int64 { return 24*int64(rows) + 8*int64(nnz) }

// parser parses the lines of one input into rows.
type parser struct {
	name   string
	limit  int         // largest accepted 1-based index
	fixed  bool        // limit comes from Options.Dim
	maxIdx int         // largest 1-based index seen
	hash   *hasher     // nil unless Options.HashBits
	check  *labelCheck // of the labels against Options.Task

	unlabelled bool // Options.Unlabelled
	first      int  // the line of the first row (0: none yet)
	labelled   bool // whether it has a label: every row must be alike
	blank      int  // the first blank line before the first row (0: none)

	idx []int32   // the last row's 0-based indices
	val []float32 // and values
}

func newParser(name string, opt Options) *parser {
	limit, fixed := opt.limit()
	p := &parser{name: name, limit: limit, fixed: fixed, check: newLabelCheck(name, opt.Task), unlabelled: opt.Unlabelled}
	if opt.HashBits > 0 {
		p.hash = newHasher(name, opt.HashBits)
	}
	return p
}

func isSep(c byte) bool { return c == ' ' || c == '\t' }

// parseLine parses line ln into its label, checked against the task
// (labelCheck), and the row's features (p.idx, p.val); ok is false for a
// blank or comment-only line, but for a blank line among rows without
// labels: that is a row whose features are all zero (blankRow).
func (p *parser) parseLine(line []byte, ln int) (y float64, ok bool, err error) {
	comment := bytes.IndexByte(line, '#')
	if comment >= 0 {
		line = line[:comment]
	}
	i, n := 0, len(line)
	for i < n && isSpace(line[i]) {
		i++
	}
	for n > i && isSpace(line[n-1]) {
		n--
	}
	if i == n {
		if comment < 0 {
			return p.blankRow(ln)
		}
		return 0, false, nil // comment-only line
	}
	// Label.
	j := i
	for j < n && !isSep(line[j]) {
		j++
	}
	if y, err = p.label(line[i:j], ln); err != nil {
		return 0, false, err
	}
	if math.IsNaN(y) {
		j = i // no label: the first token is a feature
	}
	p.idx, p.val = p.idx[:0], p.val[:0]
	prev := 0
	for i = j; i < n; i = j {
		for i < n && isSep(line[i]) {
			i++
		}
		j = i
		for j < n && !isSep(line[j]) {
			j++
		}
		if i == j {
			break
		}
		if p.hash != nil {
			if err := p.hash.feature(line[i:j], ln); err != nil {
				return 0, false, err
			}
			continue
		}
		idx, val, err := p.parseFeature(line[i:j], ln, prev)
		if err != nil {
			return 0, false, err
		}
		prev = idx
		if val != 0 {
			p.idx, p.val = append(p.idx, int32(idx-1)), append(p.val, val)
		}
	}
	if p.hash != nil {
		if p.idx, p.val, err = p.hash.flush(p.idx, p.val, ln); err != nil {
			return 0, false, err
		}
	}
	if prev > p.maxIdx {
		p.maxIdx = prev
	}
	return y, true, nil
}

// blankRow takes the blank line ln. Where rows have labels a blank line
// is nothing; among rows without labels it is a row whose features are
// all zero (as a line holding only a label is), so that the rows of a
// file to predict are its lines, one prediction each. Before the first
// row it is not known which: it is remembered, and an error if the rows
// have no labels.
func (p *parser) blankRow(ln int) (float64, bool, error) {
	switch {
	case !p.unlabelled || p.first > 0 && p.labelled:
		return 0, false, nil
	case p.first == 0:
		if p.blank == 0 {
			p.blank = ln
		}
		return 0, false, nil
	}
	p.idx, p.val = p.idx[:0], p.val[:0]
	return math.NaN(), true, nil
}

// label parses the first token of line ln: the row's label, checked
// against the task, or with Options.Unlabelled a feature, which makes the
// label NaN. Every row of a file must be as its first.
func (p *parser) label(tok []byte, ln int) (float64, error) {
	feature := bytes.IndexByte(tok, ':') >= 0
	if p.first == 0 {
		p.first, p.labelled = ln, !(p.unlabelled && feature)
		if !p.labelled && p.blank > 0 {
			return 0, errAt(p.name, p.blank, "a blank line before the first row, which has no label: among rows without labels a blank line is a row whose features are all zero, and a file must begin with a row (or a comment)")
		}
	}
	switch {
	case p.unlabelled && feature && p.labelled:
		return 0, errAt(p.name, ln, "the row has no label (its first token %s is a feature), but the row of line %d has one: the rows of a file are all labelled or all not", quote(tok), p.first)
	case p.unlabelled && feature:
		return math.NaN(), nil
	case !p.labelled:
		return 0, errAt(p.name, ln, "the row has a label (%s), but the row of line %d has none: the rows of a file are all labelled or all not", quote(tok), p.first)
	case feature:
		return 0, errAt(p.name, ln, "invalid label %s: the row has no label, its first token is a feature (rows to learn from need one)", quote(tok))
	}
	y, err := parseNumber(tok, 64)
	if err != nil {
		return 0, errAt(p.name, ln, "invalid label %s: %s", quote(tok), err.Error())
	}
	return y, p.check.add(y, ln)
}

// parseFeature parses an "index:value" token; prev is the previous 1-based
// index on the line (0 if none).
func (p *parser) parseFeature(tok []byte, ln, prev int) (int, float32, error) {
	c := bytes.IndexByte(tok, ':')
	if c < 0 {
		return 0, 0, errAt(p.name, ln, "feature %s is not of the form index:value (missing ':')", quote(tok))
	}
	it, vt := tok[:c], tok[c+1:]
	if len(it) == 0 {
		return 0, 0, errAt(p.name, ln, "feature %s has no index before ':'", quote(tok))
	}
	neg := false
	digits := it
	if digits[0] == '-' || digits[0] == '+' {
		neg = digits[0] == '-'
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return 0, 0, errAt(p.name, ln, "feature index %s is not an integer", quote(it))
	}
	idx := 0
	for _, ch := range digits {
		if ch < '0' || ch > '9' {
			return 0, 0, errAt(p.name, ln, "feature index %s is not an integer", quote(it))
		}
		if idx <= maxIndex { // saturate to avoid overflow
			idx = idx*10 + int(ch-'0')
		}
	}
	switch {
	case neg || idx == 0:
		return 0, 0, errAt(p.name, ln, "feature index must be >= 1, got %s", quote(it))
	case idx > p.limit && p.fixed && idx <= maxIndex:
		return 0, 0, errAt(p.name, ln, "feature index %d exceeds the dimension %d", idx, p.limit)
	case idx > p.limit:
		return 0, 0, errAt(p.name, ln, "feature index %s too large (limit %d)", quote(it), p.limit)
	case idx <= prev:
		rel := "repeats"
		if idx < prev {
			rel = "is smaller than"
		}
		return 0, 0, errAt(p.name, ln, "feature index %d follows %d: it %s the previous index (indices must be strictly increasing)", idx, prev, rel)
	}
	if len(vt) == 0 {
		return 0, 0, errAt(p.name, ln, "feature index %d has no value after ':'", idx)
	}
	v, err := parseNumber(vt, 32)
	if err != nil {
		return 0, 0, errAt(p.name, ln, "invalid value in feature %s: %s", quote(tok), err.Error())
	}
	return idx, float32(v), nil
}

var (
	errSyntax    = errors.New("not a decimal number")
	errNotFinite = errors.New("not finite (NaN or Inf)")
)

// parseNumber parses a plain decimal number ([+-]digits[.digits][e[+-]digits])
// as a float of the given bit size and rejects NaN, Inf and overflow.
func parseNumber(tok []byte, bitSize int) (float64, error) {
	if !isDecimal(tok) {
		// Give NaN/Inf spellings a specific message.
		if v, err := strconv.ParseFloat(string(tok), bitSize); err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			return 0, errNotFinite
		}
		return 0, errSyntax
	}
	v, err := strconv.ParseFloat(string(tok), bitSize)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		if bitSize == 32 {
			return 0, errors.New("out of float32 range (magnitude above 3.4e38)")
		}
		return 0, errors.New("out of range")
	}
	return v, nil
}

// isDecimal reports whether b is [+-]?(d+(.d*)?|.d+)([eE][+-]?d+)?.
func isDecimal(b []byte) bool {
	i, n := 0, len(b)
	if i < n && (b[i] == '+' || b[i] == '-') {
		i++
	}
	mant := 0
	for i < n && b[i] >= '0' && b[i] <= '9' {
		i++
		mant++
	}
	if i < n && b[i] == '.' {
		i++
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
			mant++
		}
	}
	if mant == 0 {
		return false
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		exp := 0
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == n
}
