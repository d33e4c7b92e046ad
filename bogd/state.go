package bogd

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/bogd-project/bogd/task"
)

// The algorithm-specific part of a model file (persist.go has the rest).
// Each learner saves what its future steps read and cannot be recomputed
// bit for bit from the support set, and rebuilds the rest exactly on load;
// loadState also checks every invariant its learning relies on, so that a
// file with a valid checksum but invented contents is an error, never a
// panic. Slot numbers are int32, counts int64, all little-endian.

var le = binary.LittleEndian

// The Perceptron, OGD and RBP keep nothing besides the set, the scale, the
// random state and the patterns.

func (l *perceptron) appendState(b []byte) []byte { return b }
func (l *perceptron) loadState(*reader) error     { return nil }
func (l *ogd) appendState(b []byte) []byte        { return b }
func (l *ogd) loadState(*reader) error            { return nil }
func (l *rbp) appendState(b []byte) []byte        { return b }
func (l *rbp) loadState(*reader) error            { return nil }

// NORMA: the current ε (float64).
func (l *norma) appendState(b []byte) []byte { return le.AppendUint64(b, math.Float64bits(l.eps)) }

func (l *norma) loadState(r *reader) error {
	l.eps = r.f64()
	return r.d.Err()
}

// BOGDOldest: the ages, as the Forgetron's (appendAges).
func (l *oldest) appendState(b []byte) []byte { return appendAges(b, &l.age, l.set.Len()) }

func (l *oldest) loadState(r *reader) error { return loadAges(r, &l.age, l.set.Len(), l.cfg.Budget) }

// appendAges appends a FIFO of n vectors: head (int64), then the slots from
// oldest to newest (int32 each). head is kept as it was, so that the ring
// is the same array, not a rotation of it; pos is the inverse of the ring
// and is rebuilt (entries of unused slots are never read).
func appendAges(b []byte, q *fifo, n int) []byte {
	b = le.AppendUint64(b, uint64(q.head))
	for k := range n {
		b = le.AppendUint32(b, uint32(q.slot(k)))
	}
	return b
}

func loadAges(r *reader, q *fifo, n, budget int) error {
	head := r.int("ring head", budget-1)
	ages := r.slots("ages", n, n)
	if r.d.Err() != nil {
		return r.d.Err()
	}
	q.restore(head, ages)
	return nil
}

// BOGD: the free weights' slots (count, then slots) in max-heap order, the
// largest key first.
//
// They are a function of the weights: free are the vectors that are not
// capped. Earlier versions saved their max-heap of free weights in its own
// order, which this format keeps: the slots sorted by key, largest first,
// are one such order, so every version reads every other's files. Loading
// checks the list; its order is kept only to save the model unchanged.
//
// A vector is capped exactly when its column-1 weight is non-zero (project
// sets it to ±1 and zeroes column 0; Add zeroes column 1 of a new vector;
// the swap-remove moves both), so loading checks the list against the
// stored weights.
func (l *uniform) appendState(b []byte) []byte { return appendSlots(b, l.free.slots()) }

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
	grouped, err := l.groups(r)
	if err != nil {
		return err
	}
	free := 0
	for _, g := range grouped {
		if !g {
			free++
		}
	}
	count := r.int("BOGD heap size", n)
	if r.d.Err() == nil && count != free {
		return r.fail("BOGD: heap of %d slots, %d weights are free", count, free)
	}
	slots := r.slots("BOGD heap slots", count, n)
	if r.d.Err() != nil {
		return r.d.Err()
	}
	for k, s := range slots {
		if grouped[s] || l.free.keys[s] != notFree {
			return r.fail("BOGD: capped or repeated slot %d in the heap of free weights", s)
		}
		if k > 0 && l.key(slots[(k-1)/2]) < l.key(s) {
			return r.fail("BOGD: heap order broken at position %d", k)
		}
		l.free.add(int(s), l.key(s))
	}
	l.free.loaded = slots
	return nil
}

// groups checks the two groups of weight columns of BOGD and BOGD++ and
// returns which support vectors are in the second (capped, or the equal
// group). A vector is in exactly one: in the second its weights are its
// pattern (±1, scaled by base.group), in the first ±w with one magnitude on
// its pattern's outputs, within γη as every step leaves them (the
// projection clips them, the group shrinks or is capped at γη before it
// dissolves into them), with the tolerance of float32 rounding. The
// patterns were checked already: weights are zero off them.
func (b *base) groups(r *reader) ([]bool, error) {
	k, n := b.outputs, b.set.Len()
	grouped := make([]bool, n)
	limit := b.cfg.Gamma * b.cfg.Eta * (1 + 1e-5)
	for i := range n {
		p := b.pat[i]
		lead := p.lead()
		fv, gv := b.set.WeightColumn(lead)[i], b.set.WeightColumn(k + lead)[i]
		switch {
		case gv == 0:
			if b.scale*math.Abs(float64(fv)) > limit {
				return nil, r.fail("%v: weight %d is %v, above γη = %v", b.algo, i, b.scale*float64(fv), b.cfg.Gamma*b.cfg.Eta)
			}
		case math.Abs(float64(gv)) != 1:
			return nil, r.fail("%v: group weight %d is %v, want 0 or ±1", b.algo, i, gv)
		case fv != 0:
			return nil, r.fail("%v: support vector %d has both a free weight %v and a group weight", b.algo, i, fv)
		default:
			grouped[i] = true
		}
		if off := k * boolInt(grouped[i]); p.pos >= 0 && p.neg >= 0 &&
			b.set.WeightColumn(off + int(p.pos))[i] != -b.set.WeightColumn(off + int(p.neg))[i] {
			return nil, r.fail("%v: support vector %d has unequal weights on its two outputs", b.algo, i)
		}
	}
	return grouped, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
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
	inGroup, err := l.groups(r)
	if err != nil {
		return err
	}
	grouped := 0
	for _, g := range inGroup {
		if g {
			grouped++
		}
	}
	count := r.int("BOGD++ group size", n)
	if r.d.Err() == nil && count != grouped {
		return r.fail("BOGD++: group of %d slots, %d weights are in the group column", count, grouped)
	}
	members := r.slots("BOGD++ group slots", count, n)
	count = r.int("BOGD++ individual count", n)
	if r.d.Err() == nil && count != n-grouped {
		return r.fail("BOGD++: %d individuals, %d weights are individual", count, n-grouped)
	}
	indiv := r.slots("BOGD++ individual slots", count, n)
	if r.d.Err() != nil {
		return r.d.Err()
	}
	for k, s := range members {
		if !inGroup[s] {
			return r.fail("BOGD++: slot %d is listed in the group but has an individual weight", s)
		}
		l.memberPos[s] = int32(k)
	}
	for k, s := range indiv {
		if inGroup[s] {
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

// Forgetron: M (int64), Q (float64), the ages (appendAges), and the label
// of each slot in slot order (int32 each: the binary label ±1, the class
// index, or 0 in regression; versions 1 and 2 wrote binary labels as int8).
// The ages are saved: nothing else records them. buf, fr and frSums are
// scratch.
func (l *forgetron) appendState(b []byte) []byte {
	n := l.set.Len()
	b = le.AppendUint64(b, uint64(l.mistakes))
	b = le.AppendUint64(b, math.Float64bits(l.q))
	b = appendAges(b, &l.age, n)
	for _, y := range l.classOf[:n] {
		b = le.AppendUint32(b, uint32(y))
	}
	return b
}

func (l *forgetron) loadState(r *reader) error {
	n := l.set.Len()
	l.mistakes = r.int("Forgetron mistake count", math.MaxInt)
	l.q = r.f64()
	if err := loadAges(r, &l.age, n, l.cfg.Budget); err != nil {
		return fmt.Errorf("%v: %w", Forgetron, err)
	}
	for i := range n {
		var y int32
		if r.version < 3 {
			y = int32(int8(r.u8()))
		} else {
			y = int32(r.u32())
		}
		if r.d.Err() != nil {
			return r.d.Err()
		}
		if !l.validLabel(y) {
			return r.fail("Forgetron: label of support vector %d is %d", i, y)
		}
		l.classOf[i] = y
	}
	return nil
}

// validLabel reports whether y can be a stored label of the task.
func (l *forgetron) validLabel(y int32) bool {
	switch l.labels.task {
	case task.Binary:
		return y == 1 || y == -1
	case task.Multiclass:
		return y >= 0 && int(y) < l.outputs
	}
	return y == 0
}

// Projectron and Projectron++: α (n·K float64, support vector after
// support vector, K per vector: K classes, or 1) and the lower triangle of
// the leading n×n block of K⁻¹, packed by rows (n(n+1)/2 float64: row i
// holds columns 0..i). Format version 1 stored the whole block row-major
// and, for Projectron++, the block of K after it; its lower triangle is
// read and the rest (and K, which the learner no longer keeps) dropped.
//
// Only the leading block exists: vectors are never removed and grow writes
// row n only. K⁻¹ is saved, not rebuilt: it is the result of the incremental
// block updates, whose rounding an inversion would not reproduce. α is saved
// because the float32 weights are rounded copies of it. u depends on the
// budget only and is recomputed by the constructor; kx and d are scratch.
func (l *projectron) appendState(b []byte) []byte {
	b = appendCoefficients(b, l.alpha[:l.set.Len()*l.outputs])
	for _, v := range l.kinv[:tri(l.set.Len())] {
		b = le.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// appendCoefficients appends float64 coefficients.
func appendCoefficients(b []byte, alpha []float64) []byte {
	for _, a := range alpha {
		b = le.AppendUint64(b, math.Float64bits(a))
	}
	return b
}

// loadCoefficients reads the n·K float64 coefficients of the learners that
// keep them beside their float32 weights (the Projectrons, BPA-S), each of
// which must round to its weight: the weights are copies, divided by the
// scale.
func (b *base) loadCoefficients(r *reader, alpha []float64) error {
	n, k := b.set.Len(), b.outputs
	if need := 8 * n * k; need > r.d.Len() {
		return r.fail("%v: %d coefficients need %d bytes, %d remain", b.algo, n*k, need, r.d.Len())
	}
	for i := range n {
		for c := range k {
			a := r.f64()
			alpha[i*k+c] = a
			if w := b.set.WeightColumn(c)[i]; r.d.Err() == nil && float32(a/b.scale) != w {
				return r.fail("%v: weight %d of output %d is %v, its coefficient %v", b.algo, i, c, w, a)
			}
		}
	}
	return r.d.Err()
}

// BPA-S: its coefficients (appendCoefficients).
func (l *bpas) appendState(b []byte) []byte {
	return appendCoefficients(b, l.alpha[:l.set.Len()*l.outputs])
}

func (l *bpas) loadState(r *reader) error { return l.loadCoefficients(r, l.alpha) }

func (l *projectron) loadState(r *reader) error {
	n, k := l.set.Len(), l.outputs
	values := tri(n)
	if r.version == 1 {
		values = n * n
		if l.plus {
			values *= 2
		}
	}
	if need := 8 * (n*k + values); need > r.d.Len() {
		return r.fail("%v: state of %d support vectors needs %d bytes, %d remain", l.algo, n, need, r.d.Len())
	}
	if err := l.loadCoefficients(r, l.alpha); err != nil {
		return err
	}
	if r.version > 1 {
		for i := range l.kinv[:tri(n)] {
			l.kinv[i] = r.f64()
		}
		return r.d.Err()
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
	return r.d.Err()
}

// NOGD: the phase (uint8: 1 after the transition), then in phase 2 its
// linear model (K·k float64). The landmarks, α (phase 1) and M's rows
// (phase 2) are the set's weight columns; phase 2's β columns are derived
// again from w and M on loading (restorePhase2).
func (l *nogd) appendState(b []byte) []byte {
	if !l.phase2 {
		return append(b, 0)
	}
	return appendCoefficients(append(b, 1), l.w)
}

func (l *nogd) loadState(r *reader) error {
	l.phase2 = r.bool("NOGD phase")
	if !l.phase2 {
		for c := l.outputs; c < l.set.Columns(); c++ {
			if slicesNonZero(l.set.WeightColumn(c)) {
				return r.fail("NOGD: phase 1 with a Nyström map")
			}
		}
		return r.d.Err()
	}
	if need := 8 * len(l.w); need > r.d.Len() {
		return r.fail("NOGD: its linear model needs %d bytes, %d remain", need, r.d.Len())
	}
	for i := range l.w {
		l.w[i] = r.f64()
	}
	if err := r.d.Err(); err != nil {
		return err
	}
	if err := l.restorePhase2(); err != nil {
		return r.fail("NOGD: %v", err)
	}
	return nil
}

// slicesNonZero reports whether w holds a non-zero value.
func slicesNonZero(w []float32) bool {
	for _, v := range w {
		if v != 0 {
			return true
		}
	}
	return false
}

// BSGD-merge: the number of examples seen (int64), which sets the step
// 1/(λt).
func (l *bsgd) appendState(b []byte) []byte { return le.AppendUint64(b, uint64(l.t)) }

func (l *bsgd) loadState(r *reader) error {
	l.t = r.int("BSGD step count", math.MaxInt)
	return r.d.Err()
}

// FOGD: its weights (K·Len float32 of engine.Features.Len, column-major). Its
// frequencies are drawn again from Config.Seed (fourierStream).
func (l *fogd) appendState(b []byte) []byte {
	for _, w := range l.w {
		b = le.AppendUint32(b, math.Float32bits(w))
	}
	return b
}

func (l *fogd) loadState(r *reader) error {
	if need := 4 * len(l.w); need > r.d.Len() {
		return r.fail("FOGD: %d weights need %d bytes, %d remain", len(l.w), need, r.d.Len())
	}
	for i := range l.w {
		if l.w[i] = r.f32(); r.d.Err() == nil && !finite32(l.w[i]) {
			return r.fail("FOGD: weight %d is %v", i, l.w[i])
		}
	}
	return r.d.Err()
}
