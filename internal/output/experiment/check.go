package experiment

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/banking"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/runplan"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
)

// Backbones are a cell's agent, user and judge backbones as its run
// resolves them (τ²-bench's defaults, judge: of the backbones file; an
// offline agent gets the default judge only when needsJudge: a selected
// task has NL assertions). The judge is "" or agents.NoJudge when none is
// used.
func (c Cell) Backbones(file string, bbs *llm.Config, needsJudge bool) (agent, user, judge string) {
	o := runplan.Options{Backbone: c.Backbone, UserBackbone: c.UserBackbone, BackbonesFile: file}
	switch c.Judge {
	case agents.NoJudge:
		o.NoJudge = true
	default:
		o.JudgeBackbone = c.Judge
	}
	user, judge = runplan.DefaultBackbones(o, bbs, needsJudge)
	if user == "" {
		user = c.User()
	}
	return c.Backbone, user, judge
}

// Check lists what keeps the grid's cells from running, beyond planning
// their tasks: an unknown agent, a backbone (agent, user, judge) neither
// offline nor in the backbones file bbs (nil: no file), an API-key
// variable lookup does not hold — one line per variable, naming the
// backbones and cells that need it. needsJudge reports whether a cell's
// selected tasks have NL assertions (nil: assume they do).
func Check(cfg *Config, file string, bbs *llm.Config, lookup func(string) (string, bool), needsJudge func(Cell) bool) []string {
	var problems []string
	type need struct {
		uses  []string // "judge gpt-4.1"
		cells []string
	}
	keys := map[string]*need{}
	for _, c := range cfg.Cells() {
		if !slices.Contains(agents.AgentNames(), c.Agent) {
			problems = append(problems, fmt.Sprintf("%s: unknown agent %q", c.ID(), c.Agent))
		}
		agent, user, judge := c.Backbones(file, bbs, needsJudge == nil || needsJudge(c))
		for _, role := range []struct{ what, name string }{{"backbone", agent}, {"user backbone", user}, {"judge", judge}} {
			if role.name == "" || role.name == agents.NoJudge || runplan.IsOffline(role.name) {
				continue
			}
			if role.what == "user backbone" && role.name == agents.SteerBackbone {
				// τ-Trait's steering endpoint: its settings come from the
				// environment, not the backbones file.
				if _, err := usersim.NewSteerClient(func(k string) string { v, _ := lookup(k); return v }); err != nil {
					problems = append(problems, fmt.Sprintf("%s: user backbone: %v", c.ID(), err))
				}
				continue
			}
			if bbs == nil {
				problems = append(problems, fmt.Sprintf("%s: %s %s: no backbones file %s", c.ID(), role.what, role.name, file))
				continue
			}
			b, err := bbs.Backbone(role.name)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %s: %v", c.ID(), role.what, err))
				continue
			}
			if _, err := b.APIKey(lookup); err != nil {
				if !errors.Is(err, llm.ErrNoAPIKey) {
					problems = append(problems, fmt.Sprintf("%s: %s: %v", c.ID(), role.what, err))
					continue
				}
				n := keys[b.APIKeyEnv]
				if n == nil {
					n = &need{}
					keys[b.APIKeyEnv] = n
				}
				if u := role.what + " " + role.name; !slices.Contains(n.uses, u) {
					n.uses = append(n.uses, u)
				}
				if !slices.Contains(n.cells, c.ID()) {
					n.cells = append(n.cells, c.ID())
				}
			}
		}
	}
	vars := make([]string, 0, len(keys))
	for v := range keys {
		vars = append(vars, v)
	}
	slices.Sort(vars)
	for _, v := range vars {
		n := keys[v]
		cells := n.cells
		if len(cells) > 4 {
			cells = append(cells[:4:4], fmt.Sprintf("… %d more", len(n.cells)-4))
		}
		problems = append(problems, fmt.Sprintf("environment variable %s is empty or unset (hint: set %s): %s of %d cells (%s)",
			v, v, strings.Join(n.uses, ", "), len(n.cells), strings.Join(cells, ", ")))
	}
	return problems
}

// Estimate is a cell's estimated cost: the simulations it still has to run
// × the agent's and the user's prices applied to its domain's typical
// usage per simulation (TypicalUsage), AssumedCacheShare of its prompt
// tokens priced at cached_input. Judge calls are not included.
type Estimate struct {
	Cell        Cell
	Simulations int
	// Agent and User are the estimated cost of one simulation (USD);
	// Priced is false when the agent's or the user's backbone has no price
	// (no price: in the file, or not in the file), Unpriced names every
	// backbone of the cell (the judge's too) whose price is unknown.
	Agent, User float64
	Priced      bool
	Unpriced    []string
	// Basis says where the domain's typical usage comes from.
	Basis string
	// UserUnpriced is set when the user's cost is left out: τ-Trait's
	// steering endpoint has no price (User is 0).
	UserUnpriced bool
}

// Total is the cell's estimated cost.
func (e Estimate) Total() float64 { return float64(e.Simulations) * (e.Agent + e.User) }

// priceOf is a backbone's price: offline backbones cost nothing (a known
// $0); a backbone without price: in the file, or not in the file, has none
// (ok false: its cost is unknown).
func priceOf(name string, bbs *llm.Config) (llm.Price, bool) {
	if runplan.IsOffline(name) {
		return llm.Price{}, true
	}
	if bbs == nil {
		return llm.Price{}, false
	}
	b, err := bbs.Backbone(name)
	if err != nil || b.Price == nil {
		return llm.Price{}, false
	}
	return *b.Price, true
}

// Unpriced lists the cell's backbones (agent, user, judge) whose price is
// unknown: what they spend reads $0, so a cost cap cannot bound the cell.
func (c Cell) Unpriced(file string, bbs *llm.Config) []string {
	agent, user, judge := c.Backbones(file, bbs, true) // a judge it may call
	var out []string
	for _, name := range []string{agent, user, judge} {
		if name == "" || name == agents.NoJudge || slices.Contains(out, name) {
			continue
		}
		if _, ok := priceOf(name, bbs); !ok {
			out = append(out, name)
		}
	}
	return out
}

// Estimates estimates the cost of every cell the dry run res planned
// (failed cells left out).
func Estimates(cfg *Config, res *Result, file string, bbs *llm.Config) []Estimate {
	status := map[string]Status{}
	if res != nil {
		for _, st := range res.Cells {
			status[st.ID] = st
		}
	}
	var out []Estimate
	for _, c := range cfg.Cells() {
		st, ok := status[c.ID()]
		if !ok || st.State == Failed {
			continue
		}
		typ := TypicalUsage(c.Domain)
		e := Estimate{Cell: c, Simulations: max(st.Expected-st.Scored, 0), Basis: typ.Basis, Unpriced: c.Unpriced(file, bbs)}
		agent, user, _ := c.Backbones(file, bbs, false) // the judge is not priced
		ap, aok := priceOf(agent, bbs)
		up, uok := priceOf(user, bbs)
		if user == agents.SteerBackbone {
			up, uok, e.UserUnpriced = llm.Price{}, true, true
		}
		if e.Priced = aok && uok; e.Priced {
			e.Agent = ap.Cost(WithCacheShare(typ.Agent, AssumedCacheShare))
			e.User = up.Cost(WithCacheShare(typ.User, AssumedCacheShare))
		}
		out = append(out, e)
	}
	return out
}

// UnboundedCells lists the cells a cost cap cannot bound, each with the
// backbones whose price is unknown ("cell: backbone a, b"). Given the
// plan (res), it leaves out the cells that will not run: those that cannot
// be planned and those with nothing left to run.
func UnboundedCells(cfg *Config, res *Result, file string, bbs *llm.Config) []string {
	idle := map[string]bool{}
	if res != nil {
		for _, st := range res.Cells {
			idle[st.ID] = st.State == Failed || st.Expected-st.Scored <= 0
		}
	}
	var out []string
	for _, c := range cfg.Cells() {
		if idle[c.ID()] {
			continue
		}
		if u := c.Unpriced(file, bbs); len(u) > 0 {
			out = append(out, c.ID()+": "+strings.Join(u, ", "))
		}
	}
	return out
}

// RetrievalEnv is what CheckRetrieval reads outside the grid, asked only
// when a cell needs it.
type RetrievalEnv struct {
	// RerankerModel returns upstream's reranker model (read from the
	// pulled source).
	RerankerModel func() (string, error)
	// Sandbox returns why bubblewrap cannot run here (nil: it can).
	Sandbox func() error
}

// CheckRetrieval lists what keeps the banking_knowledge cells' retrieval
// variants from running: an embeddings entry missing from the backbones
// file bbs or its unset API-key variable, no backbone of upstream's
// reranker model or its unset key, no usable bubblewrap for a shell
// variant.
func CheckRetrieval(cfg *Config, file string, bbs *llm.Config, lookup func(string) (string, bool), env RetrievalEnv) []string {
	var problems []string
	var sandboxErr, modelErr error
	var model string
	sandboxOnce, modelOnce := false, false
	for _, c := range cfg.Cells() {
		if c.Domain != banking.Name {
			continue
		}
		name := c.RetrievalConfig
		if name == "" {
			name = banking.DefaultVariant
		}
		v, err := banking.ResolveVariant(name, c.RetrievalConfigKwargs)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", c.ID(), err))
			continue
		}
		bad := func(format string, args ...any) {
			problems = append(problems, c.ID()+": retrieval "+v.Name+": "+fmt.Sprintf(format, args...))
		}
		for _, e := range v.Embedders() {
			if bbs == nil {
				bad("embeddings entry %s: no backbones file %s", e[1], file)
				continue
			}
			ent, err := bbs.Embedding(e[0], e[1])
			if err != nil {
				bad("%v", err)
				continue
			}
			if ent.APIKeyEnv != "" {
				if k, _ := lookup(ent.APIKeyEnv); strings.TrimSpace(k) == "" {
					bad("embeddings %s: %v: set %s", ent.Name, llm.ErrNoAPIKey, ent.APIKeyEnv)
				}
			}
		}
		if v.Reranked() {
			if !modelOnce {
				modelOnce = true
				model, modelErr = env.RerankerModel()
			}
			switch bb, ok := runplan.BackboneOfModel(bbs, model); {
			case modelErr != nil:
				bad("reranker: %v", modelErr)
			case !ok:
				bad("the reranker asks upstream's model %s: no backbone of %s has that model", model, file)
			default:
				b, _ := bbs.Backbone(bb)
				if _, err := b.APIKey(lookup); err != nil {
					bad("reranker: %v", err)
				}
			}
		}
		if v.Shell != nil {
			if !sandboxOnce {
				sandboxOnce = true
				sandboxErr = env.Sandbox()
			}
			if sandboxErr != nil {
				bad("shell: %v", sandboxErr)
			}
		}
	}
	return problems
}
