package pyre

import (
	"slices"
	"unicode"
)

// The compiler follows CPython 3.11's re/_compiler.py: the parsed tree
// becomes a linear program of sre's operations (the case-insensitive
// variants chosen as _compile chooses them, character sets folded as
// _optimize_charset folds them), which match.go runs as _sre's SRE(match)
// does.

type iop uint8

const (
	iFailure iop = iota
	iSuccess
	iLiteral
	iNotLiteral
	iLiteralIgnore // ASCII lower
	iNotLiteralIgnore
	iLiteralUniIgnore
	iNotLiteralUniIgnore
	iIn
	iInIgnore
	iInUniIgnore
	iAny
	iAnyAll
	iAt
	iMark
	iBranch
	iJump
	iRepeatOne
	iMinRepeatOne
	iPossRepeatOne
	iRepeat
	iMaxUntil
	iMinUntil
	iPossRepeat
	iAtomic
	iAssert
	iAssertNot
	iGroupref
	iGrouprefIgnore
	iGrouprefUniIgnore
	iGrouprefExists
)

// at codes as compiled (sre's AT_* after AT_MULTILINE and AT_UNICODE).
const (
	atcBeginning = iota
	atcBeginningLine
	atcBeginningString
	atcBoundary
	atcNonBoundary
	atcUniBoundary
	atcUniNonBoundary
	atcEnd
	atcEndLine
	atcEndString
)

type inst struct {
	op   iop
	c    rune     // literal; mark index; group index (0-based); at code
	set  *charset // iIn*
	alts []int    // iBranch: first instruction of each alternative
	next int      // the instruction after a block: a repeat's tail, an alternative's jump target, a conditional's no branch
	min  int64
	max  int64
	back int // lookbehind width
}

// charset is a compiled set: membership of ch (lowered first for the
// ignore-case ops) in literal/range runs, then in the tail items.
type charset struct {
	negate bool
	ascii  [2]uint64
	ranges [][2]rune // sorted, disjoint, above ASCII
	tail   []setItem
}

type setItem struct {
	kind   uint8 // 'l' literal, 'r' range, 'u' range (ignore case), 'c' category
	lo, hi rune
	cat    category
	uni    bool // Unicode categories
}

func (cs *charset) has(ch rune) bool {
	return cs.member(ch) != cs.negate
}

func (cs *charset) member(ch rune) bool {
	if ch < 128 {
		if cs.ascii[ch>>6]&(1<<(ch&63)) != 0 {
			return true
		}
	} else if len(cs.ranges) > 0 {
		i, _ := slices.BinarySearchFunc(cs.ranges, ch, func(r [2]rune, c rune) int {
			switch {
			case r[1] < c:
				return -1
			case r[0] > c:
				return 1
			}
			return 0
		})
		if i < len(cs.ranges) && cs.ranges[i][0] <= ch && ch <= cs.ranges[i][1] {
			return true
		}
	}
	for _, t := range cs.tail {
		switch t.kind {
		case 'l':
			if ch == t.lo {
				return true
			}
		case 'r':
			if t.lo <= ch && ch <= t.hi {
				return true
			}
		case 'u':
			if t.lo <= ch && ch <= t.hi {
				return true
			}
			if u := upper(ch); t.lo <= u && u <= t.hi {
				return true
			}
		case 'c':
			if inCategory(t.cat, t.uni, ch) {
				return true
			}
		}
	}
	return false
}

// buildCharset is _optimize_charset + _compile_charset. fold selects the
// case folding: 0 none, 'a' ASCII, 'u' Unicode (with _EXTRA_CASES).
func buildCharset(items []item, fold byte, uni bool) (*charset, bool) {
	cs := &charset{}
	var bmp []rune
	hascased := false
	add := func(c rune) { bmp = append(bmp, c) }
	for _, it := range items {
		switch it.op {
		case opLiteral:
			if fold == 0 {
				if it.c < 0x10000 {
					add(it.c)
				} else {
					cs.tail = append(cs.tail, setItem{kind: 'l', lo: it.c})
				}
				continue
			}
			lo := foldLower(fold, it.c)
			if lo >= 0x10000 {
				hascased = true
				cs.tail = append(cs.tail, setItem{kind: 'l', lo: it.c})
				continue
			}
			add(lo)
			if fold == 'u' {
				bmp = append(bmp, extraCases(lo)...)
			}
			if !hascased && foldCased(fold, it.c) {
				hascased = true
			}
		case opRange:
			if fold == 0 {
				hi := it.hi
				if it.c >= 0x10000 || hi >= 0x10000 {
					if it.c < 0x10000 {
						for c := it.c; c < 0x10000; c++ {
							add(c)
						}
					}
					cs.tail = append(cs.tail, setItem{kind: 'r', lo: it.c, hi: it.hi})
					continue
				}
				for c := it.c; c <= hi; c++ {
					add(c)
				}
				continue
			}
			overflow := false
			for c := it.c; c <= it.hi; c++ {
				lo := foldLower(fold, c)
				if lo >= 0x10000 {
					overflow = true
					break
				}
				add(lo)
				if fold == 'u' {
					bmp = append(bmp, extraCases(lo)...)
				}
			}
			if overflow {
				hascased = true
				kind := byte('r')
				if fold != 0 {
					kind = 'u'
				}
				cs.tail = append(cs.tail, setItem{kind: kind, lo: it.c, hi: it.hi})
				continue
			}
			if !hascased {
				for c := it.c; c <= it.hi; c++ {
					if foldCased(fold, c) {
						hascased = true
						break
					}
				}
			}
		case opNegate:
			cs.negate = true
		case opCategory:
			cs.tail = append(cs.tail, setItem{kind: 'c', cat: it.cat, uni: uni})
		}
	}
	slices.Sort(bmp)
	bmp = slices.Compact(bmp)
	for i := 0; i < len(bmp); {
		j := i
		for j+1 < len(bmp) && bmp[j+1] == bmp[j]+1 {
			j++
		}
		lo, hi := bmp[i], bmp[j]
		for c := lo; c <= hi && c < 128; c++ {
			cs.ascii[c>>6] |= 1 << (c & 63)
		}
		if hi >= 128 {
			cs.ranges = append(cs.ranges, [2]rune{max(lo, 128), hi})
		}
		i = j + 1
	}
	return cs, hascased
}

func foldLower(fold byte, c rune) rune {
	if fold == 'a' {
		return asciiLower(c)
	}
	return lower(c)
}

func foldCased(fold byte, c rune) bool {
	if fold == 'a' {
		return c < 128 && isASCIILetter(byte(c))
	}
	return iscased(c)
}

func asciiLower(c rune) rune {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}

type compiler struct {
	prog []inst
}

func (c *compiler) emit(in inst) int {
	c.prog = append(c.prog, in)
	return len(c.prog) - 1
}

func combineFlags(flags, add, del Flags) Flags {
	if add&typeFlags != 0 {
		flags &^= typeFlags
	}
	return (flags | add) &^ del
}

// isSimple is _simple: a one-character-wide unit.
func isSimple(p *sub) bool {
	if len(p.items) != 1 {
		return false
	}
	it := p.items[0]
	if it.op == opSubpattern {
		return it.group == 0 && isSimple(it.p)
	}
	return it.op == opLiteral || it.op == opNotLiteral || it.op == opAny || it.op == opIn
}

func (c *compiler) compile(p *sub, flags Flags) error {
	fold := byte(0)
	if flags&IgnoreCase != 0 {
		fold = 'a'
		if flags&Unicode != 0 {
			fold = 'u'
		}
	}
	uni := flags&Unicode != 0
	for _, it := range p.items {
		switch it.op {
		case opLiteral, opNotLiteral:
			neg := it.op == opNotLiteral
			switch {
			case fold == 0 || !foldCased(fold, it.c):
				c.emit(inst{op: pick(neg, iNotLiteral, iLiteral), c: it.c})
			case fold == 'a':
				c.emit(inst{op: pick(neg, iNotLiteralIgnore, iLiteralIgnore), c: asciiLower(it.c)})
			default:
				lo := lower(it.c)
				fx := extraCases(lo)
				if len(fx) == 0 {
					c.emit(inst{op: pick(neg, iNotLiteralUniIgnore, iLiteralUniIgnore), c: lo})
					break
				}
				cs := &charset{negate: neg}
				for _, r := range append([]rune{lo}, fx...) {
					cs.tail = append(cs.tail, setItem{kind: 'l', lo: r})
				}
				c.emit(inst{op: iInUniIgnore, set: cs})
			}
		case opIn:
			cs, hascased := buildCharset(it.set, fold, uni)
			op := iIn
			if hascased {
				op = pick(fold == 'a', iInIgnore, iInUniIgnore)
			}
			c.emit(inst{op: op, set: cs})
		case opAny:
			c.emit(inst{op: pick(flags&DotAll != 0, iAnyAll, iAny)})
		case opMaxRepeat, opMinRepeat, opPossRepeat:
			if isSimple(it.p) {
				op := map[opcode]iop{opMaxRepeat: iRepeatOne, opMinRepeat: iMinRepeatOne, opPossRepeat: iPossRepeatOne}[it.op]
				at := c.emit(inst{op: op, min: it.min, max: it.max})
				if err := c.compile(it.p, flags); err != nil {
					return err
				}
				c.emit(inst{op: iSuccess})
				c.prog[at].next = len(c.prog)
				continue
			}
			if it.op == opPossRepeat {
				at := c.emit(inst{op: iPossRepeat, min: it.min, max: it.max})
				if err := c.compile(it.p, flags); err != nil {
					return err
				}
				c.emit(inst{op: iSuccess})
				c.prog[at].next = len(c.prog)
				continue
			}
			at := c.emit(inst{op: iRepeat, min: it.min, max: it.max})
			if err := c.compile(it.p, flags); err != nil {
				return err
			}
			c.prog[at].next = c.emit(inst{op: pick(it.op == opMinRepeat, iMinUntil, iMaxUntil)})
		case opSubpattern:
			if it.group != 0 {
				c.emit(inst{op: iMark, c: rune((it.group - 1) * 2)})
			}
			if err := c.compile(it.p, combineFlags(flags, it.add, it.del)); err != nil {
				return err
			}
			if it.group != 0 {
				c.emit(inst{op: iMark, c: rune((it.group-1)*2 + 1)})
			}
		case opAtomic:
			at := c.emit(inst{op: iAtomic})
			if err := c.compile(it.p, flags); err != nil {
				return err
			}
			c.emit(inst{op: iSuccess})
			c.prog[at].next = len(c.prog)
		case opAssert, opAssertNot:
			in := inst{op: pick(it.op == opAssertNot, iAssertNot, iAssert)}
			if it.behind {
				w := it.p.getwidth()
				if w[0] > 1<<32-1 {
					return &Error{Msg: "looks too much behind", Pos: -1}
				}
				if w[0] != w[1] {
					return &Error{Msg: "look-behind requires fixed-width pattern", Pos: -1}
				}
				in.back = int(w[0])
			}
			at := c.emit(in)
			if err := c.compile(it.p, flags); err != nil {
				return err
			}
			c.emit(inst{op: iSuccess})
			c.prog[at].next = len(c.prog)
		case opAt:
			code := map[atCode]int{atBeginning: atcBeginning, atBeginningString: atcBeginningString, atBoundary: atcBoundary,
				atNonBoundary: atcNonBoundary, atEnd: atcEnd, atEndString: atcEndString}[it.at]
			if flags&Multiline != 0 {
				switch code {
				case atcBeginning:
					code = atcBeginningLine
				case atcEnd:
					code = atcEndLine
				}
			}
			if uni {
				switch code {
				case atcBoundary:
					code = atcUniBoundary
				case atcNonBoundary:
					code = atcUniNonBoundary
				}
			}
			c.emit(inst{op: iAt, c: rune(code)})
		case opBranch:
			at := c.emit(inst{op: iBranch})
			var jumps []int
			for _, a := range it.alts {
				c.prog[at].alts = append(c.prog[at].alts, len(c.prog))
				if err := c.compile(a, flags); err != nil {
					return err
				}
				jumps = append(jumps, c.emit(inst{op: iJump}))
			}
			for _, j := range jumps {
				c.prog[j].next = len(c.prog)
			}
		case opGroupref:
			op := iGroupref
			if fold != 0 {
				op = pick(fold == 'a', iGrouprefIgnore, iGrouprefUniIgnore)
			}
			c.emit(inst{op: op, c: rune(it.group - 1)})
		case opGrouprefExists:
			at := c.emit(inst{op: iGrouprefExists, c: rune(it.group - 1)})
			if err := c.compile(it.p, flags); err != nil {
				return err
			}
			if it.no != nil {
				j := c.emit(inst{op: iJump})
				c.prog[at].next = len(c.prog)
				if err := c.compile(it.no, flags); err != nil {
					return err
				}
				c.prog[j].next = len(c.prog)
			} else {
				c.prog[at].next = len(c.prog)
			}
		}
	}
	return nil
}

func pick(cond bool, a, b iop) iop {
	if cond {
		return a
	}
	return b
}

// lower and upper are sre_lower_unicode and sre_upper_unicode (CPython's
// _PyUnicode_ToLowercase/_PyUnicode_ToUppercase: the first character of
// the full case mapping).
func lower(c rune) rune { return unicode.ToLower(c) }

func upper(c rune) rune {
	if c < 128 {
		return unicode.ToUpper(c)
	}
	caseOnce.Do(initCases)
	if u, ok := specialUpper[c]; ok {
		return u
	}
	return unicode.ToUpper(c)
}

// iscased is _sre.unicode_iscased.
func iscased(c rune) bool { return c != lower(c) || c != upper(c) }
