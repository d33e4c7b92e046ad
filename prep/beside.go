package prep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// The files beside a model file that held its preparation before the
// model file did (see the package documentation, Files beside a model):
// MODEL.input.json, and the older MODEL.scaling.json.
const (
	inputSuffix   = ".input.json"
	scalingSuffix = ".scaling.json"
)

// BesideFiles returns the paths of the files beside the model file at
// modelPath that may hold its preparation, in the order ReadBeside looks
// for them: a program that replaces the model removes them, lest they be
// taken for the new model's.
func BesideFiles(modelPath string) []string {
	return []string{modelPath + inputSuffix, modelPath + scalingSuffix}
}

// ReadBeside reads the preparation kept beside the model file at
// modelPath by programs older than the model files that hold it, and
// returns it with the path of the file it read; none there: the zero
// Input and "". Errors name the file.
func ReadBeside(modelPath string) (in Input, path string, err error) {
	for _, p := range BesideFiles(modelPath) {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			in, err = parseBeside(data, p == modelPath+scalingSuffix)
		}
		if err != nil {
			return Input{}, "", fmt.Errorf("%s: %w", p, err)
		}
		return in, p, nil
	}
	return Input{}, "", nil
}

// scalingJSON is the JSON form of a Scaling.
type scalingJSON struct {
	Method string      `json:"method"` // "minmax"
	Min    []float32   `json:"min"`
	Max    []float32   `json:"max"`
	Label  *[2]float64 `json:"label,omitempty"` // min and max of the labels, when they are scaled
}

// parseBeside reads MODEL.input.json, or with bare MODEL.scaling.json,
// refusing unknown fields.
func parseBeside(data []byte, bare bool) (Input, error) {
	var j struct {
		HashBits int          `json:"hash_bits,omitempty"`
		Scaling  *scalingJSON `json:"scaling,omitempty"`
	}
	var into any = &j
	if bare {
		j.Scaling = new(scalingJSON)
		into = j.Scaling
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return Input{}, err
	}
	in := Input{HashBits: j.HashBits}
	if err := in.valid(); err != nil {
		return Input{}, err
	}
	if s := j.Scaling; s != nil {
		if s.Method != "minmax" {
			return Input{}, fmt.Errorf("prep: scaling method %q, want \"minmax\"", s.Method)
		}
		var err error
		if in.Scaling, err = NewMinMax(s.Min, s.Max, s.Label); err != nil {
			return Input{}, err
		}
	}
	return in, nil
}
