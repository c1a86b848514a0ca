package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
)

// Table is one rendered table: an id (for --table), a title, a header, rows
// and footnotes.
type Table struct {
	ID     string
	Title  string
	Header []string
	Rows   [][]string
	// Values hold, row by row, the full-precision numbers behind cells whose
	// text rounds them (nil rows and entries: the text is all there is);
	// CSV and JSON carry them.
	Values [][]any
	Notes  []string
}

// Options choose what the comparison tables compare.
type Options struct {
	// Baseline and Treatment are the agent labels of Table 2 (default
	// "baseline" and "ledger").
	Baseline  string
	Treatment string
	// K is the larger k of the tables (pass^1 and pass^K); 0 uses the
	// fewest trials any compared group has.
	K int
	// Reviews are the LLM reviews' counts per group (Reviews); the error
	// table shows them beside the rule-based categories when set.
	Reviews map[metrics.Key]ReviewCounts
}

func (o Options) withDefaults() Options {
	if o.Baseline == "" {
		o.Baseline = "baseline"
	}
	if o.Treatment == "" {
		o.Treatment = "ledger"
	}
	return o
}

// Report is a report over run groups.
type Report struct {
	Groups []metrics.Summary
	// Tables are the tables of the default output: every table, the trait
	// table only when some group carries traits.
	Tables []Table
	traits Table
	opts   Options
}

// Table IDs in output order.
const (
	TableOverview   = "overview"
	TableMain       = "table2"
	TableComparison = "comparison"
	TableWrite      = "write_subset"
	TableActions    = "actions"
	TableGate       = "gate"
	TableErrors     = "errors"
	TableCosts      = "costs"
)

// TableIDs lists every table id.
func TableIDs() []string {
	return []string{TableOverview, TableMain, TableComparison, TableWrite, TableActions, TableGate, TableErrors, TableCosts, TableTraits}
}

// Build orders groups (domains, backbones and agents in the paper's order)
// and builds every table.
func Build(groups []metrics.Summary, opts Options) *Report {
	opts = opts.withDefaults()
	gs := slices.Clone(groups)
	slices.SortStableFunc(gs, func(a, b metrics.Summary) int {
		return cmp.Or(compareDomain(a.Domain, b.Domain), cmp.Compare(a.Backbone, b.Backbone),
			cmp.Compare(a.UserBackbone, b.UserBackbone), compareAgent(a.Agent, b.Agent, opts))
	})
	r := &Report{Groups: gs, opts: opts}
	r.Tables = []Table{r.overview(), r.mainTable(), r.comparison(), r.writeSubset(), r.actions(), r.gate(), r.errors(), r.costs()}
	r.traits = r.traitsTable()
	if len(r.traits.Rows) > 0 {
		r.Tables = append(r.Tables, r.traits) // in the default output only when there are trait groups
	}
	return r
}

// Table returns the table with id.
func (r *Report) Table(id string) (Table, bool) {
	for _, t := range r.Tables {
		if t.ID == id {
			return t, true
		}
	}
	if id == TableTraits {
		return r.traits, true
	}
	return Table{}, false
}

// compareDomain orders base domains as internal/source/known lists them,
// then the others (variants and unported domains).
func compareDomain(a, b string) int {
	domainOrder := known.Bases()
	ia, ib := slices.Index(domainOrder, a), slices.Index(domainOrder, b)
	if ia < 0 {
		ia = len(domainOrder)
	}
	if ib < 0 {
		ib = len(domainOrder)
	}
	return cmp.Or(cmp.Compare(ia, ib), cmp.Compare(a, b))
}

var agentOrder = []string{"irma", "ledger-only", "gate-only"}

func compareAgent(a, b string, o Options) int {
	rank := func(s string) int {
		switch {
		case s == o.Baseline:
			return 0
		case s == o.Treatment:
			return len(agentOrder) + 2
		}
		if i := slices.Index(agentOrder, s); i >= 0 {
			return i + 1
		}
		return len(agentOrder) + 1
	}
	return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b))
}

// multiUser reports whether groups use more than one user backbone (then
// labels name it).
func (r *Report) multiUser() bool {
	seen := ""
	for _, g := range r.Groups {
		if seen != "" && g.UserBackbone != seen {
			return true
		}
		seen = g.UserBackbone
	}
	return false
}

// multiTrait reports whether groups differ in their user's traits (then
// labels name them).
func (r *Report) multiTrait() bool {
	for _, g := range r.Groups {
		if g.Trait != r.Groups[0].Trait {
			return true
		}
	}
	return false
}

// backboneLabel is a group's backbone as tables show it: with the user
// backbone and the trait where the report holds several, and marked
// simulated for the sim backbone.
func (r *Report) backboneLabel(g metrics.Summary) string {
	return r.bbLabel(bbOf(g), g.Simulated > 0)
}

// bbLabel labels a backbone row (see backboneLabel); a backbone the input
// does not record (a τ-Trait file) is missing.
func (r *Report) bbLabel(bb bbKey, simulated bool) string {
	s := cmp.Or(bb.backbone, Missing)
	var in []string
	if r.multiUser() && bb.user != "" {
		in = append(in, "user "+bb.user)
	}
	if r.multiTrait() {
		in = append(in, "trait "+cmp.Or(bb.trait, "none"))
	}
	if simulated {
		in = append(in, "simulated")
	}
	if len(in) > 0 {
		s += " (" + strings.Join(in, ", ") + ")"
	}
	return s
}

// simulatedBB reports whether a group of the backbone ran on the sim
// backbone.
func (r *Report) simulatedBB(bb bbKey) bool {
	for _, g := range r.Groups {
		if bb.holds(g) && g.Simulated > 0 {
			return true
		}
	}
	return false
}

func groupName(g metrics.Summary) string {
	s := g.Domain + "/" + g.Agent + "/" + cmp.Or(g.Backbone, Missing)
	if g.UserBackbone != "" {
		s += "/user=" + g.UserBackbone
	}
	if g.Trait != "" {
		s += "/trait=" + g.Trait
	}
	if g.Simulated > 0 {
		s += " (simulated)"
	}
	return s
}

// pct formats a fraction as a percentage with one decimal.
func pct(x float64) num { return fixed(100*x, 1) }

// delta formats a difference of fractions in percentage points.
func delta(x float64) num {
	n := fixed(100*x, 1)
	if n.text == "-0.0" {
		n.text = "0.0"
	}
	if !strings.HasPrefix(n.text, "-") {
		n.text = "+" + n.text
	}
	return n
}

// deltaCell is other's pass^k minus base's, missing unless both have it.
func deltaCell(base, other metrics.PassK, k int) num {
	if !hasK(base, k) || !hasK(other, k) {
		return missing
	}
	return delta(other.At(k) - base.At(k))
}

// meanCell is the mean of pass^k over groups as a percentage (or, with
// base, the mean difference), missing when any group lacks pass^k.
func meanCell(k int, groups []metrics.PassK, base []metrics.PassK) num {
	if len(groups) == 0 {
		return missing
	}
	var sum float64
	for i, g := range groups {
		if !hasK(g, k) || base != nil && !hasK(base[i], k) {
			return missing
		}
		sum += g.At(k)
		if base != nil {
			sum -= base[i].At(k)
		}
	}
	if base != nil {
		return delta(sum / float64(len(groups)))
	}
	return pct(sum / float64(len(groups)))
}

// rel formats a relative overhead (0.531 → +53.1%), missing when the
// baseline used none of it (nil).
func rel(x *float64) num {
	if x == nil {
		return missing
	}
	return delta(*x).suffixed("%")
}

// Missing is the text of a cell without data behind it (CSV and JSON carry
// null): a missing value never prints as 0.
const Missing = "—"

// hasK reports whether pass^k of p averages at least one task.
func hasK(p metrics.PassK, k int) bool {
	return k >= 1 && k <= p.K && k <= len(p.Tasks) && p.Tasks[k-1] > 0
}

// passCell is pass^k as a percentage, starred when it averages fewer tasks
// than the group has; missing when no task has k trials.
func passCell(p metrics.PassK, k int) num {
	if !hasK(p, k) {
		return missing
	}
	n := pct(p.At(k))
	if !p.Complete(k) {
		n = n.suffixed("*")
	}
	return n
}

// shareWithCount is a share as a percentage followed by its count ("12.5 (3)").
func shareWithCount(share float64, n int) num {
	return pct(share).suffixed(fmt.Sprintf(" (%d)", n))
}

// completeness notes name the tasks lacking trials of every group.
func completenessNotes(groups []metrics.Summary) []string {
	var notes []string
	for _, g := range groups {
		if g.Infrastructure > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d infrastructure error(s) excluded from pass^k", groupName(g), g.Infrastructure))
		}
		if len(g.Incomplete) > 0 {
			var parts []string
			for _, t := range g.Incomplete {
				parts = append(parts, fmt.Sprintf("%s (%d/%d)", t.TaskID, t.Trials, g.K))
			}
			notes = append(notes, fmt.Sprintf("* %s: %d of %d tasks lack trials (%s); pass^k averages only the tasks with at least k trials",
				groupName(g), len(g.Incomplete), g.Tasks, strings.Join(parts, ", ")))
		}
		if g.Simulated > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d simulation(s) on the offline sim backbone (scripted faults, not model results)", groupName(g), g.Simulated))
		}
		if g.Duplicates > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d duplicate (task, trial) record(s) ignored", groupName(g), g.Duplicates))
		}
	}
	return append(notes, nlNotes(groups)...)
}

// nlNotes say, for every table whose numbers follow from rewards, which
// groups' NL assertions were not judged.
func nlNotes(groups []metrics.Summary) []string {
	var notes []string
	for _, g := range groups {
		if g.NLUnjudged > 0 {
			notes = append(notes, fmt.Sprintf("%s: NL assertions not judged (--no-judge) in %d of %d scored simulations: their rewards omit NL_ASSERTION",
				groupName(g), g.NLUnjudged, g.Scored))
		}
	}
	return notes
}

func (r *Report) overview() Table {
	maxK := 0
	for _, g := range r.Groups {
		maxK = max(maxK, g.K)
	}
	t := Table{ID: TableOverview, Title: "Run groups: pass^k (%) for k = 1…K"}
	traits := false
	for _, g := range r.Groups {
		traits = traits || g.Trait != ""
	}
	t.Header = []string{"Domain", "Agent", "Backbone", "User"}
	if traits {
		t.Header = append(t.Header, "Trait")
	}
	t.Header = append(t.Header, "Tasks", "Sims", "Infra", "K")
	for k := 1; k <= maxK; k++ {
		t.Header = append(t.Header, "pass^"+strconv.Itoa(k))
	}
	t.Header = append(t.Header, "Avg reward")
	for _, g := range r.Groups {
		bb := g.Backbone
		if g.Simulated > 0 {
			bb += " (simulated)"
		}
		row := []any{g.Domain, g.Agent, bb, g.UserBackbone}
		if traits {
			row = append(row, g.Trait)
		}
		row = append(row, strconv.Itoa(g.Tasks), strconv.Itoa(g.Scored), strconv.Itoa(g.Infrastructure), strconv.Itoa(g.K))
		for k := 1; k <= maxK; k++ {
			row = append(row, passCell(g.PassK, k))
		}
		avg := missing
		if g.Scored > 0 {
			avg = fixed(g.AvgReward, 3)
		}
		t.add(append(row, avg)...)
	}
	t.Notes = completenessNotes(r.Groups)
	return t
}

// kOf is the larger k of a comparison: Options.K, else the fewest trials of
// the groups compared.
func (r *Report) kOf(groups ...metrics.Summary) int {
	if r.opts.K > 0 {
		return r.opts.K
	}
	k := 0
	for _, g := range groups {
		if g.K > 0 && (k == 0 || g.K < k) {
			k = g.K
		}
	}
	return max(k, 1)
}

// bbKey is what the comparison tables and figures group rows by: the
// agent backbone, the user backbone and the user's trait.
type bbKey struct{ backbone, user, trait string }

func bbOf(g metrics.Summary) bbKey { return bbKey{g.Backbone, g.UserBackbone, g.Trait} }

// holds reports whether g is a group of the backbone.
func (bb bbKey) holds(g metrics.Summary) bool { return bbOf(g) == bb }

// backbones lists backbones (with user backbones and traits) in order.
func (r *Report) backbones() []bbKey {
	var out []bbKey
	for _, g := range r.Groups {
		if k := bbOf(g); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.SortStableFunc(out, func(a, b bbKey) int {
		return cmp.Or(cmp.Compare(a.backbone, b.backbone), cmp.Compare(a.user, b.user), cmp.Compare(a.trait, b.trait))
	})
	return out
}

func (r *Report) pairs(bb bbKey, other string) []metrics.Pair {
	var gs []metrics.Summary
	for _, g := range r.Groups {
		if bb.holds(g) {
			gs = append(gs, g)
		}
	}
	return metrics.Match(gs, r.opts.Baseline, other)
}

func (r *Report) mainTable() Table {
	o := r.opts
	var all []metrics.Pair
	for _, bb := range r.backbones() {
		all = append(all, r.pairs(bb, o.Treatment)...)
	}
	var gs []metrics.Summary
	for _, p := range all {
		gs = append(gs, p.Base, p.Other)
	}
	k := r.kOf(gs...)
	if len(gs) == 0 {
		k = r.kOf(r.Groups...)
	}
	ks := "pass^" + strconv.Itoa(k)
	title := "pass^1 / " + ks
	if k == 1 {
		title = "pass^1"
	}
	t := Table{ID: TableMain, Title: fmt.Sprintf("Table 2: %s (%%) per domain, %s vs %s", title, o.Baseline, o.Treatment)}
	t.Header = []string{"Backbone", "Domain", "pass^1 " + o.Baseline, "pass^1 " + o.Treatment, "Δ pass^1", ks + " " + o.Baseline, ks + " " + o.Treatment, "Δ " + ks}
	if len(all) == 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("no domain has both a %q and a %q group for the same backbone", o.Baseline, o.Treatment))
		return t
	}
	for _, bb := range r.backbones() {
		ps := r.pairs(bb, o.Treatment)
		if len(ps) == 0 {
			continue
		}
		label := r.bbLabel(bb, r.simulatedBB(bb))
		var base, other []metrics.PassK
		for _, p := range ps {
			t.add(label, p.Base.Domain, passCell(p.Base.PassK, 1), passCell(p.Other.PassK, 1), deltaCell(p.Base.PassK, p.Other.PassK, 1),
				passCell(p.Base.PassK, k), passCell(p.Other.PassK, k), deltaCell(p.Base.PassK, p.Other.PassK, k))
			base = append(base, p.Base.PassK)
			other = append(other, p.Other.PassK)
		}
		if len(ps) > 1 {
			t.add(label, "Average", meanCell(1, base, nil), meanCell(1, other, nil), meanCell(1, other, base),
				meanCell(k, base, nil), meanCell(k, other, nil), meanCell(k, other, base))
		}
	}
	if k == 1 {
		dropColumns(&t, 5, 6, 7)
	}
	for _, g := range gs {
		if g.K < k {
			t.Notes = append(t.Notes, fmt.Sprintf("%s has %d trial(s) per task: no %s (%s)", groupName(g), g.K, ks, Missing))
		}
	}
	t.Notes = append(t.Notes, completenessNotes(gs)...)
	return t
}

func (r *Report) agents() []string {
	var out []string
	for _, g := range r.Groups {
		if !slices.Contains(out, g.Agent) {
			out = append(out, g.Agent)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return compareAgent(a, b, r.opts) })
	return out
}

func (r *Report) comparison() Table {
	o := r.opts
	k := r.kOf(r.Groups...)
	ks := "pass^" + strconv.Itoa(k)
	t := Table{ID: TableComparison, Title: fmt.Sprintf("Agents against %s (domain means; Δ over the domains both ran), with agent token overhead", o.Baseline)}
	t.Header = []string{"Backbone", "Agent", "Domains", "pass^1", ks, "Δ pass^1", "Δ " + ks, "Tokens", "Prompt tokens", "Model calls"}
	for _, bb := range r.backbones() {
		label := r.bbLabel(bb, r.simulatedBB(bb))
		var base []metrics.Summary
		for _, g := range r.Groups {
			if bb.holds(g) && g.Agent == o.Baseline {
				base = append(base, g)
			}
		}
		if len(base) > 0 {
			var ps []metrics.PassK
			for _, g := range base {
				ps = append(ps, g.PassK)
			}
			t.add(label, o.Baseline, strconv.Itoa(len(base)), meanCell(1, ps, nil), meanCell(k, ps, nil), "", "", "", "", "")
		}
		for _, a := range r.agents() {
			if a == o.Baseline {
				continue
			}
			ps := r.pairs(bb, a)
			if len(ps) == 0 {
				continue
			}
			var base, other []metrics.PassK
			for _, p := range ps {
				base = append(base, p.Base.PassK)
				other = append(other, p.Other.PassK)
			}
			ov := metrics.UsageOverhead(ps)
			t.add(label, a, strconv.Itoa(len(ps)), meanCell(1, other, nil), meanCell(k, other, nil), meanCell(1, other, base), meanCell(k, other, base),
				rel(ov.Tokens), rel(ov.PromptTokens), rel(ov.Calls))
		}
	}
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "no groups")
	}
	if k == 1 {
		dropColumns(&t, 4, 6)
	}
	t.Notes = append(t.Notes, "Tokens, Prompt tokens, Model calls: the agent's per-simulation usage relative to "+o.Baseline+" on the same domains (helper-model calls included; user simulator and judge excluded)")
	t.Notes = append(t.Notes, nlNotes(r.Groups)...)
	return t
}

func (r *Report) writeSubset() Table {
	k := r.kOf(r.Groups...)
	ks := "pass^" + strconv.Itoa(k)
	t := Table{ID: TableWrite, Title: "Environment-changing subset (tasks with ≥ 1 gold write): pass^k (%)"}
	t.Header = []string{"Domain", "Backbone", "Agent", "Write tasks", "Share", "pass^1", ks, "pass^1 all", ks + " all"}
	for _, g := range r.Groups {
		w := g.Write
		share := missing
		if w.Known > 0 {
			share = pct(w.Share())
		}
		t.add(g.Domain, r.backboneLabel(g), g.Agent, fmt.Sprintf("%d/%d", w.Tasks, w.Known), share,
			passCell(w.PassK, 1), passCell(w.PassK, k), passCell(g.PassK, 1), passCell(g.PassK, k))
		if len(w.Unknown) > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: membership unknown for %d task(s) (no gold actions or tool kinds; load the domain with --data): %s",
				groupName(g), len(w.Unknown), list(w.Unknown, 10)))
		}
	}
	if k == 1 {
		dropColumns(&t, 6, 8)
	}
	t.Notes = append(t.Notes, nlNotes(r.Groups)...)
	return t
}

func (r *Report) actions() Table {
	t := Table{ID: TableActions, Title: "Action-level reliability: share of gold actions matched (%)"}
	t.Header = []string{"Domain", "Backbone", "Agent", "Sims", "Gold actions", "Matched", "Gold writes", "Writes matched"}
	for _, g := range r.Groups {
		a := g.Actions
		if a.Gold == 0 {
			continue
		}
		wm := missing
		if a.WriteGold > 0 {
			wm = pct(a.WriteShare())
		}
		t.add(g.Domain, r.backboneLabel(g), g.Agent, strconv.Itoa(a.Simulations), strconv.Itoa(a.Gold), pct(a.Share()), strconv.Itoa(a.WriteGold), wm)
	}
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "no gold actions known")
	}
	return t
}

func (r *Report) gate() Table {
	t := Table{ID: TableGate, Title: "Policy adherence (runs in which no executed write would be refused by the gate) and gate verdicts"}
	t.Header = []string{"Domain", "Backbone", "Agent", "Runs", "Adherence", "ALLOW", "REVISE", "BLOCK", "Shadow ALLOW", "Shadow REVISE", "Shadow BLOCK"}
	for _, g := range r.Groups {
		a := g.Adherence
		if a.Runs == 0 {
			continue
		}
		v := a.Verdicts
		t.add(g.Domain, r.backboneLabel(g), g.Agent, strconv.Itoa(a.Runs), pct(a.Share()),
			strconv.Itoa(v.Allow), strconv.Itoa(v.Revise), strconv.Itoa(v.Block), strconv.Itoa(v.ShadowAllow), strconv.Itoa(v.ShadowRevise), strconv.Itoa(v.ShadowBlock))
	}
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "no run reports gate verdicts (agent_info.gate)")
	}
	return t
}

// errorCategories are the table's columns: infrastructure is counted apart.
var errorCategories = []metrics.Category{metrics.MissedAction, metrics.WrongArguments, metrics.ExtraWrite, metrics.PrematureTransfer,
	metrics.MissingInfo, metrics.UserSimulator, metrics.Limits, metrics.Other}

func (r *Report) errors() Table {
	t := Table{ID: TableErrors, Title: "Error breakdown: share of failed simulations (%) by category"}
	t.Header = []string{"Domain", "Backbone", "Agent", "Failed"}
	var legend []string
	for _, c := range errorCategories {
		t.Header = append(t.Header, c.Short())
		legend = append(legend, c.Short()+" = "+c.Label())
	}
	t.Header = append(t.Header, "Infra")
	t.Notes = append(t.Notes, "cells: share of failures (count); "+strings.Join(legend, "; ")+"; infra = infrastructure errors (not failures: excluded from pass^k)")
	revs := r.opts.Reviews
	if revs != nil {
		t.Header = append(t.Header, "Reviewed", "Rev agent", "Rev user", "Rev crit user")
		t.Notes = append(t.Notes, "LLM review (ledgerbench review): Reviewed = failed simulations reviewed; Rev agent / Rev user / Rev crit user = share of those (count) in which the review found an agent error, a user-simulator error, a critical user error (critical_helped or critical_hindered)")
	}
	var allRev ReviewCounts
	for _, g := range r.Groups {
		row := []any{g.Domain, r.backboneLabel(g), g.Agent, strconv.Itoa(g.Failed)}
		for _, c := range errorCategories {
			if g.Failed == 0 {
				row = append(row, missing)
				continue
			}
			row = append(row, shareWithCount(g.ErrorShare(c), g.Errors[c]))
		}
		row = append(row, strconv.Itoa(g.Errors[metrics.Infrastructure]))
		if revs != nil {
			c := revs[g.Key]
			row = append(row, reviewCells(c)...)
			allRev.add(c)
			if c.Failed > 0 {
				t.Notes = append(t.Notes, fmt.Sprintf("%s: %d failed reviews (infrastructure errors; ledgerbench review again to retry)", groupName(g), c.Failed))
			}
		}
		t.add(row...)
	}
	// Totals over every group, as the paper's overall shares.
	total := map[metrics.Category]int{}
	failed := 0
	for _, g := range r.Groups {
		failed += g.Failed
		for c, n := range g.Errors {
			total[c] += n
		}
	}
	if len(r.Groups) > 1 && failed > 0 {
		row := []any{"All", "", "", strconv.Itoa(failed)}
		for _, c := range errorCategories {
			row = append(row, shareWithCount(float64(total[c])/float64(failed), total[c]))
		}
		row = append(row, strconv.Itoa(total[metrics.Infrastructure]))
		if revs != nil {
			row = append(row, reviewCells(allRev)...)
		}
		t.add(row...)
	}
	t.Notes = append(t.Notes, nlNotes(r.Groups)...)
	return t
}

func (r *Report) costs() Table {
	t := Table{ID: TableCosts, Title: "Tokens and cost: per-simulation means and run totals (USD)"}
	t.Header = []string{"Domain", "Backbone", "Agent", "Sims", "Agent calls/sim", "Agent prompt tok/sim", "Agent completion tok/sim",
		"User tok/sim", "Judge tok/sim", "Agent $", "User $", "Judge $", "Total $", "$/sim", "Agent cached %", "User cached %"}
	var all metrics.Cost
	for _, g := range r.Groups {
		t.add(costRow(g.Domain, r.backboneLabel(g), g.Agent, g.Cost)...)
		t.Notes = append(t.Notes, unknownNotes(groupName(g), g.Cost)...)
		all.Merge(g.Cost)
	}
	if len(r.Groups) > 1 {
		t.add(costRow("All", "", "", all)...)
		if len(all.Unknown) > 0 || all.Unjudged > 0 {
			t.Notes = append(t.Notes, "All: a mean or total is — where any group's value is unknown (never divided by simulations whose values are unknown)")
		}
	}
	return t
}

// unknownFields names the cost and usage fields a costs note speaks of.
var unknownFields = []struct{ field, what string }{
	{results.UnknownAgentUsage, "agent tokens"}, {results.UnknownUserUsage, "user tokens"}, {results.UnknownJudgeUsage, "judge tokens"},
	{results.UnknownAgentCost, "agent cost"}, {results.UnknownUserCost, "user cost"}, {results.UnknownJudgeCost, "judge cost"},
}

// unknownNotes say which values of a group are unknown, for how many of its
// simulations.
func unknownNotes(name string, c metrics.Cost) []string {
	var parts []string
	for _, f := range unknownFields {
		if n := c.Unknown[f.field]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s in %d of %d", f.what, n, c.Simulations))
		}
	}
	var out []string
	if len(parts) > 0 {
		out = append(out, fmt.Sprintf("%s: unknown (a backbone without a price, or not recorded in the file): %s simulations, so those columns are —",
			name, strings.Join(parts, ", ")))
	}
	if n := c.Agent.CacheUnknown + c.User.CacheUnknown; n > 0 && c.Agent.PromptTokens+c.User.PromptTokens > 0 {
		out = append(out, fmt.Sprintf("%s: %d model calls reported no cached prompt tokens (τ²-bench's files record none), so the cached share is —",
			name, n))
	}
	if c.Unjudged > 0 {
		out = append(out, fmt.Sprintf("%s: NL assertions not judged in %d of %d simulations (--no-judge): the judge columns are —; totals are what was spent",
			name, c.Unjudged, c.Simulations))
	}
	return out
}

func costRow(domain, backbone, agent string, c metrics.Cost) []any {
	// A value some simulation does not have known (a backbone without a
	// price, a results file that does not record it, a judge that was not
	// asked) is missing, never 0 and never a mean over the others.
	mean := func(field string, x float64) num {
		m, ok := c.Mean(field, x)
		if !ok {
			return missing
		}
		return fixed(m, 1)
	}
	usd := func(field string, x float64) num {
		if c.Unknown[field] > 0 || field == results.UnknownJudgeCost && c.Unjudged > 0 {
			return missing
		}
		return fixed(x, 4)
	}
	judgeTokens := missing
	if c.Unjudged == 0 {
		judgeTokens = mean(results.UnknownJudgeUsage, float64(c.Judge.Total()))
	}
	total, perSim := missing, missing
	if c.TotalKnown() {
		total = fixed(c.Total(), 4)
		if c.Simulations > 0 {
			perSim = fixed(c.PerSim(c.Total()), 4)
		}
	}
	// The share of prompt tokens served from the provider's cache: unknown
	// when a call's usage did not report it (τ²-bench files never do).
	cached := func(field string, u message.Usage) num {
		if sh, ok := c.CachedShare(field, u); ok {
			return fixed(100*sh, 1)
		}
		return missing
	}
	return []any{domain, backbone, agent, strconv.Itoa(c.Simulations),
		mean(results.UnknownAgentUsage, float64(c.AgentCalls)), mean(results.UnknownAgentUsage, float64(c.Agent.PromptTokens)),
		mean(results.UnknownAgentUsage, float64(c.Agent.CompletionTokens)),
		mean(results.UnknownUserUsage, float64(c.User.Total())), judgeTokens,
		usd(results.UnknownAgentCost, c.AgentCost), usd(results.UnknownUserCost, c.UserCost), usd(results.UnknownJudgeCost, c.JudgeCost),
		total, perSim, cached(results.UnknownAgentUsage, c.Agent), cached(results.UnknownUserUsage, c.User)}
}

// dropColumns removes columns (by index) from a table; tables drop their
// pass^K columns when K is 1 (they would repeat pass^1).
func dropColumns(t *Table, idx ...int) {
	keep := func(row []string) []string {
		var out []string
		for i, c := range row {
			if !slices.Contains(idx, i) {
				out = append(out, c)
			}
		}
		return out
	}
	t.Header = keep(t.Header)
	for i, r := range t.Rows {
		t.Rows[i] = keep(r)
	}
	for i, r := range t.Values {
		if r == nil {
			continue
		}
		var out []any
		for j, v := range r {
			if !slices.Contains(idx, j) {
				out = append(out, v)
			}
		}
		t.Values[i] = out
	}
}

func list(ids []string, n int) string {
	if len(ids) > n {
		return strings.Join(ids[:n], ", ") + fmt.Sprintf(", … %d more", len(ids)-n)
	}
	return strings.Join(ids, ", ")
}

// GroupJSON is one run group in the JSON report.
type GroupJSON struct {
	metrics.Key
	Records        int                  `json:"records"`
	Scored         int                  `json:"scored"`
	Infrastructure int                  `json:"infrastructure_errors"`
	Duplicates     int                  `json:"duplicates"`
	Simulated      int                  `json:"simulated"`
	NLUnjudged     int                  `json:"nl_unjudged"`
	Tasks          int                  `json:"tasks"`
	Successes      int                  `json:"successes"`
	Failed         int                  `json:"failed"`
	K              int                  `json:"k"`
	AvgReward      *float64             `json:"avg_reward"`
	PassHatK       omap.Map[*float64]   `json:"pass_hat_k"`
	TasksPerK      omap.Map[int]        `json:"tasks_per_k"`
	Incomplete     []metrics.TaskTrials `json:"incomplete_tasks"`
	Write          SubsetJSON           `json:"write_subset"`
	Actions        ActionsJSON          `json:"action_reliability"`
	Adherence      AdherenceJSON        `json:"policy_adherence"`
	Errors         omap.Map[int]        `json:"errors"`
	ErrorShares    omap.Map[*float64]   `json:"error_shares"`
	Cost           CostJSON             `json:"cost"`
	Overhead       *metrics.Overhead    `json:"overhead_vs_baseline,omitempty"`
}

// SubsetJSON is the environment-changing subset in JSON.
type SubsetJSON struct {
	Tasks      int                  `json:"tasks"`
	Known      int                  `json:"known"`
	Share      *float64             `json:"share"`
	PassHatK   omap.Map[*float64]   `json:"pass_hat_k"`
	TasksPerK  omap.Map[int]        `json:"tasks_per_k"`
	Unknown    []string             `json:"unknown_tasks"`
	Incomplete []metrics.TaskTrials `json:"incomplete_tasks"`
}

// ActionsJSON is action-level reliability in JSON.
type ActionsJSON struct {
	metrics.ActionReliability
	Share      *float64 `json:"share"`
	WriteShare *float64 `json:"write_share"`
}

// AdherenceJSON is policy adherence in JSON.
type AdherenceJSON struct {
	metrics.Adherence
	Share *float64 `json:"share"`
}

// CostJSON is token and cost accounting in JSON: a cost some simulation
// of the group has unknown is null (the counts are in "unknown").
type CostJSON struct {
	metrics.Cost
	AgentCost *float64 `json:"agent_cost"`
	UserCost  *float64 `json:"user_cost"`
	JudgeCost *float64 `json:"judge_cost"`
	Total     *float64 `json:"total_cost"`
}

func costJSON(c metrics.Cost) CostJSON {
	known := func(field string, x float64) *float64 { return valueIf(c.Unknown[field] == 0, x) }
	return CostJSON{Cost: c, AgentCost: known(results.UnknownAgentCost, c.AgentCost), UserCost: known(results.UnknownUserCost, c.UserCost),
		JudgeCost: valueIf(c.Unknown[results.UnknownJudgeCost] == 0 && c.Unjudged == 0, c.JudgeCost), Total: valueIf(c.TotalKnown(), c.Total())}
}

// passMaps are pass^k and its task counts by k; pass^k is null for a k no
// task has trials for.
func passMaps(p metrics.PassK) (omap.Map[*float64], omap.Map[int]) {
	var v omap.Map[*float64]
	var n omap.Map[int]
	for k := 1; k <= p.K; k++ {
		v.Set(strconv.Itoa(k), valueIf(hasK(p, k), p.At(k)))
		n.Set(strconv.Itoa(k), p.Tasks[k-1])
	}
	return v, n
}

// valueIf is &x when ok, else nil (JSON null: no data).
func valueIf(ok bool, x float64) *float64 {
	if !ok {
		return nil
	}
	return &x
}

// JSON returns one object per run group.
func (r *Report) JSON() []GroupJSON {
	out := make([]GroupJSON, 0, len(r.Groups))
	for _, g := range r.Groups {
		j := GroupJSON{Key: g.Key, Records: g.Records, Scored: g.Scored, Infrastructure: g.Infrastructure, Duplicates: g.Duplicates, Simulated: g.Simulated, NLUnjudged: g.NLUnjudged,
			Tasks: g.Tasks, Successes: g.Successes, Failed: g.Failed, K: g.K, AvgReward: valueIf(g.Scored > 0, g.AvgReward),
			Incomplete: nonNil(g.Incomplete)}
		j.PassHatK, j.TasksPerK = passMaps(g.PassK)
		w := g.Write
		j.Write = SubsetJSON{Tasks: w.Tasks, Known: w.Known, Share: valueIf(w.Known > 0, w.Share()), Unknown: nonNil(w.Unknown), Incomplete: nonNil(w.Incomplete)}
		j.Write.PassHatK, j.Write.TasksPerK = passMaps(w.PassK)
		j.Actions = ActionsJSON{ActionReliability: g.Actions, Share: valueIf(g.Actions.Gold > 0, g.Actions.Share()),
			WriteShare: valueIf(g.Actions.WriteGold > 0, g.Actions.WriteShare())}
		j.Adherence = AdherenceJSON{Adherence: g.Adherence, Share: valueIf(g.Adherence.Runs > 0, g.Adherence.Share())}
		for _, c := range metrics.Categories() {
			j.Errors.Set(string(c), g.Errors[c])
			if c != metrics.Infrastructure {
				j.ErrorShares.Set(string(c), valueIf(g.Failed > 0, g.ErrorShare(c)))
			}
		}
		j.Cost = costJSON(g.Cost)
		if g.Agent != r.opts.Baseline {
			for _, p := range metrics.Match(r.Groups, r.opts.Baseline, g.Agent) {
				if p.Other.Key == g.Key {
					ov := metrics.UsageOverhead([]metrics.Pair{p})
					j.Overhead = &ov
				}
			}
		}
		out = append(out, j)
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
