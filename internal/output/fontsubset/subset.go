// Package fontsubset cuts a TrueType font down to the glyphs of a set of
// runes, so that a figure can embed the few dozen glyphs it draws rather
// than the whole face (Liberation Serif: 400 KB, 530 KB as base64).
//
// The subset keeps every table a renderer needs to draw and measure those
// glyphs as the full font does: the outlines (glyf, loca; composite glyphs
// with their components), metrics (hmtx, hhea), kerning between kept glyphs
// (kern), the hinting programs the outlines call (fpgm, prep, cvt, gasp),
// name and OS/2. Glyph ids are renumbered (.notdef stays 0), the cmap is
// rebuilt for the kept runes and post carries no glyph names (format 3).
// Layout tables (GSUB, GPOS, GDEF) and device tables are dropped.
package fontsubset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"

	"golang.org/x/image/font/sfnt"
)

// copied are the tables taken over as they are.
var copied = []string{"OS/2", "cvt ", "fpgm", "gasp", "name", "prep"}

// Subset returns a TrueType font holding the glyphs ttf maps the given runes
// to (runes without a glyph are skipped), the glyphs those are composed of,
// and .notdef.
func Subset(ttf []byte, runes []rune) ([]byte, error) {
	f, err := sfnt.Parse(ttf)
	if err != nil {
		return nil, fmt.Errorf("fontsubset: %w", err)
	}
	tables, err := readTables(ttf)
	if err != nil {
		return nil, err
	}
	for _, tag := range []string{"head", "hhea", "maxp", "hmtx", "loca", "glyf"} {
		if tables[tag] == nil {
			return nil, fmt.Errorf("fontsubset: no %s table (only TrueType outlines are supported)", tag)
		}
	}
	head, hhea, maxp := tables["head"], tables["hhea"], tables["maxp"]
	if len(head) < 54 || len(hhea) < 36 || len(maxp) < 6 {
		return nil, errors.New("fontsubset: head, hhea or maxp table too short")
	}
	numGlyphs := int(be16(maxp, 4))
	glyphs, err := splitGlyphs(tables["glyf"], tables["loca"], numGlyphs, be16(head, 50) == 1)
	if err != nil {
		return nil, err
	}

	// The glyphs to keep: .notdef, the runes', and their components.
	var buf sfnt.Buffer
	keep := map[int]bool{0: true}
	cmap := map[rune]int{}
	for _, r := range runes {
		gi, err := f.GlyphIndex(&buf, r)
		if err != nil || gi == 0 || r > 0xFFFF {
			continue
		}
		cmap[r] = int(gi)
		keep[int(gi)] = true
	}
	stack := make([]int, 0, len(keep))
	for g := range keep {
		stack = append(stack, g)
	}
	for len(stack) > 0 {
		g := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		comps, err := components(glyphs[g])
		if err != nil {
			return nil, fmt.Errorf("fontsubset: glyph %d: %w", g, err)
		}
		for _, c := range comps {
			if c.glyph >= numGlyphs {
				return nil, fmt.Errorf("fontsubset: glyph %d: component %d out of range", g, c.glyph)
			}
			if !keep[c.glyph] {
				keep[c.glyph] = true
				stack = append(stack, c.glyph)
			}
		}
	}
	old := make([]int, 0, len(keep))
	for g := range keep {
		old = append(old, g)
	}
	sort.Ints(old)
	newID := make(map[int]int, len(old))
	for i, g := range old {
		newID[g] = i
	}

	// glyf and loca (long offsets), components renumbered.
	var glyf bytes.Buffer
	loca := make([]byte, 4*(len(old)+1))
	for i, g := range old {
		binary.BigEndian.PutUint32(loca[4*i:], uint32(glyf.Len()))
		data := slices.Clone(glyphs[g])
		comps, _ := components(data)
		for _, c := range comps {
			binary.BigEndian.PutUint16(data[c.at:], uint16(newID[c.glyph]))
		}
		glyf.Write(data)
		for glyf.Len()%4 != 0 {
			glyf.WriteByte(0)
		}
	}
	binary.BigEndian.PutUint32(loca[4*len(old):], uint32(glyf.Len()))

	// hmtx: a full metric for every kept glyph.
	numHM := int(be16(hhea, 34))
	hmtxIn := tables["hmtx"]
	if numHM == 0 || len(hmtxIn) < 4*numHM+2*(numGlyphs-numHM) {
		return nil, errors.New("fontsubset: hmtx table too short")
	}
	hmtx := make([]byte, 4*len(old))
	for i, g := range old {
		var adv, lsb uint16
		if g < numHM {
			adv, lsb = be16(hmtxIn, 4*g), be16(hmtxIn, 4*g+2)
		} else {
			adv, lsb = be16(hmtxIn, 4*(numHM-1)), be16(hmtxIn, 4*numHM+2*(g-numHM))
		}
		binary.BigEndian.PutUint16(hmtx[4*i:], adv)
		binary.BigEndian.PutUint16(hmtx[4*i+2:], lsb)
	}

	out := map[string][]byte{
		"glyf": glyf.Bytes(), "loca": loca, "hmtx": hmtx,
		"cmap": buildCmap(cmap, newID),
		"post": post(tables["post"]),
	}
	head = slices.Clone(head)
	binary.BigEndian.PutUint32(head[8:], 0)  // checkSumAdjustment, set below
	binary.BigEndian.PutUint16(head[50:], 1) // long loca
	hhea = slices.Clone(hhea)
	binary.BigEndian.PutUint16(hhea[34:], uint16(len(old)))
	maxp = slices.Clone(maxp)
	binary.BigEndian.PutUint16(maxp[4:], uint16(len(old)))
	out["head"], out["hhea"], out["maxp"] = head, hhea, maxp
	if k := kern(tables["kern"], newID); k != nil {
		out["kern"] = k
	}
	for _, tag := range copied {
		if t := tables[tag]; t != nil {
			out[tag] = t
		}
	}
	return write(out), nil
}

func be16(b []byte, at int) uint16 { return binary.BigEndian.Uint16(b[at:]) }
func be32(b []byte, at int) uint32 { return binary.BigEndian.Uint32(b[at:]) }

// readTables reads the table directory of a TrueType font.
func readTables(ttf []byte) (map[string][]byte, error) {
	if len(ttf) < 12 {
		return nil, errors.New("fontsubset: font too short")
	}
	if v := be32(ttf, 0); v != 0x00010000 && v != 0x74727565 { // 1.0 or "true"
		return nil, fmt.Errorf("fontsubset: sfnt version %#x: not a TrueType font", v)
	}
	n := int(be16(ttf, 4))
	if len(ttf) < 12+16*n {
		return nil, errors.New("fontsubset: table directory truncated")
	}
	tables := make(map[string][]byte, n)
	for i := range n {
		rec := ttf[12+16*i:]
		off, length := be32(rec, 8), be32(rec, 12)
		if uint64(off)+uint64(length) > uint64(len(ttf)) {
			return nil, fmt.Errorf("fontsubset: table %q out of bounds", rec[:4])
		}
		tables[string(rec[:4])] = ttf[off : off+length]
	}
	return tables, nil
}

// splitGlyphs cuts glyf into one slice per glyph (empty for glyphs without
// an outline).
func splitGlyphs(glyf, loca []byte, n int, long bool) ([][]byte, error) {
	at := func(i int) int {
		if long {
			return int(be32(loca, 4*i))
		}
		return 2 * int(be16(loca, 2*i))
	}
	if long && len(loca) < 4*(n+1) || !long && len(loca) < 2*(n+1) {
		return nil, errors.New("fontsubset: loca table too short")
	}
	out := make([][]byte, n)
	for i := range n {
		a, b := at(i), at(i+1)
		if a > b || b > len(glyf) {
			return nil, fmt.Errorf("fontsubset: glyph %d out of bounds", i)
		}
		out[i] = glyf[a:b]
	}
	return out, nil
}

type component struct {
	glyph int
	at    int // offset of the glyph index in the glyph's data
}

// Composite glyph flags.
const (
	argsAreWords  = 0x0001
	haveScale     = 0x0008
	moreComps     = 0x0020
	haveXYScale   = 0x0040
	haveTwoByTwo  = 0x0080
	compHeaderLen = 10
)

// components lists a composite glyph's components (none for a simple or
// empty glyph).
func components(g []byte) ([]component, error) {
	if len(g) < compHeaderLen || int16(be16(g, 0)) >= 0 {
		return nil, nil
	}
	var out []component
	for p := compHeaderLen; ; {
		if p+4 > len(g) {
			return nil, errors.New("composite glyph truncated")
		}
		flags := be16(g, p)
		out = append(out, component{glyph: int(be16(g, p+2)), at: p + 2})
		p += 4
		if flags&argsAreWords != 0 {
			p += 4
		} else {
			p += 2
		}
		switch {
		case flags&haveScale != 0:
			p += 2
		case flags&haveXYScale != 0:
			p += 4
		case flags&haveTwoByTwo != 0:
			p += 8
		}
		if flags&moreComps == 0 {
			return out, nil
		}
	}
}

// buildCmap writes a cmap with one format 4 subtable (Windows, Unicode BMP)
// mapping each rune to its new glyph id, one segment per rune.
func buildCmap(cmap map[rune]int, newID map[int]int) []byte {
	rs := make([]rune, 0, len(cmap))
	for r := range cmap {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	segs := len(rs) + 1 // and the final 0xFFFF segment
	sub := make([]byte, 16+8*segs)
	binary.BigEndian.PutUint16(sub[0:], 4)
	binary.BigEndian.PutUint16(sub[2:], uint16(len(sub)))
	binary.BigEndian.PutUint16(sub[6:], uint16(2*segs))
	sr, es := searchParams(segs, 2)
	binary.BigEndian.PutUint16(sub[8:], sr)
	binary.BigEndian.PutUint16(sub[10:], es)
	binary.BigEndian.PutUint16(sub[12:], uint16(2*segs)-sr)
	end, start := 14, 16+2*segs
	delta, rangeOff := start+2*segs, start+4*segs
	for i := range segs {
		code, d := uint16(0xFFFF), uint16(1)
		if i < len(rs) {
			code = uint16(rs[i])
			d = uint16(newID[cmap[rs[i]]]) - code
		}
		binary.BigEndian.PutUint16(sub[end+2*i:], code)
		binary.BigEndian.PutUint16(sub[start+2*i:], code)
		binary.BigEndian.PutUint16(sub[delta+2*i:], d)
		binary.BigEndian.PutUint16(sub[rangeOff+2*i:], 0)
	}
	hdr := []byte{0, 0, 0, 1, 0, 3, 0, 1, 0, 0, 0, 12}
	return append(hdr, sub...)
}

// searchParams are the binary-search fields of a table of n entries of
// size bytes: searchRange and entrySelector.
func searchParams(n, size int) (searchRange, entrySelector uint16) {
	p := 1
	for p*2 <= n {
		p *= 2
		entrySelector++
	}
	return uint16(p * size), entrySelector
}

// post writes a format 3 post table (no glyph names) with the font's
// italic angle, underline and fixed-pitch fields.
func post(in []byte) []byte {
	out := make([]byte, 32)
	binary.BigEndian.PutUint32(out, 0x00030000)
	if len(in) >= 16 {
		copy(out[4:16], in[4:16])
	}
	return out
}

// kern keeps the pairs of kept glyphs of a version 0 kern table's format 0
// subtables (nil when there is none or no pair remains).
func kern(in []byte, newID map[int]int) []byte {
	if len(in) < 4 || be16(in, 0) != 0 {
		return nil
	}
	type pair struct {
		l, r uint16
		v    []byte
	}
	var pairs []pair
	var coverage uint16
	p := 4
	for range int(be16(in, 2)) {
		if p+14 > len(in) {
			break
		}
		length, cov := int(be16(in, p+2)), be16(in, p+4)
		if cov>>8 == 0 && p+14+6*int(be16(in, p+6)) <= len(in) {
			coverage = cov
			for i := range int(be16(in, p+6)) {
				e := in[p+14+6*i:]
				l, lok := newID[int(be16(e, 0))]
				r, rok := newID[int(be16(e, 2))]
				if lok && rok {
					pairs = append(pairs, pair{uint16(l), uint16(r), e[4:6]})
				}
			}
		}
		if length <= 0 {
			break
		}
		p += length
	}
	if len(pairs) == 0 || len(pairs) > 10000 {
		return nil
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		return int(uint32(a.l)<<16|uint32(a.r)) - int(uint32(b.l)<<16|uint32(b.r))
	})
	out := make([]byte, 4+14+6*len(pairs))
	binary.BigEndian.PutUint16(out[2:], 1)
	sub := out[4:]
	binary.BigEndian.PutUint16(sub[2:], uint16(len(sub)))
	binary.BigEndian.PutUint16(sub[4:], coverage)
	binary.BigEndian.PutUint16(sub[6:], uint16(len(pairs)))
	sr, es := searchParams(len(pairs), 6)
	binary.BigEndian.PutUint16(sub[8:], sr)
	binary.BigEndian.PutUint16(sub[10:], es)
	binary.BigEndian.PutUint16(sub[12:], uint16(6*len(pairs))-sr)
	for i, pr := range pairs {
		e := sub[14+6*i:]
		binary.BigEndian.PutUint16(e, pr.l)
		binary.BigEndian.PutUint16(e[2:], pr.r)
		copy(e[4:6], pr.v)
	}
	return out
}

// write assembles the font: the table directory sorted by tag, each table
// 4-byte aligned with its checksum, and head's checkSumAdjustment.
func write(tables map[string][]byte) []byte {
	tags := make([]string, 0, len(tables))
	for t := range tables {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	n := len(tags)
	hdr := make([]byte, 12+16*n)
	binary.BigEndian.PutUint32(hdr, 0x00010000)
	binary.BigEndian.PutUint16(hdr[4:], uint16(n))
	sr, es := searchParams(n, 16)
	binary.BigEndian.PutUint16(hdr[6:], sr)
	binary.BigEndian.PutUint16(hdr[8:], es)
	binary.BigEndian.PutUint16(hdr[10:], uint16(16*n)-sr)
	body := make([]byte, 0)
	headAt := -1
	for i, t := range tags {
		data := tables[t]
		off := len(hdr) + len(body)
		if t == "head" {
			headAt = off
		}
		rec := hdr[12+16*i:]
		copy(rec, t)
		binary.BigEndian.PutUint32(rec[4:], checksum(data))
		binary.BigEndian.PutUint32(rec[8:], uint32(off))
		binary.BigEndian.PutUint32(rec[12:], uint32(len(data)))
		body = append(body, data...)
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
	}
	out := append(hdr, body...)
	if headAt >= 0 {
		binary.BigEndian.PutUint32(out[headAt+8:], 0xB1B0AFBA-checksum(out))
	}
	return out
}

// checksum is the TrueType table checksum: the sum of big-endian uint32s,
// the last one zero-padded.
func checksum(b []byte) uint32 {
	var sum uint32
	for i := 0; i < len(b); i += 4 {
		var w [4]byte
		copy(w[:], b[i:])
		sum += binary.BigEndian.Uint32(w[:])
	}
	return sum
}
