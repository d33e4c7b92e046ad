package bogd

import (
	"math"
	"slices"
)

// freeWeights keeps BOGD's free weights (those below the cap γη) by slot:
// each one's key, its stored weight's magnitude, and which of them is the
// largest, to find the weights that a rescaling pushed over the cap.
//
// The largest is found by a scan of the keys when it leaves the free
// weights, which is rare: mostly it is the weight that just crossed the
// cap (on codrna at B = 100 about a tenth of BOGD's updates). Every other
// change is O(1). A binary max-heap did the same job with O(log B) moves at
// every update, the removal of a random slot among them, which cost more
// than the scans (benchmarks/README.md, round 9). Which of equal keys is
// taken first changes nothing: the projection clips, caps or rescales every
// weight over the cap in one step, whatever their order.
//
// A key is kept as its float32 bits, an int32: keys are magnitudes (≥ 0),
// whose bits order as the numbers do, so the scan compares integers
// (a conditional move each) where float32's max needs a NaN and signed-zero
// dance per element.
type freeWeights struct {
	keys []int32 // per slot: its key's bits, or notFree
	n    int     // free slots
	top  int32   // the slot of the largest key, or -1: not known
	// loaded is the order of the slots in the model file they came from,
	// until they change: a model loaded and saved keeps its bytes.
	loaded []int32
}

// notFree marks a slot that holds no free weight (capped, or empty): below
// the bits of every key.
const notFree = -1

func newFreeWeights(capacity int) *freeWeights {
	f := &freeWeights{keys: make([]int32, capacity), top: -1}
	for i := range f.keys {
		f.keys[i] = notFree
	}
	return f
}

// keyBits returns the bits of key (a magnitude), as kept.
func keyBits(key float32) int32 { return int32(math.Float32bits(key)) }

func (f *freeWeights) len() int { return f.n }

// largest returns the free slot of the largest key (the lowest slot among
// equal keys when it scans) and the key; there must be a free slot.
func (f *freeWeights) largest() (slot int, key float32) {
	if f.top < 0 {
		f.top = int32(firstMax(f.keys))
	}
	return int(f.top), math.Float32frombits(uint32(f.keys[f.top]))
}

// firstMax returns the index of the first largest of keys (not empty): their
// maximum in four running maxima without a branch, then the first key equal
// to it. A scan that kept the index as it went took a mispredicted branch
// at every new maximum.
func firstMax(keys []int32) int {
	m0, m1, m2, m3 := keys[0], keys[0], keys[0], keys[0]
	i := 0
	for ; i+4 <= len(keys); i += 4 {
		k := keys[i : i+4 : i+4]
		m0, m1, m2, m3 = max(m0, k[0]), max(m1, k[1]), max(m2, k[2]), max(m3, k[3])
	}
	for _, k := range keys[i:] {
		m0 = max(m0, k)
	}
	return slices.Index(keys, max(m0, m1, m2, m3))
}

// add makes slot, which holds no free weight, free with key.
func (f *freeWeights) add(slot int, key float32) {
	for slot >= len(f.keys) {
		f.keys = append(f.keys, notFree)
	}
	b := keyBits(key)
	f.keys[slot] = b
	f.n++
	f.loaded = nil
	if f.top >= 0 && b > f.keys[f.top] {
		f.top = int32(slot)
	}
}

// remove takes slot out of the free weights if it is there.
func (f *freeWeights) remove(slot int) {
	if f.keys[slot] == notFree {
		return
	}
	f.keys[slot] = notFree
	f.n--
	f.loaded = nil
	if f.top == int32(slot) {
		f.top = -1
	}
}

// set changes the key of the free slot to key.
func (f *freeWeights) set(slot int, key float32) {
	b := keyBits(key)
	f.keys[slot] = b
	f.loaded = nil
	switch {
	case f.top == int32(slot):
		f.top = -1 // it may no longer be the largest
	case f.top >= 0 && b > f.keys[f.top]:
		f.top = int32(slot)
	}
}

// refresh takes every free slot's key again from key, after a change of
// the stored weights.
func (f *freeWeights) refresh(key func(slot int32) float32) {
	for i, b := range f.keys {
		if b != notFree {
			f.keys[i] = keyBits(key(int32(i)))
		}
	}
	f.top = -1
	f.loaded = nil
}

// move records that the weight in slot from now lives in slot to, which
// holds no free weight (a swap-remove moved it there).
func (f *freeWeights) move(from, to int) {
	f.keys[to], f.keys[from] = f.keys[from], notFree
	f.loaded = nil
	if f.top == int32(from) {
		f.top = int32(to)
	}
}

// slots returns the free slots in the order of their keys, the largest
// first, and of the slots among equal keys: an array in max-heap order, as
// the model files of earlier versions hold them (state.go). Loaded slots
// that did not change since keep the order of their file.
func (f *freeWeights) slots() []int32 {
	if f.loaded != nil {
		return f.loaded
	}
	s := make([]int32, 0, f.n)
	for i, b := range f.keys {
		if b != notFree {
			s = append(s, int32(i))
		}
	}
	slices.SortStableFunc(s, func(a, b int32) int { return int(f.keys[b]) - int(f.keys[a]) })
	return s
}
