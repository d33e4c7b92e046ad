package eval

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
)

// reliabilityBins is the number of equal-width probability bins of a
// reliability table and of the expected calibration error.
const reliabilityBins = 10

// reliability compares predicted probabilities with what happened, bin by
// bin. A binary classifier's P(+1) is judged against the fraction of +1
// labels; a multi-class classifier's probability of its predicted class
// against how often that class is right (top-label calibration). The
// expected calibration error is Σ_b (n_b/n)·|observed_b − mean p_b|.
type reliability struct {
	classes []int // multi-class: the model's classes; nil: binary
	count   [reliabilityBins]int
	sumP    [reliabilityBins]float64
	hits    [reliabilityBins]float64
}

func newReliability(classes []int) *reliability { return &reliability{classes: classes} }

// add records the probabilities probs of one row (binary: P(+1) alone;
// multi-class: every class's) whose predicted label was predicted and
// true label y.
func (r *reliability) add(probs []float64, y, predicted float64) {
	p, hit := probs[0], y == 1
	if r.classes != nil {
		c, _ := slices.BinarySearch(r.classes, int(predicted))
		p, hit = probs[c], predicted == y
	}
	if math.IsNaN(p) {
		return
	}
	b := min(reliabilityBins-1, int(p*reliabilityBins))
	r.count[b]++
	r.sumP[b] += p
	if hit {
		r.hits[b]++
	}
}

func (r *reliability) rows() int {
	n := 0
	for _, c := range r.count {
		n += c
	}
	return n
}

// ece is the expected calibration error (NaN without rows).
func (r *reliability) ece() float64 {
	n := r.rows()
	if n == 0 {
		return math.NaN()
	}
	var e float64
	for b, c := range r.count {
		if c > 0 {
			e += float64(c) / float64(n) * math.Abs(r.hits[b]/float64(c)-r.sumP[b]/float64(c))
		}
	}
	return e
}

// writeTable writes the reliability table: per bin, the rows, their mean
// probability and the observed frequency.
func (r *reliability) writeTable(w io.Writer) error {
	what, observed := "P(+1)", "fraction +1"
	if r.classes != nil {
		what, observed = "P(predicted class)", "accuracy"
	}
	if _, err := fmt.Fprintf(w, "reliability of the calibrated %s (%d rows):\n", what, r.rows()); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "bin\trows\tmean p\t%s\t\n", observed)
	for b, c := range r.count {
		bin := fmt.Sprintf("[%.1f, %.1f)", float64(b)/reliabilityBins, float64(b+1)/reliabilityBins)
		if b == reliabilityBins-1 {
			bin = bin[:len(bin)-1] + "]"
		}
		if c == 0 {
			fmt.Fprintf(tw, "%s\t0\t-\t-\t\n", bin)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t\n", bin, c, r.sumP[b]/float64(c), r.hits[b]/float64(c))
	}
	return tw.Flush()
}

// minProbability clips the probabilities of the log loss, so that one
// confident mistake costs −ln 10⁻¹⁵ ≈ 34.5 rather than infinity.
const minProbability = 1e-15

// loss is the log loss −ln P(y) of one row of probabilities probs (as
// add takes them) and true label y; a label the model has no class for
// has probability 0.
func (r *reliability) loss(probs []float64, y float64) float64 {
	p := probs[0]
	switch {
	case r.classes == nil && y != 1:
		p = 1 - p
	case r.classes != nil:
		p = 0
		if c, ok := slices.BinarySearch(r.classes, int(y)); ok && float64(int(y)) == y {
			p = probs[c]
		}
	}
	return -math.Log(min(1-minProbability, max(minProbability, p)))
}
