package experiment

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/task"
)

// Plan is the job list of a two-phase experiment:
//
//  1. select: for every cell whose algorithm has parameters, every point of
//     the grid runs over SelectRuns permutations of the selection stream
//     (seed SelectSeed);
//  2. report: every cell runs its selected parameters over Runs
//     permutations of the report stream (seed Seed).
//
// Selection never sees a reported permutation: the streams have different
// seeds and selection reads only records of its own stream.
type Plan struct {
	Cells []Cell // in table order
	Grid  Grid
	// Widths lists, per dataset, the kernel widths its grid points vary
	// in place of Grid.Sigma: a width suits one dataset's scale.
	Widths           map[string][]float64
	Runs, SelectRuns int
	Seed, SelectSeed uint64
	Sigma            float64 // the kernel width of grid points that set none
	Projection       bogd.Projection
	Order            Ranking // of the job lists

	// What the tasks and rules after binary classification fix for every
	// job (zero for binary plans, whose keys stay as they were).
	Task    task.Task
	Scaling string  // how the study scaled its data: "", ScalingMinMax or ScalingMaxAbs
	Epsilon float64 // regression: ε
	Nu      float64 // NORMA's ν
	// RankFactor sets NOGD's k = RankFactor·B, FeatureFactor FOGD's
	// D = FeatureFactor·B (rounded; 0: the learner's default).
	RankFactor, FeatureFactor float64

	// Extra lists points that cells try beyond their grid's: a tuning
	// adds the point beyond an edge of a cell's selection (Tuning.Run).
	Extra map[Cell][]Params
	// Explode, when positive, is the metric above which a pass counts as
	// diverged, as one whose loss was not finite: its grid point is never
	// selected. (A regression's MSE far above the trivial predictor's
	// has exploded: its predictions left the labels' range.)
	Explode float64
	// KeepGoing puts a cell out of the plan (Failed) when one of its jobs
	// fails, or when every point of its grid diverged, and lets the other
	// cells go on: without it, a failing job stops the run, and a cell
	// whose every point diverged selects the first.
	KeepGoing bool
	failed    map[Cell]error
}

// Failed returns the cells that KeepGoing put out of the plan, with why.
func (p *Plan) Failed() map[Cell]error { return p.failed }

// fail puts cell c out of the plan, for the first reason given.
func (p *Plan) fail(c Cell, err error) {
	if p.failed == nil {
		p.failed = map[Cell]error{}
	}
	if _, ok := p.failed[c]; !ok {
		p.failed[c] = err
	}
}

// Check reports a cell whose algorithm reads a parameter that its grid
// gives no value of: it has no grid point to run.
func (p *Plan) Check() error {
	for _, c := range p.Cells {
		if missing := p.CellGrid(c).Missing(c.Algo, p.Task); len(missing) > 0 {
			return fmt.Errorf("%v reads %s, but the grid %q lists no value of it", c, strings.Join(missing, " and "), p.Grid.Name)
		}
	}
	return nil
}

// ProjectionName is the name of a BOGD/BOGD++ projection in records and on
// command lines.
func ProjectionName(p bogd.Projection) string {
	if p == bogd.RescaleAll {
		return "rescale"
	}
	return "clip"
}

// ParseProjection reads a name of ProjectionName.
func ParseProjection(s string) (bogd.Projection, error) {
	switch s {
	case "clip":
		return bogd.ClipEach, nil
	case "rescale":
		return bogd.RescaleAll, nil
	}
	return 0, fmt.Errorf("the projection is clip or rescale, got %q", s)
}

func (p *Plan) job(c Cell, params Params, stream string, run int, seed uint64) Job {
	k := Key{
		Dataset: c.Dataset, Algorithm: c.Algo.String(), Budget: c.Budget,
		Eta: params.Eta, LambdaT2: params.LambdaT2, AbsLambda: params.AbsLambda, Gamma: params.Gamma, C: params.C,
		Stream: stream, Run: run, Seed: seed, Sigma: cmp.Or(params.Sigma, p.Sigma),
		Task: TaskName(p.Task), Scaling: p.Scaling,
	}
	if c.Algo == bogd.BOGD || c.Algo == bogd.BOGDpp {
		k.Projection = ProjectionName(p.Projection)
	}
	if p.Task == task.Regression {
		k.Epsilon = p.Epsilon
	}
	if c.Algo == bogd.NORMA {
		k.Nu = p.Nu
	}
	if c.Algo == bogd.NOGD && p.RankFactor > 0 {
		k.Rank = max(1, int(math.Round(p.RankFactor*float64(c.Budget))))
	}
	if c.Algo == bogd.FOGD && p.FeatureFactor > 0 {
		k.Features = max(1, int(math.Round(p.FeatureFactor*float64(c.Budget))))
	}
	return Job{Cell: c, Params: params, Key: k}
}

// CellGrid is the grid of cell c: the plan's, with the widths of c's
// dataset if it has its own.
func (p *Plan) CellGrid(c Cell) Grid {
	g := p.Grid
	if w, ok := p.Widths[c.Dataset]; ok {
		g.Sigma = w
	}
	return g
}

// Points lists the points of cell c: those of its grid (CellGrid), then
// its Extra ones.
func (p *Plan) Points(c Cell) []Params {
	points := p.CellGrid(c).Points(c.Algo, p.Task)
	for _, e := range p.Extra[c] {
		if !slices.Contains(points, e) {
			points = append(points, e)
		}
	}
	return points
}

func (p *Plan) sort(jobs []Job) []Job {
	slices.SortFunc(jobs, func(a, b Job) int { return p.Order.Compare(a.Key, b.Key) })
	return jobs
}

// SelectJobs lists every selection job, in key order. Cells whose
// algorithm has a single grid point need no selection, failed cells
// (KeepGoing) none any more.
func (p *Plan) SelectJobs() []Job {
	var out []Job
	for _, c := range p.Cells {
		points := p.Points(c)
		if _, failed := p.failed[c]; failed || len(points) < 2 {
			continue
		}
		for _, params := range points {
			for r := range p.SelectRuns {
				out = append(out, p.job(c, params, StreamSelect, r, p.SelectSeed))
			}
		}
	}
	return p.sort(out)
}

// Selection is the outcome of the selection phase for one cell.
type Selection struct {
	Params Params
	Mean   float64 // mean metric (Record.Metric) over the selection runs; NaN without a grid
	Runs   int     // selection runs per grid point (0 without a grid)
	// Diverged counts the grid points with a diverged run (never
	// selected, unless every point diverged and the plan does not keep
	// going), Points all of them.
	Diverged, Points int
}

// GridMean is the mean metric (Record.Metric: mistake rate or MSE) of one
// grid point over the selection runs of a cell; Complete is false when
// some runs have no record. A point with a diverged run (Plan.Diverged)
// has the mean +Inf.
type GridMean struct {
	Params   Params
	Mean     float64
	Complete bool
	Diverged bool
}

// Diverged reports whether the pass of rec diverged: its loss was not
// finite, or its metric exceeds the plan's Explode.
func (p *Plan) Diverged(rec *Record) bool {
	m := rec.Metric()
	return rec.DivergedAt > 0 || math.IsNaN(m) || math.IsInf(m, 0) || p.Explode > 0 && m > p.Explode
}

// GridMeans returns the selection-stream mean of every grid point of cell
// c, reading only records of the selection stream, and counts the
// selection jobs without a record.
func (p *Plan) GridMeans(c Cell, rs *ResultSet) (means []GridMean, missing int) {
	for _, params := range p.Points(c) {
		var sum float64
		g := GridMean{Params: params, Complete: true}
		for r := range p.SelectRuns {
			rec, ok := rs.Get(p.job(c, params, StreamSelect, r, p.SelectSeed).Key)
			if !ok {
				missing++
				g.Complete = false
				continue
			}
			sum += rec.Metric()
			g.Diverged = g.Diverged || p.Diverged(rec)
		}
		g.Mean = sum / float64(p.SelectRuns)
		if g.Diverged {
			g.Mean = math.Inf(1)
		}
		means = append(means, g)
	}
	return means, missing
}

// Select picks the grid point with the lowest mean metric over the
// selection runs of cell c (the first of equal ones, in the order of
// Grid.Points), never a diverged one unless every one diverged (then the
// first); missing counts the selection jobs without a record. A cell
// without a grid point (Check) selects nothing.
func (p *Plan) Select(c Cell, rs *ResultSet) (sel Selection, missing int) {
	points := p.Points(c)
	switch len(points) {
	case 0:
		return Selection{Mean: math.NaN()}, 0
	case 1:
		return Selection{Params: points[0], Mean: math.NaN(), Points: 1}, 0
	}
	means, missing := p.GridMeans(c, rs)
	sel = Selection{Mean: math.NaN(), Runs: p.SelectRuns, Points: len(points)}
	for _, g := range means {
		if g.Diverged {
			sel.Diverged++
		}
		if g.Complete && (math.IsNaN(sel.Mean) || g.Mean < sel.Mean) {
			sel.Params, sel.Mean = g.Params, g.Mean
		}
	}
	return sel, missing
}

// IncompleteError reports the jobs of a phase that have no record, so that
// the selection or the tables cannot be made yet.
type IncompleteError struct {
	Phase   string   // StreamSelect or StreamReport: the phase whose records are missing
	Missing int      // jobs without a record
	Cells   []string // the cells they belong to
}

func (e *IncompleteError) Error() string {
	cells := e.Cells
	if len(cells) > 5 {
		cells = append(cells[:5:5], fmt.Sprintf("and %d more cells", len(cells)-5))
	}
	what := "selection results"
	if e.Phase == StreamReport {
		what = "reported runs"
	}
	return fmt.Sprintf("%d %s are missing (%s)", e.Missing, what, strings.Join(cells, ", "))
}

// Selections returns the selection of every cell, or an *IncompleteError
// naming the cells whose selection runs are incomplete. With KeepGoing, a
// failed cell has none, and a cell whose every grid point diverged
// fails.
func (p *Plan) Selections(rs *ResultSet) (map[Cell]Selection, error) {
	out := map[Cell]Selection{}
	inc := &IncompleteError{Phase: StreamSelect}
	for _, c := range p.Cells {
		if _, failed := p.failed[c]; failed {
			continue
		}
		sel, missing := p.Select(c, rs)
		if p.KeepGoing && missing == 0 && sel.Points > 1 && sel.Diverged == sel.Points {
			p.fail(c, fmt.Errorf("every one of its %d grid points diverged", sel.Points))
			continue
		}
		if missing > 0 {
			inc.Cells = append(inc.Cells, fmt.Sprintf("%v (%d missing)", c, missing))
			inc.Missing += missing
			continue
		}
		out[c] = sel
	}
	if inc.Missing > 0 {
		return nil, inc
	}
	return out, nil
}

// ReportJobs lists every report job, in key order, given the selections.
func (p *Plan) ReportJobs(sels map[Cell]Selection) []Job {
	var out []Job
	for _, c := range p.Cells {
		if _, failed := p.failed[c]; failed {
			continue
		}
		for r := range p.Runs {
			out = append(out, p.ReportJob(c, sels[c], r))
		}
	}
	return p.sort(out)
}

// ReportJob is reported run r of cell c with its selected parameters.
func (p *Plan) ReportJob(c Cell, sel Selection, r int) Job {
	return p.job(c, sel.Params, StreamReport, r, p.Seed)
}

// Reported returns the reported runs of every cell but the failed ones,
// by run index, or an *IncompleteError naming the cells with runs
// missing.
func (p *Plan) Reported(sels map[Cell]Selection, rs *ResultSet) (map[Cell][]*Record, error) {
	out := map[Cell][]*Record{}
	inc := &IncompleteError{Phase: StreamReport}
	for _, c := range p.Cells {
		if _, failed := p.failed[c]; failed {
			continue
		}
		for r := range p.Runs {
			rec, ok := rs.Get(p.ReportJob(c, sels[c], r).Key)
			if !ok {
				inc.Missing++
				if len(inc.Cells) == 0 || inc.Cells[len(inc.Cells)-1] != c.String() {
					inc.Cells = append(inc.Cells, c.String())
				}
				continue
			}
			out[c] = append(out[c], rec)
		}
	}
	if inc.Missing > 0 {
		return nil, inc
	}
	return out, nil
}
