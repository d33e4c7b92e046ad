package bogd

import (
	"math"
	"slices"
)

// Calibration turns scores into probabilities: Platt scaling for binary
// classification, P(y = +1 | f) = σ(a·f + b), and its multi-class form,
// P(c | f) = softmax_c(a·f_c + b_c) (temperature scaling with a bias per
// class). A learner made with Config.Calibrate fits it online, on the score
// it predicted before each update and the true label, by AdaGrad steps on
// the log loss (each parameter's step divided by the root of its summed
// squared gradients, so that it adapts to the scale of the scores, which
// spans many orders of magnitude across data and kernel widths). It starts
// at a = 1, b = 0: the plain sigmoid (softmax) of the score.
//
// A Calibration is a value: Predictor.Calibration returns a copy, which
// stays valid (and is safe to share) while the learner goes on.
type Calibration struct {
	A float64   // the scale of the scores
	B []float64 // the offset: one (binary) or one per class
	// gA, gB are AdaGrad's sums of squared gradients.
	gA float64
	gB []float64
}

// calibrationRate is AdaGrad's base step.
const calibrationRate = 0.05

// newCalibration starts at the plain sigmoid or softmax for k outputs.
func newCalibration(k int) *Calibration {
	return &Calibration{A: 1, B: make([]float64, k), gB: make([]float64, k)}
}

// clone returns an independent copy.
func (c *Calibration) clone() *Calibration {
	d := *c
	d.B, d.gB = slices.Clone(c.B), slices.Clone(c.gB)
	return &d
}

// Probabilities writes P(class | scores) into dst (resized) and returns it:
// one value, P(y = +1), for one score; one per class for several.
func (c *Calibration) Probabilities(scores, dst []float64) []float64 {
	dst = slices.Grow(dst[:0], len(scores))[:len(scores)]
	if len(scores) == 1 {
		dst[0] = sigmoid(c.A*scores[0] + c.B[0])
		return dst
	}
	largest := math.Inf(-1)
	for i, f := range scores {
		dst[i] = c.A*f + c.B[i]
		largest = max(largest, dst[i])
	}
	var sum float64
	for i, z := range dst {
		dst[i] = math.Exp(z - largest)
		sum += dst[i]
	}
	for i := range dst {
		dst[i] /= sum
	}
	return dst
}

// learn takes one AdaGrad step on the log loss of the example whose scores
// were f and whose class (index, or +1/−1 in binary) is y; p is scratch
// of len(f).
func (c *Calibration) learn(f []float64, y int, p []float64) {
	p = c.Probabilities(f, p)
	// Gradients of −log P(y): with one score, (σ − [y=+1])·(f, 1); with
	// several, Σ_c (p_c − [c=y])·(f_c, e_c).
	var gA float64
	for i := range p {
		target := 0.0
		if len(p) == 1 && y == 1 || len(p) > 1 && i == y {
			target = 1
		}
		r := p[i] - target
		gA += r * f[i]
		c.step(&c.B[i], &c.gB[i], r)
	}
	c.step(&c.A, &c.gA, gA)
}

// step moves parameter x against gradient g, AdaGrad-scaled by the running
// sum *gg of squared gradients.
func (c *Calibration) step(x, gg *float64, g float64) {
	if g == 0 || math.IsNaN(g) || math.IsInf(g, 0) {
		return
	}
	*gg += g * g
	*x -= calibrationRate * g / math.Sqrt(*gg)
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}
