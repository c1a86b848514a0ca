package usersim

import "testing"

func TestTraitLabel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		traits string
		mode   TraitMode
		want   string
	}{
		{"", "", ""},
		{"confusion=low,impatience=high", "", "impatience=high,confusion=low"},
		{`{"skeptical": "medium"}`, TraitPrompt, "skeptical=medium"},
		{"incoherence=low", TraitIgnore, "incoherence=low (ignored)"},
		{"not a trait list", "", "not a trait list"},
	} {
		if got := TraitLabel(tc.traits, tc.mode); got != tc.want {
			t.Errorf("TraitLabel(%q, %q) = %q; want %q", tc.traits, tc.mode, got, tc.want)
		}
	}
}
