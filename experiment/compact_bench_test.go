package experiment

import (
	"fmt"
	"testing"

	"github.com/bogd-project/bogd/bogd"
)

// BenchmarkPassCompact compares passes over codrna held as Read gives it
// and compact (dataset.Dataset.Compact: dense float32 rows, read in place
// when every feature is set, else decoded into the sparse rows the
// learners read), side by side, per row: the cost of holding 5 bytes per
// non-zero instead of 11.
func BenchmarkPassCompact(b *testing.B) {
	read := codrnaShaped(b)
	n := read.Len()
	order := Permutation(1, 0, n)
	for _, c := range []struct {
		algo bogd.Algorithm
		eta  float64
	}{{bogd.BOGDpp, 0.2}, {bogd.FOGD, 0.002}} {
		for _, form := range []string{"read", "compact"} {
			data := read
			if form == "compact" {
				data = read.Compact()
			}
			b.Run(fmt.Sprintf("algo=%v/budget=100/form=%s", c.algo, form), func(b *testing.B) {
				passes(b, data, order, c.algo, bogd.Config{Dim: data.Dim, Budget: 100, Sigma: 8, Eta: c.eta, Seed: 1})
			})
		}
	}
}
