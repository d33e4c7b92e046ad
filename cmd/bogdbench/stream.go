package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/experiment/lsokl"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/task"
)

// rowSource is what train learns from, pass after pass, in file order: a
// data set held in memory, a file read again for each pass, or a stream
// read once (its first rows held: headSource). Only the first holds the
// rows: the others keep one, or a bounded head.
type rowSource struct {
	name string
	rows int // per pass; 0: not known before the end (a stream)
	// open starts a pass; a stream has one.
	open func() (rowPass, error)
	held *dataset.Dataset // the rows of a memory source (nil: none)
	// random: the passes go in random orders, not the file's (shuffled).
	random bool
}

// shuffled is src, a memory source, learnt in a new random order each
// pass: Permutation(seed, pass − 1).
func (src rowSource) shuffled(seed uint64) rowSource {
	pass := 0
	src.random = true
	src.open = func() (rowPass, error) {
		pass++
		return &memoryPass{d: src.held, i: -1, order: experiment.Permutation(seed, pass-1, src.held.Len())}, nil
	}
	return src
}

// rowPass yields the rows of one pass.
type rowPass interface {
	// next advances to the next row; false at the end or at an error.
	next() bool
	// row returns the current row, valid until next.
	row() (y float64, idx []int32, val []float32)
	// where names the current row, "file:line".
	where() string
	// err returns the error that ended the pass, if any.
	err() error
	close() error
}

// memorySource passes over a data set held in memory.
func memorySource(d *dataset.Dataset) rowSource {
	return rowSource{name: d.Name, rows: d.Len(), held: d, open: func() (rowPass, error) { return &memoryPass{d: d, i: -1}, nil }}
}

type memoryPass struct {
	d     *dataset.Dataset
	i     int
	order []int // the rows in the pass's order (nil: the file's)
	buf   dataset.RowBuffer
}

func (p *memoryPass) next() bool { p.i++; return p.i < p.d.Len() }

// at is the row of the pass's i-th step.
func (p *memoryPass) at() int {
	if p.order != nil {
		return p.order[p.i]
	}
	return p.i
}

func (p *memoryPass) row() (float64, []int32, []float32) {
	idx, val := p.d.RowTo(p.at(), &p.buf)
	return p.d.Labels[p.at()], idx, val
}
func (p *memoryPass) where() string { return p.d.Where(p.at()) }
func (p *memoryPass) err() error    { return nil }
func (p *memoryPass) close() error  { return nil }

// scanPass reads a pass with a Scanner, each row prepared by prep.
type scanPass struct {
	s    *dataset.Scanner
	prep *rowPrep
	y    float64
	idx  []int32
	val  []float32
	fail error
}

func (p *scanPass) next() bool {
	if p.fail != nil || !p.s.Scan() {
		return false
	}
	y, idx, val := p.s.Row()
	p.y, p.idx, p.val, p.fail = p.prep.apply(y, idx, val, p.s.Where)
	return p.fail == nil
}

func (p *scanPass) row() (float64, []int32, []float32) { return p.y, p.idx, p.val }
func (p *scanPass) where() string                      { return p.s.Where() }
func (p *scanPass) close() error                       { return p.s.Close() }

func (p *scanPass) err() error {
	if p.fail != nil {
		return p.fail
	}
	return p.s.Err()
}

// rowPrep makes the rows a Scanner reads ready for a learner, as prepare
// does for a data set (prep.Input.PrepareIndexed): the features at or
// beyond dim dropped (counted for one warning), the rest and a
// regression's label scaled; a multi-class label must be one of classes.
type rowPrep struct {
	in      prep.Input
	dim     int   // math.MaxInt: keep every feature
	classes []int // multi-class: the labels the learner knows
	clipped dataset.Clipped
	row     prep.Row
}

func newRowPrep(dim int, in prep.Input, classes []int) *rowPrep {
	return &rowPrep{in: in, dim: dim, classes: classes, clipped: dataset.Clipped{Dim: dim}}
}

// apply prepares row (y, idx, val); where names it for messages.
func (p *rowPrep) apply(y float64, idx []int32, val []float32, where func() string) (float64, []int32, []float32, error) {
	if p.classes != nil && (y != math.Trunc(y) || !slices.Contains(p.classes, int(y))) {
		return 0, nil, nil, fmt.Errorf("%s: label %v is not one of the model's classes %v", where(), y, p.classes)
	}
	if p.in.IsZero() && (len(idx) == 0 || int(idx[len(idx)-1]) < p.dim) {
		return y, idx, val, nil // nothing to do: the row as read
	}
	if err := p.in.PrepareIndexed(&p.row, idx, val, p.dim); err != nil {
		return 0, nil, nil, fmt.Errorf("%s: %w", where(), err)
	}
	if n := len(p.row.Ignored); n > 0 {
		if p.clipped.Features == 0 {
			p.clipped.First, p.clipped.FirstIndex = where(), p.row.Ignored[0]+1
		}
		p.clipped.Features += n
		p.clipped.Rows++
	}
	scaled := p.in.Label(y)
	if math.IsInf(scaled, 0) {
		return 0, nil, nil, fmt.Errorf("%s: label %v scales to %v", where(), y, scaled)
	}
	return scaled, p.row.Index, p.row.Value, nil
}

// isStream reports whether path ("-": standard input) can be read only
// once: standard input, a pipe or a device. A regular file is read again
// for each pass.
func isStream(path string) bool {
	if path == "-" {
		return true
	}
	fi, err := os.Stat(path)
	return err == nil && !fi.Mode().IsRegular()
}

// openScanner opens path ("-": stdin) for a Scanner.
func openScanner(path string, stdin io.Reader, opt dataset.Options) (*dataset.Scanner, error) {
	if path == "-" {
		return dataset.NewScanner(stdin, stdinName, opt)
	}
	return dataset.OpenScanner(path, opt)
}

// streamSource reads path once (a stream), its rows prepared by prep.
func streamSource(path string, stdin io.Reader, opt dataset.Options, prep *rowPrep) rowSource {
	name := path
	if path == "-" {
		name = stdinName
	}
	opened := false
	return rowSource{name: name, open: func() (rowPass, error) {
		if opened {
			return nil, fmt.Errorf("%s is a stream, read once: a second pass needs a file", name)
		}
		opened = true
		s, err := openScanner(path, stdin, opt)
		if err != nil {
			return nil, err
		}
		return &scanPass{s: s, prep: prep}, nil
	}}
}

// fileSource reads the file at path, whose survey gave the warnings, again
// for each pass of rows rows.
func fileSource(path string, rows int, opt dataset.Options, prep *rowPrep) rowSource {
	opt.Warn = nil
	return rowSource{name: baseName(path), rows: rows, open: func() (rowPass, error) {
		s, err := dataset.OpenScanner(path, opt)
		if err != nil {
			return nil, err
		}
		return &scanPass{s: s, prep: prep}, nil
	}}
}

// survey is what train must know of a file's rows before it learns: what
// Read would have made of them (its name, dimension, task and classes, in
// a data set without rows), their number, and the scaling over them that
// --scale asks.
type survey struct {
	head    *dataset.Dataset
	rows    int
	zeroOne bool // binary labels 0/1, mapped to −1/+1
	scaling *prep.Scaling
}

// surveyFile reads the file at path once, holding one row, for its survey;
// scale is --scale's method.
func surveyFile(path string, opt dataset.Options, scale string) (survey, error) {
	s, err := dataset.OpenScanner(path, dataset.Options{Task: opt.Task, HashBits: opt.HashBits, Dim: opt.Dim, MaxIndex: opt.MaxIndex})
	if err != nil {
		return survey{}, err
	}
	defer s.Close()
	var mm *dataset.MinMaxOf
	if scale != "none" {
		mm = dataset.NewMinMax()
	}
	for s.Scan() {
		if mm != nil {
			mm.Add(s.Row())
		}
	}
	if err := s.Err(); err != nil {
		return survey{}, err
	}
	t, classes, zeroOne, err := s.Resolve()
	if err != nil {
		return survey{}, err
	}
	sv := survey{
		head:    &dataset.Dataset{Name: baseName(path), Dim: s.Dim(), Task: t, Classes: classes},
		rows:    s.Rows(),
		zeroOne: zeroOne,
	}
	if mm != nil {
		if sv.scaling, err = measuredScaling(mm, scale, s.Dim(), t == task.Regression); err != nil {
			return survey{}, fmt.Errorf("%s: %w", path, err)
		}
	}
	if zeroOne && opt.Warn != nil {
		opt.Warn(path + ": labels 0/1 mapped to -1/+1")
	}
	return sv, nil
}

// measuredScaling is the scaling --scale names (maxabs or minmax) of the
// rows mm measured, for dim features and with labels if set.
func measuredScaling(mm *dataset.MinMaxOf, scale string, dim int, labels bool) (*prep.Scaling, error) {
	if scale == experiment.ScalingMinMax {
		return mm.Scaling(dim, labels)
	}
	return mm.MaxAbs(dim, labels)
}

// widthSample draws the rows --sigma auto measures from a data set held in
// memory (see medianWidth).
func widthSample(d *dataset.Dataset) *dataset.Dataset {
	return d.Subset(experiment.Permutation(lsokl.MedianSeed, 0, d.Len())[:min(lsokl.MedianSample, d.Len())])
}

// fileWidthSample draws the same rows from a file of rows rows without
// holding the others, scaled as the rows learnt.
func fileWidthSample(path string, rows int, opt dataset.Options, scaling *prep.Scaling) (*dataset.Dataset, error) {
	sample, err := dataset.ReadSubset(path, dataset.Options{Task: opt.Task, HashBits: opt.HashBits, Dim: opt.Dim}, experiment.Permutation(lsokl.MedianSeed, 0, rows)[:min(lsokl.MedianSample, rows)])
	if err != nil || scaling == nil {
		return sample, err
	}
	return sample.Scale(scaling)
}

// streamNeeds lists what learning a stream, read once as it comes, cannot
// know from its rows without holding them all: the flags a new model must
// be given to learn standard input (or a pipe) in constant memory. None
// listed: it can. (The scaling and σ auto are measured on its first rows:
// headSource.)
func streamNeeds(opt dataset.Options, a bogd.Algorithm, lambdaGiven bool, passes int) []string {
	var needs []string
	if opt.Task != task.Binary && opt.Task != task.Regression {
		needs = append(needs, "--task binary or regression (auto, and multi-class classes, need every label)")
	}
	if opt.Dim == 0 && opt.HashBits == 0 {
		needs = append(needs, "--dim or --hash (the dimension is the largest index of every row)")
	}
	if !lambdaGiven && a.Params(opt.Task).Has(bogd.ParamLambda) && a != bogd.BSGDMerge {
		needs = append(needs, "--lambda (1/T^2 needs the number of rows T)")
	}
	if passes > 1 {
		needs = append(needs, "--passes 1 (a stream is read once)")
	}
	return needs
}

// streamHint explains an error of reading standard input whole.
func streamHint(err error, needs []string) error {
	return fmt.Errorf("%w\n(standard input is held in memory because a stream read as it comes needs %s; or save it to a file, which is read again for each pass)",
		err, strings.Join(needs, ", "))
}

// baseName is Dataset.Name of a file: its base name.
func baseName(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// trainData is what train knows of its data before it learns, and where
// its rows come from.
type trainData struct {
	head   *dataset.Dataset // Name, Dim, Task and Classes, as Read gives them; no rows
	src    rowSource
	in     prep.Input                       // how its rows were prepared, for the model
	sample func() (*dataset.Dataset, error) // the rows --sigma auto measures
}

// open sets up the data of a new model at path ("-": stdin) as the flags
// say; log hears the task auto chose. A file is surveyed, then read again
// for each pass, holding one row; a stream is learnt as it comes when the
// flags say all a model needs to know (streamNeeds), its scaling and σ
// measured on its first rows (openStream), else held, within opt's
// limits. With hold (--shuffle), the rows are held whatever they come
// from.
func (f *dataFlags) open(path string, stdin io.Reader, opt dataset.Options, a bogd.Algorithm, lambdaGiven bool, passes int, hold bool, warn, log func(string)) (trainData, error) {
	opt.Warn = warn
	in := prep.Input{HashBits: f.hashBits}
	if !isStream(path) && !hold {
		sv, err := surveyFile(path, opt, f.scale)
		if err != nil {
			return trainData{}, err
		}
		if opt.Task == task.Auto {
			log(fmt.Sprintf("--task auto: %s", describeTask(sv.head)))
		}
		in.Scaling = sv.scaling
		opt.Task = sv.head.Task
		return trainData{
			head: sv.head,
			src:  fileSource(path, sv.rows, opt, newRowPrep(math.MaxInt, prep.Input{Scaling: sv.scaling}, nil)),
			in:   in,
			sample: func() (*dataset.Dataset, error) {
				return fileWidthSample(path, sv.rows, opt, sv.scaling)
			},
		}, nil
	}
	needs := streamNeeds(opt, a, lambdaGiven, passes)
	if !hold && len(needs) == 0 {
		return f.openStream(path, stdin, opt, in)
	}
	data, in, err := f.read(path, stdin, opt, warn, log)
	switch {
	case errors.Is(err, dataset.ErrHeldLimit) && hold:
		return trainData{}, fmt.Errorf("%w (--shuffle holds the rows)", err)
	case errors.Is(err, dataset.ErrHeldLimit):
		return trainData{}, streamHint(err, needs)
	case err != nil:
		return trainData{}, err
	}
	return trainData{
		head:   data,
		src:    memorySource(data),
		in:     in,
		sample: func() (*dataset.Dataset, error) { return widthSample(data), nil },
	}, nil
}

// streamHead is how many rows of a stream train holds before it learns
// them, to measure what its model needs to know (the scaling of --scale,
// the distances of --sigma auto): a bounded look-ahead, as many rows as
// --sigma auto samples from a file.
const streamHead = lsokl.MedianSample

// openStream sets up a stream read once, as it comes: its first
// streamHead rows are held to measure the scaling --scale asks and the
// rows --sigma auto measures, then learnt, then the others as they come.
// Values of later rows beyond those of the first are scaled beyond [−1, 1]
// (or [0, 1]), which a kernel takes as it comes.
func (f *dataFlags) openStream(path string, stdin io.Reader, opt dataset.Options, in prep.Input) (trainData, error) {
	dim := opt.Dim
	if opt.HashBits > 0 {
		dim = 1 << opt.HashBits
	}
	sc, err := openScanner(path, stdin, opt)
	if err != nil {
		return trainData{}, err
	}
	name := baseName(path)
	if path == "-" {
		name = stdinName
	}
	head := &dataset.Dataset{Name: name, Dim: dim, Task: opt.Task, RowPtr: []int{0}}
	var where []string
	mm := dataset.NewMinMax()
	for head.Len() < streamHead && sc.Scan() {
		y, idx, val := sc.Row()
		head.Labels, head.Index, head.Value = append(head.Labels, y), append(head.Index, idx...), append(head.Value, val...)
		head.RowPtr = append(head.RowPtr, len(head.Index))
		where = append(where, sc.Where())
		mm.Add(y, idx, val)
	}
	if err := sc.Err(); err != nil {
		sc.Close()
		return trainData{}, err
	}
	if f.scale != "none" {
		if in.Scaling, err = measuredScaling(mm, f.scale, dim, opt.Task == task.Regression); err != nil {
			sc.Close()
			return trainData{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	rp := newRowPrep(math.MaxInt, prep.Input{Scaling: in.Scaling}, nil)
	opened := false
	src := rowSource{name: name, open: func() (rowPass, error) {
		if opened {
			return nil, fmt.Errorf("%s is a stream, read once: a second pass needs a file", name)
		}
		opened = true
		return &headPass{head: head, lines: where, i: -1, scan: scanPass{s: sc, prep: rp}}, nil
	}}
	sample := func() (*dataset.Dataset, error) {
		if in.Scaling == nil {
			return widthSample(head), nil
		}
		scaled, err := head.Scale(in.Scaling)
		if err != nil {
			return nil, err
		}
		return widthSample(scaled), nil
	}
	return trainData{head: &dataset.Dataset{Name: name, Dim: dim, Task: opt.Task}, src: src, in: in, sample: sample}, nil
}

// headPass is the pass over a stream: the rows held to measure it, then
// the others as they come, each prepared as the scan's are.
type headPass struct {
	head  *dataset.Dataset
	lines []string // where the held rows are (Scanner.Where)
	i     int      // the held row, while there are
	scan  scanPass
	y     float64
	idx   []int32
	val   []float32
	fail  error
}

func (p *headPass) next() bool {
	if p.i+1 >= p.head.Len() {
		p.i = p.head.Len()
		return p.scan.next()
	}
	p.i++
	idx, val := p.head.Row(p.i)
	p.y, p.idx, p.val, p.fail = p.scan.prep.apply(p.head.Labels[p.i], idx, val, p.where)
	return p.fail == nil
}

func (p *headPass) row() (float64, []int32, []float32) {
	if p.i < p.head.Len() {
		return p.y, p.idx, p.val
	}
	return p.scan.row()
}

func (p *headPass) where() string {
	if p.i < p.head.Len() {
		return p.lines[p.i]
	}
	return p.scan.where()
}

func (p *headPass) err() error {
	if p.fail != nil {
		return p.fail
	}
	return p.scan.err()
}

func (p *headPass) close() error { return p.scan.close() }

// denseIndexLimit is the largest feature index a learner of algorithm a
// at budget with dense storage holds within the memory a model may claim
// (bogd.DefaultMaxMemory), and at most the dimension a model file holds
// densely: the reader's limit, so that a larger index is an error at its
// line before anything is reserved for it.
func denseIndexLimit(a bogd.Algorithm, budget int) int {
	const maxDenseDim = 1 << 24
	lo, hi := 1, maxDenseDim
	fits := func(dim int) bool {
		return bogd.Memory(a, bogd.Config{Dim: dim, Budget: budget, Storage: engine.DenseStorage}, 0) <= bogd.DefaultMaxMemory
	}
	if fits(hi) {
		return hi
	}
	for lo < hi { // the largest dim that fits, in [lo, hi)
		mid := lo + (hi-lo+1)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}
