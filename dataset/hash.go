package dataset

import (
	"bytes"
	"cmp"
	"hash"
	"hash/fnv"
	"math"
	"slices"
)

// hasher turns the feature tokens of a line into hashed feature indices
// (Options.HashBits), as Vowpal Wabbit does for text: no dictionary, so
// that one pass over any vocabulary works in fixed memory.
type hasher struct {
	file string
	bits int
	fnv  hash.Hash32
	row  []hashedFeature // the current line's features, in token order
}

type hashedFeature struct {
	index uint32
	value float64
}

func newHasher(file string, bits int) *hasher {
	return &hasher{file: file, bits: bits, fnv: fnv.New32a()}
}

// dim is the number of hashed dimensions.
func (h *hasher) dim() int { return 1 << h.bits }

// feature takes one "name[:value]" token of line ln. The last ':' splits off
// the value only when a decimal number follows it, so that names may hold
// ':' themselves ("http://x", "re:").
func (h *hasher) feature(tok []byte, ln int) error {
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
	h.fnv.Reset()
	h.fnv.Write(name) // never fails
	h.row = append(h.row, hashedFeature{index: h.fnv.Sum32() & (1<<h.bits - 1), value: value})
	return nil
}

// flush appends the line's features to index and value, which it
// returns: sorted by index, features of one index summed (repeats and
// collisions), zero sums dropped. The sum runs in ascending order of value
// so that it does not depend on the order of the tokens.
func (h *hasher) flush(index []int32, value []float32, ln int) ([]int32, []float32, error) {
	slices.SortFunc(h.row, func(a, b hashedFeature) int {
		return cmp.Or(cmp.Compare(a.index, b.index), cmp.Compare(a.value, b.value))
	})
	for i := 0; i < len(h.row); {
		f := h.row[i]
		sum := 0.0
		for ; i < len(h.row) && h.row[i].index == f.index; i++ {
			sum += h.row[i].value
		}
		if math.Abs(sum) > math.MaxFloat32 {
			h.row = h.row[:0]
			return index, value, errAt(h.file, ln, "the features hashed to index %d sum to %g, beyond the float32 range", f.index, sum)
		}
		if v := float32(sum); v != 0 {
			index, value = append(index, int32(f.index)), append(value, v)
		}
	}
	h.row = h.row[:0]
	return index, value, nil
}
