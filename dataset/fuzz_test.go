package dataset

import (
	"bytes"
	"errors"
	"testing"
)

func FuzzRead(f *testing.F) {
	f.Add([]byte("+1 1:0.5 3:-2\n-1 2:1e-1\n"))
	f.Add([]byte("0 1:1\n1 2:2\n"))
	f.Add(gzipBytes(f, "+1 1:1\n-1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, dim := range []int{0, 5} {
			d, err := Read(bytes.NewReader(data), "fuzz", Options{Dim: dim, Warn: func(string) {}})
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.File != "fuzz" || pe.Line < 0 {
					t.Fatalf("error %v (%T) is not a *ParseError for the input", err, err)
				}
				continue
			}
			if d.Len() == 0 {
				t.Fatal("success with no rows")
			}
			if dim > 0 && d.Dim != dim {
				t.Fatalf("Dim %d, want %d", d.Dim, dim)
			}
			if err := checkInvariants(d); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzParseOrders(f *testing.F) {
	f.Add([]byte("3,1,2\n2,3,1\n"), 3, 0)
	f.Add([]byte("1, 2\r\n\n2 ,1\n"), 2, 1)
	f.Fuzz(func(t *testing.T, data []byte, n, maxLines int) {
		if n > 1<<16 || n < -1 {
			n %= 1 << 16 // keep the memory per line bounded
		}
		perms, err := ParseOrders(bytes.NewReader(data), "fuzz", n, maxLines)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz" {
				t.Fatalf("error %v (%T) is not a *ParseError for the input", err, err)
			}
			return
		}
		if len(perms) == 0 || (maxLines > 0 && len(perms) > maxLines) {
			t.Fatalf("%d permutations with maxLines %d", len(perms), maxLines)
		}
		for _, p := range perms {
			if len(p) != n {
				t.Fatalf("permutation of length %d, n = %d", len(p), n)
			}
			seen := make([]bool, n)
			for _, v := range p {
				if v < 0 || v >= n || seen[v] {
					t.Fatalf("not a permutation of 0..%d: %v", n-1, p)
				}
				seen[v] = true
			}
		}
	})
}
