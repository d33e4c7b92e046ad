package main

import (
	"fmt"
	"image/color"
	"io"
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
)

// plotFile is one written plot, its paths relative to the output directory.
type plotFile struct {
	Title, PNG, SVG string
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
}

var glyphs = []draw.GlyphDrawer{
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

// savePlot writes p as base.png and base.svg with the legend in a column
// to the right of the plot, where it hides no data.
func savePlot(p *plot.Plot, leg plot.Legend, base string) error {
	const w, h, legendWidth = 8.5 * vg.Inch, 4.5 * vg.Inch, 2.2 * vg.Inch
	drawTo := func(c vg.CanvasSizer) {
		dc := draw.New(c)
		p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
		leg.Left, leg.Top = true, true
		leg.Draw(draw.Crop(dc, w-legendWidth+vg.Points(6), 0, 0, -vg.Points(24)))
	}
	img := vgimg.New(w, h)
	drawTo(img)
	svg := vgsvg.New(w, h)
	drawTo(svg)
	for _, out := range []struct {
		ext string
		to  interface {
			WriteTo(io.Writer) (int64, error)
		}
	}{{".png", vgimg.PngCanvas{Canvas: img}}, {".svg", svg}} {
		f, err := os.Create(base + out.ext)
		if err != nil {
			return err
		}
		_, err = out.to.WriteTo(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("plot %s: %w", base+out.ext, err)
		}
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

// onlineCurve averages the cumulative mistake rate (%) of the reported runs
// of a cell at their checkpoints.
func onlineCurve(cr *cellResult) plotter.XYs {
	if len(cr.Runs) == 0 || len(cr.Runs[0].Checkpoints) == 0 {
		return nil
	}
	n, k := cr.Runs[0].Rows, len(cr.Runs[0].Checkpoints)
	xys := make(plotter.XYs, k)
	for i := range xys {
		pos := ((i+1)*n + k - 1) / k
		xys[i].X = float64(pos)
		var sum float64
		for _, r := range cr.Runs {
			if len(r.Checkpoints) == k {
				sum += 100 * float64(r.Checkpoints[i]) / float64(pos)
			}
		}
		xys[i].Y = sum / float64(len(cr.Runs))
	}
	return xys
}

// writePlots writes, into dir, for every dataset and budget the online
// mistake rate against examples seen, and for every dataset the mistake rate
// against time per pass across budgets; each as PNG and SVG. Paths returned
// are relative to dir's parent.
func writePlots(dir string, t *paperTables) ([]plotFile, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []plotFile
	save := func(p *plot.Plot, leg plot.Legend, name, title string) error {
		if err := savePlot(p, leg, filepath.Join(dir, name)); err != nil {
			return err
		}
		rel := filepath.Join(filepath.Base(dir), name)
		out = append(out, plotFile{Title: title, PNG: rel + ".png", SVG: rel + ".svg"})
		return nil
	}
	for _, d := range t.Opt.Datasets {
		for _, b := range d.Budgets {
			p := plot.New()
			p.Title.Text = fmt.Sprintf("%s, B = %d: online mistake rate", d.Name, b)
			p.X.Label.Text = "examples seen"
			p.X.Tick.Marker = countTicks{}
			p.Y.Label.Text = "mistake rate (%)"
			p.Add(plotter.NewGrid())
			leg := plot.NewLegend()
			lines := 0
			for _, a := range paperAlgorithms {
				budget := b
				if !a.Budgeted() {
					budget = 0
				}
				cr, ok := t.cell(d.Name, a, budget)
				if !ok {
					continue
				}
				xys := onlineCurve(cr)
				if len(xys) == 0 {
					continue
				}
				l, err := plotter.NewLine(xys)
				if err != nil {
					return nil, err
				}
				c, _, dashes := algoStyle(a)
				l.Color, l.Dashes, l.Width = c, dashes, vg.Points(1.5)
				p.Add(l)
				name := displayName(a)
				if !a.Budgeted() {
					name += " (no budget)"
				}
				leg.Add(name, l)
				lines++
			}
			if lines == 0 {
				continue
			}
			if err := save(p, leg, fmt.Sprintf("%s-B%d-online", d.Name, b), fmt.Sprintf("%s, B=%d: online mistake rate", d.Name, b)); err != nil {
				return nil, err
			}
		}

		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s: mistake rate against time per pass (budgets %v)", d.Name, d.Budgets)
		p.X.Label.Text = "seconds per pass (log scale)"
		p.Y.Label.Text = "mistake rate (%)"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Add(plotter.NewGrid())
		leg := plot.NewLegend()
		lines := 0
		for _, a := range paperAlgorithms {
			var xys plotter.XYs
			budgets := d.Budgets
			if !a.Budgeted() {
				budgets = []int{0}
			}
			for _, b := range budgets {
				if cr, ok := t.cell(d.Name, a, b); ok && cr.Seconds > 0 {
					xys = append(xys, plotter.XY{X: cr.Seconds, Y: cr.Mistake})
				}
			}
			if len(xys) == 0 {
				continue
			}
			l, s, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, err
			}
			c, glyph, dashes := algoStyle(a)
			l.Color, l.Dashes, l.Width = c, dashes, vg.Points(1.5)
			s.Color, s.Shape, s.Radius = c, glyph, vg.Points(3)
			p.Add(l, s)
			name := displayName(a)
			if !a.Budgeted() {
				name += " (no budget)"
			}
			leg.Add(name, l, s)
			lines++
		}
		if lines == 0 {
			continue
		}
		if err := save(p, leg, d.Name+"-time", d.Name+": mistake rate against time per pass"); err != nil {
			return nil, err
		}
	}
	return out, nil
}
