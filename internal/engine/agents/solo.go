package agents

import (
	"context"
	"fmt"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// soloKinds are the agent implementations that run in solo mode: the
// baseline and LedgerAgent with its ablations (IRMA's helper prompts assume
// a user).
var soloKinds = []string{"baseline", "ledger", "ledger-only", "gate-only"}

// buildSolo is Build for τ²-bench's solo mode (upstream's --agent
// llm_agent_solo --user dummy_user): the agent gets the solo system prompt
// with the task's ticket, the domain's agent and user tools plus the stop
// tool, tool_choice "required", and upstream's stop handling
// (baseline.SoloAgent); the user is orchestrator.DummyUser, so no user
// backbone is used.
//
// LedgerAgent and its ablations are built over the normal-mode domain: the
// gate judges the agent's own write tools only, and the ledger absorbs the
// agent's carrier-record reads only. The phone tools' returns (device state
// the agent now reads itself) are not absorbed: no gate predicate depends
// on device state, and every phone action or sync can change it, so a
// ledger copy would be stale at the next step; the agent's history holds
// every phone read as it is.
func buildSolo(ctx context.Context, b *builder, factory agentFactory) (runner.Makers, evaluator.Judge, error) {
	opts := b.opts
	dom := opts.Domain
	if !envs.IsSolo(dom) {
		return runner.Makers{}, nil, fmt.Errorf("agents: solo mode needs the domain loaded in solo mode (%s is not)", dom.Name())
	}
	name := agentName(opts.Agent)
	human := opts.Human == HumanAgent
	if !human && !slices.Contains(soloKinds, name) {
		return runner.Makers{}, nil, errext.Usagef("agent %q has no solo mode (solo agents: %v)", name, soloKinds)
	}
	text, err := baseline.LoadSolo(opts.DataRoot)
	if err != nil {
		return runner.Makers{}, nil, err
	}
	var gen generatorMaker
	if !human {
		if gen, err = b.soloGenerator(ctx, opts.Backbone, text.StopTool.Name); err != nil {
			return runner.Makers{}, nil, fmt.Errorf("agent backbone: %w", err)
		}
	}
	j, err := b.judge()
	if err != nil {
		return runner.Makers{}, nil, fmt.Errorf("judge backbone: %w", err)
	}
	policy, tools := dom.Policy(), dom.AgentTools()
	hashes := map[string]string{"agent_system_solo": hash(text.SystemPrompt(policy, ""))}
	placementHash(hashes, b.opts.Agent, b.opts.LedgerPlacement)
	makers := runner.Makers{
		Agent: func(spec runner.Spec) (orchestrator.Agent, error) {
			ticket, err := SoloTicket(spec.Task)
			if err != nil {
				return nil, err
			}
			g, err := gen(spec)
			if err != nil {
				return nil, err
			}
			bo := text.Options(baseline.Options{Policy: policy, Tools: tools, Seed: seedOf(spec), Name: name}, ticket)
			inner := spec
			inner.Domain = envs.Base(spec.Domain)
			a, err := factory(inner, g, bo)
			if err != nil {
				return nil, err
			}
			return baseline.NewSoloAgent(a, text), nil
		},
		User: func(runner.Spec) (orchestrator.User, error) {
			return orchestrator.DummyUser{}, nil
		},
		PromptHashes: hashes,
		Prompts:      soloPrompts(name),
	}
	if human {
		makers.Agent, makers.Prompts = nil, results.PromptsModified
	}
	return makers, j, nil
}

// soloPrompts is upstream for the baseline solo agent (LLMSoloAgent's
// text), modified for the ledger agents.
func soloPrompts(agent string) string {
	if agent == "baseline" {
		return results.PromptsUpstream
	}
	return results.PromptsModified
}

// soloGenerator resolves the agent backbone of a solo run: a model, the
// gold and sim scripts in solo mode (the agent performs the user's gold
// actions itself and ends with the stop tool), or a recorded solo run.
func (b *builder) soloGenerator(ctx context.Context, name, stopTool string) (generatorMaker, error) {
	ob, ok, err := offline.Parse(name)
	if err != nil {
		return nil, err
	}
	if ok && ob.Kind == offline.Gold {
		return func(spec runner.Spec) (baseline.Generator, error) {
			ev, err := b.evidence(ctx, spec)
			if err != nil {
				return nil, err
			}
			return offline.NewGoldAgent(spec.Domain, spec.Task, ev).Solo(stopTool), nil
		}, nil
	}
	if ok && ob.Kind == offline.Sim {
		rates := ob.Rates
		return func(spec runner.Spec) (baseline.Generator, error) {
			ev, err := b.evidence(ctx, spec)
			if err != nil {
				return nil, err
			}
			return offline.NewSimAgent(spec.Domain, spec.Task, spec.Seed, rates, ev).Solo(stopTool), nil
		}, nil
	}
	return b.generator(ctx, name, false)
}

// SoloTicket is the ticket a task gives the solo agent, under upstream's
// LLMSoloAgent.check_valid_task: a task with an initial state is valid (its
// ticket, or "None" as Python formats a missing one); otherwise it needs a
// ticket and gold actions.
func SoloTicket(t *tasks.Task) (string, error) {
	if t.Ticket != nil {
		if t.InitialState == nil && len(t.GoldActions()) == 0 {
			return "", fmt.Errorf("task %s is not valid for the solo agent (no gold actions)", t.ID)
		}
		return *t.Ticket, nil
	}
	if t.InitialState != nil {
		return "None", nil
	}
	return "", fmt.Errorf("task %s is not valid for the solo agent (no ticket)", t.ID)
}
