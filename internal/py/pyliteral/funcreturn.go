package pyliteral

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
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
	// "return" in a return statement, or "" otherwise.
	Target string
	// Value is the decoded string. For an f-string it is the template
	// with escapes decoded and replacement fields kept as "{name}";
	// Fields lists the field names in order.
	Value   string
	FString bool
	Fields  []string
	Line    int
}

// FuncStrings lists, in source order, the string literals in the body of
// method fn of class class (class "" for a module-level function), with the
// statement each belongs to: upstream builds some prompts in code (an
// f-string template filled from local variables), and the prompt text is
// these literals. Adjacent literals are joined as Python does. f-string
// fields must be plain names (no expressions, conversions or format specs).
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
			case t.kind == tName && t.text == "return":
				target = "return"
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
	var b strings.Builder
	for p.tok.kind == tString && (b.Len() == 0 || !p.tok.startsLine) {
		t := p.tok
		i := strings.IndexAny(t.text, `'"`)
		if strings.Contains(strings.ToLower(t.text[:i]), "f") {
			plain := t
			plain.text = strings.NewReplacer("f", "", "F", "").Replace(t.text[:i]) + t.text[i:]
			s, err := decodeString(plain)
			if err != nil {
				return lit, err
			}
			fields, err := fstringFields(s)
			if err != nil {
				return lit, &Error{t.line, t.col, err.Error()}
			}
			lit.FString = true
			lit.Fields = append(lit.Fields, fields...)
			b.WriteString(s)
		} else {
			s, err := decodeString(t)
			if err != nil {
				return lit, err
			}
			if lit.FString {
				// Literal text joined to an f-string keeps its braces.
				s = strings.NewReplacer("{", "{{", "}", "}}").Replace(s)
			}
			b.WriteString(s)
		}
		if err := p.advance(); err != nil {
			return lit, err
		}
	}
	lit.Value = b.String()
	return lit, nil
}

// fstringFields lists the replacement fields of an f-string body; each must
// be a plain name or a dotted attribute of one (self.x).
func fstringFields(s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if i+1 < len(s) && s[i+1] == '{' {
				i++
				continue
			}
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				return nil, errors.New("f-string: unclosed '{'")
			}
			name := s[i+1 : i+j]
			for _, part := range strings.Split(name, ".") { // a name or an attribute (self.x)
				for k, r := range part {
					if !(r == '_' || unicode.IsLetter(r) || (k > 0 && unicode.IsDigit(r))) {
						return nil, fmt.Errorf("f-string field {%s} is not a plain name", name)
					}
				}
				if part == "" && name != "" {
					return nil, fmt.Errorf("f-string field {%s} is not a plain name", name)
				}
			}
			if name == "" {
				return nil, errors.New("f-string: empty field")
			}
			out = append(out, name)
			i += j
		case '}':
			if i+1 < len(s) && s[i+1] == '}' {
				i++
				continue
			}
			return nil, errors.New("f-string: single '}'")
		}
	}
	return out, nil
}

// Fill returns an f-string template (StringLit.Value) with each field
// replaced by values[name] and doubled braces undoubled; a field without a
// value is an error.
func Fill(template string, values map[string]string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(template); i++ {
		c := template[i]
		switch {
		case c == '{' && i+1 < len(template) && template[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(template) && template[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			j := strings.IndexByte(template[i:], '}')
			if j < 0 {
				return "", errors.New("f-string: unclosed '{'")
			}
			name := template[i+1 : i+j]
			v, ok := values[name]
			if !ok {
				return "", fmt.Errorf("f-string field {%s} has no value", name)
			}
			b.WriteString(v)
			i += j
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
