package dataset

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/bogd-project/bogd/task"
)

// Scanner reads the rows of a LIBSVM/SVMlight stream one at a time, in
// memory that does not grow with their number: what learning a file once,
// or an endless stream, needs. It reads what Read reads and reports the
// same errors at the same lines; it holds one row.
//
// With Options.Task Binary, labels 0/1 are mapped to −1/+1 as they come
// (a file that also has −1 is an error at the line that shows it);
// Multiclass labels are checked to be integers, the caller checks them
// against its classes; Regression takes any label. With Auto the labels
// are passed as read, and Resolve says at the end what Read would have
// decided.
type Scanner struct {
	lr     *lineReader
	p      *parser
	opt    Options
	closer io.Closer // the file OpenScanner opened
	name   string    // Dataset.Name of the rows, for Where

	label  float64
	rows   int
	mapped bool // a label 0 was mapped to −1 (and the warning given)
	err    error
}

// NewScanner returns a Scanner of r, plain or gzip-compressed (detected
// by the magic bytes); name is used in error messages.
func NewScanner(r io.Reader, name string, opt Options) (*Scanner, error) {
	lr, p, err := open(r, name, opt)
	if err != nil {
		return nil, err
	}
	return &Scanner{lr: lr, p: p, opt: opt, name: p.name}, nil
}

// OpenScanner opens the file at path (see ReadFile) for a Scanner, which
// its Close closes.
func OpenScanner(path string, opt Options) (*Scanner, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	s, err := NewScanner(f, path, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.closer, s.name = f, filepath.Base(path)
	return s, nil
}

// Close closes the file of OpenScanner (nothing otherwise).
func (s *Scanner) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}

// Scan advances to the next row, skipping blank and comment lines. It
// returns false at the end of the input or at the first error (Err).
func (s *Scanner) Scan() bool {
	for s.err == nil {
		line, err := s.lr.next()
		if err == io.EOF {
			if s.rows == 0 {
				s.err = errAt(s.p.name, 0, "no examples (empty file, or only blank and comment lines)")
			}
			return false
		}
		if err != nil {
			s.err = err
			return false
		}
		y, ok, err := s.p.parseLine(line, s.lr.line)
		if err != nil {
			s.err = err
			return false
		}
		if !ok {
			continue
		}
		if s.opt.Task == task.Binary && y == 0 {
			y = -1
			if !s.mapped && s.opt.Warn != nil {
				s.opt.Warn(s.p.name + ": labels 0/1 mapped to -1/+1")
			}
			s.mapped = true
		}
		s.label = y
		s.rows++
		return true
	}
	return false
}

// Row returns the current row: its label and its features, 0-based
// indices strictly increasing and non-zero values. The slices are valid
// until the next Scan.
func (s *Scanner) Row() (label float64, idx []int32, val []float32) {
	return s.label, s.p.idx, s.p.val
}

// Err returns the first error met, nil at the end of a good input.
func (s *Scanner) Err() error { return s.err }

// Rows returns the number of rows scanned so far.
func (s *Scanner) Rows() int { return s.rows }

// Where names the current row for a message, "name:line", as
// Dataset.Where does (the base name of a file OpenScanner opened).
func (s *Scanner) Where() string { return s.name + ":" + strconv.Itoa(s.lr.line) }

// Dim returns the dimension the rows scanned so far have, as Read sets
// Dataset.Dim: Options.Dim if set, else 2^HashBits when hashing, else the
// largest 1-based index seen.
func (s *Scanner) Dim() int {
	switch {
	case s.opt.Dim > 0:
		return s.opt.Dim
	case s.p.hash != nil:
		return s.p.hash.dim()
	}
	return s.p.maxIdx
}

// Resolve says, after the last row, what Read would have decided about the
// labels: the task (Options.Task, or the choice of Auto), the classes of a
// multi-class input, and whether binary labels are 0/1 (which a Scanner of
// Task Auto passes unmapped). Its errors are Read's, except that the
// message about too many classes does not count them.
func (s *Scanner) Resolve() (t task.Task, classes []int, zeroOne bool, err error) {
	return s.p.check.resolve(func() int { return task.MaxClasses + 1 })
}

// ReadSubset reads the rows of path whose 0-based positions are in rows,
// in the order rows lists them (each once), as Read(...).Subset(rows)
// would give them but without holding the others: how a sample is drawn
// from a file too large to hold. Labels are as read (Task Auto: see
// Scanner); Dim is the file's.
func ReadSubset(path string, opt Options, rows []int) (*Dataset, error) {
	s, err := OpenScanner(path, opt)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	at := make(map[int]int, len(rows)) // file position → place in rows
	for k, r := range rows {
		at[r] = k
	}
	picked := make([]struct {
		y        float64
		line     int
		idx      []int32
		val      []float32
		assigned bool
	}, len(rows))
	for i := 0; s.Scan(); i++ {
		k, ok := at[i]
		if !ok {
			continue
		}
		y, idx, val := s.Row()
		picked[k].y, picked[k].line = y, s.lr.line
		picked[k].idx, picked[k].val = append([]int32(nil), idx...), append([]float32(nil), val...)
		picked[k].assigned = true
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	t, classes, zeroOne, err := s.Resolve()
	if err != nil {
		return nil, err
	}
	d := &Dataset{Name: filepath.Base(path), Dim: s.Dim(), Task: t, Classes: classes, RowPtr: []int{0}, zeroOne: zeroOne}
	for k, p := range picked {
		if !p.assigned {
			return nil, fmt.Errorf("dataset: %s has %d rows, no row %d", path, s.Rows(), rows[k]+1)
		}
		if zeroOne && p.y == 0 {
			p.y = -1
		}
		d.Labels, d.lines = append(d.Labels, p.y), append(d.lines, p.line)
		d.Index, d.Value = append(d.Index, p.idx...), append(d.Value, p.val...)
		d.RowPtr = append(d.RowPtr, len(d.Index))
	}
	return d, nil
}
