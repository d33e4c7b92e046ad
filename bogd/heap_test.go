package bogd

import (
	"fmt"
	"testing"
)

// TestHeapKeysFollowTheWeights: BOGD's heap of free weights keeps their
// keys beside the slots; after every step of runs that renormalise the
// global scale often (λη = 0.5) or never, and with either projection,
// every kept key is the slot's present |weight| and the heap is in order,
// so its comparisons are those of keys read afresh.
func TestHeapKeysFollowTheWeights(t *testing.T) {
	s := syntheticStream(3000, 4, 7)
	for _, lambda := range []float64{1, 1e-6} {
		for _, proj := range []Projection{ClipEach, RescaleAll} {
			t.Run(fmt.Sprintf("lambda=%v/%v", lambda, proj), func(t *testing.T) {
				l := mustNew(t, BOGD, Config{Dim: 4, Budget: 20, Sigma: 4, Eta: 0.5, Lambda: lambda, Gamma: 2, Seed: 3, Projection: proj})
				u := l.b.rule.(*uniform)
				for i, x := range s.xs {
					if _, err := l.observe(x, s.labels[i]); err != nil {
						t.Fatal(err)
					}
					h := u.free
					for k, slot := range h.slots {
						if want := h.key(slot); h.keys[k] != want {
							t.Fatalf("step %d: slot %d keeps key %v, its weight is %v", i, slot, h.keys[k], want)
						}
						if k > 0 && h.keys[(k-1)/2] < h.keys[k] {
							t.Fatalf("step %d: heap order broken at %d", i, k)
						}
					}
				}
			})
		}
	}
}
