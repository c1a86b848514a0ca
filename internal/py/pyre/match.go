package pyre

import (
	"context"
	"errors"
)

// The matcher runs a compiled program as _sre's SRE(match) and SRE(search)
// do (sre_lib.h): the same backtracking order, the same zero-width
// protection of repeats (an iteration that matched nothing is not
// repeated), the same bookkeeping of group marks (lastmark restored on
// backtracking, the marks themselves only inside repeats), and the same
// rule for the match after an empty one (findall and sub: it may not be
// empty at the same position). Recursion replaces sre's explicit stack.

type repeatCtx struct {
	count   int64
	pc      int // the iRepeat instruction
	prev    *repeatCtx
	lastPtr int // -1: NULL
}

type machine struct {
	prog        []inst
	text        []rune
	end         int
	start       int // state->start
	ptr         int // state->ptr
	mustAdvance bool
	marks       []int
	lastmark    int
	lastindex   int
	repeat      *repeatCtx

	ctx   context.Context
	steps int
	err   error
}

// ErrCanceled is returned when a match's context ends first.
var ErrCanceled = errors.New("pyre: match canceled")

func (m *machine) tick() bool {
	m.steps++
	if m.steps&0xfff == 0 && m.ctx != nil && m.ctx.Err() != nil {
		m.err = ErrCanceled
	}
	return m.err == nil
}

func (m *machine) saveMarks(lastmark int) []int {
	if lastmark < 0 {
		return nil
	}
	return append([]int(nil), m.marks[:lastmark+1]...)
}

func (m *machine) restoreMarks(saved []int) { copy(m.marks, saved) }

// one tests a one-character operation against ch.
func one(in *inst, ch rune) bool {
	switch in.op {
	case iLiteral:
		return ch == in.c
	case iNotLiteral:
		return ch != in.c
	case iLiteralIgnore:
		return asciiLower(ch) == in.c
	case iNotLiteralIgnore:
		return asciiLower(ch) != in.c
	case iLiteralUniIgnore:
		return lower(ch) == in.c
	case iNotLiteralUniIgnore:
		return lower(ch) != in.c
	case iIn:
		return in.set.has(ch)
	case iInIgnore:
		return in.set.has(asciiLower(ch))
	case iInUniIgnore:
		return in.set.has(lower(ch))
	case iAny:
		return ch != '\n'
	case iAnyAll:
		return true
	}
	return false
}

// count is SRE(count): how many characters from ptr (at most maxCount)
// the one-character item matches.
func (m *machine) count(item *inst, ptr int, maxCount int64) int {
	end := m.end
	if maxCount != maxRepeat && int64(end-ptr) > maxCount {
		end = ptr + int(maxCount)
	}
	i := ptr
	for i < end && one(item, m.text[i]) {
		i++
	}
	return i - ptr
}

func (m *machine) at(ptr int, code rune) bool {
	switch code {
	case atcBeginning, atcBeginningString:
		return ptr == 0
	case atcBeginningLine:
		return ptr == 0 || m.text[ptr-1] == '\n'
	case atcEnd:
		return ptr == m.end || (m.end-ptr == 1 && m.text[ptr] == '\n')
	case atcEndLine:
		return ptr == m.end || m.text[ptr] == '\n'
	case atcEndString:
		return ptr == m.end
	case atcBoundary, atcNonBoundary, atcUniBoundary, atcUniNonBoundary:
		if m.end == 0 {
			return false
		}
		uni := code == atcUniBoundary || code == atcUniNonBoundary
		that := ptr > 0 && isWord(uni, m.text[ptr-1])
		this := ptr < m.end && isWord(uni, m.text[ptr])
		if code == atcBoundary || code == atcUniBoundary {
			return this != that
		}
		return this == that
	}
	return false
}

func (m *machine) groupSpan(g int) (int, int, bool) {
	ref := g * 2
	if ref >= m.lastmark {
		return 0, 0, false
	}
	p, e := m.marks[ref], m.marks[ref+1]
	if p < 0 || e < 0 || e < p {
		return 0, 0, false
	}
	return p, e, true
}

// match is SRE(match) from instruction pc at ptr; on success m.ptr is the
// end of the match.
func (m *machine) match(pc, ptr int, toplevel bool) bool {
	for {
		if !m.tick() {
			return false
		}
		in := &m.prog[pc]
		switch in.op {
		case iFailure:
			return false
		case iSuccess:
			if toplevel && m.mustAdvance && ptr == m.start {
				return false
			}
			m.ptr = ptr
			return true
		case iMark:
			i := int(in.c)
			if i&1 != 0 {
				m.lastindex = i/2 + 1
			}
			if i > m.lastmark {
				for j := m.lastmark + 1; j < i; j++ {
					m.marks[j] = -1
				}
				m.lastmark = i
			}
			m.marks[i] = ptr
			pc++
		case iLiteral, iNotLiteral, iLiteralIgnore, iNotLiteralIgnore, iLiteralUniIgnore, iNotLiteralUniIgnore,
			iIn, iInIgnore, iInUniIgnore, iAny, iAnyAll:
			if ptr >= m.end || !one(in, m.text[ptr]) {
				return false
			}
			pc++
			ptr++
		case iAt:
			if !m.at(ptr, in.c) {
				return false
			}
			pc++
		case iJump:
			pc = in.next
		case iBranch:
			lastmark, lastindex := m.lastmark, m.lastindex
			var saved []int
			if m.repeat != nil {
				saved = m.saveMarks(lastmark)
			}
			for _, alt := range in.alts {
				m.ptr = ptr
				if m.match(alt, ptr, toplevel) {
					return true
				}
				if m.err != nil {
					return false
				}
				if m.repeat != nil {
					m.restoreMarks(saved)
				}
				m.lastmark, m.lastindex = lastmark, lastindex
			}
			return false
		case iRepeatOne:
			if in.min > int64(m.end-ptr) {
				return false
			}
			item := &m.prog[pc+1]
			n := m.count(item, ptr, in.max)
			ptr += n
			if int64(n) < in.min {
				return false
			}
			tail := &m.prog[in.next]
			if tail.op == iSuccess && ptr == m.end && !(toplevel && m.mustAdvance && ptr == m.start) {
				m.ptr = ptr
				return true
			}
			lastmark, lastindex := m.lastmark, m.lastindex
			var saved []int
			if m.repeat != nil {
				saved = m.saveMarks(lastmark)
			}
			cnt := int64(n)
			for cnt >= in.min {
				if tail.op == iLiteral && (ptr >= m.end || m.text[ptr] != tail.c) {
					ptr--
					cnt--
					continue
				}
				m.ptr = ptr
				if m.match(in.next, ptr, toplevel) {
					return true
				}
				if m.err != nil {
					return false
				}
				if m.repeat != nil {
					m.restoreMarks(saved)
				}
				m.lastmark, m.lastindex = lastmark, lastindex
				ptr--
				cnt--
			}
			return false
		case iMinRepeatOne:
			if in.min > int64(m.end-ptr) {
				return false
			}
			item := &m.prog[pc+1]
			cnt := int64(0)
			if in.min > 0 {
				n := m.count(item, ptr, in.min)
				if int64(n) < in.min {
					return false
				}
				cnt = int64(n)
				ptr += n
			}
			tail := &m.prog[in.next]
			if tail.op == iSuccess && !(toplevel && m.mustAdvance && ptr == m.start) {
				m.ptr = ptr
				return true
			}
			lastmark, lastindex := m.lastmark, m.lastindex
			var saved []int
			if m.repeat != nil {
				saved = m.saveMarks(lastmark)
			}
			for in.max == maxRepeat || cnt <= in.max {
				m.ptr = ptr
				if m.match(in.next, ptr, toplevel) {
					return true
				}
				if m.err != nil {
					return false
				}
				if m.repeat != nil {
					m.restoreMarks(saved)
				}
				m.lastmark, m.lastindex = lastmark, lastindex
				if m.count(item, ptr, 1) == 0 {
					break
				}
				ptr++
				cnt++
			}
			return false
		case iPossRepeatOne:
			if int64(m.end-ptr) < in.min {
				return false
			}
			n := m.count(&m.prog[pc+1], ptr, in.max)
			ptr += n
			if int64(n) < in.min {
				return false
			}
			pc = in.next
			if m.prog[pc].op == iSuccess && ptr == m.end && !(toplevel && m.mustAdvance && ptr == m.start) {
				m.ptr = ptr
				return true
			}
		case iRepeat:
			rep := &repeatCtx{count: -1, pc: pc, prev: m.repeat, lastPtr: -1}
			m.repeat = rep
			m.ptr = ptr
			ok := m.match(in.next, ptr, toplevel)
			m.repeat = rep.prev
			return ok
		case iMaxUntil:
			rep := m.repeat
			rin := &m.prog[rep.pc]
			m.ptr = ptr
			cnt := rep.count + 1
			if cnt < rin.min {
				rep.count = cnt
				if m.match(rep.pc+1, ptr, toplevel) {
					return true
				}
				rep.count = cnt - 1
				m.ptr = ptr
				return false
			}
			if (cnt < rin.max || rin.max == maxRepeat) && ptr != rep.lastPtr {
				rep.count = cnt
				lastmark, lastindex := m.lastmark, m.lastindex
				saved := m.saveMarks(lastmark)
				oldLast := rep.lastPtr
				rep.lastPtr = ptr
				ok := m.match(rep.pc+1, ptr, toplevel)
				rep.lastPtr = oldLast
				if ok {
					return true
				}
				if m.err != nil {
					return false
				}
				m.restoreMarks(saved)
				m.lastmark, m.lastindex = lastmark, lastindex
				rep.count = cnt - 1
				m.ptr = ptr
			}
			m.repeat = rep.prev
			ok := m.match(pc+1, ptr, toplevel)
			m.repeat = rep
			if ok {
				return true
			}
			m.ptr = ptr
			return false
		case iMinUntil:
			rep := m.repeat
			rin := &m.prog[rep.pc]
			m.ptr = ptr
			cnt := rep.count + 1
			if cnt < rin.min {
				rep.count = cnt
				if m.match(rep.pc+1, ptr, toplevel) {
					return true
				}
				rep.count = cnt - 1
				m.ptr = ptr
				return false
			}
			m.repeat = rep.prev
			lastmark, lastindex := m.lastmark, m.lastindex
			var saved []int
			if m.repeat != nil {
				saved = m.saveMarks(lastmark)
			}
			ok := m.match(pc+1, ptr, toplevel)
			tailRepeat := m.repeat
			m.repeat = rep
			if ok {
				return true
			}
			if m.err != nil {
				return false
			}
			if tailRepeat != nil {
				m.restoreMarks(saved)
			}
			m.lastmark, m.lastindex = lastmark, lastindex
			m.ptr = ptr
			if (cnt >= rin.max && rin.max != maxRepeat) || ptr == rep.lastPtr {
				return false
			}
			rep.count = cnt
			oldLast := rep.lastPtr
			rep.lastPtr = ptr
			ok = m.match(rep.pc+1, ptr, toplevel)
			rep.lastPtr = oldLast
			if ok {
				return true
			}
			rep.count = cnt - 1
			m.ptr = ptr
			return false
		case iPossRepeat:
			m.ptr = ptr
			cnt := int64(0)
			for cnt < in.min {
				if m.match(pc+1, m.ptr, false) {
					cnt++
				} else {
					m.ptr = ptr
					return false
				}
			}
			last := -2 // never a position
			for (cnt < in.max || in.max == maxRepeat) && m.ptr != last {
				lastmark, lastindex := m.lastmark, m.lastindex
				saved := m.saveMarks(lastmark)
				last = m.ptr
				if m.match(pc+1, m.ptr, false) {
					cnt++
					continue
				}
				if m.err != nil {
					return false
				}
				m.restoreMarks(saved)
				m.lastmark, m.lastindex = lastmark, lastindex
				m.ptr = last
				break
			}
			pc = in.next
			ptr = m.ptr
		case iAtomic:
			m.ptr = ptr
			if !m.match(pc+1, ptr, false) {
				m.ptr = ptr
				return false
			}
			pc = in.next
			ptr = m.ptr
		case iAssert:
			if ptr < in.back {
				return false
			}
			m.ptr = ptr - in.back
			if !m.match(pc+1, ptr-in.back, false) {
				return false
			}
			pc = in.next
		case iAssertNot:
			if ptr >= in.back {
				m.ptr = ptr - in.back
				lastmark, lastindex := m.lastmark, m.lastindex
				var saved []int
				if m.repeat != nil {
					saved = m.saveMarks(lastmark)
				}
				if m.match(pc+1, ptr-in.back, false) {
					return false
				}
				if m.err != nil {
					return false
				}
				if m.repeat != nil {
					m.restoreMarks(saved)
				}
				m.lastmark, m.lastindex = lastmark, lastindex
			}
			pc = in.next
		case iGroupref, iGrouprefIgnore, iGrouprefUniIgnore:
			p, e, ok := m.groupSpan(int(in.c))
			if !ok {
				return false
			}
			for ; p < e; p++ {
				if ptr >= m.end {
					return false
				}
				a, b := m.text[ptr], m.text[p]
				switch in.op {
				case iGroupref:
				case iGrouprefIgnore:
					a, b = asciiLower(a), asciiLower(b)
				default:
					a, b = lower(a), lower(b)
				}
				if a != b {
					return false
				}
				ptr++
			}
			pc++
		case iGrouprefExists:
			if _, _, ok := m.groupSpan(int(in.c)); ok {
				pc++
			} else {
				pc = in.next
			}
		default:
			panic("pyre: bad instruction")
		}
	}
}

// search is SRE(search) from m.start (state->start); on success m.start
// and m.ptr delimit the match.
func (m *machine) search(anchored bool) bool {
	ptr := m.start
	if ptr > m.end {
		return false
	}
	m.ptr = ptr
	ok := m.match(0, ptr, true)
	m.mustAdvance = false
	if m.err != nil {
		return false
	}
	if !ok && anchored {
		return false
	}
	for !ok && ptr < m.end {
		ptr++
		m.lastmark, m.lastindex = -1, -1
		m.start, m.ptr = ptr, ptr
		ok = m.match(0, ptr, false)
		if m.err != nil {
			return false
		}
	}
	return ok
}
