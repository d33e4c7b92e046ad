package lsokl

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/experiment"
)

// Options is the whole configuration of one table's reproduction.
type Options struct {
	// What is computed: every one of these shapes the job list, so shards
	// and resumed runs must agree on them.
	Table       *Table
	DatasetsDir string
	Datasets    []Dataset // of the table, possibly fewer
	Algorithms  []bogd.Algorithm
	Budgets     []int // every dataset's; nil: each its paper's B (Table.Budgets if set)
	Runs        int   // reported permutations per cell
	SelectRuns  int   // selection permutations per grid point
	Grid        experiment.Grid
	Seed        uint64 // report stream
	SelectSeed  uint64 // selection stream
	Quick       bool

	// How and where: phases, shard, workers, results files, progress and
	// warnings.
	experiment.Execution
	OutDir      string // ReportName and plots/
	Plots       bool
	CommandLine string // for the report's header
}

// QuickRows bounds the datasets of quick mode: only those with at most
// this many rows run.
const QuickRows = 10000

// QuickGrid is the coarse grid of quick mode: the paper's η set, and one
// value of every other parameter (the toolbox's driver setting).
func (t *Table) QuickGrid() experiment.Grid {
	g := t.Grid
	g.Name += "-quick"
	g.LambdaT2, g.AbsLambda = g.LambdaT2[:1], nil
	g.Gamma, g.C = []float64{10}, []float64{1}
	return g
}

// ParseAlgorithms parses the table's algorithm names: a name this build
// does not know is an error naming it.
func (t *Table) ParseAlgorithms() ([]bogd.Algorithm, error) {
	var out []bogd.Algorithm
	for _, name := range t.Algorithms {
		a, err := bogd.ParseAlgorithm(name)
		if err != nil {
			return nil, fmt.Errorf("table %d (%s) needs %s, which this build lacks: %w", t.Number, t.Name, name, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// budgets are the budgets of dataset d's cells.
func (o *Options) budgets(d Dataset) []int {
	switch {
	case o.Budgets != nil:
		return o.Budgets
	case o.Table.Budgets != nil:
		return o.Table.Budgets
	}
	return []int{d.Budget}
}

// Cells lists the cells of the options in table order: per dataset, per
// algorithm (in the table's order), per budget (one cell without one).
func (o *Options) Cells() []experiment.Cell {
	var out []experiment.Cell
	for _, d := range o.Datasets {
		for _, a := range o.Algorithms {
			if !a.Budgeted() {
				out = append(out, experiment.Cell{Dataset: d.Name, Algo: a})
				continue
			}
			for _, b := range o.budgets(d) {
				out = append(out, experiment.Cell{Dataset: d.Name, Algo: a, Budget: b})
			}
		}
	}
	return out
}

// Width names the two ways the kernel width is set.
type Width int

const (
	// FixedWidth is the paper's σ = 8 everywhere.
	FixedWidth Width = iota
	// SelectedWidth selects σ among Dataset.Widths with the other
	// parameters, on the held-out permutations.
	SelectedWidth
	// PaperScaleWidth is Dataset.PaperScale, the paper's σ = 8 on its
	// copy's scale, on the datasets that have one: the paper's setting
	// where only the feature scale of the copies differs.
	PaperScaleWidth
)

func (w Width) String() string {
	switch w {
	case SelectedWidth:
		return "σ selected"
	case PaperScaleWidth:
		return "σ = 8 on the paper's feature scale"
	}
	return "σ = 8"
}

// widths lists the width settings of the options: PaperScaleWidth only
// where a dataset has a PaperScale.
func (o *Options) widths() []Width {
	ws := []Width{FixedWidth, SelectedWidth}
	if slices.ContainsFunc(o.Datasets, func(d Dataset) bool { return d.PaperScale != 0 }) {
		ws = append(ws, PaperScaleWidth)
	}
	return ws
}

// Plan is the job list of width setting FixedWidth or SelectedWidth
// (PaperScaleWidth has one per scaling: paperScalePlans).
func (o *Options) Plan(w Width) *experiment.Plan {
	t := o.Table
	p := &experiment.Plan{
		Cells: o.Cells(), Grid: o.Grid, Runs: o.Runs, SelectRuns: o.SelectRuns,
		Seed: o.Seed, SelectSeed: o.SelectSeed, Sigma: PaperSigma, Order: Order,
		Task: t.Task, Scaling: t.Scaling, Epsilon: t.Epsilon, Nu: t.Nu,
		RankFactor: t.RankFactor, FeatureFactor: t.FeatureFactor,
	}
	if w == SelectedWidth {
		p.Widths = map[string][]float64{}
		for _, d := range o.Datasets {
			p.Widths[d.Name] = d.Widths()
		}
	}
	return p
}

// paperScalePlans are the plans of PaperScaleWidth: every dataset with a
// PaperScale at that width, as read (mnist, letter) or scaled as the
// paper's copy was (shuttle: its own dataset name, paperCopy, and
// scaling).
func (o *Options) paperScalePlans() []*experiment.Plan {
	var out []*experiment.Plan
	for _, scaling := range []string{"", experiment.ScalingMinMax} {
		p := o.Plan(FixedWidth)
		p.Scaling, p.Cells, p.Widths = cmp.Or(scaling, o.Table.Scaling), nil, map[string][]float64{}
		for _, d := range o.Datasets {
			if d.PaperScale == 0 || d.PaperScaling != scaling {
				continue
			}
			p.Widths[d.paperCopy()] = []float64{d.PaperScale}
			for _, c := range o.Cells() {
				if c.Dataset == d.Name {
					c.Dataset = d.paperCopy()
					p.Cells = append(p.Cells, c)
				}
			}
		}
		if len(p.Cells) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// plans are the plans of width setting w.
func (o *Options) plans(w Width) []*experiment.Plan {
	if w == PaperScaleWidth {
		return o.paperScalePlans()
	}
	return []*experiment.Plan{o.Plan(w)}
}

// Plans are the width settings' plans (experiment.Study): their shared
// jobs (σ = 8 in both of the first two) run once.
func (o *Options) Plans() []*experiment.Plan {
	var out []*experiment.Plan
	for _, w := range o.widths() {
		out = append(out, o.plans(w)...)
	}
	return out
}

// ours reports whether algorithm a is one of the table's additions.
func (o *Options) ours(a bogd.Algorithm) bool { return slices.Contains(o.Table.Ours, a.String()) }
