package paper

import (
	"slices"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/experiment"
)

// Grids: "full" is the paper's (§3.2), "quick" a coarse one, "tiny" for
// tests.
var Grids = map[string]experiment.Grid{
	"full":  {Name: "full", LambdaT2: experiment.Pow2s(-3, 3), Eta: experiment.Pow2s(-3, 3), Gamma: experiment.Pow2s(0, 4)},
	"quick": {Name: "quick", LambdaT2: []float64{1}, Eta: []float64{0.125, 0.5, 2}, Gamma: []float64{1, 4, 16}},
	"tiny":  {Name: "tiny", LambdaT2: []float64{1}, Eta: []float64{0.25, 1}, Gamma: []float64{1, 4}},
}

// QuickDatasets are the datasets of quick mode.
var QuickDatasets = []string{"german", "spambase", "w8a", "magic04"}

// QuickSkip leaves Projectron and Projectron++ out of quick mode where one
// pass takes from seconds (magic04, B=500) to minutes: their updates cost
// O(B²).
var QuickSkip = []string{
	"magic04:projectron", "magic04:projectron++", "ijcnn1:projectron", "ijcnn1:projectron++",
	"codrna:projectron", "codrna:projectron++",
}

// Options is the whole configuration of a reproduction.
type Options struct {
	// What is computed: every one of these shapes the job list, so shards
	// and resumed runs must agree on them.
	DatasetsDir string
	Datasets    []Dataset // with Budgets possibly overridden
	Algorithms  []bogd.Algorithm
	Runs        int // reported permutations per cell
	SelectRuns  int // selection permutations per grid point
	Grid        experiment.Grid
	Seed        uint64 // report stream
	SelectSeed  uint64 // selection stream
	Sigma       float64
	Projection  bogd.Projection
	Skip        []string // "dataset:algorithm" pairs left out
	Quick       bool

	// How and where: phases, shard, workers, results files, progress and
	// warnings (torn lines, other rule versions, dataset sizes).
	experiment.Execution
	OutDir      string // paper.md and plots/
	Plots       bool
	CommandLine string // for the report's header
}

// skipped reports whether the options leave algorithm a out on dataset d.
func (o *Options) skipped(d Dataset, a bogd.Algorithm) bool {
	return slices.Contains(o.Skip, d.Name+":"+a.String())
}

// Cells lists the cells of the options in table order.
func (o *Options) Cells() []experiment.Cell {
	var out []experiment.Cell
	for _, d := range o.Datasets {
		for _, a := range Algorithms {
			if !slices.Contains(o.Algorithms, a) || o.skipped(d, a) {
				continue
			}
			if !a.Budgeted() {
				out = append(out, experiment.Cell{Dataset: d.Name, Algo: a})
				continue
			}
			for _, b := range d.Budgets {
				out = append(out, experiment.Cell{Dataset: d.Name, Algo: a, Budget: b})
			}
		}
	}
	return out
}

// Plan is the job list of the options.
func (o *Options) Plan() *experiment.Plan {
	return &experiment.Plan{
		Cells: o.Cells(), Grid: o.Grid, Runs: o.Runs, SelectRuns: o.SelectRuns,
		Seed: o.Seed, SelectSeed: o.SelectSeed, Sigma: o.Sigma, Projection: o.Projection,
		Order: Order,
	}
}
