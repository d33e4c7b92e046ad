package bogd

import (
	"encoding/binary"
	"math"
)

// The algorithm-specific part of a model file (persist.go has the rest).
// Each learner saves what its future steps read and cannot be recomputed
// bit for bit from the support set, and rebuilds the rest exactly on load;
// loadState also checks every invariant its Observe relies on, so that a
// file with a valid checksum but invented contents is an error, never a
// panic. Slot numbers are int32, counts int64, all little-endian.

var le = binary.LittleEndian

// The Perceptron, OGD and RBP keep nothing besides the set, the scale and
// the random state.

func (l *perceptron) appendState(b []byte) []byte { return b }
func (l *perceptron) loadState(*reader) error     { return nil }
func (l *ogd) appendState(b []byte) []byte        { return b }
func (l *ogd) loadState(*reader) error            { return nil }
func (l *rbp) appendState(b []byte) []byte        { return b }
func (l *rbp) loadState(*reader) error            { return nil }

// BOGD: the heap of free weights in heap order (count, then slots).
//
// Saved, not rebuilt: a heap built anew from the weights would hold the
// same slots in another order. The weights would come out the same (ties
// between equal keys are all clipped or capped in the same step), but
// keeping the order makes the loaded state identical rather than
// equivalent, and checking it costs one pass.
//
// The capped flags are rebuilt: a vector is capped exactly when its column-1
// weight is non-zero (project sets it to ±1 and zeroes column 0; Add zeroes
// column 1 of a new vector; the swap-remove moves both with the flag), so
// the flags are a function of the stored weights. Flags of unused slots are
// never read (Observe sets the flag of every new vector).
func (l *uniform) appendState(b []byte) []byte { return appendSlots(b, l.free.slots) }

// appendSlots appends a list of slots: its length, then each slot.
func appendSlots(b []byte, slots []int32) []byte {
	b = le.AppendUint64(b, uint64(len(slots)))
	for _, s := range slots {
		b = le.AppendUint32(b, uint32(s))
	}
	return b
}

func (l *uniform) loadState(r *reader) error {
	n := l.set.Len()
	w0, w1 := l.set.Weights(0), l.set.Weights(1)
	free := 0
	for i := range n {
		switch w1[i] {
		case 0:
			free++
		case 1, -1:
			if w0[i] != 0 {
				return r.fail("BOGD: capped support vector %d has a free weight %v", i, w0[i])
			}
			l.capped[i] = true
		default:
			return r.fail("BOGD: capped weight %d is %v, want 0 or ±1", i, w1[i])
		}
	}
	if err := checkFreeWeights(r, &l.base, w0, w1); err != nil {
		return err
	}
	count := r.int("BOGD heap size", n)
	if r.err == nil && count != free {
		return r.fail("BOGD: heap of %d slots, %d weights are free", count, free)
	}
	slots := r.slots("BOGD heap slots", count, n)
	if r.err != nil {
		return r.err
	}
	h := l.free
	for k, s := range slots {
		if l.capped[s] {
			return r.fail("BOGD: capped slot %d in the heap of free weights", s)
		}
		if k > 0 && h.key(slots[(k-1)/2]) < h.key(s) {
			return r.fail("BOGD: heap order broken at position %d", k)
		}
		h.slots = append(h.slots, s)
		h.pos[s] = int32(k)
	}
	return nil
}

// checkFreeWeights checks that BOGD's and BOGD++'s column-0 weights are
// within γη, as every step leaves them (the projection clips them, the
// group shrinks or is capped at γη before it dissolves into them), with the
// tolerance of float32 rounding.
func checkFreeWeights(r *reader, b *base, w0, w1 []float32) error {
	limit := b.cfg.Gamma * b.cfg.Eta * (1 + 1e-5)
	for i, w := range w0 {
		if w1[i] == 0 && b.scale*math.Abs(float64(w)) > limit {
			return r.fail("%v: weight %d is %v, above γη = %v", b.algo, i, b.scale*float64(w), b.cfg.Gamma*b.cfg.Eta)
		}
	}
	return nil
}

// BOGD++: the group members in their order (count, then slots), then the
// individuals in theirs.
//
// Both are saved as they are. draw picks members[k] for a random k, so the
// members' order is part of what the random stream selects; the
// individuals are sorted by weight, but equal weights keep their insertion
// order, which decides draw's scan and which of them join the group. The
// order cannot be recovered from the weights. memberPos is the inverse of
// members and is rebuilt.
func (l *nonUniform) appendState(b []byte) []byte {
	return appendSlots(appendSlots(b, l.members), l.indiv)
}

func (l *nonUniform) loadState(r *reader) error {
	n := l.set.Len()
	w0, w1 := l.set.Weights(0), l.set.Weights(1)
	grouped := 0
	for i := range n {
		switch w1[i] {
		case 0:
		case 1, -1:
			if w0[i] != 0 {
				return r.fail("BOGD++: group member %d has an individual weight %v", i, w0[i])
			}
			grouped++
		default:
			return r.fail("BOGD++: group weight %d is %v, want 0 or ±1", i, w1[i])
		}
	}
	if err := checkFreeWeights(r, &l.base, w0, w1); err != nil {
		return err
	}
	count := r.int("BOGD++ group size", n)
	if r.err == nil && count != grouped {
		return r.fail("BOGD++: group of %d slots, %d weights are in the group column", count, grouped)
	}
	members := r.slots("BOGD++ group slots", count, n)
	count = r.int("BOGD++ individual count", n)
	if r.err == nil && count != n-grouped {
		return r.fail("BOGD++: %d individuals, %d weights are individual", count, n-grouped)
	}
	indiv := r.slots("BOGD++ individual slots", count, n)
	if r.err != nil {
		return r.err
	}
	for k, s := range members {
		if w1[s] == 0 {
			return r.fail("BOGD++: slot %d is listed in the group but has an individual weight", s)
		}
		l.memberPos[s] = int32(k)
	}
	for k, s := range indiv {
		if w1[s] != 0 {
			return r.fail("BOGD++: slot %d is listed as an individual but is in the group", s)
		}
		if k > 0 && l.alpha(indiv[k-1]) > l.alpha(s) {
			return r.fail("BOGD++: individuals not sorted by weight at position %d", k)
		}
	}
	l.members = append(l.members[:0], members...)
	l.indiv = append(l.indiv[:0], indiv...)
	return nil
}

// Forgetron: M (int64), Q (float64), head (int64), the slots from oldest to
// newest (int32 each: ring[(head+k) mod Budget]), and the label of each slot
// in slot order (int8 each).
//
// The ages are saved: nothing else records them. head is kept as it was so
// that the ring is the same array, not a rotation of it. pos is the inverse
// of the ring and is rebuilt; entries of unused slots are never read. buf is
// scratch.
func (l *forgetron) appendState(b []byte) []byte {
	n := l.set.Len()
	b = le.AppendUint64(b, uint64(l.mistakes))
	b = le.AppendUint64(b, math.Float64bits(l.q))
	b = le.AppendUint64(b, uint64(l.head))
	for k := range n {
		b = le.AppendUint32(b, uint32(l.ring[(l.head+k)%l.cfg.Budget]))
	}
	for _, y := range l.labels[:n] {
		b = append(b, byte(y))
	}
	return b
}

func (l *forgetron) loadState(r *reader) error {
	n, budget := l.set.Len(), l.cfg.Budget
	l.mistakes = r.int("Forgetron mistake count", math.MaxInt)
	l.q = r.f64()
	l.head = r.int("Forgetron ring head", budget-1)
	ages := r.slots("Forgetron ages", n, n)
	labels := r.take(n)
	if r.err != nil {
		return r.err
	}
	for k, s := range ages {
		p := (l.head + k) % budget
		l.ring[p], l.pos[s] = int(s), p
	}
	for i, y := range labels {
		if y := int8(y); y != 1 && y != -1 {
			return r.fail("Forgetron: label of support vector %d is %d", i, y)
		}
		l.labels[i] = int8(y)
	}
	return nil
}

// Projectron and Projectron++: α (n float64) and the lower triangle of the
// leading n×n block of K⁻¹, packed by rows (n(n+1)/2 float64: row i holds
// columns 0..i). Format version 1 stored the whole block row-major and, for
// Projectron++, the block of K after it; its lower triangle is read and the
// rest (and K, which the learner no longer keeps) dropped.
//
// Only the leading block exists: vectors are never removed and grow writes
// row n only. K⁻¹ is saved, not rebuilt: it is the result of the incremental
// block updates, whose rounding an inversion would not reproduce. α is saved
// because the float32 weights are rounded copies of it. u depends on the
// budget only and is recomputed by the constructor; k and d are scratch.
func (l *projectron) appendState(b []byte) []byte {
	n := l.set.Len()
	for _, a := range l.alpha[:n] {
		b = le.AppendUint64(b, math.Float64bits(a))
	}
	for _, v := range l.kinv[:tri(n)] {
		b = le.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

func (l *projectron) loadState(r *reader) error {
	n := l.set.Len()
	w := l.set.Weights(0)
	values := tri(n)
	if r.version == 1 {
		values = n * n
		if l.plus {
			values *= 2
		}
	}
	if need := 8 * (n + values); need > len(r.buf) {
		return r.fail("%v: state of %d support vectors needs %d bytes, %d remain", l.algo, n, need, len(r.buf))
	}
	for i := range n {
		l.alpha[i] = r.f64()
		if r.err == nil && float32(l.alpha[i]/l.scale) != w[i] {
			return r.fail("%v: weight %d is %v, its coefficient %v", l.algo, i, w[i], l.alpha[i])
		}
	}
	if r.version > 1 {
		for i := range l.kinv[:tri(n)] {
			l.kinv[i] = r.f64()
		}
		return r.err
	}
	for i := range n {
		for j := range n {
			if v := r.f64(); j <= i {
				l.kinv[tri(i)+j] = v
			}
		}
	}
	for range values - n*n {
		r.f64()
	}
	return r.err
}
