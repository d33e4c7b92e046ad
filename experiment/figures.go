package experiment

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/internal/atomicfile"
	"github.com/bogd-project/bogd/task"
)

// The figures of every experiment are drawn by one code path: each turns
// its results into FigureSets, and DrawFigures draws, for every dataset, the
// online metric (mistake rate or MSE) against examples seen (one figure per
// budget) and the metric against time per pass across budgets.

// FigureFile is one written plot, its paths relative to the output directory.
type FigureFile struct {
	Title, PNG, SVG string
}

// FigureKey names one (algorithm, budget) cell of a dataset; Budget is 0 for
// algorithms without a budget.
type FigureKey struct {
	Algo   bogd.Algorithm
	Budget int
}

// FigureData is what the figures show of one cell.
type FigureData struct {
	Curve   plotter.XYs // mean online metric against examples seen (MeanCurve)
	Metric  float64     // mean metric of a pass: mistake rate (%) or MSE
	Seconds float64     // mean seconds per pass
}

// FigureSet is everything the figures of one dataset show.
type FigureSet struct {
	Name       string // the dataset, in file names (and titles, without Label)
	Label      string // the dataset and setting in titles ("" for Name)
	Task       task.Task
	Budgets    []int            // ascending; one online figure each
	Algorithms []bogd.Algorithm // legend order
	Cells      map[FigureKey]FigureData
}

// title is the set's name in titles.
func (d FigureSet) title() string { return cmp.Or(d.Label, d.Name) }

// metricNames are the metric of a task in titles and on axes.
func metricNames(t task.Task) (title, axis string) {
	if t == task.Regression {
		return "MSE", "mean squared error"
	}
	return "mistake rate", "mistake rate (%)"
}

// palette has one colour per algorithm (index bogd.Algorithm).
var palette = []color.Color{
	color.RGBA{0xd6, 0x27, 0x28, 0xff}, // BOGD: red
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, // BOGD++: blue
	color.RGBA{0x7f, 0x7f, 0x7f, 0xff}, // Perceptron: grey
	color.RGBA{0x17, 0xbe, 0xcf, 0xff}, // OGD: cyan
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, // RBP: green
	color.RGBA{0xbc, 0xbd, 0x22, 0xff}, // Forgetron: olive
	color.RGBA{0x94, 0x67, 0xbd, 0xff}, // Projectron: purple
	color.RGBA{0xff, 0x7f, 0x0e, 0xff}, // Projectron++: orange
	color.RGBA{0x8c, 0x56, 0x4b, 0xff}, // NORMA: brown
	color.RGBA{0xe3, 0x77, 0xc2, 0xff}, // BOGD (oldest removal): pink
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // BPA-S: black
	color.RGBA{0x98, 0xdf, 0x8a, 0xff}, // NOGD: light green
	color.RGBA{0x9e, 0xda, 0xe5, 0xff}, // BSGD-merge: light cyan
	color.RGBA{0xc5, 0xb0, 0xd5, 0xff}, // FOGD: lavender
	color.RGBA{0xff, 0xbb, 0x78, 0xff}, // light orange
	color.RGBA{0xad, 0x49, 0x4a, 0xff}, // dark red
}

var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{},
	draw.TriangleGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{},
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{},
	draw.TriangleGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{},
}

// algoStyle gives every algorithm the same colour and glyph in every plot;
// algorithms without a budget are dashed.
func algoStyle(a bogd.Algorithm) (color.Color, draw.GlyphDrawer, []vg.Length) {
	i := int(a) % len(palette)
	var dashes []vg.Length
	if !a.Budgeted() {
		dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return palette[i], glyphs[i], dashes
}

// DisplayName is an algorithm's name as the paper prints it.
func DisplayName(a bogd.Algorithm) string {
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
	case bogd.NORMA:
		return "NORMA"
	case bogd.BOGDOldest:
		return "BOGD (oldest removal)"
	case bogd.BPAS:
		return "BPA-S"
	case bogd.NOGD:
		return "NOGD"
	case bogd.BSGDMerge:
		return "BSGD-merge"
	case bogd.FOGD:
		return "FOGD"
	}
	return a.String()
}

// legendName is an algorithm's name in the legends.
func legendName(a bogd.Algorithm) string {
	if !a.Budgeted() {
		return DisplayName(a) + " (no budget)"
	}
	return DisplayName(a)
}

// MeanCurve averages the online metric of passes over rows rows at their
// checkpoints: the cumulative mistake rate (%) of a classification task or
// the cumulative mean squared error of regression after the first
// ⌈(i+1)·rows/K⌉ examples, K the number of checkpoints of the first pass
// (the positions of Checkpoints(rows) when K = min(100, rows)). Passes
// with another number of checkpoints are left out.
func MeanCurve(rows int, passes []Result, tk task.Task) plotter.XYs {
	runs := make([][]float64, len(passes))
	scale := 100.0
	for r, p := range passes {
		if tk == task.Regression {
			runs[r], scale = p.ErrorCheckpoints, 1
			continue
		}
		runs[r] = make([]float64, len(p.Checkpoints))
		for i, m := range p.Checkpoints {
			runs[r][i] = float64(m)
		}
	}
	if len(runs) == 0 || len(runs[0]) == 0 {
		return nil
	}
	k := len(runs[0])
	xys := make(plotter.XYs, k)
	for i := range xys {
		pos := ((i+1)*rows + k - 1) / k
		xys[i].X = float64(pos)
		var sum float64
		var count int
		for _, r := range runs {
			if len(r) == k {
				sum += scale * r[i] / float64(pos)
				count++
			}
		}
		xys[i].Y = sum / float64(count)
	}
	return xys
}

// onlineFigureName and timeFigureName are the file names, without
// extension, of the figures of a dataset.
func onlineFigureName(ds string, budget int) string { return fmt.Sprintf("%s-B%d-online", ds, budget) }
func timeFigureName(ds string) string               { return ds + "-time" }

// FigurePaths lists the PNG and SVG files in dir that DrawFigures may write
// for a dataset and budgets.
func FigurePaths(dir, ds string, budgets []int) []string {
	var out []string
	for _, b := range budgets {
		out = append(out, figureFiles(dir, onlineFigureName(ds, b))...)
	}
	return append(out, figureFiles(dir, timeFigureName(ds))...)
}

// figureFiles are the two files of one figure.
func figureFiles(dir, name string) []string {
	base := filepath.Join(dir, name)
	return []string{base + ".png", base + ".svg"}
}

// figure is one plot to draw, with its legend.
type figure struct {
	name, title string // file name without extension; title in reports
	plot        *plot.Plot
	legend      plot.Legend
}

// figures builds the figures of one dataset: the online metric for every
// budget (algorithms without a budget in each), then the metric against
// time per pass across budgets. Figures without data are left out.
func figures(d FigureSet) ([]figure, error) {
	var out []figure
	metric, axis := metricNames(d.Task)
	for _, b := range d.Budgets {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s, B = %d: online %s", d.title(), b, metric)
		p.X.Label.Text = "examples seen"
		p.X.Tick.Marker = countTicks{}
		p.Y.Label.Text = axis
		p.Add(plotter.NewGrid())
		leg := plot.NewLegend()
		lines := 0
		for _, a := range d.Algorithms {
			budget := b
			if !a.Budgeted() {
				budget = 0
			}
			pc, ok := d.Cells[FigureKey{a, budget}]
			if !ok || len(pc.Curve) == 0 {
				continue
			}
			l, err := plotter.NewLine(pc.Curve)
			if err != nil {
				return nil, fmt.Errorf("%s online curve of %s: %w", d.Name, legendName(a), err)
			}
			c, _, dashes := algoStyle(a)
			l.Color, l.Dashes, l.Width = c, dashes, vg.Points(1.5)
			p.Add(l)
			leg.Add(legendName(a), l)
			lines++
		}
		if lines > 0 {
			out = append(out, figure{onlineFigureName(d.Name, b), fmt.Sprintf("%s, B=%d: online %s", d.title(), b, metric), p, leg})
		}
	}

	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s against time per pass (budgets %v)", d.title(), metric, d.Budgets)
	p.X.Label.Text = "seconds per pass (log scale)"
	p.Y.Label.Text = axis
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	leg := plot.NewLegend()
	lines := 0
	for _, a := range d.Algorithms {
		var xys plotter.XYs
		budgets := d.Budgets
		if !a.Budgeted() {
			budgets = []int{0}
		}
		for _, b := range budgets {
			if pc, ok := d.Cells[FigureKey{a, b}]; ok && pc.Seconds > 0 {
				xys = append(xys, plotter.XY{X: pc.Seconds, Y: pc.Metric})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, s, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("%s %s against time of %s: %w", d.Name, metric, legendName(a), err)
		}
		c, glyph, dashes := algoStyle(a)
		l.Color, l.Dashes, l.Width = c, dashes, vg.Points(1.5)
		s.Color, s.Shape, s.Radius = c, glyph, vg.Points(3)
		p.Add(l, s)
		leg.Add(legendName(a), l, s)
		lines++
	}
	if lines > 0 {
		if p.X.Min == p.X.Max { // one time: the axis would be padded by ±1 s, below 0
			p.X.Min, p.X.Max = p.X.Min/2, p.X.Max*2
		}
		out = append(out, figure{timeFigureName(d.Name), d.title() + ": " + metric + " against time per pass", p, leg})
	}
	return out, nil
}

// DrawFigures writes, into dir (created if missing), the figures of every
// dataset, each as PNG and SVG. Unless overwrite, it writes nothing when
// one of the files exists already. Paths returned are relative to dir's
// parent.
func DrawFigures(dir string, sets []FigureSet, overwrite bool) ([]FigureFile, error) {
	var figs []figure
	for _, d := range sets {
		f, err := figures(d)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f...)
	}
	if !overwrite {
		var paths []string
		for _, f := range figs {
			paths = append(paths, figureFiles(dir, f.name)...)
		}
		if err := CheckFree(paths); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []FigureFile
	for _, f := range figs {
		png, svg, err := renderFigure(f)
		if err != nil {
			return nil, err
		}
		files := figureFiles(dir, f.name)
		for i, data := range [][]byte{png, svg} {
			if err := atomicfile.Write(files[i], data, atomicfile.Options{NoClobber: !overwrite}); err != nil {
				return nil, fmt.Errorf("plot: %w", err)
			}
		}
		rel := filepath.Join(filepath.Base(dir), f.name)
		out = append(out, FigureFile{Title: f.title, PNG: rel + ".png", SVG: rel + ".svg"})
	}
	return out, nil
}

// renderFigure draws f as PNG and SVG with the legend in a column to the
// right of the plot, where it hides no data.
func renderFigure(f figure) (png, svg []byte, err error) {
	// gonum/plot panics on data it cannot draw (a log axis reaching 0):
	// report that as an error naming the figure.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot %s: %v", f.name, r)
		}
	}()
	const w, h, legendWidth = 8.5 * vg.Inch, 4.5 * vg.Inch, 2.2 * vg.Inch
	drawTo := func(c vg.CanvasSizer) {
		dc := draw.New(c)
		f.plot.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
		leg := f.legend
		leg.Left, leg.Top = true, true
		leg.Draw(draw.Crop(dc, w-legendWidth+vg.Points(6), 0, 0, -vg.Points(24)))
	}
	img := vgimg.New(w, h)
	drawTo(img)
	sc := vgsvg.New(w, h)
	drawTo(sc)
	var pb, sb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&pb); err != nil {
		return nil, nil, fmt.Errorf("plot %s.png: %w", f.name, err)
	}
	if _, err := sc.WriteTo(&sb); err != nil {
		return nil, nil, fmt.Errorf("plot %s.svg: %w", f.name, err)
	}
	return pb.Bytes(), sb.Bytes(), nil
}

// CheckFree returns an *ExistsError naming those of paths that exist.
func CheckFree(paths []string) error {
	var exist []string
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			exist = append(exist, p)
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if len(exist) > 0 {
		return &ExistsError{Paths: exist}
	}
	return nil
}

// countTicks are plot.DefaultTicks labelled as plain numbers ("2500",
// not "2500.00").
type countTicks struct{}

func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
		}
	}
	return ticks
}
