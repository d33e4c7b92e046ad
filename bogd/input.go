package bogd

import (
	"fmt"

	"github.com/bogd-project/bogd/prep"
)

// Input returns how raw rows are prepared for the learner (SetInput); the
// zero Input when they are not.
func (l *Learner) Input() prep.Input { return l.in }

// SetInput records how raw rows are prepared for the learner: feature
// names hashed, features and a regression's labels scaled as its training
// data were (package prep). Learn and Predict take rows already prepared;
// the learner keeps in in its model file and hands it to its Predictors,
// whose PredictRow takes raw rows. It changes nothing the learner
// computes. An Input that does not fit the learner — names hashed into
// other than Config.Dim dimensions, a scaling of another dimension, the
// labels of a classifier scaled — is an error that changes nothing. Like
// Learn, it needs the learner to itself.
func (l *Learner) SetInput(in prep.Input) error {
	cfg := l.b.cfg
	if err := in.Check(cfg.Dim, cfg.Task); err != nil {
		return fmt.Errorf("%v: %w", l.b.algo, err)
	}
	l.in = in
	return nil
}

// input reads the input preparation of a version 4 file, the rest of it,
// into l: one that fits l, and not the zero Input, which Save writes in
// version 3.
func (r *reader) input(l *Learner) error {
	var in prep.Input
	if err := in.UnmarshalBinary(r.take(r.d.Len())); err != nil {
		return r.fail("%v", err)
	}
	if in.IsZero() {
		return r.fail("a version %d file without an input preparation", r.version)
	}
	if err := l.SetInput(in); err != nil {
		return r.fail("%v", err)
	}
	return nil
}
