package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/simd"
)

// rawRows splits LIBSVM text into each row's features as a service gets
// them: "index:value" tokens, or "name[:value]" ones when hashed (the
// value after the last ':' when it is a number, else 1).
func rawRows(t *testing.T, text string, hashed bool) [][]prep.Feature {
	t.Helper()
	var rows [][]prep.Feature
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		var row []prep.Feature
		for _, tok := range strings.Fields(line)[1:] {
			key, value := tok, 1.0
			if c := strings.LastIndexByte(tok, ':'); c >= 0 {
				if v, err := strconv.ParseFloat(tok[c+1:], 32); err == nil {
					key, value = tok[:c], v
				} else if !hashed {
					t.Fatalf("token %q", tok)
				}
			}
			row = append(row, prep.Feature{Key: key, Value: value})
		}
		rows = append(rows, row)
	}
	return rows
}

// predictedJSON is one prediction of `predict --format json`.
type predictedJSON struct {
	Label, Score  float64
	Scores        []float64
	Probability   *float64
	Probabilities []float64
}

// libraryLike returns what the frozen Predictor of the model file
// predicts for the rows, raw, in the output form of predict.
func libraryLike(t *testing.T, model string, rows [][]prep.Feature) []predictedJSON {
	t.Helper()
	l, err := bogd.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	var row prep.Row
	var out []predictedJSON
	for i, features := range rows {
		pred, err := p.PredictRow(&row, features)
		if err != nil {
			t.Fatalf("row %d: %v", i+1, err)
		}
		got := predictedJSON{Label: pred.Label, Score: pred.Score, Scores: pred.Scores, Probabilities: pred.Probabilities}
		if prob := pred.Probability; prob == prob { // not NaN: calibrated
			got.Probability = &prob
		}
		out = append(out, got)
	}
	return out
}

// TestLibraryPredictsAsPredict: for every task, hashed and scaled models
// included, a Go service that loads the model file and predicts raw rows
// with bogd.Predictor.PredictRow gets what `bogdbench predict` prints.
func TestLibraryPredictsAsPredict(t *testing.T) {
	dir := t.TempDir()
	german := germanText(t)
	words := "+1 good great fine\n-1 bad awful\n+1 great:2 nice\n-1 awful poor bad\n+1 fine nice\n-1 poor\n+1 nice:0.5 good:3\n-1 unseen\n"
	cases := []struct {
		name   string
		train  []string
		data   string
		hashed bool
	}{
		{"binary", []string{"--budget", "50"}, german, false},
		{"binary scaled", []string{"--budget", "50", "--scale", "minmax", "--algo", "fogd"}, german, false},
		{"multiclass", []string{"--algo", "bogd++", "--budget", "40", "--sigma", "2"}, string(readFile(t, writeData(t, dir, "multi.svm", 300, classes))), false},
		{"regression scaled", []string{"--scale", "minmax", "--algo", "bogd++", "--budget", "30", "--sigma", "0.5"}, string(readFile(t, writeData(t, dir, "reg.svm", 200, target))), false},
		{"binary hashed", []string{"--hash", "8", "--sigma", "1", "--passes", "3"}, words, true},
		{"regression hashed and scaled", []string{"--task", "regression", "--hash", "6", "--scale", "minmax", "--algo", "bogd++", "--budget", "20", "--sigma", "1"}, string(readFile(t, filepath.Join("testdata", "legacy", "houses.txt"))), true},
	}
	for _, c := range cases {
		model := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".bogd")
		if code, _, stderr := benchStdin(t, c.data, append([]string{"train", "--save", model, "-q"}, c.train...)...); code != 0 {
			t.Fatalf("%s: train: %s", c.name, stderr)
		}
		code, stdout, stderr := benchStdin(t, c.data, "predict", "--model", model, "--format", "json", "-q")
		if code != 0 {
			t.Fatalf("%s: predict: %s", c.name, stderr)
		}
		var doc struct{ Predictions []predictedJSON }
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		lib := libraryLike(t, model, rawRows(t, c.data, c.hashed))
		if len(doc.Predictions) != len(lib) || len(lib) < 6 {
			t.Fatalf("%s: predict %d rows, the library %d", c.name, len(doc.Predictions), len(lib))
		}
		for i, want := range doc.Predictions {
			got := lib[i]
			if got.Label != want.Label || got.Score != want.Score || !slices.Equal(got.Scores, want.Scores) || !slices.Equal(got.Probabilities, want.Probabilities) ||
				(got.Probability == nil) != (want.Probability == nil) || got.Probability != nil && *got.Probability != *want.Probability {
				t.Fatalf("%s: row %d: the library %+v, predict %+v", c.name, i+1, got, want)
			}
		}
	}
}

// TestLegacyInput: a model file of the release before format version 4,
// with its preparation beside it (testdata/legacy), predicts as it did;
// saved again, the file holds the preparation, and the file beside it
// goes when train continues the model in place.
func TestLegacyInput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("testdata", "legacy")
	for _, name := range []string{"houses.bogd", "houses.bogd.input.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), readFile(t, filepath.Join(src, name)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model, data := filepath.Join(dir, "houses.bogd"), filepath.Join(src, "houses.txt")
	if v := binary.LittleEndian.Uint32(readFile(t, model)[8:]); v != 3 {
		t.Fatalf("the fixture has version %d", v)
	}
	code, before, stderr := bench(t, "predict", "--model", model, "--data", data)
	if code != 0 || !strings.Contains(stderr, "bogdbench predict: "+model+" holds no input preparation (an older model file): "+model+".input.json beside it applies") {
		t.Fatalf("predict: exit %d\n%s", code, stderr)
	}
	if old := string(readFile(t, filepath.Join(src, "houses.predictions.txt"))); simd.Active().String() == "avx512" && before != old {
		t.Fatalf("predictions differ from the release's:\n%.200s\nwant\n%.200s", before, old)
	}
	if first, _ := strconv.ParseFloat(strings.Fields(before)[0], 64); !(first > 50 && first < 500) {
		t.Fatalf("prediction %v is not on the labels' scale", first)
	}

	// The library: the model file alone holds no preparation; with the one
	// beside it, saved again, it does, in format version 4.
	l, err := bogd.LoadFile(model)
	if err != nil || !l.Input().IsZero() {
		t.Fatalf("the fixture holds %+v (%v)", l.Input(), err)
	}
	in, from, err := prep.ReadBeside(model)
	if err != nil || from != model+".input.json" || in.HashBits != 6 || in.Scaling == nil {
		t.Fatalf("ReadBeside: %+v %q %v", in, from, err)
	}
	if err := l.SetInput(in); err != nil {
		t.Fatal(err)
	}
	resaved := filepath.Join(dir, "resaved.bogd")
	if err := l.SaveFile(resaved); err != nil {
		t.Fatal(err)
	}
	v4 := readFile(t, resaved)
	if v := binary.LittleEndian.Uint32(v4[8:]); v != 4 || !bytes.Equal(v4[20:len(v4)-4-len(mustAppend(t, in))], readFile(t, model)[20:len(readFile(t, model))-4]) {
		t.Fatalf("saved again: version %d; the learner's bytes must stay those of the fixture", v)
	}
	code, after, stderr := bench(t, "predict", "--model", resaved, "--data", data)
	if code != 0 || after != before || strings.Contains(stderr, "beside") {
		t.Fatalf("the model saved again predicts otherwise: exit %d\n%s", code, stderr)
	}

	// train continuing the model in place embeds the preparation and
	// removes the file beside it.
	code, _, stderr = bench(t, "train", "--model", model, "--data", data, "--save", model)
	if code != 0 || !strings.Contains(stderr, "holds no input preparation") {
		t.Fatalf("train --model: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(model + ".input.json"); !os.IsNotExist(err) {
		t.Fatalf("the preparation is still beside the model: %v", err)
	}
	if l, err := bogd.LoadFile(model); err != nil || l.Input().HashBits != 6 || l.Input().Scaling == nil {
		t.Fatalf("the model continued: %+v, %v", l.Input(), err)
	}
}

func mustAppend(t *testing.T, in prep.Input) []byte {
	t.Helper()
	b, err := in.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
