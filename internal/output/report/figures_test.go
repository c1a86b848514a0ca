package report

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

// simFixture is the fixture on the sim backbone under a long backbone label,
// with the irma agent missing from retail (a missing cell).
func simFixture() *Report {
	var recs []results.Record
	for _, r := range fixture() {
		if r.Domain == "retail" && r.Agent == "irma" {
			continue
		}
		if r.Backbone == "glm-5" {
			r.Backbone = "sim"
			r.Simulated = true
		} else {
			r.Backbone = "accounts/fireworks/models/kimi-k2p5-instruct-0905-long-name"
		}
		recs = append(recs, r)
	}
	return Build(metrics.Summarize(recs, metrics.Options{Catalog: fixtureCatalog{}}), Options{})
}

// figuresDir keeps rendered figures for a look when
// LEDGERBENCH_FIGURES_DIR names a directory.
func figuresDir(t *testing.T) string {
	if d := os.Getenv("LEDGERBENCH_FIGURES_DIR"); d != "" {
		return d
	}
	return t.TempDir()
}

func TestFiguresPNG(t *testing.T) {
	t.Parallel()
	for name, rep := range map[string]*Report{"fixture": fixtureReport(), "sim": simFixture()} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(figuresDir(t), name)
			figs, err := rep.Figures()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rep.WriteFigures(dir, PNG, SVG, PDF); err != nil {
				t.Fatal(err)
			}
			for _, f := range figs {
				b, err := os.ReadFile(filepath.Join(dir, f.FileName(PNG)))
				if err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				w, h := f.fp.size()
				wantW, wantH := int(w.Dots(pngDPI)+0.5), int(h.Dots(pngDPI)+0.5)
				if got := img.Bounds().Size(); abs(got.X-wantW) > 1 || abs(got.Y-wantH) > 1 {
					t.Errorf("%s: %v pixels; want %dx%d", f.Name, got, wantW, wantH)
				}
				if got := img.Bounds().Size(); got.X < 1000 || got.Y < 700 {
					t.Errorf("%s: %v pixels: too small for print", f.Name, got)
				}
				if x, y, ok := transparentPixel(img); ok {
					t.Errorf("%s: pixel (%d,%d) is not opaque", f.Name, x, y)
				}
				for _, p := range []image.Point{img.Bounds().Min, {img.Bounds().Max.X - 1, img.Bounds().Max.Y - 1}, {img.Bounds().Max.X - 1, 0}} {
					if r, g, b, _ := img.At(p.X, p.Y).RGBA(); r != 0xffff || g != 0xffff || b != 0xffff {
						t.Errorf("%s: corner %v is not white", f.Name, p)
					}
				}
				// The legend lies inside the canvas, below the plot, its
				// columns side by side within its area.
				c := draw.New(vgimg.New(w, h))
				pa, la := f.fp.areas(c)
				cols, colW, lh := f.fp.columns()
				if len(f.fp.legend) == 0 || len(cols) == 0 {
					t.Errorf("%s: no legend", f.Name)
				}
				for _, l := range cols {
					if lr := legendRect(l).Size(); lr.X > colW || lr.Y > lh {
						t.Errorf("%s: legend column %v larger than %v x %v", f.Name, lr, colW, lh)
					}
				}
				if la.Min.X < c.Min.X || la.Min.Y < c.Min.Y || la.Max.X > c.Max.X || la.Max.Y > c.Max.Y {
					t.Errorf("%s: legend area %v outside the canvas %v", f.Name, la.Rectangle, c.Rectangle)
				}
				if overlap(pa.Rectangle, la.Rectangle) || la.Max.Y > pa.Min.Y {
					t.Errorf("%s: legend area %v not below the plot %v", f.Name, la.Rectangle, pa.Rectangle)
				}
				if tw := f.fp.plot.Title.TextStyle.Width(f.fp.plot.Title.Text); tw > f.fp.w {
					t.Errorf("%s: title %v wider than the plot %v", f.Name, tw, f.fp.w)
				}
				svg := string(f.SVG)
				if !strings.Contains(svg, "@font-face") {
					t.Errorf("%s: SVG does not embed its font", f.Name)
				}
				if strings.Contains(svg, "pass^") {
					t.Errorf("%s: SVG draws a literal pass^ instead of a superscript", f.Name)
				}
				if sim := strings.Contains(svg, "SIMULATED"); sim != (name == "sim" && !strings.Contains(f.Name, "kimi")) {
					t.Errorf("%s: SIMULATED marked %v", f.Name, sim)
				}
			}
		})
	}
}

func TestFigureContents(t *testing.T) {
	t.Parallel()
	figs, err := simFixture().Figures()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for _, f := range figs {
		byName[f.Name] = wellFormed(t, f.Name, f.SVG)
	}
	tests := []struct {
		fig  string
		want []string
	}{
		// The retail irma bars are missing, and marked.
		{"write_subset_sim.svg", []string{"missing", "n=2"}},
		{"action_reliability_retail.svg", []string{"n=16 actions"}},
		{"errors_sim.svg", []string{"failed"}},
		{"passk_airline.svg", []string{"accounts/fireworks/models/kimi-k2p5-instruct-0905-long-name", "n=3 tasks"}},
	}
	for _, tc := range tests {
		text, ok := byName[tc.fig]
		if !ok {
			t.Errorf("no figure %s (have %v)", tc.fig, keys(byName))
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q", tc.fig, w)
			}
		}
	}
}

func TestSuperscriptRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []textRun
	}{
		{"pass^k (%)", []textRun{{s: "pass"}, {s: "k", sup: true}, {s: " (%)"}}},
		{"retail pass^12", []textRun{{s: "retail pass"}, {s: "12", sup: true}}},
		{"x^{k+1}y", []textRun{{s: "x"}, {s: "k+1", sup: true}, {s: "y"}}},
		{"no caret", []textRun{{s: "no caret"}}},
		{"a^ b", []textRun{{s: "a"}, {s: "^"}, {s: " b"}}},
	}
	for _, tc := range tests {
		got := runs(tc.in)
		if len(got) != len(tc.want) {
			t.Errorf("runs(%q) = %v; want %v", tc.in, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("runs(%q) = %v; want %v", tc.in, got, tc.want)
				break
			}
		}
	}
}

func transparentPixel(img image.Image) (int, int, bool) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if _, _, _, a := img.At(x, y).RGBA(); a != 0xffff {
				return x, y, true
			}
		}
	}
	return 0, 0, false
}

func abs(x int) int { return max(x, -x) }

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func overlap(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// TestUnscoredGroupFigures: a group without a scored simulation has no
// point in the pass^k figure and its error bar is marked missing, not
// drawn as 0 ("no failures").
func TestUnscoredGroupFigures(t *testing.T) {
	t.Parallel()
	var recs []results.Record
	for _, r := range fixture() {
		if r.Backbone != "glm-5" || r.Domain != "airline" {
			continue
		}
		if r.Agent == "irma" {
			r.TerminationReason, r.RewardInfo, r.Error = evaluator.InfrastructureError, nil, "status 503"
		}
		recs = append(recs, r)
	}
	rep := Build(metrics.Summarize(recs, metrics.Options{Catalog: fixtureCatalog{}, Plan: func(metrics.Key) metrics.Plan { return metrics.Plan{Trials: 4} }}), Options{})
	figs, err := rep.Figures()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for _, f := range figs {
		byName[f.Name] = wellFormed(t, f.Name, f.SVG)
	}
	for fig, want := range map[string]string{
		"passk_airline.svg": "irma / glm-5 (n=3 tasks): missing (no scored simulation)",
		"errors_glm-5.svg":  "missing (no scored simulation)",
	} {
		if !strings.Contains(byName[fig], want) {
			t.Errorf("%s lacks %q:\n%s", fig, want, byName[fig])
		}
	}
	if strings.Contains(byName["errors_glm-5.svg"], "no failures") {
		t.Errorf("the unscored group's error bar reads as no failures")
	}
}
