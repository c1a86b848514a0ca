package retail

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/pyjson"
)

// calculate is upstream's calculate tool: the expression may use only the
// characters "0123456789+-*/(). "; it is evaluated with Python's eval (so
// ints are unbounded, "/" is true division, "//" floor division and "**"
// power), converted with float() and returned as str(round(x, 2)).
func calculate(expr string) (string, error) {
	for _, r := range expr {
		if !strings.ContainsRune("0123456789+-*/(). ", r) {
			return "", errors.New("Invalid characters in expression")
		}
	}
	v, err := evalPython(expr)
	if err != nil {
		return "", err
	}
	f, err := v.float()
	if err != nil {
		return "", err
	}
	return pyjson.Float(pyjson.Round(f, 2)), nil
}

// pyNum is a Python int (unbounded) or float.
type pyNum struct {
	i *big.Int // nil for a float
	f float64
}

func pyInt(i *big.Int) pyNum    { return pyNum{i: i} }
func pyFloat(f float64) pyNum   { return pyNum{f: f} }
func (n pyNum) isInt() bool     { return n.i != nil }
func errOverflowInt() error     { return errors.New("int too large to convert to float") }
func errSyntax() error          { return errors.New("invalid syntax (<string>, line 1)") }
func errFloatZeroDiv() error    { return errors.New("float division by zero") }
func errNegativePowZero() error { return errors.New("0.0 cannot be raised to a negative power") }

// maxIntBits bounds intermediate ints. Python has no bound (and would spend
// minutes on 9**9**9); we fail instead, far beyond any real calculation.
const maxIntBits = 1 << 20

// float is Python's float(n): ints round half to even and overflow raises.
func (n pyNum) float() (float64, error) {
	if !n.isInt() {
		return n.f, nil
	}
	if n.i.IsInt64() {
		v := n.i.Int64()
		if v > -(1<<53) && v < 1<<53 {
			return float64(v), nil
		}
	}
	f, _ := new(big.Float).SetInt(n.i).Float64()
	if math.IsInf(f, 0) {
		return 0, errOverflowInt()
	}
	return f, nil
}

// Tokens.
type tokKind int

const (
	tEOF tokKind = iota
	tNum
	tOp // + - * / ** // ( )
	tDots
	tErr // a tokenizer error, raised if the parser gets that far
)

type token struct {
	kind tokKind
	text string
	err  error
	// atEOF marks the unclosed-parenthesis error, which CPython reports
	// only when the parser runs into the end of input; other tokenizer
	// errors replace any syntax error.
	atEOF bool
}

// tokenize splits an expression like Python's tokenizer for the allowed
// characters. A tokenizer error ends the list with a tErr token: CPython's
// parser reads tokens lazily, so the error surfaces only if parsing gets
// that far.
func tokenize(s string) ([]token, error) {
	if strings.TrimLeft(s, " ") == "" {
		return nil, errors.New("invalid syntax (<string>, line 0)")
	}
	var toks []token
	depth := 0
	i := 0
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1])):
			j := i
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			intPart := s[i:j]
			isFloat := false
			if j < len(s) && s[j] == '.' {
				isFloat = true
				j++
				for j < len(s) && isDigit(s[j]) {
					j++
				}
			}
			if !isFloat && len(intPart) > 1 && intPart[0] == '0' && strings.Trim(intPart, "0") != "" {
				return append(toks, token{kind: tErr, err: errors.New("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)")}), nil
			}
			toks = append(toks, token{kind: tNum, text: s[i:j]})
			i = j
		case c == '.':
			if strings.HasPrefix(s[i:], "...") {
				toks = append(toks, token{kind: tDots, text: "..."})
				i += 3
			} else {
				toks = append(toks, token{kind: tOp, text: "."})
				i++
			}
		case c == '*' || c == '/':
			if i+1 < len(s) && s[i+1] == c {
				toks = append(toks, token{kind: tOp, text: s[i : i+2]})
				i += 2
			} else {
				toks = append(toks, token{kind: tOp, text: s[i : i+1]})
				i++
			}
		case c == '(':
			depth++
			toks = append(toks, token{kind: tOp, text: "("})
			i++
		case c == ')':
			if depth == 0 {
				return append(toks, token{kind: tErr, err: errors.New("unmatched ')' (<string>, line 1)")}), nil
			}
			depth--
			toks = append(toks, token{kind: tOp, text: ")"})
			i++
		case c == '+' || c == '-':
			toks = append(toks, token{kind: tOp, text: s[i : i+1]})
			i++
		default:
			return nil, errSyntax()
		}
	}
	if depth > 0 {
		return append(toks, token{kind: tErr, atEOF: true, err: errors.New("'(' was never closed (<string>, line 1)")}), nil
	}
	return append(toks, token{kind: tEOF}), nil
}

// node kinds of the parsed expression.
type node struct {
	op    string // "num", "tuple", "dots", "call", "neg", "pos", or a binary operator
	num   string
	left  *node
	right *node
}

type parser struct {
	toks  []token
	pos   int
	depth int
	paren int
}

// Python limits nesting; we bound it too (the tokenizer's limit for
// parentheses is 200).
const (
	maxParens = 200
	maxDepth  = 1000
)

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) isOp(s string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == s
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return errors.New("too many nested parentheses")
	}
	return nil
}

// sum: term (('+'|'-') term)*
func (p *parser) sum() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	left, err := p.term()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		op := p.peek().text
		p.pos++
		right, err := p.term()
		if err != nil {
			return nil, err
		}
		left = &node{op: op, left: left, right: right}
	}
	return left, nil
}

// term: factor (('*'|'/'|'//') factor)*
func (p *parser) term() (*node, error) {
	left, err := p.factor()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") || p.isOp("//") {
		op := p.peek().text
		p.pos++
		right, err := p.factor()
		if err != nil {
			return nil, err
		}
		left = &node{op: op, left: left, right: right}
	}
	return left, nil
}

// factor: ('+'|'-') factor | power
func (p *parser) factor() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if p.isOp("+") || p.isOp("-") {
		op := "pos"
		if p.peek().text == "-" {
			op = "neg"
		}
		p.pos++
		x, err := p.factor()
		if err != nil {
			return nil, err
		}
		return &node{op: op, left: x}, nil
	}
	return p.power()
}

// power: primary ['**' factor]
func (p *parser) power() (*node, error) {
	base, err := p.primary()
	if err != nil {
		return nil, err
	}
	if p.isOp("**") {
		p.pos++
		exp, err := p.factor()
		if err != nil {
			return nil, err
		}
		return &node{op: "**", left: base, right: exp}, nil
	}
	return base, nil
}

// primary: atom ('(' [args] ')')*; calling a number or a tuple always fails
// at run time, so a call's arguments only need to parse.
func (p *parser) primary() (*node, error) {
	x, err := p.atom()
	if err != nil {
		return nil, err
	}
	for p.isOp("(") {
		p.pos++
		if err := p.openParen(); err != nil {
			return nil, err
		}
		if !p.isOp(")") {
			if _, err := p.callArg(); err != nil {
				return nil, err
			}
		}
		if !p.isOp(")") {
			return nil, errSyntax()
		}
		p.pos++
		p.paren--
		x = &node{op: "call", left: x}
	}
	return x, nil
}

// callArg parses one call argument: an expression, *expression or
// **expression.
func (p *parser) callArg() (*node, error) {
	if p.isOp("*") || p.isOp("**") {
		p.pos++
	}
	return p.sum()
}

func (p *parser) openParen() error {
	p.paren++
	if p.paren > maxParens {
		return errors.New("too many nested parentheses (<string>, line 1)")
	}
	return nil
}

// atom: NUMBER | '...' | '(' ')' | '(' sum ')'
func (p *parser) atom() (*node, error) {
	t := p.peek()
	switch {
	case t.kind == tNum:
		p.pos++
		return &node{op: "num", num: t.text}, nil
	case t.kind == tDots:
		p.pos++
		return &node{op: "dots"}, nil
	case t.kind == tOp && t.text == "(":
		p.pos++
		if err := p.openParen(); err != nil {
			return nil, err
		}
		if p.isOp(")") {
			p.pos++
			p.paren--
			return &node{op: "tuple"}, nil
		}
		x, err := p.sum()
		if err != nil {
			return nil, err
		}
		if !p.isOp(")") {
			return nil, errSyntax()
		}
		p.pos++
		p.paren--
		return x, nil
	}
	return nil, errSyntax()
}

// evalPython parses and evaluates an expression over the allowed
// characters.
func evalPython(s string) (pyNum, error) {
	// eval() strips leading spaces and tabs.
	toks, err := tokenize(s)
	if err != nil {
		return pyNum{}, err
	}
	p := &parser{toks: toks}
	n, err := p.sum()
	if err == nil && p.peek().kind != tEOF {
		err = errSyntax()
	}
	if err != nil {
		if last := toks[len(toks)-1]; last.kind == tErr && (!last.atEOF || p.pos == len(toks)-1) {
			return pyNum{}, last.err
		}
		return pyNum{}, err
	}
	return eval(n)
}

// errType is the TypeError of an operation on a non-number (a tuple, an
// Ellipsis, the result of a call), which always fails.
func errType(op string) error {
	return fmt.Errorf("unsupported operand type(s) for %s", op)
}

func eval(n *node) (pyNum, error) {
	switch n.op {
	case "num":
		return parseNum(n.num)
	case "tuple":
		return pyNum{}, errors.New("float() argument must be a string or a real number, not 'tuple'")
	case "dots":
		return pyNum{}, errors.New("float() argument must be a string or a real number, not 'ellipsis'")
	case "call":
		// Numbers and tuples are not callable: Python raises a TypeError
		// once the callee and the arguments have been evaluated.
		callee := "tuple"
		if n.left.op != "tuple" {
			x, err := eval(n.left)
			if err != nil {
				return pyNum{}, err
			}
			callee = "float"
			if x.isInt() {
				callee = "int"
			}
		}
		return pyNum{}, fmt.Errorf("'%s' object is not callable", callee)
	case "neg", "pos":
		x, err := eval(n.left)
		if err != nil {
			return pyNum{}, err
		}
		if n.op == "pos" {
			return x, nil
		}
		if x.isInt() {
			return pyInt(new(big.Int).Neg(x.i)), nil
		}
		return pyFloat(-x.f), nil
	}
	a, err := eval(n.left)
	if err != nil {
		return pyNum{}, err
	}
	b, err := eval(n.right)
	if err != nil {
		return pyNum{}, err
	}
	return binary(n.op, a, b)
}

func parseNum(s string) (pyNum, error) {
	if !strings.Contains(s, ".") {
		i, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return pyNum{}, errSyntax()
		}
		return pyInt(i), nil
	}
	// A literal too large for a float is inf in Python, as ParseFloat
	// returns with ErrRange.
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return pyNum{}, errSyntax()
	}
	return pyFloat(f), nil
}

func binary(op string, a, b pyNum) (pyNum, error) {
	if a.isInt() && b.isInt() {
		return intOp(op, a.i, b.i)
	}
	x, err := a.float()
	if err != nil {
		return pyNum{}, err
	}
	y, err := b.float()
	if err != nil {
		return pyNum{}, err
	}
	return floatOp(op, x, y)
}

func checkBits(i *big.Int) (pyNum, error) {
	if i.BitLen() > maxIntBits {
		return pyNum{}, errors.New("int result too large")
	}
	return pyInt(i), nil
}

func intOp(op string, a, b *big.Int) (pyNum, error) {
	switch op {
	case "+":
		return checkBits(new(big.Int).Add(a, b))
	case "-":
		return checkBits(new(big.Int).Sub(a, b))
	case "*":
		if a.BitLen()+b.BitLen() > maxIntBits+1 {
			return pyNum{}, errors.New("int result too large")
		}
		return checkBits(new(big.Int).Mul(a, b))
	case "/":
		if b.Sign() == 0 {
			return pyNum{}, errors.New("division by zero")
		}
		if a.IsInt64() && b.IsInt64() && abs64(a.Int64()) <= 1<<53 && abs64(b.Int64()) <= 1<<53 {
			return pyFloat(float64(a.Int64()) / float64(b.Int64())), nil
		}
		// CPython divides big ints with correct rounding; a zero result
		// keeps the sign of the quotient.
		f, _ := new(big.Rat).SetFrac(a, b).Float64()
		if math.IsInf(f, 0) {
			return pyNum{}, errors.New("integer division result too large for a float")
		}
		if f == 0 && (a.Sign() < 0) != (b.Sign() < 0) {
			f = math.Copysign(0, -1)
		}
		return pyFloat(f), nil
	case "//":
		if b.Sign() == 0 {
			return pyNum{}, errors.New("integer division or modulo by zero")
		}
		q, r := new(big.Int).QuoRem(a, b, new(big.Int))
		if r.Sign() != 0 && (r.Sign() < 0) != (b.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		}
		return pyInt(q), nil
	case "**":
		if b.Sign() < 0 {
			x, err := pyInt(a).float()
			if err != nil {
				return pyNum{}, err
			}
			y, err := pyInt(b).float()
			if err != nil {
				return pyNum{}, err
			}
			return floatOp("**", x, y)
		}
		switch {
		case a.Sign() == 0 || a.CmpAbs(big.NewInt(1)) == 0:
			// 0, 1 and -1 stay small whatever the exponent.
			if a.Sign() < 0 && b.Bit(0) == 0 {
				return pyInt(big.NewInt(1)), nil
			}
			if b.Sign() == 0 {
				return pyInt(big.NewInt(1)), nil
			}
			return pyInt(new(big.Int).Set(a)), nil
		case !b.IsInt64() || int64(a.BitLen()-1)*b.Int64() > maxIntBits:
			return pyNum{}, errors.New("int result too large")
		}
		return checkBits(new(big.Int).Exp(a, b, nil))
	}
	return pyNum{}, errType(op)
}

func floatOp(op string, x, y float64) (pyNum, error) {
	switch op {
	case "+":
		return pyFloat(x + y), nil
	case "-":
		return pyFloat(x - y), nil
	case "*":
		return pyFloat(x * y), nil
	case "/":
		if y == 0 {
			return pyNum{}, errFloatZeroDiv()
		}
		return pyFloat(x / y), nil
	case "//":
		if y == 0 {
			return pyNum{}, errors.New("float floor division by zero")
		}
		return pyFloat(floorDiv(x, y)), nil
	case "**":
		return floatPow(x, y)
	}
	return pyNum{}, errType(op)
}

// floorDiv is CPython's float floor division (float_floor_div via divmod).
func floorDiv(vx, wx float64) float64 {
	mod := math.Mod(vx, wx)
	div := (vx - mod) / wx
	if mod != 0 {
		if (wx < 0) != (mod < 0) {
			div -= 1.0
		}
	}
	if div != 0 {
		floordiv := math.Floor(div)
		if div-floordiv > 0.5 {
			floordiv += 1.0
		}
		return floordiv
	}
	return math.Copysign(0, vx/wx)
}

func isOddInteger(w float64) bool {
	return math.Mod(math.Abs(w), 2.0) == 1.0
}

// floatPow is CPython's float_pow.
func floatPow(iv, iw float64) (pyNum, error) {
	switch {
	case iw == 0:
		return pyFloat(1), nil
	case math.IsNaN(iv):
		return pyFloat(iv), nil
	case math.IsNaN(iw):
		if iv == 1 {
			return pyFloat(1), nil
		}
		return pyFloat(iw), nil
	case math.IsInf(iw, 0):
		av := math.Abs(iv)
		switch {
		case av == 1:
			return pyFloat(1), nil
		case (iw > 0) == (av > 1):
			return pyFloat(math.Abs(iw)), nil
		}
		return pyFloat(0), nil
	case math.IsInf(iv, 0):
		odd := isOddInteger(iw)
		if iw > 0 {
			if odd {
				return pyFloat(iv), nil
			}
			return pyFloat(math.Abs(iv)), nil
		}
		if odd {
			return pyFloat(math.Copysign(0, iv)), nil
		}
		return pyFloat(0), nil
	case iv == 0:
		if iw < 0 {
			return pyNum{}, errNegativePowZero()
		}
		if isOddInteger(iw) {
			return pyFloat(iv), nil
		}
		return pyFloat(0), nil
	}
	negate := false
	if iv < 0 {
		if iw != math.Floor(iw) {
			// Python returns a complex number, which float() rejects.
			return pyNum{}, errors.New("float() argument must be a string or a real number, not 'complex'")
		}
		iv = -iv
		negate = isOddInteger(iw)
	}
	if iv == 1 {
		if negate {
			return pyFloat(-1), nil
		}
		return pyFloat(1), nil
	}
	ix := powPositive(iv, iw)
	if math.IsInf(ix, 0) {
		return pyNum{}, errors.New("(34, 'Numerical result out of range')")
	}
	if negate {
		ix = -ix
	}
	return pyFloat(ix), nil
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// powPositive is pow(x, y) for a finite x > 0, x != 1. CPython calls the C
// library's pow, which glibc rounds correctly in practice; Go's math.Pow can
// be an ulp off for integer exponents (it multiplies repeatedly in float64),
// which shows after round(x, 2) on large values. Integer exponents are
// therefore computed in extended precision and rounded once. Other exponents
// use math.Pow.
func powPositive(x, y float64) float64 {
	if y != math.Trunc(y) || math.Abs(y) > 4096 {
		return math.Pow(x, y)
	}
	const prec = 2048
	n := int64(math.Abs(y))
	base := new(big.Float).SetPrec(prec).SetFloat64(x)
	acc := new(big.Float).SetPrec(prec).SetInt64(1)
	for n > 0 {
		if n&1 == 1 {
			acc.Mul(acc, base)
		}
		n >>= 1
		if n > 0 {
			base.Mul(base, base)
		}
	}
	if y < 0 {
		acc.Quo(new(big.Float).SetPrec(prec).SetInt64(1), acc)
	}
	f, _ := acc.Float64()
	return f
}
