package metrics

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/clip"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Category is the cause a failed simulation is filed under.
type Category string

// Error categories (see Classify for how one is chosen).
const (
	// Infrastructure: the simulation ended in an infrastructure error
	// (excluded from pass^k).
	Infrastructure Category = "infrastructure"
	// UserSimulator: the simulated user failed (user_error) or gave up as out
	// of scope (###OUT-OF-SCOPE###).
	UserSimulator Category = "user_simulator"
	// Limits: max steps, too many tool errors, timeout, context window, or
	// an invalid agent message ended the run.
	Limits Category = "limits"
	// PrematureTransfer: the agent transferred to a human although no gold
	// action does.
	PrematureTransfer Category = "premature_transfer"
	// WrongArguments: the first unmatched required gold action was called by
	// name, with other arguments.
	WrongArguments Category = "wrong_arguments"
	// MissedAction: the first unmatched required gold action was never
	// called.
	MissedAction Category = "missed_action"
	// ExtraWrite: every required action matched, but the agent ran a write
	// outside the gold set, a write the gate would refuse, or the final
	// database differs.
	ExtraWrite Category = "extra_write"
	// MissingInfo: a communicate_info item was never stated.
	MissingInfo Category = "missing_info"
	// Other: none of the above (a failed NL assertion or environment
	// assertion, or gold unknown).
	Other Category = "other"
)

// Categories lists every category in report order.
func Categories() []Category {
	return []Category{MissedAction, WrongArguments, ExtraWrite, PrematureTransfer, MissingInfo, UserSimulator, Limits, Other, Infrastructure}
}

// Label is the category's name in tables.
func (c Category) Label() string {
	switch c {
	case MissedAction:
		return "missed required action"
	case WrongArguments:
		return "wrong action arguments"
	case ExtraWrite:
		return "extra / policy-violating write"
	case PrematureTransfer:
		return "premature transfer"
	case MissingInfo:
		return "missing communicated info"
	case UserSimulator:
		return "user simulator stop/error"
	case Limits:
		return "max steps / too many errors"
	case Infrastructure:
		return "infrastructure"
	}
	return "other"
}

// Short is the category's column name in tables.
func (c Category) Short() string {
	switch c {
	case MissedAction:
		return "missed"
	case WrongArguments:
		return "wrong args"
	case ExtraWrite:
		return "extra write"
	case PrematureTransfer:
		return "transfer"
	case MissingInfo:
		return "missing info"
	case UserSimulator:
		return "user sim"
	case Limits:
		return "limits"
	case Infrastructure:
		return "infra"
	}
	return "other"
}

// Diagnosis is a failed simulation's category and the evidence for it.
type Diagnosis struct {
	Category Category `json:"category"`
	Detail   string   `json:"detail"`
}

// Classify files a failed simulation under one category. It is deterministic
// and decides, in order:
//
//  1. by termination reason: infrastructure, user simulator (user_error, or
//     the user stopping as ###OUT-OF-SCOPE###), limits (max steps, too many
//     errors, timeout, context window, agent error);
//  2. the first required gold action (in gold order) that no call matches:
//     wrong arguments when a call of that name exists; else premature
//     transfer when the agent transferred to a human (a transfer no gold
//     action asks for); else missed action;
//  3. an executed agent write matching no gold action, an executed write
//     the gate refused (agent_info.gate), or a database mismatch (DB in the
//     basis): extra write;
//  4. a transfer no gold action asks for: premature transfer;
//  5. an unmet communicate_info item: missing info;
//  6. other (an unmet NL or environment assertion, or gold unknown).
//
// Required gold actions are all of them when ACTION is in the reward basis
// (or the basis is unknown), else the writes — the ones a DB or environment
// check sees. A successful simulation gets the empty category.
func Classify(r *results.Record, gold Gold, kind func(message.Requestor, string) tool.Kind) Diagnosis {
	if kind == nil {
		kind = func(message.Requestor, string) tool.Kind { return "" }
	}
	switch r.TerminationReason {
	case evaluator.InfrastructureError, evaluator.UnexpectedError:
		return Diagnosis{Infrastructure, orDefault(r.Error, string(r.TerminationReason))}
	case evaluator.UserError:
		return Diagnosis{UserSimulator, "user_error"}
	case evaluator.MaxSteps, evaluator.TooManyErrors, evaluator.Timeout, evaluator.ContextWindow, evaluator.AgentError:
		return Diagnosis{Limits, string(r.TerminationReason)}
	}
	if r.Success() {
		return Diagnosis{}
	}
	if r.TerminationReason == evaluator.UserStop && lastUserSays(r.Messages, "###OUT-OF-SCOPE###") {
		return Diagnosis{UserSimulator, "user stopped: ###OUT-OF-SCOPE###"}
	}
	cs := calls(r.Messages)
	goldNames := map[string]bool{}
	for _, a := range gold.Actions {
		goldNames[a.Name] = true
	}
	transfer := ""
	for _, c := range cs {
		if c.Requestor == message.ByAssistant && isTransfer(c.Name) && !goldNames[c.Name] {
			transfer = c.Name
			break
		}
	}
	if gold.Known {
		matched := matchedActions(cs, gold.Actions)
		for i, a := range gold.Actions {
			if matched[i] || !gold.relevant(a) {
				continue
			}
			for _, c := range cs {
				if c.Name == a.Name {
					return Diagnosis{WrongArguments, fmt.Sprintf("%s called with %s; gold %s", a.Name, compact(c.Arguments), compact(a.Arguments))}
				}
			}
			if transfer != "" {
				return Diagnosis{PrematureTransfer, fmt.Sprintf("%s called before %s", transfer, a.Name)}
			}
			return Diagnosis{MissedAction, a.Name + " not called"}
		}
		for _, c := range cs {
			if c.Requestor != message.ByAssistant || !c.executed || kind(c.Requestor, c.Name) != tool.Write {
				continue
			}
			inGold := false
			for _, a := range gold.Actions {
				if matches(c, a.Action) {
					inGold = true
					break
				}
			}
			if !inGold {
				return Diagnosis{ExtraWrite, c.Name + " not in the gold set"}
			}
		}
	}
	if verdicts, ok := GateVerdicts(r); ok {
		if v := violations(r, verdicts); len(v) > 0 {
			return Diagnosis{ExtraWrite, fmt.Sprintf("%s ran against the gate's %s (%s)", v[0].Tool, strings.ToUpper(v[0].Verdict), v[0].Predicate)}
		}
	}
	if ri := r.RewardInfo; ri != nil {
		if ri.DBCheck != nil && !ri.DBCheck.DBMatch && (gold.Basis == nil || gold.hasBasis(tasks.RewardDB)) {
			return Diagnosis{ExtraWrite, "final database differs from the gold database"}
		}
		if transfer != "" {
			return Diagnosis{PrematureTransfer, transfer + " called; no gold action transfers"}
		}
		for _, c := range ri.CommunicateChecks {
			if !c.Met {
				return Diagnosis{MissingInfo, fmt.Sprintf("%q not communicated", c.Info)}
			}
		}
		for _, c := range ri.NLAssertions {
			if !c.Met {
				return Diagnosis{Other, "NL assertion not met: " + c.NLAssertion}
			}
		}
		for _, c := range ri.EnvAssertions {
			if !c.Met {
				return Diagnosis{Other, "environment assertion not met: " + c.EnvAssertion.FuncName}
			}
		}
	}
	if transfer != "" {
		return Diagnosis{PrematureTransfer, transfer + " called; no gold action transfers"}
	}
	if !gold.Known {
		return Diagnosis{Other, "gold actions unknown"}
	}
	return Diagnosis{Other, "no cause found"}
}

func isTransfer(name string) bool { return strings.HasPrefix(name, "transfer_to_human") }

func lastUserSays(traj []message.Message, token string) bool {
	for i := len(traj) - 1; i >= 0; i-- {
		if traj[i].Role == message.User && !traj[i].IsToolCall() {
			return strings.Contains(traj[i].Content, token)
		}
	}
	return false
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func compact(raw []byte) string {
	s := string(raw)
	if utf8.RuneCountInString(s) > 120 {
		return clip.Runes(s, 117, "...")
	}
	return s
}
