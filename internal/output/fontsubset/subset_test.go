package fontsubset

import (
	"slices"
	"testing"

	"codeberg.org/go-fonts/liberation/liberationserifbold"
	"codeberg.org/go-fonts/liberation/liberationserifregular"
	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// TestSubsetKeepsGlyphs subsets the figures' faces and checks, against the
// full font, that every kept rune has the same outline, advance and kerning,
// that other runes are gone, and that the subset is a fraction of the size.
func TestSubsetKeepsGlyphs(t *testing.T) {
	t.Parallel()
	const text = "Environment-changing subset: pass^k and pass (n=26) éÅ ﬁ—–%…·"
	for _, tc := range []struct {
		name string
		ttf  []byte
	}{
		{"serif regular", liberationserifregular.TTF},
		{"serif bold", liberationserifbold.TTF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runes := []rune(text)
			sub, err := Subset(tc.ttf, runes)
			if err != nil {
				t.Fatal(err)
			}
			if len(sub)*5 > len(tc.ttf) {
				t.Errorf("subset of %d bytes from a %d-byte font; want under a fifth", len(sub), len(tc.ttf))
			}
			full, err := sfnt.Parse(tc.ttf)
			if err != nil {
				t.Fatal(err)
			}
			part, err := sfnt.Parse(sub)
			if err != nil {
				t.Fatalf("the subset does not parse: %v", err)
			}
			var fb, pb sfnt.Buffer
			ppem := fixed.I(1000)
			index := func(f *sfnt.Font, b *sfnt.Buffer, r rune) sfnt.GlyphIndex {
				gi, err := f.GlyphIndex(b, r)
				if err != nil {
					t.Fatal(err)
				}
				return gi
			}
			for _, r := range runes {
				fg, pg := index(full, &fb, r), index(part, &pb, r)
				if fg == 0 {
					continue // the face has no such glyph
				}
				if pg == 0 {
					t.Errorf("%q: not in the subset", r)
					continue
				}
				fa, _ := full.GlyphAdvance(&fb, fg, ppem, font.HintingNone)
				pa, _ := part.GlyphAdvance(&pb, pg, ppem, font.HintingNone)
				if fa != pa {
					t.Errorf("%q: advance %v; want %v", r, pa, fa)
				}
				fs, err := full.LoadGlyph(&fb, fg, ppem, nil)
				if err != nil {
					t.Fatal(err)
				}
				fs = slices.Clone(fs)
				ps, err := part.LoadGlyph(&pb, pg, ppem, nil)
				if err != nil {
					t.Fatalf("%q: %v", r, err)
				}
				if !slices.Equal(fs, ps) {
					t.Errorf("%q: outline differs from the full font's", r)
				}
			}
			for _, pair := range [][2]rune{{'A', 'V'}, {'T', 'o'}, {'a', 'y'}} {
				if !slices.Contains(runes, pair[0]) || !slices.Contains(runes, pair[1]) {
					continue
				}
				fk, _ := full.Kern(&fb, index(full, &fb, pair[0]), index(full, &fb, pair[1]), ppem, font.HintingNone)
				pk, _ := part.Kern(&pb, index(part, &pb, pair[0]), index(part, &pb, pair[1]), ppem, font.HintingNone)
				if fk != pk {
					t.Errorf("kern %q: %v; want %v", string(pair[:]), pk, fk)
				}
			}
			for _, r := range "QZ@" {
				if index(part, &pb, r) != 0 {
					t.Errorf("%q: in the subset, never asked for", r)
				}
			}
		})
	}
}

func FuzzSubset(f *testing.F) {
	f.Add(0, byte(0), "pass^k")
	f.Add(300, byte(0xFF), "é")
	f.Add(20, byte(7), "AV")
	ttf := liberationserifregular.TTF
	f.Fuzz(func(t *testing.T, at int, b byte, text string) {
		font := slices.Clone(ttf)
		if at >= 0 && at < len(font) {
			font[at] = b
		}
		_, _ = Subset(font, []rune(text)) // an error, never a panic
	})
}
