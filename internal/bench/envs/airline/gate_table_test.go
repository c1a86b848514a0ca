package airline

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// The rule table at the top of gate.go names every predicate and the tools
// it guards, and nothing else: the comment cannot go stale.
func TestGateTableMatchesPredicates(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("gate.go")
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string][]string{
		"all six":                     {toolBook, toolCancel, toolBaggages, toolFlights, toolPassengers, toolCertificate},
		"the four reservation tools":  {toolCancel, toolBaggages, toolFlights, toolPassengers},
		"book":                        {toolBook},
		"cancel":                      {toolCancel},
		"update flights":              {toolFlights},
		"update baggages":             {toolBaggages},
		"update flights and baggages": {toolFlights, toolBaggages},
		"update passengers":           {toolPassengers},
		"send_certificate":            {toolCertificate},
	}
	table := map[string][]string{} // rule → tools
	var rule, cell string
	flush := func() {
		if rule == "" {
			return
		}
		for _, phrase := range strings.Split(strings.TrimSuffix(strings.TrimSpace(cell), ","), ", ") {
			phrase = strings.TrimSpace(strings.TrimSuffix(phrase, " (profileFacts)"))
			ts, ok := tools[phrase]
			if !ok {
				t.Errorf("rule %s: tools %q: unknown phrase %q", rule, cell, phrase)
			}
			table[rule] = append(table[rule], ts...)
		}
		rule, cell = "", ""
	}
	for _, line := range strings.Split(string(src), "\n") {
		if !strings.HasPrefix(line, "//\t") || strings.HasPrefix(line, "//\trule ") || strings.HasPrefix(line, "//\t---") {
			if rule != "" {
				flush()
			}
			continue
		}
		row := strings.TrimPrefix(line, "//\t")
		name, tail := strings.TrimSpace(row[:20]), row[20:]
		cols := tail
		if len(cols) > 36 {
			cols = cols[:36]
		}
		if name != "" {
			flush()
			rule = name
		}
		cell += " " + strings.TrimSpace(cols)
	}
	flush()
	got := map[string][]string{}
	for _, p := range (&Domain{}).GatePredicates() {
		r := strings.TrimPrefix(p.ID, "airline."+p.Tool+".")
		got[r] = append(got[r], p.Tool)
	}
	got["arguments"] = table["arguments"] // DecodeArgs, not a predicate: every write tool
	for r, ts := range got {
		want := table[r]
		slices.Sort(ts)
		slices.Sort(want)
		if !slices.Equal(ts, want) {
			t.Errorf("rule %s: the table says %v; the predicates guard %v", r, want, ts)
		}
	}
	for r := range table {
		if _, ok := got[r]; !ok {
			t.Errorf("rule %s is in the table but has no predicate", r)
		}
	}
}
