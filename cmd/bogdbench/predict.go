package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
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
// `bogdbench run --save` (and the min-max scaling saved beside it, if
// any), predicts every row of a LIBSVM file of the model's task, and
// prints the mistake rate (classification) or the mean squared error
// (regression), or with --scores one line per row: the predicted label
// (±1, the class label, or the regression value on the label's original
// scale), then the score(s).
func predictCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("predict", stderr)
	modelPath := fs.String("model", "", "model file written by bogdbench run --save (required); a scaling saved beside it (FILE"+scalingSuffix+") is applied to the data")
	dataPath := fs.String("data", "", "LIBSVM data file, plain or gzip (required)")
	scores := fs.Bool("scores", false, `print "predicted-label score..." for every row instead of the summary`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *modelPath == "" || *dataPath == "" {
		return usagef("--model and --data are required")
	}
	if err := simd.EnvError(); err != nil {
		return err
	}
	l, err := bogd.LoadOnlineFile(*modelPath)
	if err != nil {
		return err
	}
	scaling, err := loadScaling(*modelPath)
	if err != nil {
		return err
	}
	task := l.Task()
	// Any label reads as a regression target: a multi-class file to
	// predict may hold a single class, or one the model never saw (a
	// mistake). The model's dimension bounds the feature indices: a higher
	// one is a file:line error of the reader.
	readAs := dataset.Regression
	if task == bogd.Binary {
		readAs = dataset.Binary
	}
	data, err := dataset.ReadFile(*dataPath, dataset.Options{Dim: l.Config().Dim, Task: readAs, Warn: func(msg string) {
		fmt.Fprintf(stderr, "bogdbench predict: warning: %s\n", msg)
	}})
	if pe := (*dataset.ParseError)(nil); errors.As(err, &pe) && pe.Line > 0 {
		return fmt.Errorf("%w (the dimension of the model %s)", err, *modelPath)
	} else if err != nil {
		return err
	}
	original := data.Labels
	if scaling != nil {
		if data, err = scaling.Apply(data); err != nil {
			return err
		}
	}

	out := bufio.NewWriter(stdout)
	var mistakes int
	var squared, squaredOriginal float64
	var buf []float64
	for i := range data.Len() {
		idx, val := data.Row(i)
		p, err := l.PredictOne(engine.Sparse(idx, val), buf)
		if err != nil {
			return fmt.Errorf("%s row %d: %w", *dataPath, i+1, err)
		}
		buf = p.Scores
		label := p.Label
		if task == bogd.Regression {
			r := data.Labels[i] - p.Label
			squared += r * r
			if scaling != nil {
				label = scaling.Unlabel(p.Label)
			}
			squaredOriginal += (original[i] - label) * (original[i] - label)
		} else if label != data.Labels[i] {
			mistakes++
		}
		if *scores {
			writePrediction(out, label, p)
		}
	}
	if !*scores {
		n := float64(data.Len())
		fmt.Fprintf(out, "model         %s (%v %v, %d support vectors, dimension %d)\ndata          %s\nrows          %d\n",
			*modelPath, task, l.Algorithm(), l.SupportVectors(), l.Config().Dim, *dataPath, data.Len())
		switch {
		case task != bogd.Regression:
			fmt.Fprintf(out, "mistakes      %d\nmistake rate  %.3f%%\naccuracy      %.3f%%\n", mistakes, 100*float64(mistakes)/n, 100*(n-float64(mistakes))/n)
		case scaling != nil:
			fmt.Fprintf(out, "mse           %.6g (scaled labels, as the model learnt them)\nrmse          %.6g\nmse original  %.6g (the file's labels)\nrmse original %.6g\n",
				squared/n, math.Sqrt(squared/n), squaredOriginal/n, math.Sqrt(squaredOriginal/n))
		default:
			fmt.Fprintf(out, "mse           %.6g\nrmse          %.6g\n", squared/n, math.Sqrt(squared/n))
		}
	}
	return out.Flush()
}

// writePrediction writes one line of predict --scores: the label, then
// the score, or every class's scores.
func writePrediction(w io.Writer, label float64, p bogd.Prediction) {
	fmt.Fprintf(w, "%.9g", label)
	if len(p.Scores) == 0 {
		fmt.Fprintf(w, " %.9g", p.Score)
	}
	for _, s := range p.Scores {
		fmt.Fprintf(w, " %.9g", s)
	}
	fmt.Fprintln(w)
}

// scalingSuffix is appended to a model's path to name the scaling saved
// beside it.
const scalingSuffix = ".scaling.json"

// loadScaling reads the scaling saved beside the model file, if any.
func loadScaling(modelPath string) (*dataset.Scaling, error) {
	path := modelPath + scalingSuffix
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	s := new(dataset.Scaling)
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// checkSavePath fails before `run --save` starts working when the model
// file could not be written: it, or a scaling file beside it, exists (and
// --force is not given), or its directory does not.
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
	return forceHint(experiment.CheckFree([]string{path, path + scalingSuffix}))
}

// saveLast writes the learner of the last run of `run --save`, and the
// scaling of its data beside it, atomically: an error leaves any existing
// file as it was, and without force a file that appeared during the runs
// is kept. Without a scaling, a scaling file of an older model there is
// removed (with force): predict would apply it.
func saveLast(path string, force bool, l bogd.Online, scaling *dataset.Scaling, stderr io.Writer) error {
	var model bytes.Buffer
	if err := bogd.Save(&model, l); err != nil {
		return err
	}
	var scaled []byte
	if scaling != nil {
		var err error
		if scaled, err = json.Marshal(scaling); err != nil {
			return err
		}
	}
	if err := atomicfile.Write(path, model.Bytes(), atomicfile.Options{NoClobber: !force}); err != nil {
		return forceHint(fmt.Errorf("save model: %w", err))
	}
	if scaling == nil && force {
		if err := os.Remove(path + scalingSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the old scaling: %w", err)
		}
	} else if scaling != nil {
		if err := atomicfile.Write(path+scalingSuffix, append(scaled, '\n'), atomicfile.Options{NoClobber: !force}); err != nil {
			return forceHint(fmt.Errorf("save scaling: %w", err))
		}
	}
	fmt.Fprintf(stderr, "bogdbench run: saved the %v learner of the last run (%d support vectors) to %s\n", l.Algorithm(), l.SupportVectors(), path)
	return nil
}
