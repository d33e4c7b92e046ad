package lsokl

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/bogd-project/bogd/experiment"
)

// agrees reports whether ours is within the table's tolerance of the
// paper's figure: Tolerance points, or a Tolerance fraction of it.
func (t *Tables) agrees(cr *CellResult) bool {
	tol := t.Opt.Table.Tolerance
	if t.Opt.Table.Relative {
		tol *= cr.Paper.Metric
	}
	return math.Abs(cr.Metric-cr.Paper.Metric) <= tol
}

// fmtDiff renders ours − theirs: points, or percent of theirs.
func (t *Tables) fmtDiff(cr *CellResult) string {
	if t.Opt.Table.Relative {
		return fmt.Sprintf("%+.1f%%", 100*(cr.Metric-cr.Paper.Metric)/cr.Paper.Metric)
	}
	return fmt.Sprintf("%+.2f", cr.Metric-cr.Paper.Metric)
}

// renderDifferences compares every σ = 8 cell the paper has with its
// figure, and lists those beyond the tolerance with the evidence this run
// holds about each: the span of the whole grid on the selection runs and
// the point nearest the paper's figure (does some setting do as they
// report?), the baseline (did either learn anything?), the cell with σ
// selected (is the width the cause?), and how the data differ.
func (t *Tables) renderDifferences(b *bytes.Buffer) {
	var far []*CellResult
	compared := 0
	for _, c := range t.Order {
		cr := t.Cells[FixedWidth][c]
		if !cr.HasPaper {
			continue
		}
		compared++
		if !t.agrees(cr) {
			far = append(far, cr)
		}
	}
	tol := fmt.Sprintf("%g points", t.Opt.Table.Tolerance)
	if t.Opt.Table.Tolerance == 1 {
		tol = "1 point"
	}
	if t.Opt.Table.Relative {
		tol = fmt.Sprintf("%g%% (relative)", 100*t.Opt.Table.Tolerance)
	}
	fmt.Fprintf(b, "At σ = 8, the paper's setting, %d of %d cells are within %s of the paper's figure.", compared-len(far), compared, tol)
	if len(far) == 0 {
		b.WriteString("\n\n")
		return
	}
	var sameData, better int
	for _, cr := range far {
		if d, _ := t.Opt.Table.Dataset(cr.Cell.Dataset); d.Differs == "" {
			sameData++
		}
		if cr.Metric < cr.Paper.Metric {
			better++
		}
	}
	fmt.Fprintf(b, " Of the other %d, %d are better (lower) than the paper's and %d are on datasets whose copy here is the paper's. "+
		"For each, the evidence of this run: the span of the whole grid on the selection runs (best … worst mean), "+
		"the grid point whose selection mean comes nearest the paper's figure, the baseline (%s), "+
		"the same cell with σ selected, and what the evidence says.\n\n", len(far), better, sameData, t.baselineName())
	fmt.Fprintf(b, "| cell | ours (σ = 8) | paper | diff | grid: best … worst | nearest the paper's figure | baseline | σ selected | reading |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, cr := range far {
		d, _ := t.Opt.Table.Dataset(cr.Cell.Dataset)
		span, nearest := "no parameters", "-"
		lo, hi, spanned := experiment.GridSpan(cr.Grid)
		if spanned {
			span = t.fmtValue(lo.Mean) + " … " + t.fmtValue(hi.Mean)
			near, _ := experiment.Nearest(cr.Grid, cr.Paper.Metric)
			nearest = t.fmtValue(near.Mean) + " at " + near.Params.Describe(cr.Cell.Algo, t.Opt.Table.Task)
		}
		sel := t.Cells[SelectedWidth][cr.Cell]
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s at σ=%g | %s |\n", cr.Cell, t.fmtMetric(cr.Metric, cr.MetricStd),
			fmtPaper(cr.Paper), t.fmtDiff(cr), span, nearest, t.fmtValue(d.Baseline), t.fmtValue(sel.Metric), selectedSigma(sel),
			t.reading(cr, d, lo, hi, spanned, sel))
	}
	b.WriteString("\n")
}

// selectedSigma is the width a σ-selected cell ran with.
func selectedSigma(cr *CellResult) float64 {
	if cr.Sel.Params.Sigma != 0 {
		return cr.Sel.Params.Sigma
	}
	return cr.Runs[0].Sigma
}

// baselineName says what Dataset.Baseline is.
func (t *Tables) baselineName() string {
	if t.regression() {
		return "the MSE of always predicting the mean label"
	}
	return "the mistake rate of always predicting the most frequent class"
}

// near reports whether two metric values agree within the table's
// tolerance.
func (t *Tables) near(a, b float64) bool {
	tol := t.Opt.Table.Tolerance
	if t.Opt.Table.Relative {
		tol *= math.Abs(b)
	}
	return math.Abs(a-b) <= tol
}

// learntNothing reports whether a metric value is no better than the
// dataset's baseline, or within the tolerance of it.
func (t *Tables) learntNothing(v float64, d Dataset) bool {
	return v >= d.Baseline || t.near(v, d.Baseline)
}

// reading states what the evidence of a cell says about its difference.
func (t *Tables) reading(cr *CellResult, d Dataset, lo, hi experiment.GridMean, spanned bool, sel *CellResult) string {
	var why []string
	if d.Differs != "" {
		why = append(why, "the data differ (see above)")
	}
	theirs := cr.Paper.Metric
	switch {
	case t.learntNothing(theirs, d):
		why = append(why, "the paper's figure is no better than the baseline: their run learnt (almost) nothing")
	case t.learntNothing(cr.Metric, d):
		why = append(why, "ours is no better than the baseline: σ = 8 learns (almost) nothing on this copy")
	}
	switch {
	case !spanned:
		why = append(why, "no parameter to tune: the rule's outcome on these permutations")
	case theirs < lo.Mean:
		why = append(why, "no point of our grid reaches the paper's figure")
	case theirs > hi.Mean:
		why = append(why, "every point of our grid beats the paper's figure")
	case cr.Metric < theirs:
		why = append(why, "the paper's figure is inside our grid's span: our selection found a better point")
	default:
		why = append(why, "the paper's figure is inside our grid's span: our selection found a worse point")
	}
	if t.near(sel.Metric, theirs) && !t.near(cr.Metric, theirs) {
		why = append(why, "with σ selected we agree with the paper")
	}
	if eq, ok := t.cell(PaperScaleWidth, d.Name, cr.Cell.Algo, cr.Cell.Budget); ok {
		verdict := "still differs"
		if t.near(eq.Metric, theirs) {
			verdict = "agrees with the paper"
		}
		why = append(why, fmt.Sprintf("on the paper's feature scale (%s), ours is %s: it %s", d.paperSetting(), t.fmtValue(eq.Metric), verdict))
	}
	return strings.Join(why, "; ")
}
