package serve

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
)

// INTERIM, until the input-preparation package (prep, branch tool-logic)
// lands: the preparation of a raw row by 1-based indices, as
// cmd/bogdbench/serve.go does it. Replaced by prep.Input.Prepare, which
// also hashes names and scales; a model whose rows need either is refused
// by New until then.

// feature is one feature of a raw row (prep.Feature).
type feature struct {
	Key   string
	Value float64
}

// preparedRow is a raw row prepared for the model (prep.Row).
type preparedRow struct {
	Index   []int32
	Value   []float32
	Ignored []int32
}

// prepareRow prepares the raw features of a row by their 1-based indices
// for a model of dim features.
func prepareRow(row *preparedRow, features []feature, dim int) error {
	row.Index, row.Value, row.Ignored = row.Index[:0], row.Value[:0], row.Ignored[:0]
	type indexed struct {
		index int32
		value float32
	}
	var kept []indexed
	for _, f := range features {
		j, err := strconv.ParseInt(f.Key, 10, 32)
		if err != nil || j < 1 {
			return badRequestf("feature %q is not a 1-based index", f.Key)
		}
		v := float32(f.Value)
		if math.IsNaN(f.Value) || math.IsInf(float64(v), 0) {
			return badRequestf("feature %q: value %v is not a finite float32", f.Key, f.Value)
		}
		if v != 0 {
			kept = append(kept, indexed{int32(j - 1), v})
		}
	}
	slices.SortFunc(kept, func(a, b indexed) int { return int(a.index - b.index) })
	for k, f := range kept {
		if k > 0 && f.index == kept[k-1].index {
			return badRequestf("feature %d is given twice", f.index+1)
		}
		if int(f.index) >= dim {
			row.Ignored = append(row.Ignored, f.index)
			continue
		}
		row.Index, row.Value = append(row.Index, f.index), append(row.Value, f.value)
	}
	return nil
}

func badRequestf(format string, args ...any) error {
	return badRequest{fmt.Errorf(format, args...)}
}

// refuseInput refuses a model whose rows need preparation (hashed names,
// scaling), which the interim preparation cannot do: its MODEL.input.json
// or MODEL.scaling.json exists.
func refuseInput(model string) error {
	for _, beside := range []string{model + ".input.json", model + ".scaling.json"} {
		if _, err := os.Stat(beside); err == nil {
			return fmt.Errorf("%s: serve's library does not prepare hashed or scaled rows yet", beside)
		}
	}
	return nil
}
