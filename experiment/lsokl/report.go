package lsokl

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/klauspost/cpuid/v2"

	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/task"
)

// ReportName is the report's file name in the output directory; the
// figures go to its subdirectory experiment.PlotsDir.
const ReportName = "lsokl.md"

// figureName is the file-name stem of dataset d's figures under width w.
func figureName(d Dataset, w Width) string {
	if w == SelectedWidth {
		return d.Name + "-sigma-selected"
	}
	return d.Name + "-sigma8"
}

// ReportPaths lists the files the report may write.
func (o *Options) ReportPaths() []string {
	paths := []string{filepath.Join(o.OutDir, ReportName)}
	if o.Plots {
		for _, d := range o.Datasets {
			for _, w := range []Width{FixedWidth, SelectedWidth} {
				paths = append(paths, experiment.FigurePaths(filepath.Join(o.OutDir, experiment.PlotsDir), figureName(d, w), o.budgets(d))...)
			}
		}
	}
	return paths
}

// Report collects the tables and writes the report.
func (o *Options) Report(rs *experiment.ResultSet, replace bool) error {
	tables, err := Collect(o, rs)
	if err != nil {
		return err
	}
	return WriteReport(o, tables, replace)
}

// renderProtocol states exactly what was run.
func (t *Tables) renderProtocol(b *bytes.Buffer) {
	o, tab := t.Opt, t.Opt.Table
	var data, widths []string
	for _, d := range o.Datasets {
		s := fmt.Sprintf("%s (`%s`, %d rows", d.Name, d.File, d.Rows)
		if d.PaperRows != d.Rows {
			s += fmt.Sprintf("; the paper's %d", d.PaperRows)
		}
		data = append(data, s+")")
		widths = append(widths, fmt.Sprintf("%s {%s} (median %.4g)", d.Name, joinFloats(d.Widths()), d.Median))
	}
	var rules []string
	for _, a := range o.Algorithms {
		rules = append(rules, fmt.Sprintf("%s %d", experiment.DisplayName(a), a.RuleVersion()))
	}
	fmt.Fprintf(b, "- **Data**: %s, from `%s`.", strings.Join(data, ", "), o.DatasetsDir)
	switch tab.Task {
	case task.Regression:
		b.WriteString(" Read as regression explicitly (integer labels, such as abalone's and cpusmall's, would otherwise be taken for classes), then every feature and the label min-max scaled to [0, 1] over the whole file, as the toolbox's data were (its `scale.m`); the MSE is on the scaled label, as the paper reports.")
		for _, d := range o.Datasets {
			if d.Prescaled {
				fmt.Fprintf(b, " %s is already so scaled: scaling it again changes no value (checked when it is read).", d.Name)
			}
		}
		b.WriteString("\n")
	default:
		b.WriteString(" Features as in the files (no scaling).\n")
	}
	fmt.Fprintf(b, "- **Model**: Gaussian kernel κ(x, y) = exp(−‖x−y‖²/(2σ²)); ")
	switch tab.Task {
	case task.Regression:
		fmt.Fprintf(b, "ε-insensitive losses with ε = %g (NORMA adapts it from there, ν = %g); ", tab.Epsilon, tab.Nu)
	case task.Multiclass:
		b.WriteString("multi-class hinge loss with max-score updates (class y and the best wrong class); ")
	default:
		b.WriteString("hinge loss; ")
	}
	fmt.Fprintf(b, "NOGD's rank k = %g·B, FOGD's D = %g·B random Fourier features; BOGD and BOGD++ with the projection \"clip\".\n", tab.RankFactor, tab.FeatureFactor)
	fmt.Fprintf(b, "- **Protocol**: each run is one online pass over a random permutation of all rows: predict, score the prediction (%s), then update. Time = wall-clock seconds of the pass.\n", t.protocolMetric())
	fmt.Fprintf(b, "- **Parameter grid** (%q): %s; a cell varies exactly the parameters its rule reads (η of OGD, NORMA, NOGD, FOGD, BOGD, BOGD++, BOGD-oldest", o.Grid.Name, o.Grid.Describe())
	if tab.Task == task.Regression {
		b.WriteString(", and of the Perceptron, RBP, Forgetron and Projectron in regression")
	}
	b.WriteString("; λ of OGD, NORMA, BSGD-merge and the BOGDs; γ of the BOGDs; C of BPA-S). η comes from the paper's search set {2, 0.2, …, 0.0002}; the other lists hold the toolbox's driver setting.\n")
	fmt.Fprintf(b, "- **Kernel width**: two tables. *σ = 8*: the paper's width everywhere. *σ selected*: σ is one more grid parameter, for every algorithm, over σ = 8 and %v × the median Euclidean distance between rows (`experiment.MedianDistance`: all pairs of %d rows drawn by the seeded permutation (%d, 0)), rounded to two digits: %s.\n",
		WidthFactors, MedianSample, MedianSeed, strings.Join(widths, "; "))
	selection := fmt.Sprintf("the %d *selection* permutations r = 0..%d", o.SelectRuns, o.SelectRuns-1)
	if o.SelectRuns == 1 {
		selection = "one *selection* permutation, r = 0"
	}
	fmt.Fprintf(b, "- **Selection**: every grid point of every cell runs on %s, drawn by a PCG generator seeded (%d, r), learner seed learnerSeed(%d, r); the point of lowest mean %s is selected (ties: the grid's order). The σ = 8 points of both tables are the same jobs.\n",
		selection, o.SelectSeed, o.SelectSeed, t.shortMetric())
	fmt.Fprintf(b, "- **Reported runs**: every cell runs its selected parameters on the %d *report* permutations r = 0..%d, PCG (%d, r), learner seed learnerSeed(%d, r): the orders of `bogdbench run --seed %d --runs %d`. Mean ± sample standard deviation (n−1). Selection never sees a reported permutation: the streams' seeds differ (%d vs %d).\n",
		o.Runs, o.Runs-1, o.Seed, o.Seed, o.Seed, o.Runs, o.SelectSeed, o.Seed)
	fmt.Fprintf(b, "- **Rule versions** (every record carries the version that computed it): %s.\n", strings.Join(rules, ", "))
	fmt.Fprintf(b, "- **Effort**: %d passes (selection and reported, every job once), %.2f hours of pass time in all.\n", t.Passes, t.PassSeconds/3600)
	fmt.Fprintf(b, "- **Timing**: %s (--workers) on %s, %d logical cores, SIMD %s, a machine shared with other work; the paper's times are MATLAB R2013b on a 3.0 GHz 6-core machine.\n\n",
		experiment.Parallelism(o.Workers), cpuid.CPU.BrandName, runtime.NumCPU(), strings.Join(t.SIMD, ", "))
}

// protocolMetric says how a prediction is scored.
func (t *Tables) protocolMetric() string {
	if t.regression() {
		return "the squared error (y − f(x))² of the prediction made before the update; MSE = their mean over the pass"
	}
	return "a mistake when the predicted label is wrong; mistake rate = mistakes / rows"
}

func joinFloats(xs []float64) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprintf("%g", x))
	}
	return strings.Join(s, ", ")
}

// WriteReport writes OUT/lsokl.md and, with opt.Plots, the figures in
// OUT/plots, every file atomically. Unless replace, it refuses to replace
// existing files (an *experiment.ExistsError).
func WriteReport(opt *Options, t *Tables, replace bool) error {
	var sets []experiment.FigureSet
	if opt.Plots {
		sets = t.figureSets()
	}
	return experiment.WriteReport(opt.OutDir, ReportName, sets, replace, func(plots []experiment.FigureFile) []byte {
		tab := opt.Table
		var b bytes.Buffer
		title := fmt.Sprintf("Reproduction of Table %d (%s)", tab.Number, tab.Name)
		if opt.Quick {
			title += ", quick mode,"
		}
		fmt.Fprintf(&b, "# %s of Lu, Hoi, Wang, Zhao, Liu, \"Large Scale Online Kernel Learning\" (JMLR 2016)\n\n", title)
		fmt.Fprintf(&b, "Generated by `%s` on %s. Raw runs: `%s` (one JSON object per pass). Every cell is \"ours ± std (theirs)\".\n\n",
			opt.CommandLine, time.Now().UTC().Format("2006-01-02 15:04 MST"), filepath.Base(opt.Results))
		if opt.Quick {
			fmt.Fprintf(&b, "Quick mode: %d reported runs, %d selection runs, a coarse grid and only the datasets of at most %d rows; the full reproduction is `bogdbench lsokl --table %s`.\n\n", opt.Runs, opt.SelectRuns, QuickRows, tab.Name)
		}
		b.WriteString("## Protocol\n\n")
		t.renderProtocol(&b)
		for _, w := range opt.widths() {
			fmt.Fprintf(&b, "## Table %d, %s\n\n", tab.Number, w)
			if w == PaperScaleWidth {
				t.renderPaperScale(&b)
			}
			t.renderMetricTable(&b, w)
			t.renderTimeTable(&b, w)
		}
		b.WriteString("## Differences from the paper\n\n")
		t.renderDataNotes(&b)
		t.renderDifferences(&b)
		b.WriteString("## Targets\n\n")
		t.renderTargets(&b)
		b.WriteString("## Selected parameters\n\n")
		for _, w := range opt.widths() {
			t.renderSelected(&b, w)
		}
		if len(plots) > 0 {
			fmt.Fprintf(&b, "## Plots\n\nOnline %s against examples seen (mean over the reported runs), and %s against time per pass, at σ = 8 and with σ selected. SVG versions beside the PNGs.\n\n", t.shortMetric(), t.shortMetric())
			for _, p := range plots {
				fmt.Fprintf(&b, "![%s](%s)\n\n", p.Title, filepath.ToSlash(p.PNG))
			}
		}
		return b.Bytes()
	})
}

// renderPaperScale introduces the table at the paper's width on the
// paper's feature scale.
func (t *Tables) renderPaperScale(b *bytes.Buffer) {
	var ds []string
	for _, d := range t.datasets(PaperScaleWidth) {
		ds = append(ds, fmt.Sprintf("%s %s", d.Name, d.paperSetting()))
	}
	fmt.Fprintf(b, "Where our copy differs from the paper's by the scale of its features alone, this is the paper's σ = 8 on its copy's scale: %s (a Gaussian kernel of width σ on features x is the kernel of width σ/s on features s·x; a copy scaled to [−1, 1] is twice one scaled to [0, 1]). Parameters are selected as in the σ = 8 table.\n\n", strings.Join(ds, ", "))
}

// renderDataNotes lists how the copies here differ from the paper's, and
// what σ = 8 means on each: the kernel value of two rows at the median
// distance (near 1: the kernel hardly tells rows apart; near 0: no two
// rows see each other).
func (t *Tables) renderDataNotes(b *bytes.Buffer) {
	var at []string
	for _, d := range t.Opt.Datasets {
		at = append(at, fmt.Sprintf("%s %.3g", d.Name, math.Exp(-d.Median*d.Median/(2*PaperSigma*PaperSigma))))
	}
	fmt.Fprintf(b, "What σ = 8 means on each dataset: the kernel value exp(−m²/(2·8²)) of two rows at the median distance m: %s.\n\n", strings.Join(at, ", "))
	var notes []string
	for _, d := range t.Opt.Datasets {
		if d.Differs != "" {
			notes = append(notes, fmt.Sprintf("- **%s**: %s.", d.Name, d.Differs))
		}
	}
	if len(notes) == 0 {
		b.WriteString("Every dataset here is the paper's copy.\n\n")
		return
	}
	b.WriteString("Where our data differ from the paper's:\n\n" + strings.Join(notes, "\n") + "\n\n")
}

// figureSets is the figure data of the tables: per dataset and width, the
// curves averaged over the reported runs.
func (t *Tables) figureSets() []experiment.FigureSet {
	var out []experiment.FigureSet
	for _, d := range t.Opt.Datasets {
		for _, w := range []Width{FixedWidth, SelectedWidth} {
			fs := experiment.FigureSet{
				Name: figureName(d, w), Label: fmt.Sprintf("%s (%s)", d.Name, w), Task: t.Opt.Table.Task,
				Budgets: t.Opt.budgets(d), Algorithms: t.Opt.Algorithms, Cells: map[experiment.FigureKey]experiment.FigureData{},
			}
			for c, cr := range t.Cells[w] {
				if c.Dataset != d.Name {
					continue
				}
				fs.Cells[experiment.FigureKey{Algo: c.Algo, Budget: c.Budget}] = cr.Curve()
			}
			out = append(out, fs)
		}
	}
	return out
}
