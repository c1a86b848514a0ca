package airline

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/cmplx"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/pyjson"
)

// evalExpression is upstream's calculate after its character check:
// str(round(float(eval(expression)), 2)) under Python 3.12 semantics for the
// only syntax those characters allow: int and float literals, + - * / // **,
// unary signs, parentheses (including the empty tuple and calls such as
// "2(3)") and the Ellipsis literal "...". Error texts are CPython's.
func evalExpression(src string) (string, error) {
	n, err := parseExpression(src)
	if err != nil {
		return "", err
	}
	v, err := n.eval()
	if err != nil {
		return "", err
	}
	f, err := v.toFloat()
	if err != nil {
		return "", err
	}
	return pyjson.Float(pyjson.Round(f, 2)), nil
}

// Tokens.

type tokKind int

const (
	tNum tokKind = iota
	tOp
	tEllipsis
	tDot
	tBad // a tokenizer error, raised when the parser reaches it
	tEOF
)

type token struct {
	kind  tokKind
	text  string
	level int // parenthesis depth before the token
}

// CPython's limits: the tokenizer's parenthesis depth, and (about) the
// compiler's recursion limit on expression depth.
const (
	maxNesting = 200
	maxDepth   = 3000
)

func syntaxError(msg string, line int) error {
	return fmt.Errorf("%s (<string>, line %d)", msg, line)
}

const leadingZeros = "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers"

func tokenize(src string) []token {
	var toks []token
	level := 0
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ':
			i++
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			j := i
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			isFloat := false
			if j < len(src) && src[j] == '.' {
				isFloat = true
				j++
				for j < len(src) && isDigit(src[j]) {
					j++
				}
			}
			text := src[i:j]
			if !isFloat && len(text) > 1 && text[0] == '0' && strings.Trim(text, "0") != "" {
				toks = append(toks, token{kind: tBad, text: leadingZeros, level: level})
			} else {
				toks = append(toks, token{kind: tNum, text: text, level: level})
			}
			i = j
		case c == '.':
			if strings.HasPrefix(src[i:], "...") {
				toks = append(toks, token{kind: tEllipsis, text: "...", level: level})
				i += 3
			} else {
				toks = append(toks, token{kind: tDot, text: ".", level: level})
				i++
			}
		case c == '(':
			if level >= maxNesting {
				toks = append(toks, token{kind: tBad, text: "too many nested parentheses", level: level})
			} else {
				toks = append(toks, token{kind: tOp, text: "(", level: level})
				level++
			}
			i++
		case c == ')':
			if level == 0 {
				toks = append(toks, token{kind: tBad, text: "unmatched ')'", level: level})
			} else {
				level--
				toks = append(toks, token{kind: tOp, text: ")", level: level})
			}
			i++
		case c == '*' || c == '/':
			if i+1 < len(src) && src[i+1] == c {
				toks = append(toks, token{kind: tOp, text: src[i : i+2], level: level})
				i += 2
			} else {
				toks = append(toks, token{kind: tOp, text: src[i : i+1], level: level})
				i++
			}
		default: // + or -
			toks = append(toks, token{kind: tOp, text: src[i : i+1], level: level})
			i++
		}
	}
	return append(toks, token{kind: tEOF, level: level})
}

// Parser (recursive descent over Python's expression grammar).

type parser struct {
	toks  []token
	pos   int
	depth int // nesting of unary operators and powers being parsed
}

// parseFail is a syntax error found while parsing; generic failures are
// refined by parseExpression as CPython does.
type parseFail struct {
	err     error // a specific error (tokenizer error, comma hint, unclosed)
	generic bool
}

func (p *parser) peek() (token, *parseFail) {
	t := p.toks[p.pos]
	switch {
	case t.kind == tBad:
		return t, &parseFail{err: syntaxError(t.text, 1)}
	case t.kind == tEOF && t.level > 0:
		return t, &parseFail{err: syntaxError("'(' was never closed", 1)}
	}
	return t, nil
}

func (p *parser) isOp(t token, ops ...string) bool {
	if t.kind != tOp {
		return false
	}
	for _, o := range ops {
		if t.text == o {
			return true
		}
	}
	return false
}

func parseExpression(src string) (node, error) {
	if strings.Trim(src, " ") == "" {
		return nil, syntaxError("invalid syntax", 0)
	}
	p := &parser{toks: tokenize(src)}
	n, f := p.expr()
	if f == nil {
		var t token
		if t, f = p.peek(); f == nil && t.kind != tEOF {
			// Two operands side by side. CPython's second parsing pass reads
			// the second one too (a comma hint needs parentheses), which can
			// run into the end of an unclosed parenthesis.
			if t.kind == tNum || t.kind == tEllipsis {
				if _, sf := p.expr(); sf != nil && !sf.generic {
					return nil, sf.err
				}
			}
			f = &parseFail{generic: true}
		}
	}
	if f == nil {
		if depth(n) > maxDepth {
			return nil, errors.New("maximum recursion depth exceeded during compilation")
		}
		return n, nil
	}
	if !f.generic {
		return nil, f.err
	}
	// A generic failure: CPython tokenizes the rest of the source and reports
	// a tokenizer error if there is one. (An unclosed parenthesis found that
	// way only counts on a later line, never in one-line input.)
	for _, t := range p.toks {
		if t.kind == tBad {
			return nil, syntaxError(t.text, 1)
		}
	}
	return nil, syntaxError("invalid syntax", 1)
}

// expr := term (("+"|"-") term)*
func (p *parser) expr() (node, *parseFail) {
	l, f := p.term()
	if f != nil {
		return nil, f
	}
	for {
		t, f := p.peek()
		if f != nil {
			return nil, f
		}
		if !p.isOp(t, "+", "-") {
			break
		}
		p.pos++
		r, f := p.term()
		if f != nil {
			return nil, f
		}
		l = &binary{op: t.text, l: l, r: r}
	}
	return l, nil
}

// term := factor (("*"|"/"|"//") factor)*
func (p *parser) term() (node, *parseFail) {
	l, f := p.factor()
	if f != nil {
		return nil, f
	}
	for {
		t, f := p.peek()
		if f != nil {
			return nil, f
		}
		if !p.isOp(t, "*", "/", "//") {
			break
		}
		p.pos++
		r, f := p.factor()
		if f != nil {
			return nil, f
		}
		l = &binary{op: t.text, l: l, r: r}
	}
	return l, nil
}

// factor := ("+"|"-") factor | power
func (p *parser) factor() (node, *parseFail) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, &parseFail{err: errors.New("maximum recursion depth exceeded during compilation")}
	}
	t, f := p.peek()
	if f != nil {
		return nil, f
	}
	if p.isOp(t, "+", "-") {
		p.pos++
		x, f := p.factor()
		if f != nil {
			return nil, f
		}
		return &unary{op: t.text, x: x}, nil
	}
	return p.power()
}

// power := primary ["**" factor]
func (p *parser) power() (node, *parseFail) {
	base, f := p.primary()
	if f != nil {
		return nil, f
	}
	t, f := p.peek()
	if f != nil {
		return nil, f
	}
	if !p.isOp(t, "**") {
		return base, nil
	}
	p.pos++
	exp, f := p.factor()
	if f != nil {
		return nil, f
	}
	return &binary{op: "**", l: base, r: exp}, nil
}

// primary := atom ("(" [expr] ")")*
func (p *parser) primary() (node, *parseFail) {
	n, f := p.atom()
	if f != nil {
		return nil, f
	}
	for {
		t, f := p.peek()
		if f != nil {
			return nil, f
		}
		if t.kind == tDot {
			// An attribute access needs a name, which the allowed characters
			// cannot spell; only the end of an unclosed group is reported
			// differently.
			p.pos++
			if _, f := p.peek(); f != nil {
				return nil, f
			}
			return nil, &parseFail{generic: true}
		}
		if !p.isOp(t, "(") {
			return n, nil
		}
		p.pos++
		c := &call{fn: n}
		if t, f = p.peek(); f != nil {
			return nil, f
		}
		switch {
		case p.isOp(t, "*", "**"): // f(*x), f(**x)
			p.pos++
			c.star = t.text
			if c.arg, f = p.expr(); f != nil {
				return nil, f
			}
		case !p.isOp(t, ")"):
			if c.arg, f = p.group(); f != nil {
				return nil, f
			}
		}
		if f := p.close(); f != nil {
			return nil, f
		}
		n = c
	}
}

// atom := NUMBER | "..." | "(" [expr] ")"
func (p *parser) atom() (node, *parseFail) {
	t, f := p.peek()
	if f != nil {
		return nil, f
	}
	switch {
	case t.kind == tNum:
		p.pos++
		return numberLiteral(t.text), nil
	case t.kind == tEllipsis:
		p.pos++
		return constant{kind: kEllipsis}, nil
	case p.isOp(t, "("):
		p.pos++
		if t, f = p.peek(); f != nil {
			return nil, f
		}
		if p.isOp(t, ")") {
			p.pos++
			return constant{kind: kTuple}, nil
		}
		if p.isOp(t, "*", "**") {
			p.pos++
			if _, f := p.expr(); f != nil {
				return nil, f
			}
			if f := p.close(); f != nil {
				return nil, f
			}
			what := "starred"
			if t.text == "**" {
				what = "double starred"
			}
			return nil, &parseFail{err: syntaxError("cannot use "+what+" expression here", 1)}
		}
		n, f := p.group()
		if f != nil {
			return nil, f
		}
		if f := p.close(); f != nil {
			return nil, f
		}
		return n, nil
	}
	return nil, &parseFail{generic: true}
}

// group parses an expression inside parentheses, where an expression
// directly followed by another one gets CPython's comma hint.
func (p *parser) group() (node, *parseFail) {
	n, f := p.expr()
	if f != nil {
		return nil, f
	}
	t, f := p.peek()
	if f != nil {
		return nil, f
	}
	if t.kind == tNum || t.kind == tEllipsis {
		save := p.pos
		if _, f := p.expr(); f != nil && !f.generic {
			return nil, f
		}
		p.pos = save
		return nil, &parseFail{err: syntaxError("invalid syntax. Perhaps you forgot a comma?", 1)}
	}
	return n, nil
}

func (p *parser) close() *parseFail {
	t, f := p.peek()
	if f != nil {
		return f
	}
	if !p.isOp(t, ")") {
		return &parseFail{generic: true}
	}
	p.pos++
	return nil
}

// Values.

type valKind int

const (
	kInt valKind = iota
	kFloat
	kComplex
	kTuple // only the empty tuple can be written
	kEllipsis
)

type pyNum struct {
	kind valKind
	i    *big.Int
	f    float64
	c    complex128
}

func (v pyNum) typeName() string {
	return [...]string{"int", "float", "complex", "tuple", "ellipsis"}[v.kind]
}

func (v pyNum) isNumber() bool { return v.kind <= kComplex }

func intToFloat(i *big.Int) (float64, error) {
	f, _ := new(big.Float).SetInt(i).Float64() // nearest, ties to even
	if math.IsInf(f, 0) {
		return 0, errors.New("int too large to convert to float")
	}
	return f, nil
}

func (v pyNum) asFloat() (float64, error) {
	if v.kind == kInt {
		return intToFloat(v.i)
	}
	return v.f, nil
}

func (v pyNum) asComplex() (complex128, error) {
	if v.kind == kComplex {
		return v.c, nil
	}
	f, err := v.asFloat()
	return complex(f, 0), err
}

// toFloat is Python's float(v).
func (v pyNum) toFloat() (float64, error) {
	switch v.kind {
	case kInt, kFloat:
		return v.asFloat()
	}
	return 0, fmt.Errorf("float() argument must be a string or a real number, not '%s'", v.typeName())
}

// AST.

type node interface{ eval() (pyNum, error) }

// depth is the height of an expression tree.
func depth(n node) int {
	switch x := n.(type) {
	case *unary:
		return 1 + depth(x.x)
	case *binary:
		return 1 + max(depth(x.l), depth(x.r))
	case *call:
		d := depth(x.fn)
		if x.arg != nil {
			d = max(d, depth(x.arg))
		}
		return 1 + d
	}
	return 1
}

type constant pyNum

func (c constant) eval() (pyNum, error) { return pyNum(c), nil }

func numberLiteral(text string) node {
	if strings.Contains(text, ".") {
		return constant{kind: kFloat, f: pyFloat(json.Number(text))}
	}
	i, _ := new(big.Int).SetString(text, 10)
	return constant{kind: kInt, i: i}
}

type unary struct {
	op string
	x  node
}

func (u *unary) eval() (pyNum, error) {
	v, err := u.x.eval()
	if err != nil {
		return pyNum{}, err
	}
	if !v.isNumber() {
		return pyNum{}, fmt.Errorf("bad operand type for unary %s: '%s'", u.op, v.typeName())
	}
	if u.op == "+" {
		return v, nil
	}
	switch v.kind {
	case kInt:
		return pyNum{kind: kInt, i: new(big.Int).Neg(v.i)}, nil
	case kFloat:
		return pyNum{kind: kFloat, f: -v.f}, nil
	}
	return pyNum{kind: kComplex, c: -v.c}, nil
}

type call struct {
	fn   node
	star string // "", "*" or "**" before the argument
	arg  node   // nil for no argument
}

func (c *call) eval() (pyNum, error) {
	fn, err := c.fn.eval()
	if err != nil {
		return pyNum{}, err
	}
	if c.arg != nil {
		a, err := c.arg.eval()
		if err != nil {
			return pyNum{}, err
		}
		switch {
		case c.star == "*" && a.kind != kTuple:
			return pyNum{}, fmt.Errorf("%s argument after * must be an iterable, not %s", fn.str(), a.typeName())
		case c.star == "**":
			return pyNum{}, fmt.Errorf("%s argument after ** must be a mapping, not %s", fn.str(), a.typeName())
		}
	}
	return pyNum{}, fmt.Errorf("'%s' object is not callable", fn.typeName())
}

// str is Python's str(v).
func (v pyNum) str() string {
	switch v.kind {
	case kInt:
		return v.i.String()
	case kFloat:
		return pyjson.Float(v.f)
	case kTuple:
		return "()"
	case kEllipsis:
		return "Ellipsis"
	}
	part := func(f float64) string { return strings.TrimSuffix(pyjson.Float(f), ".0") }
	re, im := real(v.c), imag(v.c)
	if re == 0 && !math.Signbit(re) {
		return part(im) + "j"
	}
	sign := "+"
	if im < 0 || (im == 0 && math.Signbit(im)) {
		sign = "-"
	}
	return "(" + part(re) + sign + part(math.Abs(im)) + "j)"
}

type binary struct {
	op   string
	l, r node
}

// maxIntBits bounds exact integer results. CPython would grind through
// larger powers for minutes or run out of memory; a port refuses instead.
const maxIntBits = 1 << 22

func (b *binary) eval() (pyNum, error) {
	l, err := b.l.eval()
	if err != nil {
		return pyNum{}, err
	}
	r, err := b.r.eval()
	if err != nil {
		return pyNum{}, err
	}
	if !l.isNumber() || !r.isNumber() {
		return sequenceOp(b.op, l, r)
	}
	switch {
	case l.kind == kComplex || r.kind == kComplex:
		return complexOp(b.op, l, r)
	case l.kind == kFloat || r.kind == kFloat:
		x, err := l.asFloat()
		if err != nil {
			return pyNum{}, err
		}
		y, err := r.asFloat()
		if err != nil {
			return pyNum{}, err
		}
		return floatOp(b.op, x, y)
	}
	return intOp(b.op, l.i, r.i)
}

func intOp(op string, x, y *big.Int) (pyNum, error) {
	out := func(i *big.Int) (pyNum, error) {
		if i.BitLen() > maxIntBits {
			return pyNum{}, errors.New("ledgerbench: integer result too large to evaluate")
		}
		return pyNum{kind: kInt, i: i}, nil
	}
	switch op {
	case "+":
		return out(new(big.Int).Add(x, y))
	case "-":
		return out(new(big.Int).Sub(x, y))
	case "*":
		return out(new(big.Int).Mul(x, y))
	case "/":
		if y.Sign() == 0 {
			return pyNum{}, errors.New("division by zero")
		}
		f, _ := new(big.Rat).SetFrac(x, y).Float64()
		if math.IsInf(f, 0) {
			return pyNum{}, errors.New("integer division result too large for a float")
		}
		return pyNum{kind: kFloat, f: f}, nil
	case "//":
		if y.Sign() == 0 {
			return pyNum{}, errors.New("integer division or modulo by zero")
		}
		q, m := new(big.Int).QuoRem(x, y, new(big.Int))
		if m.Sign() != 0 && (m.Sign() < 0) != (y.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		}
		return out(q)
	}
	// **
	if y.Sign() < 0 {
		fx, err := intToFloat(x)
		if err != nil {
			return pyNum{}, err
		}
		fy, err := intToFloat(y)
		if err != nil {
			return pyNum{}, err
		}
		return floatOp("**", fx, fy)
	}
	if x.BitLen() > 1 && (!y.IsInt64() || y.Int64() > maxIntBits || int64(x.BitLen())*y.Int64() > maxIntBits) {
		return pyNum{}, errors.New("ledgerbench: integer result too large to evaluate")
	}
	return out(new(big.Int).Exp(x, y, nil))
}

func floatOp(op string, x, y float64) (pyNum, error) {
	switch op {
	case "+":
		return pyNum{kind: kFloat, f: x + y}, nil
	case "-":
		return pyNum{kind: kFloat, f: x - y}, nil
	case "*":
		return pyNum{kind: kFloat, f: x * y}, nil
	case "/":
		if y == 0 {
			return pyNum{}, errors.New("float division by zero")
		}
		return pyNum{kind: kFloat, f: x / y}, nil
	case "//":
		if y == 0 {
			return pyNum{}, errors.New("float floor division by zero")
		}
		return pyNum{kind: kFloat, f: floorDiv(x, y)}, nil
	}
	return floatPow(x, y)
}

// floorDiv is CPython's float floor division (float_floor_div).
func floorDiv(vx, wx float64) float64 {
	mod := math.Mod(vx, wx)
	div := (vx - mod) / wx
	if mod != 0 {
		if (wx < 0) != (mod < 0) {
			div -= 1.0
		}
	}
	if div == 0 {
		return math.Copysign(0, vx/wx)
	}
	floordiv := math.Floor(div)
	if div-floordiv > 0.5 {
		floordiv += 1.0
	}
	return floordiv
}

// floatPow is CPython's float_pow.
func floatPow(x, y float64) (pyNum, error) {
	f := func(v float64) (pyNum, error) { return pyNum{kind: kFloat, f: v}, nil }
	switch {
	case y == 0:
		return f(1)
	case math.IsNaN(x):
		return f(x)
	case math.IsNaN(y):
		if x == 1 {
			return f(1)
		}
		return f(y)
	case math.IsInf(y, 0):
		ax := math.Abs(x)
		switch {
		case ax == 1:
			return f(1)
		case (y > 0) == (ax > 1):
			return f(math.Inf(1))
		}
		return f(0)
	case math.IsInf(x, 0):
		odd := math.Mod(math.Abs(y), 2) == 1
		if y > 0 {
			if odd {
				return f(x)
			}
			return f(math.Abs(x))
		}
		if odd {
			return f(math.Copysign(0, x))
		}
		return f(0)
	case x == 0:
		if y < 0 {
			return pyNum{}, errors.New("0.0 cannot be raised to a negative power")
		}
		if math.Mod(math.Abs(y), 2) == 1 {
			return f(x)
		}
		return f(0)
	case x < 0 && y != math.Floor(y):
		return pyNum{kind: kComplex, c: cmplx.Pow(complex(x, 0), complex(y, 0))}, nil
	case x == 1:
		return f(1)
	}
	v := math.Pow(x, y)
	if math.IsInf(v, 0) {
		return pyNum{}, errors.New("(34, 'Numerical result out of range')")
	}
	return f(v)
}

func complexOp(op string, l, r pyNum) (pyNum, error) {
	x, err := l.asComplex()
	if err != nil {
		return pyNum{}, err
	}
	y, err := r.asComplex()
	if err != nil {
		return pyNum{}, err
	}
	c := func(v complex128) (pyNum, error) { return pyNum{kind: kComplex, c: v}, nil }
	switch op {
	case "+":
		return c(x + y)
	case "-":
		return c(x - y)
	case "*":
		return c(x * y)
	case "/":
		if y == 0 {
			return pyNum{}, errors.New("complex division by zero")
		}
		return c(x / y)
	case "//":
		return pyNum{}, fmt.Errorf("unsupported operand type(s) for //: '%s' and '%s'", l.typeName(), r.typeName())
	}
	if x == 0 && (real(y) < 0 || imag(y) != 0) {
		return pyNum{}, errors.New("0.0 to a negative or complex power")
	}
	return c(cmplx.Pow(x, y))
}

// sequenceOp handles the empty tuple and Ellipsis as operands.
func sequenceOp(op string, l, r pyNum) (pyNum, error) {
	name := op
	if op == "**" {
		name = "** or pow()"
	}
	unsupported := fmt.Errorf("unsupported operand type(s) for %s: '%s' and '%s'", name, l.typeName(), r.typeName())
	switch {
	case l.kind == kTuple && r.kind == kTuple && op == "+":
		return l, nil
	case l.kind == kTuple && op == "+":
		return pyNum{}, fmt.Errorf("can only concatenate tuple (not \"%s\") to tuple", r.typeName())
	case op == "*" && (l.kind == kTuple || r.kind == kTuple):
		other := r
		if r.kind == kTuple {
			other = l
		}
		if other.kind == kInt {
			return pyNum{kind: kTuple}, nil
		}
		if other.kind == kTuple || other.kind == kEllipsis {
			return pyNum{}, unsupported
		}
		return pyNum{}, fmt.Errorf("can't multiply sequence by non-int of type '%s'", other.typeName())
	}
	return pyNum{}, unsupported
}
