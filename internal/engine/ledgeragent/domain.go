// Package ledgeragent is the paper's method on top of the baseline agent: a
// ledger of observed state rendered into every prompt, and a deterministic
// policy gate in front of every environment-changing call, with the
// ablations ledger-only and gate-only, and gate audits.
//
// It knows no domain: a domain package provides its ledger path map and its
// predicates through the interfaces below.
package ledgeragent

import (
	"encoding/json"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// Policy is what a domain provides to LedgerAgent: its static tool path map
// (routing read returns onto ledger paths), its gate predicates, and the
// decoding of a proposed write's arguments into the tool's typed arguments
// (once per call, before any predicate runs; a ledger.Decoder).
type Policy interface {
	ledger.Router
	GatePredicates() []ledger.Predicate
	DecodeArgs(tool string, raw json.RawMessage) (any, *ledger.Failure)
}

// Auditor is what a domain provides to the gate audits.
type Auditor interface {
	// EvidenceReads lists the read calls a careful agent makes before a
	// write: the records the write's predicates need.
	EvidenceReads(tool string, args json.RawMessage) []message.ToolCall
	// Mutations turns a gold write into policy violations of named kinds.
	// The ledger holds what the evidence reads returned. A mutation whose
	// kind does not apply to this call is simply not returned.
	Mutations(tool string, args json.RawMessage, l *ledger.Ledger) []ledger.Mutation
}

// Observer is implemented by policies of domains where a call of a
// non-read tool can be an observation (banking_knowledge runs its hidden
// read tools through the write tool call_discoverable_agent_tool, and
// unlock_discoverable_agent_tool reports a tool unlocked): such a call's
// successful return is absorbed as a read's, and it is not logged as a
// write. The gate still judges it when it guards the tool.
type Observer interface {
	Observes(tool string, args json.RawMessage) bool
}

// isRead reports whether a successful return of the call goes into the
// ledger: a read tool's, or an observation (Observer).
func isRead(d envs.Domain, p Policy, tool string, args json.RawMessage) bool {
	if o, ok := p.(Observer); ok && o.Observes(tool, args) {
		return true
	}
	ti, ok := envs.ToolInfo(d, message.ByAssistant, tool)
	return ok && ti.Kind == "read"
}

// IsObservation reports whether a call of a guarded tool is an observation
// of the domain (Observer: a read through a write tool's name), not a write.
func IsObservation(p Policy, tool string, args json.RawMessage) bool { return observes(p, tool, args) }

// observes reports whether the call is an Observer's observation.
func observes(p Policy, tool string, args json.RawMessage) bool {
	o, ok := p.(Observer)
	return ok && o.Observes(tool, args)
}

// PolicyOf returns a domain's LedgerAgent policy, if it has one.
func PolicyOf(d envs.Domain) (Policy, bool) {
	p, ok := d.(Policy)
	return p, ok
}

// SoloPolicy is what a dual-control domain adds for its solo mode
// (envs.SoloDomain: no user; the agent holds the user's tools as well).
// LedgerAgent and the shadow audits use it for every solo domain.
type SoloPolicy interface {
	// SoloGatePredicates are the gate predicates of a solo run: no
	// predicate asks for something only a user could give (a confirmation).
	SoloGatePredicates() []ledger.Predicate
	// RouteUser maps a successful return of one of the user's read tools,
	// called by the agent itself, onto ledger entries.
	RouteUser(tool string, args json.RawMessage, output string) []ledger.Entry
}

// NewGate builds the gate for a domain: its predicates over its write tools
// (in a solo domain, the solo predicates over the domain's own write tools;
// the phone's tools are not guarded).
func NewGate(d envs.Domain, p Policy) *ledger.Gate {
	preds := p.GatePredicates()
	if sp, ok := p.(SoloPolicy); ok && envs.IsSolo(d) {
		preds = sp.SoloGatePredicates()
	}
	return ledger.NewGate(preds, gateWrites(d), p.DecodeArgs)
}

// gateWrites names the domain's own agent write tools.
func gateWrites(d envs.Domain) []string {
	var writes []string
	for _, t := range envs.Base(d).AgentTools() {
		if t.Mutates() {
			writes = append(writes, t.Name)
		}
	}
	return writes
}

// RouterOf is the router that absorbs the agent's successful reads: the
// domain's path map and, in a solo domain, RouteUser for the agent's own
// calls of the user's read tools.
func RouterOf(d envs.Domain, p Policy) ledger.Router {
	sp, ok := p.(SoloPolicy)
	if !ok || !envs.IsSolo(d) {
		return p
	}
	user := map[string]bool{}
	for _, t := range d.UserTools() {
		user[t.Name] = true
	}
	return soloRouter{p: p, solo: sp, user: user}
}

// soloRouter routes a solo agent's reads.
type soloRouter struct {
	p    Policy
	solo SoloPolicy
	user map[string]bool
}

func (r soloRouter) Route(tool string, args json.RawMessage, output string) []ledger.Entry {
	if r.user[tool] {
		return r.solo.RouteUser(tool, args, output)
	}
	return r.p.Route(tool, args, output)
}
