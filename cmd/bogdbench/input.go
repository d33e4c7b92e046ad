package main

import (
	"bytes"
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
	"github.com/bogd-project/bogd/prep"
	"golang.org/x/term"
)

// loadModel reads a model file with its input preparation (hashing,
// scaling): the one the file holds, or for a file of an older bogdbench,
// which held none, the one beside it (prep.ReadBeside), which log hears
// of; saving the model then embeds it.
func loadModel(path string, log func(string)) (*bogd.Learner, error) {
	l, err := bogd.LoadFile(path)
	if err != nil || !l.Input().IsZero() {
		return l, err
	}
	in, from, err := prep.ReadBeside(path)
	if err != nil || from == "" {
		return l, err
	}
	if err := l.SetInput(in); err != nil {
		return nil, fmt.Errorf("%s, beside %s: %w", from, path, err)
	}
	log(fmt.Sprintf("%s holds no input preparation (an older model file): %s beside it applies; a model saved from it holds it", path, from))
	return l, nil
}

// checkSavePath fails before a command starts working when the model file
// could not be written: it, or a file beside it that older models kept
// their preparation in, exists (and --force is not given), or its
// directory does not.
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
	return forceHint(experiment.CheckFree(append([]string{path}, prep.BesideFiles(path)...)))
}

// saveLast writes the learner of the last run of `run --save` (see
// saveModel).
func saveLast(path string, force bool, l *bogd.Learner, stderr io.Writer) error {
	if err := saveModel(path, l, force); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "bogdbench run: saved the %v learner of the last run (%d support vectors) to %s\n", l.Algorithm(), l.SupportVectors(), path)
	return nil
}

// saveModel writes l, its input preparation included, to path atomically;
// without replace an existing file is an error that leaves it alone. With
// replace, the files beside path that an older model kept its
// preparation in go once the model is written: loadModel would apply them
// to a model that holds none.
func saveModel(path string, l *bogd.Learner, replace bool) error {
	var model bytes.Buffer
	if err := l.Save(&model); err != nil {
		return err
	}
	if err := atomicfile.Write(path, model.Bytes(), atomicfile.Options{NoClobber: !replace}); err != nil {
		return forceHint(fmt.Errorf("save model: %w", err))
	}
	if !replace {
		return nil
	}
	for _, beside := range prep.BesideFiles(path) {
		if err := os.Remove(beside); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the model is saved, but the preparation of the model it replaced is still beside it (remove it: it would apply to this one): %w", err)
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

// prepare makes rows read for a model ready for it (Dataset.Prepare with
// the model's input): the features beyond its dimension go, with one
// warning, then its scaling applies.
func prepare(rows *dataset.Dataset, l *bogd.Learner, warn func(string)) (*dataset.Dataset, error) {
	prepared, c, err := rows.Prepare(l.Input(), l.Config().Dim)
	if err != nil {
		return nil, err
	}
	if c.Features > 0 {
		warn(clippedWarning(rows.Name, c))
	}
	return prepared, nil
}

// clippedWarning says what a model's dimension left out of the rows of
// name.
func clippedWarning(name string, c dataset.Clipped) string {
	return fmt.Sprintf("%s: %s in %s beyond the model's %d dimensions ignored (the first: index %d at %s)",
		name, experiment.Plural(c.Features, "feature", "features"), experiment.Plural(c.Rows, "row", "rows"), c.Dim, c.FirstIndex, c.First)
}
