package pyliteral

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrNoLocal is wrapped when a function or its local assignment is missing.
var ErrNoLocal = errors.New("pyliteral: no matching local assignment")

// FString is a string literal read as a template: Parts and Fields
// alternate (Parts[0], Fields[0], Parts[1], …; len(Parts) = len(Fields)+1).
// A plain string has one part and no fields. Only fields that are a bare
// name are accepted ({name}, not {name!r} or {name:>4}), and {{ }} are
// literal braces, as in Python's f-strings and str.format.
type FString struct {
	Parts  []string
	Fields []string
}

// Format substitutes values (name → text) for the fields. A field without a
// value is an error.
func (f FString) Format(values map[string]string) (string, error) {
	var b strings.Builder
	for i, p := range f.Parts {
		b.WriteString(p)
		if i < len(f.Fields) {
			v, ok := values[f.Fields[i]]
			if !ok {
				return "", fmt.Errorf("no value for field {%s}", f.Fields[i])
			}
			b.WriteString(v)
		}
	}
	return b.String(), nil
}

// Check reports a field that is not one of names (str.format would raise
// a KeyError for it).
func (f FString) Check(names ...string) error {
	for _, n := range f.Fields {
		if !slices.Contains(names, n) {
			return fmt.Errorf("unexpected field {%s} (want %s)", n, strings.Join(names, ", "))
		}
	}
	return nil
}

// StringAssignment is the value of the module-level assignment to name,
// which must be a string (literals, implicit concatenation, .strip()).
func StringAssignment(src []byte, name string) (string, error) {
	a, err := Assignment(src, func(n string) bool { return n == name })
	if err != nil {
		return "", err
	}
	s, ok := a.Value.(string)
	if !ok {
		return "", &Error{a.Line, a.Col, name + " is not a string"}
	}
	return s, nil
}

// ParseTemplate splits the text of a format string into parts and fields
// (see FString).
func ParseTemplate(s string) (FString, error) {
	var f FString
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
		case c == '{':
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				return FString{}, fmt.Errorf("unclosed '{' at offset %d", i)
			}
			name := s[i+1 : i+j]
			if !isIdentifier(name) {
				return FString{}, fmt.Errorf("field {%s} at offset %d is not a bare name", name, i)
			}
			f.Parts = append(f.Parts, b.String())
			f.Fields = append(f.Fields, name)
			b.Reset()
			i += j
		case c == '}':
			return FString{}, fmt.Errorf("single '}' at offset %d", i)
		default:
			b.WriteByte(c)
		}
	}
	f.Parts = append(f.Parts, b.String())
	return f, nil
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(isIdentStart(r) || i > 0 && isIdentPart(r)) {
			return false
		}
	}
	return true
}

// LocalString finds the assignment `name = <string>` inside the body of the
// function (or method) fn, at any depth of that body, and returns the
// string: plain literals as their value (one part), f-strings as their
// template. The value must be exactly one string literal. A missing
// function or assignment wraps ErrNoLocal; two assignments to name in the
// body are an error.
func LocalString(src []byte, fn, name string) (FString, error) {
	var out FString
	err := local(src, fn, name, func(p *parser) error {
		if p.tok.kind != tString {
			return p.errAt(p.tok, "%s: expected a string literal", name)
		}
		s := p.tok
		if err := p.advance(); err != nil {
			return err
		}
		if err := p.endOfStatement(); err != nil {
			return err
		}
		var err error
		out, err = stringTemplate(s)
		return err
	})
	return out, err
}

// LocalLiteral finds the assignment `name = <literal>` inside the body of
// the function (or method) fn, as LocalString does, and returns the value
// as ParseExpr would (calls such as `x.get("a", 0)` inside it are Calls).
func LocalLiteral(src []byte, fn, name string) (any, error) {
	out, err := LocalLiterals(src, [][2]string{{fn, name}})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// LocalLiterals is LocalLiteral for several (function, name) pairs, read
// in one pass over the source.
func LocalLiterals(src []byte, want [][2]string) ([]any, error) {
	p, err := newParser(src)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(want))
	found := make([]bool, len(want))
	seenDef := make([]bool, len(want))
	defCol := 0
	fn := ""
	for p.tok.kind != tEOF {
		t := p.tok
		if t.startsLine && defCol > 0 && t.col <= defCol {
			defCol, fn = 0, ""
		}
		if t.startsLine && t.kind == tName && t.text == "def" && defCol == 0 {
			if err := p.advance(); err != nil {
				return nil, err
			}
			if p.tok.kind == tName {
				for i, w := range want {
					if w[0] == p.tok.text {
						defCol, fn, seenDef[i] = t.col, w[0], true
					}
				}
			}
			continue
		}
		i := -1
		if defCol > 0 && t.startsLine && t.kind == tName {
			for j, w := range want {
				if w[0] == fn && w[1] == t.text {
					i = j
				}
			}
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if i < 0 || !p.isOp("=") {
			continue
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if found[i] {
			return nil, &Error{t.line, t.col, fmt.Sprintf("%s is assigned more than once in %s", want[i][1], fn)}
		}
		v, err := p.statementValue()
		if err != nil {
			return nil, err
		}
		out[i], found[i] = v, true
	}
	for i, w := range want {
		switch {
		case !seenDef[i]:
			return nil, fmt.Errorf("function %s: %w", w[0], ErrNoLocal)
		case !found[i]:
			return nil, fmt.Errorf("%s in function %s: %w", w[1], w[0], ErrNoLocal)
		}
	}
	return out, nil
}

// local finds the one assignment to name in fn's body and hands the parser,
// at the assigned value, to value.
func local(src []byte, fn, name string, value func(p *parser) error) error {
	p, err := newParser(src)
	if err != nil {
		return err
	}
	defCol := 0 // column of the matching def; 0 while outside it
	seenDef := false
	var found *token
	for p.tok.kind != tEOF {
		t := p.tok
		if t.startsLine && defCol > 0 && t.col <= defCol {
			defCol = 0
		}
		if t.startsLine && t.kind == tName && t.text == "def" && defCol == 0 {
			if err := p.advance(); err != nil {
				return err
			}
			if p.tok.kind == tName && p.tok.text == fn {
				defCol, seenDef = t.col, true
			}
			continue
		}
		if !(defCol > 0 && t.startsLine && t.kind == tName && t.text == name) {
			if err := p.advance(); err != nil {
				return err
			}
			continue
		}
		if err := p.advance(); err != nil {
			return err
		}
		if !p.isOp("=") {
			continue
		}
		if err := p.advance(); err != nil {
			return err
		}
		if found != nil {
			return &Error{t.line, t.col, fmt.Sprintf("%s is assigned more than once in %s (first at line %d)", name, fn, found.line)}
		}
		found = &t
		if err := value(p); err != nil {
			return err
		}
	}
	switch {
	case !seenDef:
		return fmt.Errorf("function %s: %w", fn, ErrNoLocal)
	case found == nil:
		return fmt.Errorf("%s in function %s: %w", name, fn, ErrNoLocal)
	}
	return nil
}

// stringTemplate reads one string token: an f-string as a template, any
// other string as a single part.
func stringTemplate(t token) (FString, error) {
	i := strings.IndexAny(t.text, `'"`)
	prefix := strings.ToLower(t.text[:i])
	if !strings.Contains(prefix, "f") {
		s, err := decodeString(t)
		if err != nil {
			return FString{}, err
		}
		return FString{Parts: []string{s}}, nil
	}
	plain := t
	plain.text = strings.NewReplacer("f", "", "F", "").Replace(t.text[:i]) + t.text[i:]
	s, err := decodeString(plain)
	if err != nil {
		return FString{}, err
	}
	f, err := ParseTemplate(s)
	if err != nil {
		return FString{}, &Error{t.line, t.col, "f-string: " + err.Error()}
	}
	return f, nil
}

// LocalStrings finds every assignment `name = <string literal>` inside the
// body of fn, in order (assignments of other values are skipped), and
// returns their templates (see LocalString).
func LocalStrings(src []byte, fn, name string) ([]FString, error) {
	var out []FString
	err := locals(src, fn, name, func(p *parser) error {
		if p.tok.kind != tString {
			return nil
		}
		s := p.tok
		if err := p.advance(); err != nil {
			return err
		}
		if p.tok.kind != tNewline && p.tok.kind != tEOF && !p.isOp(";") {
			return nil // a longer expression
		}
		f, err := stringTemplate(s)
		if err != nil {
			return err
		}
		out = append(out, f)
		return nil
	}, true)
	return out, err
}

// ReturnStrings lists the values of fn's return statements that are
// strings (adjacent literals concatenated, parentheses around them
// allowed), in order, as templates (see LocalString).
func ReturnStrings(src []byte, fn string) ([]FString, error) {
	var out []FString
	err := locals(src, fn, "return", func(p *parser) error {
		depth := 0
		for p.isOp("(") {
			depth++
			if err := p.advance(); err != nil {
				return err
			}
		}
		var f FString
		n := 0
		for p.tok.kind == tString {
			g, err := stringTemplate(p.tok)
			if err != nil {
				return err
			}
			f = concatTemplates(f, g, n == 0)
			n++
			if err := p.advance(); err != nil {
				return err
			}
		}
		for depth > 0 && p.isOp(")") {
			depth--
			if err := p.advance(); err != nil {
				return err
			}
		}
		if n > 0 && depth == 0 && (p.tok.kind == tNewline || p.tok.kind == tEOF) {
			out = append(out, f)
		}
		return nil
	}, true)
	return out, err
}

// concatTemplates appends g to f (implicit string concatenation).
func concatTemplates(f, g FString, first bool) FString {
	if first {
		return g
	}
	f.Parts[len(f.Parts)-1] += g.Parts[0]
	f.Parts = append(f.Parts, g.Parts[1:]...)
	f.Fields = append(f.Fields, g.Fields...)
	return f
}

// locals is local for every statement of fn's body that starts with name
// (an assignment `name = …`, or the keyword return when name is
// "return"); value sees the parser after the `=` (after the keyword).
func locals(src []byte, fn, name string, value func(p *parser) error, _ bool) error {
	p, err := newParser(src)
	if err != nil {
		return err
	}
	defCol := 0
	seenDef := false
	for p.tok.kind != tEOF {
		t := p.tok
		if t.startsLine && defCol > 0 && t.col <= defCol {
			defCol = 0
		}
		if t.startsLine && t.kind == tName && t.text == "def" && defCol == 0 {
			if err := p.advance(); err != nil {
				return err
			}
			if p.tok.kind == tName && p.tok.text == fn {
				defCol, seenDef = t.col, true
			}
			continue
		}
		if !(defCol > 0 && t.startsLine && t.kind == tName && t.text == name) {
			if err := p.advance(); err != nil {
				return err
			}
			continue
		}
		if err := p.advance(); err != nil {
			return err
		}
		if name != "return" {
			if !p.isOp("=") {
				continue
			}
			if err := p.advance(); err != nil {
				return err
			}
		}
		if err := value(p); err != nil {
			return err
		}
	}
	if !seenDef {
		return fmt.Errorf("function %s: %w", fn, ErrNoLocal)
	}
	return nil
}
