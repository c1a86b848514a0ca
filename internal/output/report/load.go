// Package report turns run records into the paper's tables and figures:
// Table 2 (pass^1 / pass^k per domain, baseline against LedgerAgent, per
// backbone), the IRMA-style comparison with token overheads, the
// environment-changing subset, action-level reliability, policy adherence
// and gate verdicts, the error breakdown and costs. Tables render as text,
// markdown or CSV (tablewriter, encoding/csv); the JSON form is one object
// per run group; figures are SVG (gonum plot).
package report

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/engine/review"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Kind is the format of a report input.
type Kind string

const (
	// RunDir is a ledgerbench run directory (manifest.json +
	// simulations.jsonl).
	RunDir Kind = "run"
	// Tau2 is a τ²-bench results JSON.
	Tau2 Kind = "tau2"
	// V1 is a τ-bench v1 / τ-Trait results list.
	V1 Kind = "tau-bench-v1"
)

// Source is one loaded input.
type Source struct {
	Path     string
	Kind     Kind
	Records  []results.Record
	Manifest *results.Manifest // run directories only
	// Tasks are the tasks a τ²-bench results file embeds.
	Tasks []tasks.Task
	// Superseded counts records of a run directory replaced by a re-run;
	// SupersededRecords are they (counted in cost totals only: they were
	// paid for).
	Superseded        int
	SupersededRecords []results.Record
	// Plan is what the run meant to cover (trials per task, task ids), when
	// the input says.
	Plan metrics.Plan
	// Labelled reports a domain label given for the input (Labels.Domain):
	// a v1 list then keeps it rather than the detected domain.
	Labelled bool
	// Reviews are the LLM reviews beside the input (nil: none).
	Reviews *review.Reviews
}

// Labels override the labels of every record of an input (empty fields
// keep the record's own). For τ-bench v1 lists they also fill what the file
// name does not say.
type Labels = results.V1Labels

// Load reads a run directory, a τ²-bench results JSON or a τ-bench v1 /
// τ-Trait results list, telling them apart by content, and the LLM reviews
// beside a run or τ²-bench file (review.Path), if any.
func Load(path string, labels Labels) (*Source, error) {
	src, err := load(path, labels)
	if err != nil || src.Kind == V1 {
		return src, err
	}
	if src.Reviews, err = review.Read(review.Path(path)); err != nil {
		return nil, err
	}
	return src, nil
}

func load(path string, labels Labels) (*Source, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("report input: %w", err)
	}
	if _, _, ok := results.Tau2DirPaths(path); ok {
		return loadTau2(path, labels)
	}
	if !fi.IsDir() && filepath.Base(path) == results.SimulationsFile {
		path = filepath.Dir(path)
		fi, err = os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("report input: %w", err)
		}
	}
	if fi.IsDir() {
		run, err := results.LoadRun(path)
		if err != nil {
			return nil, err
		}
		src := &Source{Path: path, Kind: RunDir, Records: run.Records, Manifest: run.Manifest, Superseded: run.Superseded,
			SupersededRecords: run.SupersededRecords, Plan: metrics.Plan{Trials: run.Manifest.Trials, TaskIDs: run.Manifest.TaskIDs}}
		// Records written before they carried the trait take the manifest's.
		trait := usersim.TraitLabel(run.Manifest.Traits, usersim.TraitMode(run.Manifest.TraitMode))
		for _, recs := range [][]results.Record{src.Records, src.SupersededRecords} {
			for i := range recs {
				if recs[i].Trait == "" {
					recs[i].Trait = trait
				}
			}
		}
		relabel(src.Records, labels)
		relabel(src.SupersededRecords, labels)
		return src, nil
	}
	kind, err := sniff(path)
	if err != nil {
		return nil, err
	}
	switch kind {
	case V1:
		recs, err := results.ReadV1(path, labels)
		if err != nil {
			return nil, err
		}
		src := &Source{Path: path, Kind: V1, Records: recs, Labelled: labels.Domain != ""}
		return src, nil
	default:
		return loadTau2(path, labels)
	}
}

// loadTau2 reads a τ²-bench results file, one JSON or upstream's
// directory format.
func loadTau2(path string, labels Labels) (*Source, error) {
	f, err := results.ReadTau2(path)
	if err != nil {
		return nil, err
	}
	recs, err := results.FromTau2(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	src := &Source{Path: path, Kind: Tau2, Records: recs}
	if meta, err := f.Meta(); err == nil {
		src.Plan.Trials = meta.Trials
	}
	if len(recs) > 0 {
		ts, err := f.Tau2Tasks(recs[0].Domain)
		if err != nil {
			return nil, fmt.Errorf("%s: embedded tasks: %w", path, err)
		}
		src.Tasks = ts
	}
	relabel(src.Records, labels)
	return src, nil
}

// sniff tells a JSON list (v1) from a JSON object (τ²-bench).
func sniff(path string) (Kind, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("report input: %w", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		b, err := r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return "", fmt.Errorf("%s: empty file", path)
			}
			return "", fmt.Errorf("read %s: %w", path, err)
		}
		switch {
		case bytes.IndexByte([]byte(" \t\r\n"), b) >= 0:
			continue
		case b == '[':
			return V1, nil
		case b == '{':
			return Tau2, nil
		default:
			return "", fmt.Errorf("%s: not a run directory, a τ²-bench results JSON or a τ-bench v1 list", path)
		}
	}
}

func relabel(recs []results.Record, l Labels) {
	for i := range recs {
		r := &recs[i]
		if l.Domain != "" {
			r.Domain = l.Domain
		}
		if l.Agent != "" {
			r.Agent = l.Agent
		}
		if l.Backbone != "" {
			r.Backbone = l.Backbone
		}
		if l.UserBackbone != "" {
			r.UserBackbone = l.UserBackbone
		}
		if l.Trait != "" {
			r.Trait = l.Trait
		}
	}
}

// Catalog joins what is known of tasks and tools: loaded domains first, then
// the tasks τ²-bench results files embed.
type Catalog struct {
	Domains metrics.Catalog // may be nil
	tasks   map[[2]string]*tasks.Task
}

// NewCatalog builds a catalog over domains (may be nil) and the tasks
// embedded in sources.
func NewCatalog(domains metrics.Catalog, sources []*Source) *Catalog {
	c := &Catalog{Domains: domains, tasks: map[[2]string]*tasks.Task{}}
	for _, s := range sources {
		if len(s.Tasks) == 0 || len(s.Records) == 0 {
			continue
		}
		dom := s.Records[0].Domain
		for i := range s.Tasks {
			k := [2]string{dom, s.Tasks[i].ID}
			if _, ok := c.tasks[k]; !ok {
				c.tasks[k] = &s.Tasks[i]
			}
		}
	}
	return c
}

// Task implements metrics.Catalog.
func (c *Catalog) Task(domain, id string) (*tasks.Task, bool) {
	if c.Domains != nil {
		if t, ok := c.Domains.Task(domain, id); ok {
			return t, true
		}
	}
	t, ok := c.tasks[[2]string{domain, id}]
	return t, ok
}

// ToolKind implements metrics.Catalog.
func (c *Catalog) ToolKind(domain string, req message.Requestor, name string) (tool.Kind, bool) {
	if c.Domains == nil {
		return "", false
	}
	return c.Domains.ToolKind(domain, req, name)
}

// Dropped describes the records Summarize leaves out as duplicates: a
// scored (task, trial) unit of a group that an earlier input already holds,
// one line per pair of inputs ("20 records of telehealth/baseline in B
// repeat units of A"). Every table counts the first.
func Dropped(sources []*Source) []string {
	type unit struct {
		key   metrics.Key
		task  string
		trial int
	}
	first := map[unit]string{}
	type pair struct {
		key      metrics.Key
		from, of string
	}
	n := map[pair]int{}
	var order []pair
	for _, s := range sources {
		for i := range s.Records {
			r := &s.Records[i]
			if r.Infrastructure() {
				continue
			}
			u := unit{metrics.KeyOf(r), r.TaskID, r.Trial}
			of, seen := first[u]
			if !seen {
				first[u] = s.Path
				continue
			}
			p := pair{u.key, s.Path, of}
			if n[p] == 0 {
				order = append(order, p)
			}
			n[p]++
		}
	}
	out := make([]string, 0, len(order))
	for _, p := range order {
		where := "in " + p.from + " repeat (task, trial) units of " + p.of
		if p.from == p.of {
			where = "in " + p.from + " repeat (task, trial) units of the same input"
		}
		out = append(out, fmt.Sprintf("%d record(s) of %s %s: dropped, every table counts the first (if they are different runs, label them apart: --agent, --backbone, --user-backbone)",
			n[p], groupName(metrics.Summary{Key: p.key}), where))
	}
	return out
}

// Summarize computes the run groups of sources. A group's plan (trials per
// task, task ids) comes from the sources that hold it; records are taken in
// input order (a (task, trial) seen twice counts once).
func Summarize(sources []*Source, domains metrics.Catalog) []metrics.Summary {
	var recs, paid []results.Record
	plans := map[metrics.Key]metrics.Plan{}
	for _, s := range sources {
		recs = append(recs, s.Records...)
		paid = append(paid, s.SupersededRecords...)
		keys := map[metrics.Key]bool{}
		for i := range s.Records {
			keys[metrics.KeyOf(&s.Records[i])] = true
		}
		if m := s.Manifest; m != nil && len(s.Records) == 0 {
			keys[metrics.Key{Domain: m.Domain, Agent: m.Agent, Backbone: m.Backbone, UserBackbone: m.UserBackbone,
				Trait: usersim.TraitLabel(m.Traits, usersim.TraitMode(m.TraitMode))}] = true
		}
		for k := range keys {
			p := plans[k]
			p.Trials = max(p.Trials, s.Plan.Trials)
			for _, id := range s.Plan.TaskIDs {
				if !slices.Contains(p.TaskIDs, id) {
					p.TaskIDs = append(p.TaskIDs, id)
				}
			}
			plans[k] = p
		}
	}
	cat := NewCatalog(domains, sources)
	return metrics.Summarize(recs, metrics.Options{Catalog: cat, Superseded: paid, Plan: func(k metrics.Key) metrics.Plan { return plans[k] }})
}
