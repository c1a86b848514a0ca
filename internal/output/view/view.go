// Package view renders runs as one self-contained HTML page: an index of run
// groups (domain × agent × backbone) with pass^k and every simulation with
// filters, a side-by-side of two groups on the same tasks, and one page per
// simulation (the conversation with tool calls and errors, the reward
// breakdown with each failed check, the task's instructions and gold
// actions, and LedgerAgent's gate verdicts inline with the ledger as it stood
// at that turn).
//
// The page needs no network: CSS and a small dependency-free script are
// inlined and the index is embedded as compact JSON. Simulations are
// embedded ChunkSims at a time as gzip-compressed, base64-encoded JSON
// arrays, decoded with the browser's DecompressionStream only when one of
// them is opened (a 1,026-simulation retail run: 23 MB as plain JSON, 1.4 MB
// so); Options.Plain embeds plain JSON blocks instead, and
// Options.ChunkDir writes the chunks as script files beside the page
// (loaded by <script src>, which works from file:// where fetch does not),
// so the page itself stays small for runs of tens of thousands of
// simulations. The index paginates.
package view

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/engine/review"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

//go:embed page.html
var pageHTML string

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

var page = template.Must(template.New("page").Parse(pageHTML))

// Options tune a page.
type Options struct {
	// Title heads the page (default "ledgerbench view").
	Title string
	// Catalog gives tasks (instructions, gold actions) and tool kinds beyond
	// what the sources carry; nil uses only the sources.
	Catalog metrics.Catalog
	// Domains, when given, let the page say which database fields differ
	// for simulations whose DB check failed (both databases are rebuilt by
	// replaying the gold actions and the trajectory's writes).
	Domains []envs.Domain
	// MaxDBDiffs bounds how many simulations get their database differences
	// computed (each costs two database dumps); 0 computes none, a negative
	// value all.
	MaxDBDiffs int
	// Plain embeds each simulation as plain JSON instead of gzip-compressed
	// chunks, for browsers without DecompressionStream (the page says so
	// when it meets one); pages are about 15 times larger.
	Plain bool
	// ChunkDir, when set, writes the compressed chunks as script files in
	// this directory instead of inside the page; the page loads a chunk
	// with a <script src> (which works from file://, unlike fetch) when a
	// simulation of it is opened. ChunkHref is the directory as the page
	// refers to it (relative to the page), default ChunkDir's base name.
	ChunkDir  string
	ChunkHref string
}

// ChunkSims is how many simulations share one compressed chunk.
const ChunkSims = 64

// Stats says what a page holds.
type Stats struct {
	Groups      int
	Simulations int
	Tasks       int
	// Bytes is the page's size; ChunkBytes what the chunk files beside it
	// hold (0 when the chunks are inside the page).
	Bytes      int64
	Chunks     int
	ChunkBytes int64
}

// Group is one run group of the index.
type group struct {
	Domain       string `json:"domain"`
	Agent        string `json:"agent"`
	Backbone     string `json:"backbone"`
	UserBackbone string `json:"user_backbone"`
	Trait        string `json:"trait,omitempty"`
	Records      int    `json:"records"`
	Scored       int    `json:"scored"`
	Infra        int    `json:"infra"`
	Tasks        int    `json:"tasks"`
	K            int    `json:"k"`
	// PassK[k-1] and AvgReward are null when no scored simulation is
	// behind them (never 0).
	PassK     []*float64 `json:"pass_k"`
	AvgReward *float64   `json:"avg_reward"`
	// Cost is the mean cost per simulation, null when some simulation's
	// cost is unknown (a backbone without a price).
	Cost *float64 `json:"cost"`
	// Cached is the share of the agent's and the user simulator's prompt
	// tokens the provider served from its cache, null when a call did not
	// report it (τ²-bench's files never do).
	Cached *float64 `json:"cached"`
	Failed int      `json:"failed"`
	// NLUnjudged counts scored simulations whose NL assertions were not
	// judged; Simulated the records of the offline sim backbone.
	NLUnjudged int            `json:"nl_unjudged,omitempty"`
	Simulated  int            `json:"simulated,omitempty"`
	Errors     map[string]int `json:"errors,omitempty"`
	Sources    []string       `json:"sources"`
}

// index is the page's index data. Sims holds one row per simulation:
// [group, task id, trial, reward, termination, cost, error category,
// gate stopped (0/1), verdicts, shadow verdicts (0/1)].
type index struct {
	Title      string            `json:"title"`
	Groups     []group           `json:"groups"`
	Sims       [][]any           `json:"sims"`
	Categories map[string]string `json:"categories"`
	// Chunk is how many simulations one chunk holds (0: one plain JSON block
	// per simulation, id s<i>); chunk c has id c<c>, inline or, with
	// ChunkHref, in the file ChunkHref/c<c>.js.
	Chunk     int    `json:"chunk"`
	ChunkHref string `json:"chunk_href,omitempty"`
}

// sim is one simulation's page data.
type sim struct {
	ID           string                `json:"id"`
	Source       string                `json:"source"`
	Task         int                   `json:"task"` // index of the task block, -1 when unknown
	TaskID       string                `json:"task_id"`
	Trial        int                   `json:"trial"`
	Seed         int64                 `json:"seed"`
	Domain       string                `json:"domain"`
	Agent        string                `json:"agent"`
	Backbone     string                `json:"backbone"`
	UserBackbone string                `json:"user_backbone"`
	Termination  string                `json:"termination"`
	Error        string                `json:"error,omitempty"`
	Duration     float64               `json:"duration"`
	Steps        int                   `json:"steps"`
	AgentCost    float64               `json:"agent_cost"`
	UserCost     float64               `json:"user_cost"`
	JudgeCost    float64               `json:"judge_cost,omitempty"`
	AgentUsage   message.Usage         `json:"agent_usage"`
	UserUsage    message.Usage         `json:"user_usage"`
	Reward       *evaluator.RewardInfo `json:"reward_info,omitempty"`
	Diagnosis    *metrics.Diagnosis    `json:"diagnosis,omitempty"`
	// DBDiff lists the database fields that differ from the gold database.
	DBDiff    []string          `json:"db_diff,omitempty"`
	Messages  []message.Message `json:"messages"`
	Gate      *gateView         `json:"gate,omitempty"`
	Simulated bool              `json:"simulated,omitempty"`
	// Unknown names the record's cost and usage fields that are not known.
	Unknown []string `json:"unknown,omitempty"`
	// NLUnjudged marks a reward whose NL assertions were not judged.
	NLUnjudged bool `json:"nl_unjudged,omitempty"`
	// Reviews are the simulation's LLM reviews (ledgerbench review), one per
	// mode reviewed, under upstream's field names.
	Reviews []review.Entry `json:"reviews,omitempty"`
}

// gateView is what the agent reported of its gate and ledger.
type gateView struct {
	Mode     string            `json:"mode"`
	Verdicts []verdict         `json:"verdicts"`
	Turns    []json.RawMessage `json:"turns,omitempty"`
}

type verdict struct {
	metrics.GateVerdict
	Turn      *int            `json:"turn,omitempty"`
	Clause    string          `json:"clause,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Failed    []string        `json:"failed,omitempty"`
	// Feedback is the tool result the model got for a call the gate
	// stopped (LedgerAgent records it in agent_info only).
	Feedback string `json:"feedback,omitempty"`
}

// passValues are pass^1…pass^K, nil for a k no task has scored trials for.
func passValues(p metrics.PassK) []*float64 {
	out := make([]*float64, len(p.Values))
	for k := 1; k <= len(p.Values); k++ {
		if k <= len(p.Tasks) && p.Tasks[k-1] > 0 {
			v := p.At(k)
			out[k-1] = &v
		}
	}
	return out
}

// Write renders sources as one HTML page.
func Write(ctx context.Context, w io.Writer, sources []*report.Source, opts Options) (Stats, error) {
	if opts.Title == "" {
		opts.Title = "ledgerbench view"
	}
	cw := &countWriter{w: bufio.NewWriterSize(w, 1<<16)}
	var all []results.Record
	var from []string
	var revOf []*review.Reviews
	for _, s := range sources {
		for range s.Records {
			from = append(from, s.Path)
			revOf = append(revOf, s.Reviews)
		}
		all = append(all, s.Records...)
	}
	cat := report.NewCatalog(opts.Catalog, sources)
	sums := report.Summarize(sources, opts.Catalog)
	gi := metrics.NewGoldIndex(cat, all)
	diffs := &dbDiffs{gold: map[[2]string][2]any{}}
	doms := map[string]envs.Domain{}
	for _, d := range opts.Domains {
		doms[d.Name()] = d
	}

	idx := index{Title: opts.Title, Categories: map[string]string{}}
	if !opts.Plain {
		idx.Chunk = ChunkSims
		if opts.ChunkDir != "" {
			idx.ChunkHref = opts.ChunkHref
			if idx.ChunkHref == "" {
				idx.ChunkHref = filepath.Base(opts.ChunkDir)
			}
		}
	}
	for _, c := range metrics.Categories() {
		idx.Categories[string(c)] = c.Label()
	}
	groupOf := map[metrics.Key]int{}
	for _, s := range sums {
		g := group{Domain: s.Domain, Agent: s.Agent, Backbone: s.Backbone, UserBackbone: s.UserBackbone, Trait: s.Trait,
			Records: s.Records, Scored: s.Scored, Infra: s.Infrastructure, Tasks: s.Tasks, K: s.K,
			PassK: passValues(s.PassK), Failed: s.Failed, NLUnjudged: s.NLUnjudged, Simulated: s.Simulated, Errors: map[string]int{}}
		if s.Cost.TotalKnown() && s.Cost.Simulations > 0 {
			c := s.Cost.PerSim(s.Cost.Total())
			g.Cost = &c
		}
		if sh, ok := s.Cost.CachedShare(results.UnknownUserUsage, s.Cost.Agent.Add(s.Cost.User)); ok && s.Cost.Unknown[results.UnknownAgentUsage] == 0 {
			g.Cached = &sh
		}
		if s.Scored > 0 {
			avg := s.AvgReward
			g.AvgReward = &avg
		}
		for c, n := range s.Errors {
			g.Errors[string(c)] = n
		}
		groupOf[s.Key] = len(idx.Groups)
		idx.Groups = append(idx.Groups, g)
	}

	type taskKey struct{ domain, id string }
	taskIdx := map[taskKey]int{}
	var taskList []*tasks.Task
	gixOf := make([]int, len(all))
	order := make([]int, len(all))
	for i := range all {
		k := metrics.KeyOf(&all[i])
		gix, ok := groupOf[k]
		if !ok {
			gix = len(idx.Groups)
			groupOf[k] = gix
			idx.Groups = append(idx.Groups, group{Domain: k.Domain, Agent: k.Agent, Backbone: k.Backbone, UserBackbone: k.UserBackbone, Trait: k.Trait})
		}
		gixOf[i], order[i] = gix, i
	}
	// Simulations in group order, then task, then trial.
	slices.SortStableFunc(order, func(a, b int) int {
		if gixOf[a] != gixOf[b] {
			return gixOf[a] - gixOf[b]
		}
		if c := metrics.CompareTaskIDs(all[a].TaskID, all[b].TaskID); c != 0 {
			return c
		}
		return all[a].Trial - all[b].Trial
	})
	sims := make([]sim, 0, len(all))
	for _, i := range order {
		r := &all[i]
		gix := gixOf[i]
		g := &idx.Groups[gix]
		if !slices.Contains(g.Sources, from[i]) {
			g.Sources = append(g.Sources, from[i])
		}
		ti := -1
		tk := taskKey{r.Domain, r.TaskID}
		if n, ok := taskIdx[tk]; ok {
			ti = n
		} else if t, ok := cat.Task(r.Domain, r.TaskID); ok {
			ti = len(taskList)
			taskIdx[tk] = ti
			taskList = append(taskList, t)
		}
		s := sim{ID: r.ID, Source: from[i], Task: ti, TaskID: r.TaskID, Trial: r.Trial, Seed: r.Seed,
			Domain: r.Domain, Agent: r.Agent, Backbone: r.Backbone, UserBackbone: r.UserBackbone,
			Termination: string(r.TerminationReason), Error: r.Error, Duration: r.Duration, Steps: r.Steps,
			AgentCost: r.AgentCost, UserCost: r.UserCost, JudgeCost: r.JudgeCost, AgentUsage: r.AgentUsage, UserUsage: r.UserUsage,
			Reward: r.RewardInfo, Messages: r.Messages, Simulated: r.Simulated, Unknown: r.Unknown, NLUnjudged: r.RewardInfo.NLUnjudged()}
		if s.Messages == nil {
			s.Messages = []message.Message{}
		}
		for _, mode := range []review.Mode{review.Full, review.User} {
			if e, ok := revOf[i].Get(r.ID, mode); ok {
				s.Reviews = append(s.Reviews, *e)
			}
		}
		kind := func(req message.Requestor, name string) tool.Kind { return gi.Kind(r.Domain, req, name) }
		if d := metrics.Classify(r, gi.Gold(r.Domain, r.TaskID), kind); d.Category != "" {
			s.Diagnosis = &d
		}
		s.Gate = gateOf(r)
		if ri := r.RewardInfo; ri != nil && ri.DBCheck != nil && !ri.DBCheck.DBMatch && (opts.MaxDBDiffs < 0 || diffs.n < opts.MaxDBDiffs) {
			if dom := doms[r.Domain]; dom != nil {
				if t, ok := cat.Task(r.Domain, r.TaskID); ok {
					diffs.n++
					if d, err := diffs.diff(ctx, dom, t, r); err == nil {
						s.DBDiff = d
					} else {
						s.DBDiff = []string{"could not rebuild the databases: " + err.Error()}
					}
				}
			}
		}
		stopped, nv, shadow := 0, 0, 0
		if s.Gate != nil {
			nv = len(s.Gate.Verdicts)
			if s.Gate.Mode == "shadow" {
				shadow = 1
			}
			for _, v := range s.Gate.Verdicts {
				if !v.Allowed() && !v.Shadow {
					stopped = 1
				}
			}
		}
		cat := ""
		if s.Diagnosis != nil {
			cat = string(s.Diagnosis.Category)
		}
		var cost any = round6(r.AgentCost + r.UserCost + r.JudgeCost)
		if r.IsUnknown(results.UnknownAgentCost) || r.IsUnknown(results.UnknownUserCost) || r.IsUnknown(results.UnknownJudgeCost) {
			cost = nil // unknown, never $0
		}
		idx.Sims = append(idx.Sims, []any{gix, r.TaskID, r.Trial, r.Reward(), string(r.TerminationReason),
			cost, cat, stopped, nv, shadow})
		sims = append(sims, s)
	}

	if err := page.ExecuteTemplate(cw, "head", map[string]any{"Title": opts.Title, "CSS": template.CSS(pageCSS)}); err != nil {
		return Stats{}, fmt.Errorf("view: %w", err)
	}
	if err := writeBlock(cw, "index", idx); err != nil {
		return Stats{}, err
	}
	for i, t := range taskList {
		if err := writeBlock(cw, fmt.Sprintf("t%d", i), t); err != nil {
			return Stats{}, err
		}
	}
	var st Stats
	if opts.Plain {
		for i := range sims {
			if err := writeBlock(cw, fmt.Sprintf("s%d", i), &sims[i]); err != nil {
				return Stats{}, err
			}
		}
	} else if err := writeChunks(cw, sims, opts.ChunkDir, &st); err != nil {
		return Stats{}, err
	}
	if err := page.ExecuteTemplate(cw, "tail", map[string]any{"JS": template.JS(pageJS)}); err != nil {
		return Stats{}, fmt.Errorf("view: %w", err)
	}
	if err := cw.w.Flush(); err != nil {
		return Stats{}, fmt.Errorf("view: write: %w", err)
	}
	if cw.err != nil {
		return Stats{}, fmt.Errorf("view: write: %w", cw.err)
	}
	st.Groups, st.Simulations, st.Tasks, st.Bytes = len(idx.Groups), len(sims), len(taskList), cw.n
	return st, nil
}

// writeChunks writes the simulations ChunkSims at a time as gzip-compressed,
// base64-encoded JSON arrays: inline as <script type="application/gzip"
// id="c<c>"> blocks, or, with dir, as files dir/c<c>.js that call
// ledgerbenchChunk(c, "…") when the page loads them. Base64 has no <, > or
// &, so no chunk can close its block.
func writeChunks(page io.Writer, sims []sim, dir string, st *Stats) error {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("view: %w", err)
		}
	}
	var raw, gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	for c := 0; c*ChunkSims < len(sims); c++ {
		raw.Reset()
		gz.Reset()
		zw.Reset(&gz)
		if err := json.NewEncoder(&raw).Encode(sims[c*ChunkSims : min(len(sims), (c+1)*ChunkSims)]); err != nil {
			return fmt.Errorf("view: encode chunk %d: %w", c, err)
		}
		if _, err := zw.Write(raw.Bytes()); err != nil {
			return fmt.Errorf("view: compress chunk %d: %w", c, err)
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("view: compress chunk %d: %w", c, err)
		}
		b64 := base64.StdEncoding.EncodeToString(gz.Bytes())
		st.Chunks++
		if dir == "" {
			if _, err := fmt.Fprintf(page, "<script type=\"application/gzip\" id=\"c%d\">%s</script>\n", c, b64); err != nil {
				return err
			}
			continue
		}
		body := fmt.Sprintf("ledgerbenchChunk(%d,\"%s\");\n", c, b64)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("c%d.js", c)), []byte(body), 0o644); err != nil {
			return fmt.Errorf("view: %w", err)
		}
		st.ChunkBytes += int64(len(body))
	}
	return nil
}

// writeBlock embeds v as JSON in a script block the page parses on demand.
// encoding/json escapes <, > and &, so no value can close the block.
func writeBlock(w io.Writer, id string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("view: encode %s: %w", id, err)
	}
	if _, err := fmt.Fprintf(w, "<script type=\"application/json\" id=\"%s\">", id); err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	_, err = io.WriteString(w, "</script>\n")
	return err
}

// gateOf reads the verdicts and ledger turns an agent reported.
func gateOf(r *results.Record) *gateView {
	vs, ok := metrics.GateVerdicts(r)
	if !ok {
		return nil
	}
	// The same report again for what metrics.GateVerdict leaves out (turn,
	// clause, arguments, failed predicates) and LedgerAgent's ledger turns.
	var rep struct {
		Gate *struct {
			Mode     string            `json:"mode"`
			Verdicts []json.RawMessage `json:"verdicts"`
		} `json:"gate"`
		Verdicts []json.RawMessage `json:"verdicts"`
		Turns    []json.RawMessage `json:"turns"`
	}
	_ = json.Unmarshal(r.AgentInfo, &rep) // GateVerdicts decoded the same bytes
	raw, mode := rep.Verdicts, "enforce"
	if rep.Gate != nil {
		raw = rep.Gate.Verdicts
		if rep.Gate.Mode != "" {
			mode = rep.Gate.Mode
		}
	}
	gv := &gateView{Mode: mode, Turns: rep.Turns, Verdicts: make([]verdict, len(vs))}
	for i, v := range vs {
		gv.Verdicts[i].GateVerdict = v
		if i < len(raw) {
			var extra struct {
				Turn      *int            `json:"turn"`
				Clause    string          `json:"clause"`
				Arguments json.RawMessage `json:"arguments"`
				Failed    []string        `json:"failed"`
				Feedback  string          `json:"feedback"`
			}
			if json.Unmarshal(raw[i], &extra) == nil {
				gv.Verdicts[i].Turn, gv.Verdicts[i].Clause, gv.Verdicts[i].Arguments, gv.Verdicts[i].Failed = extra.Turn, extra.Clause, extra.Arguments, extra.Failed
				gv.Verdicts[i].Feedback = extra.Feedback
			}
		}
		if v.Shadow {
			gv.Mode = "shadow"
		}
	}
	return gv
}

func round6(x float64) float64 {
	return float64(int64(x*1e6+0.5)) / 1e6
}

type countWriter struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// Title builds a page title from input paths.
func Title(paths []string) string {
	if len(paths) == 1 {
		return "ledgerbench view — " + filepath.Base(paths[0])
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	return fmt.Sprintf("ledgerbench view — %d inputs: %s", len(paths), strings.Join(names, ", "))
}
