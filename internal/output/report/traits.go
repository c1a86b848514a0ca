package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
)

// TableTraits is τ-Trait's table: pass^1 without traits and under each
// trait, and the relative change.
const TableTraits = "traits"

// userTraits sets the records' Traits and TraitMode (the trait dimension of
// the group key) from what the input says of its user, canonically: a run's
// from each record's user report (a τ-Trait user's traits and mode), else
// its manifest's user settings; a τ²-bench results file's and a v1 list's
// were set when they were read (user_info, the file name). Traits given as
// a dict become name=level pairs in τ-Trait's order; a τ-Trait user without
// traits is results.NoTraits.
func userTraits(src *Source) {
	for i := range src.Records {
		r := &src.Records[i]
		if src.Kind == RunDir && r.Traits == "" {
			var rep usersim.Report
			switch {
			case len(r.UserInfo) > 0 && json.Unmarshal(r.UserInfo, &rep) == nil && rep.Implementation == results.TauTraitUser:
				r.Traits, r.TraitMode = rep.Traits.String(), string(rep.TraitMode)
				if r.Traits == "" {
					r.Traits, r.TraitMode = results.NoTraits, ""
				}
			case src.Manifest != nil && src.Manifest.Traits != "":
				r.Traits, r.TraitMode = src.Manifest.Traits, src.Manifest.TraitMode
			}
		}
		r.Traits = canonicalTraits(r.Traits)
	}
}

// canonicalTraits writes a trait dict (JSON or name=level pairs) as
// name=level pairs in τ-Trait's order; a bare trait name, NoTraits and
// anything that does not parse stay as they are.
func canonicalTraits(s string) string {
	if s == "" || s == results.NoTraits || slices.Contains(known.TraitNames(), s) {
		return s
	}
	t, err := usersim.ParseTraits(s)
	switch {
	case err != nil:
		return s
	case len(t) == 0:
		return results.NoTraits
	}
	return t.String()
}

// traitOrder are τ-Trait's table columns in its README's order, with its
// headings.
var traitOrder = []struct{ key, title string }{
	{"skeptical", "Skepticism"}, {"confusion", "Confusion"}, {"impatience", "Impatience"}, {"incoherence", "Incoherence"},
}

var levelRank = map[string]int{"low": 0, "medium": 1, "high": 2}

// traitColumn is a group's column of the trait table: results.NoTraits; a
// trait key — a recording's name, or a trait dict whose one trait is
// raised above the others, as τ-Trait names its trait files
// (example_trait_dict_skeptical.json: skeptical medium, the others low); or
// the traits themselves. Traits applied other than by τ-Trait's steering
// (or an unrecorded way, as in τ-Trait's published runs) get their own
// column, labelled with the mode.
func traitColumn(traits, mode string) string {
	col := traits
	if t, err := usersim.ParseTraits(traits); err == nil && len(t) > 0 {
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
	if mode != "" && mode != string(usersim.TraitSteer) && col != results.NoTraits {
		col += " (" + mode + ")"
	}
	return col
}

// relChange formats (x − base) / base as τ-Trait's table does (-30.8%).
func relChange(x, base float64) string {
	s := strconv.FormatFloat(100*(x-base)/base, 'f', 1, 64)
	if s == "-0.0" {
		s = "0.0"
	}
	return s + "%"
}

// traitsTable is τ-Trait's table (README, "Results"): per domain, agent
// and backbone, pass^1 without traits and under each trait, and each
// trait's relative change against no traits, with their mean. Only groups
// of τ-Trait's domains, or that carry traits, take part.
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
	var extras []string
	unknown := 0
	for _, g := range r.Groups {
		if g.Traits == "" {
			if known.BenchmarkOf(g.Domain) == known.TauTrait {
				unknown++
			}
			continue
		}
		k := rowKey{g.Domain, g.Agent, g.Backbone}
		if cells[k] == nil {
			cells[k] = map[string]metrics.Summary{}
			rows = append(rows, k)
		}
		col := traitColumn(g.Traits, g.TraitMode)
		if prev, dup := cells[k][col]; dup {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %s shows %s; %s left out (one group per cell)", k.domain+"/"+k.agent+"/"+k.backbone, col, groupName(prev), groupName(g)))
			continue
		}
		cells[k][col] = g
		if g.UserBackbone != "" && !slices.Contains(users[k], g.UserBackbone) {
			users[k] = append(users[k], g.UserBackbone)
		}
		isStd := col == results.NoTraits || slices.ContainsFunc(traitOrder, func(tr struct{ key, title string }) bool { return tr.key == col })
		if !isStd && !slices.Contains(extras, col) {
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
		none, hasNone := c[results.NoTraits]
		base := Missing
		if hasNone {
			base = passCell(none.PassK, 1)
		}
		row := []string{k.domain, k.agent, k.backbone, strings.Join(users[k], ", "), base}
		cell := func(col string) (pass, delta string, d float64, ok bool) {
			g, found := c[col]
			if !found {
				return Missing, Missing, 0, false
			}
			pass, delta = passCell(g.PassK, 1), Missing
			if hasNone && hasK(none.PassK, 1) && hasK(g.PassK, 1) && none.PassK.At(1) > 0 {
				d = (g.PassK.At(1) - none.PassK.At(1)) / none.PassK.At(1)
				return pass, relChange(g.PassK.At(1), none.PassK.At(1)), d, true
			}
			return pass, delta, 0, false
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
		avg := Missing
		if n == len(traitOrder) {
			avg = relChange(1+sum/float64(n), 1)
		}
		row = append(row, avg)
		for _, x := range extras {
			p, dl, _, _ := cell(x)
			row = append(row, p, dl)
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "no τ-Trait groups (runs of τ-Trait's domains, or recordings named <trait>_<env>.json / <env>_none.json)")
	}
	if unknown > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d group(s) of τ-Trait domains left out: their traits are not known (label them with --traits)", unknown))
	}
	t.Notes = append(t.Notes,
		"Δ: the relative change of pass^1 under the trait against no traits, (trait − none) / none, as τ-Trait's README table reports its drops; Average Δ: the mean of the four, as τ-Trait's Average column",
		"τ-Trait's published table averages 3 runs: give each group 3 trials (pass^1 is their mean)",
		"a trait dict counts as the trait it raises above the others (τ-Trait's example_trait_dict_skeptical.json: skeptical medium, the rest low); traits applied by prompt approximation or ignored get their own columns")
	return t
}
