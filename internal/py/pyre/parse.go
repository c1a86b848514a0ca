package pyre

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// The parser follows CPython 3.11's re/_parser.py: the same syntax, the
// same errors (the same patterns are rejected; the texts are re.error's),
// the same tree ((op, av) items) and the same rewrites of it (common branch
// prefixes factored out, single-character branches turned into sets,
// non-capturing groups without flags unpacked), because compilation and
// matching depend on the tree's shape.

// Flags are re's flags.
type Flags int

const (
	IgnoreCase Flags = 2
	Locale     Flags = 4
	Multiline  Flags = 8
	DotAll     Flags = 16
	Unicode    Flags = 32
	Verbose    Flags = 64
	Debug      Flags = 128
	ASCII      Flags = 256
	Template   Flags = 1

	typeFlags   = ASCII | Locale | Unicode
	globalFlags = Debug | Template
)

var flagChars = map[rune]Flags{'i': IgnoreCase, 'L': Locale, 'm': Multiline, 's': DotAll, 'x': Verbose, 'a': ASCII, 't': Template, 'u': Unicode}

const (
	// maxRepeat is _sre.MAXREPEAT: an unbounded repeat's maximum.
	maxRepeat = 1<<32 - 1
	maxGroups = (1<<31 - 1) / 2
	// maxWidth stands for _parser.MAXWIDTH (1 << 64): widths saturate.
	maxWidth = math.MaxUint64
	// maxDepth bounds nesting where CPython's parser would exhaust its
	// recursion limit.
	maxDepth = 200
)

type opcode uint8

const (
	opLiteral opcode = iota + 1
	opNotLiteral
	opIn
	opAny
	opAt
	opBranch
	opSubpattern
	opAtomic
	opMaxRepeat
	opMinRepeat
	opPossRepeat
	opGroupref
	opGrouprefExists
	opAssert
	opAssertNot
	// set members
	opRange
	opCategory
	opNegate
)

type atCode uint8

const (
	atBeginning atCode = iota + 1
	atBeginningLine
	atBeginningString
	atBoundary
	atNonBoundary
	atEnd
	atEndLine
	atEndString
)

type category uint8

const (
	catDigit category = iota + 1
	catNotDigit
	catSpace
	catNotSpace
	catWord
	catNotWord
)

// item is one (op, av) of a subpattern.
type item struct {
	op     opcode
	c      rune // literal; range lo
	hi     rune // range hi
	at     atCode
	cat    category
	set    []item // opIn
	alts   []*sub // opBranch
	group  int    // opSubpattern (0: none), opGroupref, opGrouprefExists
	add    Flags
	del    Flags
	p      *sub // opSubpattern, opAtomic, repeats, asserts, conditional yes
	no     *sub // conditional no (nil: none)
	min    int64
	max    int64
	behind bool // assert direction
}

func (a item) equal(b item) bool {
	if a.op != b.op || a.c != b.c || a.hi != b.hi || a.at != b.at || a.cat != b.cat ||
		a.group != b.group || a.add != b.add || a.del != b.del || a.min != b.min || a.max != b.max || a.behind != b.behind ||
		len(a.set) != len(b.set) || len(a.alts) != len(b.alts) {
		return false
	}
	for i := range a.set {
		if !a.set[i].equal(b.set[i]) {
			return false
		}
	}
	for i := range a.alts {
		if !a.alts[i].equal(b.alts[i]) {
			return false
		}
	}
	return a.p.equal(b.p) && a.no.equal(b.no)
}

// sub is a SubPattern.
type sub struct {
	st       *state
	items    []item
	width    [2]uint64
	hasWidth bool
}

func (s *sub) equal(o *sub) bool {
	if s == nil || o == nil {
		return s == o
	}
	if len(s.items) != len(o.items) {
		return false
	}
	for i := range s.items {
		if !s.items[i].equal(o.items[i]) {
			return false
		}
	}
	return true
}

type state struct {
	flags            Flags
	groupdict        map[string]int
	groupnames       []string // by group number (0 unused)
	groupwidths      [][2]uint64
	groupclosed      []bool
	lookbehindgroups int // -1: none
	grouprefpos      map[int]int
}

func (st *state) groups() int { return len(st.groupwidths) }

func (st *state) opengroup(name string, named bool) (int, error) {
	gid := st.groups()
	st.groupwidths = append(st.groupwidths, [2]uint64{})
	st.groupclosed = append(st.groupclosed, false)
	st.groupnames = append(st.groupnames, "")
	if st.groups() > maxGroups {
		return 0, &Error{Msg: "too many groups"}
	}
	if named {
		if og, ok := st.groupdict[name]; ok {
			return 0, &Error{Msg: fmt.Sprintf("redefinition of group name %s as group %d; was group %d", pyRepr(name), gid, og)}
		}
		st.groupdict[name] = gid
		st.groupnames[gid] = name
	}
	return gid, nil
}

func (st *state) closegroup(gid int, p *sub) {
	st.groupwidths[gid] = p.getwidth()
	st.groupclosed[gid] = true
}

func (st *state) checkgroup(gid int) bool { return gid < st.groups() && st.groupclosed[gid] }

func (st *state) checklookbehindgroup(gid int, src *tokenizer) error {
	if st.lookbehindgroups >= 0 {
		if !st.checkgroup(gid) {
			return src.error("cannot refer to an open group", 0)
		}
		if gid >= st.lookbehindgroups {
			return src.error("cannot refer to group defined in the same lookbehind subpattern", 0)
		}
	}
	return nil
}

func satAdd(a, b uint64) uint64 {
	s, c := bits.Add64(a, b, 0)
	if c != 0 {
		return maxWidth
	}
	return s
}

func satMul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return maxWidth
	}
	return lo
}

// getwidth is SubPattern.getwidth: the (min, max) number of characters.
func (s *sub) getwidth() [2]uint64 {
	if s.hasWidth {
		return s.width
	}
	var lo, hi uint64
loop:
	for _, it := range s.items {
		switch it.op {
		case opBranch:
			i, j := uint64(maxWidth), uint64(0)
			for _, a := range it.alts {
				w := a.getwidth()
				i, j = min(i, w[0]), max(j, w[1])
			}
			lo, hi = satAdd(lo, i), satAdd(hi, j)
		case opAtomic, opSubpattern:
			w := it.p.getwidth()
			lo, hi = satAdd(lo, w[0]), satAdd(hi, w[1])
		case opMaxRepeat, opMinRepeat, opPossRepeat:
			w := it.p.getwidth()
			lo = satAdd(lo, satMul(w[0], uint64(it.min)))
			if it.max == maxRepeat && w[1] != 0 {
				hi = maxWidth
			} else {
				hi = satAdd(hi, satMul(w[1], uint64(it.max)))
			}
		case opAny, opRange, opIn, opLiteral, opNotLiteral, opCategory:
			lo, hi = satAdd(lo, 1), satAdd(hi, 1)
		case opGroupref:
			w := s.st.groupwidths[it.group]
			lo, hi = satAdd(lo, w[0]), satAdd(hi, w[1])
		case opGrouprefExists:
			w := it.p.getwidth()
			i, j := w[0], w[1]
			if it.no != nil {
				n := it.no.getwidth()
				i, j = min(i, n[0]), max(j, n[1])
			} else {
				i = 0
			}
			lo, hi = satAdd(lo, i), satAdd(hi, j)
		case 0:
			break loop
		}
	}
	s.width, s.hasWidth = [2]uint64{lo, hi}, true
	return s.width
}

// Error is re.error: the pattern is invalid.
type Error struct {
	Msg string
	Pos int // character offset in the pattern (-1: none)
}

func (e *Error) Error() string {
	if e.Pos >= 0 {
		return fmt.Sprintf("%s at position %d", e.Msg, e.Pos)
	}
	return e.Msg
}

// PyError is an exception other than re.error that re.compile raises for a
// pattern (OverflowError, ValueError, RecursionError): code that catches
// re.error alone lets it through.
type PyError struct {
	Type, Msg string
}

func (e *PyError) Error() string { return e.Msg }

type tokenizer struct {
	s     []rune
	index int
	next  string // "" is None
}

func newTokenizer(pattern string) (*tokenizer, error) {
	t := &tokenizer{s: []rune(pattern)}
	return t, t.advance()
}

func (t *tokenizer) advance() error {
	i := t.index
	if i >= len(t.s) {
		t.next = ""
		return nil
	}
	c := string(t.s[i])
	if t.s[i] == '\\' {
		i++
		if i >= len(t.s) {
			return &Error{Msg: "bad escape (end of pattern)", Pos: len(t.s) - 1}
		}
		c += string(t.s[i])
	}
	t.index = i + 1
	t.next = c
	return nil
}

func (t *tokenizer) match(c string) (bool, error) {
	if c == t.next {
		return true, t.advance()
	}
	return false, nil
}

func (t *tokenizer) get() (string, error) {
	this := t.next
	return this, t.advance()
}

func (t *tokenizer) getwhile(n int, set func(string) bool) (string, error) {
	var b strings.Builder
	for range n {
		c := t.next
		if c == "" || !set(c) {
			break
		}
		b.WriteString(c)
		if err := t.advance(); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func (t *tokenizer) getuntil(term, name string) (string, error) {
	var b []rune
	for {
		c := t.next
		if err := t.advance(); err != nil {
			return "", err
		}
		if c == "" {
			if len(b) == 0 {
				return "", t.error("missing "+name, 0)
			}
			return "", t.error("missing "+term+", unterminated name", len(b))
		}
		if c == term {
			if len(b) == 0 {
				return "", t.error("missing "+name, 1)
			}
			break
		}
		b = append(b, []rune(c)...)
	}
	return string(b), nil
}

func (t *tokenizer) tell() int { return t.index - len([]rune(t.next)) }

func (t *tokenizer) seek(i int) error {
	t.index = i
	return t.advance()
}

func (t *tokenizer) error(msg string, offset int) error {
	return &Error{Msg: msg, Pos: t.tell() - offset}
}

func (t *tokenizer) checkgroupname(name string, offset int) error {
	if !isIdentifier(name) {
		return t.error("bad character in group name "+pyRepr(name), len([]rune(name))+offset)
	}
	return nil
}

func isDigit(c string) bool    { return len(c) == 1 && c[0] >= '0' && c[0] <= '9' }
func isOctDigit(c string) bool { return len(c) == 1 && c[0] >= '0' && c[0] <= '7' }
func isHexDigit(c string) bool {
	return len(c) == 1 && (c[0] >= '0' && c[0] <= '9' || c[0] >= 'a' && c[0] <= 'f' || c[0] >= 'A' && c[0] <= 'F')
}
func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

var escapes = map[string]rune{`\a`: '\a', `\b`: '\b', `\f`: '\f', `\n`: '\n', `\r`: '\r', `\t`: '\t', `\v`: '\v', `\\`: '\\'}

// categories is CATEGORIES: \A \b \B \Z are positions, the others sets.
func categoryEscape(e string) (item, bool) {
	switch e {
	case `\A`:
		return item{op: opAt, at: atBeginningString}, true
	case `\b`:
		return item{op: opAt, at: atBoundary}, true
	case `\B`:
		return item{op: opAt, at: atNonBoundary}, true
	case `\Z`:
		return item{op: opAt, at: atEndString}, true
	case `\d`:
		return item{op: opIn, set: []item{{op: opCategory, cat: catDigit}}}, true
	case `\D`:
		return item{op: opIn, set: []item{{op: opCategory, cat: catNotDigit}}}, true
	case `\s`:
		return item{op: opIn, set: []item{{op: opCategory, cat: catSpace}}}, true
	case `\S`:
		return item{op: opIn, set: []item{{op: opCategory, cat: catNotSpace}}}, true
	case `\w`:
		return item{op: opIn, set: []item{{op: opCategory, cat: catWord}}}, true
	case `\W`:
		return item{op: opIn, set: []item{{op: opCategory, cat: catNotWord}}}, true
	}
	return item{}, false
}

func lit(c rune) item { return item{op: opLiteral, c: c} }

// hexEscape reads \x, \u, \U escapes (ok false: not one of them).
func hexEscape(src *tokenizer, escape string) (item, bool, error) {
	n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[escape[1]]
	if n == 0 {
		return item{}, false, nil
	}
	more, err := src.getwhile(n, isHexDigit)
	if err != nil {
		return item{}, true, err
	}
	escape += more
	if len(escape) != n+2 {
		return item{}, true, src.error("incomplete escape "+escape, len(escape))
	}
	v, _ := strconv.ParseUint(escape[2:], 16, 32)
	if v > unicode.MaxRune {
		return item{}, true, src.error("bad escape "+escape, len(escape))
	}
	return lit(rune(v)), true, nil
}

func classEscape(src *tokenizer, escape string) (item, error) {
	if c, ok := escapes[escape]; ok {
		return lit(c), nil
	}
	if it, ok := categoryEscape(escape); ok && it.op == opIn {
		return it, nil
	}
	c := []rune(escape)[1]
	if it, ok, err := hexEscape(src, escape); ok || err != nil {
		return it, err
	}
	switch {
	case c == 'N':
		return namedEscape(src)
	case c >= '0' && c <= '7':
		more, err := src.getwhile(2, isOctDigit)
		if err != nil {
			return item{}, err
		}
		escape += more
		v, _ := strconv.ParseUint(escape[1:], 8, 32)
		if v > 0o377 {
			return item{}, src.error("octal escape value "+escape+" outside of range 0-0o377", len(escape))
		}
		return lit(rune(v)), nil
	case c >= '0' && c <= '9':
		return item{}, src.error("bad escape "+escape, len([]rune(escape)))
	}
	if c < 128 && isASCIILetter(byte(c)) {
		return item{}, src.error("bad escape "+escape, len([]rune(escape)))
	}
	return lit(c), nil
}

// namedEscape is \N{NAME} (unicodedata.lookup; see lookupName).
func namedEscape(src *tokenizer) (item, error) {
	ok, err := src.match("{")
	if err != nil {
		return item{}, err
	}
	if !ok {
		return item{}, src.error("missing {", 0)
	}
	name, err := src.getuntil("}", "character name")
	if err != nil {
		return item{}, err
	}
	r, ok := lookupName(name)
	if !ok {
		return item{}, src.error("undefined character name "+pyRepr(name), len([]rune(name))+len(`\N{}`))
	}
	return lit(r), nil
}

func escape(src *tokenizer, escape string, st *state) (item, error) {
	if it, ok := categoryEscape(escape); ok {
		return it, nil
	}
	if c, ok := escapes[escape]; ok {
		return lit(c), nil
	}
	c := []rune(escape)[1]
	if it, ok, err := hexEscape(src, escape); ok || err != nil {
		return it, err
	}
	switch {
	case c == 'N':
		return namedEscape(src)
	case c == '0':
		more, err := src.getwhile(2, isOctDigit)
		if err != nil {
			return item{}, err
		}
		v, _ := strconv.ParseUint((escape + more)[1:], 8, 32)
		return lit(rune(v)), nil
	case c >= '1' && c <= '9':
		if isDigit(src.next) {
			d, err := src.get()
			if err != nil {
				return item{}, err
			}
			escape += d
			if isOctDigit(escape[1:2]) && isOctDigit(escape[2:3]) && isOctDigit(src.next) {
				d, err := src.get()
				if err != nil {
					return item{}, err
				}
				escape += d
				v, _ := strconv.ParseUint(escape[1:], 8, 32)
				if v > 0o377 {
					return item{}, src.error("octal escape value "+escape+" outside of range 0-0o377", len(escape))
				}
				return lit(rune(v)), nil
			}
		}
		group, _ := strconv.Atoi(escape[1:])
		if group < st.groups() {
			if !st.checkgroup(group) {
				return item{}, src.error("cannot refer to an open group", len(escape))
			}
			if err := st.checklookbehindgroup(group, src); err != nil {
				return item{}, err
			}
			return item{op: opGroupref, group: group}, nil
		}
		return item{}, src.error(fmt.Sprintf("invalid group reference %d", group), len(escape)-1)
	}
	if c < 128 && isASCIILetter(byte(c)) {
		return item{}, src.error("bad escape "+escape, len([]rune(escape)))
	}
	return lit(c), nil
}

func uniq(items []item) []item {
	var out []item
	for _, it := range items {
		dup := false
		for _, o := range out {
			if o.equal(it) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, it)
		}
	}
	return out
}

func parseSub(src *tokenizer, st *state, verbose bool, nested int) (*sub, error) {
	if nested > maxDepth {
		return nil, &PyError{Type: "RecursionError", Msg: "maximum recursion depth exceeded"}
	}
	var items []*sub
	for {
		it, err := parse(src, st, verbose, nested+1, nested == 0 && len(items) == 0)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
		ok, err := src.match("|")
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if nested == 0 {
			verbose = st.flags&Verbose != 0
		}
	}
	if len(items) == 1 {
		return items[0], nil
	}
	out := &sub{st: st}
	// Move a common prefix out of the branch.
	for {
		var prefix *item
		common := true
		for _, a := range items {
			if len(a.items) == 0 {
				common = false
				break
			}
			if prefix == nil {
				p := a.items[0]
				prefix = &p
			} else if !a.items[0].equal(*prefix) {
				common = false
				break
			}
		}
		if !common {
			break
		}
		for _, a := range items {
			a.items = a.items[1:]
			a.hasWidth = false
		}
		out.items = append(out.items, *prefix)
	}
	// A branch of single characters is a set.
	var set []item
	isSet := true
	for _, a := range items {
		if len(a.items) != 1 {
			isSet = false
			break
		}
		it := a.items[0]
		if it.op == opLiteral {
			set = append(set, it)
		} else if it.op == opIn && it.set[0].op != opNegate {
			set = append(set, it.set...)
		} else {
			isSet = false
			break
		}
	}
	if isSet {
		out.items = append(out.items, item{op: opIn, set: uniq(set)})
		return out, nil
	}
	out.items = append(out.items, item{op: opBranch, alts: items})
	return out, nil
}

var whitespace = " \t\n\r\v\f"

const specialChars = ".\\[{()*+?^$|"

func parse(src *tokenizer, st *state, verbose bool, nested int, first bool) (*sub, error) {
	if nested > maxDepth {
		return nil, &PyError{Type: "RecursionError", Msg: "maximum recursion depth exceeded"}
	}
	s := &sub{st: st}
	for {
		this := src.next
		if this == "" || this == "|" || this == ")" {
			break
		}
		if err := src.advance(); err != nil {
			return nil, err
		}
		if verbose {
			if len(this) == 1 && strings.Contains(whitespace, this) {
				continue
			}
			if this == "#" {
				for {
					c, err := src.get()
					if err != nil {
						return nil, err
					}
					if c == "" || c == "\n" {
						break
					}
				}
				continue
			}
		}
		switch {
		case this[0] == '\\':
			it, err := escape(src, this, st)
			if err != nil {
				return nil, err
			}
			s.items = append(s.items, it)
		case !strings.Contains(specialChars, this):
			s.items = append(s.items, lit([]rune(this)[0]))
		case this == "[":
			it, err := parseSet(src)
			if err != nil {
				return nil, err
			}
			s.items = append(s.items, it)
		case strings.Contains("*+?{", this):
			cont, err := parseRepeat(src, s, this)
			if err != nil {
				return nil, err
			}
			_ = cont
		case this == ".":
			s.items = append(s.items, item{op: opAny})
		case this == "(":
			done, err := parseGroup(src, st, s, verbose, nested, first)
			if err != nil {
				return nil, err
			}
			if done.verbose != nil {
				verbose = *done.verbose
			}
		case this == "^":
			s.items = append(s.items, item{op: opAt, at: atBeginning})
		case this == "$":
			s.items = append(s.items, item{op: opAt, at: atEnd})
		}
	}
	// Unpack non-capturing groups without flags.
	for i := len(s.items) - 1; i >= 0; i-- {
		it := s.items[i]
		if it.op == opSubpattern && it.group == 0 && it.add == 0 && it.del == 0 {
			s.items = append(s.items[:i], append(append([]item(nil), it.p.items...), s.items[i+1:]...)...)
		}
	}
	return s, nil
}

func parseSet(src *tokenizer) (item, error) {
	here := src.tell() - 1
	var set []item
	negate, err := src.match("^")
	if err != nil {
		return item{}, err
	}
	for {
		this, err := src.get()
		if err != nil {
			return item{}, err
		}
		if this == "" {
			return item{}, src.error("unterminated character set", src.tell()-here)
		}
		if this == "]" && len(set) > 0 {
			break
		}
		var code1 item
		if this[0] == '\\' {
			code1, err = classEscape(src, this)
			if err != nil {
				return item{}, err
			}
		} else {
			code1 = lit([]rune(this)[0])
		}
		ok, err := src.match("-")
		if err != nil {
			return item{}, err
		}
		if !ok {
			if code1.op == opIn {
				code1 = code1.set[0]
			}
			set = append(set, code1)
			continue
		}
		that, err := src.get()
		if err != nil {
			return item{}, err
		}
		if that == "" {
			return item{}, src.error("unterminated character set", src.tell()-here)
		}
		if that == "]" {
			if code1.op == opIn {
				code1 = code1.set[0]
			}
			set = append(set, code1, lit('-'))
			break
		}
		var code2 item
		if that[0] == '\\' {
			code2, err = classEscape(src, that)
			if err != nil {
				return item{}, err
			}
		} else {
			code2 = lit([]rune(that)[0])
		}
		n := len([]rune(this)) + 1 + len([]rune(that))
		if code1.op != opLiteral || code2.op != opLiteral {
			return item{}, src.error("bad character range "+this+"-"+that, n)
		}
		if code2.c < code1.c {
			return item{}, src.error("bad character range "+this+"-"+that, n)
		}
		set = append(set, item{op: opRange, c: code1.c, hi: code2.c})
	}
	set = uniq(set)
	if len(set) == 1 && set[0].op == opLiteral {
		if negate {
			return item{op: opNotLiteral, c: set[0].c}, nil
		}
		return set[0], nil
	}
	if negate {
		set = append([]item{{op: opNegate}}, set...)
	}
	return item{op: opIn, set: set}, nil
}

func parseRepeat(src *tokenizer, s *sub, this string) (bool, error) {
	here := src.tell()
	var lo, hi int64
	switch this {
	case "?":
		lo, hi = 0, 1
	case "*":
		lo, hi = 0, maxRepeat
	case "+":
		lo, hi = 1, maxRepeat
	case "{":
		if src.next == "}" {
			s.items = append(s.items, lit('{'))
			return true, nil
		}
		lo, hi = 0, maxRepeat
		var los, his string
		for isDigit(src.next) {
			c, err := src.get()
			if err != nil {
				return false, err
			}
			los += c
		}
		comma, err := src.match(",")
		if err != nil {
			return false, err
		}
		if comma {
			for isDigit(src.next) {
				c, err := src.get()
				if err != nil {
					return false, err
				}
				his += c
			}
		} else {
			his = los
		}
		closed, err := src.match("}")
		if err != nil {
			return false, err
		}
		if !closed {
			s.items = append(s.items, lit('{'))
			return true, src.seek(here)
		}
		if los != "" {
			v, ok := repeatNumber(los)
			if !ok {
				return false, &PyError{Type: "OverflowError", Msg: "the repetition number is too large"}
			}
			lo = v
		}
		if his != "" {
			v, ok := repeatNumber(his)
			if !ok {
				return false, &PyError{Type: "OverflowError", Msg: "the repetition number is too large"}
			}
			hi = v
			if hi < lo {
				return false, src.error("min repeat greater than max repeat", src.tell()-here)
			}
		}
	}
	if len(s.items) == 0 || s.items[len(s.items)-1].op == opAt {
		return false, src.error("nothing to repeat", src.tell()-here+len(this))
	}
	last := s.items[len(s.items)-1]
	if last.op == opMaxRepeat || last.op == opMinRepeat || last.op == opPossRepeat {
		return false, src.error("multiple repeat", src.tell()-here+len(this))
	}
	body := &sub{st: s.st, items: []item{last}}
	if last.op == opSubpattern && last.group == 0 && last.add == 0 && last.del == 0 {
		body = last.p
	}
	op := opMaxRepeat
	if ok, err := src.match("?"); err != nil {
		return false, err
	} else if ok {
		op = opMinRepeat
	} else if ok, err := src.match("+"); err != nil {
		return false, err
	} else if ok {
		op = opPossRepeat
	}
	s.items[len(s.items)-1] = item{op: op, min: lo, max: hi, p: body}
	s.hasWidth = false
	return true, nil
}

// repeatNumber parses a repeat count below MAXREPEAT.
func repeatNumber(s string) (int64, bool) {
	s = strings.TrimLeft(s, "0")
	if s == "" {
		return 0, true
	}
	if len(s) > 10 {
		return 0, false
	}
	v, _ := strconv.ParseInt(s, 10, 64)
	return v, v < maxRepeat
}

type groupResult struct{ verbose *bool }

func parseGroup(src *tokenizer, st *state, s *sub, verbose bool, nested int, first bool) (groupResult, error) {
	start := src.tell() - 1
	capture, atomic := true, false
	name, named := "", false
	var add, del Flags
	q, err := src.match("?")
	if err != nil {
		return groupResult{}, err
	}
	if q {
		char, err := src.get()
		if err != nil {
			return groupResult{}, err
		}
		switch {
		case char == "":
			return groupResult{}, src.error("unexpected end of pattern", 0)
		case char == "P":
			if ok, err := src.match("<"); err != nil {
				return groupResult{}, err
			} else if ok {
				name, err = src.getuntil(">", "group name")
				if err != nil {
					return groupResult{}, err
				}
				if err := src.checkgroupname(name, 1); err != nil {
					return groupResult{}, err
				}
				named = true
			} else if ok, err := src.match("="); err != nil {
				return groupResult{}, err
			} else if ok {
				name, err := src.getuntil(")", "group name")
				if err != nil {
					return groupResult{}, err
				}
				if err := src.checkgroupname(name, 1); err != nil {
					return groupResult{}, err
				}
				gid, ok := st.groupdict[name]
				if !ok {
					return groupResult{}, src.error("unknown group name "+pyRepr(name), len([]rune(name))+1)
				}
				if !st.checkgroup(gid) {
					return groupResult{}, src.error("cannot refer to an open group", len([]rune(name))+1)
				}
				if err := st.checklookbehindgroup(gid, src); err != nil {
					return groupResult{}, err
				}
				s.items = append(s.items, item{op: opGroupref, group: gid})
				return groupResult{}, nil
			} else {
				c, err := src.get()
				if err != nil {
					return groupResult{}, err
				}
				if c == "" {
					return groupResult{}, src.error("unexpected end of pattern", 0)
				}
				return groupResult{}, src.error("unknown extension ?P"+c, len([]rune(c))+2)
			}
		case char == ":":
			capture = false
		case char == "#":
			for {
				if src.next == "" {
					return groupResult{}, src.error("missing ), unterminated comment", src.tell()-start)
				}
				c, err := src.get()
				if err != nil {
					return groupResult{}, err
				}
				if c == ")" {
					break
				}
			}
			return groupResult{}, nil
		case char == "=" || char == "!" || char == "<":
			behind := false
			saved := st.lookbehindgroups
			if char == "<" {
				char, err = src.get()
				if err != nil {
					return groupResult{}, err
				}
				if char == "" {
					return groupResult{}, src.error("unexpected end of pattern", 0)
				}
				if char != "=" && char != "!" {
					return groupResult{}, src.error("unknown extension ?<"+char, len([]rune(char))+2)
				}
				behind = true
				if saved < 0 {
					st.lookbehindgroups = st.groups()
				}
			}
			p, err := parseSub(src, st, verbose, nested+1)
			if err != nil {
				return groupResult{}, err
			}
			if behind && saved < 0 {
				st.lookbehindgroups = -1
			}
			if ok, err := src.match(")"); err != nil {
				return groupResult{}, err
			} else if !ok {
				return groupResult{}, src.error("missing ), unterminated subpattern", src.tell()-start)
			}
			op := opAssert
			if char == "!" {
				op = opAssertNot
			}
			s.items = append(s.items, item{op: op, p: p, behind: behind})
			return groupResult{}, nil
		case char == "(":
			condname, err := src.getuntil(")", "group name")
			if err != nil {
				return groupResult{}, err
			}
			var cond int
			if isIdentifier(condname) {
				g, ok := st.groupdict[condname]
				if !ok {
					return groupResult{}, src.error("unknown group name "+pyRepr(condname), len([]rune(condname))+1)
				}
				cond = g
			} else {
				v, ok := pyInt(condname)
				if !ok || v < 0 {
					return groupResult{}, src.error("bad character in group name "+pyRepr(condname), len([]rune(condname))+1)
				}
				if v == 0 {
					return groupResult{}, src.error("bad group number", len([]rune(condname))+1)
				}
				if v >= maxGroups {
					return groupResult{}, src.error(fmt.Sprintf("invalid group reference %d", v), len([]rune(condname))+1)
				}
				cond = int(v)
				if _, ok := st.grouprefpos[cond]; !ok {
					st.grouprefpos[cond] = src.tell() - len([]rune(condname)) - 1
				}
			}
			if err := st.checklookbehindgroup(cond, src); err != nil {
				return groupResult{}, err
			}
			yes, err := parse(src, st, verbose, nested+1, false)
			if err != nil {
				return groupResult{}, err
			}
			var no *sub
			if ok, err := src.match("|"); err != nil {
				return groupResult{}, err
			} else if ok {
				no, err = parse(src, st, verbose, nested+1, false)
				if err != nil {
					return groupResult{}, err
				}
				if src.next == "|" {
					return groupResult{}, src.error("conditional backref with more than two branches", 0)
				}
			}
			if ok, err := src.match(")"); err != nil {
				return groupResult{}, err
			} else if !ok {
				return groupResult{}, src.error("missing ), unterminated subpattern", src.tell()-start)
			}
			s.items = append(s.items, item{op: opGrouprefExists, group: cond, p: yes, no: no})
			return groupResult{}, nil
		case char == ">":
			capture, atomic = false, true
		case char == "-" || flagChars[[]rune(char)[0]] != 0 && len([]rune(char)) == 1:
			a, d, global, err := parseFlags(src, st, char)
			if err != nil {
				return groupResult{}, err
			}
			if global {
				if !first || len(s.items) > 0 {
					return groupResult{}, src.error("global flags not at the start of the expression", src.tell()-start)
				}
				v := st.flags&Verbose != 0
				return groupResult{verbose: &v}, nil
			}
			add, del = a, d
			capture = false
		default:
			return groupResult{}, src.error("unknown extension ?"+char, len([]rune(char))+1)
		}
	}
	group := 0
	if capture {
		g, err := st.opengroup(name, named)
		if err != nil {
			e := err.(*Error)
			return groupResult{}, src.error(e.Msg, len([]rune(name))+1)
		}
		group = g
	}
	subVerbose := (verbose || add&Verbose != 0) && del&Verbose == 0
	p, err := parseSub(src, st, subVerbose, nested+1)
	if err != nil {
		return groupResult{}, err
	}
	if ok, err := src.match(")"); err != nil {
		return groupResult{}, err
	} else if !ok {
		return groupResult{}, src.error("missing ), unterminated subpattern", src.tell()-start)
	}
	if group != 0 {
		st.closegroup(group, p)
	}
	if atomic {
		s.items = append(s.items, item{op: opAtomic, p: p})
	} else {
		s.items = append(s.items, item{op: opSubpattern, group: group, add: add, del: del, p: p})
	}
	return groupResult{}, nil
}

func parseFlags(src *tokenizer, st *state, char string) (add, del Flags, global bool, err error) {
	if char != "-" {
		for {
			flag := flagChars[[]rune(char)[0]]
			if char == "L" {
				return 0, 0, false, src.error("bad inline flags: cannot use 'L' flag with a str pattern", 0)
			}
			add |= flag
			if flag&typeFlags != 0 && add&typeFlags != flag {
				return 0, 0, false, src.error("bad inline flags: flags 'a', 'u' and 'L' are incompatible", 0)
			}
			char, err = src.get()
			if err != nil {
				return 0, 0, false, err
			}
			if char == "" {
				return 0, 0, false, src.error("missing -, : or )", 0)
			}
			if char == ")" || char == "-" || char == ":" {
				break
			}
			if !isFlagChar(char) {
				msg := "missing -, : or )"
				if isAlpha(char) {
					msg = "unknown flag"
				}
				return 0, 0, false, src.error(msg, len([]rune(char)))
			}
		}
	}
	if char == ")" {
		st.flags |= add
		return 0, 0, true, nil
	}
	if add&globalFlags != 0 {
		return 0, 0, false, src.error("bad inline flags: cannot turn on global flag", 1)
	}
	if char == "-" {
		char, err = src.get()
		if err != nil {
			return 0, 0, false, err
		}
		if char == "" {
			return 0, 0, false, src.error("missing flag", 0)
		}
		if !isFlagChar(char) {
			msg := "missing flag"
			if isAlpha(char) {
				msg = "unknown flag"
			}
			return 0, 0, false, src.error(msg, len([]rune(char)))
		}
		for {
			flag := flagChars[[]rune(char)[0]]
			if flag&typeFlags != 0 {
				return 0, 0, false, src.error("bad inline flags: cannot turn off flags 'a', 'u' and 'L'", 0)
			}
			del |= flag
			char, err = src.get()
			if err != nil {
				return 0, 0, false, err
			}
			if char == "" {
				return 0, 0, false, src.error("missing :", 0)
			}
			if char == ":" {
				break
			}
			if !isFlagChar(char) {
				msg := "missing :"
				if isAlpha(char) {
					msg = "unknown flag"
				}
				return 0, 0, false, src.error(msg, len([]rune(char)))
			}
		}
	}
	if del&globalFlags != 0 {
		return 0, 0, false, src.error("bad inline flags: cannot turn off global flag", 1)
	}
	if add&del != 0 {
		return 0, 0, false, src.error("bad inline flags: flag turned on and off", 1)
	}
	return add, del, false, nil
}

func isFlagChar(c string) bool {
	r := []rune(c)
	return len(r) == 1 && flagChars[r[0]] != 0
}

// isAlpha is str.isalpha for a one-character string (an escape pair is
// two characters: never alphabetic).
func isAlpha(c string) bool {
	r := []rune(c)
	return len(r) == 1 && isAlphaRune(r[0])
}

func isAlphaRune(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo)
}

// isIdentifier is str.isidentifier (XID_Start/XID_Continue approximated by
// letters, Nl, Mn, Mc, Nd, Pc and '_').
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		start := r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r)
		if i == 0 {
			if !start {
				return false
			}
			continue
		}
		if !start && !unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc) {
			return false
		}
	}
	return true
}

// pyInt is int(s) for a condition group name: ASCII or Unicode decimal
// digits, optional sign and surrounding whitespace and underscores between
// digits.
func pyInt(s string) (int64, bool) {
	t := strings.TrimFunc(s, pyjson.IsSpace)
	neg := false
	if strings.HasPrefix(t, "+") || strings.HasPrefix(t, "-") {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" || strings.HasPrefix(t, "_") || strings.HasSuffix(t, "_") || strings.Contains(t, "__") {
		return 0, false
	}
	var v int64
	for _, r := range t {
		if r == '_' {
			continue
		}
		d := digitValue(r)
		if d < 0 {
			return 0, false
		}
		if v > math.MaxInt64/10-1 {
			v = math.MaxInt64 / 2 // large: beyond every group number
			continue
		}
		v = v*10 + int64(d)
	}
	if neg {
		v = -v
	}
	return v, true
}

func digitValue(r rune) int {
	if !unicode.Is(unicode.Nd, r) {
		return -1
	}
	// Decimal digits come in contiguous runs of ten starting at a zero.
	for z := r; z >= r-9; z-- {
		if !unicode.Is(unicode.Nd, z-1) || (r-z) == 9 {
			return int(r-z) % 10
		}
	}
	return -1
}

// pyRepr is repr() of a str (for error texts).
func pyRepr(s string) string {
	q := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = `"`
	}
	var b strings.Builder
	b.WriteString(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case string(r) == q:
			b.WriteString(`\` + q)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(q)
	return b.String()
}
