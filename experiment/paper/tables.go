package paper

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/experiment"
)

// CellResult is one cell of Table 2 or 3: its selection and reported runs.
type CellResult struct {
	experiment.Outcome
	Paper    Published
	HasPaper bool
	Best     bool // lowest mean mistake rate of its (dataset, budget) block in Table 3
	Majority bool // at the majority-class rate (see atMajorityRate)
}

// Tables is everything paper.md shows.
type Tables struct {
	Opt   *Options
	Cells map[experiment.Cell]*CellResult
	Order []experiment.Cell
	SIMD  []string // implementations that produced the reported runs
}

// Collect gathers the selection and the reported runs of every cell; every
// one must be present (else an *experiment.IncompleteError).
func Collect(opt *Options, rs *experiment.ResultSet) (*Tables, error) {
	plan := opt.Plan()
	outcomes, simds, err := plan.Outcomes(rs)
	if err != nil {
		return nil, err
	}
	t := &Tables{Opt: opt, Cells: map[experiment.Cell]*CellResult{}, Order: plan.Cells, SIMD: simds}
	for _, o := range outcomes {
		c := o.Cell
		cr := &CellResult{Outcome: *o}
		d, _ := Lookup(c.Dataset)
		cr.Majority = atMajorityRate(cr, d)
		if c.Budget == 0 {
			cr.Paper, cr.HasPaper = Table2[c.Dataset][c.Algo]
		} else {
			cr.Paper, cr.HasPaper = Table3Cell(c.Dataset, c.Algo, c.Budget)
		}
		t.Cells[c] = cr
	}
	// Bold: the lowest mean mistake rate of each (dataset, budget) block.
	for _, d := range opt.Datasets {
		for _, b := range d.Budgets {
			var best *CellResult
			for _, a := range Budgeted {
				if cr, ok := t.Cells[experiment.Cell{Dataset: d.Name, Algo: a, Budget: b}]; ok && (best == nil || cr.Metric < best.Metric) {
					best = cr
				}
			}
			if best != nil {
				best.Best = true
			}
		}
	}
	return t, nil
}

// majorityMistakes is how many mistakes per pass a cell may make beyond
// the majority class's and still count as at its rate: a constant
// classifier's first prediction (sgn 0 = +1) may miss.
const majorityMistakes = 2

// atMajorityRate reports whether the cell's mean mistake rate is within
// the run-to-run noise of always predicting the majority class: at most
// one sample standard deviation of its runs, or majorityMistakes per pass,
// from that rate. Such a cell has learnt nothing the label frequencies do
// not tell.
func atMajorityRate(cr *CellResult, d Dataset) bool {
	tolerance := max(cr.MetricStd, 100*majorityMistakes/float64(d.Rows))
	return math.Abs(cr.Metric-d.MajorityRate()) <= tolerance
}

// majorityMark follows the mean mistake rate of a cell at the majority
// rate; majorityNote explains it under the tables.
const majorityMark = " ‡"

// majorityNote is the footnote of the majority mark, with the majority
// rate of every dataset of the tables.
func (t *Tables) majorityNote() string {
	var rates []string
	for _, d := range t.Opt.Datasets {
		rates = append(rates, fmt.Sprintf("%s %.3f", d.Name, d.MajorityRate()))
	}
	return fmt.Sprintf("‡ At the majority-class rate: the mean mistake rate is within one run-to-run standard deviation, or %d mistakes per pass, of the rate of always predicting the more frequent label (%s%%); such a cell has learnt nothing the label frequencies do not tell.\n\n",
		majorityMistakes, strings.Join(rates, "%, "))
}

// cell returns the result of a cell, if it was run.
func (t *Tables) cell(ds string, a bogd.Algorithm, budget int) (*CellResult, bool) {
	cr, ok := t.Cells[experiment.Cell{Dataset: ds, Algo: a, Budget: budget}]
	return cr, ok
}

// fmtMistake renders "ours ± std (paper, diff)", diff = ours − paper in
// percentage points, bold on ours when best, marked at the majority rate.
func fmtMistake(cr *CellResult) string {
	s := fmt.Sprintf("%.3f ± %.3f", cr.Metric, cr.MetricStd)
	if cr.Best {
		s = "**" + s + "**"
	}
	if cr.Majority {
		s += majorityMark
	}
	if cr.HasPaper {
		s += fmt.Sprintf(" (%.3f, %+.3f)", cr.Paper.Mistake, cr.Metric-cr.Paper.Mistake)
	}
	return s
}

func fmtSV(cr *CellResult) string {
	s := fmt.Sprintf("%.1f ± %.1f", cr.SupportVectors, cr.SupportVectorsStd)
	if cr.HasPaper {
		s += fmt.Sprintf(" (%.1f, %+.1f)", cr.Paper.SV, cr.SupportVectors-cr.Paper.SV)
	}
	return s
}

func fmtTime(cr *CellResult) string {
	s := experiment.FormatSeconds(cr.Seconds)
	if cr.HasPaper {
		s += fmt.Sprintf(" (%s)", experiment.FormatSeconds(cr.Paper.Time))
	}
	return s
}

// anyMajority reports whether a rendered cell carries the majority mark.
func anyMajority(cells []*CellResult) bool {
	return slices.ContainsFunc(cells, func(cr *CellResult) bool { return cr.Majority })
}

// renderTable2 writes Table 2: Perceptron and OGD per dataset.
func (t *Tables) renderTable2(b *bytes.Buffer) {
	var rows []string
	var shown []*CellResult
	for _, d := range t.Opt.Datasets {
		line := "| " + d.Name
		any := false
		for _, a := range Unbudgeted {
			cr, ok := t.cell(d.Name, a, 0)
			if !ok {
				line += " | not run | | "
				continue
			}
			any = true
			shown = append(shown, cr)
			line += " | " + fmtMistake(cr) + " | " + fmtSV(cr) + " | " + fmtTime(cr)
		}
		if any {
			rows = append(rows, line+" |")
		}
	}
	if len(rows) == 0 {
		b.WriteString("(no non-budget algorithm was run)\n\n")
		return
	}
	b.WriteString("| Dataset | Perceptron: Mistake (%) | Support Vectors (#) | Time (s) | OGD: Mistake (%) | Support Vectors (#) | Time (s) |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	b.WriteString("\n")
	if anyMajority(shown) {
		b.WriteString(t.majorityNote())
	}
}

// renderTable3 writes Table 3: one block per dataset, a row per budgeted
// algorithm, two columns (mistakes, time) per budget.
func (t *Tables) renderTable3(b *bytes.Buffer) {
	wrote := false
	var shown []*CellResult
	for _, d := range t.Opt.Datasets {
		var rows []string
		for _, a := range Budgeted {
			line := "| " + experiment.DisplayName(a)
			any := false
			for _, bud := range d.Budgets {
				cr, ok := t.cell(d.Name, a, bud)
				if !ok {
					line += " | not run | "
					continue
				}
				any = true
				shown = append(shown, cr)
				line += " | " + fmtMistake(cr) + " | " + fmtTime(cr)
			}
			if any {
				rows = append(rows, line+" |")
			} else if slices.Contains(t.Opt.Algorithms, a) && t.Opt.skipped(d, a) {
				rows = append(rows, "| "+experiment.DisplayName(a)+strings.Repeat(" | not run (--skip) | ", len(d.Budgets))+" |")
			}
		}
		if len(rows) == 0 {
			continue
		}
		wrote = true
		fmt.Fprintf(b, "**%s** (%d rows, %d features)\n\n| Algorithm |", d.Name, d.Rows, d.Features)
		for _, bud := range d.Budgets {
			fmt.Fprintf(b, " B=%d: Mistake (%%) | Time (s) |", bud)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|---|", len(d.Budgets)) + "\n")
		for _, r := range rows {
			b.WriteString(r + "\n")
		}
		b.WriteString("\n")
	}
	if !wrote {
		b.WriteString("(no budgeted algorithm was run)\n\n")
	}
	if anyMajority(shown) {
		b.WriteString(t.majorityNote())
	}
}

// renderSelected writes the selected parameters of every cell.
func (t *Tables) renderSelected(b *bytes.Buffer) {
	b.WriteString("| Dataset | Algorithm | Budget | η | λ·T² | γ | selection mistake rate (%) |\n|---|---|---|---|---|---|---|\n")
	for _, c := range t.Order {
		cr := t.Cells[c]
		if math.IsNaN(cr.Sel.Mean) {
			continue
		}
		budget := "-"
		if c.Budget > 0 {
			budget = fmt.Sprint(c.Budget)
		}
		gamma := "-"
		if cr.Sel.Params.Gamma > 0 {
			gamma = fmt.Sprint(cr.Sel.Params.Gamma)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %g | %g | %s | %.3f over %s |\n", c.Dataset, experiment.DisplayName(c.Algo), budget,
			cr.Sel.Params.Eta, cr.Sel.Params.LambdaT2, gamma, cr.Sel.Mean, experiment.Plural(cr.Sel.Runs, "run", "runs"))
	}
	b.WriteString("\nRBP, Forgetron, Projectron, Projectron++ and Perceptron have no parameter to select.\n\n")
}
