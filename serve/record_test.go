package serve

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// FuzzLearnRecord: the record decoder takes any bytes without panicking;
// what it accepts re-encodes to the same bytes and is a row the learner
// can take (indices increasing within the dimension, values finite).
func FuzzLearnRecord(f *testing.F) {
	f.Add(appendLearnRecord(nil, 1, 2, []Example{{Index: []int32{0, 3}, Value: []float32{1, -2}, Label: 1}, {Label: -1}}))
	f.Add(appendLearnRecord(nil, 0, 0, nil))
	f.Add(appendLearnRecord(nil, 1, 2, []Example{{Index: []int32{3, 3}, Value: []float32{1, 1}, Label: 1}}))
	f.Add(appendLearnRecord(nil, 1, 2, []Example{{Index: []int32{9}, Value: []float32{1}, Label: 1}}))
	f.Add(appendLearnRecord(nil, 1, 2, []Example{{Index: []int32{1}, Value: []float32{float32(math.Inf(1))}, Label: 1}}))
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var rec learnRecord
		err := decodeLearnRecord(data, 8, &rec)
		if err != nil {
			if !errors.Is(err, ErrRecord) {
				t.Fatalf("an error that is not ErrRecord: %v", err)
			}
			return
		}
		for _, e := range rec.examples {
			for k, j := range e.Index {
				if j < 0 || j >= 8 || k > 0 && j <= e.Index[k-1] || math.IsInf(float64(e.Value[k]), 0) || math.IsNaN(float64(e.Value[k])) {
					t.Fatalf("accepted %+v", e)
				}
			}
		}
		if again := appendLearnRecord(nil, rec.origin, rec.token, rec.examples); !bytes.Equal(again, data) {
			t.Fatalf("accepted bytes that re-encode differently")
		}
	})
}
