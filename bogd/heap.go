package bogd

// maxHeap is an indexed binary max-heap of support-vector slots keyed by a
// caller-supplied function, with O(log n) removal of any slot and O(1)
// renaming when a swap-remove moves a slot. BOGD uses it to find the largest
// free weight without scanning the budget.
//
// The keys are kept beside the slots, as key gave them when the slot came
// in or was fixed: the comparisons read them rather than call key (about 40
// calls per BOGD update at a budget of 100, a third of the update's time).
// The owner must call fix when a key changes and refresh when they all do.
type maxHeap struct {
	slots []int32   // heap order
	keys  []float32 // keys[i] is the key of slots[i]
	pos   []int32   // pos[slot] = index in slots, or -1
	key   func(slot int32) float32
}

func newMaxHeap(capacity int, key func(slot int32) float32) *maxHeap {
	h := &maxHeap{slots: make([]int32, 0, capacity), keys: make([]float32, 0, capacity), pos: make([]int32, capacity), key: key}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

func (h *maxHeap) len() int { return len(h.slots) }

// top returns the slot with the largest key; the heap must not be empty.
func (h *maxHeap) top() int { return int(h.slots[0]) }

func (h *maxHeap) push(slot int) {
	for slot >= len(h.pos) {
		h.pos = append(h.pos, -1)
	}
	h.slots = append(h.slots, int32(slot))
	h.keys = append(h.keys, h.key(int32(slot)))
	h.pos[slot] = int32(len(h.slots) - 1)
	h.up(len(h.slots) - 1)
}

// remove deletes slot from the heap if present.
func (h *maxHeap) remove(slot int) {
	i := int(h.pos[slot])
	if i < 0 {
		return
	}
	last := len(h.slots) - 1
	h.swap(i, last)
	h.slots, h.keys = h.slots[:last], h.keys[:last]
	h.pos[slot] = -1
	if i < last {
		h.down(i)
		h.up(i)
	}
}

// fix restores the order after the key of slot changed.
func (h *maxHeap) fix(slot int) {
	i := int(h.pos[slot])
	h.keys[i] = h.key(int32(slot))
	h.down(i)
	h.up(i)
}

// refresh takes every key again, after a change of all of them that keeps
// their order (a common factor, rounded): the heap stays in order.
func (h *maxHeap) refresh() {
	for i, s := range h.slots {
		h.keys[i] = h.key(s)
	}
}

// rename records that the vector in slot from now lives in slot to (which
// must not be in the heap).
func (h *maxHeap) rename(from, to int) {
	i := h.pos[from]
	if i < 0 {
		return
	}
	h.slots[i] = int32(to)
	h.pos[to], h.pos[from] = i, -1
}

func (h *maxHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if h.keys[parent] >= h.keys[i] {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

func (h *maxHeap) down(i int) {
	n := len(h.slots)
	for {
		largest := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < n && h.keys[c] > h.keys[largest] {
				largest = c
			}
		}
		if largest == i {
			return
		}
		h.swap(i, largest)
		i = largest
	}
}

func (h *maxHeap) swap(i, j int) {
	h.slots[i], h.slots[j] = h.slots[j], h.slots[i]
	h.keys[i], h.keys[j] = h.keys[j], h.keys[i]
	h.pos[h.slots[i]], h.pos[h.slots[j]] = int32(i), int32(j)
}
