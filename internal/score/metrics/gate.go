package metrics

import (
	"encoding/json"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
)

// GateVerdict is one policy-gate verdict as an agent reports it in
// Record.AgentInfo, in either of two shapes:
//
//	{"gate": {"mode": "enforce" | "shadow",
//	          "verdicts": [{"tool": "cancel_reservation", "call_id": "call_1",
//	                        "verdict": "BLOCK", "predicate": "airline.cancel.basis",
//	                        "reason": "…", "shadow": false, "executed": false}]}}
//
// or LedgerAgent's own report (ledgeragent.Report): the verdicts at the top
// level, {"mode": {"Ledger": …, "Gate": true}, "verdicts": [{"turn": 1,
// "tool": …, "call_id": …, "verdict": …, …}]}; a report whose mode has no
// gate (ledger-only) reports no gate.
//
// verdict is ALLOW, REVISE or BLOCK (any case). shadow marks a verdict of a
// gate that only watches (baseline runs audited in shadow mode): the call ran
// whatever the verdict. executed, when present, says whether the call ran;
// when absent it is taken from the trajectory (a call with that id that got a
// tool message without an error), else from shadow (shadow calls run) or the
// verdict (only allowed calls run).
type GateVerdict struct {
	Tool      string `json:"tool"`
	CallID    string `json:"call_id,omitempty"`
	Verdict   string `json:"verdict"`
	Predicate string `json:"predicate,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Shadow    bool   `json:"shadow,omitempty"`
	Executed  *bool  `json:"executed,omitempty"`
}

// Allowed reports whether the verdict is ALLOW.
func (v GateVerdict) Allowed() bool { return strings.EqualFold(v.Verdict, "allow") }

type gateReport struct {
	Gate *struct {
		Mode     string        `json:"mode"`
		Shadow   bool          `json:"shadow"`
		Verdicts []GateVerdict `json:"verdicts"`
	} `json:"gate"`
	// LedgerAgent's report.
	Mode     json.RawMessage `json:"mode"`
	Verdicts []GateVerdict   `json:"verdicts"`
}

// GateVerdicts reads the gate verdicts of a record's AgentInfo; ok is false
// when the agent reported no gate (no policy adherence can be judged).
func GateVerdicts(r *results.Record) (verdicts []GateVerdict, ok bool) {
	if len(r.AgentInfo) == 0 {
		return nil, false
	}
	var rep gateReport
	if err := json.Unmarshal(r.AgentInfo, &rep); err != nil {
		return nil, false
	}
	if rep.Gate == nil {
		var mode struct{ Gate bool }
		if rep.Verdicts == nil && (json.Unmarshal(rep.Mode, &mode) != nil || !mode.Gate) {
			return nil, false
		}
		return rep.Verdicts, true
	}
	shadow := rep.Gate.Shadow || strings.EqualFold(rep.Gate.Mode, "shadow")
	out := make([]GateVerdict, len(rep.Gate.Verdicts))
	for i, v := range rep.Gate.Verdicts {
		v.Shadow = v.Shadow || shadow
		out[i] = v
	}
	return out, true
}

// VerdictCounts counts gate verdicts; shadow verdicts are counted apart.
type VerdictCounts struct {
	Allow        int `json:"allow"`
	Revise       int `json:"revise"`
	Block        int `json:"block"`
	ShadowAllow  int `json:"shadow_allow"`
	ShadowRevise int `json:"shadow_revise"`
	ShadowBlock  int `json:"shadow_block"`
}

func (c *VerdictCounts) add(v GateVerdict) {
	switch strings.ToUpper(v.Verdict) {
	case "ALLOW":
		if v.Shadow {
			c.ShadowAllow++
		} else {
			c.Allow++
		}
	case "REVISE":
		if v.Shadow {
			c.ShadowRevise++
		} else {
			c.Revise++
		}
	case "BLOCK":
		if v.Shadow {
			c.ShadowBlock++
		} else {
			c.Block++
		}
	}
}

// Total is the number of verdicts counted.
func (c VerdictCounts) Total() int {
	return c.Allow + c.Revise + c.Block + c.ShadowAllow + c.ShadowRevise + c.ShadowBlock
}

// violations returns the executed calls the gate would refuse. A verdict
// that names its call only by id is the k-th verdict for that id and tool,
// and so stands for the k-th call with that id and tool: ids a provider
// reuses within a conversation still pair each verdict with its own call.
func violations(r *results.Record, verdicts []GateVerdict) []GateVerdict {
	type key struct{ id, tool string }
	var byKey map[key][]call
	seen := map[key]int{}
	var out []GateVerdict
	for _, v := range verdicts {
		k := key{v.CallID, v.Tool}
		n := seen[k]
		if v.CallID != "" {
			seen[k]++
		}
		if v.Allowed() {
			continue
		}
		var executed bool
		switch {
		case v.Executed != nil:
			executed = *v.Executed
		case v.CallID != "":
			if byKey == nil {
				byKey = map[key][]call{}
				for _, c := range calls(r.Messages) {
					byKey[key{c.ID, c.Name}] = append(byKey[key{c.ID, c.Name}], c)
					byKey[key{c.ID, ""}] = append(byKey[key{c.ID, ""}], c)
				}
			}
			cs := byKey[k]
			executed = n < len(cs) && cs[n].executed
		default:
			executed = v.Shadow
		}
		if executed {
			out = append(out, v)
		}
	}
	return out
}
