package pycalc

import (
	"fmt"
	"strings"
)

type tokKind uint8

const (
	tNum tokKind = iota
	tOp
	tEnd
	tErr // a tokenizer error: raised when the parser reads this token
)

type token struct {
	kind tokKind
	text string
	err  error // for tErr
	// level is the parenthesis depth after the token, as CPython's
	// tokenizer records it.
	level int
}

// maxParens is the tokenizer's limit on open parentheses.
const maxParens = 200

func syntaxError(msg string, line int) *Error {
	return &Error{Type: "SyntaxError", Msg: fmt.Sprintf("%s (<string>, line %d)", msg, line)}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// tokenize splits src as CPython's tokenizer does. Its errors end the list
// with a tErr token: CPython reads tokens as the parser asks for them, so
// an error only counts where the parser gets that far (or after a syntax
// error, when CPython reads the rest of the line to look for one).
func tokenize(src string) []token {
	toks := make([]token, 0, len(src)+1)
	level := 0
	bad := func(msg string) []token {
		return append(toks, token{kind: tErr, err: syntaxError(msg, 1), level: level})
	}
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
			intPart := src[i:j]
			if j < len(src) && src[j] == '.' {
				j++
				for j < len(src) && isDigit(src[j]) {
					j++
				}
			} else if len(intPart) > 1 && intPart[0] == '0' && strings.Trim(intPart, "0") != "" {
				return bad("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers")
			}
			toks = append(toks, token{kind: tNum, text: src[i:j], level: level})
			i = j
		case strings.HasPrefix(src[i:], "..."):
			toks = append(toks, token{kind: tOp, text: "...", level: level})
			i += 3
		case strings.HasPrefix(src[i:], "**"), strings.HasPrefix(src[i:], "//"):
			toks = append(toks, token{kind: tOp, text: src[i : i+2], level: level})
			i += 2
		case c == '(':
			if level >= maxParens {
				return bad("too many nested parentheses")
			}
			level++
			toks = append(toks, token{kind: tOp, text: "(", level: level})
			i++
		case c == ')':
			if level == 0 {
				return bad("unmatched ')'")
			}
			level--
			toks = append(toks, token{kind: tOp, text: ")", level: level})
			i++
		default: // + - * / % .
			toks = append(toks, token{kind: tOp, text: src[i : i+1], level: level})
			i++
		}
	}
	return append(toks, token{kind: tEnd, level: level})
}
