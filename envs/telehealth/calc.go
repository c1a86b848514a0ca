package telehealth

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/pyjson"
)

// The calculate tool evaluates its expression with Python's eval after
// checking that it only uses "0123456789+-*/(). ". That alphabet still
// reaches a fair part of Python: big ints, floats, true and floor division,
// powers (with complex results for negative bases), empty tuples, Ellipsis,
// calls of non-callables, and CPython 3.11's syntax-error texts. calculate
// reproduces all of that; each result was checked against CPython 3.11
// (testdata/calculate.txt).

const calcChars = "0123456789+-*/(). "

// maxIntBits bounds intermediate integers. CPython computes any size (slowly);
// past this size calculate reports the overflow the final float() conversion
// would almost always raise.
const maxIntBits = 1 << 20

// calculate returns the tool's text: the rounded result or "Error: ...".
func calculate(expr string) string {
	for _, r := range expr {
		if !strings.ContainsRune(calcChars, r) {
			return "Error: invalid characters in expression"
		}
	}
	v, err := evalExpr(expr)
	if err != nil {
		return "Error: " + err.Error()
	}
	f, err := pyFloatOf(v)
	if err != nil {
		return "Error: " + err.Error()
	}
	return pyjson.Float(pyjson.Round(f, 2))
}

// cval is a Python value the expression alphabet can produce.
type cval struct {
	kind ckind
	i    *big.Int
	f    float64
}

type ckind uint8

const (
	cInt ckind = iota
	cFloat
	cComplex // value not tracked: every use ends in a TypeError or stays complex
	cTuple   // always the empty tuple
	cEllipsis
)

func (v cval) typeName() string {
	return [...]string{"int", "float", "complex", "tuple", "ellipsis"}[v.kind]
}

// str is Python's str() of the value (a complex value is not tracked).
func (v cval) str() string {
	switch v.kind {
	case cInt:
		return v.i.String()
	case cFloat:
		return pyjson.Float(v.f)
	case cTuple:
		return "()"
	case cEllipsis:
		return "Ellipsis"
	}
	return "complex"
}

func pyFloatOf(v cval) (float64, error) {
	switch v.kind {
	case cInt:
		return intToFloat(v.i)
	case cFloat:
		return v.f, nil
	}
	return 0, fmt.Errorf("float() argument must be a string or a real number, not '%s'", v.typeName())
}

func intToFloat(i *big.Int) (float64, error) {
	f, _ := new(big.Float).SetInt(i).Float64()
	if math.IsInf(f, 0) {
		return 0, errors.New("int too large to convert to float")
	}
	return f, nil
}

// ---- tokens ----

type ctokKind uint8

const (
	ckNum ctokKind = iota
	ckOp
	ckEnd
)

type ctok struct {
	kind  ctokKind
	text  string
	level int // parenthesis depth after this token (as CPython records it)
}

// ctokenize splits the expression as CPython's tokenizer would. It returns
// the tokens and the first tokenizer error, if any (which CPython reports in
// preference to parser errors).
func ctokenize(s string) ([]ctok, error) {
	var toks []ctok
	level := 0
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1])):
			j := i
			if c == '0' {
				j++
				for j < len(s) && s[j] == '0' {
					j++
				}
				nonzero := false
				for j < len(s) && isDigit(s[j]) {
					nonzero = true
					j++
				}
				if j < len(s) && s[j] == '.' {
					j++
					for j < len(s) && isDigit(s[j]) {
						j++
					}
				} else if nonzero {
					return toks, syntaxError("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers", 1)
				}
			} else {
				for j < len(s) && isDigit(s[j]) {
					j++
				}
				if j < len(s) && s[j] == '.' {
					j++
					for j < len(s) && isDigit(s[j]) {
						j++
					}
				}
			}
			toks = append(toks, ctok{kind: ckNum, text: s[i:j], level: level})
			i = j
		case strings.HasPrefix(s[i:], "..."):
			toks = append(toks, ctok{kind: ckOp, text: "...", level: level})
			i += 3
		case strings.HasPrefix(s[i:], "**"), strings.HasPrefix(s[i:], "//"):
			toks = append(toks, ctok{kind: ckOp, text: s[i : i+2], level: level})
			i += 2
		case c == '(':
			if level >= 200 {
				return toks, syntaxError("too many nested parentheses", 1)
			}
			level++
			toks = append(toks, ctok{kind: ckOp, text: "(", level: level})
			i++
		case c == ')':
			if level == 0 {
				return toks, syntaxError("unmatched ')'", 1)
			}
			level--
			toks = append(toks, ctok{kind: ckOp, text: ")", level: level})
			i++
		default: // + - * / .
			toks = append(toks, ctok{kind: ckOp, text: string(c), level: level})
			i++
		}
	}
	toks = append(toks, ctok{kind: ckEnd, level: level})
	return toks, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func syntaxError(msg string, line int) error {
	return fmt.Errorf("%s (<string>, line %d)", msg, line)
}

// ---- parser (a PEG parser for the subset, shaped like CPython's) ----

type cnode struct {
	op   string // "num", "...", "()", "call", "neg", "pos", or a binary operator
	text string
	a, b *cnode // b is nil for unary nodes and for calls without an argument
	star int    // a call's argument is *b (1) or **b (2)
}

// cparser mirrors the parts of CPython's PEG parser the alphabet reaches.
// Errors that abort CPython's parser on the spot (an unclosed parenthesis
// reached at the end, the digit limit of int literals, the comma hint of the
// second pass, the parser's stack limit) abort this one with a panic of type
// abort, recovered in evalExpr.
type cparser struct {
	toks    []ctok
	invalid bool // second pass: CPython's invalid_* rules are active
	level   int  // CPython parser stack use, in its units
}

type abort struct{ err error }

// cpythonMaxLevel is where CPython 3.11's parser gives up (MAXSTACK, in the
// units level counts: one per unary operator, two per power, 28 per
// parenthesis).
const cpythonMaxLevel = 5976

func (p *cparser) at(i int) ctok {
	t := p.toks[i]
	if t.kind == ckEnd && t.level > 0 {
		panic(abort{syntaxError("'(' was never closed", 1)})
	}
	return t
}

func (p *cparser) isOp(i int, op string) bool {
	t := p.at(i)
	return t.kind == ckOp && t.text == op
}

func (p *cparser) enter(n int) {
	p.level += n
	if p.level >= cpythonMaxLevel {
		panic(abort{errors.New("")}) // MemoryError, whose text is empty
	}
}

// expression := [invalid_expression] sum. In the second pass,
// invalid_expression reports two expressions side by side inside brackets.
func (p *cparser) expression(i int) (*cnode, int) {
	if p.invalid {
		if a, j := p.sum(i); a != nil {
			p.invalid = false // expression_without_invalid
			b, k := p.sum(j)
			p.invalid = true
			if b != nil && p.toks[k-1].level > 0 {
				panic(abort{syntaxError("invalid syntax. Perhaps you forgot a comma?", 1)})
			}
		}
	}
	return p.sum(i)
}

func (p *cparser) sum(i int) (*cnode, int) {
	left, j := p.term(i)
	if left == nil {
		return nil, 0
	}
	for p.isOp(j, "+") || p.isOp(j, "-") {
		right, k := p.term(j + 1)
		if right == nil {
			break
		}
		left = &cnode{op: p.toks[j].text, a: left, b: right}
		j = k
	}
	return left, j
}

func (p *cparser) term(i int) (*cnode, int) {
	left, j := p.factor(i)
	if left == nil {
		return nil, 0
	}
	for p.isOp(j, "*") || p.isOp(j, "/") || p.isOp(j, "//") {
		right, k := p.factor(j + 1)
		if right == nil {
			break
		}
		left = &cnode{op: p.toks[j].text, a: left, b: right}
		j = k
	}
	return left, j
}

func (p *cparser) factor(i int) (*cnode, int) {
	if p.isOp(i, "-") || p.isOp(i, "+") {
		op := "neg"
		if p.toks[i].text == "+" {
			op = "pos"
		}
		p.enter(1)
		a, j := p.factor(i + 1)
		p.level--
		if a == nil {
			return nil, 0
		}
		return &cnode{op: op, a: a}, j
	}
	return p.power(i)
}

func (p *cparser) power(i int) (*cnode, int) {
	a, j := p.primary(i)
	if a == nil {
		return nil, 0
	}
	if p.isOp(j, "**") {
		p.enter(2)
		b, k := p.factor(j + 1)
		p.level -= 2
		if b != nil {
			return &cnode{op: "**", a: a, b: b}, k
		}
	}
	return a, j
}

func (p *cparser) primary(i int) (*cnode, int) {
	a, j := p.atom(i)
	if a == nil {
		return nil, 0
	}
	for p.isOp(j, "(") { // call: '(' [['*' | '**'] expression] ')'
		if p.isOp(j+1, ")") {
			a = &cnode{op: "call", a: a}
			j += 2
			continue
		}
		star, k0 := 0, j+1
		if p.isOp(k0, "*") {
			star, k0 = 1, k0+1
		} else if p.isOp(k0, "**") {
			star, k0 = 2, k0+1
		}
		p.enter(28)
		arg, k := p.expression(k0)
		p.level -= 28
		if arg == nil || !p.isOp(k, ")") {
			break
		}
		a = &cnode{op: "call", a: a, b: arg, star: star}
		j = k + 1
	}
	return a, j
}

func (p *cparser) atom(i int) (*cnode, int) {
	t := p.at(i)
	switch {
	case t.kind == ckNum:
		if !strings.Contains(t.text, ".") && len(strings.TrimLeft(t.text, "0")) > 4300 {
			panic(abort{fmt.Errorf("Exceeds the limit (4300 digits) for integer string conversion: value has %d digits; use sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals to avoid decimal conversion limits. (<string>, line 1)", len(t.text))})
		}
		return &cnode{op: "num", text: t.text}, i + 1
	case t.kind == ckOp && t.text == "...":
		return &cnode{op: "..."}, i + 1
	case t.kind == ckOp && t.text == "(":
		if p.isOp(i+1, ")") {
			return &cnode{op: "()"}, i + 2
		}
		p.enter(28)
		defer func() { p.level -= 28 }()
		switch {
		case p.isOp(i+1, "*"):
			// A starred item can only be part of a tuple, which needs a
			// comma; CPython still parses it, and its second pass names
			// the problem.
			p.sum(i + 2)
			if p.invalid {
				if e, j := p.expression(i + 2); e != nil && p.isOp(j, ")") {
					panic(abort{syntaxError("cannot use starred expression here", 1)})
				}
			}
			return nil, 0
		case p.isOp(i+1, "**"):
			if p.invalid {
				if e, j := p.expression(i + 2); e != nil && p.isOp(j, ")") {
					panic(abort{syntaxError("cannot use double starred expression here", 1)})
				}
			}
			return nil, 0
		}
		e, j := p.expression(i + 1)
		if e == nil || !p.isOp(j, ")") {
			return nil, 0
		}
		return e, j + 1
	}
	return nil, 0
}

// cpythonMaxDepth approximates where CPython 3.11's compiler stops
// recursing (it depends a little on the caller's stack depth).
const cpythonMaxDepth = 2990

func depth(n *cnode) int {
	if n == nil {
		return 0
	}
	return 1 + max(depth(n.a), depth(n.b))
}

// evalExpr parses and evaluates like eval(expr, {"__builtins__": None}, {}).
func evalExpr(expr string) (v cval, err error) {
	src := strings.TrimLeft(expr, " ")
	toks, tokErr := ctokenize(src)
	if tokErr != nil {
		return cval{}, tokErr
	}
	if len(toks) == 1 { // nothing but the end marker
		return cval{}, syntaxError("invalid syntax", 0)
	}
	defer func() {
		if r := recover(); r != nil {
			a, ok := r.(abort)
			if !ok {
				panic(r)
			}
			v, err = cval{}, a.err
		}
	}()
	p := &cparser{toks: toks}
	n, j := p.expression(0)
	if n != nil && p.at(j).kind == ckEnd {
		if depth(n) > cpythonMaxDepth {
			return cval{}, errors.New("maximum recursion depth exceeded during compilation")
		}
		return evalNode(n)
	}
	// Second pass with CPython's invalid_* rules; it may abort with a
	// better message. Otherwise the error is the generic one.
	p2 := &cparser{toks: toks, invalid: true}
	p2.expression(0)
	return cval{}, syntaxError("invalid syntax", 1)
}

// ---- evaluation ----

func evalNode(n *cnode) (cval, error) {
	switch n.op {
	case "num":
		return numLiteral(n.text)
	case "...":
		return cval{kind: cEllipsis}, nil
	case "()":
		return cval{kind: cTuple}, nil
	case "neg", "pos":
		a, err := evalNode(n.a)
		if err != nil {
			return a, err
		}
		sym := map[string]string{"neg": "-", "pos": "+"}[n.op]
		switch a.kind {
		case cInt:
			if n.op == "neg" {
				return cval{kind: cInt, i: new(big.Int).Neg(a.i)}, nil
			}
			return a, nil
		case cFloat:
			if n.op == "neg" {
				return cval{kind: cFloat, f: -a.f}, nil
			}
			return a, nil
		case cComplex:
			return a, nil
		}
		return cval{}, fmt.Errorf("bad operand type for unary %s: '%s'", sym, a.typeName())
	case "call":
		f, err := evalNode(n.a)
		if err != nil {
			return f, err
		}
		if n.b != nil {
			arg, err := evalNode(n.b)
			if err != nil {
				return cval{}, err
			}
			switch {
			case n.star == 1 && arg.kind != cTuple:
				return cval{}, fmt.Errorf("%s argument after * must be an iterable, not %s", f.str(), arg.typeName())
			case n.star == 2:
				return cval{}, fmt.Errorf("%s argument after ** must be a mapping, not %s", f.str(), arg.typeName())
			}
		}
		return cval{}, fmt.Errorf("'%s' object is not callable", f.typeName())
	}
	a, err := evalNode(n.a)
	if err != nil {
		return a, err
	}
	b, err := evalNode(n.b)
	if err != nil {
		return b, err
	}
	return binary(n.op, a, b)
}

func numLiteral(text string) (cval, error) {
	if strings.Contains(text, ".") {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return cval{}, syntaxError("invalid syntax", 1)
		}
		return cval{kind: cFloat, f: f}, nil
	}
	i, _ := new(big.Int).SetString(text, 10)
	return cval{kind: cInt, i: i}, nil
}

func unsupported(op string, a, b cval) error {
	if op == "**" {
		op = "** or pow()"
	}
	return fmt.Errorf("unsupported operand type(s) for %s: '%s' and '%s'", op, a.typeName(), b.typeName())
}

func isNum(v cval) bool { return v.kind == cInt || v.kind == cFloat || v.kind == cComplex }

func binary(op string, a, b cval) (cval, error) {
	// Sequences (the empty tuple).
	if a.kind == cTuple || b.kind == cTuple {
		switch op {
		case "+":
			if a.kind == cTuple && b.kind == cTuple {
				return a, nil
			}
			if a.kind == cTuple {
				return cval{}, fmt.Errorf("can only concatenate tuple (not \"%s\") to tuple", b.typeName())
			}
		case "*":
			seq, n := a, b
			if a.kind != cTuple {
				seq, n = b, a
			}
			if n.kind == cInt {
				if !n.i.IsInt64() {
					return cval{}, fmt.Errorf("cannot fit 'int' into an index-sized integer")
				}
				return seq, nil
			}
			return cval{}, fmt.Errorf("can't multiply sequence by non-int of type '%s'", n.typeName())
		}
		return cval{}, unsupported(op, a, b)
	}
	if !isNum(a) || !isNum(b) {
		return cval{}, unsupported(op, a, b)
	}
	if a.kind == cComplex || b.kind == cComplex {
		switch op {
		case "//":
			return cval{}, unsupported(op, a, b)
		case "/":
			if isZero(b) {
				return cval{}, errors.New("complex division by zero")
			}
		}
		return cval{kind: cComplex}, nil
	}
	if a.kind == cInt && b.kind == cInt {
		return intBinary(op, a.i, b.i)
	}
	x, err := toFloat(a)
	if err != nil {
		return cval{}, err
	}
	y, err := toFloat(b)
	if err != nil {
		return cval{}, err
	}
	switch op {
	case "+":
		return fv(x + y), nil
	case "-":
		return fv(x - y), nil
	case "*":
		return fv(x * y), nil
	case "/":
		if y == 0 {
			return cval{}, errors.New("float division by zero")
		}
		return fv(x / y), nil
	case "//":
		if y == 0 {
			return cval{}, errors.New("float floor division by zero")
		}
		return fv(floorDiv(x, y)), nil
	case "**":
		return floatPow(x, y)
	}
	return cval{}, unsupported(op, a, b)
}

func isZero(v cval) bool {
	switch v.kind {
	case cInt:
		return v.i.Sign() == 0
	case cFloat:
		return v.f == 0
	}
	return false // a complex zero is possible but not tracked
}

func fv(f float64) cval { return cval{kind: cFloat, f: f} }

func toFloat(v cval) (float64, error) {
	if v.kind == cInt {
		return intToFloat(v.i)
	}
	return v.f, nil
}

func tooBig(i *big.Int) error {
	if i.BitLen() > maxIntBits {
		return errors.New("int too large to convert to float")
	}
	return nil
}

func intBinary(op string, x, y *big.Int) (cval, error) {
	r := new(big.Int)
	switch op {
	case "+":
		r.Add(x, y)
	case "-":
		r.Sub(x, y)
	case "*":
		if x.BitLen()+y.BitLen() > maxIntBits+1 {
			return cval{}, errors.New("int too large to convert to float")
		}
		r.Mul(x, y)
	case "/":
		if y.Sign() == 0 {
			return cval{}, errors.New("division by zero")
		}
		f, _ := new(big.Rat).SetFrac(x, y).Float64()
		if x.Sign() == 0 && y.Sign() < 0 {
			f = math.Copysign(0, -1) // CPython keeps the sign of a zero quotient
		}
		if math.IsInf(f, 0) {
			return cval{}, errors.New("integer division result too large for a float")
		}
		return fv(f), nil
	case "//":
		if y.Sign() == 0 {
			return cval{}, errors.New("integer division or modulo by zero")
		}
		m := new(big.Int)
		r.QuoRem(x, y, m)
		if m.Sign() != 0 && (m.Sign() < 0) != (y.Sign() < 0) {
			r.Sub(r, big.NewInt(1))
		}
	case "**":
		if y.Sign() < 0 {
			fx, err := intToFloat(x)
			if err != nil {
				return cval{}, err
			}
			fy, err := intToFloat(y)
			if err != nil {
				return cval{}, err
			}
			return floatPow(fx, fy)
		}
		ax := new(big.Int).Abs(x)
		if ax.Cmp(big.NewInt(1)) <= 0 {
			// 0, 1 and -1 stay small whatever the exponent.
			switch {
			case x.Sign() == 0 && y.Sign() == 0:
				r.SetInt64(1)
			case x.Sign() == 0:
				r.SetInt64(0)
			case x.Sign() > 0:
				r.SetInt64(1)
			case y.Bit(0) == 0:
				r.SetInt64(1)
			default:
				r.SetInt64(-1)
			}
			return cval{kind: cInt, i: r}, nil
		}
		if !y.IsInt64() || int64(x.BitLen()-1)*y.Int64() > maxIntBits {
			return cval{}, errors.New("int too large to convert to float")
		}
		r.Exp(x, y, nil)
	}
	if err := tooBig(r); err != nil {
		return cval{}, err
	}
	return cval{kind: cInt, i: r}, nil
}

// floorDiv is CPython's float floor division (via fmod, as float_divmod).
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

// floatPow is CPython's float_pow.
func floatPow(iv, iw float64) (cval, error) {
	switch {
	case iw == 0:
		return fv(1), nil
	case math.IsNaN(iv):
		return fv(iv), nil
	case math.IsNaN(iw):
		if iv == 1 {
			return fv(1), nil
		}
		return fv(iw), nil
	case math.IsInf(iw, 0):
		av := math.Abs(iv)
		switch {
		case av == 1:
			return fv(1), nil
		case (iw > 0) == (av > 1):
			return fv(math.Abs(iw)), nil
		}
		return fv(0), nil
	case math.IsInf(iv, 0):
		oddInt := math.Mod(math.Abs(iw), 2) == 1
		if iw > 0 {
			if oddInt {
				return fv(iv), nil
			}
			return fv(math.Abs(iv)), nil
		}
		if oddInt {
			return fv(math.Copysign(0, iv)), nil
		}
		return fv(0), nil
	case iv == 0:
		if iw < 0 {
			return cval{}, errors.New("0.0 cannot be raised to a negative power")
		}
		if math.Mod(math.Abs(iw), 2) == 1 {
			return fv(iv), nil
		}
		return fv(0), nil
	}
	negate := false
	if iv < 0 {
		if iw != math.Floor(iw) {
			return cval{kind: cComplex}, nil // CPython hands this to complex pow
		}
		iv = -iv
		negate = math.Mod(math.Abs(iw), 2) == 1
	}
	if iv == 1 {
		if negate {
			return fv(-1), nil
		}
		return fv(1), nil
	}
	ix := pow(iv, iw)
	if negate {
		ix = -ix
	}
	if math.IsInf(ix, 0) {
		return cval{}, errors.New("(34, 'Numerical result out of range')")
	}
	return fv(ix), nil
}
