package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
)

// TableTraits is τ-Trait's table: pass^1 without traits and under each
// trait, and the relative change.
const TableTraits = "traits"

// traitOrder are τ-Trait's table columns in its README's order, with its
// headings.
var traitOrder = []struct{ key, title string }{
	{"skeptical", "Skepticism"}, {"confusion", "Confusion"}, {"impatience", "Impatience"}, {"incoherence", "Incoherence"},
}

var levelRank = map[string]int{"low": 0, "medium": 1, "high": 2}

// noTraits is the trait table's column of groups without traits.
const noTraits = "none"

// ignoredSuffix marks a trait label whose traits the user ignored
// (usersim.TraitLabel).
const ignoredSuffix = " (ignored)"

// traitColumn is a group's column of the trait table, from its trait label
// (results.Record.Trait): "none" without traits; a trait key for a
// recording named after it, or for a trait dict whose one trait is raised
// above the others, as τ-Trait names its trait files
// (example_trait_dict_skeptical.json: skeptical medium, the others low);
// otherwise the label itself. Ignored traits (a chat-model user with
// --trait-mode ignore) get their own column.
func traitColumn(label string) string {
	base, ignored := strings.CutSuffix(label, ignoredSuffix)
	col := base
	switch {
	case base == "" || base == noTraits:
		col = noTraits
	case slices.Contains(known.Traits(), base):
	default:
		if t, err := usersim.ParseTraits(base); err == nil && len(t) > 0 {
			best, top, ties := "", -1, 0
			for k, lvl := range t {
				switch r := levelRank[lvl]; {
				case r > top:
					best, top, ties = k, r, 1
				case r == top:
					ties++
				}
			}
			if ties == 1 {
				col = best
			}
		}
	}
	if ignored {
		col += ignoredSuffix
	}
	return col
}

// relChange is (x − base) / base as τ-Trait's table writes it (-30.8%),
// the number in percent.
func relChange(d float64) num {
	n := fixed(100*d, 1)
	if n.text == "-0.0" {
		n.text = "0.0"
	}
	return n.suffixed("%")
}

// traitsTable is τ-Trait's table (README, "Results"): per domain, agent
// and backbone, pass^1 without traits and under each trait, and each
// trait's relative change against no traits, with their mean. Groups of
// τ-Trait's domains take part, and any group that carries traits.
func (r *Report) traitsTable() Table {
	t := Table{ID: TableTraits, Title: "τ-Trait: pass^1 (%) without traits and under each trait, and the relative change (Δ)"}
	t.Header = []string{"Domain", "Agent", "Backbone", "User", "No traits"}
	for _, tr := range traitOrder {
		t.Header = append(t.Header, tr.title, tr.title+" Δ")
	}
	t.Header = append(t.Header, "Average Δ")
	type rowKey struct{ domain, agent, backbone string }
	var rows []rowKey
	cells := map[rowKey]map[string]metrics.Summary{}
	users := map[rowKey][]string{}
	simulated := map[rowKey]bool{} // a group of the row on the sim backbone
	var extras []string
	for _, g := range r.Groups {
		if g.Trait == "" && known.BenchmarkOf(g.Domain) != known.TauTrait {
			continue
		}
		k := rowKey{g.Domain, g.Agent, g.Backbone}
		if cells[k] == nil {
			cells[k] = map[string]metrics.Summary{}
			rows = append(rows, k)
		}
		col := traitColumn(g.Trait)
		if prev, dup := cells[k][col]; dup {
			t.Notes = append(t.Notes, fmt.Sprintf("%s/%s/%s: the %s cell shows %s; %s left out (one group per cell)", k.domain, k.agent, k.backbone, col, groupName(prev), groupName(g)))
			continue
		}
		cells[k][col] = g
		simulated[k] = simulated[k] || g.Simulated > 0
		if g.UserBackbone != "" && !slices.Contains(users[k], g.UserBackbone) {
			users[k] = append(users[k], g.UserBackbone)
		}
		std := col == noTraits || slices.ContainsFunc(traitOrder, func(tr struct{ key, title string }) bool { return tr.key == col })
		if !std && !slices.Contains(extras, col) {
			extras = append(extras, col)
		}
	}
	slices.Sort(extras)
	for _, x := range extras {
		t.Header = append(t.Header, x, x+" Δ")
	}
	slices.SortStableFunc(rows, func(a, b rowKey) int {
		return cmp.Or(compareDomain(a.domain, b.domain), cmp.Compare(a.backbone, b.backbone), compareAgent(a.agent, b.agent, r.opts))
	})
	for _, k := range rows {
		c := cells[k]
		none, hasNone := c[noTraits]
		base := missing
		if hasNone {
			base = passCell(none.PassK, 1)
		}
		bb := k.backbone
		if simulated[k] {
			bb += " (simulated)" // as the run groups table marks it
		}
		row := []any{k.domain, k.agent, bb, strings.Join(users[k], ", "), base}
		// cell is a column's pass^1 and relative change (ok: both known).
		cell := func(col string) (pass, delta num, d float64, ok bool) {
			g, found := c[col]
			if !found {
				return missing, missing, 0, false
			}
			pass = passCell(g.PassK, 1)
			if !hasNone || !hasK(none.PassK, 1) || !hasK(g.PassK, 1) || none.PassK.At(1) == 0 {
				return pass, missing, 0, false
			}
			d = (g.PassK.At(1) - none.PassK.At(1)) / none.PassK.At(1)
			return pass, relChange(d), d, true
		}
		sum, n := 0.0, 0
		for _, tr := range traitOrder {
			p, dl, d, ok := cell(tr.key)
			row = append(row, p, dl)
			if ok {
				sum += d
				n++
			}
		}
		avg := missing
		if n == len(traitOrder) {
			avg = relChange(sum / float64(n))
		}
		row = append(row, avg)
		for _, x := range extras {
			p, dl, _, _ := cell(x)
			row = append(row, p, dl)
		}
		t.add(row...)
	}
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "no τ-Trait groups (runs of τ-Trait's domains, or recordings named <trait>_<domain>.json / <domain>_none.json)")
	}
	t.Notes = append(t.Notes,
		"Δ: the relative change of pass^1 under the trait against no traits, (trait − none) / none, as τ-Trait's README table reports its drops; Average Δ: the mean of the four, as τ-Trait's Average column",
		"τ-Trait's published table averages 3 runs: give each group 3 trials (pass^1 is their mean)",
		"a trait dict counts as the trait it raises above the others (τ-Trait's example_trait_dict_skeptical.json: skeptical medium, the rest low); other dicts and ignored traits get their own columns; a group label does not say whether traits were steered or prompt-approximated (the run's manifest does)")
	return t
}
