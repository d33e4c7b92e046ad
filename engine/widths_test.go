package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMapWidths: level k of MapWidths is z(x) for the frequencies 2ᵏ·uⱼ,
// against cos and sin of 2ᵏ times the float64 projection, dense and sparse
// queries, for every implementation, within 2ᵏ·1.5 times Map's tolerance
// plus the double angles' rounding (simd.FourierWidths); level 0 is Map's
// z(x) bit for bit; every level's padding entries are 0; an output too
// short is reallocated, and no level is an error.
func TestMapWidths(t *testing.T) {
	eachImpl(t, func(t *testing.T) {
		const levels = 6
		for _, c := range []struct{ dim, count int }{{1, 1}, {8, 17}, {22, 200}, {300, 33}} {
			rng := rand.New(rand.NewPCG(uint64(c.dim), uint64(c.count)))
			f, err := NewFeatures(c.dim, c.count, 8, rng)
			if err != nil {
				t.Fatal(err)
			}
			x := randomPoint(rng, c.dim, 0.5, func() float32 { return float32(rng.NormFloat64() * 4) })
			for _, v := range []Vector{Dense(x), sparseOf(x)} {
				z, err := f.MapWidths(v, make([]float32, 3), levels)
				if err != nil {
					t.Fatal(err)
				}
				if len(z) != levels*f.Len() {
					t.Fatalf("%d features for %d levels of %d", len(z), levels, f.Len())
				}
				z0, _ := f.Map(v, nil)
				for i, w := range z0 {
					if z[i] != w {
						t.Fatalf("level 0 feature %d: %v, Map's %v", i, z[i], w)
					}
				}
				half := f.Len() / 2
				for k := range levels {
					level := z[k*f.Len() : (k+1)*f.Len()]
					for j := range half {
						if j >= c.count {
							if level[j] != 0 || level[half+j] != 0 {
								t.Fatalf("level %d: padding feature %d is (%v, %v)", k, j, level[j], level[half+j])
							}
							continue
						}
						u := f.Frequency(j, nil)
						var p, mag float64
						for i := range u {
							p += float64(u[i]) * float64(x[i])
							mag += math.Abs(float64(u[i]) * float64(x[i]))
						}
						p = math.Ldexp(p, k)
						tol := math.Ldexp(1.5*(float64(c.dim+2)*0x1p-24*mag+6*0x1p-24), k)
						if math.Abs(float64(level[j])-math.Cos(p)) > tol || math.Abs(float64(level[half+j])-math.Sin(p)) > tol {
							t.Fatalf("dim %d level %d feature %d (sparse=%v): (%v, %v), want (%v, %v) ± %.2g",
								c.dim, k, j, v.IsSparse(), level[j], level[half+j], math.Cos(p), math.Sin(p), tol)
						}
					}
				}
			}
			if _, err := f.MapWidths(Dense(x), nil, 0); err == nil {
				t.Fatal("no level accepted")
			}
			if _, err := f.MapWidths(Dense(x[:len(x)-1]), nil, 2); c.dim > 1 && err == nil {
				t.Fatal("a short query accepted")
			}
		}
	})
}
