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
	// Unlabelled accepts rows without a label, those whose first token is
	// a feature ("index:value"): rows to predict. Their labels are NaN and
	// Dataset.Unlabelled is set; a file mixing rows with and without one
	// is an error at the first row that differs from the first.
	Unlabelled bool
	Warn       func(msg string) // optional: receives warnings (e.g. "labels 0/1 mapped to -1/+1"); nil = ignore
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
	}
	return nil
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

func read(r io.Reader, name string, opt Options) (*Dataset, error) {
	if name == "" {
		name = "<input>"
	}
	if err := opt.check(); err != nil {
		return nil, fmt.Errorf("dataset: reading %s: %w", name, err)
	}
	lr, err := newLineReader(r, name)
	if err != nil {
		return nil, err
	}
	limit := maxIndex
	if opt.Dim > 0 && opt.Dim < limit {
		limit = opt.Dim
	}
	p := parser{name: name, limit: limit, fixed: opt.Dim > 0, check: newLabelCheck(name, opt.Task), unlabelled: opt.Unlabelled}
	if opt.HashBits > 0 {
		p.hash = newHasher(name, opt.HashBits)
	}
	p.rowPtr.add(0)
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := p.parseLine(line, lr.line); err != nil {
			return nil, err
		}
	}
	d := &Dataset{
		Name:   name,
		Labels: p.labels.slice(),
		RowPtr: p.rowPtr.slice(),
		Index:  p.index.slice(),
		Value:  p.value.slice(),
		lines:  p.lines.slice(),

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

// parser holds the state of one Read.
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

	labels builder[float64]
	lines  builder[int]
	rowPtr builder[int]
	index  builder[int32]
	value  builder[float32]
}

func isSep(c byte) bool { return c == ' ' || c == '\t' }

// parseLine parses one line and appends its example (if any).
func (p *parser) parseLine(line []byte, ln int) error {
	if k := bytes.IndexByte(line, '#'); k >= 0 {
		line = line[:k]
	}
	i, n := 0, len(line)
	for i < n && isSpace(line[i]) {
		i++
	}
	for n > i && isSpace(line[n-1]) {
		n--
	}
	if i == n {
		return nil // blank or comment-only line
	}
	// Label.
	j := i
	for j < n && !isSep(line[j]) {
		j++
	}
	y, err := p.label(line[i:j], ln)
	if err != nil {
		return err
	}
	if math.IsNaN(y) {
		j = i // no label: the first token is a feature
	}
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
				return err
			}
			continue
		}
		idx, val, err := p.parseFeature(line[i:j], ln, prev)
		if err != nil {
			return err
		}
		prev = idx
		if val != 0 {
			p.index.add(int32(idx - 1))
			p.value.add(val)
		}
	}
	if p.hash != nil {
		if err := p.hash.flush(&p.index, &p.value, ln); err != nil {
			return err
		}
	}
	if prev > p.maxIdx {
		p.maxIdx = prev
	}
	p.labels.add(y)
	p.lines.add(ln)
	p.rowPtr.add(p.index.len())
	return nil
}

// label parses the first token of line ln: the row's label, checked
// against the task, or with Options.Unlabelled a feature, which makes the
// label NaN. Every row of a file must be as its first.
func (p *parser) label(tok []byte, ln int) (float64, error) {
	feature := bytes.IndexByte(tok, ':') >= 0
	if p.first == 0 {
		p.first, p.labelled = ln, !(p.unlabelled && feature)
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
