package ledgeragent

import (
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
)

func TestChangedLines(t *testing.T) {
	t.Parallel()
	block := func(lines ...string) string {
		if len(lines) == 0 {
			return ""
		}
		return ledger.RenderHeader + strings.Join(lines, "\n") + "\n</ledger>"
	}
	cases := []struct {
		name        string
		before, now string
		want        []string
	}{
		{"empty", "", "", nil},
		{"first", "", block("user: {\"a\": 1}"), []string{"user: {\"a\": 1}"}},
		{"same", block("user: 1"), block("user: 1"), nil},
		{"added and changed", block("orders.1: 1", "user: 1"), block("orders.1: 2", "orders.2: 1", "user: 1"), []string{"orders.1: 2", "orders.2: 1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := changedLines(tc.before, tc.now)
			if !slices.Equal(got, tc.want) {
				t.Errorf("changedLines = %q; want %q", got, tc.want)
			}
		})
	}
}
