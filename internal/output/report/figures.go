package report

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ledgerbench/ledgerbench/internal/output/fontsubset"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

// figurePlot is a figure before rendering. Its legend entries are kept
// here, not in the plot's Legend: they are drawn below the plot, in as many
// columns as fit its width, at the tick labels' size.
type figurePlot struct {
	name, title string
	plot        *plot.Plot
	w, h        vg.Length
	legend      []legendEntry
	// grid, on bar figures, draws the horizontal grid around bar labels.
	grid *barGrid
}

// legendEntry is one legend line: its text and thumbnails.
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// addLegend adds a legend entry.
func (f *figurePlot) addLegend(name string, thumbs ...plot.Thumbnailer) {
	f.legend = append(f.legend, legendEntry{name, thumbs})
}

// Figure is one figure, rendered as SVG; Encode renders it in another
// format.
type Figure struct {
	// Name is the SVG file name (e.g. "passk_airline.svg").
	Name  string
	Title string
	SVG   []byte
	fp    figurePlot
}

// Encode renders the figure in format.
func (f Figure) Encode(format FigureFormat) ([]byte, error) {
	if format == SVG && f.SVG != nil {
		return f.SVG, nil
	}
	return f.fp.render(format)
}

// FileName is the figure's file name in format.
func (f Figure) FileName(format FigureFormat) string {
	return strings.TrimSuffix(f.Name, ".svg") + "." + string(format)
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
		out = append(out, Figure{Name: fp.name, Title: fp.title, SVG: svg, fp: fp})
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

// WriteFigures writes every figure into dir (created if needed), once per
// format (SVG when none is given), and returns the paths written.
func (r *Report) WriteFigures(dir string, formats ...FigureFormat) ([]string, error) {
	if len(formats) == 0 {
		formats = []FigureFormat{SVG}
	}
	figs, err := r.Figures()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("figures: %w", err)
	}
	var paths []string
	for _, f := range figs {
		for _, format := range formats {
			b, err := f.Encode(format)
			if err != nil {
				return paths, fmt.Errorf("figure %s: %w", f.Name, err)
			}
			p := filepath.Join(dir, f.FileName(format))
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return paths, fmt.Errorf("write figure: %w", err)
			}
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// ParseFigureFormat checks a figure format name.
func ParseFigureFormat(s string) (FigureFormat, error) {
	for _, f := range FigureFormats() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown figure format %q (want svg, png or pdf)", s)
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
	s := bb.backbone
	if r.multiUser() {
		s += "_user-" + bb.user
	}
	if r.multiTrait() {
		s += "_trait-" + cmp.Or(bb.trait, "none")
	}
	return s
}

func (r *Report) bbTitle(bb bbKey) string { return r.bbLabel(bb, false) }

// legendGap separates legend columns.
const legendGap = 6 * vg.Millimeter

// margin is the space kept free around the legend.
const margin = 2 * vg.Millimeter

// legendStyle is the legend's text: the tick labels' font and size.
func (f figurePlot) legendStyle() text.Style {
	st := f.plot.Y.Tick.Label
	st.Rotation, st.XAlign, st.YAlign = 0, text.XLeft, text.YBottom
	return st
}

// columns lays the legend out below the plot: entries top to bottom, then
// left to right, in as many columns as fit the plot's width (at least one),
// each a gonum legend.
func (f figurePlot) columns() (cols []plot.Legend, colW, h vg.Length) {
	if len(f.legend) == 0 {
		return nil, 0, 0
	}
	newLegend := func(es []legendEntry) plot.Legend {
		l := plot.NewLegend()
		l.TextStyle = f.legendStyle()
		l.ThumbnailWidth = 2 * l.TextStyle.Font.Size
		l.Padding = vg.Points(1.5)
		l.Top, l.Left = true, true
		for _, e := range es {
			l.Add(e.name, e.thumbs...)
		}
		return l
	}
	for _, e := range f.legend {
		colW = max(colW, legendRect(newLegend([]legendEntry{e})).Size().X)
	}
	n := len(f.legend)
	ncol := max(1, min(n, int((f.w-2*margin+legendGap)/(colW+legendGap))))
	rows := (n + ncol - 1) / ncol
	for c := 0; c*rows < n; c++ {
		cols = append(cols, newLegend(f.legend[c*rows:min(n, (c+1)*rows)]))
	}
	return cols, colW, legendRect(cols[0]).Size().Y
}

// size is the canvas size: the plot, and its legend below it.
func (f figurePlot) size() (w, h vg.Length) {
	cols, colW, lh := f.columns()
	if len(cols) == 0 {
		return f.w, f.h
	}
	block := vg.Length(len(cols))*colW + vg.Length(len(cols)-1)*legendGap
	return max(f.w, block+2*margin), f.h + lh + 2*margin
}

// areas split the canvas c into the plot's (at the top) and the legend's
// (below it, the columns' block centred; empty without a legend).
func (f figurePlot) areas(c draw.Canvas) (plotArea, legendArea draw.Canvas) {
	plotArea = c
	plotArea.Min.Y = plotArea.Max.Y - f.h
	cols, colW, lh := f.columns()
	legendArea = c
	if len(cols) == 0 {
		legendArea.Max = legendArea.Min
		return plotArea, legendArea
	}
	block := vg.Length(len(cols))*colW + vg.Length(len(cols)-1)*legendGap
	legendArea.Min.X = c.Min.X + (c.Max.X-c.Min.X-block)/2
	legendArea.Max.X = legendArea.Min.X + block
	legendArea.Max.Y = plotArea.Min.Y - margin
	legendArea.Min.Y = legendArea.Max.Y - lh
	return plotArea, legendArea
}

// draw paints the whole canvas opaque white, then the plot, then its legend
// below it, so that no legend covers data.
func (f figurePlot) draw(c vg.CanvasSizer) {
	dc := draw.New(c)
	dc.FillPolygon(color.White, []vg.Point{dc.Min, {X: dc.Max.X, Y: dc.Min.Y}, dc.Max, {X: dc.Min.X, Y: dc.Max.Y}})
	plotArea, legendArea := f.areas(dc)
	f.plot.Draw(plotArea)
	cols, colW, _ := f.columns()
	x := legendArea.Min.X
	for _, l := range cols {
		area := legendArea
		area.Min.X, area.Max.X = x, x+colW
		l.Draw(area)
		x += colW + legendGap
	}
}

// legendRect is the size of a legend's entries (zero without entries).
func legendRect(l plot.Legend) vg.Rectangle {
	return l.Rectangle(draw.New(vgsvg.New(vg.Inch, vg.Inch)))
}

// FigureFormat is a file format of figures.
type FigureFormat string

// Figure formats: SVG and PDF embed their font; PNG is rendered at pngDPI.
const (
	SVG FigureFormat = "svg"
	PNG FigureFormat = "png"
	PDF FigureFormat = "pdf"
)

// FigureFormats lists the figure formats.
func FigureFormats() []FigureFormat { return []FigureFormat{SVG, PNG, PDF} }

// pngDPI is the resolution of PNG figures (print quality).
const pngDPI = 200

// render encodes the figure.
func (f figurePlot) render(format FigureFormat) ([]byte, error) {
	w, h := f.size()
	var c vg.CanvasWriterTo
	switch format {
	case SVG:
		return f.renderSVG(w, h)
	case PNG:
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI))}
	case PDF:
		pc := vgpdf.New(w, h)
		pc.EmbedFonts(true)
		c = pc
	default:
		return nil, fmt.Errorf("unknown figure format %q (want svg, png or pdf)", format)
	}
	f.draw(c.(vg.CanvasSizer))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (f figurePlot) svg() ([]byte, error) { return f.render(SVG) }

// renderSVG draws the figure as SVG with each font it uses embedded as a
// subset of the glyphs it draws: vgsvg embeds the whole face, which is
// replaced by the subset.
func (f figurePlot) renderSVG(w, h vg.Length) ([]byte, error) {
	sc := vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(true))
	rec := &glyphRecorder{CanvasSizer: sc, runes: map[font.Font]map[rune]bool{}, faces: map[font.Font]font.Face{}}
	f.draw(rec)
	var buf bytes.Buffer
	if _, err := sc.WriteTo(&buf); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	for key, face := range rec.faces {
		var raw bytes.Buffer
		if _, err := face.Face.WriteSourceTo(nil, &raw); err != nil {
			return nil, fmt.Errorf("font %s: %w", key.Typeface, err)
		}
		runes := make([]rune, 0, len(rec.runes[key]))
		for r := range rec.runes[key] {
			runes = append(runes, r)
		}
		sub, err := fontsubset.Subset(raw.Bytes(), runes)
		if err != nil {
			return nil, fmt.Errorf("font %s: %w", key.Typeface, err)
		}
		whole := []byte("base64," + base64.StdEncoding.EncodeToString(raw.Bytes()) + ")")
		if !bytes.Contains(out, whole) {
			return nil, fmt.Errorf("font %s: the SVG does not embed it as expected", key.Typeface)
		}
		out = bytes.ReplaceAll(out, whole, []byte("base64,"+base64.StdEncoding.EncodeToString(sub)+")"))
	}
	return out, nil
}

// glyphRecorder passes drawing through to a canvas and notes the runes
// drawn in each face (by face, size aside).
type glyphRecorder struct {
	vg.CanvasSizer
	runes map[font.Font]map[rune]bool
	faces map[font.Font]font.Face
}

// FillString implements vg.Canvas.
func (g *glyphRecorder) FillString(f font.Face, pt vg.Point, s string) {
	key := f.Font
	key.Size = 0
	if g.runes[key] == nil {
		g.runes[key] = map[rune]bool{}
		g.faces[key] = f
	}
	for _, r := range s {
		g.runes[key][r] = true
	}
	g.CanvasSizer.FillString(f, pt, s)
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

// percentTicks label 0…100 in steps of 20, leaving the room above 100 for
// bar labels.
var percentTicks = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 20, Label: "20"}, {Value: 40, Label: "40"},
	{Value: 60, Label: "60"}, {Value: 80, Label: "80"}, {Value: 100, Label: "100"}})

// simulatedNote is the subtitle of figures drawing sim-backbone results.
const simulatedNote = "SIMULATED: offline sim backbone (scripted faults), not model results"

// newPlot makes a plot whose title, axis labels and tick labels set "^k" as
// a superscript. The title gets a second line when any group drawn is
// simulated.
func newPlot(title, x, y string, groups []metrics.Summary) *plot.Plot {
	p := plot.New()
	sup := supText{text.Plain{Fonts: font.DefaultCache}}
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label} {
		st.Handler = sup
	}
	p.Title.Text = title
	if simulated(groups) {
		p.Title.Text += "\n" + simulatedNote
	}
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Y.Min, p.Y.Max = 0, 115
	p.Y.Tick.Marker = percentTicks
	return p
}

// barGrid draws horizontal grid lines at the y ticks up to 100% behind the
// bars, broken where a bar label stands, and no vertical lines.
type barGrid struct {
	labels []*plotter.Labels
}

// addBarGrid adds a bar grid to a plot; add it before the bars.
func addBarGrid(p *plot.Plot) *barGrid {
	g := &barGrid{}
	p.Add(g)
	return g
}

// Plot implements plot.Plotter.
func (g *barGrid) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	pad := vg.Points(1.5)
	var boxes []vg.Rectangle
	for _, l := range g.labels {
		for i := range l.XYs {
			// A label reads upwards from its point, centred across it.
			x, y := trX(l.XYs[i].X)+l.Offset.X, trY(l.XYs[i].Y)+l.Offset.Y
			length, thick := l.TextStyle[i].Width(l.Labels[i]), l.TextStyle[i].Height(l.Labels[i])
			boxes = append(boxes, vg.Rectangle{Min: vg.Point{X: x - thick/2 - pad, Y: y - pad}, Max: vg.Point{X: x + thick/2 + pad, Y: y + length + pad}})
		}
	}
	for _, tk := range plt.Y.Tick.Marker.Ticks(plt.Y.Min, plt.Y.Max) {
		if tk.IsMinor() || tk.Value > 100 {
			continue
		}
		for _, seg := range gridSegments(c.Min.X, c.Max.X, trY(tk.Value), boxes) {
			c.StrokeLine2(plotter.DefaultGridLineStyle, seg[0], trY(tk.Value), seg[1], trY(tk.Value))
		}
	}
}

// gridSegments splits the line from x0 to x1 at height y around the boxes
// that it would cross.
func gridSegments(x0, x1, y vg.Length, boxes []vg.Rectangle) [][2]vg.Length {
	var cuts [][2]vg.Length
	for _, b := range boxes {
		if y >= b.Min.Y && y <= b.Max.Y {
			cuts = append(cuts, [2]vg.Length{b.Min.X, b.Max.X})
		}
	}
	slices.SortFunc(cuts, func(a, b [2]vg.Length) int { return cmp.Compare(a[0], b[0]) })
	var out [][2]vg.Length
	at := x0
	for _, cut := range cuts {
		if cut[0] > at {
			out = append(out, [2]vg.Length{at, min(cut[0], x1)})
		}
		at = max(at, cut[1])
	}
	if at < x1 {
		out = append(out, [2]vg.Length{at, x1})
	}
	return out
}

func simulated(groups []metrics.Summary) bool {
	for _, g := range groups {
		if g.Simulated > 0 || g.Backbone == "sim" {
			return true
		}
	}
	return false
}

// fit widens the plot area to its title.
func (f *figurePlot) fit() {
	f.w = max(f.w, f.plot.Title.TextStyle.Width(f.plot.Title.Text)+2*margin)
}

// seriesShift spreads n overlapping line series apart on the x axis (in
// units of k) so that equal values stay distinguishable.
func seriesShift(i, n int) float64 {
	if n < 2 {
		return 0
	}
	return 0.12 * (float64(i)/float64(n-1) - 0.5)
}

func (r *Report) passKFigure(domain string) (figurePlot, error) {
	var gs []metrics.Summary
	for _, g := range r.Groups {
		if g.Domain == domain && g.K > 0 {
			gs = append(gs, g)
		}
	}
	f := figurePlot{name: "passk_" + fileSafe(domain) + ".svg", title: "pass^k vs k: " + domain, w: 6 * vg.Inch, h: 4 * vg.Inch}
	p := newPlot(f.title, "k", "pass^k (%)", gs)
	p.Y.Max = 102
	p.Add(plotter.NewGrid()) // lines and markers only: nothing for the grid to cross
	f.plot = p
	maxK := 1
	for i, g := range gs {
		maxK = max(maxK, g.K)
		// A k no task has scored trials for has no point (never a 0).
		var xys plotter.XYs
		for k := 1; k <= g.K; k++ {
			if hasK(g.PassK, k) {
				xys = append(xys, plotter.XY{X: float64(k) + seriesShift(i, len(gs)), Y: 100 * g.At(k)})
			}
		}
		label := fmt.Sprintf("%s / %s (n=%d tasks)", g.Agent, r.backboneLabel(g), g.PassK.NumTasks)
		if len(xys) == 0 {
			f.addLegend(label + ": missing (no scored simulation)")
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return f, err
		}
		// Color, dash and marker all differ between series.
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		pts.Color = plotutil.Color(i)
		pts.Shape = plotutil.Shape(i)
		pts.Radius = vg.Points(3)
		p.Add(l, pts)
		f.addLegend(label, l, pts)
	}
	var ticks []plot.Tick
	for k := 1; k <= maxK; k++ {
		ticks = append(ticks, plot.Tick{Value: float64(k), Label: strconv.Itoa(k)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = 0.8, float64(maxK)+0.2
	f.fit()
	return f, nil
}

// bar is one bar's value (%) and the count n it is computed over; a missing
// bar has no data behind it.
type bar struct {
	v       float64
	n       int
	missing bool
}

// barLabelStyle sets a bar's label upright, reading upwards from the bar's
// top.
func barLabelStyle() text.Style {
	return text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 7), Rotation: math.Pi / 2,
		XAlign: text.XLeft, YAlign: text.YCenter, Handler: plot.DefaultTextHandler}
}

// barLabels labels each bar of a series with its n, or "missing", at the
// bar's top offset by the series' bar offset.
func barLabels(values []bar, top func(int) float64, offset vg.Length, unit string) (*plotter.Labels, error) {
	xys := make(plotter.XYs, len(values))
	labels := make([]string, len(values))
	for j, b := range values {
		xys[j] = plotter.XY{X: float64(j), Y: top(j)}
		labels[j] = "n=" + strconv.Itoa(b.n) + unit
		if b.missing {
			labels[j] = "missing"
		}
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return nil, err
	}
	for i := range l.TextStyle {
		l.TextStyle[i] = barLabelStyle()
	}
	l.Offset = vg.Point{X: offset, Y: vg.Points(2)}
	return l, nil
}

// groupedBars adds one bar series per name, offset around each category,
// each bar labelled with its n (or as missing).
func (f *figurePlot) groupedBars(names []string, series [][]bar, unit string) error {
	p := f.plot
	n := len(names)
	if n == 0 {
		return nil
	}
	w := vg.Points(min(60/float64(n), 18))
	for i, name := range names {
		vals := make(plotter.Values, len(series[i]))
		for j, b := range series[i] {
			vals[j] = b.v
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return err
		}
		b.LineStyle.Width = 0
		b.Color = colorOf(i)
		b.Offset = w * vg.Length(float64(i)-float64(n-1)/2)
		p.Add(b)
		f.addLegend(name, b)
		l, err := barLabels(series[i], func(j int) float64 { return vals[j] }, b.Offset, unit)
		if err != nil {
			return err
		}
		p.Add(l)
		f.grid.labels = append(f.grid.labels, l)
	}
	return nil
}

func (r *Report) groupsOf(bb bbKey) []metrics.Summary {
	var gs []metrics.Summary
	for _, g := range r.Groups {
		if bb.holds(g) {
			gs = append(gs, g)
		}
	}
	return gs
}

func (r *Report) writeFigure(bb bbKey) (figurePlot, error) {
	k := r.kOf(r.Groups...)
	ks := []int{1, k}
	title := fmt.Sprintf("Environment-changing subset: pass^1 and pass^%d (%s)", k, r.bbTitle(bb))
	if k <= 1 {
		// One trial per task: pass^1 only, not the same bar twice.
		ks = []int{1}
		title = fmt.Sprintf("Environment-changing subset: pass^1 (%s)", r.bbTitle(bb))
	}
	f := figurePlot{name: "write_subset_" + fileSafe(r.bbName(bb)) + ".svg", title: title}
	p := newPlot(f.title, "", "pass^k (%)", r.groupsOf(bb))
	f.plot = p
	f.grid = addBarGrid(p)
	var cats []string
	for _, d := range r.domains() {
		for _, kk := range ks {
			cats = append(cats, d+" pass^"+strconv.Itoa(kk))
		}
	}
	var names []string
	var series [][]bar
	for _, a := range r.agents() {
		bars := make([]bar, len(cats))
		for i := range bars {
			bars[i].missing = true
		}
		found := false
		for i, d := range r.domains() {
			for _, g := range r.Groups {
				if g.Domain != d || g.Agent != a || !bb.holds(g) {
					continue
				}
				found = true
				for j, kk := range ks {
					if kk <= g.Write.K && g.Write.PassK.Tasks[kk-1] > 0 {
						bars[len(ks)*i+j] = bar{v: 100 * g.Write.At(kk), n: g.Write.PassK.Tasks[kk-1]}
					}
				}
			}
		}
		if found {
			names = append(names, a)
			series = append(series, bars)
		}
	}
	if err := f.groupedBars(names, series, ""); err != nil {
		return f, err
	}
	nominal(p, cats)
	f.w, f.h = vg.Length(max(6, 1.4*float64(len(cats))))*vg.Inch, 4*vg.Inch
	f.fit()
	return f, nil
}

func (r *Report) errorFigure(bb bbKey) (figurePlot, error) {
	gs := r.groupsOf(bb)
	f := figurePlot{name: "errors_" + fileSafe(r.bbName(bb)) + ".svg", title: "Error breakdown of failed simulations (" + r.bbTitle(bb) + ")"}
	p := newPlot(f.title, "", "share of failures (%)", gs)
	f.plot = p
	f.grid = addBarGrid(p)
	var cats []string
	for _, g := range gs {
		cats = append(cats, g.Domain+"/"+g.Agent)
	}
	var below *plotter.BarChart
	tops := make([]float64, len(gs))
	for i, c := range errorCategories {
		vals := make(plotter.Values, len(gs))
		for j, g := range gs {
			vals[j] = 100 * g.ErrorShare(c)
			tops[j] += vals[j]
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
		f.addLegend(c.Label(), b)
	}
	bars := make([]bar, len(gs))
	for j, g := range gs {
		bars[j] = bar{n: g.Failed, missing: g.Failed == 0}
	}
	l, err := barLabels(bars, func(j int) float64 { return tops[j] }, 0, " failed")
	if err != nil {
		return f, err
	}
	for j := range bars {
		switch {
		case gs[j].Scored == 0:
			l.Labels[j] = "missing (no scored simulation)"
		case bars[j].missing:
			l.Labels[j] = "no failures"
		}
	}
	p.Add(l)
	f.grid.labels = append(f.grid.labels, l)
	nominal(p, cats)
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign = -1
	f.w, f.h = vg.Length(max(7, 0.9*float64(len(cats))))*vg.Inch, 5*vg.Inch
	f.fit()
	return f, nil
}

func (r *Report) actionFigure(domain string) (figurePlot, error) {
	var gs []metrics.Summary
	for _, g := range r.Groups {
		if g.Domain == domain {
			gs = append(gs, g)
		}
	}
	f := figurePlot{name: "action_reliability_" + fileSafe(domain) + ".svg", title: "Action-level reliability: gold actions matched (" + domain + ")"}
	p := newPlot(f.title, "", "gold actions matched (%)", gs)
	f.plot = p
	f.grid = addBarGrid(p)
	bbs := r.backbones()
	var cats []string
	for _, bb := range bbs {
		cats = append(cats, r.bbTitle(bb))
	}
	var names []string
	var series [][]bar
	for _, a := range r.agents() {
		bars := make([]bar, len(bbs))
		found := false
		for i, bb := range bbs {
			bars[i].missing = true
			for _, g := range gs {
				if g.Agent == a && bb.holds(g) && g.Actions.Gold > 0 {
					bars[i] = bar{v: 100 * g.Actions.Share(), n: g.Actions.Gold}
					found = true
				}
			}
		}
		if found {
			names = append(names, a)
			series = append(series, bars)
		}
	}
	if err := f.groupedBars(names, series, " actions"); err != nil {
		return f, err
	}
	nominal(p, cats)
	f.w, f.h = vg.Length(max(6, 1.5*float64(len(cats))))*vg.Inch, 4*vg.Inch
	f.fit()
	return f, nil
}
