package lsokl

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/task"
)

// CellResult is one cell under one width setting: its selection and
// reported runs, beside the published figure.
type CellResult struct {
	experiment.Outcome
	Paper    Published
	HasPaper bool // the paper has this cell (its dataset, algorithm and budget)
}

// Tables is everything a report shows: both width settings' cells.
type Tables struct {
	Opt   *Options
	Cells [3]map[experiment.Cell]*CellResult // by Width
	Order []experiment.Cell                  // the cells of the σ = 8 and σ-selected tables
	SIMD  []string                           // implementations that produced the reported runs
	// Passes counts the passes behind the tables (selection and reported,
	// each job once), PassSeconds their summed time.
	Passes      int
	PassSeconds float64
}

// Collect gathers the selection and the reported runs of every cell of
// both plans; every one must be present (else an
// *experiment.IncompleteError).
func Collect(opt *Options, rs *experiment.ResultSet) (*Tables, error) {
	t := &Tables{Opt: opt, Order: opt.Cells()}
	for _, w := range opt.widths() {
		t.Cells[w] = map[experiment.Cell]*CellResult{}
		for _, plan := range opt.plans(w) {
			outcomes, simds, err := plan.Outcomes(rs)
			if err != nil {
				return nil, err
			}
			for _, s := range simds {
				if !slices.Contains(t.SIMD, s) {
					t.SIMD = append(t.SIMD, s)
				}
			}
			for _, o := range outcomes {
				cr := &CellResult{Outcome: *o}
				cr.Paper, cr.HasPaper = opt.published(o.Cell)
				t.Cells[w][o.Cell] = cr
			}
		}
	}
	var err error
	t.Passes, t.PassSeconds, err = experiment.Effort(opt.Plans(), rs)
	return t, err
}

// published returns the paper's figure of cell c, if the paper has it: its
// budget is the paper's (or it has none).
func (o *Options) published(c experiment.Cell) (Published, bool) {
	d, _ := o.Table.datasetOf(c.Dataset)
	if c.Budget != 0 && c.Budget != d.Budget {
		return Published{}, false
	}
	p, ok := o.Table.Published[d.Name][c.Algo.String()]
	return p, ok
}

// cell returns the result of (dataset, algorithm, budget) under width w
// (at PaperScaleWidth, of the dataset's paper copy); the budget of an
// algorithm without one is ignored.
func (t *Tables) cell(w Width, ds string, a bogd.Algorithm, budget int) (*CellResult, bool) {
	if !a.Budgeted() {
		budget = 0
	}
	if d, ok := t.Opt.Table.Dataset(ds); ok && w == PaperScaleWidth {
		ds = d.paperCopy()
	}
	cr, ok := t.Cells[w][experiment.Cell{Dataset: ds, Algo: a, Budget: budget}]
	return cr, ok
}

// regression reports whether the table's metric is the MSE.
func (t *Tables) regression() bool { return t.Opt.Table.Task == task.Regression }

// fmtMetric renders a mean ± std: two decimals of a mistake rate, five of
// an MSE.
func (t *Tables) fmtMetric(mean, std float64) string {
	if t.regression() {
		return fmt.Sprintf("%.5f ± %.5f", mean, std)
	}
	return fmt.Sprintf("%.2f ± %.2f", mean, std)
}

// fmtPaper renders a published figure as printed.
func fmtPaper(p Published) string { return fmt.Sprintf("%g", p.Metric) }

// budgets are the budget columns of the tables: the table's list, or one
// column at each dataset's paper budget.
func (t *Tables) budgets() []int {
	if t.Opt.Budgets != nil {
		return t.Opt.Budgets
	}
	return t.Opt.Table.Budgets // nil: each dataset's own
}

// blocks are the (title, budget) pairs of the rendered tables: one block
// per budget of the table (0: each dataset at its paper budget).
func (t *Tables) blocks() []int {
	if bs := t.budgets(); bs != nil {
		return bs
	}
	return []int{0}
}

// budgetOf is the budget of dataset d's column in block b.
func (t *Tables) budgetOf(d Dataset, b int) int {
	if b == 0 {
		return d.Budget
	}
	return b
}

// blockTitle names a block.
func (t *Tables) blockTitle(b int) string {
	d0 := t.Opt.Table.Datasets[0]
	switch {
	case b == 0:
		return "budgets as the paper's"
	case b == d0.Budget:
		return fmt.Sprintf("B = %d, as the paper", b)
	}
	return fmt.Sprintf("B = %d (not in their paper; our addition)", b)
}

// best returns the budgeted cell of lowest mean metric in dataset d's
// column at budget b under width w.
func (t *Tables) best(w Width, d Dataset, b int) *CellResult {
	var best *CellResult
	for _, a := range t.Opt.Algorithms {
		if !a.Budgeted() {
			continue
		}
		if cr, ok := t.cell(w, d.Name, a, t.budgetOf(d, b)); ok && (best == nil || cr.Metric < best.Metric) {
			best = cr
		}
	}
	return best
}

// renderMetricTable writes, per block, the algorithms' rows of "ours ±
// std (theirs)" under width w; bold marks the best budgeted learner of a
// column.
func (t *Tables) renderMetricTable(b *bytes.Buffer, w Width) {
	t.renderBlocks(b, w, fmt.Sprintf("%s, %s", t.metricName(), w), fmt.Sprintf("mean ± std over %s (the paper's figure)", experiment.Plural(t.Opt.Runs, "run", "runs")),
		func(cr *CellResult, best bool) string {
			s := t.fmtMetric(cr.Metric, cr.MetricStd)
			if best {
				s = "**" + s + "**"
			}
			if cr.HasPaper {
				s += " (" + fmtPaper(cr.Paper) + ")"
			}
			return s
		})
}

// renderTimeTable writes, per block, the mean seconds per pass under
// width w beside the paper's MATLAB time and the ratio theirs/ours.
func (t *Tables) renderTimeTable(b *bytes.Buffer, w Width) {
	t.renderBlocks(b, w, "Seconds per pass, "+w.String(), "mean over the reported runs (the paper's MATLAB time, theirs/ours)",
		func(cr *CellResult, _ bool) string {
			s := experiment.FormatSeconds(cr.Seconds)
			if cr.HasPaper {
				s += fmt.Sprintf(" (%s, %s×)", experiment.FormatSeconds(cr.Paper.Time), fmtRatio(cr.Paper.Time/cr.Seconds))
			}
			return s
		})
}

// renderBlocks writes one table per block under width w: a row per
// algorithm, a column per dataset, each cell rendered by text (told
// whether it is the best budgeted learner of its column).
func (t *Tables) renderBlocks(b *bytes.Buffer, w Width, title, what string, text func(cr *CellResult, best bool) string) {
	datasets := t.datasets(w)
	for _, blk := range t.blocks() {
		fmt.Fprintf(b, "**%s**: %s, %s\n\n| algorithm |", title, t.blockTitle(blk), what)
		for _, d := range datasets {
			fmt.Fprintf(b, " %s (B=%d) |", d.Name, t.budgetOf(d, blk))
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(datasets)) + "\n")
		for _, a := range t.Opt.Algorithms {
			b.WriteString("| " + t.rowName(a))
			for _, d := range datasets {
				cr, ok := t.cell(w, d.Name, a, t.budgetOf(d, blk))
				if !ok {
					b.WriteString(" | –")
					continue
				}
				b.WriteString(" | " + text(cr, a.Budgeted() && t.best(w, d, blk) == cr))
			}
			b.WriteString(" |\n")
		}
		b.WriteString("\n")
	}
}

// fmtRatio renders a speed ratio with three significant digits.
func fmtRatio(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	case r >= 10:
		return fmt.Sprintf("%.1f", r)
	}
	return fmt.Sprintf("%.2f", r)
}

// datasets lists the datasets with cells under width w.
func (t *Tables) datasets(w Width) []Dataset {
	return slices.DeleteFunc(slices.Clone(t.Opt.Datasets), func(d Dataset) bool {
		return !slices.ContainsFunc(t.Opt.Algorithms, func(a bogd.Algorithm) bool {
			_, ok := t.cell(w, d.Name, a, t.budgetOf(d, t.blocks()[0]))
			return ok
		})
	})
}

// rowName is an algorithm's row label: its name, "(ours)" for the table's
// additions, "(no budget)" for the unbudgeted.
func (t *Tables) rowName(a bogd.Algorithm) string {
	name := experiment.DisplayName(a)
	switch {
	case t.Opt.ours(a):
		name += " (ours)"
	case !a.Budgeted():
		name += " (no budget)"
	}
	return name
}

// metricName names the table's metric.
func (t *Tables) metricName() string {
	if t.regression() {
		return "MSE (labels scaled to [0, 1])"
	}
	return "Mistake rate (%)"
}

// renderSelected writes the selected parameters of every cell under
// width w.
func (t *Tables) renderSelected(b *bytes.Buffer, w Width) {
	fmt.Fprintf(b, "**%s**\n\n| dataset | algorithm | budget | selected | selection %s |\n|---|---|---|---|---|\n", w, t.shortMetric())
	var cells []experiment.Cell
	for _, p := range t.Opt.plans(w) {
		cells = append(cells, p.Cells...)
	}
	for _, c := range cells {
		cr := t.Cells[w][c]
		if math.IsNaN(cr.Sel.Mean) {
			continue
		}
		budget := "-"
		if c.Budget > 0 {
			budget = fmt.Sprint(c.Budget)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s over %s |\n", c.Dataset, experiment.DisplayName(c.Algo), budget,
			cr.Sel.Params.Describe(c.Algo, t.Opt.Table.Task), t.fmtValue(cr.Sel.Mean), experiment.Plural(cr.Sel.Runs, "run", "runs"))
	}
	b.WriteString("\n")
}

// shortMetric names the metric in column headers.
func (t *Tables) shortMetric() string {
	if t.regression() {
		return "MSE"
	}
	return "mistake rate (%)"
}

// fmtValue renders one metric value.
func (t *Tables) fmtValue(v float64) string {
	if t.regression() {
		return fmt.Sprintf("%.5f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
