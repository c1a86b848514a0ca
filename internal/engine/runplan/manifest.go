package runplan

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/banking"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

func buildManifest(opts *Options, p *Plan, modified map[string]string, cfg *llm.Config, judge string, seeds []int64, shard runner.Shard) *results.Manifest {
	user := opts.UserBackbone
	switch {
	case opts.Solo:
		// The user column of reports: solo groups stay apart from the
		// normal mode's, and baseline and ledger solo runs pair up.
		user = results.DummyUserImplementation
	case user == "":
		user = opts.Backbone
	}
	m := &results.Manifest{
		HarnessVersion:  opts.HarnessVersion,
		CreatedAt:       opts.Now().UTC().Format(time.RFC3339),
		DataHash:        results.HashText(data.Text()),
		ModifiedData:    modified,
		Domain:          opts.Domain,
		Split:           opts.Split,
		Agent:           opts.Agent,
		Backbone:        opts.Backbone,
		UserBackbone:    user,
		JudgeBackbone:   judge,
		NoJudge:         opts.NoJudge,
		PromptHashes:    p.makers.PromptHashes,
		Prompts:         p.makers.Prompts,
		Seed:            opts.Seed,
		TrialSeeds:      seeds,
		Trials:          opts.Trials,
		MaxSteps:        opts.MaxSteps,
		MaxErrors:       opts.MaxErrors,
		Shard:           shard.String(),
		Backbones:       map[string]json.RawMessage{},
		UserStyle:       opts.UserStyle,
		Traits:          opts.Traits,
		TraitMode:       opts.TraitMode,
		LedgerPlacement: manifestPlacement(opts.LedgerPlacement),
		Solo:            opts.Solo,
		Loop:            p.makers.LoopName,
		Defaults:        p.Defaults,
		EnforceProtocol: opts.EnforceProtocol,
	}
	if cfg != nil {
		if abs, err := filepath.Abs(opts.BackbonesFile); err == nil {
			m.BackbonesFile = abs
		}
	}
	if m.Split == "" {
		m.Split = p.Domain.Tasks().DefaultSplit
	}
	if b, ok := p.Domain.(*banking.Domain); ok {
		m.RetrievalConfig = b.Variant().Name
		if k := strings.TrimSpace(string(b.Kwargs())); k != "" {
			m.RetrievalConfigKwargs = json.RawMessage(k)
		}
	}
	if opts.Timeout > 0 {
		m.Timeout = opts.Timeout.String()
	}
	for _, t := range p.Tasks {
		m.TaskIDs = append(m.TaskIDs, t.ID)
	}
	if p.knowledge != nil {
		emb, rr := p.knowledge.used()
		m.RerankerBackbone = rr
		for _, name := range emb {
			if e, ok := cfg.Embeddings[name]; ok {
				if m.Embeddings == nil {
					m.Embeddings = map[string]json.RawMessage{}
				}
				m.Embeddings[name] = embeddingSettings(e)
			}
		}
	}
	for _, name := range []string{m.Backbone, m.UserBackbone, m.JudgeBackbone, m.RerankerBackbone} {
		if name == "" {
			continue
		}
		if b, ok := backboneSettings(name, cfg); ok {
			m.Backbones[name] = b
		}
	}
	return m
}

// backboneSettings describes a backbone for the manifest: its endpoint,
// model and sampling settings, never a key (only the name of the variable
// that holds it).
func backboneSettings(name string, cfg *llm.Config) (json.RawMessage, bool) {
	if ob, ok, err := offline.Parse(name); ok && err == nil {
		b, _ := json.Marshal(map[string]any{"offline": ob.String()})
		return b, true
	}
	if cfg == nil {
		return nil, false
	}
	bb, err := cfg.Backbone(name)
	if err != nil {
		return nil, false
	}
	type price struct {
		Input       float64 `json:"input"`
		CachedInput float64 `json:"cached_input,omitempty"`
		Output      float64 `json:"output"`
	}
	v := struct {
		BaseURL             string         `json:"base_url"`
		Model               string         `json:"model"`
		APIKeyEnv           string         `json:"api_key_env,omitempty"`
		Temperature         *float64       `json:"temperature,omitempty"`
		MaxTokens           int            `json:"max_tokens,omitempty"`
		MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
		ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
		SendReasoning       bool           `json:"send_reasoning,omitempty"`
		ExtraBody           map[string]any `json:"extra_body,omitempty"`
		Price               *price         `json:"price"` // null: no price, costs unknown
	}{bb.BaseURL, bb.Model, bb.APIKeyEnv, bb.Temperature, bb.MaxTokens, bb.MaxCompletionTokens,
		bb.ReasoningEffort, bb.SendReasoning, bb.ExtraBody, (*price)(bb.Price)}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	return b, true
}

// embeddingSettings describes an embeddings entry for the manifest (never
// a key: only the name of the variable holding it).
func embeddingSettings(e llm.Embedding) json.RawMessage {
	v := struct {
		Type           string   `json:"type"`
		BaseURL        string   `json:"base_url"`
		Model          string   `json:"model"`
		APIKeyEnv      string   `json:"api_key_env,omitempty"`
		EncodingFormat string   `json:"encoding_format"`
		BatchSize      int      `json:"batch_size,omitempty"`
		Price          *float64 `json:"price_input"` // null: no price
	}{Type: e.Type, BaseURL: e.BaseURL, Model: e.Model, APIKeyEnv: e.APIKeyEnv, EncodingFormat: e.Format(), BatchSize: e.BatchSize}
	if e.Price != nil {
		v.Price = &e.Price.Input
	}
	b, _ := json.Marshal(v)
	return b
}

// checkResume refuses to continue a run whose manifest differs from the
// requested one, except for more trials with the same seeds.
func checkResume(old, cur *results.Manifest) error {
	// The defaults are the header's description of settings compared anyway.
	diff := old.Diff(cur, "trials", "trial_seeds", "defaults")
	if cur.Trials < old.Trials {
		diff = append(diff, fmt.Sprintf("trials: %d → %d (a run cannot shrink)", old.Trials, cur.Trials))
	} else if !slices.Equal(old.TrialSeeds, cur.TrialSeeds[:min(len(cur.TrialSeeds), len(old.TrialSeeds))]) {
		diff = append(diff, fmt.Sprintf("trial_seeds: %v → %v", old.TrialSeeds, cur.TrialSeeds))
	}
	if len(diff) == 0 {
		return nil
	}
	return fmt.Errorf("cannot continue the run: its manifest differs from this run's settings:\n  %s\n(start a new run with another --out, or give the same settings)",
		strings.Join(diff, "\n  "))
}

// manifestPlacement is the manifest's ledger_placement: absent for the
// default (system), as in runs from before the option.
func manifestPlacement(p string) string {
	if ledgeragent.Placement(p) == ledgeragent.PlacementSystem {
		return ""
	}
	return p
}
