package paper

import (
	"bytes"
	"fmt"
	"math"

	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/task"
)

// differenceThreshold is the distance (percentage points) from the paper's
// mistake rate beyond which a cell is listed and examined.
const differenceThreshold = 1.5

// renderDifferences lists the cells whose mean mistake rate is more than
// differenceThreshold points from the paper's, with the evidence this run
// holds about each: the range the whole parameter grid spans on the
// selection runs, the grid point that comes nearest the paper's figure (is
// it a mistuning?), and the rate of always predicting the majority class
// (is anything learnt?).
func (t *Tables) renderDifferences(b *bytes.Buffer) {
	var far []*CellResult
	var within, compared int
	for _, c := range t.Order {
		cr := t.Cells[c]
		if !cr.HasPaper {
			continue
		}
		compared++
		if math.Abs(cr.Metric-cr.Paper.Mistake) <= differenceThreshold {
			within++
			continue
		}
		far = append(far, cr)
	}
	fmt.Fprintf(b, "%d of %d cells are within %.1f points of the paper's mistake rate", within, compared, differenceThreshold)
	if len(far) == 0 {
		b.WriteString(".\n\n")
		return
	}
	better, tuned, insideBetter, insideWorse := 0, 0, 0, 0
	for _, cr := range far {
		lower := cr.Metric < cr.Paper.Mistake
		if lower {
			better++
		}
		if lo, hi, ok := experiment.GridSpan(cr.Grid); ok {
			tuned++
			if cr.Paper.Mistake >= lo.Mean && cr.Paper.Mistake <= hi.Mean {
				if lower {
					insideBetter++
				} else {
					insideWorse++
				}
			}
		}
	}
	fmt.Fprintf(b, "; of the other %d, %d are lower (better) than the paper's", len(far), better)
	if tuned > 0 {
		fmt.Fprintf(b, ", and for %d of the %d with parameters the paper's figure lies within the span of our grid, so some grid point does as the paper reports", insideBetter+insideWorse, tuned)
		switch {
		case insideBetter > 0 && insideWorse > 0:
			fmt.Fprintf(b, ": our selection found a better point for %d of them and a worse one for %d", insideBetter, insideWorse)
		case insideBetter > 0:
			b.WriteString(": our selection found a better one")
		case insideWorse > 0:
			b.WriteString(": our selection found a worse one")
		}
	}
	b.WriteString(". For each, the evidence of this run: the span of the whole grid on the selection runs (best … worst mean), the grid point whose selection mean comes nearest the paper's figure, and the mistake rate of always predicting the majority class.\n\n")
	b.WriteString("| Cell | ours | paper | diff | grid on the selection runs: best … worst | nearest the paper's figure | majority class |\n|---|---|---|---|---|---|---|\n")
	for _, cr := range far {
		d, _ := Lookup(cr.Cell.Dataset)
		span, nearest := "no parameters", "-"
		if lo, hi, ok := experiment.GridSpan(cr.Grid); ok {
			span = fmt.Sprintf("%.3f … %.3f", lo.Mean, hi.Mean)
			near, _ := experiment.Nearest(cr.Grid, cr.Paper.Mistake)
			nearest = fmt.Sprintf("%.3f at %s", near.Mean, near.Params.Describe(cr.Cell.Algo, task.Binary))
			if cr.Paper.Mistake < lo.Mean || cr.Paper.Mistake > hi.Mean {
				nearest += " (the paper's figure is outside the span)"
			}
		}
		fmt.Fprintf(b, "| %s | %.3f ± %.3f | %.3f | %+.3f | %s | %s | %.3f |\n", cr.Cell, cr.Metric, cr.MetricStd,
			cr.Paper.Mistake, cr.Metric-cr.Paper.Mistake, span, nearest, d.MajorityRate())
	}
	b.WriteString("\n")
}
