// Package clip shortens text for messages and records on character
// boundaries, never inside a multi-byte UTF-8 sequence.
//
// Its unit is the Unicode code point, as Python's str slicing (s[:n]) is:
// text clipped here for the model is the text a Python harness would have
// produced. Invalid UTF-8 counts a byte as one code point, as range over a
// string does, so no input makes it fail.
package clip

// Runes returns s when it has at most n code points; otherwise its first n
// code points followed by tail (e.g. "…"). n < 0 counts as 0.
func Runes(s string, n int, tail string) string {
	n = max(n, 0)
	if len(s) <= n {
		return s // n bytes hold at most n code points
	}
	i := 0
	for end := range s {
		if i == n {
			return s[:end] + tail
		}
		i++
	}
	return s
}
