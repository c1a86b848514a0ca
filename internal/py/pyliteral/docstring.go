package pyliteral

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Docstring is a docstring as docstring_parser.parse reads it (Google style;
// see ParseDocstring).
type Docstring struct {
	Short, Long string
	Params      []DocParam
	// Meta counts the parsed section entries (params, returns, raises,
	// examples, ...), which decides the style docstring_parser picks.
	Meta int
}

// DocParam is one entry of an Args (Arguments, Parameters, Params) section.
type DocParam struct {
	Name        string
	Type        string // "" when the entry has no "(type)"
	Description string
}

// Param returns the documented parameter named name.
func (d Docstring) Param(name string) (DocParam, bool) {
	for _, p := range d.Params {
		if p.Name == name {
			return p, true
		}
	}
	return DocParam{}, false
}

// Description is the text upstream's Tool sends as a tool's description:
// the short description, then a blank line and the long one when there is
// one.
func (d Docstring) Description() string {
	if d.Long == "" {
		return d.Short
	}
	return d.Short + "\n\n" + d.Long
}

// CleanDoc is Python's inspect.cleandoc: tabs expanded, the first line's
// leading whitespace and the common indentation of the others removed,
// leading and trailing blank lines dropped.
func CleanDoc(doc string) string {
	lines := strings.Split(expandTabs(doc), "\n")
	margin := -1
	for _, l := range lines[1:] {
		content := len(strings.TrimLeftFunc(l, unicode.IsSpace))
		if content > 0 {
			if ind := len(l) - content; margin < 0 || ind < margin {
				margin = ind
			}
		}
	}
	lines[0] = strings.TrimLeftFunc(lines[0], unicode.IsSpace)
	if margin >= 0 {
		for i := 1; i < len(lines); i++ {
			if len(lines[i]) > margin {
				lines[i] = lines[i][margin:]
			} else {
				lines[i] = ""
			}
		}
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	return strings.Join(lines, "\n")
}

// expandTabs is str.expandtabs() with tab size 8.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n', '\r':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

// googleSection is a section title of docstring_parser's Google parser.
type googleSection struct {
	title string
	key   string // param, raises, attribute, examples, returns, yields
	multi int    // 0 singular, 1 multiple, 2 singular or multiple
}

func googleSections() []googleSection {
	return []googleSection{
		{"Arguments", "param", 1}, {"Args", "param", 1}, {"Parameters", "param", 1}, {"Params", "param", 1},
		{"Raises", "raises", 1}, {"Exceptions", "raises", 1}, {"Except", "raises", 1},
		{"Attributes", "attribute", 1},
		{"Example", "examples", 0}, {"Examples", "examples", 0},
		{"Returns", "returns", 2}, {"Yields", "yields", 2},
	}
}

var (
	googleTitleRE    = regexp.MustCompile(`(?m)^(Arguments|Args|Parameters|Params|Raises|Exceptions|Except|Attributes|Example|Examples|Returns|Yields):[ \t\r\f\v]*$`)
	googleTypedArgRE = regexp.MustCompile(`^\s*(.+?)\s*\(\s*(.*[^\s]+)\s*\)`)
	googleMultipleRE = regexp.MustCompile(`^(\s*[^:\s]+:)|^([^:]*\]:.*)`)
	unknownMetaRE    = regexp.MustCompile(`\n\S`)
	otherStyleRE     = regexp.MustCompile(`(?m)^[:@]`)
)

// ParseDocstring parses a docstring as docstring_parser.parse does with its
// default AUTO style for the docstrings upstream writes: Google style
// (short description, long description, Args/Returns/Raises/... sections).
// AUTO keeps the style with the most section entries, the ReST reading
// winning ties; ReST and Google read a docstring without entries the same
// way unless a line starts with ':', and a Google reading that fails (an
// Args entry without a colon) leaves the ReST one. Docstrings with ReST (":param") or
// Epydoc ("@param") fields are not supported and return an error.
func ParseDocstring(text string) (Docstring, error) {
	var d Docstring
	text = CleanDoc(text)
	if text == "" {
		return d, nil
	}
	if loc := otherStyleRE.FindStringIndex(text); loc != nil {
		line := strings.Count(text[:loc[0]], "\n") + 1
		return d, fmt.Errorf("docstring line %d: ReST or Epydoc field lists are not supported (only Google style)", line)
	}
	desc, metaChunk := text, ""
	if loc := googleTitleRE.FindStringIndex(text); loc != nil {
		desc, metaChunk = text[:loc[0]], text[loc[0]:]
	}
	if err := d.googleMeta(metaChunk); err != nil || d.Meta == 0 {
		// The Google reading failed (a ParseError) or found no entries:
		// AUTO keeps the ReST reading, which has no entries and whose
		// description is the whole text (no line starts with ':').
		desc = text
		d.Params, d.Meta = nil, 0
	}
	short, long, hasLong := strings.Cut(desc, "\n")
	d.Short = short
	if hasLong {
		d.Long = strings.TrimSpace(long)
	}
	return d, nil
}

// googleMeta reads the sections of a Google docstring.
func (d *Docstring) googleMeta(meta string) error {
	matches := googleTitleRE.FindAllStringSubmatchIndex(meta, -1)
	if len(matches) == 0 {
		return nil
	}
	type chunk struct{ title, text string }
	var chunks []chunk // an ordered dict: a repeated title keeps its first place, last text
	for j, m := range matches {
		end := len(meta)
		if j+1 < len(matches) {
			end = matches[j+1][0]
		}
		details := meta[m[1]:end]
		if loc := unknownMetaRE.FindStringIndex(details); loc != nil {
			details = details[:loc[0]]
		}
		title := meta[m[2]:m[3]]
		text := strings.Trim(details, "\n")
		replaced := false
		for i := range chunks {
			if chunks[i].title == title {
				chunks[i].text, replaced = text, true
			}
		}
		if !replaced {
			chunks = append(chunks, chunk{title, text})
		}
	}
	for _, c := range chunks {
		var sec googleSection
		for _, s := range googleSections() {
			if s.title == c.title {
				sec = s
			}
		}
		ind := len(c.text) - len(strings.TrimLeftFunc(c.text, unicode.IsSpace))
		indent := c.text[:ind]
		if sec.multi != 1 {
			if err := d.googleEntry(sec, CleanDoc(c.text)); err != nil {
				return err
			}
			continue
		}
		// Entries start at lines with exactly the chunk's indentation.
		re, err := regexp.Compile(`(?m)^` + regexp.QuoteMeta(indent) + `\S`)
		if err != nil {
			return err
		}
		starts := re.FindAllStringIndex(c.text, -1)
		if len(starts) == 0 {
			return fmt.Errorf("docstring: no specification for %q: %q", c.title, c.text)
		}
		for j, s := range starts {
			end := len(c.text)
			if j+1 < len(starts) {
				end = starts[j+1][0]
			}
			// Upstream's pattern ends in a lookahead (?=\S): the entry starts
			// right after the indentation.
			part := strings.Trim(c.text[s[0]+len(indent):end], "\n")
			if err := d.googleEntry(sec, part); err != nil {
				return err
			}
		}
	}
	return nil
}

// googleEntry reads one section entry (GoogleParser._build_meta).
func (d *Docstring) googleEntry(sec googleSection, text string) error {
	d.Meta++
	if sec.multi == 0 || (sec.multi == 2 && !googleMultipleRE.MatchString(text)) {
		if sec.key == "param" {
			return fmt.Errorf("docstring: expected a parameter name in %q", text)
		}
		return nil
	}
	before, desc, ok := strings.Cut(text, ":")
	if !ok {
		return fmt.Errorf("docstring: expected a colon in %q", text)
	}
	if first, rest, ok := strings.Cut(before, "\n"); ok {
		before = first + CleanDoc(rest)
	}
	if desc != "" {
		desc = strings.TrimPrefix(desc, " ")
		if first, rest, ok := strings.Cut(desc, "\n"); ok {
			desc = first + "\n" + CleanDoc(rest)
		}
		desc = strings.Trim(desc, "\n")
	}
	if sec.key != "param" {
		return nil
	}
	p := DocParam{Name: before, Description: desc}
	if m := googleTypedArgRE.FindStringSubmatch(before); m != nil {
		p.Name, p.Type = m[1], m[2]
		if t, ok := strings.CutSuffix(p.Type, ", optional"); ok {
			p.Type = t
		} else if t, ok := strings.CutSuffix(p.Type, "?"); ok {
			p.Type = t
		}
	}
	d.Params = append(d.Params, p)
	return nil
}
