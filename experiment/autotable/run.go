package autotable

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/experiment/lsokl"
	"github.com/bogd-project/bogd/task"
)

// Options is the whole configuration of a table.
type Options struct {
	DatasetsDir string
	Datasets    []Dataset
	Budget      int
	Runs        int // held-out (report) permutations of every learner
	SelectRuns  int // selection permutations per grid point
	Seed        uint64
	SelectSeed  uint64
	Workers     int
	Results     string // the results file of every pass (experiment.Store)
	Resume      bool   // continue Results; else it must not exist
	Progress    experiment.Progress
	Warn        func(string)
}

// The protocol's constants.
const (
	// MedianSample and MedianSeed are the sample of experiment.MedianDistance
	// that sets σ: bogdbench's --sigma auto.
	MedianSample = 1000
	MedianSeed   = 1
	// WidthLo and WidthHi are the exponents k of the tuned learners' kernel
	// widths, the median distance times 2ᵏ: a superset of auto's dictionary
	// (k = −4 … 1) and of bogdbench tune's candidates (8 and 1/8 … 1 times
	// the median; 8 is about 4 times the median on data scaled to [−1, 1]).
	WidthLo, WidthHi = -4, 2
	// ScaledSuffix marks the data sets of the runs' keys as scaled by
	// MaxAbs.
	ScaledSuffix = ".maxabs"
)

// Epsilons are the ε of the regression losses the tuned learners are run
// with, each a plan of its own: bogdbench's default 0.1, and 0 (the plain
// squared loss), which fits the [0, 1]-scaled labels more closely. Each
// learner keeps the one its selection runs prefer.
var Epsilons = []float64{0, 0.1}

// TunedAlgorithms lists the learners tuned for task t: every budgeted algorithm
// defined for t but Auto (the Perceptron, OGD and NORMA keep every
// example and have no budget to compare at).
func TunedAlgorithms(t task.Task) []bogd.Algorithm {
	var out []bogd.Algorithm
	for _, a := range bogd.Algorithms() {
		if a != bogd.Auto && a.Budgeted() && a.Supports(t) {
			out = append(out, a)
		}
	}
	return out
}

// Grid is the parameter grid of task t's tuned learners on data of rows
// rows and dim features: the LSOKL study's (η from 0.0002 to 2, λ, γ and
// C each over three values), whose η set holds FOGD's default step; on
// data of more than FullGridRows rows or FullGridValues values a quick form, γ = 10 only and λ
// ∈ {1/T², 10⁻⁴} (BSGD-merge's default; BOGD, BOGD++ and BOGD-oldest then
// run 10 points per width instead of 45), which keeps a table within
// hours on two shared cores.
func Grid(t task.Task, rows, dim int) experiment.Grid {
	g := lsokl.Binary.Grid
	switch t {
	case task.Multiclass:
		g = lsokl.Multiclass.Grid
	case task.Regression:
		g = lsokl.Regression.Grid
	}
	if rows > FullGridRows || rows*dim > FullGridValues {
		g.Name += "-quick"
		g.AbsLambda, g.Gamma = []float64{1e-4}, []float64{10}
	}
	return g
}

// FullGridRows and FullGridValues are the largest rows and rows ×
// features of the data sets tuned over the full grid.
const (
	FullGridRows   = 10_000
	FullGridValues = 2_000_000
)

// Widths are the kernel widths of the tuned learners: the median distance
// times 2^WidthLo … 2^WidthHi, to three significant digits.
func Widths(median float64) []float64 {
	var out []float64
	for k := WidthLo; k <= WidthHi; k++ {
		out = append(out, significant(math.Ldexp(median, k), 3))
	}
	return out
}

// significant rounds x > 0 to n significant digits.
func significant(x float64, n int) float64 {
	scale := math.Pow(10, float64(n-1)-math.Floor(math.Log10(x)))
	return math.Round(x*scale) / scale
}

// prepared is one data set ready to run: its scaled rows and its plans.
type prepared struct {
	spec   Dataset
	data   *dataset.Dataset
	median float64
	tuned  []*experiment.Plan // one per ε (regression), else one
	auto   *experiment.Plan
}

// prepare reads and scales data set d and makes its plans.
func (o *Options) prepare(d Dataset) (*prepared, error) {
	raw, err := dataset.ReadFile(filepath.Join(o.DatasetsDir, d.File), dataset.Options{Task: d.Task, Warn: o.Warn})
	if err != nil {
		return nil, err
	}
	scaled, err := MaxAbs(raw)
	if err != nil {
		return nil, err
	}
	scaled.Name = d.Name + ScaledSuffix
	median := experiment.MedianDistance(scaled, MedianSample, MedianSeed)
	if !(median > 0) {
		return nil, fmt.Errorf("%s: the median distance between rows is %v: no scale to set the widths by", d.File, median)
	}
	p := &prepared{spec: d, data: scaled, median: median}
	t := scaled.Task
	base := experiment.Plan{
		Runs: o.Runs, SelectRuns: o.SelectRuns, Seed: o.Seed, SelectSeed: o.SelectSeed,
		Sigma: significant(median, 3), Task: t, Order: o.order(), Nu: lsokl.Regression.Nu,
	}
	epsilons := []float64{0}
	if t == task.Regression {
		epsilons = Epsilons
	}
	for _, eps := range epsilons {
		plan := base
		plan.Grid = Grid(t, scaled.Len(), scaled.Dim)
		plan.Grid.Sigma = Widths(median)
		plan.Epsilon = eps
		for _, a := range TunedAlgorithms(t) {
			plan.Cells = append(plan.Cells, experiment.Cell{Dataset: scaled.Name, Algo: a, Budget: o.Budget})
		}
		p.tuned = append(p.tuned, &plan)
	}
	auto := base
	auto.Cells = []experiment.Cell{{Dataset: scaled.Name, Algo: bogd.Auto, Budget: o.Budget}}
	p.auto = &auto
	return p, nil
}

// order ranks the data sets of the options, for the job lists.
func (o *Options) order() experiment.Ranking {
	var r experiment.Ranking
	for _, d := range o.Datasets {
		r = append(r, d.Name+ScaledSuffix)
	}
	return r
}

// Run computes the table: the passes not in the results yet, then the
// trivial predictor's and the calibrated auto's passes (not stored: they
// take a fraction of a second).
func Run(ctx context.Context, o *Options) (*Table, error) {
	if len(o.Datasets) == 0 {
		return nil, errors.New("autotable: no data sets")
	}
	var sets []*prepared
	data := map[string]*dataset.Dataset{}
	for _, d := range o.Datasets {
		p, err := o.prepare(d)
		if err != nil {
			return nil, err
		}
		sets = append(sets, p)
		data[p.data.Name] = p.data
	}
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	st, err := experiment.OpenStore(o.Results, o.Resume, warn)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	runner := experiment.Runner{Store: st, Data: data, Workers: o.Workers, Progress: o.Progress}
	var selectJobs []experiment.Job
	for _, p := range sets {
		for _, plan := range p.tuned {
			selectJobs = append(selectJobs, plan.SelectJobs()...)
		}
	}
	if _, err := runner.Run(ctx, experiment.PhaseSelect, selectJobs); err != nil {
		return nil, err
	}
	sels := map[*experiment.Plan]map[experiment.Cell]experiment.Selection{}
	var tuned []*experiment.Plan
	for _, p := range sets {
		for _, plan := range append(slices.Clone(p.tuned), p.auto) {
			s, err := plan.Selections(st.ResultSet)
			if err != nil {
				return nil, err
			}
			sels[plan] = s
		}
		tuned = append(tuned, p.tuned...)
	}
	extended, extensionJobs, err := extend(ctx, &runner, st.ResultSet, tuned, sels)
	if err != nil {
		return nil, err
	}
	var reportJobs []experiment.Job
	for _, p := range sets {
		for _, plan := range append(slices.Clone(p.tuned), p.auto) {
			reportJobs = append(reportJobs, plan.ReportJobs(sels[plan])...)
		}
	}
	if _, err := runner.Run(ctx, experiment.PhaseReport, reportJobs); err != nil {
		return nil, err
	}
	tab := &Table{Budget: o.Budget, Runs: o.Runs, SelectRuns: o.SelectRuns}
	seen := map[experiment.Key]bool{}
	for _, j := range slices.Concat(selectJobs, extensionJobs, reportJobs) {
		if seen[j.Key] {
			continue // an extension repeats the point it starts from
		}
		seen[j.Key] = true
		rec, _ := st.Get(j.Key) // every one is there: the runs completed
		tab.PassSeconds += rec.Seconds
		tab.used = append(tab.used, rec)
	}
	tab.Passes = len(tab.used)
	order := o.order()
	slices.SortFunc(tab.used, func(a, b *experiment.Record) int { return order.Compare(a.Key(), b.Key()) })
	for _, p := range sets {
		row, err := o.row(ctx, p, sels, extended, st.ResultSet)
		if err != nil {
			return nil, err
		}
		tab.Rows = append(tab.Rows, row)
	}
	return tab, st.Close()
}

// row gathers the figures of one data set.
func (o *Options) row(ctx context.Context, p *prepared, sels map[*experiment.Plan]map[experiment.Cell]experiment.Selection, extended map[*experiment.Plan]map[experiment.Cell][]string, rs *experiment.ResultSet) (Row, error) {
	d := p.data
	r := Row{Dataset: p.spec.Name, Note: p.spec.Note, Task: d.Task.String(), Rows: d.Len(), Dim: d.Dim, Median: p.median, Sigma: p.auto.Sigma}
	autoRuns, err := p.auto.Reported(sels[p.auto], rs)
	if err != nil {
		return r, err
	}
	s := summarize(autoRuns[p.auto.Cells[0]], d)
	r.Auto, r.AutoStd, r.AutoSeconds = s.Metric, s.MetricStd, s.Seconds
	if d.Task != task.Regression {
		if r.AutoCalibrated, err = o.calibrated(ctx, p); err != nil {
			return r, err
		}
	}
	r.Trivial = o.trivial(d)
	// Each learner's selection: its best grid point over every plan (ε),
	// by the selection runs' mean; its held-out runs are then reported.
	reported := map[*experiment.Plan]map[experiment.Cell][]*experiment.Record{}
	for _, plan := range p.tuned {
		if reported[plan], err = plan.Reported(sels[plan], rs); err != nil {
			return r, err
		}
	}
	for _, a := range TunedAlgorithms(d.Task) {
		var best *Tuned
		for _, plan := range p.tuned {
			c := experiment.Cell{Dataset: d.Name, Algo: a, Budget: o.Budget}
			sel := sels[plan][c]
			if best != nil && !(sel.Mean < best.Selection) {
				continue
			}
			s := summarize(reported[plan][c], d)
			best = &Tuned{
				Algorithm: a.String(), Params: sel.Params.Describe(a, d.Task), Sigma: sel.Params.Sigma, Epsilon: plan.Epsilon,
				Selection: sel.Mean, Metric: s.Metric, Std: s.MetricStd, Seconds: s.Seconds, Extended: extended[plan][c],
			}
		}
		r.Tuned = append(r.Tuned, *best)
	}
	r.judge()
	return r, nil
}

// summarize aggregates the reported passes of a cell over data d.
func summarize(recs []*experiment.Record, d *dataset.Dataset) experiment.Summary {
	passes := make([]experiment.Result, len(recs))
	for i, rec := range recs {
		passes[i] = rec.Result
	}
	return experiment.Summarize(passes, d.Len(), d.Task)
}

// calibrated is the mean metric of auto with calibrated probabilities
// (Config.Calibrate, bogdbench's default for classifiers: it predicts the
// most probable label) over the report permutations.
func (o *Options) calibrated(ctx context.Context, p *prepared) (float64, error) {
	d := p.data
	var sum float64
	for r := range o.Runs {
		l, err := bogd.New(bogd.Auto, bogd.Config{
			Dim: d.Dim, Budget: o.Budget, Sigma: p.auto.Sigma, Seed: experiment.LearnerSeed(o.Seed, r),
			Task: d.Task, Classes: d.Classes, Calibrate: true,
		})
		if err != nil {
			return 0, err
		}
		res, err := experiment.Pass(ctx, experiment.Bind(l, d), experiment.Permutation(o.Seed, r, d.Len()), nil)
		if err != nil {
			return 0, err
		}
		sum += res.Metric(d.Len(), d.Task)
	}
	return sum / float64(o.Runs), nil
}

// trivial is the mean metric of the trivial predictor over the report
// permutations: progressive validation of the most frequent label so far
// (+1 on a binary tie, the lowest class on a multi-class one) or of the
// mean of the labels so far (0 before the first), as auto's trivial expert
// predicts.
func (o *Options) trivial(d *dataset.Dataset) float64 {
	var sum float64
	for r := range o.Runs {
		var loss, mean float64
		counts := map[float64]int{}
		best := 0.0 // the predicted label
		if d.Task == task.Multiclass {
			best = float64(d.Classes[0])
		} else if d.Task == task.Binary {
			best = 1
		}
		for i, row := range experiment.Permutation(o.Seed, r, d.Len()) {
			y := d.Labels[row]
			if d.Task == task.Regression {
				loss += (y - mean) * (y - mean)
				mean += (y - mean) / float64(i+1)
				continue
			}
			if y != best {
				loss++
			}
			counts[y]++
			switch {
			case d.Task == task.Binary:
				best = 1
				if counts[-1] > counts[1] {
					best = -1
				}
			case counts[y] > counts[best] || counts[y] == counts[best] && y < best:
				best = y // only y's count moved: the argmax is y or stays
			}
		}
		sum += loss / float64(d.Len())
	}
	if d.Task != task.Regression {
		sum *= 100
	}
	return sum / float64(o.Runs)
}
