package report

import (
	"math"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// supText is a text handler that draws "x^k" and "x^{12}" with k and 12 as
// superscripts (smaller and raised), and everything else as plain text. It
// replaces gonum's LaTeX handler, which cannot set "pass^k" in text mode.
type supText struct{ text.Plain }

var _ text.Handler = supText{}

// supScale and supRise size and raise a superscript relative to the font.
const (
	supScale = 0.7
	supRise  = 0.4
)

type textRun struct {
	s   string
	sup bool
}

// runs splits a line into plain and superscript runs.
func runs(line string) []textRun {
	var out []textRun
	for {
		i := strings.IndexByte(line, '^')
		if i < 0 || i == len(line)-1 {
			break
		}
		if i > 0 {
			out = append(out, textRun{s: line[:i]})
		}
		rest := line[i+1:]
		var sup string
		if rest[0] == '{' {
			j := strings.IndexByte(rest, '}')
			if j < 0 {
				j = len(rest)
				rest += "}"
			}
			sup, rest = rest[1:j], rest[j+1:]
		} else {
			j := 0
			for j < len(rest) && (rest[j] >= '0' && rest[j] <= '9' || rest[j] >= 'a' && rest[j] <= 'z' || rest[j] >= 'A' && rest[j] <= 'Z') {
				j++
			}
			if j == 0 {
				out = append(out, textRun{s: "^"})
				line = rest
				continue
			}
			sup, rest = rest[:j], rest[j:]
		}
		out = append(out, textRun{s: sup, sup: true})
		line = rest
	}
	if line != "" {
		out = append(out, textRun{s: line})
	}
	return out
}

// fillSpaced draws a run without its leading and trailing spaces, which it
// skips by their width instead: SVG collapses a text element's outer spaces
// (" and pass" after a superscript would touch it), and every format then
// agrees. It returns the run's width.
func fillSpaced(c vg.Canvas, face font.Face, pt vg.Point, s string) vg.Length {
	body := strings.TrimLeft(s, " ")
	pt.X += face.Width(s[:len(s)-len(body)])
	if trimmed := strings.TrimRight(body, " "); trimmed != "" {
		c.FillString(face, pt, trimmed)
	}
	return face.Width(s)
}

func supFont(fnt font.Font) font.Font {
	fnt.Size = vg.Length(float64(fnt.Size) * supScale)
	return fnt
}

func (h supText) width(line string, fnt font.Font) vg.Length {
	var w vg.Length
	for _, r := range runs(line) {
		f := fnt
		if r.sup {
			f = supFont(fnt)
		}
		face := h.Fonts.Lookup(f, f.Size)
		w += face.Width(r.s)
	}
	return w
}

// Box measures a line with its superscripts.
func (h supText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	_, height, depth = h.Plain.Box(txt, fnt)
	width = h.width(txt, fnt)
	if strings.Contains(txt, "^") {
		sf := supFont(fnt)
		face := h.Fonts.Lookup(sf, sf.Size)
		ext := face.Extents()
		height = max(height, vg.Length(supRise)*fnt.Size+ext.Ascent)
	}
	return width, height, depth
}

// Draw draws text as text.Plain does, runs of superscript smaller and raised.
func (h supText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if txt == "" {
		return
	}
	base := h.Fonts.Lookup(sty.Font, sty.Font.Size)
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
	}
	sin64, cos64 := math.Sincos(sty.Rotation)
	cos, sin := vg.Length(cos64), vg.Length(sin64)
	pt.X, pt.Y = pt.Y*sin+pt.X*cos, pt.Y*cos-pt.X*sin
	lines := h.Lines(txt)
	pt.Y += sty.Height(txt)*vg.Length(sty.YAlign) - base.Extents().Ascent
	sf := supFont(sty.Font)
	sup := h.Fonts.Lookup(sf, sf.Size)
	for i, line := range lines {
		x := pt.X + vg.Length(sty.XAlign)*h.width(line, sty.Font)
		y := pt.Y + vg.Length(len(lines)-i)*sty.Font.Size
		for _, r := range runs(line) {
			face, at := base, vg.Point{X: x, Y: y}
			if r.sup {
				face, at.Y = sup, y+vg.Length(supRise)*sty.Font.Size
			}
			x += fillSpaced(c, face, at, r.s)
		}
	}
	if sty.Rotation != 0 {
		c.Pop()
	}
}
