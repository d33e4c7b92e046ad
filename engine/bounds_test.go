package engine

import (
	"math"
	"strings"
	"testing"
)

// TestBounds: the norm bound and the integral flag remember removed vectors
// until the set is empty, and SetBounds restores them into a rebuilt set
// (which then scores sparse queries exactly as the original), rejecting
// values that cannot describe its vectors.
func TestBounds(t *testing.T) {
	eachStorage(t, func(t *testing.T, storage Storage) {
		s, err := New(40, 8, Options{Capacity: 4, Storage: storage})
		if err != nil {
			t.Fatal(err)
		}
		if m, in := s.Bounds(); m != 0 || !in {
			t.Fatalf("empty set: %v, %v", m, in)
		}
		far := make([]float32, 40)
		for j := range far {
			far[j] = 100.5
		}
		if _, err := s.Add(Dense(far), 1); err != nil {
			t.Fatal(err)
		}
		near := Sparse([]int32{1, 7, 30}, []float32{0.25, -1.5, 2})
		if _, err := s.Add(near, -0.5); err != nil {
			t.Fatal(err)
		}
		s.Remove(0) // the far vector goes; the bound stays
		maxNorm, integral := s.Bounds()
		if maxNorm != 40*100.5*100.5 || integral {
			t.Fatalf("after removing the far vector: %v, %v", maxNorm, integral)
		}

		// A set rebuilt from the remaining vector forgets the far one...
		r, err := New(40, 8, Options{Storage: storage})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Add(Dense(s.Vector(0, nil)), -0.5); err != nil {
			t.Fatal(err)
		}
		if m, _ := r.Bounds(); m == maxNorm {
			t.Fatal("rebuilt set has the old bound without SetBounds")
		}
		// ...until SetBounds restores it; then both score a sparse query alike.
		if err := r.SetBounds(maxNorm, integral); err != nil {
			t.Fatal(err)
		}
		q := Sparse([]int32{1, 2, 30}, []float32{0.3, 1.25, 2.5})
		var sc Scratch
		a, _ := score(s, &sc, q)
		b, _ := score(r, &sc, q)
		if math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("scores %v and %v differ after SetBounds", a, b)
		}

		for _, c := range []struct {
			norm     float64
			integral bool
			want     string
		}{
			{math.NaN(), false, "not a finite"},
			{math.Inf(1), false, "not a finite"},
			{-1, false, "not a finite"},
			{1, false, "below the squared norm"},
			{maxNorm, true, "non-integer"},
		} {
			if err := r.SetBounds(c.norm, c.integral); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("SetBounds(%v, %v): %v, want %q", c.norm, c.integral, err, c.want)
			}
		}
		if m, in := r.Bounds(); m != maxNorm || in != integral {
			t.Fatal("a failed SetBounds changed the bounds")
		}
		r.Remove(0)
		if err := r.SetBounds(5, true); err == nil {
			t.Error("an empty set accepted a norm bound")
		}
		if err := r.SetBounds(0, true); err != nil {
			t.Error(err)
		}
	})
}
