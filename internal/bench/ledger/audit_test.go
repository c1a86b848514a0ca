package ledger

import (
	"slices"
	"testing"
)

func TestToolCall(t *testing.T) {
	t.Parallel()
	c := ToolCall("get_user_details", "user_id", "mia_li_3668", "n", 2, "ok", true)
	if c.Name != "get_user_details" || string(c.Arguments) != `{"user_id":"mia_li_3668","n":2,"ok":true}` {
		t.Errorf("ToolCall = %s %s", c.Name, c.Arguments)
	}
}

func TestOffsetScan(t *testing.T) {
	t.Parallel()
	if Offset("x", 0) != 0 {
		t.Error("Offset(x, 0) != 0")
	}
	keys := []string{"a", "b", "c", "d", "e"}
	for _, seed := range []string{"", "seed", "#W123"} {
		o := Offset(seed, len(keys))
		if o < 0 || o >= len(keys) || o != Offset(seed, len(keys)) {
			t.Errorf("Offset(%q) = %d", seed, o)
		}
		var seen []string
		Scan(keys, seed, func(k string) bool { seen = append(seen, k); return false })
		want := append(slices.Clone(keys[o:]), keys[:o]...)
		if !slices.Equal(seen, want) {
			t.Errorf("Scan(%q) visited %v; want %v", seed, seen, want)
		}
		seen = nil
		Scan(keys, seed, func(k string) bool { seen = append(seen, k); return len(seen) == 2 })
		if len(seen) != 2 {
			t.Errorf("Scan(%q) did not stop: %v", seed, seen)
		}
	}
}
