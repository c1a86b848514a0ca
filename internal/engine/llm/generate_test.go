package llm

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestProviderMessageClipsOnCharacters: an unreadable error body is cut to
// 300 code points, never inside a multi-byte character (the text goes into
// records and logs).
func TestProviderMessageClipsOnCharacters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want string
	}{
		{"short", "<html>bad gateway</html>", "<html>bad gateway</html>"},
		{"long ascii", strings.Repeat("x", 301), strings.Repeat("x", 300) + "…"},
		// 300 bytes would end inside the 151st "é".
		{"long two-byte", strings.Repeat("é", 301), strings.Repeat("é", 300) + "…"},
		{"multi-byte within limit", strings.Repeat("東", 300), strings.Repeat("東", 300)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := providerMessage(json.RawMessage(tc.body))
			if got != tc.want || !utf8.ValidString(got) {
				t.Errorf("providerMessage = %q (%d bytes); want %q", got, len(got), tc.want)
			}
		})
	}
}
