package bogd

import (
	"fmt"
	"math"
	"testing"
)

// TestFreeWeightsFollowTheWeights: after every step of runs that
// renormalise the global scale often (λη = 0.5) or never, with either
// projection, BOGD's free weights are exactly the vectors that are not
// capped, each kept with its present |weight| as key, and the slot that
// largest reports holds the largest of them.
func TestFreeWeightsFollowTheWeights(t *testing.T) {
	s := syntheticStream(3000, 4, 7)
	for _, lambda := range []float64{1, 1e-6} {
		for _, proj := range []Projection{ClipEach, RescaleAll} {
			t.Run(fmt.Sprintf("lambda=%v/%v", lambda, proj), func(t *testing.T) {
				l := mustNew(t, BOGD, Config{Dim: 4, Budget: 20, Sigma: 4, Eta: 0.5, Lambda: lambda, Gamma: 2, Seed: 3, Projection: proj})
				u := l.b.rule.(*uniform)
				capped := 0
				for i, x := range s.xs {
					if _, err := l.observe(x, s.labels[i]); err != nil {
						t.Fatal(err)
					}
					f, n := u.free, u.set.Len()
					var free int
					var largest float32
					for slot, b := range f.keys {
						// Capped: the weight lives in the group column (state.go).
						if slot >= n || u.set.WeightColumn(u.outputs + u.pat[slot].lead())[slot] != 0 {
							if b != notFree {
								t.Fatalf("step %d: slot %d is not free, keeps key bits %#x", i, slot, b)
							}
							continue
						}
						free++
						key := math.Float32frombits(uint32(b))
						if want := u.key(int32(slot)); b == notFree || key != want {
							t.Fatalf("step %d: free slot %d keeps key bits %#x (%v), its |weight| is %v", i, slot, b, key, want)
						}
						largest = max(largest, key)
					}
					if f.len() != free {
						t.Fatalf("step %d: %d free weights counted, %d free", i, f.len(), free)
					}
					if free > 0 {
						if slot, key := f.largest(); key != largest || u.key(int32(slot)) != key {
							t.Fatalf("step %d: largest is slot %d with key %v, the largest key is %v", i, slot, key, largest)
						}
					}
					capped += n - free
				}
				if capped == 0 && proj == ClipEach && lambda < 1 {
					t.Fatal("no weight was ever capped: the test does not reach the projection")
				}
			})
		}
	}
}

// TestFreeWeightsSlotsInHeapOrder: the slots saved with a BOGD model are
// the free ones, the largest key first and every key at most its parent's
// in a binary heap, as earlier versions save and read them.
func TestFreeWeightsSlotsInHeapOrder(t *testing.T) {
	f := newFreeWeights(8)
	for slot, key := range []float32{0.5, -1, 2, 0.5, 1, -1, 2, 0.25} {
		if key >= 0 {
			f.add(slot, key)
		}
	}
	got := fmt.Sprint(f.slots())
	if want := "[2 6 4 0 3 7]"; got != want {
		t.Fatalf("slots %s, want %s", got, want)
	}
}
