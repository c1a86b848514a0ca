package leaderboard

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/output/submit"
)

// Types of --type: the standard and the custom submissions apart (the
// default), one of them, or all in one ranking as `tau2 leaderboard`.
const (
	TypeApart    = ""
	TypeStandard = "standard"
	TypeCustom   = "custom"
	TypeAll      = "all"
)

// Options choose the leaderboard shown.
type Options struct {
	// Domain is one of submit.Domains(), or "" for the overall ranking (the
	// mean over the domains an entry has, as upstream's).
	Domain string
	Metric Metric
	// Limit keeps the first Limit published entries of each table (0: all);
	// the runs are always shown.
	Limit int
	// Type is TypeApart, TypeStandard, TypeCustom or TypeAll.
	Type string
	// Legacy adds the manifest's legacy submissions (previous benchmark
	// versions), which upstream's leaderboard leaves out.
	Legacy bool
	// Runs are placed among the published entries.
	Runs []*Run
}

// row is a published entry or a run in a ranking.
type row struct {
	entry *Entry
	run   *Run
	score float64
}

// Ranked is a published entry with its rank and score.
type Ranked struct {
	Entry *Entry
	Rank  int
	Score float64
}

// Rank ranks the entries include keeps as upstream's get_top_models (a
// domain) and get_top_models_overall (domain ""): entries without a score
// left out, the rest by score, highest first, ties in manifest order,
// ranked 1, 2, ….
func (b *Board) Rank(domain string, m Metric, include func(*Entry) bool) []Ranked {
	var out []Ranked
	for i := range b.Entries {
		e := &b.Entries[i]
		if !include(e) {
			continue
		}
		if v := Score(e.Submission, domain, m); v != nil {
			out = append(out, Ranked{Entry: e, Score: *v})
		}
	}
	slices.SortStableFunc(out, func(x, y Ranked) int { return cmp.Compare(y.Score, x.Score) })
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// Tables ranks the board as upstream's get_top_models (a domain) or
// get_top_models_overall (Domain ""): entries without a score left out,
// the rest by score, highest first (cost too, as `tau2 leaderboard`
// shows it), ties in manifest order, ranked 1, 2, … A run goes after the
// published entries of its score and has no rank; its footnote says what
// differs from a standard entry.
func (b *Board) Tables(opts Options) ([]report.Table, error) {
	if opts.Domain != "" && !slices.Contains(submit.Domains(), opts.Domain) {
		return nil, fmt.Errorf("leaderboard: unknown domain %q (want %s)", opts.Domain, strings.Join(submit.Domains(), ", "))
	}
	var types []string
	switch opts.Type {
	case TypeApart:
		types = []string{TypeStandard, TypeCustom}
	case TypeStandard, TypeCustom, TypeAll:
		types = []string{opts.Type}
	default:
		return nil, fmt.Errorf("leaderboard: unknown type %q (want standard, custom or all)", opts.Type)
	}
	var tables []report.Table
	for _, typ := range types {
		tables = append(tables, b.table(opts, typ))
	}
	return tables, nil
}

func (b *Board) table(opts Options, typ string) report.Table {
	var rows []row
	ranked := b.Rank(opts.Domain, opts.Metric, func(e *Entry) bool {
		return (!e.Legacy || opts.Legacy) && (typ == TypeAll || e.Submission.SubmissionType == typ)
	})
	for _, r := range ranked {
		rows = append(rows, row{entry: r.Entry, score: r.Score})
	}
	published := len(ranked)
	var unplaced []string
	for _, r := range opts.Runs {
		if typ != TypeAll && (typ == TypeStandard) != r.Standard {
			continue
		}
		if v := r.score(opts.Domain, opts.Metric); v != nil {
			rows = append(rows, row{run: r, score: *v})
		} else if d := r.domainsOf(opts.Domain); len(d) > 0 {
			unplaced = append(unplaced, fmt.Sprintf("%s (%s): no %s", r.Label, strings.Join(d, ", "), opts.Metric))
		} else {
			unplaced = append(unplaced, fmt.Sprintf("%s (%s): not a %s run", r.Label, strings.Join(r.domainsOf(""), ", "), opts.Domain))
		}
	}
	slices.SortStableFunc(rows, func(x, y row) int { return cmp.Compare(y.score, x.score) })

	what := "submissions"
	if typ != TypeAll {
		what = typ + " submissions"
	}
	scope := "overall"
	if opts.Domain != "" {
		scope = opts.Domain
	}
	t := report.Table{ID: "leaderboard", Title: fmt.Sprintf("τ²-bench leaderboard, %s (%s): %s", scope, opts.Metric, what),
		Header: []string{"rank", "model", "organization", "modality", metricHeader(opts.Metric)}}
	if typ != TypeAll {
		t.ID += "-" + typ
	}
	if opts.Domain == "" {
		for _, d := range submit.Domains() {
			t.Header = append(t.Header, domainTitle(d))
		}
	}
	if opts.Domain == "banking_knowledge" {
		t.Header = append(t.Header, "retrieval")
	}
	sims := b.userSimulators(opts.Domain, opts.Metric)
	rank := 0
	var notes []string
	for _, r := range rows {
		var cells []string
		var vals []any
		scores := func(res func(string) *submit.DomainResults) {
			if opts.Domain != "" {
				return
			}
			for _, d := range submit.Domains() {
				if v := opts.Metric.of(res(d)); v != nil {
					cells = append(cells, metricText(opts.Metric, *v))
					vals = append(vals, *v)
				} else {
					cells = append(cells, report.Missing)
					vals = append(vals, nil)
				}
			}
		}
		if e := r.entry; e != nil {
			rank++
			if opts.Limit > 0 && rank > opts.Limit {
				continue
			}
			s := e.Submission
			model := s.ModelName
			if e.Legacy {
				model += " (legacy)"
			}
			cells = []string{strconv.Itoa(rank), model, s.ModelOrganization, s.Modality, metricText(opts.Metric, r.score)}
			vals = []any{float64(rank), nil, nil, nil, r.score}
			scores(func(d string) *submit.DomainResults { return *s.Results.Domain(d) })
			if opts.Domain == "banking_knowledge" {
				rc := report.Missing
				if bk := s.Results.BankingKnowledge; bk.RetrievalConfig != nil {
					rc = *bk.RetrievalConfig
				}
				cells = append(cells, rc)
			}
		} else {
			run := r.run
			notes = append(notes, fmt.Sprintf("[%d] %s", len(notes)+1, run.note(opts.Domain, sims)))
			cells = []string{report.Missing, fmt.Sprintf("%s [%d]", run.Label, len(notes)), "your run", "text", metricText(opts.Metric, r.score)}
			vals = []any{nil, nil, nil, nil, r.score}
			scores(func(d string) *submit.DomainResults {
				if rd := run.Domains[d]; rd != nil {
					return &rd.Results
				}
				return nil
			})
			if opts.Domain == "banking_knowledge" {
				rc := report.Missing
				if v := run.Domains[opts.Domain].Results.RetrievalConfig; v != nil {
					rc = *v
				}
				cells = append(cells, rc)
			}
		}
		t.Rows = append(t.Rows, cells)
		for len(vals) < len(cells) {
			vals = append(vals, nil)
		}
		t.Values = append(t.Values, vals)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("published %s with a %s%s: %d", what, opts.Metric, scopeNote(opts.Domain), published))
	if opts.Limit > 0 && published > opts.Limit {
		t.Notes[0] += fmt.Sprintf(" (the first %d shown)", opts.Limit)
	}
	if opts.Metric == Cost {
		t.Notes = append(t.Notes, "cost: mean agent cost of a simulation in USD, ranked highest first as tau2 leaderboard ranks it")
	}
	if len(rows) > published {
		t.Notes = append(t.Notes, "runs (rank —) are placed after the published entries of their score and take no rank")
	}
	t.Notes = append(t.Notes, notes...)
	for _, u := range unplaced {
		t.Notes = append(t.Notes, "not placed: "+u)
	}
	return t
}

func scopeNote(domain string) string {
	if domain == "" {
		return " in some domain (the mean over the domains an entry has, as tau2 leaderboard ranks it)"
	}
	return " for " + domain
}

// score is a run's score as Score computes an entry's.
func (r *Run) score(domain string, m Metric) *float64 {
	var s submit.Submission
	for d, rd := range r.Domains {
		res := rd.Results
		*s.Results.Domain(d) = &res
	}
	return Score(&s, domain, m)
}

// domainsOf are the run's domains a table of domain ("" all) shows.
func (r *Run) domainsOf(domain string) []string {
	var out []string
	for _, d := range submit.Domains() {
		if r.Domains[d] != nil && (domain == "" || domain == d) {
			out = append(out, d)
		}
	}
	return out
}

// note is a run's footnote: where it is from and what differs from a
// standard entry, per domain shown.
func (r *Run) note(domain string, sims []string) string {
	var parts []string
	for _, d := range r.domainsOf(domain) {
		rd := r.Domains[d]
		differs := slices.Clone(rd.Differs)
		if len(sims) > 0 && !r.Simulated && !slices.Contains(sims, rd.userModel) {
			differs = append(differs, fmt.Sprintf("user simulator %s (the standard entries': %s)", rd.userModel, strings.Join(sims, ", ")))
		}
		s := d + " " + rd.Where
		var ks []string
		for k := 1; k <= leaderboardTrials; k++ {
			if v := rd.Results.PassK(k); v != nil {
				ks = append(ks, fmt.Sprintf("pass^%d %.1f", k, *v))
			}
		}
		if len(ks) > 0 {
			s += " (" + strings.Join(ks, ", ") + ")"
		}
		if len(differs) > 0 {
			s += ": " + strings.Join(differs, "; ")
		} else {
			s += ": as a standard entry"
		}
		parts = append(parts, s)
	}
	typ := "custom"
	if r.Standard {
		typ = "standard"
	}
	return fmt.Sprintf("%s (would be a %s submission) — %s", r.Label, typ, strings.Join(parts, " | "))
}

func metricHeader(m Metric) string {
	if m == Cost {
		return "cost (USD)"
	}
	return m.String()
}

// metricText is a score as text: pass^k to one decimal, cost to four.
func metricText(m Metric, v float64) string {
	if m == Cost {
		return strconv.FormatFloat(v, 'f', 4, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// domainTitle is a domain's column title as upstream's display titles it.
func domainTitle(d string) string {
	words := strings.Split(d, "_")
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}
