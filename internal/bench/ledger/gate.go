package ledger

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/core/clip"
	"github.com/ledgerbench/ledgerbench/internal/core/fault"
)

// Decision is a gate verdict.
type Decision string

const (
	// Allow runs the call unchanged.
	Allow Decision = "ALLOW"
	// Revise removes the call; the model gets the reason and keeps its turn.
	// Missing evidence (a record the predicate needs is not in the ledger) is
	// a Revise: go and read it.
	Revise Decision = "REVISE"
	// Block refuses the action outright: no valid alternative under policy.
	Block Decision = "BLOCK"
	// HarnessError is no judgement: a predicate (or the decoder) panicked,
	// a defect of the harness. The call is neither run nor refused; the
	// simulation ends as an infrastructure error (Verdict.Err), never scored
	// as the model's failure.
	HarnessError Decision = "HARNESS_ERROR"
)

// Outcome is one predicate's judgement.
type Outcome struct {
	Decision Decision
	Reason   string
}

// OK is the allowing outcome.
var OK = Outcome{Decision: Allow}

// NeedRevise builds a Revise outcome.
func NeedRevise(reason string) Outcome { return Outcome{Decision: Revise, Reason: reason} }

// Refuse builds a Block outcome.
func Refuse(reason string) Outcome { return Outcome{Decision: Block, Reason: reason} }

// Predicate is an executable policy rule guarding one write tool.
type Predicate struct {
	// ID names the predicate (e.g. "airline.cancel.basis").
	ID string
	// Tool is the write tool it guards.
	Tool string
	// Clause cites the policy section it enforces (a heading of the pulled
	// policy text).
	Clause string
	// Check judges a proposed call against the ledger. args are the call's
	// arguments decoded once, by the gate's Decoder, before any predicate
	// runs (see Typed).
	Check func(l *Ledger, args any) Outcome
}

// Decoder decodes a proposed write's arguments into the tool's typed
// arguments, once per call, for all its predicates. A call whose arguments
// do not decode gets no predicate: the failure (its id, clause and reason)
// is the verdict, a Revise.
type Decoder func(tool string, raw json.RawMessage) (args any, failure *Failure)

// DecodeTool decodes a write's arguments with the tool's own decoder (e.g.
// tool.Set.Decode, which gives the tool's argument struct as the tool would
// see it). An error (what the tool would reject) is the failure
// <domain>.<tool>.arguments, citing the tool's section clause(tool).
func DecodeTool(domain, tool string, raw json.RawMessage, decode func(tool string, raw json.RawMessage) (any, error), clause func(tool string) string) (any, *Failure) {
	a, err := decode(tool, raw)
	if err != nil {
		return nil, &Failure{ID: domain + "." + tool + ".arguments", Clause: clause(tool), Decision: Revise,
			Reason: fmt.Sprintf("The arguments of %s could not be checked against the %s policy: %s. Send them with the documented types.", tool, domain, err.Error())}
	}
	return a, nil
}

// Typed builds a predicate over a tool's decoded arguments A (the pointer
// type the Decoder returns, or an interface such pointers implement).
// Arguments of another type (a Decoder that does not match the predicate)
// are a Revise, never an Allow.
func Typed[A any](id, tool, clause string, check func(l *Ledger, a A) Outcome) Predicate {
	return Predicate{ID: id, Tool: tool, Clause: clause, Check: func(l *Ledger, args any) Outcome {
		a, ok := args.(A)
		if !ok {
			return NeedRevise("The arguments of " + tool + " could not be checked against the policy; send them with the documented types.")
		}
		return check(l, a)
	}}
}

// Call is a proposed write as a rule sees it: the ledger, the tool and the
// tool's arguments A as the Decoder gave them (see Typed).
type Call[A any] struct {
	Ledger *Ledger
	Tool   string
	Args   A
}

// Rule is the predicate <domain>.<tool>.<rule> over the tool's decoded
// arguments A (see Typed), whose check reads the whole call.
func Rule[A any](domain, tool, rule, clause string, check func(c Call[A]) Outcome) Predicate {
	return Typed(domain+"."+tool+"."+rule, tool, clause, func(l *Ledger, a A) Outcome {
		return check(Call[A]{Ledger: l, Tool: tool, Args: a})
	})
}

// Verdict is the gate's decision on one proposed write call.
type Verdict struct {
	Tool      string          `json:"tool"`
	CallID    string          `json:"call_id,omitempty"`
	Arguments json.RawMessage `json:"arguments"`
	Decision  Decision        `json:"verdict"`
	// Predicate, Clause and Reason are the deciding predicate's: the first
	// Block, else the first Revise (empty when allowed).
	Predicate string `json:"predicate,omitempty"`
	Clause    string `json:"clause,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// Failed lists the id of every predicate that did not allow the call,
	// and Predicates each one's own judgement, in predicate order.
	Failed     []string  `json:"failed,omitempty"`
	Predicates []Failure `json:"predicates,omitempty"`
	// Harness describes the panic of a HarnessError verdict: the predicate
	// (or decoder) and the value it panicked with.
	Harness string `json:"harness_error,omitempty"`
	// Decoded is the call's arguments as the Decoder gave them (nil when
	// they did not decode), for the write log (Ledger.LogWrite).
	Decoded any `json:"-"`
}

// ErrHarness is wrapped by Verdict.Err: the gate could not judge a call
// because its own code failed.
var ErrHarness = errors.New("gate harness error")

// Err is the verdict's harness error (nil unless the Decision is
// HarnessError), an infrastructure failure (fault.ErrInfrastructure).
func (v Verdict) Err() error {
	if v.Decision != HarnessError {
		return nil
	}
	return fault.Infrastructure(fmt.Errorf("%w: %s on %s %s", ErrHarness, v.Harness, v.Tool, clip.Runes(string(v.Arguments), 200, "…")))
}

// Failure is one predicate's non-allowing judgement of a call.
type Failure struct {
	ID       string   `json:"id"`
	Clause   string   `json:"clause,omitempty"`
	Decision Decision `json:"decision"`
	Reason   string   `json:"reason"`
}

// Gate holds a domain's predicates grouped by tool.
type Gate struct {
	byTool map[string][]Predicate
	writes map[string]bool
	decode Decoder
}

// NewGate builds a gate over predicates. writeTools names every write tool of
// the domain: a write tool without predicates is allowed, a non-write tool is
// never judged. decode decodes each judged call's arguments once.
func NewGate(preds []Predicate, writeTools []string, decode Decoder) *Gate {
	g := &Gate{byTool: map[string][]Predicate{}, writes: map[string]bool{}, decode: decode}
	for _, p := range preds {
		g.byTool[p.Tool] = append(g.byTool[p.Tool], p)
	}
	for _, w := range writeTools {
		g.writes[w] = true
	}
	return g
}

// Guards reports whether the gate judges calls to tool.
func (g *Gate) Guards(tool string) bool { return g.writes[tool] }

// Predicates returns the predicates guarding tool.
func (g *Gate) Predicates(tool string) []Predicate { return g.byTool[tool] }

// All returns every predicate.
func (g *Gate) All() []Predicate {
	var out []Predicate
	for _, ps := range g.byTool {
		out = append(out, ps...)
	}
	return out
}

// Judge runs every predicate of the call's tool. Any Block makes the verdict
// Block; otherwise any Revise makes it Revise. Every failing predicate is
// listed with its own reason; the verdict's Reason is the deciding one's.
// A predicate or decoder that panics makes the verdict HarnessError (the
// first panic is in Harness): the harness failed, not the call.
func (g *Gate) Judge(l *Ledger, tool, callID string, args json.RawMessage) Verdict {
	v := Verdict{Tool: tool, CallID: callID, Arguments: args, Decision: Allow}
	if !g.writes[tool] {
		return v
	}
	decoded, f, panicked := g.decodeArgs(tool, args)
	if panicked != "" {
		v.Decision, v.Harness = HarnessError, panicked
		return v
	}
	if f != nil {
		f.Decision = Revise
		v.Decision, v.Predicate, v.Clause, v.Reason = Revise, f.ID, f.Clause, f.Reason
		v.Failed, v.Predicates = []string{f.ID}, []Failure{*f}
		return v
	}
	v.Decoded = decoded
	for _, p := range g.byTool[tool] {
		o, panicked := safeCheck(p, l, decoded)
		if panicked != "" {
			if v.Harness == "" {
				v.Harness = panicked
			}
			continue
		}
		if o.Decision == Allow || o.Decision == "" {
			continue
		}
		v.Failed = append(v.Failed, p.ID)
		v.Predicates = append(v.Predicates, Failure{ID: p.ID, Clause: p.Clause, Decision: o.Decision, Reason: o.Reason})
		if v.Predicate == "" || (o.Decision == Block && v.Decision != Block) {
			v.Predicate, v.Clause, v.Reason = p.ID, p.Clause, o.Reason
		}
		if o.Decision == Block {
			v.Decision = Block
		} else if v.Decision != Block {
			v.Decision = Revise
		}
	}
	if v.Harness != "" {
		v.Decision = HarnessError
	}
	return v
}

// Decode returns a write call's decoded arguments (nil when they do not
// decode or the gate does not judge the tool), for logging a write whose
// verdict is not at hand (Ledger.LogWrite).
func (g *Gate) Decode(tool string, raw json.RawMessage) any {
	if !g.writes[tool] {
		return nil
	}
	a, f, panicked := g.decodeArgs(tool, raw)
	if f != nil || panicked != "" {
		return nil
	}
	return a
}

// decodeArgs runs the decoder; a decoder that panics is a harness error
// (panicked describes it), never a verdict on the call.
func (g *Gate) decodeArgs(tool string, raw json.RawMessage) (args any, f *Failure, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			args, f, panicked = nil, nil, fmt.Sprintf("the argument decoder of %s panicked: %v", tool, r)
		}
	}()
	args, f = g.decode(tool, raw)
	return args, f, ""
}

// safeCheck runs a predicate; a predicate that panics is a harness error
// (panicked describes it), never a verdict on the call.
func safeCheck(p Predicate, l *Ledger, args any) (o Outcome, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			o, panicked = Outcome{}, fmt.Sprintf("gate predicate %s panicked: %v", p.ID, r)
		}
	}()
	return p.Check(l, args), ""
}

// Mutation is a correct write turned into a named policy violation, for the
// gate audits: the gate should not allow it.
type Mutation struct {
	Kind string
	Tool string
	Args json.RawMessage
}
