// Package leaderboard shows τ²-bench's published leaderboard from the
// pinned submission metadata (web/leaderboard/public/submissions:
// manifest.json and one submission.json per entry), ranked as upstream's
// `tau2 leaderboard` ranks it (src/tau2/scripts/leaderboard/leaderboard.py:
// get_top_models for a domain, get_top_models_overall across domains), with
// standard and custom submissions apart, and places the user's own runs
// among the published entries with their pass^k and what differs from a
// standard entry.
package leaderboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/output/submit"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// ManifestFile is upstream's MANIFEST_FILE_NAME.
const ManifestFile = "manifest.json"

// Entry is one published submission.
type Entry struct {
	// ID is the submission's folder name.
	ID         string
	Submission *submit.Submission
	// Legacy marks an entry of the manifest's legacy_submissions (previous
	// benchmark versions), which upstream's leaderboard leaves out.
	Legacy bool
}

// Board is the published leaderboard.
type Board struct {
	// Entries are in the manifest's order: submissions, voice_submissions,
	// then legacy_submissions; an id listed twice is there once.
	Entries []Entry
	// Warnings name the submissions that could not be loaded (upstream
	// prints a warning and leaves them out).
	Warnings []string
}

// manifest is upstream's LeaderboardManifest (extra keys forbidden).
type manifest struct {
	Submissions       []string `json:"submissions"`
	VoiceSubmissions  []string `json:"voice_submissions"`
	LegacySubmissions []string `json:"legacy_submissions"`
	LastUpdated       *string  `json:"last_updated"`
}

// Load reads the submissions folder dir as upstream's Leaderboard.load:
// the ids of manifest.json (without one, every folder not starting with
// "." or "A_EXAMPLE", in name order), each from its submission.json.
func Load(dir string) (*Board, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("leaderboard: submissions folder %s not found (ledgerbench data pull fetches it): %w", dir, err)
	}
	var lists [3][]string
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		des, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("leaderboard: %w", err)
		}
		for _, d := range des {
			if d.IsDir() && !strings.HasPrefix(d.Name(), ".") && !strings.HasPrefix(d.Name(), "A_EXAMPLE") {
				lists[0] = append(lists[0], d.Name())
			}
		}
	case err != nil:
		return nil, fmt.Errorf("leaderboard: %w", err)
	default:
		var m manifest
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("leaderboard: %s: %w", filepath.Join(dir, ManifestFile), err)
		}
		lists = [3][]string{m.Submissions, m.VoiceSubmissions, m.LegacySubmissions}
	}
	board := &Board{}
	seen := map[string]bool{}
	for i, ids := range lists {
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			p := filepath.Join(dir, id, submit.SubmissionFile)
			if _, err := os.Stat(p); err != nil {
				board.Warnings = append(board.Warnings, fmt.Sprintf("submission %s listed in %s has no %s", id, ManifestFile, submit.SubmissionFile))
				continue
			}
			s, err := submit.ReadSubmission(p)
			if err != nil {
				board.Warnings = append(board.Warnings, fmt.Sprintf("failed to load submission %s: %v", id, err))
				continue
			}
			board.Entries = append(board.Entries, Entry{ID: id, Submission: s, Legacy: i == 2})
		}
	}
	return board, nil
}

// Metric is what the leaderboard ranks by: pass^1…pass^4 (percent) or the
// mean agent cost of a simulation (USD).
type Metric struct{ k int }

// Cost is the cost metric.
var Cost = Metric{}

// PassK is pass^k, k = 1…4.
func PassK(k int) Metric { return Metric{k} }

// Metrics are the metric names, upstream's spelling.
func Metrics() []string { return []string{"pass_1", "pass_2", "pass_3", "pass_4", "cost"} }

// ParseMetric reads a metric name: upstream's pass_1…pass_4 and cost, or
// pass^1…pass^4.
func ParseMetric(s string) (Metric, error) {
	if s == "cost" {
		return Cost, nil
	}
	for _, p := range []string{"pass_", "pass^"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			if k, err := strconv.Atoi(rest); err == nil && k >= 1 && k <= 4 && rest == strconv.Itoa(k) {
				return PassK(k), nil
			}
		}
	}
	return Metric{}, fmt.Errorf("unknown metric %q (want pass_1, pass_2, pass_3, pass_4 or cost)", s)
}

// K is the metric's k (0 for cost).
func (m Metric) K() int { return m.k }

// String is the metric as the tables head it: pass^k, or cost.
func (m Metric) String() string {
	if m.k == 0 {
		return "cost"
	}
	return fmt.Sprintf("pass^%d", m.k)
}

// of is the metric of one domain's results (nil when absent).
func (m Metric) of(d *submit.DomainResults) *float64 {
	if d == nil {
		return nil
	}
	if m.k == 0 {
		return d.Cost
	}
	return d.PassK(m.k)
}

// Score is an entry's score as upstream ranks it: the domain's metric, or,
// for domain "", the mean of the metric over the domains that have it
// (nil when none has).
func Score(s *submit.Submission, domain string, m Metric) *float64 {
	if domain != "" {
		return m.of(*s.Results.Domain(domain))
	}
	var sum float64
	n := 0
	for _, d := range submit.Domains() {
		if v := m.of(*s.Results.Domain(d)); v != nil {
			sum += *v
			n++
		}
	}
	if n == 0 {
		return nil
	}
	avg := sum / float64(n)
	return &avg
}

// userSimulators are the user simulators the standard text entries with a
// score for domain (any, for "") name, in order of first appearance.
func (b *Board) userSimulators(domain string, m Metric) []string {
	var out []string
	for _, e := range b.Entries {
		s := e.Submission
		if e.Legacy || s.SubmissionType != "standard" || s.Modality != "text" || Score(s, domain, m) == nil {
			continue
		}
		if mt := s.Methodology; mt != nil && mt.UserSimulator != nil && !slices.Contains(out, *mt.UserSimulator) {
			out = append(out, *mt.UserSimulator)
		}
	}
	return out
}

// Request is one leaderboard command: the data directory, the runs to
// place (paths as submit prepare takes them) and what to show.
type Request struct {
	DataDir string
	Runs    []string
	Options
	// Base gives a domain's base-split task ids (nil: DomainBase(DataDir)).
	Base BaseTaskIDs
}

// Result is what a request shows: its tables, and warnings (submissions
// that did not load).
type Result struct {
	Tables   []report.Table
	Warnings []string
}

// Show loads the pinned submissions of req.DataDir and the runs, and ranks
// them.
func Show(req Request) (*Result, error) {
	board, err := Load(data.Tau2Submissions(req.DataDir))
	if err != nil {
		return nil, err
	}
	base := req.Base
	if base == nil {
		base = DomainBase(req.DataDir)
	}
	if len(req.Runs) > 0 {
		runs, err := LoadRuns(req.Runs, base)
		if err != nil {
			return nil, err
		}
		req.Options.Runs = runs
	}
	tables, err := board.Tables(req.Options)
	if err != nil {
		return nil, err
	}
	return &Result{Tables: tables, Warnings: board.Warnings}, nil
}

// DomainBase reads base-split task ids from the domains of dataDir.
func DomainBase(dataDir string) BaseTaskIDs {
	return func(domain string) ([]string, error) {
		dom, err := domains.Load(domain, dataDir)
		if err != nil {
			return nil, err
		}
		base, err := dom.Tasks().Select(tasks.Selection{Split: "base"})
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(base))
		for i, t := range base {
			ids[i] = t.ID
		}
		return ids, nil
	}
}
