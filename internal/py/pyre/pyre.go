// Package pyre is Python's re module (CPython 3.11) for str patterns: the
// same syntax, the same patterns rejected (re.error, or the OverflowError,
// ValueError and RecursionError re.compile lets through), and the same
// matches, found by the same backtracking as _sre (see match.go), with
// Unicode's \d \s \w, IGNORECASE's case folding (sre lowers both sides,
// with _casefix's extra cases) and Python 3.7's rule for empty matches in
// findall and sub. Character data is Go's (Unicode 15; CPython 3.11 has
// 14), and \N{...} knows character names but not their aliases.
//
// Upstream's code that the ports reproduce uses re on text the model
// writes (banking_knowledge's grep retriever compiles the model's pattern)
// and on command output (the shell sandbox's sanitising), so Go's regexp
// (RE2 syntax, leftmost-first without backreferences, different empty
// matches) would answer differently.
package pyre

import (
	"context"
	"strings"
)

// Regexp is a compiled pattern. It is safe for concurrent use.
type Regexp struct {
	pattern  string
	flags    Flags
	prog     []inst
	groups   int
	index    map[string]int
	anchored bool // the program starts with ^ or \A (search tries one position)
}

// Compile is re.compile(pattern, flags). The error is a *Error (re.error)
// or a *PyError.
func Compile(pattern string, flags Flags) (*Regexp, error) {
	src, err := newTokenizer(pattern)
	if err != nil {
		return nil, err
	}
	st := &state{flags: flags, groupdict: map[string]int{}, groupwidths: [][2]uint64{{}}, groupclosed: []bool{true},
		groupnames: []string{""}, lookbehindgroups: -1, grouprefpos: map[int]int{}}
	p, err := parseSub(src, st, flags&Verbose != 0, 0)
	if err != nil {
		return nil, err
	}
	// fix_flags
	if st.flags&Locale != 0 {
		return nil, &PyError{Type: "ValueError", Msg: "cannot use LOCALE flag with a str pattern"}
	}
	if st.flags&ASCII == 0 {
		st.flags |= Unicode
	} else if st.flags&Unicode != 0 {
		return nil, &PyError{Type: "ValueError", Msg: "ASCII and UNICODE flags are incompatible"}
	}
	if src.next != "" {
		return nil, src.error("unbalanced parenthesis", 0)
	}
	for g, pos := range st.grouprefpos {
		if g >= st.groups() {
			return nil, &Error{Msg: "invalid group reference " + itoa(g), Pos: pos}
		}
	}
	all := st.flags | flags
	c := &compiler{}
	if err := c.compile(p, all); err != nil {
		return nil, err
	}
	c.emit(inst{op: iSuccess})
	re := &Regexp{pattern: pattern, flags: all, prog: c.prog, groups: st.groups() - 1, index: st.groupdict}
	if in := c.prog[0]; in.op == iAt && (in.c == atcBeginning || in.c == atcBeginningString) {
		re.anchored = true
	}
	return re, nil
}

// MustCompile is Compile for patterns known to be valid.
func MustCompile(pattern string, flags Flags) *Regexp {
	re, err := Compile(pattern, flags)
	if err != nil {
		panic("pyre: " + pattern + ": " + err.Error())
	}
	return re
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// Groups is the number of capturing groups.
func (re *Regexp) Groups() int { return re.groups }

func (re *Regexp) machine(ctx context.Context, text []rune) *machine {
	return &machine{prog: re.prog, text: text, end: len(text), marks: make([]int, 2*re.groups), lastmark: -1, lastindex: -1, ctx: ctx}
}

// Match is one match: the text and its groups' spans (in characters).
type Match struct {
	text       []rune
	Start, End int
	spans      [][2]int // by group (0: the whole match); -1: did not take part
}

// Group is match.group(i): the matched text, ok false for None.
func (m *Match) Group(i int) (string, bool) {
	s := m.spans[i]
	if s[0] < 0 {
		return "", false
	}
	return string(m.text[s[0]:s[1]]), true
}

func (mc *machine) result(groups int) *Match {
	res := &Match{text: mc.text, Start: mc.start, End: mc.ptr, spans: make([][2]int, groups+1)}
	res.spans[0] = [2]int{mc.start, mc.ptr}
	for g := 1; g <= groups; g++ {
		j := 2 * (g - 1)
		res.spans[g] = [2]int{-1, -1}
		if j+1 <= mc.lastmark && mc.marks[j] >= 0 && mc.marks[j+1] >= 0 && mc.marks[j] <= mc.marks[j+1] {
			res.spans[g] = [2]int{mc.marks[j], mc.marks[j+1]}
		}
	}
	return res
}

// each runs the findall/sub loop over text: fn gets each match (the
// machine's state) until it returns false.
func (re *Regexp) each(ctx context.Context, text []rune, fn func(mc *machine) bool) error {
	mc := re.machine(ctx, text)
	mc.start = 0
	for mc.start <= mc.end {
		mc.lastmark, mc.lastindex = -1, -1
		mc.repeat = nil
		mc.ptr = mc.start
		if !mc.search(re.anchored) {
			return mc.err
		}
		if !fn(mc) {
			return nil
		}
		mc.mustAdvance = mc.ptr == mc.start
		mc.start = mc.ptr
	}
	return nil
}

// CountAll is len(re.findall(text)): the number of matches.
func (re *Regexp) CountAll(ctx context.Context, text []rune) (int, error) {
	n := 0
	err := re.each(ctx, text, func(*machine) bool { n++; return true })
	return n, err
}

// FindAll lists the matches of re.finditer(text).
func (re *Regexp) FindAll(ctx context.Context, text string) ([]*Match, error) {
	var out []*Match
	err := re.each(ctx, []rune(text), func(mc *machine) bool {
		out = append(out, mc.result(re.groups))
		return true
	})
	return out, err
}

// Search is re.search(text): the first match, or nil.
func (re *Regexp) Search(text string) *Match {
	var out *Match
	_ = re.each(context.Background(), []rune(text), func(mc *machine) bool {
		out = mc.result(re.groups)
		return false
	})
	return out
}

// Sub is re.sub(pattern, repl, text) with a function as repl.
func (re *Regexp) Sub(text string, repl func(*Match) string) string {
	rs := []rune(text)
	var b strings.Builder
	i := 0
	_ = re.each(context.Background(), rs, func(mc *machine) bool {
		if i < mc.start {
			b.WriteString(string(rs[i:mc.start]))
		}
		b.WriteString(repl(mc.result(re.groups)))
		i = mc.ptr
		return true
	})
	if i < len(rs) {
		b.WriteString(string(rs[i:]))
	}
	return b.String()
}

// ReplaceLiteral is re.sub(pattern, s, text) for a replacement without
// backslashes.
func (re *Regexp) ReplaceLiteral(text, s string) string {
	return re.Sub(text, func(*Match) string { return s })
}

// Escape is re.escape.
func Escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("()[]{}?*+-|^$\\.&~# \t\n\r\v\f", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
