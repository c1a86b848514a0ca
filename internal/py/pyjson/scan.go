package pyjson

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Object calls fn for each entry of a JSON object, in order, with the key
// and the raw bytes of the value, without decoding the value. It checks the
// object's own structure (string keys, colons, commas, brackets and strings
// balanced inside values, nothing after the object) but not the contents of
// the values: whoever decodes a value validates it. A null is an empty
// object. An error returned by fn stops the scan and is returned as is.
//
// Object is how large upstream files (a 7 MB db.json, a 14 MB tasks.json)
// are split into records cheaply so that only the records a job uses are
// decoded.
func Object(data []byte, fn func(key string, value []byte) error) error {
	end, err := scanObject(data, skipSpace(data, 0), func(key string, i int) (int, error) {
		end, err := skipValue(data, i)
		if err != nil {
			return 0, fmt.Errorf("key %q: %w", key, err)
		}
		return end, fn(key, data[i:end])
	})
	if err != nil {
		return err
	}
	return trailing(data, end)
}

// Tables splits an object of objects (a database of tables of records) in
// one pass: fn is called for each record with its table's key, its own key
// and its raw bytes. A table that is not an object is an error naming it.
func Tables(data []byte, fn func(table, key string, value []byte) error) error {
	end, err := scanObject(data, skipSpace(data, 0), func(table string, i int) (int, error) {
		end, err := scanObject(data, i, func(key string, j int) (int, error) {
			end, err := skipValue(data, j)
			if err != nil {
				return 0, fmt.Errorf("%s key %q: %w", table, key, err)
			}
			return end, fn(table, key, data[j:end])
		})
		if err != nil {
			return 0, fmt.Errorf("table %q: %w", table, err)
		}
		return end, nil
	})
	if err != nil {
		return err
	}
	return trailing(data, end)
}

// scanObject reads the object (or null) starting at data[i]; for each entry
// it calls value with the key and the offset of the value, which returns the
// offset just past the value. It returns the offset just past the object.
func scanObject(data []byte, i int, value func(key string, i int) (int, error)) (int, error) {
	if isNull(data, i) {
		return i + 4, nil
	}
	if i >= len(data) || data[i] != '{' {
		return 0, errors.New("expected a JSON object")
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return 0, fmt.Errorf("offset %d: expected a string key", i)
		}
		end, err := skipString(data, i)
		if err != nil {
			return 0, err
		}
		key, err := decodeKey(data[i:end])
		if err != nil {
			return 0, fmt.Errorf("offset %d: key: %w", i, err)
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return 0, fmt.Errorf("offset %d: expected ':' after key %q", i, key)
		}
		i = skipSpace(data, i+1)
		if i >= len(data) {
			return 0, fmt.Errorf("key %q: unexpected end of JSON input", key)
		}
		if end, err = value(key, i); err != nil {
			return 0, err
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return 0, errors.New("unexpected end of JSON object")
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, fmt.Errorf("offset %d: expected ',' or '}' after the value of %q", i, key)
		}
	}
}

// Array calls fn for each element of a JSON array, in order, with the raw
// bytes of the element; it checks what Object checks. A null is an empty
// array.
func Array(data []byte, fn func(i int, elem []byte) error) error {
	i := skipSpace(data, 0)
	if isNull(data, i) {
		return trailing(data, i+4)
	}
	if i >= len(data) || data[i] != '[' {
		return errors.New("expected a JSON array")
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return trailing(data, i+1)
	}
	_, err := elementsFrom(data, i, -1, func(n, start, end int) error { return fn(n, data[start:end]) })
	return err
}

// Elements returns the raw elements of a JSON array (what Array passes to
// its callback). A large array of objects is split on two cores: a second
// scanner starts at a guessed element in the middle, and its elements are
// used only if the first scanner, which starts at the beginning, lands on
// that same element (from an element start the rest of the scan is
// determined), so the result is always the sequential one.
func Elements(data []byte) ([][]byte, error) {
	var out [][]byte
	collect := func(_, start, end int) error {
		out = append(out, data[start:end])
		return nil
	}
	i := skipSpace(data, 0)
	guess := guessElement(data, len(data)/2)
	if len(data) < 1<<20 || runtime.GOMAXPROCS(0) < 2 || guess < 0 || isNull(data, i) || data[i] != '[' {
		return out, Array(data, func(_ int, e []byte) error { out = append(out, e); return nil })
	}
	var second [][]byte
	var secondErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, secondErr = elementsFrom(data, guess, -1, func(_, start, end int) error {
			second = append(second, data[start:end])
			return nil
		})
	}()
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		<-done
		return nil, trailing(data, i+1)
	}
	met, err := elementsFrom(data, i, guess, collect)
	<-done
	if err != nil {
		return nil, err
	}
	switch {
	case met && secondErr == nil:
		return append(out, second...), nil
	case met: // report the error as the sequential scan numbers it
		out = out[:0]
		return nil, Array(data, func(_ int, e []byte) error { out = append(out, e); return nil })
	}
	return out, nil
}

// guessElement returns the offset of a '{' after mid that follows "}" and
// "," (only whitespace between), a likely element start, or -1.
func guessElement(data []byte, mid int) int {
	for i := mid; i < len(data); {
		k := bytes.IndexByte(data[i:], ',')
		if k < 0 {
			return -1
		}
		c := i + k
		j := c - 1
		for j > 0 && isSpace(data[j]) {
			j--
		}
		n := skipSpace(data, c+1)
		if data[j] == '}' && n < len(data) && data[n] == '{' {
			return n
		}
		i = c + 1
	}
	return -1
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// elementsFrom scans array elements starting at offset i (an element start)
// to the closing bracket, calling fn with each element's bounds. If stop is
// an element start it reaches, it returns true there without calling fn.
func elementsFrom(data []byte, i, stop int, fn func(n, start, end int) error) (bool, error) {
	for n := 0; ; n++ {
		if i == stop {
			return true, nil
		}
		end, err := skipValue(data, i)
		if err != nil {
			return false, fmt.Errorf("element %d: %w", n, err)
		}
		if err := fn(n, i, end); err != nil {
			return false, err
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return false, errors.New("unexpected end of JSON array")
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return false, trailing(data, i+1)
		default:
			return false, fmt.Errorf("offset %d: expected ',' or ']' after element %d", i, n)
		}
	}
}

func isNull(data []byte, i int) bool {
	return bytes.HasPrefix(data[i:], []byte("null"))
}

func trailing(data []byte, i int) error {
	if j := skipSpace(data, i); j < len(data) {
		return fmt.Errorf("offset %d: data after the JSON value", j)
	}
	return nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// decodeKey decodes a quoted string (a key or a value) as encoding/json
// does: plain ASCII directly, escapes and UTF-8 by unquote, and anything
// unquote does not accept by encoding/json itself, for its error.
func decodeKey(q []byte) (string, error) {
	body := q[1 : len(q)-1]
	i := plainPrefix(body)
	if i == len(body) {
		return string(body), nil
	}
	if s, ok := unquote(body, i); ok {
		return s, nil
	}
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

// plainPrefix returns the length of the prefix of b without a byte that
// needs decoding: a quote, a backslash, a control byte or a non-ASCII
// byte; eight bytes at a time.
func plainPrefix(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		// (w - 0x20…) & ^w & highs marks bytes below 0x20 (exactly, for
		// bytes without the high bit; those are caught by w & highs).
		if w&highs|(w-0x20*lows)&^w&highs|zeroBytes(w^(0x22*lows))|zeroBytes(w^(0x5C*lows)) != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// unquote decodes the body of a JSON string from offset i (the bytes
// before are plain) as encoding/json decodes a valid one: escapes, with a
// \u surrogate pair as one rune and a lone surrogate as U+FFFD, and each
// byte of invalid UTF-8 as U+FFFD. It returns false for what is not a
// valid JSON string body (a bad escape, an unescaped quote or control
// byte).
func unquote(s []byte, i int) (string, bool) {
	b := make([]byte, i, len(s)+utf8.UTFMax)
	copy(b, s[:i])
	for i < len(s) {
		switch c := s[i]; {
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(s[i+2:])
				if !ok {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if len(s) >= i+6 && s[i] == '\\' && s[i+1] == 'u' {
						if r2, ok := hex4(s[i+2:]); ok {
							if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
								b = utf8.AppendRune(b, d)
								i += 6
								continue
							}
						}
					}
					r = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return "", false
			}
			i += 2
		case c == '"' || c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			n := 1 + plainPrefix(s[i+1:])
			b = append(b, s[i:i+n]...)
			i += n
		default:
			r, size := utf8.DecodeRune(s[i:])
			b = utf8.AppendRune(b, r)
			i += size
		}
	}
	return string(b), true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// skipString returns the offset just past the string starting at data[i]
// (a quote). It looks for a quote or a backslash eight bytes at a time; a
// backslash skips the byte after it.
func skipString(data []byte, i int) (int, error) {
	j := i + 1
	for {
		for j+8 <= len(data) {
			w := binary.LittleEndian.Uint64(data[j:])
			if m := zeroBytes(w^(0x22*lows)) | zeroBytes(w^(0x5C*lows)); m != 0 {
				j += bits.TrailingZeros64(m) / 8
				break
			}
			j += 8
		}
		for j < len(data) && data[j] != '"' && data[j] != '\\' {
			j++
		}
		if j >= len(data) {
			return 0, fmt.Errorf("offset %d: unterminated string", i)
		}
		if data[j] == '"' {
			return j + 1, nil
		}
		j += 2 // an escape
	}
}

const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// zeroBytes has the high bit set in the lowest zero byte of x (and
// possibly in some above it).
func zeroBytes(x uint64) uint64 { return (x - lows) & ^x & highs }

// nextCandidate returns the offset of the first byte at or after i that may
// be structural, eight bytes at a time: a quote, or a byte b with
// b&0xD9 == 0x59 ({ } [ ] and, rarely outside strings, Y _ y DEL), which
// the caller then checks.
func nextCandidate(data []byte, i int) int {
	for i+8 <= len(data) {
		if m := candidates(data[i:]); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for i < len(data) && !structural[data[i]] {
		i++
	}
	return i
}

// candidates marks the possibly structural bytes among the first eight.
func candidates(b []byte) uint64 {
	w := binary.LittleEndian.Uint64(b)
	return zeroBytes((w&(0xD9*lows))^(0x59*lows)) | zeroBytes(w^(0x22*lows))
}

// structural marks the bytes skipValue stops at inside objects and arrays.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// skipValue returns the offset just past the value starting at data[i].
// Inside objects and arrays it balances brackets and skips strings; it
// leaves literals and numbers to whoever decodes the value.
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, errors.New("unexpected end of JSON input")
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		var buf [64]byte
		stack := buf[:0] // the closing brackets expected, innermost last
		for i < len(data) {
			c := data[i]
			if !structural[c] {
				i = nextCandidate(data, i+1)
				continue
			}
			switch c {
			case '"':
				end, err := skipString(data, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{':
				stack = append(stack, '}')
			case '[':
				stack = append(stack, ']')
			default:
				if len(stack) == 0 || stack[len(stack)-1] != c {
					return 0, fmt.Errorf("offset %d: unbalanced %q", i, c)
				}
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errors.New("unexpected end of JSON input")
	case ',', ':', '}', ']':
		return 0, fmt.Errorf("offset %d: expected a value, got %q", i, data[i])
	}
	j := i
	for j < len(data) {
		switch data[j] {
		case ' ', '\t', '\n', '\r', ',', '}', ']', ':':
			return j, nil
		}
		j++
	}
	return j, nil
}

// DecodeString decodes a raw JSON string value (as Object gives it), plain
// ASCII without encoding/json; anything but a string is an error.
func DecodeString(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", fmt.Errorf("not a JSON string: %.20s", raw)
	}
	return decodeKey(raw)
}
