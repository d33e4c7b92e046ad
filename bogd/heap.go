package bogd

// maxHeap is an indexed binary max-heap of support-vector slots keyed by
// the owner's keys, with O(log n) removal of any slot and O(1) renaming when
// a swap-remove moves a slot. BOGD uses it to find the largest free weight
// without scanning the budget.
//
// The keys are kept beside the slots, as the owner gave them when the slot
// came in or was fixed: the comparisons read them rather than compute them
// (about 40 per BOGD update at a budget of 100, a third of the update's
// time). The owner must call fix when a key changes and refresh when they
// all do.
type maxHeap struct {
	slots []int32   // heap order
	keys  []float32 // keys[i] is the key of slots[i]
	pos   []int32   // pos[slot] = index in slots, or -1
}

func newMaxHeap(capacity int) *maxHeap {
	h := &maxHeap{slots: make([]int32, 0, capacity), keys: make([]float32, 0, capacity), pos: make([]int32, capacity)}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

func (h *maxHeap) len() int { return len(h.slots) }

// top returns the slot with the largest key and the key; the heap must not
// be empty.
func (h *maxHeap) top() (slot int, key float32) { return int(h.slots[0]), h.keys[0] }

// push adds slot with its key.
func (h *maxHeap) push(slot int, key float32) {
	for slot >= len(h.pos) {
		h.pos = append(h.pos, -1)
	}
	h.slots = append(h.slots, int32(slot))
	h.keys = append(h.keys, key)
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
	h.slots[i], h.keys[i] = h.slots[last], h.keys[last]
	h.pos[h.slots[i]] = int32(i)
	h.slots, h.keys = h.slots[:last], h.keys[:last]
	h.pos[slot] = -1
	if i < last {
		h.down(i)
		h.up(i)
	}
}

// fix restores the order after the key of slot changed to key.
func (h *maxHeap) fix(slot int, key float32) {
	i := int(h.pos[slot])
	h.keys[i] = key
	h.down(i)
	h.up(i)
}

// refresh takes every key again from key, after a change of all of them
// that keeps their order (a common factor, rounded): the heap stays in
// order.
func (h *maxHeap) refresh(key func(slot int32) float32) {
	for i, s := range h.slots {
		h.keys[i] = key(s)
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

// up moves the entry at i towards the root past every parent of a
// smaller key, carrying it in a hole rather than swapping at each level.
func (h *maxHeap) up(i int) {
	s, k := h.slots[i], h.keys[i]
	for i > 0 {
		parent := (i - 1) / 2
		if h.keys[parent] >= k {
			break
		}
		h.put(i, h.slots[parent], h.keys[parent])
		i = parent
	}
	h.put(i, s, k)
}

// down moves the entry at i towards the leaves past every child of a
// larger key, the larger child first (the left one on ties).
func (h *maxHeap) down(i int) {
	keys, n := h.keys, len(h.slots)
	s, k := h.slots[i], keys[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && keys[r] > keys[c] {
			c = r
		}
		if !(keys[c] > k) {
			break
		}
		h.put(i, h.slots[c], keys[c])
		i = c
	}
	h.put(i, s, k)
}

// put places the entry of slot s and key k at position i.
func (h *maxHeap) put(i int, s int32, k float32) {
	h.slots[i], h.keys[i] = s, k
	h.pos[s] = int32(i)
}
