package engine

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFeaturesMatchFloat64: z(x) against cos and sin of the float64
// projection of the same float32 frequencies, dense and sparse queries, for
// every implementation; the padding entries are 0. The tolerance is the
// float32 projection's rounding (2⁻²⁴ per product and sum, of Σ|x_f·u_f|)
// plus the sincos's 4·2⁻²⁴ (simd.FourierFeatures).
func TestFeaturesMatchFloat64(t *testing.T) {
	eachImpl(t, func(t *testing.T) {
		for _, c := range []struct{ dim, count int }{{1, 1}, {8, 17}, {22, 400}, {300, 33}} {
			rng := rand.New(rand.NewPCG(uint64(c.dim), uint64(c.count)))
			f, err := NewFeatures(c.dim, c.count, 8, rng)
			if err != nil {
				t.Fatal(err)
			}
			x := randomPoint(rng, c.dim, 0.5, func() float32 { return float32(rng.NormFloat64() * 20) })
			for _, v := range []Vector{Dense(x), sparseOf(x)} {
				z, err := f.Map(v, nil)
				if err != nil {
					t.Fatal(err)
				}
				half := f.Len() / 2
				for j := range half {
					if j >= c.count {
						if z[j] != 0 || z[half+j] != 0 {
							t.Fatalf("padding feature %d is (%v, %v)", j, z[j], z[half+j])
						}
						continue
					}
					u := f.Frequency(j, nil)
					var p, mag float64
					for i := range u {
						p += float64(u[i]) * float64(x[i])
						mag += math.Abs(float64(u[i]) * float64(x[i]))
					}
					tol := float64(c.dim+2)*0x1p-24*mag + 4*0x1p-24
					if math.Abs(float64(z[j])-math.Cos(p)) > tol || math.Abs(float64(z[half+j])-math.Sin(p)) > tol {
						t.Fatalf("dim %d feature %d (sparse=%v): (%v, %v), want (%v, %v) ± %.2g", c.dim, j, v.IsSparse(), z[j], z[half+j], math.Cos(p), math.Sin(p), tol)
					}
				}
			}
		}
	})
}

// TestFeatureModel: a feature model scores w·z(x) for each output, and
// saves and loads to the same bits.
func TestFeatureModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	f, err := NewFeatures(5, 40, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float32, 3*f.Len())
	for i := range w {
		w[i] = float32(rng.NormFloat64())
	}
	m, err := NewFeatureModel(f, 3, w)
	if err != nil {
		t.Fatal(err)
	}
	x := Dense([]float32{0.5, -1, 2, 0, 1})
	z, _ := f.Map(x, nil)
	got, err := m.Scores(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	for o := range 3 {
		var want, mag float64
		for j, v := range z {
			want += float64(w[o*f.Len()+j]) * float64(v)
			mag += math.Abs(float64(w[o*f.Len()+j]) * float64(v))
		}
		if math.Abs(got[o]-want) > float64(len(z)/16+20)*0x1p-24*mag {
			t.Fatalf("output %d: %v, want %v", o, got[o], want)
		}
	}
	if m.Len() != 0 || m.feat != f {
		t.Fatalf("a feature model with %d support vectors", m.Len())
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := LoadModel(&buf)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := back.Scores(x, nil)
	for o := range got {
		if math.Float64bits(got[o]) != math.Float64bits(again[o]) {
			t.Fatalf("output %d: %v before saving, %v after", o, got[o], again[o])
		}
	}
	if _, err := NewFeatureModel(f, 2, w); err == nil {
		t.Fatal("weights of 3 outputs accepted for 2")
	}
	if _, err := NewFeatures(5, 0, 2, rng); err == nil {
		t.Fatal("no frequencies accepted")
	}
}

// NewFeatures refuses frequencies beyond MaxFrequencyValues values, before
// allocating them, and stores exactly up to it.
func TestFeaturesSizeLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	if _, err := NewFeatures(MaxFrequencyValues/16+1, 16, 1, rng); err == nil || !strings.Contains(err.Error(), "MiB") {
		t.Fatalf("16 frequencies of dimension %d: %v", MaxFrequencyValues/16+1, err)
	}
	f, err := NewFeatures(1000, 16, 1, rng)
	if err != nil || f.Len() != 32 || f.Dim() != 1000 {
		t.Fatalf("%v, %v", f, err)
	}
}
