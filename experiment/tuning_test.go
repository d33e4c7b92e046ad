package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/bogd-project/bogd/bogd"
)

// A tuning run as shards (selection, then the held-out runs reading the
// selection shards) and tabulated from the shard files selects what one
// process selects, and reports the same passes.
func TestTuningShardsSelectAsOneProcess(t *testing.T) {
	data := german(t)
	plan := &Plan{
		Cells: []Cell{
			{Dataset: "german", Algo: bogd.BOGDpp, Budget: 20}, {Dataset: "german", Algo: bogd.BOGDpp, Budget: 40},
			{Dataset: "german", Algo: bogd.Perceptron},
		},
		Grid: Grid{Name: "test", LambdaT2: []float64{1}, Eta: []float64{0.25, 1}, Gamma: []float64{1, 4}, Sigma: []float64{8, 16}},
		Runs: 2, SelectRuns: 2, Seed: 1, SelectSeed: 1 + 1<<32, Sigma: 8,
	}
	dir := t.TempDir()
	run := func(e Execution) (*Tuning, error) {
		tu := &Tuning{Plan: plan, Data: data}
		e.Workers = 2
		e.Warn = func(msg string) { t.Errorf("warning: %s", msg) }
		_, err := Execute(context.Background(), &e, tu)
		return tu, err
	}
	must := func(e Execution) *Tuning {
		t.Helper()
		tu, err := run(e)
		if err != nil {
			t.Fatal(err)
		}
		return tu
	}
	whole := must(Execution{Phase: PhaseAll, Results: filepath.Join(dir, "whole.jsonl")})

	const n = 3
	var sel, rep []string
	for k := range n {
		f := filepath.Join(dir, fmt.Sprintf("select-%d.jsonl", k))
		must(Execution{Phase: PhaseSelect, Shard: Shard{k, n}, Results: f})
		sel = append(sel, f)
	}
	for k := range n {
		f := filepath.Join(dir, fmt.Sprintf("report-%d.jsonl", k))
		must(Execution{Phase: PhaseReport, Shard: Shard{k, n}, Results: f, Read: sel})
		rep = append(rep, f)
	}
	// The tables of a part of the report shards: the missing runs named.
	var inc *IncompleteError
	if _, err := run(Execution{Phase: PhaseTables, Read: append(sel, rep[:n-1]...)}); !errors.As(err, &inc) || inc.Phase != StreamReport {
		t.Fatalf("tables without a report shard: %v", err)
	}
	merged := must(Execution{Phase: PhaseTables, Read: append(sel, rep...)})

	if len(merged.Selections) != len(plan.Cells) || len(merged.Reported) != len(plan.Cells) {
		t.Fatalf("%d selections and %d reported cells, want %d", len(merged.Selections), len(merged.Reported), len(plan.Cells))
	}
	for _, c := range plan.Cells {
		w, g := whole.Selections[c], merged.Selections[c]
		if g.Params != w.Params || g.Runs != w.Runs || math.Float64bits(g.Mean) != math.Float64bits(w.Mean) {
			t.Errorf("%v: selected %+v from the shards, %+v in one process", c, g, w)
		}
		if len(merged.Reported[c]) != plan.Runs || len(whole.Reported[c]) != plan.Runs {
			t.Fatalf("%v: %d and %d held-out runs, want %d", c, len(merged.Reported[c]), len(whole.Reported[c]), plan.Runs)
		}
		for r, g := range merged.Reported[c] {
			if w := whole.Reported[c][r]; g.Key() != w.Key() || !sameOutcome(g, w) {
				t.Errorf("%v run %d: %s from the shards, %s in one process", c, r, g.outcome(), w.outcome())
			}
		}
	}
}
