package report

import (
	"bytes"
	"encoding/base64"
	"image/color"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

// drawLog is a canvas that records what a figure draws: the lines stroked
// in the grid's style (untransformed: the plot strokes lines without a
// transform), the polygons filled, and every string with its font.
type drawLog struct {
	vg.Canvas
	color   color.Color
	width   vg.Length
	n       int // draw calls so far
	grid    []gridLine
	fills   []int // draw call of each fill in a bar color
	strings []string
	sizes   []vg.Length
}

type gridLine struct {
	a, b vg.Point
	at   int
}

func (d *drawLog) SetColor(c color.Color)       { d.color = c; d.Canvas.SetColor(c) }
func (d *drawLog) SetLineWidth(w vg.Length)     { d.width = w; d.Canvas.SetLineWidth(w) }
func (d *drawLog) Size() (vg.Length, vg.Length) { return d.Canvas.(vg.CanvasSizer).Size() }

func (d *drawLog) Stroke(p vg.Path) {
	d.n++
	if d.width == plotter.DefaultGridLineStyle.Width && sameColor(d.color, plotter.DefaultGridLineStyle.Color) {
		for i := 1; i < len(p); i++ {
			if p[i].Type == vg.LineComp {
				d.grid = append(d.grid, gridLine{p[i-1].Pos, p[i].Pos, d.n})
			}
		}
	}
	d.Canvas.Stroke(p)
}

func (d *drawLog) Fill(p vg.Path) {
	d.n++
	if slices.ContainsFunc(palette, func(c color.Color) bool { return sameColor(c, d.color) }) {
		d.fills = append(d.fills, d.n)
	}
	d.Canvas.Fill(p)
}

func (d *drawLog) FillString(f font.Face, pt vg.Point, s string) {
	d.n++
	d.strings = append(d.strings, s)
	d.sizes = append(d.sizes, f.Font.Size)
	d.Canvas.FillString(f, pt, s)
}

func sameColor(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

func drawLogged(f figurePlot) *drawLog {
	w, h := f.size()
	d := &drawLog{Canvas: vgimg.New(w, h)}
	f.draw(d)
	return d
}

// barFigures are the figures that draw bars.
func barFigures(t *testing.T, rep *Report) []figurePlot {
	t.Helper()
	plots, err := rep.plots()
	if err != nil {
		t.Fatal(err)
	}
	var out []figurePlot
	for _, f := range plots {
		if !strings.HasPrefix(f.name, "passk_") {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatal("no bar figures")
	}
	return out
}

// TestFigureGrid: bar figures draw horizontal grid lines only, behind the
// bars, and none through a bar label.
func TestFigureGrid(t *testing.T) {
	t.Parallel()
	for _, f := range barFigures(t, simFixture()) {
		d := drawLogged(f)
		if len(d.grid) == 0 {
			t.Errorf("%s: no grid lines", f.name)
		}
		// The labels' boxes, from where the plot puts them.
		w, h := f.size()
		pa, _ := f.areas(draw.New(vgimg.New(w, h)))
		data := f.plot.DataCanvas(pa)
		trX, trY := f.plot.Transforms(&data)
		var boxes []vg.Rectangle
		for _, l := range f.grid.labels {
			for i, xy := range l.XYs {
				x, y := trX(xy.X)+l.Offset.X, trY(xy.Y)+l.Offset.Y
				long, thick := l.TextStyle[i].Width(l.Labels[i]), l.TextStyle[i].Height(l.Labels[i])
				boxes = append(boxes, vg.Rectangle{Min: vg.Point{X: x - thick/2, Y: y}, Max: vg.Point{X: x + thick/2, Y: y + long}})
			}
		}
		if len(boxes) == 0 {
			t.Errorf("%s: no bar labels", f.name)
		}
		for _, g := range d.grid {
			if g.a.X == g.b.X {
				t.Errorf("%s: a vertical grid line at x=%v", f.name, g.a.X)
			}
			for _, b := range boxes {
				if g.a.Y > b.Min.Y && g.a.Y < b.Max.Y && min(g.a.X, g.b.X) < b.Max.X && max(g.a.X, g.b.X) > b.Min.X {
					t.Errorf("%s: grid line at y=%v from %v to %v crosses a label at %v", f.name, g.a.Y, g.a.X, g.b.X, b)
				}
			}
			if len(d.fills) > 0 && g.at > d.fills[0] {
				t.Errorf("%s: a grid line drawn over the bars", f.name)
			}
		}
	}
}

// TestFigureLegend: the legend is below the plot, at the tick labels' size.
func TestFigureLegend(t *testing.T) {
	t.Parallel()
	plots, err := simFixture().plots()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plots {
		tick := f.plot.Y.Tick.Label.Font.Size
		d := drawLogged(f)
		for _, e := range f.legend {
			i := slices.Index(d.strings, e.name)
			if i < 0 {
				t.Errorf("%s: legend entry %q not drawn", f.name, e.name)
				continue
			}
			if d.sizes[i] != tick {
				t.Errorf("%s: legend entry %q at %v; want the tick labels' %v", f.name, e.name, d.sizes[i], tick)
			}
		}
		w, h := f.size()
		pa, la := f.areas(draw.New(vgimg.New(w, h)))
		if la.Max.Y > pa.Min.Y {
			t.Errorf("%s: legend %v not below the plot %v", f.name, la.Rectangle, pa.Rectangle)
		}
	}
}

// TestFigureOneTrial: with one trial per task the write-subset figure has
// one pass^1 bar group per domain, not pass^1 twice.
func TestFigureOneTrial(t *testing.T) {
	t.Parallel()
	var recs []results.Record
	for _, r := range fixture() {
		if r.Trial == 0 {
			recs = append(recs, r)
		}
	}
	rep := Build(metrics.Summarize(recs, metrics.Options{Catalog: fixtureCatalog{}}), Options{})
	for _, f := range barFigures(t, rep) {
		if !strings.HasPrefix(f.name, "write_subset_") {
			continue
		}
		var labels []string
		for _, tk := range f.plot.X.Tick.Marker.Ticks(f.plot.X.Min, f.plot.X.Max) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		seen := map[string]bool{}
		for _, l := range labels {
			if seen[l] {
				t.Errorf("%s: category %q twice (%v)", f.name, l, labels)
			}
			seen[l] = true
		}
		if len(labels) != len(rep.domains()) || strings.Contains(f.title, "and pass^1") {
			t.Errorf("%s: title %q, categories %v; want one pass^1 per domain", f.name, f.title, labels)
		}
	}
}

var svgText = regexp.MustCompile(`<text [^>]*>([^<]*)</text>`)

// TestFigureSpaces: no string is drawn with outer spaces (SVG drops them,
// so " and pass" after a superscript would touch it); the space is kept as
// an advance, so the text after a superscript starts a space's width after
// its end.
func TestFigureSpaces(t *testing.T) {
	t.Parallel()
	f := figurePlot{name: "t", title: "pass^1 and pass^4 (sim)", w: 6 * vg.Inch, h: 3 * vg.Inch}
	f.plot = newPlot(f.title, "k", "pass^k (%)", nil)
	for _, s := range drawLogged(f).strings {
		if strings.TrimSpace(s) != s {
			t.Errorf("drew %q with outer spaces", s)
		}
	}
	svg, err := f.render(SVG)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range svgText.FindAllSubmatch(svg, -1) {
		texts = append(texts, string(m[1]))
	}
	if want := []string{"pass", "1", "and pass", "4", "(sim)"}; !slices.Equal(texts[:5], want) {
		t.Errorf("title drawn as %q; want %q", texts[:5], want)
	}
}

var fontData = regexp.MustCompile(`base64,([A-Za-z0-9+/=]+)\)`)

// TestFigureFontSubset: an SVG embeds a subset of its font that holds every
// glyph it draws, and is a fraction of the size the whole face makes it.
func TestFigureFontSubset(t *testing.T) {
	t.Parallel()
	plots, err := simFixture().plots()
	if err != nil {
		t.Fatal(err)
	}
	full, err := sfnt.Parse(mustFontSource(t, font.DefaultCache.Lookup(plot.DefaultFont, 10)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plots {
		svg, err := f.svg()
		if err != nil {
			t.Fatal(err)
		}
		if len(svg) > 100_000 {
			t.Errorf("%s: %d bytes; want under 100 KB", f.name, len(svg))
		}
		m := fontData.FindAllSubmatch(svg, -1)
		if len(m) != 1 {
			t.Fatalf("%s: %d embedded fonts; want 1", f.name, len(m))
		}
		raw, err := base64.StdEncoding.DecodeString(string(m[0][1]))
		if err != nil {
			t.Fatal(err)
		}
		sub, err := sfnt.Parse(raw)
		if err != nil {
			t.Fatalf("%s: embedded font: %v", f.name, err)
		}
		if sub.NumGlyphs() >= full.NumGlyphs()/10 {
			t.Errorf("%s: embedded font has %d of the face's %d glyphs", f.name, sub.NumGlyphs(), full.NumGlyphs())
		}
		var buf sfnt.Buffer
		for _, s := range drawLogged(f).strings {
			for _, r := range s {
				if gi, err := sub.GlyphIndex(&buf, r); err != nil || gi == 0 {
					t.Errorf("%s: %q drawn but not in the embedded font", f.name, r)
				}
			}
		}
	}
}

func mustFontSource(t *testing.T, f font.Face) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := f.Face.WriteSourceTo(nil, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
