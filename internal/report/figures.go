package report

import (
	"bytes"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ledgerbench/ledgerbench/metrics"
)

// figurePlot is a figure before rendering.
type figurePlot struct {
	name, title string
	plot        *plot.Plot
	w, h        vg.Length
}

// Figure is one SVG figure.
type Figure struct {
	// Name is the file name (e.g. "passk_airline.svg").
	Name  string
	Title string
	SVG   []byte
}

// Figures draws every figure: pass^k against k per domain; the
// environment-changing subset's pass^1 and pass^K per backbone; the error
// breakdown per backbone; action-level reliability per domain with gold
// actions (the paper's telecom figure).
func (r *Report) Figures() ([]Figure, error) {
	plots, err := r.plots()
	if err != nil {
		return nil, err
	}
	out := make([]Figure, 0, len(plots))
	for _, fp := range plots {
		svg, err := fp.svg()
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", fp.name, err)
		}
		out = append(out, Figure{Name: fp.name, Title: fp.title, SVG: svg})
	}
	return out, nil
}

func (r *Report) plots() ([]figurePlot, error) {
	var out []figurePlot
	add := func(f figurePlot, err error) error {
		if err != nil {
			return fmt.Errorf("figure %s: %w", f.name, err)
		}
		out = append(out, f)
		return nil
	}
	for _, d := range r.domains() {
		if err := add(r.passKFigure(d)); err != nil {
			return nil, err
		}
	}
	for _, bb := range r.backbones() {
		if err := add(r.writeFigure(bb)); err != nil {
			return nil, err
		}
	}
	for _, bb := range r.backbones() {
		if err := add(r.errorFigure(bb)); err != nil {
			return nil, err
		}
	}
	for _, d := range r.domains() {
		has := false
		for _, g := range r.Groups {
			has = has || (g.Domain == d && g.Actions.Gold > 0)
		}
		if has {
			if err := add(r.actionFigure(d)); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// WriteFigures writes every figure into dir (created if needed) and returns
// the paths written.
func (r *Report) WriteFigures(dir string) ([]string, error) {
	figs, err := r.Figures()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("figures: %w", err)
	}
	var paths []string
	for _, f := range figs {
		p := filepath.Join(dir, f.Name)
		if err := os.WriteFile(p, f.SVG, 0o644); err != nil {
			return paths, fmt.Errorf("write figure: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func (r *Report) domains() []string {
	var out []string
	for _, g := range r.Groups {
		if len(out) == 0 || out[len(out)-1] != g.Domain {
			out = append(out, g.Domain)
		}
	}
	return out
}

// fileSafe turns a label into a file-name part.
func fileSafe(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

func (r *Report) bbName(bb bbKey) string {
	if r.multiUser() {
		return bb.backbone + "_user-" + bb.user
	}
	return bb.backbone
}

func (r *Report) bbTitle(bb bbKey) string {
	if r.multiUser() {
		return bb.backbone + " (user " + bb.user + ")"
	}
	return bb.backbone
}

// legendGap separates the plot from its legend.
const legendGap = 8 * vg.Millimeter

// size is the canvas size: the plot and, right of it, its legend.
func (f figurePlot) size() (w, h vg.Length) {
	w = f.w
	if lw := legendWidth(f.plot.Legend); lw > 0 {
		w += legendGap + lw
	}
	return w, f.h
}

// draw draws the plot, with its legend beside it rather than over the data.
func (f figurePlot) draw(c vg.CanvasSizer) {
	dc := draw.New(c)
	legend := f.plot.Legend
	f.plot.Legend = plot.NewLegend()
	defer func() { f.plot.Legend = legend }()
	area := dc
	area.Max.X = area.Min.X + f.w
	f.plot.Draw(area)
	if legendWidth(legend) == 0 {
		return
	}
	side := dc
	side.Min.X = area.Max.X + legendGap
	side.Max.Y -= 2 * vg.Millimeter
	legend.Top, legend.Left = true, true
	legend.Draw(side)
}

// legendWidth is the width of a legend's entries (0 without entries).
func legendWidth(l plot.Legend) vg.Length {
	return l.Rectangle(draw.New(vgsvg.New(vg.Inch, vg.Inch))).Size().X
}

func (f figurePlot) svg() ([]byte, error) {
	w, h := f.size()
	c := vgsvg.New(w, h)
	f.draw(c)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// palette is a qualitative palette (Tableau 10) with enough distinct colors
// for every error category.
var palette = []color.Color{
	color.RGBA{0x4E, 0x79, 0xA7, 0xFF}, color.RGBA{0xF2, 0x8E, 0x2B, 0xFF}, color.RGBA{0xE1, 0x57, 0x59, 0xFF},
	color.RGBA{0x76, 0xB7, 0xB2, 0xFF}, color.RGBA{0x59, 0xA1, 0x4F, 0xFF}, color.RGBA{0xED, 0xC9, 0x48, 0xFF},
	color.RGBA{0xB0, 0x7A, 0xA1, 0xFF}, color.RGBA{0xFF, 0x9D, 0xA7, 0xFF}, color.RGBA{0x9C, 0x75, 0x5F, 0xFF},
	color.RGBA{0xBA, 0xB0, 0xAC, 0xFF},
}

func colorOf(i int) color.Color { return palette[i%len(palette)] }

// nominal sets category names on the x axis with room for offset bars.
func nominal(p *plot.Plot, cats []string) {
	p.NominalX(cats...)
	p.X.Min, p.X.Max = -0.6, float64(len(cats))-0.4
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Y.Min, p.Y.Max = 0, 100
	p.Add(plotter.NewGrid())
	return p
}

func (r *Report) passKFigure(domain string) (figurePlot, error) {
	f := figurePlot{name: "passk_" + fileSafe(domain) + ".svg", title: "pass^k vs k: " + domain, w: 6 * vg.Inch, h: 4 * vg.Inch}
	p := newPlot(f.title, "k", "pass^k (%)")
	f.plot = p
	maxK := 1
	var vs []any
	for _, g := range r.Groups {
		if g.Domain != domain || g.K == 0 {
			continue
		}
		maxK = max(maxK, g.K)
		xys := make(plotter.XYs, g.K)
		for k := 1; k <= g.K; k++ {
			xys[k-1] = plotter.XY{X: float64(k), Y: 100 * g.At(k)}
		}
		vs = append(vs, g.Agent+" / "+r.backboneLabel(g), xys)
	}
	if len(vs) > 0 {
		if err := plotutil.AddLinePoints(p, vs...); err != nil {
			return f, err
		}
	}
	var ticks []plot.Tick
	for k := 1; k <= maxK; k++ {
		ticks = append(ticks, plot.Tick{Value: float64(k), Label: strconv.Itoa(k)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = 0.8, float64(maxK)+0.2
	return f, nil
}

// groupedBars adds one bar series per name, offset around each category.
func groupedBars(p *plot.Plot, names []string, values []plotter.Values) error {
	n := len(names)
	if n == 0 {
		return nil
	}
	w := vg.Points(min(60/float64(n), 18))
	for i, name := range names {
		b, err := plotter.NewBarChart(values[i], w)
		if err != nil {
			return err
		}
		b.LineStyle.Width = 0
		b.Color = colorOf(i)
		b.Offset = w * vg.Length(float64(i)-float64(n-1)/2)
		p.Add(b)
		p.Legend.Add(name, b)
	}
	return nil
}

func (r *Report) writeFigure(bb bbKey) (figurePlot, error) {
	k := r.kOf(r.Groups...)
	f := figurePlot{name: "write_subset_" + fileSafe(r.bbName(bb)) + ".svg",
		title: fmt.Sprintf("Environment-changing subset: pass^1 and pass^%d (%s)", k, r.bbTitle(bb))}
	p := newPlot(f.title, "", "pass^k (%)")
	f.plot = p
	var cats []string
	for _, d := range r.domains() {
		cats = append(cats, d+" pass^1", d+" pass^"+strconv.Itoa(k))
	}
	var names []string
	var values []plotter.Values
	for _, a := range r.agents() {
		vals := make(plotter.Values, len(cats))
		found := false
		for i, d := range r.domains() {
			for _, g := range r.Groups {
				if g.Domain == d && g.Agent == a && g.Backbone == bb.backbone && g.UserBackbone == bb.user {
					vals[2*i] = 100 * g.Write.At(1)
					vals[2*i+1] = 100 * g.Write.At(k)
					found = true
				}
			}
		}
		if found {
			names = append(names, a)
			values = append(values, vals)
		}
	}
	if err := groupedBars(p, names, values); err != nil {
		return f, err
	}
	nominal(p, cats)
	f.w, f.h = vg.Length(max(6, 1.4*float64(len(cats))))*vg.Inch, 4*vg.Inch
	return f, nil
}

func (r *Report) errorFigure(bb bbKey) (figurePlot, error) {
	f := figurePlot{name: "errors_" + fileSafe(r.bbName(bb)) + ".svg", title: "Error breakdown of failed simulations (" + r.bbTitle(bb) + ")"}
	p := newPlot(f.title, "", "share of failures (%)")
	f.plot = p
	var gs []metrics.Summary
	var cats []string
	for _, g := range r.Groups {
		if g.Backbone == bb.backbone && g.UserBackbone == bb.user {
			gs = append(gs, g)
			cats = append(cats, g.Domain+"/"+g.Agent)
		}
	}
	var below *plotter.BarChart
	for i, c := range errorCategories {
		vals := make(plotter.Values, len(gs))
		for j, g := range gs {
			vals[j] = 100 * g.ErrorShare(c)
		}
		b, err := plotter.NewBarChart(vals, vg.Points(24))
		if err != nil {
			return f, err
		}
		b.LineStyle.Width = 0
		b.Color = colorOf(i)
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		p.Legend.Add(c.Label(), b)
	}
	nominal(p, cats)
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign = -1
	f.w, f.h = vg.Length(max(7, 0.9*float64(len(cats))))*vg.Inch, 5*vg.Inch
	return f, nil
}

func (r *Report) actionFigure(domain string) (figurePlot, error) {
	f := figurePlot{name: "action_reliability_" + fileSafe(domain) + ".svg", title: "Action-level reliability: gold actions matched (" + domain + ")"}
	p := newPlot(f.title, "", "gold actions matched (%)")
	f.plot = p
	bbs := r.backbones()
	var cats []string
	for _, bb := range bbs {
		cats = append(cats, r.bbTitle(bb))
	}
	var names []string
	var values []plotter.Values
	for _, a := range r.agents() {
		vals := make(plotter.Values, len(bbs))
		found := false
		for i, bb := range bbs {
			for _, g := range r.Groups {
				if g.Domain == domain && g.Agent == a && g.Backbone == bb.backbone && g.UserBackbone == bb.user && g.Actions.Gold > 0 {
					vals[i] = 100 * g.Actions.Share()
					found = true
				}
			}
		}
		if found {
			names = append(names, a)
			values = append(values, vals)
		}
	}
	if err := groupedBars(p, names, values); err != nil {
		return f, err
	}
	nominal(p, cats)
	f.w, f.h = vg.Length(max(6, 1.5*float64(len(cats))))*vg.Inch, 4*vg.Inch
	return f, nil
}
