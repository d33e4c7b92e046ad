package serve

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/bogd-project/bogd/internal/binrec"
)

// Example is one prepared row and its label: what the learner learns, the
// features already hashed, scaled and within the model's dimension
// (0-based indices, strictly increasing).
type Example struct {
	Index []int32
	Value []float32
	Label float64
}

// A learn record is what the log holds for one /learn: the examples as
// the learner consumes them, so that replay learns exactly what was
// learnt, whatever the preparation code does later; and who appended
// it, so that the server that did answers its client with the outcome.
// Little-endian:
//
//	kind     uint8 (recordKind)
//	origin   uint64: the appending server's random identity
//	token    uint64: that server's number for the request
//	count    uint64: examples, each
//	         label float64, non-zeros uint64, then every index uint32
//	         and value float32
const recordKind = 1

// ErrRecord is a learn record that does not decode; errors wrap it.
var ErrRecord = errors.New("not a learn record")

// learnRecord is a decoded learn record.
type learnRecord struct {
	origin, token uint64
	examples      []Example
}

// DecodeLearnRecord decodes the learn record of the log, data, for a
// model of dim features, and returns its examples: what a tool that reads
// the log (wal.File.Follow) learns from each record.
func DecodeLearnRecord(data []byte, dim int) ([]Example, error) {
	var rec learnRecord
	err := decodeLearnRecord(data, dim, &rec)
	return rec.examples, err
}

// appendLearnRecord appends the record of examples to b.
func appendLearnRecord(b []byte, origin, token uint64, examples []Example) []byte {
	b = append(b, recordKind)
	b = binary.LittleEndian.AppendUint64(b, origin)
	b = binary.LittleEndian.AppendUint64(b, token)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(examples)))
	for _, e := range examples {
		b = binrec.AppendF64(b, e.Label)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(e.Index)))
		for k, j := range e.Index {
			b = binary.LittleEndian.AppendUint32(b, uint32(j))
			b = binrec.AppendF32(b, e.Value[k])
		}
	}
	return b
}

// decodeLearnRecord decodes a learn record for a model of dim features:
// indices strictly increasing and below dim, values finite, labels not
// NaN.
func decodeLearnRecord(data []byte, dim int, into *learnRecord) error {
	d := binrec.NewDecoder(data, ErrRecord)
	if kind := d.U8(); d.Err() == nil && kind != recordKind {
		return fmt.Errorf("%w: kind %d", ErrRecord, kind)
	}
	into.origin, into.token = d.U64(), d.U64()
	// An example takes at least 16 bytes; a feature 8.
	count := d.Count("examples", d.Len()/16)
	into.examples = into.examples[:0]
	var index []int32
	var value []float32
	for i := range count {
		label := d.F64()
		nnz := d.Count("non-zeros", d.Len()/8)
		if d.Err() != nil {
			break
		}
		if math.IsNaN(label) {
			return fmt.Errorf("%w: example %d: a NaN label", ErrRecord, i+1)
		}
		start := len(index)
		for k := range nnz {
			j, v := int32(d.U32()), d.F32()
			switch {
			case j < 0 || int(j) >= dim:
				return fmt.Errorf("%w: example %d: index %d beyond the model's %d features", ErrRecord, i+1, j, dim)
			case k > 0 && j <= index[len(index)-1]:
				return fmt.Errorf("%w: example %d: indices not increasing", ErrRecord, i+1)
			case math.IsNaN(float64(v)) || math.IsInf(float64(v), 0):
				return fmt.Errorf("%w: example %d: feature %d is not finite", ErrRecord, i+1, j)
			}
			index, value = append(index, j), append(value, v)
		}
		into.examples = append(into.examples, Example{Label: label, Index: index[start:len(index):len(index)], Value: value[start:len(value):len(value)]})
	}
	return d.Done("the examples")
}
