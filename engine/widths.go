package engine

import (
	"fmt"

	"github.com/bogd-project/bogd/simd"
)

// MapWidths writes into z (length levels·Len, reallocated when shorter)
// the random Fourier features of levels kernel widths σ, σ/2, …,
// σ/2^(levels−1), where σ is the width the frequencies were drawn for, and
// returns it: level k, at z[k·Len : (k+1)·Len], is Map's z(x) for the
// frequencies 2ᵏ·uⱼ (laid out as Map's, padding entries 0). One projection
// serves every level (simd.FourierWidths: each level after the first is
// the double angle of the one before).
func (f *Features) MapWidths(x Vector, z []float32, levels int) ([]float32, error) {
	if err := x.validate(f.m.Dim()); err != nil {
		return nil, fmt.Errorf("engine: Fourier features: %w", err)
	}
	if levels < 1 {
		return nil, fmt.Errorf("engine: Fourier features of %d widths", levels)
	}
	n := levels * f.Len()
	if cap(z) < n {
		z = make([]float32, n)
	}
	z = z[:n]
	if x.IsSparse() {
		simd.FourierWidthsSparse(z, x.Index, x.Value, f.m.Tiles(), f.m.Dim(), levels)
	} else {
		simd.FourierWidths(z, x.Dense, f.m.Tiles(), f.m.Dim(), levels)
	}
	half := f.m.Padded()
	for k := range levels {
		clear(z[k*f.Len()+f.count : k*f.Len()+half]) // the padding slots project to 0: cos 1, sin 0
	}
	return z, nil
}
