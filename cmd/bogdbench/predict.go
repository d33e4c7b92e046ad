package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/internal/atomicfile"
	"github.com/bogd-project/bogd/simd"
)

// predictCommand is `bogdbench predict`: it loads a model saved by
// `bogdbench run --save` and predicts every row of a LIBSVM file with an
// immutable snapshot of it (sgn(f(x)), sgn(0) = +1), printing the mistake
// rate, or with --scores one "label score" line per row.
func predictCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("predict", stderr)
	modelPath := fs.String("model", "", "model file written by bogdbench run --save (required)")
	dataPath := fs.String("data", "", "LIBSVM data file, plain or gzip (required)")
	scores := fs.Bool("scores", false, `print "label score" for every row instead of the summary`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *modelPath == "" || *dataPath == "" {
		return usagef("--model and --data are required")
	}
	if err := simd.EnvError(); err != nil {
		return err
	}
	l, err := bogd.LoadFile(*modelPath)
	if err != nil {
		return err
	}
	model, err := l.Snapshot()
	if err != nil {
		return fmt.Errorf("%s: %w", *modelPath, err)
	}
	// The model's dimension bounds the feature indices: a higher one is a
	// file:line error of the reader.
	data, err := dataset.ReadFile(*dataPath, dataset.Options{Dim: model.Dim(), Task: dataset.Binary, Warn: func(msg string) {
		fmt.Fprintf(stderr, "bogdbench predict: warning: %s\n", msg)
	}})
	if pe := (*dataset.ParseError)(nil); errors.As(err, &pe) && pe.Line > 0 {
		return fmt.Errorf("%w (the dimension of the model %s)", err, *modelPath)
	} else if err != nil {
		return err
	}

	mistakes := 0
	for i := range data.Len() {
		idx, val := data.Row(i)
		f, err := model.Score(engine.Sparse(idx, val))
		if err != nil {
			return fmt.Errorf("%s row %d: %w", *dataPath, i+1, err)
		}
		y := int(data.Labels[i])
		predicted := 1
		if f < 0 {
			predicted = -1
		}
		if predicted != y {
			mistakes++
		}
		if *scores {
			if _, err := fmt.Fprintf(stdout, "%d %.9g\n", y, f); err != nil {
				return err
			}
		}
	}
	if *scores {
		return nil
	}
	n := data.Len()
	_, err = fmt.Fprintf(stdout, "model         %s (%v, %d support vectors, dimension %d)\ndata          %s\nrows          %d\nmistakes      %d\nmistake rate  %.3f%%\naccuracy      %.3f%%\n",
		*modelPath, l.Algorithm(), model.Len(), model.Dim(), *dataPath, n, mistakes,
		100*float64(mistakes)/float64(n), 100*float64(n-mistakes)/float64(n))
	return err
}

// checkSavePath fails before `run --save` starts working when the model
// file could not be written: it exists (and --force is not given), or its
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
	return forceHint(experiment.CheckFree([]string{path}))
}

// saveLast writes the learner of the last run of `run --save`, atomically:
// an error leaves any existing file as it was, and without force a file
// that appeared during the runs is kept.
func saveLast(path string, force bool, l bogd.Learner, stderr io.Writer) error {
	var model bytes.Buffer
	if err := bogd.Save(&model, l); err != nil {
		return err
	}
	if err := atomicfile.Write(path, model.Bytes(), atomicfile.Options{NoClobber: !force}); err != nil {
		return forceHint(fmt.Errorf("save model: %w", err))
	}
	fmt.Fprintf(stderr, "bogdbench run: saved the %v learner of the last run (%d support vectors) to %s\n", l.Algorithm(), l.SupportVectors(), path)
	return nil
}
