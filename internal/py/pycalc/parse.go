package pycalc

import (
	"errors"
	"fmt"
	"strings"
)

// node is a parsed expression.
type node struct {
	op   string // "num", "...", "()", "call", "neg", "pos", or a binary operator
	text string // a number's literal
	a, b *node  // operands; b is nil for unary nodes and calls without an argument
	star int    // a call's argument is *b (1) or **b (2)
}

// maxDigits is CPython's limit on the digits of an int literal.
const maxDigits = 4300

// parser is a PEG parser for the subset, shaped like CPython's own so that
// it fails where CPython fails, with the same error. CPython parses twice:
// a failed first pass is followed by a second one in which its invalid_*
// rules look for a better message. An error that stops the parser on the
// spot (a tokenizer error reached, an unclosed parenthesis at the end, a
// specific syntax error, the parser's stack limit) is kept in err, and
// every rule then fails, as CPython's error_indicator makes them.
type parser struct {
	toks  []token
	d     dialect
	pass2 bool
	cost  levels // the pass's costs
	level int    // CPython's parser stack use
	err   error
	// fatal marks an err that CPython reports as it is (a tokenizer
	// error reached, a MemoryError); a parser's own SyntaxError gives way
	// to a tokenizer error later on the line.
	fatal bool
	// memo holds sum's results by position in the second pass, as CPython
	// memoizes its rules; without it that pass takes exponential time on
	// nested parentheses.
	memo map[memoKey]memoResult
}

type memoKey struct {
	pos   int
	pass2 bool
}

type memoResult struct {
	n *node
	j int
}

func (p *parser) fail(err error, fatal bool) {
	if p.err == nil {
		p.err, p.fatal = err, fatal
	}
}

// at reads token i, raising the tokenizer's error if it is one.
func (p *parser) at(i int) token {
	t := p.toks[i]
	switch {
	case t.kind == tErr:
		p.fail(t.err, true)
	case t.kind == tEnd && t.level > 0:
		p.fail(syntaxError("'(' was never closed", 1), true)
	default:
		return t
	}
	return token{kind: tErr}
}

func (p *parser) isOp(i int, op string) bool {
	if p.err != nil {
		return false
	}
	t := p.at(i)
	return t.kind == tOp && t.text == op
}

// enter and leave count the parser's stack use (see levels). CPython
// checks its limit as it enters each rule; reach does that where this
// parser's coarser units put the deepest rules: at an atom, once its token
// is read, and where a construct looks for an inside that is not there.
func (p *parser) enter(n int) { p.level += n }

func (p *parser) leave(n int) { p.level -= n }

// factorEntry is where the rule after a unary operator or a power
// operator is entered: above the deepest rules of its operand.
const factorEntry = -5

func (p *parser) reach(n int) bool {
	if p.level+n >= maxLevel {
		p.fail(&Error{Type: "MemoryError", Msg: p.d.overflowMsg}, true)
		return false
	}
	return true
}

// expression := [invalid_expression] sum. In the second pass,
// invalid_expression reports two expressions side by side inside brackets.
func (p *parser) expression(i int) (*node, int) {
	if p.err != nil {
		return nil, 0
	}
	if p.pass2 {
		if a, j := p.sum(i); a != nil {
			p.pass2 = false // expression_without_invalid
			b, k := p.sum(j)
			p.pass2 = true
			if b != nil && p.toks[k-1].level > 0 {
				p.fail(syntaxError("invalid syntax. Perhaps you forgot a comma?", 1), false)
				return nil, 0
			}
		}
	}
	return p.sum(i)
}

// sum := term (('+'|'-') term)*
func (p *parser) sum(i int) (*node, int) {
	if p.err != nil {
		return nil, 0
	}
	key := memoKey{i, p.pass2}
	if r, ok := p.memo[key]; ok {
		return r.n, r.j
	}
	n, j := p.sumRaw(i)
	if p.err == nil && p.memo != nil {
		p.memo[key] = memoResult{n, j}
	}
	return n, j
}

func (p *parser) sumRaw(i int) (*node, int) {
	left, j := p.term(i)
	if left == nil {
		return nil, 0
	}
	for p.isOp(j, "+") || p.isOp(j, "-") {
		right, k := p.term(j + 1)
		if right == nil {
			break
		}
		left = &node{op: p.toks[j].text, a: left, b: right}
		j = k
	}
	if p.err != nil {
		return nil, 0
	}
	return left, j
}

// term := factor (('*'|'/'|'//'|'%') factor)*
func (p *parser) term(i int) (*node, int) {
	left, j := p.factor(i)
	if left == nil {
		return nil, 0
	}
	for p.isOp(j, "*") || p.isOp(j, "/") || p.isOp(j, "//") || p.isOp(j, "%") {
		right, k := p.factor(j + 1)
		if right == nil {
			break
		}
		left = &node{op: p.toks[j].text, a: left, b: right}
		j = k
	}
	if p.err != nil {
		return nil, 0
	}
	return left, j
}

// factor := ('+'|'-') factor | power
func (p *parser) factor(i int) (*node, int) {
	if p.isOp(i, "-") || p.isOp(i, "+") {
		op := "neg"
		if p.toks[i].text == "+" {
			op = "pos"
		}
		p.enter(1)
		if !p.reach(factorEntry) {
			return nil, 0
		}
		a, j := p.factor(i + 1)
		p.leave(1)
		if a == nil {
			return nil, 0
		}
		return &node{op: op, a: a}, j
	}
	return p.power(i)
}

// power := primary ['**' factor]
func (p *parser) power(i int) (*node, int) {
	a, j := p.primary(i)
	if a == nil {
		return nil, 0
	}
	if p.isOp(j, "**") {
		p.enter(2)
		if !p.reach(factorEntry) {
			return nil, 0
		}
		b, k := p.factor(j + 1)
		p.leave(2)
		if b != nil {
			return &node{op: "**", a: a, b: b}, k
		}
	}
	if p.err != nil {
		return nil, 0
	}
	return a, j
}

// primary := atom (call | '.' NAME)*, call := '(' [['*'|'**'] expression] ')'
func (p *parser) primary(i int) (*node, int) {
	a, j := p.atom(i)
	if a == nil {
		return nil, 0
	}
	for {
		if p.isOp(j, ".") {
			// An attribute needs a name, which the alphabet cannot spell;
			// CPython still reads the token after the dot.
			p.at(j + 1)
			break
		}
		if !p.isOp(j, "(") || !p.reach(p.cost.openCall) {
			break
		}
		if p.isOp(j+1, ")") {
			if !p.reach(p.cost.emptyCall + p.cost.atom) {
				break
			}
			a = &node{op: "call", a: a}
			j += 2
			continue
		}
		star, k0, cost := 0, j+1, p.cost.call
		if p.isOp(k0, "*") {
			star, k0, cost = 1, k0+1, p.cost.starCall
		} else if p.isOp(k0, "**") {
			star, k0, cost = 2, k0+1, p.cost.dstarCall
		}
		if star != 0 && !startsExpression(p.at(k0)) {
			// Nothing to unpack.
			switch {
			case star == 2:
				p.reach(p.cost.dstarCallEmpty + p.cost.atom)
			case p.reach(p.cost.starCallEmpty+p.cost.atom) && p.d.invalidStar:
				p.fail(syntaxError("Invalid star expression", 1), false)
			}
			break
		}
		p.enter(cost)
		arg, k := p.expression(k0)
		p.leave(cost)
		if arg == nil && star == 1 && p.err == nil && p.d.invalidStar {
			p.fail(syntaxError("Invalid star expression", 1), false)
		}
		if arg == nil || !p.isOp(k, ")") {
			break
		}
		a = &node{op: "call", a: a, b: arg, star: star}
		j = k + 1
	}
	if p.err != nil {
		return nil, 0
	}
	return a, j
}

// atom := NUMBER | '...' | '(' ')' | '(' expression ')'
func (p *parser) atom(i int) (*node, int) {
	if p.err != nil {
		return nil, 0
	}
	t := p.at(i)
	switch {
	case p.err != nil:
		return nil, 0
	case startsAtom(t) && !p.reach(p.cost.atom), t.text == "." && !p.reach(p.cost.dot):
		return nil, 0
	}
	switch {
	case t.kind == tNum:
		if !strings.Contains(t.text, ".") && len(strings.TrimLeft(t.text, "0")) > maxDigits {
			p.fail(syntaxError(fmt.Sprintf("Exceeds the limit (%d digits) for integer string conversion: value has %d digits; use sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals to avoid decimal conversion limits.", maxDigits, len(t.text)), 1), false)
			return nil, 0
		}
		return &node{op: "num", text: t.text}, i + 1
	case t.kind == tOp && t.text == "...":
		return &node{op: "..."}, i + 1
	case t.kind == tOp && t.text == "(":
		if !p.reach(p.cost.open) {
			return nil, 0
		}
		if p.isOp(i+1, ")") {
			if !p.reach(p.cost.emptyTuple + p.cost.atom) {
				return nil, 0
			}
			return &node{op: "()"}, i + 2
		}
		if !p.pass2 && (p.isOp(i+1, "*") || p.isOp(i+1, "**")) && !p.reach(p.cost.emptyTuple+p.cost.atom) {
			return nil, 0 // CPython's group rule looks for an expression first
		}
		switch {
		case p.isOp(i+1, "*"):
			// A starred item needs a tuple, which needs a comma; CPython
			// still parses it, and its second pass names the problem.
			p.enter(p.cost.starGroup)
			defer p.leave(p.cost.starGroup)
			least := p.cost.starGroupMin
			if !startsExpression(p.at(i + 2)) {
				least = p.cost.starGroupEmptyMin
			}
			p.sum(i + 2)
			if p.pass2 && p.reach(least-p.cost.starGroup) {
				e, j := p.expression(i + 2)
				switch {
				case e == nil && p.err == nil && p.d.invalidStar:
					p.fail(syntaxError("Invalid star expression", 1), false)
				case e != nil && p.isOp(j, ")"):
					p.fail(syntaxError("cannot use starred expression here", 1), false)
				}
			}
			return nil, 0
		case p.isOp(i+1, "**"):
			if p.pass2 && p.reach(p.cost.dstarGroupMin) {
				p.enter(p.cost.dstarGroup)
				defer p.leave(p.cost.dstarGroup)
				if e, j := p.expression(i + 2); e != nil && p.isOp(j, ")") {
					p.fail(syntaxError("cannot use double starred expression here", 1), false)
				}
			}
			return nil, 0
		}
		p.enter(p.cost.paren)
		defer p.leave(p.cost.paren)
		e, j := p.expression(i + 1)
		if e == nil || !p.isOp(j, ")") {
			return nil, 0
		}
		return e, j + 1
	}
	return nil, 0
}

// startsAtom and startsExpression report whether an atom or an
// expression can begin with t.
func startsAtom(t token) bool {
	return t.kind == tNum || (t.kind == tOp && (t.text == "(" || t.text == "..."))
}

func startsExpression(t token) bool {
	return startsAtom(t) || (t.kind == tOp && (t.text == "-" || t.text == "+"))
}

// parse parses src like eval's compile step.
func parse(src string, d dialect) (*node, error) {
	toks := tokenize(strings.TrimLeft(src, " ")) // eval strips leading spaces
	if toks[0].kind == tEnd {
		return nil, syntaxError("invalid syntax", 0)
	}
	var tokErr error
	if last := toks[len(toks)-1]; last.kind == tErr {
		tokErr = last.err
	}
	p := &parser{toks: toks, d: d, cost: d.levels[0], level: d.levels[0].base}
	n, j := p.expression(0)
	if n != nil && p.at(j).kind == tEnd {
		if depth(n) > d.maxDepth {
			return nil, &Error{Type: "RecursionError", Msg: "maximum recursion depth exceeded during compilation"}
		}
		return n, nil
	}
	if p.err == nil {
		// The second pass, with CPython's invalid_* rules; it may find a
		// better message.
		p = &parser{toks: toks, d: d, cost: d.levels[1], level: d.levels[1].base, pass2: true, memo: make(map[memoKey]memoResult)}
		p.expression(0)
		if p.err == nil {
			p.err = syntaxError("invalid syntax", 1)
		}
	}
	var se *Error
	if !p.fatal && tokErr != nil && errors.As(p.err, &se) && se.Type == "SyntaxError" {
		return nil, tokErr
	}
	return nil, p.err
}

// depth is the height of the syntax tree CPython's compiler walks (a
// starred call argument is a node of its own).
func depth(n *node) int {
	if n == nil {
		return 0
	}
	b := depth(n.b)
	if n.star == 1 {
		b++
	}
	return 1 + max(depth(n.a), b)
}
