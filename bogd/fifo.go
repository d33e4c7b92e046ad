package bogd

// fifo orders the support vectors by age, kept aligned with the set's
// swap-remove: ring[(head+k) mod len(ring)] is the slot of the k-th oldest
// vector and pos[slot] its position in ring. The Forgetron and BOGDOldest
// drop the oldest vector at the budget.
type fifo struct {
	ring, pos []int
	head      int
}

func newFIFO(budget int) fifo {
	return fifo{ring: make([]int, budget), pos: make([]int, budget)}
}

// oldest returns the slot of the oldest vector.
func (q *fifo) oldest() int { return q.ring[q.head] }

// push records slot i as the newest of n vectors (n counts it).
func (q *fifo) push(i, n int) {
	p := q.wrap(q.head + n - 1)
	q.ring[p], q.pos[i] = i, p
}

// wrap reduces a position below twice the ring's length into the ring:
// a subtraction where % would divide, a visible part of a step at small
// budgets.
func (q *fifo) wrap(p int) int {
	if p >= len(q.ring) {
		p -= len(q.ring)
	}
	return p
}

// pop forgets the oldest vector, which the set has just removed by
// swap-remove, moving the vector from slot moved into its slot (moved < 0:
// nothing moved).
func (q *fifo) pop(moved int) {
	r := q.ring[q.head]
	if moved >= 0 {
		p := q.pos[moved]
		q.ring[p], q.pos[r] = r, p
	}
	q.head = q.wrap(q.head + 1)
}

// slot returns the slot of the k-th oldest vector.
func (q *fifo) slot(k int) int { return q.ring[q.wrap(q.head+k)] }

// restore rebuilds the queue from head and the slots from oldest to newest.
func (q *fifo) restore(head int, ages []int32) {
	q.head = head
	for k, s := range ages {
		p := (head + k) % len(q.ring)
		q.ring[p], q.pos[s] = int(s), p
	}
}
