package pyliteral

import (
	"errors"
	"fmt"
	"strings"
)

// Return is the literal returned by a function found by FuncReturn.
type Return struct {
	Func  string
	Value any
	// Line and Col locate the return statement.
	Line, Col int
}

// ErrNoFunction is wrapped when the module defines no function of the name.
var ErrNoFunction = errors.New("pyliteral: no such function")

// FuncReturn finds the function or method `def name(...)` of a Python module
// (at any indentation: τ-Trait's tools define get_info as a static method)
// and parses the value of its first return statement, which must be a
// literal. The rest of the module is tokenized but not interpreted. A
// module that defines name more than once, or a function without a return
// before the next def, is an error; no definition wraps ErrNoFunction.
func FuncReturn(src []byte, name string) (*Return, error) {
	p, err := newParser(src)
	if err != nil {
		return nil, err
	}
	var found *Return
	defLine := 0
	for p.tok.kind != tEOF {
		t := p.tok
		if !(t.kind == tName && t.startsLine && t.text == "def") {
			if err := p.advance(); err != nil {
				return nil, err
			}
			continue
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind != tName || p.tok.text != name {
			continue
		}
		if found != nil || defLine != 0 {
			return nil, &Error{t.line, t.col, fmt.Sprintf("%s is defined more than once (first at line %d)", name, defLine)}
		}
		defLine = t.line
		r, err := p.firstReturn(name, t)
		if err != nil {
			return nil, err
		}
		found = r
	}
	if found == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoFunction, name)
	}
	return found, nil
}

// firstReturn skips the function's signature and body up to its first
// return statement and parses the returned literal.
func (p *parser) firstReturn(name string, def token) (*Return, error) {
	for {
		if err := p.advance(); err != nil {
			return nil, err
		}
		t := p.tok
		switch {
		case t.kind == tEOF:
			return nil, &Error{def.line, def.col, fmt.Sprintf("function %s has no return statement", name)}
		case t.kind == tName && t.startsLine && t.text == "def":
			return nil, &Error{def.line, def.col, fmt.Sprintf("function %s has no return statement before the next def (line %d)", name, t.line)}
		case t.kind == tName && t.startsLine && t.text == "return":
			if err := p.advance(); err != nil {
				return nil, err
			}
			v, err := p.statementValue()
			if err != nil {
				return nil, err
			}
			return &Return{Func: name, Value: v, Line: t.line, Col: t.col}, nil
		}
	}
}

// StringLit is a string literal of a function body (see FuncStrings).
type StringLit struct {
	// Target is the name the literal's statement assigns ("x = ..."),
	// "return" in a return statement, "raise" in a raise statement, or ""
	// otherwise.
	Target string
	// Value is the decoded string. For an f-string it is the template
	// with escapes decoded, literal braces doubled and replacement fields
	// kept as written ("{name}", "{amount:.2f}"); Fields lists the fields'
	// expressions in order.
	Value   string
	FString bool
	Fields  []string
	// Parts is the text around the fields (braces undoubled):
	// Parts[0], field 0, Parts[1], …; len(Parts) = len(Fields)+1.
	// Specs gives each field's conversion and format spec.
	Parts []string
	Specs []Field
	Line  int
}

// Field is one replacement field of an f-string.
type Field struct {
	Expr string // the expression as written, surrounding blanks trimmed
	Conv byte   // 'r', 's' or 'a' for !r, !s, !a; 0 for none
	Spec string // the format spec after ':' as written ("" for none)
}

// Template is the literal as an FString: its parts and field expressions,
// for Format by field name.
func (l StringLit) Template() FString {
	if len(l.Parts) == 0 {
		return FString{Parts: []string{l.Value}}
	}
	return FString{Parts: l.Parts, Fields: l.Fields}
}

// Render is the literal with each field replaced by the text of the value
// in the same position (as Python has formatted it).
func (l StringLit) Render(values ...string) (string, error) {
	if len(values) != len(l.Fields) {
		return "", fmt.Errorf("f-string has %d fields, %d values given", len(l.Fields), len(values))
	}
	if len(l.Parts) == 0 {
		return l.Value, nil
	}
	var b strings.Builder
	for i, p := range l.Parts {
		b.WriteString(p)
		if i < len(values) {
			b.WriteString(values[i])
		}
	}
	return b.String(), nil
}

// FuncStrings lists, in source order, the string literals in the body of
// method fn of class class (class "" for a module-level function), with the
// statement each belongs to: upstream builds some prompts and tool outputs
// in code (f-string templates filled from local values), and their text is
// these literals. Adjacent literals are joined as Python does, also across
// lines inside brackets. f-string fields may be any expression (nested
// brackets and strings included), with a conversion and a format spec;
// a string literal inside a field's expression is part of the field, not
// a literal of the list.
func FuncStrings(src []byte, class, fn string) ([]StringLit, error) {
	p, err := newParser(src)
	if err != nil {
		return nil, err
	}
	inClass := class == ""
	for p.tok.kind != tEOF {
		t := p.tok
		if t.startsLine && t.col == 1 && class != "" {
			inClass = false
			if t.kind == tName && t.text == "class" {
				if err := p.advance(); err != nil {
					return nil, err
				}
				inClass = p.tok.kind == tName && p.tok.text == class
				continue
			}
		}
		if inClass && t.kind == tName && t.startsLine && t.text == "def" {
			if err := p.advance(); err != nil {
				return nil, err
			}
			if p.tok.kind == tName && p.tok.text == fn {
				return p.bodyStrings(t.col)
			}
			continue
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	where := fn
	if class != "" {
		where = class + "." + fn
	}
	return nil, fmt.Errorf("%w: %s", ErrNoFunction, where)
}

// AllFuncStrings is FuncStrings for every function of a module in one
// pass: module-level functions under their name, methods under
// "Class.method" (nested functions belong to the function they are in).
// A name defined twice keeps its last definition, as Python does.
func AllFuncStrings(src []byte) (map[string][]StringLit, error) {
	p, err := newParser(src)
	if err != nil {
		return nil, err
	}
	out := map[string][]StringLit{}
	class, classCol := "", 0
	for p.tok.kind != tEOF {
		t := p.tok
		if t.startsLine && class != "" && t.col <= classCol {
			class = ""
		}
		if !(t.kind == tName && t.startsLine && (t.text == "class" || t.text == "def")) {
			if err := p.advance(); err != nil {
				return nil, err
			}
			continue
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind != tName {
			continue
		}
		name := p.tok.text
		if t.text == "class" {
			if class == "" {
				class, classCol = name, t.col
			}
			continue
		}
		if class != "" {
			name = class + "." + name
		}
		lits, err := p.bodyStrings(t.col)
		if err != nil {
			return nil, err
		}
		out[name] = lits
	}
	return out, nil
}

// bodyStrings collects the string literals of a function whose def is at
// column col, up to the first statement at that column or less.
func (p *parser) bodyStrings(col int) ([]StringLit, error) {
	var out []StringLit
	target := ""
	if err := p.advance(); err != nil {
		return nil, err
	}
	for !p.tok.startsLine && p.tok.kind != tEOF { // the rest of the def line
		if p.tok.kind == tString {
			break
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	for p.tok.kind != tEOF {
		t := p.tok
		if t.startsLine {
			if t.col <= col {
				return out, nil
			}
			target = ""
			switch {
			case t.kind == tName && (t.text == "return" || t.text == "raise"):
				target = t.text
			case t.kind == tName:
				if err := p.advance(); err != nil {
					return nil, err
				}
				if p.isOp("=") {
					target = t.text
				}
				continue // look at the token after the name
			}
		}
		if t.kind == tString {
			lit, err := p.stringLit()
			if err != nil {
				return nil, err
			}
			lit.Target = target
			out = append(out, lit)
			continue
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stringLit reads adjacent string literals (f-strings as templates).
func (p *parser) stringLit() (StringLit, error) {
	lit := StringLit{Line: p.tok.line}
	parts := []string{""}
	var raw []string // the fields as written, for Value
	for first := true; p.tok.kind == tString && (first || !p.tok.startsLine); first = false {
		t := p.tok
		i := strings.IndexAny(t.text, `'"`)
		if strings.Contains(strings.ToLower(t.text[:i]), "f") {
			plain := t
			plain.text = withoutF(t.text[:i]) + t.text[i:]
			s, err := decodeString(plain)
			if err != nil {
				return lit, err
			}
			ps, fs, rs, err := scanFString(s)
			if err != nil {
				return lit, &Error{t.line, t.col, err.Error()}
			}
			lit.FString = true
			parts[len(parts)-1] += ps[0]
			parts = append(parts, ps[1:]...)
			for _, f := range fs {
				lit.Fields = append(lit.Fields, f.Expr)
			}
			lit.Specs = append(lit.Specs, fs...)
			raw = append(raw, rs...)
		} else {
			s, err := decodeString(t)
			if err != nil {
				return lit, err
			}
			parts[len(parts)-1] += s
		}
		if err := p.advance(); err != nil {
			return lit, err
		}
	}
	if !lit.FString {
		lit.Value = parts[0]
		return lit, nil
	}
	lit.Parts = parts
	var b strings.Builder
	for i, part := range parts {
		b.WriteString(braceEscaper.Replace(part))
		if i < len(raw) {
			b.WriteString("{" + raw[i] + "}")
		}
	}
	lit.Value = b.String()
	return lit, nil
}

// braceEscaper doubles braces (literal text in an f-string template).
var braceEscaper = strings.NewReplacer("{", "{{", "}", "}}")

// withoutF is a string prefix without its f (rf"…" → r).
func withoutF(prefix string) string {
	out := make([]byte, 0, len(prefix))
	for i := 0; i < len(prefix); i++ {
		if prefix[i] != 'f' && prefix[i] != 'F' {
			out = append(out, prefix[i])
		}
	}
	return string(out)
}

// scanFString splits a decoded f-string body into its literal parts
// (braces undoubled) and replacement fields, with each field's text as
// written between its braces. A field's expression ends at the first ':',
// '!' (not '!=') or '}' outside brackets and strings; a format spec may
// hold nested fields ({x:{w}}), kept in its text.
func scanFString(s string) (parts []string, fields []Field, raw []string, err error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '}':
			return nil, nil, nil, errors.New("f-string: single '}' is not allowed")
		case c == '{':
			f, n, err := scanField(s[i+1:])
			if err != nil {
				return nil, nil, nil, err
			}
			parts = append(parts, b.String())
			b.Reset()
			fields = append(fields, f)
			raw = append(raw, s[i+1:i+1+n])
			i += n + 1 // the closing brace
		default:
			b.WriteByte(c)
		}
	}
	return append(parts, b.String()), fields, raw, nil
}

// scanField reads one replacement field from just after its '{'; n is the
// length of its text, up to (not including) the closing '}'.
func scanField(s string) (f Field, n int, err error) {
	depth := 0
	var quote byte
	end := -1 // end of the expression
	i := 0
scan:
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'':
			quote = c
		case c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case (c == ')' || c == ']') && depth > 0:
			depth--
		case c == '}' && depth > 0:
			depth--
		case depth > 0:
		case c == '}':
			end = i
			break scan
		case c == '!' && i+1 < len(s) && s[i+1] != '=':
			end = i
			break scan
		case c == ':':
			end = i
			break scan
		case c == '=' && i+1 < len(s) && (s[i+1] == '}' || s[i+1] == '!' || s[i+1] == ':') &&
			(i == 0 || !strings.ContainsRune("=!<>", rune(s[i-1]))):
			return f, 0, errors.New("f-string: self-documenting fields ({x=}) are not supported")
		}
	}
	if end < 0 {
		return f, 0, errors.New("f-string: expecting '}'")
	}
	f.Expr = strings.TrimSpace(s[:end])
	if f.Expr == "" {
		return f, 0, errors.New("f-string: empty expression not allowed")
	}
	i = end
	if s[i] == '!' {
		if i+2 >= len(s) || !strings.ContainsRune("rsa", rune(s[i+1])) || (s[i+2] != ':' && s[i+2] != '}') {
			return f, 0, errors.New("f-string: invalid conversion character: expected 's', 'r', or 'a'")
		}
		f.Conv = s[i+1]
		i += 2
	}
	if s[i] == ':' {
		start := i + 1
		nest := 0
		for i = start; i < len(s); i++ {
			if s[i] == '{' {
				nest++
			} else if s[i] == '}' {
				if nest == 0 {
					break
				}
				nest--
			}
		}
		if i >= len(s) {
			return f, 0, errors.New("f-string: expecting '}'")
		}
		f.Spec = s[start:i]
	}
	return f, i, nil
}
