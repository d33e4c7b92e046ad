package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/internal/atomicfile"
	"golang.org/x/term"
)

// modelInput is how rows are prepared for a model, which the model file
// itself does not record: whether feature names are hashed, and the
// min-max scaling of the training data. Every command that saves a model
// (run, train, tune, serve) writes it beside the model, in
// MODEL.input.json (scalingSuffix), when there is anything to say; every
// command that reads a model (predict, train --model, serve) reads it
// there.
type modelInput struct {
	// HashBits, when positive, hashes feature names into 2^HashBits
	// dimensions (dataset.Options.HashBits).
	HashBits int `json:"hash_bits,omitempty"`
	// Scaling maps features (and a regression label) as they were mapped
	// for training; predictions are mapped back to the label's scale.
	Scaling *dataset.Scaling `json:"scaling,omitempty"`
}

func (in modelInput) empty() bool { return in.HashBits == 0 && in.Scaling == nil }

// scalingSuffix is appended to a model's path to name the file beside it
// that holds its modelInput; legacyScalingSuffix names the file of bare
// scaling that run --save wrote before hashing needed recording too (still
// read).
const (
	scalingSuffix       = ".input.json"
	legacyScalingSuffix = ".scaling.json"
)

// loadInput reads the modelInput beside the model file (none: the zero
// value).
func loadInput(modelPath string) (modelInput, error) {
	var in modelInput
	path := modelPath + scalingSuffix
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		path = modelPath + legacyScalingSuffix
		if data, err = os.ReadFile(path); errors.Is(err, fs.ErrNotExist) {
			return in, nil
		} else if err == nil {
			in.Scaling = new(dataset.Scaling)
			err = json.Unmarshal(data, in.Scaling)
		}
	} else if err == nil {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err = dec.Decode(&in)
	}
	if err != nil {
		return modelInput{}, fmt.Errorf("%s: %w", path, err)
	}
	return in, nil
}

// loadModel reads a model file and the modelInput beside it.
func loadModel(path string) (*bogd.Learner, modelInput, error) {
	l, err := bogd.LoadFile(path)
	if err != nil {
		return nil, modelInput{}, err
	}
	in, err := loadInput(path)
	if err != nil {
		return nil, modelInput{}, err
	}
	if in.HashBits > 0 && l.Config().Dim != 1<<in.HashBits {
		return nil, modelInput{}, fmt.Errorf("%s: hashes features into 2^%d dimensions, but the model %s has %d", path+scalingSuffix, in.HashBits, path, l.Config().Dim)
	}
	return l, in, nil
}

// checkSavePath fails before a command starts working when the model file
// could not be written: it, or a file beside it, exists (and --force is
// not given), or its directory does not.
func checkSavePath(path string, force bool) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", filepath.Dir(path))
	}
	if force {
		return nil
	}
	return forceHint(experiment.CheckFree([]string{path, path + scalingSuffix, path + legacyScalingSuffix}))
}

// saveLast writes the learner of the last run of `run --save` and the
// scaling of its data beside it (see saveModel).
func saveLast(path string, force bool, l *bogd.Learner, scaling *dataset.Scaling, stderr io.Writer) error {
	if err := saveModel(path, l, modelInput{Scaling: scaling}, force); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "bogdbench run: saved the %v learner of the last run (%d support vectors) to %s\n", l.Algorithm(), l.SupportVectors(), path)
	return nil
}

// saveModel writes l to path and its input beside it, each file
// atomically, the input first; without replace an existing file is an
// error that leaves it alone. When the model cannot be written, the file
// beside it is put back as it was, so that a failed save changes nothing
// (a crash between the two writes can still leave the new input beside
// the old model). A model without input removes, with replace, the input
// file of the model it replaces: predict would apply it.
func saveModel(path string, l *bogd.Learner, in modelInput, replace bool) error {
	var model bytes.Buffer
	if err := l.Save(&model); err != nil {
		return err
	}
	inputPath := path + scalingSuffix
	before, err := os.ReadFile(inputPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	existed := err == nil
	restore := func() error { return os.Remove(inputPath) }
	if existed {
		restore = func() error { return atomicfile.Write(inputPath, before, atomicfile.Options{}) }
	}
	noClobber := atomicfile.Options{NoClobber: !replace}
	switch {
	case !in.empty():
		data, err := json.Marshal(in)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(inputPath, append(data, '\n'), noClobber); err != nil {
			return forceHint(fmt.Errorf("save the model's input: %w", err))
		}
	case existed && replace:
		if err := os.Remove(inputPath); err != nil {
			return fmt.Errorf("remove the input of the model replaced: %w", err)
		}
	default:
		restore = func() error { return nil }
	}
	if err := atomicfile.Write(path, model.Bytes(), noClobber); err != nil {
		return errors.Join(forceHint(fmt.Errorf("save model: %w", err)), restore())
	}
	if replace {
		if err := os.Remove(path + legacyScalingSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the old scaling: %w", err)
		}
	}
	return nil
}

// stdinName names standard input in messages.
const stdinName = "<stdin>"

// dataPath returns the --data of a command that reads standard input when
// --data is not given, unless standard input is a terminal (a newcomer
// would wait for nothing).
func dataPath(given string, stdin io.Reader) (string, error) {
	if given != "" {
		return given, nil
	}
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return "", usagef("--data is required: a LIBSVM file, or - for standard input")
	}
	return "-", nil
}

// readData reads LIBSVM rows from the file at path, or from stdin when
// path is "-".
func readData(path string, stdin io.Reader, opt dataset.Options) (*dataset.Dataset, error) {
	if path == "-" {
		return dataset.Read(stdin, stdinName, opt)
	}
	return dataset.ReadFile(path, opt)
}

// beyond counts the features a model's dimension leaves out of some data.
type beyond struct {
	features, rows int
	first          string // where the first one is (Dataset.Where)
	firstIndex     int32  // 1-based, as in the file
}

// clip removes, in place, the features of d at or beyond dim (0-based),
// which a model of dim features cannot weigh: LIBSVM's svm-predict ignores
// them too. It returns what it removed.
func clip(d *dataset.Dataset, dim int) beyond {
	var b beyond
	k := 0
	for i := range d.Len() {
		start, end := d.RowPtr[i], d.RowPtr[i+1]
		d.RowPtr[i] = k
		cut := false
		for p := start; p < end; p++ {
			if int(d.Index[p]) >= dim {
				if b.features == 0 {
					b.first, b.firstIndex = d.Where(i), d.Index[p]+1
				}
				b.features++
				cut = true
				continue
			}
			d.Index[k], d.Value[k] = d.Index[p], d.Value[p]
			k++
		}
		if cut {
			b.rows++
		}
	}
	d.RowPtr[d.Len()] = k
	d.Index, d.Value = d.Index[:k], d.Value[:k]
	d.Dim = dim
	return b
}

// warning says what clip removed, once for a whole input.
func (b beyond) warning(name string, dim int) string {
	return fmt.Sprintf("%s: %s in %s beyond the model's %d dimensions ignored (the first: index %d at %s)",
		name, experiment.Plural(b.features, "feature", "features"), experiment.Plural(b.rows, "row", "rows"), dim, b.firstIndex, b.first)
}

// prepare makes rows read for a model of dim features ready for it: the
// features beyond dim go (one warning), then the model's scaling applies.
func prepare(d *dataset.Dataset, dim int, in modelInput, warn func(string)) (*dataset.Dataset, error) {
	if b := clip(d, dim); b.features > 0 {
		warn(b.warning(d.Name, dim))
	}
	if in.Scaling == nil {
		return d, nil
	}
	return in.Scaling.Apply(d)
}
