package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/cpuid/v2"

	"github.com/bogd-project/bogd/bogd"
)

// cellResult is one cell of Table 2 or 3: its selection and reported runs.
type cellResult struct {
	Cell                cell
	Sel                 selection
	Grid                []gridMean // every grid point's selection mean (cells with parameters)
	Runs                []*record  // the reported runs, by run index
	Mistake, MistakeStd float64    // percent
	SV, SVStd           float64
	Seconds             float64 // mean per pass
	Paper               paperCell
	HasPaper            bool
	Best                bool // lowest mean mistake rate of its (dataset, budget) block in Table 3
}

// paperTables is everything paper.md shows.
type paperTables struct {
	Opt   *paperOptions
	Cells map[cell]*cellResult
	Order []cell
	SIMD  []string // implementations that produced the reported runs
}

// collectTables gathers the reported runs of every cell; every one must be
// present.
func collectTables(opt *paperOptions, rs *resultSet) (*paperTables, error) {
	sels, err := opt.selections(rs)
	if err != nil {
		return nil, err
	}
	t := &paperTables{Opt: opt, Cells: map[cell]*cellResult{}, Order: opt.cells()}
	missing := 0
	var missingCells []string
	for _, c := range t.Order {
		cr := &cellResult{Cell: c, Sel: sels[c]}
		if len(opt.Grid.points(c.Algo)) > 1 {
			cr.Grid, _ = opt.gridMeans(c, rs)
		}
		for r := range opt.Runs {
			rec, ok := rs.get(opt.reportJob(c, sels[c], r).Key)
			if !ok {
				missing++
				if len(missingCells) == 0 || missingCells[len(missingCells)-1] != c.String() {
					missingCells = append(missingCells, c.String())
				}
				continue
			}
			cr.Runs = append(cr.Runs, rec)
			if !slices.Contains(t.SIMD, rec.SIMD) {
				t.SIMD = append(t.SIMD, rec.SIMD)
			}
		}
		cr.summarize()
		if c.Budget == 0 {
			p, ok := paperTable2[c.Dataset][c.Algo]
			cr.Paper, cr.HasPaper = p, ok
		} else {
			cr.Paper, cr.HasPaper = paperTable3Cell(c.Dataset, c.Algo, c.Budget)
		}
		t.Cells[c] = cr
	}
	if missing > 0 {
		if len(missingCells) > 5 {
			missingCells = append(missingCells[:5], fmt.Sprintf("and %d more cells", len(missingCells)-5))
		}
		return nil, fmt.Errorf("%d reported runs are missing (%s); run `bogdbench paper --phase report` (every shard) and merge its results first",
			missing, strings.Join(missingCells, ", "))
	}
	// Bold: the lowest mean mistake rate of each (dataset, budget) block.
	for _, d := range opt.Datasets {
		for _, b := range d.Budgets {
			var best *cellResult
			for _, a := range budgetedAlgorithms {
				if cr, ok := t.Cells[cell{d.Name, a, b}]; ok && (best == nil || cr.Mistake < best.Mistake) {
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

// cell returns the result of a cell, if it was run.
func (t *paperTables) cell(ds string, a bogd.Algorithm, budget int) (*cellResult, bool) {
	cr, ok := t.Cells[cell{ds, a, budget}]
	return cr, ok
}

func (cr *cellResult) summarize() {
	var rates, svs, secs []float64
	for _, r := range cr.Runs {
		rates = append(rates, 100*float64(r.Mistakes)/float64(r.Rows))
		svs = append(svs, float64(r.SupportVectors))
		secs = append(secs, r.Seconds)
	}
	cr.Mistake, cr.MistakeStd = meanStd(rates)
	cr.SV, cr.SVStd = meanStd(svs)
	cr.Seconds, _ = meanStd(secs)
}

// meanStd returns the mean and the sample standard deviation (n−1, as the
// paper's MATLAB std).
func meanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) > 1 {
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		std = math.Sqrt(ss / float64(len(xs)-1))
	}
	return mean, std
}

// displayName is an algorithm's name as the paper prints it.
func displayName(a bogd.Algorithm) string {
	switch a {
	case bogd.BOGD:
		return "BOGD"
	case bogd.BOGDpp:
		return "BOGD++"
	case bogd.Perceptron:
		return "Perceptron"
	case bogd.OGD:
		return "OGD"
	case bogd.RBP:
		return "RBP"
	case bogd.Forgetron:
		return "Forgetron"
	case bogd.Projectron:
		return "Projectron"
	case bogd.ProjectronPP:
		return "Projectron++"
	}
	return a.String()
}

// fmtMistake renders "ours ± std (paper, diff)", diff = ours − paper in
// percentage points, bold on ours when best.
func fmtMistake(cr *cellResult) string {
	s := fmt.Sprintf("%.3f ± %.3f", cr.Mistake, cr.MistakeStd)
	if cr.Best {
		s = "**" + s + "**"
	}
	if cr.HasPaper {
		s += fmt.Sprintf(" (%.3f, %+.3f)", cr.Paper.Mistake, cr.Mistake-cr.Paper.Mistake)
	}
	return s
}

func fmtSV(cr *cellResult) string {
	s := fmt.Sprintf("%.1f ± %.1f", cr.SV, cr.SVStd)
	if cr.HasPaper {
		s += fmt.Sprintf(" (%.1f, %+.1f)", cr.Paper.SV, cr.SV-cr.Paper.SV)
	}
	return s
}

func fmtSeconds(v float64) string {
	switch {
	case v < 0.01:
		return fmt.Sprintf("%.5f", v)
	case v < 1:
		return fmt.Sprintf("%.4f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func fmtTime(cr *cellResult) string {
	s := fmtSeconds(cr.Seconds)
	if cr.HasPaper {
		s += fmt.Sprintf(" (%s)", fmtSeconds(cr.Paper.Time))
	}
	return s
}

// renderTable2 writes Table 2: Perceptron and OGD per dataset.
func (t *paperTables) renderTable2(b *bytes.Buffer) {
	var rows []string
	for _, d := range t.Opt.Datasets {
		line := "| " + d.Name
		any := false
		for _, a := range unbudgetedAlgorithms {
			cr, ok := t.cell(d.Name, a, 0)
			if !ok {
				line += " | not run | | "
				continue
			}
			any = true
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
}

// renderTable3 writes Table 3: one block per dataset, a row per budgeted
// algorithm, two columns (mistakes, time) per budget.
func (t *paperTables) renderTable3(b *bytes.Buffer) {
	wrote := false
	for _, d := range t.Opt.Datasets {
		var rows []string
		for _, a := range budgetedAlgorithms {
			line := "| " + displayName(a)
			any := false
			for _, bud := range d.Budgets {
				cr, ok := t.cell(d.Name, a, bud)
				if !ok {
					line += " | not run | "
					continue
				}
				any = true
				line += " | " + fmtMistake(cr) + " | " + fmtTime(cr)
			}
			if any {
				rows = append(rows, line+" |")
			} else if slices.Contains(t.Opt.Algorithms, a) && t.Opt.skipped(d, a) {
				rows = append(rows, "| "+displayName(a)+strings.Repeat(" | not run (--skip) | ", len(d.Budgets))+" |")
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
}

// renderSelected writes the selected parameters of every cell.
func (t *paperTables) renderSelected(b *bytes.Buffer) {
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
		fmt.Fprintf(b, "| %s | %s | %s | %g | %g | %s | %.3f over %d runs |\n", c.Dataset, displayName(c.Algo), budget,
			cr.Sel.Params.Eta, cr.Sel.Params.LambdaT2, gamma, cr.Sel.Mean, cr.Sel.Runs)
	}
	b.WriteString("\nRBP, Forgetron, Projectron, Projectron++ and Perceptron have no parameter to select.\n\n")
}

func fmtGrid(xs []float64) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf("%g", x))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// renderProtocol states exactly what was run.
func (t *paperTables) renderProtocol(b *bytes.Buffer) {
	o := t.Opt
	var names []string
	for _, d := range o.Datasets {
		names = append(names, fmt.Sprintf("%s (`%s`)", d.Name, d.File))
	}
	fmt.Fprintf(b, `- **Data**: %s from %s, raw features (no scaling). The paper's "w8a" of 24,692 rows is LIBSVM's w7a.
- **Model**: Gaussian kernel κ(x, y) = exp(−‖x−y‖²/(2σ²)) with σ = %g, hinge loss, BOGD/BOGD++ projection %q.
- **Protocol**: each run is one online pass over a random permutation of all T rows: predict sgn f(x) (0 counts as +1), count a mistake, then update. Mistake rate = mistakes / T; support vectors counted at the end of the pass; time = wall-clock seconds of the pass.
- **Parameter grid** (%q): λ ∈ %s / T², η ∈ %s, γ ∈ %s. BOGD and BOGD++ select λ, η and γ; OGD selects λ and η; RBP, Forgetron, Projectron, Projectron++ and Perceptron have no parameter.
- **Selection** (phase select): for every (dataset, algorithm, budget) whose algorithm has parameters, every grid point runs on the %d *selection* permutations r = 0..%d, the permutation of r being drawn by a PCG generator seeded (%d, r) and the learner's own random choices seeded learnerSeed(%d, r). The grid point with the lowest mean mistake rate over those runs is selected (ties: smallest λ, then η, then γ).
- **Reported runs** (phase report): every cell runs its selected parameters on the %d *report* permutations r = 0..%d, drawn by PCG (%d, r), learner seed learnerSeed(%d, r): the same orders as `+"`bogdbench run --seed %d --runs %d`"+`, so a cell can be rerun alone with the parameters of the table below. Tables show mean ± sample standard deviation (n−1) over these runs.
- **Selection never sees a reported permutation**: the two streams have different seeds (%d vs %d; equal seeds are refused), so the (stream seed, index) pairs of selection and reporting never intersect, and selection reads only records of the selection stream: changing --seed changes no selected parameter. This replaces the paper's unspecified "cross validation" by held-out permutations of the same data.
- **Cells**: "ours ± std (paper, diff)" with diff = ours − paper (percentage points for mistake rates); times are "ours (paper)". Bold: the lowest mean mistake rate of each dataset × budget block of Table 3 among the algorithms run.
- **Timing**: %d passes ran in parallel (--workers) on %s, %d logical cores, SIMD %s; the paper's times are C++ on a 2.5 GHz CPU.
`,
		strings.Join(names, ", "), "`"+o.DatasetsDir+"`", o.Sigma, projectionName(o.Projection),
		o.Grid.Name, fmtGrid(o.Grid.LambdaT2), fmtGrid(o.Grid.Eta), fmtGrid(o.Grid.Gamma),
		o.SelectRuns, o.SelectRuns-1, o.SelectSeed, o.SelectSeed,
		o.Runs, o.Runs-1, o.Seed, o.Seed, o.Seed, o.Runs,
		o.SelectSeed, o.Seed,
		o.Workers, cpuid.CPU.BrandName, runtime.NumCPU(), strings.Join(t.SIMD, ", "))
	var left []string
	for _, d := range o.Datasets {
		for _, a := range o.Algorithms {
			if o.skipped(d, a) {
				left = append(left, d.Name+": "+displayName(a))
			}
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(b, "- **Left out** (--skip): %s.\n", strings.Join(left, ", "))
	}
	b.WriteString("\n")
}

// writePaperReport writes OUT/paper.md and, with opt.Plots, the plots.
func writePaperReport(opt *paperOptions, t *paperTables) error {
	if err := os.MkdirAll(opt.OutDir, 0o755); err != nil {
		return err
	}
	var plots []plotFile
	if opt.Plots {
		var err error
		if plots, err = writePlots(filepath.Join(opt.OutDir, "plots"), t); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	title := "Reproduction of Tables 2 and 3"
	if opt.Quick {
		title += " (quick mode)"
	}
	fmt.Fprintf(&b, "# %s of Zhao et al., \"Fast Bounded Online Gradient Descent Algorithms for Scalable Kernel-Based Online Learning\" (ICML 2012)\n\n", title)
	fmt.Fprintf(&b, "Generated by `%s` on %s. Raw runs: `%s` (one JSON object per pass).\n\n", opt.CommandLine, time.Now().UTC().Format("2006-01-02 15:04 MST"), filepath.Base(opt.Results))
	if opt.Quick {
		fmt.Fprintf(&b, "Quick mode: %d reported runs, %d selection runs, a coarse grid and only some datasets; the full reproduction is `bogdbench paper` (see benchmarks/README.md).\n\n", opt.Runs, opt.SelectRuns)
	}
	b.WriteString("## Protocol\n\n")
	t.renderProtocol(&b)
	b.WriteString("## Table 2. Non-budget algorithms\n\n")
	t.renderTable2(&b)
	b.WriteString("## Table 3. Budgeted algorithms\n\n")
	t.renderTable3(&b)
	b.WriteString("## Differences from the paper\n\n")
	t.renderDifferences(&b)
	b.WriteString("## Selected parameters\n\n")
	t.renderSelected(&b)
	if len(plots) > 0 {
		b.WriteString("## Plots\n\nOnline mistake rate against examples seen (mean over the reported runs; Perceptron and OGD without budget for reference), and mistake rate against time per pass across budgets. SVG versions beside the PNGs.\n\n")
		for _, p := range plots {
			fmt.Fprintf(&b, "![%s](%s)\n\n", p.Title, filepath.ToSlash(p.PNG))
		}
	}
	return os.WriteFile(filepath.Join(opt.OutDir, "paper.md"), b.Bytes(), 0o644)
}
