package prep

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/bogd-project/bogd/internal/binrec"
)

// errBinary is wrapped by the errors of UnmarshalBinary.
var errBinary = errors.New("prep: invalid input preparation")

// AppendBinary appends in's binary form (see the package documentation,
// Binary form) to b.
func (in Input) AppendBinary(b []byte) ([]byte, error) {
	if err := in.valid(); err != nil {
		return nil, err
	}
	b = append(b, byte(in.HashBits))
	s := in.Scaling
	if s == nil {
		return append(b, byte(noScaling)), nil
	}
	b = append(b, byte(s.method))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s.min)))
	bounds := [][]float32{s.min, s.max}
	if s.method == maxAbs {
		bounds = bounds[1:] // the shifts are 0
	}
	for _, list := range bounds {
		for _, v := range list {
			b = binrec.AppendF32(b, v)
		}
	}
	b = binrec.AppendBool(b, s.labels)
	if s.labels {
		b = binrec.AppendF64(b, s.labelMin)
		b = binrec.AppendF64(b, s.labelMax)
	}
	return b, nil
}

// UnmarshalBinary reads the binary form of AppendBinary, all of data.
func (in *Input) UnmarshalBinary(data []byte) error {
	d := binrec.NewDecoder(data, errBinary)
	next := Input{HashBits: int(d.U8())}
	code := method(d.U8())
	if d.Err() == nil && next.HashBits > MaxHashBits {
		d.Fail("hash bits %d above %d", next.HashBits, MaxHashBits)
	}
	switch code {
	case noScaling:
	case minMax, maxAbs:
		lists := 2 // min-max: minima and maxima; max-abs: the peaks
		if code == maxAbs {
			lists = 1
		}
		n := d.Count("feature count", math.MaxInt32)
		if d.Err() == nil && n > d.Len()/(4*lists) {
			d.Fail("%d features need %d bytes, %d remain", n, 4*lists*n, d.Len())
		}
		if d.Err() != nil {
			break
		}
		bounds := make([]float32, lists*n)
		for k := range bounds {
			bounds[k] = d.F32()
		}
		var label *[2]float64
		if d.Bool("label flag") {
			label = &[2]float64{d.F64(), d.F64()}
		}
		if d.Err() != nil {
			break
		}
		var s *Scaling
		var err error
		if code == maxAbs {
			s, err = NewMaxAbs(bounds, label)
		} else {
			s, err = NewMinMax(bounds[:n], bounds[n:], label)
		}
		if err != nil {
			d.Fail("%v", err)
		}
		next.Scaling = s
	default:
		d.Fail("unknown scaling %d", code)
	}
	if err := d.Done("the input preparation"); err != nil {
		return err
	}
	*in = next
	return nil
}
