package bogd

import (
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/task"
)

// outcome is one binary learning step as the tests of the update rules
// read it.
type outcome struct {
	Score   float64 // f(x) before the update
	Mistake bool    // the rule's judgment: sgn(Score) ≠ y, with sgn(0) = +1
	Updated bool    // the model changed beyond a uniform shrink
}

// observe learns the binary example (x, y) and reports the step as the
// rule saw it, whatever the calibration.
func (l *Learner) observe(x engine.Vector, y int) (outcome, error) {
	st, err := l.Learn(x, float64(y))
	if err != nil {
		return outcome{}, err
	}
	return outcome{Score: st.Score, Mistake: sign(st.Score) != y, Updated: st.Updated}, nil
}

// score returns f(x) of a learner with one output (binary, regression).
func (l *Learner) score(x engine.Vector) (float64, error) {
	p, err := l.Predict(x)
	return p.Score, err
}

// snapshot freezes the learner's function as an engine.Model, for the
// tests that read its vectors and signed weights: output c is the scaled
// sum of the weight columns of class c; NOGD's is its landmark weights (α
// in phase 1, β = Mᵀw in phase 2's landmark form) or, in its other form,
// folds the linear model into them (output c of landmark i is
// Σ_r w_{c,r}·M_{r,i}); FOGD's is the linear model over its features.
func (l *Learner) snapshot() (*engine.Model, error) {
	b := l.b
	switch r := b.rule.(type) {
	case *nogd:
		mix := make([][]float64, b.outputs)
		for c := range mix {
			mix[c] = make([]float64, b.set.Columns())
			mix[c][c] = 1
			if r.phase2 && !r.landmarkForm() {
				copy(mix[c][b.outputs:], r.w[c*r.rank:(c+1)*r.rank])
			}
		}
		return b.set.SnapshotLinear(mix)
	case *fogd:
		return engine.NewFeatureModel(r.feat, b.outputs, r.w)
	}
	if b.set.Columns() > b.outputs {
		return b.set.Snapshot(b.outputs, b.scale, b.group)
	}
	return b.set.Snapshot(b.outputs, b.scale)
}

// algorithmsFor lists the algorithms defined for task t.
func algorithmsFor(t task.Task) []Algorithm {
	var out []Algorithm
	for _, a := range Algorithms() {
		if a.Supports(t) {
			out = append(out, a)
		}
	}
	return out
}
