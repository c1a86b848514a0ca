// Package pyliteral reads the Python literal subset that upstream task files
// are written in: calls with keyword arguments (Task(...), Action(...)),
// lists, dicts, tuples, strings (single, double and triple quoted, with
// escapes, raw prefixes and implicit concatenation), ints, floats, True,
// False, None and comments.
//
// A task file is a Python module: it may import things and define helpers.
// Assignment finds the module-level assignment to a name and parses only its
// value; anything in the value outside the subset is an *Error with its line
// and column.
//
// Values are an order-preserving tree:
//
//	None → nil, True/False → bool, str → string,
//	int → json.Number (canonical decimal), float → float64,
//	list → []any, tuple → Tuple, dict → *pyjson.Dict (string keys only),
//	call → *Call.
package pyliteral

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Tuple is a Python tuple. It encodes as a JSON array, as json.dumps does.
type Tuple []any

// Call is a call expression such as Task(annotator="0", ...): a dotted
// function name, positional arguments and keyword arguments in source order.
type Call struct {
	Func      string
	Args      []any
	Kwargs    *pyjson.Dict
	Line, Col int
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 200

// newParser returns a parser at the first token of src.
func newParser(src []byte) (*parser, error) {
	lx, err := newLexer(src)
	if err != nil {
		return nil, err
	}
	p := &parser{lx: lx}
	if err := p.advance(); err != nil {
		return nil, err
	}
	return p, nil
}

// ParseExpr parses src as one literal expression (surrounding blank lines
// and comments allowed).
func ParseExpr(src []byte) (any, error) {
	p, err := newParser(src)
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tNewline {
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	v, err := p.statementValue()
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tNewline {
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	if p.tok.kind != tEOF {
		return nil, p.unexpected()
	}
	return v, nil
}

// Assign is a module-level assignment found by Assignment.
type Assign struct {
	Name      string
	Value     any
	Line, Col int
}

// ErrNoAssignment is wrapped when no module-level assignment matches.
var ErrNoAssignment = errors.New("pyliteral: no matching module-level assignment")

// Assignment finds the module-level assignments (`NAME = value` or
// `NAME: annotation = value` at column 1) whose name satisfies match and
// parses the value of the only one. Other code in the module is tokenized
// but not interpreted. Two or more matching assignments are an error, as is
// none (wrapping ErrNoAssignment).
func Assignment(src []byte, match func(name string) bool) (*Assign, error) {
	p, err := newParser(src)
	if err != nil {
		return nil, err
	}
	var found *Assign
	for p.tok.kind != tEOF {
		t := p.tok
		if !(t.kind == tName && t.startsLine && t.col == 1 && match(t.text)) {
			if err := p.advance(); err != nil {
				return nil, err
			}
			continue
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.isOp(":") { // annotation: skip to '=' on the same logical line
			for !p.isOp("=") {
				if p.tok.kind == tNewline || p.tok.kind == tEOF {
					break
				}
				if err := p.advance(); err != nil {
					return nil, err
				}
			}
		}
		if !p.isOp("=") {
			continue // a use of the name, not an assignment
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		v, err := p.statementValue()
		if err != nil {
			return nil, err
		}
		if found != nil {
			return nil, &Error{t.line, t.col, fmt.Sprintf("%s is assigned more than once (first at line %d)", t.text, found.Line)}
		}
		found = &Assign{Name: t.text, Value: v, Line: t.line, Col: t.col}
	}
	if found == nil {
		return nil, ErrNoAssignment
	}
	return found, nil
}

type parser struct {
	lx  *lexer
	tok token
	// refs enables source mode (see Module): bare names, subscripts and
	// `|` unions are expressions rather than errors.
	refs bool
}

func (p *parser) advance() error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) isOp(op string) bool { return p.tok.kind == tOp && p.tok.text == op }

func (p *parser) errAt(t token, format string, args ...any) error {
	return &Error{Line: t.line, Col: t.col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) unexpected() error {
	switch p.tok.kind {
	case tEOF:
		return p.errAt(p.tok, "unexpected end of file")
	case tNewline:
		return p.errAt(p.tok, "unexpected end of line")
	}
	return p.errAt(p.tok, "unexpected %q", p.tok.text)
}

// endOfStatement accepts the end of the logical line (or ';' or EOF).
func (p *parser) endOfStatement() error {
	switch {
	case p.tok.kind == tNewline || p.tok.kind == tEOF:
		return nil
	case p.isOp(";"):
		return nil
	}
	return p.errAt(p.tok, "unexpected %q after the literal (only literals are supported)", p.tok.text)
}

// statementValue parses one expression that must end its statement.
func (p *parser) statementValue() (any, error) {
	v, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if err := p.endOfStatement(); err != nil {
		return nil, err
	}
	return v, nil
}

func (p *parser) expect(op string) error {
	if !p.isOp(op) {
		if p.tok.kind == tEOF || p.tok.kind == tNewline {
			return p.errAt(p.tok, "expected %q", op)
		}
		return p.errAt(p.tok, "expected %q, found %q", op, p.tok.text)
	}
	return p.advance()
}

// expr parses one literal expression (in source mode also `a | b`).
func (p *parser) expr(depth int) (any, error) {
	v, err := p.operand(depth)
	for err == nil && p.refs && p.isOp("|") {
		if err = p.advance(); err != nil {
			break
		}
		var y any
		if y, err = p.operand(depth + 1); err == nil {
			v = &BitOr{X: v, Y: y}
		}
	}
	return v, err
}

// operand parses one expression without binary operators.
func (p *parser) operand(depth int) (any, error) {
	if depth > maxDepth {
		return nil, p.errAt(p.tok, "literal nested too deeply")
	}
	t := p.tok
	switch t.kind {
	case tNumber:
		if err := p.advance(); err != nil {
			return nil, err
		}
		return p.number(t)
	case tString:
		return p.strings()
	case tName:
		return p.name(depth)
	case tOp:
		switch t.text {
		case "-", "+":
			if err := p.advance(); err != nil {
				return nil, err
			}
			v, err := p.expr(depth + 1)
			if err != nil {
				return nil, err
			}
			return negate(v, t.text == "-", func() error {
				return p.errAt(t, "unary %s is supported on numbers only", t.text)
			})
		case "[":
			return p.list(depth)
		case "{":
			return p.dict(depth)
		case "(":
			return p.paren(depth)
		case "...":
			if p.refs {
				return Ellipsis{}, p.advance()
			}
		}
	}
	return nil, p.unexpected()
}

func negate(v any, neg bool, bad func() error) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if !neg {
			return x, nil
		}
		var b big.Int
		b.SetString(string(x), 10)
		b.Neg(&b)
		return json.Number(b.String()), nil
	case float64:
		if neg {
			return -x, nil
		}
		return x, nil
	}
	return nil, bad()
}

func (p *parser) name(depth int) (any, error) {
	t := p.tok
	if err := p.advance(); err != nil {
		return nil, err
	}
	switch t.text {
	case "True":
		return true, nil
	case "False":
		return false, nil
	case "None":
		return nil, nil
	}
	fn := t.text
	for p.isOp(".") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind != tName {
			return nil, p.unexpected()
		}
		fn += "." + p.tok.text
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	if !p.isOp("(") && p.refs {
		return p.ref(fn, t, depth)
	}
	if !p.isOp("(") {
		return nil, p.errAt(t, "name %s is not a literal (only calls, lists, dicts, tuples, strings, numbers, True, False and None are supported)", fn)
	}
	return p.call(fn, t, depth)
}

func (p *parser) call(fn string, at token, depth int) (any, error) {
	if err := p.advance(); err != nil { // (
		return nil, err
	}
	c := &Call{Func: fn, Kwargs: &pyjson.Dict{}, Line: at.line, Col: at.col}
	for !p.isOp(")") {
		if p.isOp("*") || p.isOp("**") {
			return nil, p.errAt(p.tok, "argument unpacking is not supported")
		}
		if p.tok.kind == tName {
			// keyword argument? Look one token ahead.
			name := p.tok
			save := *p.lx
			if err := p.advance(); err != nil {
				return nil, err
			}
			if p.isOp("=") {
				if err := p.advance(); err != nil {
					return nil, err
				}
				v, err := p.expr(depth + 1)
				if err != nil {
					return nil, err
				}
				if _, dup := c.Kwargs.Get(name.text); dup {
					return nil, p.errAt(name, "keyword argument repeated: %s", name.text)
				}
				c.Kwargs.Set(name.text, v)
				if err := p.argSep(); err != nil {
					return nil, err
				}
				continue
			}
			*p.lx = save
			p.tok = name
		}
		if c.Kwargs.Len() > 0 {
			return nil, p.errAt(p.tok, "positional argument follows keyword argument")
		}
		v, err := p.expr(depth + 1)
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, v)
		if err := p.argSep(); err != nil {
			return nil, err
		}
	}
	return c, p.advance()
}

// argSep consumes the ',' between elements, or stops before a closing bracket.
func (p *parser) argSep() error {
	if p.isOp(",") {
		return p.advance()
	}
	if p.isOp(")") || p.isOp("]") || p.isOp("}") {
		return nil
	}
	if p.tok.kind == tEOF {
		return p.unexpected()
	}
	return p.errAt(p.tok, "expected ',' or a closing bracket, found %q", p.tok.text)
}

func (p *parser) list(depth int) (any, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	out := []any{}
	for !p.isOp("]") {
		v, err := p.expr(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !p.isOp(",") && !p.isOp("]") {
			return nil, p.errAt(p.tok, "expected ',' or ']', found %q", p.tok.text)
		}
		if err := p.argSep(); err != nil {
			return nil, err
		}
	}
	return out, p.advance()
}

func (p *parser) dict(depth int) (any, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	d := &pyjson.Dict{}
	for !p.isOp("}") {
		if p.isOp("**") {
			return nil, p.errAt(p.tok, "dict unpacking is not supported")
		}
		kt := p.tok
		k, err := p.expr(depth + 1)
		if err != nil {
			return nil, err
		}
		if !p.isOp(":") {
			if p.isOp(",") || p.isOp("}") {
				return nil, p.errAt(kt, "set literals are not supported")
			}
			return nil, p.errAt(p.tok, "expected ':', found %q", p.tok.text)
		}
		ks, ok := k.(string)
		if !ok {
			return nil, p.errAt(kt, "dict keys must be strings")
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		v, err := p.expr(depth + 1)
		if err != nil {
			return nil, err
		}
		d.Set(ks, v) // a repeated key keeps its first place and its last value, as in Python
		if !p.isOp(",") && !p.isOp("}") {
			return nil, p.errAt(p.tok, "expected ',' or '}', found %q", p.tok.text)
		}
		if err := p.argSep(); err != nil {
			return nil, err
		}
	}
	return d, p.advance()
}

func (p *parser) paren(depth int) (any, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.isOp(")") {
		return Tuple{}, p.advance()
	}
	first, err := p.expr(depth + 1)
	if err != nil {
		return nil, err
	}
	if p.isOp(")") {
		return first, p.advance() // parenthesised expression
	}
	if !p.isOp(",") {
		return nil, p.errAt(p.tok, "expected ',' or ')', found %q", p.tok.text)
	}
	out := Tuple{first}
	if err := p.advance(); err != nil {
		return nil, err
	}
	for !p.isOp(")") {
		v, err := p.expr(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !p.isOp(",") && !p.isOp(")") {
			return nil, p.errAt(p.tok, "expected ',' or ')', found %q", p.tok.text)
		}
		if err := p.argSep(); err != nil {
			return nil, err
		}
	}
	return out, p.advance()
}

// strings reads one or more adjacent string literals (implicit
// concatenation).
func (p *parser) strings() (any, error) {
	var b strings.Builder
	for p.tok.kind == tString {
		s, err := decodeString(p.tok)
		if err != nil {
			return nil, err
		}
		b.WriteString(s)
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return p.stringMethods(b.String())
}

// stringMethods applies the argument-less whitespace methods upstream's
// prompt constants use ("""…""".strip()): strip, lstrip and rstrip, with
// Python's str.isspace notion of whitespace; and str.join of a literal list
// or tuple of strings (a task instruction written as "".join((…))).
func (p *parser) stringMethods(s string) (any, error) {
	for p.isOp(".") {
		save, dot := *p.lx, p.tok
		if err := p.advance(); err != nil {
			return nil, err
		}
		name := p.tok
		var apply func(string, func(rune) bool) string
		switch {
		case name.kind == tName && name.text == "join":
			joined, err := p.join(s)
			if err != nil {
				return nil, err
			}
			s = joined
			continue
		case name.kind == tName && name.text == "strip":
			apply = strings.TrimFunc
		case name.kind == tName && name.text == "lstrip":
			apply = strings.TrimLeftFunc
		case name.kind == tName && name.text == "rstrip":
			apply = strings.TrimRightFunc
		default:
			*p.lx, p.tok = save, dot
			return s, nil
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if err := p.expect("("); err != nil {
			return nil, err
		}
		if !p.isOp(")") {
			return nil, p.errAt(p.tok, "str.%s with arguments is not supported", name.text)
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		s = apply(s, pyjson.IsSpace)
	}
	return s, nil
}

// join parses the argument of sep.join(…) (after the name) and
// joins it: a list or tuple literal of strings, else Python's TypeError.
func (p *parser) join(sep string) (string, error) {
	if err := p.advance(); err != nil {
		return "", err
	}
	if err := p.expect("("); err != nil {
		return "", err
	}
	at := p.tok
	v, err := p.expr(1)
	if err != nil {
		return "", err
	}
	if err := p.expect(")"); err != nil {
		return "", err
	}
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case Tuple:
		items = x
	default:
		return "", p.errAt(at, "str.join of %s (only a list or tuple of strings is supported)", pyjson.TypeName(v))
	}
	parts := make([]string, len(items))
	for i, it := range items {
		str, ok := it.(string)
		if !ok {
			return "", p.errAt(at, "sequence item %d: expected str instance, %s found", i, pyjson.TypeName(it))
		}
		parts[i] = str
	}
	return strings.Join(parts, sep), nil
}

// decodeString evaluates one string literal token.
func decodeString(t token) (string, error) {
	text := t.text
	i := strings.IndexAny(text, `'"`)
	prefix := strings.ToLower(text[:i])
	if strings.Contains(prefix, "b") {
		return "", &Error{t.line, t.col, "bytes literals are not supported"}
	}
	if strings.Contains(prefix, "f") {
		return "", &Error{t.line, t.col, "f-strings are not supported"}
	}
	body := text[i:]
	ql := 1
	if len(body) >= 6 && body[1] == body[0] && body[2] == body[0] {
		ql = 3
	}
	body = body[ql : len(body)-ql]
	if strings.Contains(prefix, "r") {
		return body, nil
	}
	if !strings.Contains(body, `\`) {
		return body, nil
	}
	// Escapes. Position errors at the escape itself.
	line, col := t.line, t.col+i+ql
	var b strings.Builder
	for j := 0; j < len(body); {
		c := body[j]
		if c != '\\' {
			r, n := utf8.DecodeRuneInString(body[j:])
			b.WriteString(body[j : j+n])
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			j += n
			continue
		}
		if j+1 >= len(body) {
			return "", &Error{line, col, "trailing backslash in string"}
		}
		e := body[j+1]
		adv := 2
		switch e {
		case '\n':
			// line continuation inside the string
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := 0
			k := j + 1
			for k < len(body) && k < j+4 && body[k] >= '0' && body[k] <= '7' {
				v = v*8 + int(body[k]-'0')
				k++
			}
			b.WriteRune(rune(v))
			adv = k - j
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if j+2+n > len(body) {
				return "", &Error{line, col, fmt.Sprintf("truncated \\%c escape", e)}
			}
			v, err := strconv.ParseUint(body[j+2:j+2+n], 16, 32)
			if err != nil || strings.ContainsAny(body[j+2:j+2+n], "+-_") {
				return "", &Error{line, col, fmt.Sprintf("truncated \\%c escape", e)}
			}
			if v > utf8.MaxRune {
				return "", &Error{line, col, "illegal Unicode character"}
			}
			if v >= 0xd800 && v < 0xe000 {
				return "", &Error{line, col, "surrogate code points are not supported"}
			}
			b.WriteRune(rune(v))
			adv = 2 + n
		case 'N':
			return "", &Error{line, col, `\N{...} escapes are not supported`}
		default:
			// Unknown escapes keep the backslash (Python warns but accepts).
			b.WriteByte('\\')
			adv = 1
		}
		for k := 0; k < adv; k++ {
			if body[j+k] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		j += adv
	}
	return b.String(), nil
}

// number converts a numeric literal.
func (p *parser) number(t token) (any, error) {
	s := t.text
	bad := func(msg string) error { return &Error{t.line, t.col, msg + ": " + s} }
	if last := s[len(s)-1] | 0x20; last == 'j' {
		return nil, bad("complex literals are not supported")
	}
	if !validUnderscores(s) {
		return nil, bad("invalid decimal literal")
	}
	clean := strings.ReplaceAll(s, "_", "")
	if len(clean) > 1 && clean[0] == '0' {
		base := 0
		switch clean[1] | 0x20 {
		case 'x':
			base = 16
		case 'o':
			base = 8
		case 'b':
			base = 2
		}
		if base != 0 {
			var b big.Int
			if _, ok := b.SetString(clean[2:], base); !ok || len(clean) == 2 {
				return nil, bad("invalid integer literal")
			}
			return json.Number(b.String()), nil
		}
	}
	if !strings.ContainsAny(clean, ".eE") {
		for _, c := range []byte(clean) {
			if !isDigit(c) {
				return nil, bad("invalid decimal literal")
			}
		}
		if clean[0] == '0' && strings.Trim(clean, "0") != "" {
			return nil, bad("leading zeros in decimal integer literals are not permitted")
		}
		var b big.Int
		b.SetString(clean, 10)
		return json.Number(b.String()), nil
	}
	if !validFloat(clean) {
		return nil, bad("invalid decimal literal")
	}
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return f, nil // Python rounds huge literals to inf and tiny ones to 0
		}
		return nil, bad("invalid decimal literal")
	}
	if math.IsNaN(f) {
		return nil, bad("invalid decimal literal")
	}
	return f, nil
}

// validUnderscores: underscores only between digits (or right after a base
// prefix such as 0x).
func validUnderscores(s string) bool {
	digit := isDigit
	if isHexLiteral(s) {
		digit = func(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '_' {
			continue
		}
		if i == 0 || i == len(s)-1 {
			return false
		}
		prev, next := s[i-1], s[i+1]
		prefix := i == 2 && s[0] == '0' && strings.IndexByte("xXoObB", prev) >= 0
		if !(digit(prev) || prefix) || !digit(next) {
			return false
		}
	}
	return true
}

// validFloat checks Python's float literal grammar (underscores removed):
// digits [. [digits]] [exp] | . digits [exp] | digits exp.
func validFloat(s string) bool {
	i := 0
	intDigits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		intDigits++
	}
	frac := 0
	dot := false
	if i < len(s) && s[i] == '.' {
		dot = true
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			frac++
		}
	}
	if intDigits == 0 && frac == 0 {
		return false
	}
	if i < len(s) && (s[i]|0x20) == 'e' {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && isDigit(s[i]) {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	} else if !dot {
		return false
	}
	return i == len(s)
}
