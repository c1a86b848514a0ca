package pyliteral

import (
	"errors"
	"fmt"
	"strings"
)

// Source mode. ReadModule reads the declarations of a Python module without
// running it: functions (top level and methods) with their parameters,
// annotations, defaults, decorators and docstrings; classes with their bases,
// docstrings and class-level attributes (pydantic fields, enum members);
// module-level assignments (type aliases). Expressions are the literal
// subset plus, in source mode only, names (*Name), subscripts (*Subscript)
// and `a | b` (*BitOr) — enough for type annotations and Field(...) calls.
// Statement bodies are tokenized but not interpreted.

// Name is a reference to a possibly dotted name, e.g. str or ToolType.READ.
type Name struct {
	Dotted    string
	Line, Col int
}

// Subscript is X[a, b]: Value is the subscripted expression (a *Name), Index
// the comma-separated items between the brackets.
type Subscript struct {
	Value     any
	Index     []any
	Line, Col int
}

// BitOr is `X | Y`, a union in an annotation.
type BitOr struct{ X, Y any }

// Ellipsis is `...` (pydantic's "required" marker in Field(...)).
type Ellipsis struct{}

// Module is the declarations of one Python module, in source order.
type Module struct {
	Doc     string
	HasDoc  bool
	Funcs   []*Func
	Classes []*Class
	Vars    []*Var
}

// Func is a function or method definition.
type Func struct {
	Name       string
	Decorators []any
	Params     []Param
	Returns    any // the return annotation (nil when absent or None)
	Doc        string
	HasDoc     bool
	Line, Col  int
	// Err is set when the signature uses syntax outside source mode; the
	// other fields may then be incomplete.
	Err error
}

// Param is one parameter of a function.
type Param struct {
	Name string
	// Star is "*" for *args, "**" for **kwargs, "" otherwise.
	Star          string
	Annotation    any
	HasAnnotation bool
	Default       any
	HasDefault    bool
}

// Class is a class definition.
type Class struct {
	Name       string
	Decorators []any
	Bases      []any
	Keywords   *Call // keyword arguments of the class header (metaclass=...), as a call's kwargs
	Doc        string
	HasDoc     bool
	Vars       []*Var // class-level assignments, annotated or not, in order
	Methods    []*Func
	Line, Col  int
}

// Var is an assignment `NAME = value`, `NAME: annotation = value` or a bare
// annotation `NAME: annotation`.
type Var struct {
	Name          string
	Annotation    any
	HasAnnotation bool
	Value         any
	HasValue      bool
	Line, Col     int
	// Err is set when the value (or annotation) is outside source mode.
	Err error
}

// ErrNoSymbol is wrapped when a module has no definition of a name.
var ErrNoSymbol = errors.New("pyliteral: symbol not defined")

// Func finds a function by name ("f") or a method by class and name
// ("Class.method"). As in Python, the last definition wins.
func (m *Module) Func(qual string) (*Func, error) {
	funcs := m.Funcs
	name := qual
	if cls, meth, ok := strings.Cut(qual, "."); ok {
		c := m.Class(cls)
		if c == nil {
			return nil, fmt.Errorf("class %s: %w", cls, ErrNoSymbol)
		}
		funcs, name = c.Methods, meth
	}
	for i := len(funcs) - 1; i >= 0; i-- {
		if funcs[i].Name == name {
			if funcs[i].Err != nil {
				return nil, fmt.Errorf("def %s: %w", qual, funcs[i].Err)
			}
			return funcs[i], nil
		}
	}
	return nil, fmt.Errorf("def %s: %w", qual, ErrNoSymbol)
}

// Class finds a top-level class by name (the last definition), or nil.
func (m *Module) Class(name string) *Class {
	for i := len(m.Classes) - 1; i >= 0; i-- {
		if m.Classes[i].Name == name {
			return m.Classes[i]
		}
	}
	return nil
}

// Var finds a module-level assignment by name (the last one), or nil.
func (m *Module) Var(name string) *Var {
	return lastVar(m.Vars, name)
}

// Var finds a class-level assignment by name (the last one), or nil.
func (c *Class) Var(name string) *Var {
	return lastVar(c.Vars, name)
}

func lastVar(vs []*Var, name string) *Var {
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].Name == name {
			return vs[i]
		}
	}
	return nil
}

// ReadModule reads a module's declarations. Only a lexical error (an
// unterminated string, unbalanced brackets, invalid UTF-8) fails the whole
// module; an expression outside source mode is recorded on the Func or Var
// it belongs to.
func ReadModule(src []byte) (*Module, error) {
	lx, err := newLexer(src)
	if err != nil {
		return nil, err
	}
	p := &parser{lx: lx, refs: true}
	if err := p.advance(); err != nil {
		return nil, err
	}
	m := &Module{}
	err = p.block(0, blockHandler{
		doc:   func(s string) { m.Doc, m.HasDoc = s, true },
		fn:    func(f *Func) { m.Funcs = append(m.Funcs, f) },
		class: func(c *Class) { m.Classes = append(m.Classes, c) },
		v:     func(v *Var) { m.Vars = append(m.Vars, v) },
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

type blockHandler struct {
	doc   func(string)
	fn    func(*Func)
	class func(*Class)
	v     func(*Var)
}

// block reads the statements of a block whose header starts at column
// outer (0 for the module): its statements are the lines indented to the
// column of its first line; deeper lines belong to nested blocks and are
// skipped; the block ends at a line indented to outer or less.
func (p *parser) block(outer int, h blockHandler) error {
	col := 0
	first := true
	var decorators []any
	for p.tok.kind != tEOF {
		t := p.tok
		if t.kind == tNewline { // an empty statement after ';'
			if err := p.advance(); err != nil {
				return err
			}
			continue
		}
		if col == 0 {
			if t.col <= outer {
				return nil
			}
			col = t.col
		}
		if t.col < col {
			return nil
		}
		if t.col > col || !t.startsLine {
			if err := p.skipLine(); err != nil {
				return err
			}
			continue
		}
		isFirst := first
		first = false
		switch {
		case t.kind == tString && isFirst:
			s, ok, err := p.docstring()
			if err != nil {
				return err
			}
			if ok {
				h.doc(s)
			}
			continue
		case t.kind == tOp && t.text == "@":
			if err := p.advance(); err != nil {
				return err
			}
			d, err := p.lenientExpr()
			if err != nil {
				return err
			}
			decorators = append(decorators, d)
			continue
		case t.kind == tName && t.text == "class":
			c, err := p.classDef(decorators)
			decorators = nil
			if err != nil {
				return err
			}
			h.class(c)
			continue
		case t.kind == tName && (t.text == "def" || t.text == "async"):
			f, err := p.funcDef(decorators)
			decorators = nil
			if err != nil {
				return err
			}
			if f != nil {
				h.fn(f)
			}
			continue
		case t.kind == tName && !isKeyword(t.text):
			v, err := p.assignment()
			if err != nil {
				return err
			}
			if v != nil {
				h.v(v)
			}
			continue
		}
		decorators = nil
		if err := p.skipLine(); err != nil {
			return err
		}
	}
	return nil
}

// isKeyword reports whether a name is one of Python's reserved words.
func isKeyword(s string) bool {
	switch s {
	case "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
		"def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
		"is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield":
		return true
	}
	return false
}

// skipLine moves past the end of the current logical line.
func (p *parser) skipLine() error {
	for p.tok.kind != tNewline && p.tok.kind != tEOF {
		if err := p.advance(); err != nil {
			return err
		}
	}
	if p.tok.kind == tNewline {
		return p.advance()
	}
	return nil
}

// lexical reports whether err came from the lexer (fatal for the module)
// rather than from an expression outside the subset.
func (p *parser) lexical() error {
	// A lexer error repeats at the same position; probe a copy.
	probe := *p.lx
	if _, err := probe.next(); err != nil {
		return err
	}
	return nil
}

// lenientExpr parses an expression up to the end of the line; an
// expression outside source mode yields a nil value and its error is
// dropped, unless it is lexical.
func (p *parser) lenientExpr() (any, error) {
	v, err := p.expr(0)
	if err == nil && p.tok.kind != tNewline && p.tok.kind != tEOF {
		err = p.errAt(p.tok, "unexpected %q", p.tok.text)
	}
	if err != nil {
		if lerr := p.lexical(); lerr != nil {
			return nil, lerr
		}
		v = nil
	}
	return v, p.skipLine()
}

// docstring reads a statement that starts with a string: a docstring when
// it is a plain (not bytes, not f-) string expression on its own.
func (p *parser) docstring() (string, bool, error) {
	plain := true
	var b strings.Builder
	for p.tok.kind == tString {
		prefix := strings.ToLower(p.tok.text[:strings.IndexAny(p.tok.text, `'"`)])
		if strings.ContainsAny(prefix, "bf") {
			plain = false
		} else {
			s, err := decodeString(p.tok)
			if err != nil {
				return "", false, err
			}
			b.WriteString(s)
		}
		if err := p.advance(); err != nil {
			return "", false, err
		}
	}
	ok := plain && (p.tok.kind == tNewline || p.tok.kind == tEOF || p.isOp(";"))
	return b.String(), ok, p.skipLine()
}

// suite reads what follows a compound header's ':' — an indented block, or
// simple statements on the same line — handing a leading docstring to doc.
func (p *parser) suite(outer int, h blockHandler) error {
	if err := p.expect(":"); err != nil {
		return err
	}
	if p.tok.kind != tNewline {
		if p.tok.kind == tString {
			s, ok, err := p.docstring()
			if err == nil && ok {
				h.doc(s)
			}
			return err
		}
		return p.skipLine()
	}
	if err := p.advance(); err != nil {
		return err
	}
	return p.block(outer, h)
}

func (p *parser) classDef(decorators []any) (*Class, error) {
	at := p.tok
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tName {
		return nil, p.unexpected()
	}
	c := &Class{Name: p.tok.text, Decorators: decorators, Line: at.line, Col: at.col}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.isOp("(") {
		v, err := p.call(c.Name, at, 0)
		if err != nil {
			return nil, err
		}
		call := v.(*Call)
		c.Bases, c.Keywords = call.Args, call
	}
	err := p.suite(at.col, blockHandler{
		doc:   func(s string) { c.Doc, c.HasDoc = s, true },
		fn:    func(f *Func) { c.Methods = append(c.Methods, f) },
		class: func(*Class) {},
		v:     func(v *Var) { c.Vars = append(c.Vars, v) },
	})
	return c, err
}

func (p *parser) funcDef(decorators []any) (*Func, error) {
	at := p.tok
	if at.text == "async" {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if !(p.tok.kind == tName && p.tok.text == "def") {
			return nil, p.skipLine() // async for / async with
		}
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tName {
		return nil, p.unexpected()
	}
	f := &Func{Name: p.tok.text, Decorators: decorators, Line: at.line, Col: at.col}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.signature(f); err != nil {
		if lerr := p.lexical(); lerr != nil {
			return nil, lerr
		}
		f.Err = err
		// Skip the rest of the header; the body lines are deeper and the
		// enclosing block skips them.
		return f, p.skipLine()
	}
	err := p.suite(at.col, blockHandler{
		doc:   func(s string) { f.Doc, f.HasDoc = s, true },
		fn:    func(*Func) {},
		class: func(*Class) {},
		v:     func(*Var) {},
	})
	return f, err
}

// signature reads "(params) [-> annotation]" up to the ':'.
func (p *parser) signature(f *Func) error {
	if err := p.expect("("); err != nil {
		return err
	}
	for !p.isOp(")") {
		var prm Param
		switch {
		case p.isOp("/"): // positional-only marker
			if err := p.advance(); err != nil {
				return err
			}
			if err := p.argSep(); err != nil {
				return err
			}
			continue
		case p.isOp("*") || p.isOp("**"):
			prm.Star = p.tok.text
			if err := p.advance(); err != nil {
				return err
			}
			if prm.Star == "*" && (p.isOp(",") || p.isOp(")")) { // keyword-only marker
				if err := p.argSep(); err != nil {
					return err
				}
				continue
			}
		}
		if p.tok.kind != tName {
			return p.unexpected()
		}
		prm.Name = p.tok.text
		if err := p.advance(); err != nil {
			return err
		}
		if p.isOp(":") {
			if err := p.advance(); err != nil {
				return err
			}
			a, err := p.expr(1)
			if err != nil {
				return err
			}
			prm.Annotation, prm.HasAnnotation = a, true
		}
		if p.isOp("=") {
			if err := p.advance(); err != nil {
				return err
			}
			d, err := p.expr(1)
			if err != nil {
				return err
			}
			prm.Default, prm.HasDefault = d, true
		}
		f.Params = append(f.Params, prm)
		if err := p.argSep(); err != nil {
			return err
		}
	}
	if err := p.advance(); err != nil {
		return err
	}
	if p.isOp("->") {
		if err := p.advance(); err != nil {
			return err
		}
		r, err := p.expr(1)
		if err != nil {
			return err
		}
		f.Returns = r
	}
	if !p.isOp(":") {
		return p.errAt(p.tok, "expected ':' after the signature of %s", f.Name)
	}
	return nil
}

// assignment reads a statement starting with a name: an assignment or an
// annotation of that name, or anything else (skipped, nil).
func (p *parser) assignment() (*Var, error) {
	t := p.tok
	if err := p.advance(); err != nil {
		return nil, err
	}
	if !p.isOp(":") && !p.isOp("=") {
		return nil, p.skipLine()
	}
	v := &Var{Name: t.text, Line: t.line, Col: t.col}
	fail := func(err error) (*Var, error) {
		if lerr := p.lexical(); lerr != nil {
			return nil, lerr
		}
		v.Err = err
		return v, p.skipLine()
	}
	if p.isOp(":") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		a, err := p.expr(0)
		if err != nil {
			return fail(err)
		}
		v.Annotation, v.HasAnnotation = a, true
	}
	if p.isOp("=") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		x, err := p.expr(0)
		if err != nil {
			return fail(err)
		}
		v.Value, v.HasValue = x, true
	}
	if err := p.endOfStatement(); err != nil {
		return fail(err)
	}
	return v, p.skipLine()
}

// ref finishes a name in source mode: a *Name, or a *Subscript when
// brackets follow.
func (p *parser) ref(dotted string, at token, depth int) (any, error) {
	n := &Name{Dotted: dotted, Line: at.line, Col: at.col}
	if !p.isOp("[") {
		return n, nil
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	s := &Subscript{Value: n, Line: at.line, Col: at.col}
	for !p.isOp("]") {
		v, err := p.expr(depth + 1)
		if err != nil {
			return nil, err
		}
		s.Index = append(s.Index, v)
		if err := p.argSep(); err != nil {
			return nil, err
		}
	}
	return s, p.advance()
}
