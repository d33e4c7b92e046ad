package experiment

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/bogd-project/bogd/internal/atomicfile"
)

// The pieces every study's report shares.

// FormatSeconds renders a time in tables: five decimals below 0.01 s,
// four below 1 s, three above.
func FormatSeconds(v float64) string {
	switch {
	case v < 0.01:
		return fmt.Sprintf("%.5f", v)
	case v < 1:
		return fmt.Sprintf("%.4f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// Plural counts n things: "1 run", "3 runs".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Parallelism says how many passes of a run shared the machine, for the
// timing line of a report: "1 pass ran at a time", "2 passes ran in
// parallel".
func Parallelism(workers int) string {
	if workers == 1 {
		return "1 pass ran at a time"
	}
	return fmt.Sprintf("%d passes ran in parallel", workers)
}

// GridSpan returns the grid points of lowest and highest selection mean,
// if the cell has more than one complete point: how much the grid alone
// moves a cell.
func GridSpan(grid []GridMean) (lo, hi GridMean, ok bool) {
	complete := completeMeans(grid)
	if len(complete) < 2 {
		return lo, hi, false
	}
	byMean := func(a, b GridMean) int { return cmp.Compare(a.Mean, b.Mean) }
	return slices.MinFunc(complete, byMean), slices.MaxFunc(complete, byMean), true
}

// Nearest returns the complete grid point whose selection mean comes
// nearest target (the first of equal ones); ok is false without one.
func Nearest(grid []GridMean, target float64) (near GridMean, ok bool) {
	complete := completeMeans(grid)
	if len(complete) == 0 {
		return near, false
	}
	return slices.MinFunc(complete, func(a, b GridMean) int {
		return cmp.Compare(math.Abs(a.Mean-target), math.Abs(b.Mean-target))
	}), true
}

func completeMeans(grid []GridMean) []GridMean {
	var out []GridMean
	for _, g := range grid {
		if g.Complete {
			out = append(out, g)
		}
	}
	return out
}

// Outcome is what a plan's results say of one cell: its selection, every
// grid point's selection mean (for cells with parameters), the reported
// runs by run index, and their summary.
type Outcome struct {
	Cell Cell
	Sel  Selection
	Grid []GridMean
	Runs []*Record
	Summary
}

// Outcomes gathers the outcome of every cell of p from rs, in the order of
// p.Cells, with the SIMD implementations that computed the reported runs.
// Every selection and reported run must be there (else an
// *IncompleteError).
func (p *Plan) Outcomes(rs *ResultSet) (out []*Outcome, simds []string, err error) {
	sels, err := p.Selections(rs)
	if err != nil {
		return nil, nil, err
	}
	runs, err := p.Reported(sels, rs)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range p.Cells {
		o := &Outcome{Cell: c, Sel: sels[c], Runs: runs[c]}
		if len(p.Points(c)) > 1 {
			o.Grid, _ = p.GridMeans(c, rs)
		}
		results := make([]Result, len(o.Runs))
		for i, rec := range o.Runs {
			results[i] = rec.Result
			if !slices.Contains(simds, rec.SIMD) {
				simds = append(simds, rec.SIMD)
			}
		}
		o.Summary = Summarize(results, o.Runs[0].Rows, p.Task)
		out = append(out, o)
	}
	return out, simds, nil
}

// Curve is the outcome's mean online curve (MeanCurve of its reported
// runs), as a figure shows it.
func (o *Outcome) Curve() FigureData {
	passes := make([]Result, len(o.Runs))
	for i, r := range o.Runs {
		passes[i] = r.Result
	}
	task, _ := ParseTaskName(o.Runs[0].Task)
	return FigureData{Curve: MeanCurve(o.Runs[0].Rows, passes, task), Metric: o.Metric, Seconds: o.Seconds}
}

// PlotsDir is the subdirectory of a report's directory that holds its
// figures.
const PlotsDir = "plots"

// WriteReport writes the report file name in dir (created if missing)
// and, for sets, their figures in dir/PlotsDir, every file atomically;
// render makes the report from the figures drawn. Unless replace, it
// refuses to replace existing files (an *ExistsError).
func WriteReport(dir, name string, sets []FigureSet, replace bool, render func(plots []FigureFile) []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var plots []FigureFile
	if len(sets) > 0 {
		var err error
		if plots, err = DrawFigures(filepath.Join(dir, PlotsDir), sets, replace); err != nil {
			return err
		}
	}
	return atomicfile.Write(filepath.Join(dir, name), render(plots), atomicfile.Options{NoClobber: !replace})
}
