package dataset

import (
	"bytes"

	"github.com/bogd-project/bogd/prep"
)

// hasher turns the feature tokens of a line into hashed feature indices
// (Options.HashBits) with a prep.Hasher, which hashes the names of
// bogd.Predictor.PredictRow too.
type hasher struct {
	file string
	h    *prep.Hasher
	err  error // of prep.NewHasher (Options.check bounds the bits first)
}

func newHasher(file string, bits int) *hasher {
	h, err := prep.NewHasher(bits)
	return &hasher{file: file, h: h, err: err}
}

// dim is the number of hashed dimensions.
func (h *hasher) dim() int { return h.h.Dim() }

// feature takes one "name[:value]" token of line ln. The last ':' splits off
// the value only when a decimal number follows it, so that names may hold
// ':' themselves ("http://x", "re:").
func (h *hasher) feature(tok []byte, ln int) error {
	if h.err != nil {
		return h.err
	}
	name, value := tok, 1.0
	if c := bytes.LastIndexByte(tok, ':'); c >= 0 && isDecimal(tok[c+1:]) {
		v, err := parseNumber(tok[c+1:], 32)
		if err != nil {
			return errAt(h.file, ln, "invalid value in feature %s: %s", quote(tok), err.Error())
		}
		name, value = tok[:c], v
	}
	if len(name) == 0 {
		return errAt(h.file, ln, "feature %s has no name before ':'", quote(tok))
	}
	h.h.Add(name, float32(value))
	return nil
}

// flush appends the line's features to index and value, which it returns
// (prep.Hasher.Flush).
func (h *hasher) flush(index []int32, value []float32, ln int) ([]int32, []float32, error) {
	err := h.h.Flush(func(j int32, v float32) {
		index, value = append(index, j), append(value, v)
	})
	if err != nil {
		return index, value, &ParseError{File: h.file, Line: ln, Msg: err.Error(), Err: err}
	}
	return index, value, nil
}
