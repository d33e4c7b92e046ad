package eval

import "math"

// rankBins and rankSpan shape the histogram of ranking: rankBins equal
// bins of g(k) = sign(k)·ln(1 + |k|) over [−rankSpan, rankSpan], which
// resolves keys to about 1% of their size from 0 to 9·10⁶ (beyond, they
// share the end bins), in constant memory whatever the rows.
const (
	rankBins = 4096
	rankSpan = 16.0
)

// ranking measures how well a binary classifier's key (the larger, the
// more likely +1) ranks the +1 rows above the −1 rows: the area under the
// ROC curve, the probability that a +1 row's key exceeds a −1 row's, a
// tie counting half. Keys in one bin count as tied, so that the area may
// differ from the exact one by at most half the share of (+1, −1) pairs
// that share a bin.
type ranking struct {
	pos, neg [rankBins]int64
}

// bin is the histogram bin of key k (NaN: the middle, as 0).
func bin(k float64) int {
	if math.IsNaN(k) {
		k = 0
	}
	g := min(rankSpan, max(-rankSpan, math.Copysign(math.Log1p(math.Abs(k)), k)))
	return min(rankBins-1, int((g+rankSpan)/(2*rankSpan)*rankBins))
}

// add records the key k of a row whose label is +1 (positive) or −1.
func (r *ranking) add(k float64, positive bool) {
	if positive {
		r.pos[bin(k)]++
	} else {
		r.neg[bin(k)]++
	}
}

// auc is the area under the ROC curve: NaN unless both labels were seen.
func (r *ranking) auc() float64 {
	var below, pairs, above float64 // −1 rows in lower bins; (+1, −1) pairs; their score
	var negatives float64
	for _, n := range r.neg {
		negatives += float64(n)
	}
	for b := range r.pos {
		p, n := float64(r.pos[b]), float64(r.neg[b])
		above += p * (below + n/2)
		pairs += p * negatives
		below += n
	}
	if pairs == 0 {
		return math.NaN()
	}
	return above / pairs
}

// logit is the log-odds of probability p: the ranking key of a
// calibrated classifier (±Inf at 0 and 1, which share the end bins).
func logit(p float64) float64 { return math.Log(p) - math.Log1p(-p) }
