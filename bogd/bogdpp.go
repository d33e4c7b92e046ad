package bogd

import (
	"slices"

	"github.com/bogd-project/bogd/engine"
)

// nonUniform is BOGD++: Algorithm 1 with the non-uniform sampling of
// Eq. (16). It updates exactly when BOGD does; at the budget it draws the
// support vector to discard with probability pᵢ = 1 − s·αᵢ·√κ(xᵢ,xᵢ),
// s = (B−1)/Σⱼαⱼ√κ(xⱼ,xⱼ), and scales each survivor to
// min((1−λη)/(1−pᵢ)·αᵢ, γη) (Eq. 10). For the Gaussian kernel κ(x,x) = 1.
//
// Eq. (16) gives pᵢ < 0 for a weight above Σα/(B−1) (typically the newest
// one, weight η, next to many small ones). Such pᵢ are clamped to 0 and the
// rest renormalised by water-filling: R is the largest set of smallest
// weights with αᵢ ≤ Σ_R α/(|R|−1) for all i in R (it always has at least
// two members), pᵢ = 1 − s_R·αᵢ on R with s_R = (|R|−1)/Σ_R α, and pᵢ = 0
// outside. Any valid p keeps the estimator unbiased (Eqs. 6 and 8 hold
// for every i), so outside R a weight simply becomes (1−λη)·αᵢ.
//
// Inside R every survivor becomes (1−λη)·αᵢ/(s_R·αᵢ) = (1−λη)·Σ_R α/(|R|−1):
// the same value. The learner keeps those equal weights as one group in
// weight column 1 (value base.group) and the others as individuals in
// column 0 (factor base.scale), sorted by weight. A step then costs the
// number of individuals, not B: R is the group plus a prefix of the sorted
// individuals, found by peeling the largest; the discarded vector is drawn
// from the group in O(1) or from that prefix; and the prefix joins the
// group. Individuals are the vectors added since the last discard plus
// those too heavy to be in R, typically few.
//
// Multi-class and regression: as BOGD (see uniform), every coefficient is
// the vector's weight αᵢ times its pattern, and αᵢ is what the sampling
// reads and rescales. The probabilities of Eq. (16) minimise the variance
// of the removal in the RKHS norm, where a vector contributes
// ‖αᵢ·pᵢ‖₂·√κ(xᵢ,xᵢ); its pattern has the same Euclidean norm (√2 for a
// max-score pair, 1 for a sign) for every vector, so that norm of the
// coefficient vector, its ℓ∞ norm αᵢ and every other norm give the same
// pᵢ: using αᵢ is exact, not an approximation. Unbiasedness holds output
// by output: for each c, E[α'_{i,c}] = (1−λη)·α_{i,c} as in Eqs. (6)–(8).
//
// Projection: ClipEach (default) caps the group value at γη; individuals
// never exceed γη (outside R they only shrink, and a new one starts at
// min(η, γη)). RescaleAll scales everything by min(1, γη/maxᵢαᵢ) as the
// authors' BOGD.m does for uniform sampling. The authors published no
// BOGD++ code.
type nonUniform struct {
	base
	members   []int32 // slots of the group, any order
	memberPos []int32 // memberPos[slot] = index in members, or -1
	indiv     []int32 // slots of the individuals, by increasing weight
}

func newNonUniform(b base) *nonUniform {
	l := &nonUniform{
		base:      b,
		members:   make([]int32, 0, b.cfg.Budget),
		memberPos: make([]int32, b.cfg.Budget),
		indiv:     make([]int32, 0, b.cfg.Budget),
	}
	for i := range l.memberPos {
		l.memberPos[i] = -1
	}
	return l
}

func (l *nonUniform) learn(x *engine.Vector, t target) (updated bool, err error) {
	j, err := l.observe(x, t)
	if err != nil {
		return false, err
	}
	lr := 1 - l.cfg.Eta*l.cfg.Lambda
	if !l.labels.violated(j, true) {
		l.scaleAll(lr)
		return false, nil
	}
	if l.set.Len() < l.cfg.Budget {
		l.scaleAll(lr)
	} else {
		l.discard(lr)
	}
	i, err := l.add(min(l.cfg.Eta*l.labels.gradient(j), l.cfg.Gamma*l.cfg.Eta), j.dir)
	if err != nil {
		return false, err
	}
	l.insertIndividual(i)
	if l.cfg.Projection == RescaleAll {
		largest := 0.0
		if len(l.members) > 0 {
			largest = l.group
		}
		if n := len(l.indiv); n > 0 {
			largest = max(largest, l.alpha(l.indiv[n-1]))
		}
		if limit := l.cfg.Gamma * l.cfg.Eta; largest > limit {
			l.scaleAll(limit / largest)
		}
	}
	return true, nil
}

// scaleAll multiplies every weight by factor.
func (l *nonUniform) scaleAll(factor float64) {
	l.shrink(factor)
	l.group *= factor
}

// alpha returns the weight of individual slot i.
func (l *nonUniform) alpha(i int32) float64 { return l.weight(int(i)) }

// discard performs the at-budget part of Eq. (7)/(10): choose R, draw the
// vector to drop from p, set R's survivors to their common new weight and
// shrink the rest by (1−λη).
func (l *nonUniform) discard(lr float64) {
	groupSize := float64(len(l.members))
	sum := groupSize * l.group
	for _, i := range l.indiv {
		sum += l.alpha(i)
	}
	m := len(l.members) + len(l.indiv)
	top := len(l.indiv) // individuals indiv[:top] are in R
	for {
		heaviest, isGroup := 0.0, false
		if top > 0 {
			heaviest = l.alpha(l.indiv[top-1])
		}
		if len(l.members) > 0 && l.group > heaviest {
			heaviest, isGroup = l.group, true
		}
		// R keeps at least two members (αmax ≤ αmax + αmin) and a sum
		// ≥ 0. The m and max guards only act when rounding broke that:
		// weights many orders of magnitude apart were absorbed into sum,
		// and subtracting the heaviest left 0 or less, which would peel
		// without end.
		if heaviest*float64(m-1) <= sum || m <= 2 {
			break
		}
		if isGroup {
			// Only the newest individual can weigh less than the group,
			// and R keeps its two smallest members, so this needs two
			// lighter individuals: it does not happen, but if rounding
			// ever made it, the group dissolves into individuals and the
			// search starts over.
			l.dissolveGroup()
			l.discard(lr)
			return
		}
		sum = max(sum-heaviest, 0)
		m--
		top--
	}
	s := float64(m-1) / sum
	victim := l.draw(s, top)
	value := min(lr*sum/float64(m-1), l.cfg.Gamma*l.cfg.Eta)
	// R's survivors join the group; the drawn one leaves the set.
	for _, i := range l.indiv[:top] {
		l.join(i)
	}
	l.indiv = slices.Delete(l.indiv, 0, top)
	l.leaveGroup(victim)
	if moved := l.remove(int(victim)); moved >= 0 {
		l.rename(int32(moved), victim)
	}
	l.shrink(lr) // individuals outside R
	l.group = value
}

// draw samples a member of R (the group and indiv[:top]) with probability
// 1 − s·αᵢ.
func (l *nonUniform) draw(s float64, top int) int32 {
	u := l.rng.Float64()
	if n := len(l.members); n > 0 {
		p := float64(n) * max(0, 1-s*l.group)
		if u < p {
			return l.members[l.rng.IntN(n)]
		}
		u -= p
	}
	for _, i := range l.indiv[:top] {
		p := max(0, 1-s*l.alpha(i))
		if u < p {
			return i
		}
		u -= p
	}
	// Rounding left u a hair above the total: take the last member of R.
	if top > 0 {
		return l.indiv[top-1]
	}
	return l.members[len(l.members)-1]
}

// join moves individual slot i into the group.
func (l *nonUniform) join(i int32) {
	l.base.join(int(i))
	l.memberPos[i] = int32(len(l.members))
	l.members = append(l.members, i)
}

// leaveGroup removes slot i from the group (it is about to be discarded).
func (l *nonUniform) leaveGroup(i int32) {
	p := l.memberPos[i]
	last := l.members[len(l.members)-1]
	l.members[p] = last
	l.memberPos[last] = p
	l.members = l.members[:len(l.members)-1]
	l.memberPos[i] = -1
}

// rename records that the vector in slot from moved to slot to.
func (l *nonUniform) rename(from, to int32) {
	if p := l.memberPos[from]; p >= 0 {
		l.members[p] = to
		l.memberPos[to], l.memberPos[from] = p, -1
		return
	}
	l.indiv[slices.Index(l.indiv, from)] = to
}

// insertIndividual adds slot i (a new support vector in column 0) to the
// sorted individuals.
func (l *nonUniform) insertIndividual(i int) {
	a := l.alpha(int32(i))
	at, _ := slices.BinarySearchFunc(l.indiv, a, func(j int32, a float64) int {
		if l.alpha(j) < a {
			return -1
		}
		return 1
	})
	l.indiv = slices.Insert(l.indiv, at, int32(i))
}

// dissolveGroup turns every group member into an individual of the same
// weight.
func (l *nonUniform) dissolveGroup() {
	for _, i := range l.members {
		l.leaveColumns(int(i))
		l.memberPos[i] = -1
		l.insertIndividual(int(i))
	}
	l.members = l.members[:0]
}

// leaveColumns moves group member i back to the free weight columns with
// its current weight base.group.
func (l *nonUniform) leaveColumns(i int) {
	p := l.pat[i]
	for o := range l.outputs {
		if p.sign(o) != 0 {
			l.set.WeightColumn(l.outputs + o)[i] = 0
		}
	}
	l.setFree(i, l.group, p)
}
