package pyliteral

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Error is a syntax error, or a construct outside the literal subset, at a
// position of the source (line and column count from 1; columns count
// characters, not bytes).
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg) }

type kind uint8

const (
	tEOF     kind = iota
	tNewline      // end of a logical line at bracket depth 0
	tName
	tNumber
	tString
	tOp
)

// token is one lexical token. For strings, text is the source spelling
// (prefix and quotes included); the value is decoded on demand.
type token struct {
	kind      kind
	text      string
	line, col int
	// startsLine is set on the first token of a logical line.
	startsLine bool
}

// lexer splits Python source into tokens. It knows enough Python to skip
// code that is not a literal (imports, functions, f-strings) without
// misreading it: strings, comments, line continuations and brackets.
type lexer struct {
	src       string
	pos       int
	line, col int
	depth     int
	lineStart bool // next token starts a logical line
}

func newLexer(src []byte) (*lexer, error) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(src) {
		line, col := 1, 1
		for i := 0; i < len(src); {
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n == 1 {
				return nil, &Error{line, col, "invalid UTF-8"}
			}
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			i += n
		}
	}
	// Universal newlines, as Python reads source files.
	s := strings.ReplaceAll(string(src), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return &lexer{src: s, line: 1, col: 1, lineStart: true}, nil
}

func (l *lexer) errf(line, col int, format string, args ...any) error {
	return &Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// advance moves over n bytes, keeping line and column (in characters).
func (l *lexer) advance(n int) {
	end := l.pos + n
	for l.pos < end {
		switch c := l.src[l.pos]; {
		case c == '\n':
			l.pos++
			l.line++
			l.col = 1
		case c < utf8.RuneSelf:
			l.pos++
			l.col++
		default:
			_, size := utf8.DecodeRuneInString(l.src[l.pos:])
			l.pos += size
			l.col++
		}
	}
}

func (l *lexer) peekByte(off int) byte {
	if l.pos+off < len(l.src) {
		return l.src[l.pos+off]
	}
	return 0
}

// next returns the next token.
func (l *lexer) next() (token, error) {
	for {
		if l.pos >= len(l.src) {
			if l.depth > 0 {
				return token{}, l.errf(l.line, l.col, "unexpected end of file: unclosed bracket")
			}
			return token{kind: tEOF, line: l.line, col: l.col}, nil
		}
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			j := l.pos + 1
			for j < len(l.src) && (l.src[j] == ' ' || l.src[j] == '\t' || l.src[j] == '\f') {
				j++
			}
			l.col += j - l.pos
			l.pos = j
			continue
		case c == '#':
			n := strings.IndexByte(l.src[l.pos:], '\n')
			if n < 0 {
				n = len(l.src) - l.pos
			}
			l.col += utf8.RuneCountInString(l.src[l.pos : l.pos+n])
			l.pos += n
			continue
		case c == '\\':
			if l.peekByte(1) == '\n' {
				l.advance(2)
				continue
			}
			return token{}, l.errf(l.line, l.col, "unexpected character after line continuation character")
		case c == '\n':
			line, col := l.line, l.col
			l.advance(1)
			atLine := l.lineStart
			if l.depth == 0 {
				l.lineStart = true
				if !atLine {
					return token{kind: tNewline, line: line, col: col}, nil
				}
			}
			continue
		}
		tok, err := l.scan()
		if err != nil {
			return token{}, err
		}
		if l.lineStart {
			tok.startsLine = true
			l.lineStart = false
		}
		return tok, nil
	}
}

func isIdentStart(r rune) bool {
	return r == '_' || unicode.IsLetter(r)
}

func isIdentPart(r rune) bool {
	return isIdentStart(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// asciiIdent marks the ASCII bytes of identifiers: letters, digits and _.
var asciiIdent = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return t
}()

// scan reads one non-space token at the current position.
func (l *lexer) scan() (token, error) {
	line, col, start := l.line, l.col, l.pos
	r, size := rune(l.src[l.pos]), 1
	if r >= utf8.RuneSelf {
		r, size = utf8.DecodeRuneInString(l.src[l.pos:])
	}
	switch {
	case isIdentStart(r):
		end := l.pos + size
		for end < len(l.src) {
			if c := l.src[end]; c < utf8.RuneSelf {
				if !asciiIdent[c] {
					break
				}
				end++
				continue
			}
			r2, s2 := utf8.DecodeRuneInString(l.src[end:])
			if !isIdentPart(r2) {
				break
			}
			end += s2
		}
		if end < len(l.src) && (l.src[end] == '\'' || l.src[end] == '"') && isStringPrefix(l.src[start:end]) {
			return l.scanString(start, end-start, line, col)
		}
		l.advance(end - l.pos)
		return token{kind: tName, text: l.src[start:end], line: line, col: col}, nil
	case r == '\'' || r == '"':
		return l.scanString(start, 0, line, col)
	case r < utf8.RuneSelf && (isDigit(byte(r)) || (r == '.' && isDigit(l.peekByte(1)))):
		return l.scanNumber(line, col)
	}
	// Operators: the longest of the three-, two- and one-character ones
	// (only these characters start one of more than one).
	if strings.ContainsRune("*/><.-:=!+%&|^@", r) {
		if n := opLen(l.src[l.pos:]); n > 1 {
			l.advance(n)
			return token{kind: tOp, text: l.src[start:l.pos], line: line, col: col}, nil
		}
	}
	switch r {
	case '(', '[', '{':
		l.depth++
	case ')', ']', '}':
		if l.depth == 0 {
			return token{}, l.errf(line, col, "unmatched '%c'", r)
		}
		l.depth--
	}
	l.advance(size)
	return token{kind: tOp, text: l.src[start:l.pos], line: line, col: col}, nil
}

// opLen is the length of the operator s starts with, the longest of
// Python's: ** // >> << with or without =, ..., the two-character ones
// (-> := == != <= >= and the augmented assignments), else one.
func opLen(s string) int {
	if len(s) < 2 {
		return 1
	}
	switch s[:2] {
	case "**", "//", ">>", "<<":
		if len(s) > 2 && s[2] == '=' {
			return 3
		}
		return 2
	case "..":
		if len(s) > 2 && s[2] == '.' {
			return 3
		}
	case "->", ":=", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=":
		return 2
	}
	return 1
}

func isStringPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf":
		return true
	}
	return false
}

// scanString reads a string literal whose prefix has plen bytes.
func (l *lexer) scanString(start, plen int, line, col int) (token, error) {
	i := start + plen
	q := l.src[i]
	triple := i+2 < len(l.src) && l.src[i+1] == q && l.src[i+2] == q
	quote := l.src[i : i+1]
	if triple {
		quote = l.src[i : i+3]
	}
	i += len(quote)
	for {
		if i >= len(l.src) {
			if triple {
				return token{}, l.errf(line, col, "unterminated triple-quoted string literal")
			}
			return token{}, l.errf(line, col, "unterminated string literal")
		}
		c := l.src[i]
		switch {
		case c == '\\':
			i += 2 // the escaped character never ends the string, raw or not
			continue
		case c == '\n' && !triple:
			return token{}, l.errf(line, col, "unterminated string literal")
		case c == q && strings.HasPrefix(l.src[i:], quote):
			i += len(quote)
			text := l.src[start:i]
			l.advance(i - l.pos)
			return token{kind: tString, text: text, line: line, col: col}, nil
		}
		i++
	}
}

// scanNumber reads a numeric literal (its validity is checked when it is
// converted to a value).
func (l *lexer) scanNumber(line, col int) (token, error) {
	i := l.pos
	s := l.src
	isAlnum := func(c byte) bool {
		return isDigit(c) || c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')
	}
	for i < len(s) {
		c := s[i]
		switch {
		case isAlnum(c):
			if (c|0x20 == 'e') && i+1 < len(s) && (s[i+1] == '+' || s[i+1] == '-') && !isHexLiteral(s[l.pos:i]) {
				i += 2
				continue
			}
			i++
		case c == '.':
			i++
		default:
			goto done
		}
	}
done:
	text := s[l.pos:i]
	l.advance(i - l.pos)
	return token{kind: tNumber, text: text, line: line, col: col}, nil
}

func isHexLiteral(s string) bool {
	return len(s) >= 2 && s[0] == '0' && (s[1]|0x20 == 'x')
}
