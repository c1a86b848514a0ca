package clip_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/core/clip"
)

func TestRunes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, s string
		n       int
		tail    string
		want    string
	}{
		{"short ascii", "abc", 5, "…", "abc"},
		{"exact ascii", "abcde", 5, "…", "abcde"},
		{"long ascii", "abcdef", 5, "…", "abcde…"},
		{"zero", "abc", 0, "...", "..."},
		{"negative", "abc", -1, "...", "..."},
		{"empty", "", 3, "…", ""},
		// A byte slice s[:4] would cut "é" (2 bytes) and "東" (3 bytes).
		{"two-byte runes", "café crème", 4, "…", "café…"},
		{"three-byte runes kept whole", "東京都庁舎", 3, "…", "東京都…"},
		// More bytes than n, but no more code points: kept.
		{"multi-byte within limit", "東京都", 3, "…", "東京都"},
		{"emoji", "ok 👍👍👍", 4, "...", "ok 👍..."},
		{"combining mark counts apart", "e\u0301e\u0301", 1, "…", "e…"},
		{"invalid utf-8 bytes count one each", "\xff\xfeabc", 2, "…", "\xff\xfe…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := clip.Runes(tc.s, tc.n, tc.tail); got != tc.want {
				t.Errorf("Runes(%q, %d, %q) = %q; want %q", tc.s, tc.n, tc.tail, got, tc.want)
			}
		})
	}
}

// FuzzRunes checks the invariants against Python's s[:n] (code points): the
// result is a prefix of s (plus tail when cut), valid UTF-8 when s is, and
// exactly n code points long before the tail when cut.
func FuzzRunes(f *testing.F) {
	f.Add("café crème", 4)
	f.Add("東京都庁舎", 3)
	f.Add("\xff\xfeabc", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 64
		const tail = "…"
		got := clip.Runes(s, n, tail)
		runes := []rune(s)
		if max(n, 0) >= utf8.RuneCountInString(s) {
			if got != s {
				t.Fatalf("Runes(%q, %d) = %q; want s unchanged", s, n, got)
			}
			return
		}
		head, ok := strings.CutSuffix(got, tail)
		if !ok || !strings.HasPrefix(s, head) {
			t.Fatalf("Runes(%q, %d) = %q; want a prefix of s and the tail", s, n, got)
		}
		if utf8.ValidString(s) && head != string(runes[:max(n, 0)]) {
			t.Fatalf("Runes(%q, %d) = %q; want s's first %d code points", s, n, got, n)
		}
	})
}
