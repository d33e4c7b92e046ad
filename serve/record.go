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

// check reports what makes e no example for a model of dim features:
// the label finite, the indices strictly increasing and below dim, one
// finite value each.
func (e Example) check(dim int) error {
	if math.IsNaN(e.Label) || math.IsInf(e.Label, 0) {
		return fmt.Errorf("label %v is not finite", e.Label)
	}
	if len(e.Index) != len(e.Value) {
		return fmt.Errorf("%d indices but %d values", len(e.Index), len(e.Value))
	}
	for k, j := range e.Index {
		switch v := float64(e.Value[k]); {
		case j < 0 || int(j) >= dim:
			return fmt.Errorf("index %d beyond the model's %d features", j, dim)
		case k > 0 && j <= e.Index[k-1]:
			return fmt.Errorf("indices not strictly increasing (%d after %d)", j, e.Index[k-1])
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("feature %d is not finite", j)
		}
	}
	return nil
}

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

// decodeLearnRecord decodes a learn record for a model of dim features,
// every example checked (Example.check).
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
		start := len(index)
		for range nnz {
			index, value = append(index, int32(d.U32())), append(value, d.F32())
		}
		if d.Err() != nil {
			break
		}
		e := Example{Label: label, Index: index[start:len(index):len(index)], Value: value[start:len(value):len(value)]}
		if err := e.check(dim); err != nil {
			return fmt.Errorf("%w: example %d: %w", ErrRecord, i+1, err)
		}
		into.examples = append(into.examples, e)
	}
	return d.Done("the examples")
}
