package pyliteral

import (
	"errors"
	"fmt"
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
	lx, err := newLexer(src)
	if err != nil {
		return nil, err
	}
	p := &parser{lx: lx}
	if err := p.advance(); err != nil {
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
			v, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			if err := p.endOfStatement(); err != nil {
				return nil, err
			}
			return &Return{Func: name, Value: v, Line: t.line, Col: t.col}, nil
		}
	}
}
