package prep

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bogd-project/bogd/task"
)

// Input is how raw rows are prepared for a model (see the package
// documentation). The zero Input takes rows as they are, by 1-based index,
// and only drops the features beyond the model's dimension.
type Input struct {
	// HashBits, when positive (at most MaxHashBits), makes features names
	// hashed into 2^HashBits dimensions, the model's dimension.
	HashBits int
	// Scaling, when not nil, maps the features (and a regression label) as
	// the training data were mapped.
	Scaling *Scaling
}

// IsZero reports whether in leaves rows as they are.
func (in Input) IsZero() bool { return in.HashBits == 0 && in.Scaling == nil }

// valid checks what needs no model.
func (in Input) valid() error {
	if in.HashBits < 0 || in.HashBits > MaxHashBits {
		return fmt.Errorf("prep: hash bits %d outside 1..%d (0: no hashing)", in.HashBits, MaxHashBits)
	}
	return nil
}

// Check reports whether in fits a model of dim features for task t: names
// hash into dim dimensions, the scaling maps dim features, and only a
// regression's labels are scaled.
func (in Input) Check(dim int, t task.Task) error {
	if err := in.valid(); err != nil {
		return err
	}
	switch s := in.Scaling; {
	case in.HashBits > 0 && dim != 1<<in.HashBits:
		return fmt.Errorf("prep: features are hashed into 2^%d dimensions, but the model has %d", in.HashBits, dim)
	case s == nil:
	case s.Dim() != dim:
		return fmt.Errorf("prep: the scaling maps %d features, but the model has %d", s.Dim(), dim)
	case s.labels && t != task.Regression:
		return fmt.Errorf("prep: the scaling maps labels, but the labels of a %v model are classes", t)
	}
	return nil
}

// Label maps a true label to the scale the model learns (the identity
// without a scaling of labels). A label far outside the training data's
// may map to an infinity, which no model learns: check it.
func (in Input) Label(y float64) float64 {
	if in.Scaling == nil {
		return y
	}
	return in.Scaling.label(y)
}

// Unlabel maps a model's prediction back to the label's scale: the inverse
// of Label.
func (in Input) Unlabel(y float64) float64 {
	if in.Scaling == nil {
		return y
	}
	return in.Scaling.unlabel(y)
}

// ErrRow is wrapped by every error of a raw row that Prepare or
// PrepareIndexed refuses, which names the feature and the problem:
// errors.Is(err, ErrRow) tells bad input from other failures.
var ErrRow = errors.New("prep: the row cannot be prepared")

// rowError is a problem of a row: its message alone, and Is ErrRow.
type rowError struct{ msg string }

func (e *rowError) Error() string        { return e.msg }
func (e *rowError) Is(target error) bool { return target == ErrRow }

func rowErrorf(format string, args ...any) error {
	return &rowError{msg: fmt.Sprintf(format, args...)}
}

// Feature is one feature of a raw row.
type Feature struct {
	// Key is the feature's 1-based index ("7"), or its name when the
	// input hashes names.
	Key string
	// Value is rounded to the nearest float32 (see the package
	// documentation).
	Value float64
}

// Row is a row prepared for a model, and the working memory that prepares
// it: one per goroutine, reused from row to row.
type Row struct {
	// Index holds the features' 0-based indices, ascending, and Value
	// their values: engine.Sparse(r.Index, r.Value) is the row in the
	// model's space.
	Index []int32
	Value []float32
	// Ignored holds the 0-based indices of the features dropped for lying
	// at or beyond the model's dimension.
	Ignored []int32

	keyIndex []int32 // a raw row's features, indexed, before PrepareIndexed
	keyValue []float32
	keyed    []indexedFeature
	hashed   []hashedFeature
}

type indexedFeature struct {
	index int32
	value float32
}

// Prepare makes row the raw features prepared for a model of dim
// features: keys read as 1-based indices, or hashed names when in hashes;
// then as PrepareIndexed. An error wraps ErrRow and names the feature.
func (in Input) Prepare(row *Row, features []Feature, dim int) error {
	if err := in.valid(); err != nil {
		return err
	}
	row.keyIndex, row.keyValue = row.keyIndex[:0], row.keyValue[:0]
	if in.HashBits > 0 {
		h := Hasher{bits: in.HashBits, row: row.hashed[:0]}
		for _, f := range features {
			if f.Key == "" || strings.ContainsAny(f.Key, " \t\r\n#") {
				return rowErrorf("feature name %q: names are not empty and hold no space, tab, newline or #", f.Key)
			}
			v, err := featureValue(f)
			if err != nil {
				return err
			}
			h.add(hashIndex(f.Key, in.HashBits), v)
		}
		err := h.Flush(func(j int32, v float32) {
			row.keyIndex, row.keyValue = append(row.keyIndex, j), append(row.keyValue, v)
		})
		row.hashed = h.row
		if err != nil {
			return err
		}
	} else {
		row.keyed = row.keyed[:0]
		for _, f := range features {
			j, err := strconv.ParseInt(f.Key, 10, 32)
			if err != nil || j < 1 {
				return rowErrorf("feature %q is not a 1-based index", f.Key)
			}
			v, err := featureValue(f)
			if err != nil {
				return err
			}
			if v != 0 {
				row.keyed = append(row.keyed, indexedFeature{int32(j - 1), v})
			}
		}
		slices.SortFunc(row.keyed, func(a, b indexedFeature) int { return int(a.index - b.index) })
		for k, f := range row.keyed {
			if k > 0 && f.index == row.keyed[k-1].index {
				return rowErrorf("feature %d is given twice", f.index+1)
			}
			row.keyIndex, row.keyValue = append(row.keyIndex, f.index), append(row.keyValue, f.value)
		}
	}
	return in.PrepareIndexed(row, row.keyIndex, row.keyValue, dim)
}

// featureValue is f's value as a feature holds it.
func featureValue(f Feature) (float32, error) {
	v := float32(f.Value)
	if math.IsNaN(f.Value) || math.IsInf(float64(v), 0) {
		return 0, rowErrorf("feature %q: value %v is not a finite float32", f.Key, f.Value)
	}
	return v, nil
}

// PrepareIndexed makes row a row of features already indexed (0-based,
// strictly ascending, finite values: a data set's row) prepared for a
// model of dim features: those at or beyond dim dropped into row.Ignored,
// the rest scaled. index and value may not be row's own slices. An error
// wraps ErrRow and names the feature.
func (in Input) PrepareIndexed(row *Row, index []int32, value []float32, dim int) error {
	row.Index, row.Value, row.Ignored = row.Index[:0], row.Value[:0], row.Ignored[:0]
	if len(index) != len(value) {
		return rowErrorf("%d indices but %d values", len(index), len(value))
	}
	for k, j := range index {
		if j < 0 || k > 0 && j <= index[k-1] {
			return rowErrorf("feature index %d: indices must be non-negative and strictly ascending", j)
		}
	}
	// The features within dim are index[:kept], value[:kept].
	kept := len(index)
	for kept > 0 && int(index[kept-1]) >= dim {
		kept--
	}
	row.Ignored = append(row.Ignored, index[kept:]...)
	if in.Scaling != nil {
		return in.Scaling.appendRow(row, index[:kept], value[:kept])
	}
	row.Index = append(row.Index, index[:kept]...)
	row.Value = append(row.Value, value[:kept]...)
	return nil
}
