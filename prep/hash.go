package prep

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// MaxHashBits bounds Input.HashBits: 2^30 features is already far beyond
// what a dense support vector can hold.
const MaxHashBits = 30

// hashIndex is the 0-based index of a feature name in 2^bits dimensions:
// its 32-bit FNV-1a hash modulo 2^bits.
func hashIndex[N ~string | ~[]byte](name N, bits int) int32 {
	h := uint32(2166136261)
	for i := range len(name) {
		h ^= uint32(name[i])
		h *= 16777619
	}
	return int32(h & (1<<bits - 1))
}

// Hasher sums the features of one row by the index their names hash to,
// as Vowpal Wabbit does for text: no dictionary, so that any vocabulary
// fits in 2^bits dimensions in one pass. Add every feature of a row, then
// Flush; the Hasher is then ready for the next row.
type Hasher struct {
	bits int
	row  []hashedFeature // the row's features, in the order added
}

type hashedFeature struct {
	index int32
	value float64
}

// NewHasher returns a Hasher into 2^bits dimensions; bits must lie in
// 1..MaxHashBits.
func NewHasher(bits int) (*Hasher, error) {
	if bits < 1 || bits > MaxHashBits {
		return nil, fmt.Errorf("prep: hashing into 2^%d dimensions: want 1..%d bits", bits, MaxHashBits)
	}
	return &Hasher{bits: bits}, nil
}

// Dim is the number of dimensions names hash into.
func (h *Hasher) Dim() int { return 1 << h.bits }

// Add adds the feature name with its value to the row.
func (h *Hasher) Add(name []byte, value float32) { h.add(hashIndex(name, h.bits), value) }

func (h *Hasher) add(index int32, value float32) {
	h.row = append(h.row, hashedFeature{index: index, value: float64(value)})
}

// Flush passes the row's features to emit by ascending index, the values
// of one index (repeats and collisions) summed in float64 in ascending
// order, so that the sum does not depend on the order of the features;
// zero sums are left out. A sum beyond the float32 range is an error
// (wrapping ErrRow) after the indices below it were emitted.
func (h *Hasher) Flush(emit func(index int32, value float32)) error {
	defer func() { h.row = h.row[:0] }()
	slices.SortFunc(h.row, func(a, b hashedFeature) int {
		return cmp.Or(cmp.Compare(a.index, b.index), cmp.Compare(a.value, b.value))
	})
	for i := 0; i < len(h.row); {
		j := h.row[i].index
		sum := 0.0
		for ; i < len(h.row) && h.row[i].index == j; i++ {
			sum += h.row[i].value
		}
		if math.Abs(sum) > math.MaxFloat32 {
			return rowErrorf("the features hashed to index %d sum to %g, beyond the float32 range", j, sum)
		}
		if v := float32(sum); v != 0 {
			emit(j, v)
		}
	}
	return nil
}
