package pyjson

import (
	"encoding/json"
	"strings"
	"testing"
)

// checkDecodeString asserts that DecodeString decodes a raw string as
// encoding/json does: the same value, and an error exactly when
// encoding/json gives one (then its error).
func checkDecodeString(t *testing.T, raw []byte) {
	t.Helper()
	var want string
	wantErr := json.Unmarshal(raw, &want)
	got, err := DecodeString(raw)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("DecodeString(%q): error %v, encoding/json's %v", raw, err, wantErr)
	}
	if err == nil && got != want {
		t.Fatalf("DecodeString(%q) = %q, encoding/json %q", raw, got, want)
	}
}

// TestDecodeStringMatchesEncodingJSON covers every escape, surrogates
// (pairs, lone, reversed), invalid UTF-8, control bytes, and plain runs
// around the eight-byte steps.
func TestDecodeStringMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("abcdefgh", 3)
	for _, in := range []string{
		`""`, `"plain"`, `"` + long + `"`, `"` + long + `\n` + long + `"`,
		`"\" \\ \/ \b \f \n \r \t"`, `"\u00e9\u00E9"`, `"\u0000"`, `"\ud83d\ude00"`, `"x\ud83dy"`, `"\ude00\ud83d"`,
		`"\ud83d\u0041"`, `"\ud83d\ude0"`, `"\ud83d\uzzzz"`, `"\ud83d"`, `"\ud83d\"`,
		"\"caf\xc3\xa9\"", "\"\xff\xfe\"", "\"\xed\xa0\x80\"", "\"\xef\xbf\xbd\"", "\"ab\xe2\x82\"",
		`"\'"`, `"\x41"`, `"\u12"`, `"\u12g4"`, `"\"`, `"a\"`, `"a"b"`,
		"\"a\x01b\"", "\"" + long + "\x1f\"", "\"\x7f\"", `"` + long + `"` + `"`,
	} {
		t.Run(in, func(t *testing.T) { checkDecodeString(t, []byte(in)) })
	}
}

func FuzzDecodeString(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\ud83d\ude00"`, "\"\xff\"", `"\u00e9"`, `"plain text here"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
			return // DecodeString's own check, before any decoding
		}
		checkDecodeString(t, b)
	})
}
