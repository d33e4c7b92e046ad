package paper

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/cpuid/v2"

	"github.com/bogd-project/bogd/experiment"
)

// ReportName is the report's file name in the output directory; the
// figures go to its subdirectory experiment.PlotsDir.
const ReportName = "paper.md"

// ReportPaths lists the files the report may write.
func (o *Options) ReportPaths() []string {
	paths := []string{filepath.Join(o.OutDir, ReportName)}
	if o.Plots {
		for _, d := range o.Datasets {
			paths = append(paths, experiment.FigurePaths(filepath.Join(o.OutDir, experiment.PlotsDir), d.Name, d.Budgets)...)
		}
	}
	return paths
}

// renderProtocol states exactly what was run.
func (t *Tables) renderProtocol(b *bytes.Buffer) {
	o := t.Opt
	var names []string
	for _, d := range o.Datasets {
		names = append(names, fmt.Sprintf("%s (`%s`)", d.Name, d.File))
	}
	var rules []string
	for _, a := range Algorithms {
		if slices.ContainsFunc(t.Order, func(c experiment.Cell) bool { return c.Algo == a }) {
			rules = append(rules, fmt.Sprintf("%s %d", experiment.DisplayName(a), a.RuleVersion()))
		}
	}
	fmt.Fprintf(b, `- **Data**: %s from %s, raw features (no scaling). The paper's "w8a" of 24,692 rows is LIBSVM's w7a.
- **Model**: Gaussian kernel κ(x, y) = exp(−‖x−y‖²/(2σ²)) with σ = %g, hinge loss, BOGD/BOGD++ projection %q.
- **Protocol**: each run is one online pass over a random permutation of all T rows: predict sgn f(x) (0 counts as +1), count a mistake, then update. Mistake rate = mistakes / T; support vectors counted at the end of the pass; time = wall-clock seconds of the pass.
- **Parameter grid** (%q): %s. BOGD and BOGD++ select λ, η and γ; OGD selects λ and η; RBP, Forgetron, Projectron, Projectron++ and Perceptron have no parameter.
- **Selection** (phase select): for every (dataset, algorithm, budget) whose algorithm has parameters, every grid point runs on the %d *selection* permutations r = 0..%d, the permutation of r being drawn by a PCG generator seeded (%d, r) and the learner's own random choices seeded learnerSeed(%d, r). The grid point with the lowest mean mistake rate over those runs is selected (ties: smallest λ, then η, then γ).
- **Reported runs** (phase report): every cell runs its selected parameters on the %d *report* permutations r = 0..%d, drawn by PCG (%d, r), learner seed learnerSeed(%d, r): the same orders as `+"`bogdbench run --seed %d --runs %d`"+`, so a cell can be rerun alone with the parameters of the table below. Tables show mean ± sample standard deviation (n−1) over these runs.
- **Selection never sees a reported permutation**: the two streams have different seeds (%d vs %d; equal seeds are refused), so the (stream seed, index) pairs of selection and reporting never intersect, and selection reads only records of the selection stream: changing --seed changes no selected parameter. This replaces the paper's unspecified "cross validation" by held-out permutations of the same data.
- **Rule versions** (of each algorithm's arithmetic; every record carries the version that computed it, and records of other versions are left out): %s.
- **Cells**: "ours ± std (paper, diff)" with diff = ours − paper (percentage points for mistake rates); times are "ours (paper)". Bold: the lowest mean mistake rate of each dataset × budget block of Table 3 among the algorithms run. ‡: at the majority-class rate (see under the tables).
- **Timing**: %s (--workers) on %s, %d logical cores, SIMD %s; the paper's times are C++ on a 2.5 GHz CPU.
`,
		strings.Join(names, ", "), "`"+o.DatasetsDir+"`", o.Sigma, experiment.ProjectionName(o.Projection),
		o.Grid.Name, o.Grid.Describe(),
		o.SelectRuns, o.SelectRuns-1, o.SelectSeed, o.SelectSeed,
		o.Runs, o.Runs-1, o.Seed, o.Seed, o.Seed, o.Runs,
		o.SelectSeed, o.Seed, strings.Join(rules, ", "),
		experiment.Parallelism(o.Workers), cpuid.CPU.BrandName, runtime.NumCPU(), strings.Join(t.SIMD, ", "))
	var left []string
	for _, d := range o.Datasets {
		for _, a := range o.Algorithms {
			if o.skipped(d, a) {
				left = append(left, d.Name+": "+experiment.DisplayName(a))
			}
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(b, "- **Left out** (--skip): %s.\n", strings.Join(left, ", "))
	}
	b.WriteString("\n")
}

// WriteReport writes OUT/paper.md and, with opt.Plots, the figures in
// OUT/plots, every file atomically. Unless replace, it refuses to replace
// existing files (an *experiment.ExistsError).
func WriteReport(opt *Options, t *Tables, replace bool) error {
	var sets []experiment.FigureSet
	if opt.Plots {
		sets = t.figureSets()
	}
	return experiment.WriteReport(opt.OutDir, ReportName, sets, replace, func(plots []experiment.FigureFile) []byte {
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
		return b.Bytes()
	})
}

// figureSets is the figure data of the tables, one set per dataset, the
// curves averaged over the reported runs.
func (t *Tables) figureSets() []experiment.FigureSet {
	var out []experiment.FigureSet
	for _, d := range t.Opt.Datasets {
		fs := experiment.FigureSet{Name: d.Name, Budgets: d.Budgets, Algorithms: Algorithms, Cells: map[experiment.FigureKey]experiment.FigureData{}}
		for c, cr := range t.Cells {
			if c.Dataset != d.Name {
				continue
			}
			fs.Cells[experiment.FigureKey{Algo: c.Algo, Budget: c.Budget}] = cr.Curve()
		}
		out = append(out, fs)
	}
	return out
}
