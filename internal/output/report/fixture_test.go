package report

import (
	"encoding/json"
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// fixtureCatalog knows three tasks per domain: "0" cancels a reservation,
// "1" only reads, "2" reads and cancels.
type fixtureCatalog struct{}

var fixtureTasks = map[string]*tasks.Task{
	"0": {ID: "0", EvaluationCriteria: &tasks.EvaluationCriteria{Actions: []tasks.Action{
		{ActionID: "a", Name: "cancel_reservation", Arguments: json.RawMessage(`{"reservation_id": "ABC"}`)}}}},
	"1": {ID: "1", EvaluationCriteria: &tasks.EvaluationCriteria{Actions: []tasks.Action{
		{ActionID: "a", Name: "get_user_details", Arguments: json.RawMessage(`{"user_id": "u"}`)}}}},
	"2": {ID: "2", EvaluationCriteria: &tasks.EvaluationCriteria{Actions: []tasks.Action{
		{ActionID: "a", Name: "get_user_details", Arguments: json.RawMessage(`{"user_id": "u"}`)},
		{ActionID: "b", Name: "cancel_reservation", Arguments: json.RawMessage(`{"reservation_id": "DEF"}`)}}}},
}

func (fixtureCatalog) Task(_, id string) (*tasks.Task, bool) { t, ok := fixtureTasks[id]; return t, ok }

func (fixtureCatalog) ToolKind(_ string, _ message.Requestor, name string) (tool.Kind, bool) {
	switch name {
	case "cancel_reservation":
		return tool.Write, true
	case "get_user_details":
		return tool.Read, true
	case "transfer_to_human_agents":
		return tool.Generic, true
	}
	return "", false
}

func call(id, name, args string) message.Message {
	return message.Message{Role: message.Assistant, ToolCalls: []message.ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(args), Requestor: message.ByAssistant}}}
}

func result(id string) message.Message {
	return message.Message{Role: message.Tool, ToolCallID: id, Requestor: message.ByAssistant, Content: "{}"}
}

// fixture is a deterministic grid: 2 backbones × 2 domains × 3 agents × 3
// tasks × 4 trials, with one infrastructure error, gate reports, usage and
// failures of several kinds.
func fixture() []results.Record {
	var out []results.Record
	threshold := map[string]int{"baseline": 5, "irma": 6, "ledger": 8}
	prompt := map[string]int{"baseline": 1000, "irma": 1600, "ledger": 1100}
	calls := map[string]int{"baseline": 5, "irma": 8, "ledger": 5}
	for bi, bb := range []string{"glm-5", "kimi-k2.5"} {
		for di, dom := range []string{"airline", "retail"} {
			for _, agent := range []string{"baseline", "irma", "ledger"} {
				for task := range 3 {
					for trial := range 4 {
						score := (task*7 + trial*3 + bi*5 + di) % 10
						ok := score < threshold[agent]
						id := fmt.Sprint(task)
						r := results.Record{ID: fmt.Sprintf("%s-%s-%s-%d-%d", bb, dom, agent, task, trial), TaskID: id, Trial: trial,
							Domain: dom, Agent: agent, Backbone: bb, UserBackbone: "gpt-4.1", TerminationReason: evaluator.UserStop,
							AgentUsage: message.Usage{PromptTokens: prompt[agent], CompletionTokens: 50}, AgentCalls: calls[agent],
							UserUsage: message.Usage{PromptTokens: 400, CompletionTokens: 20}, UserCalls: 3,
							AgentCost: float64(prompt[agent]) * 2e-6, UserCost: 0.0008}
						if dom == "retail" {
							r.JudgeUsage = message.Usage{PromptTokens: 900, CompletionTokens: 40}
							r.JudgeCost = 0.002
						}
						transfer := !ok && task == 1 && trial%2 == 1
						r.RewardInfo = &evaluator.RewardInfo{Reward: 0, DBCheck: &evaluator.DBCheck{DBMatch: ok || transfer}}
						if transfer {
							r.RewardInfo.CommunicateChecks = []evaluator.CommunicateCheck{{Info: "balance", Met: false}}
						}
						if ok {
							r.RewardInfo.Reward = 1
						}
						gold := fixtureTasks[id].GoldActions()
						switch {
						case ok:
							for i, a := range gold {
								cid := fmt.Sprint("c", i)
								r.Messages = append(r.Messages, call(cid, a.Name, string(a.Arguments)), result(cid))
							}
						case trial%2 == 0:
							r.Messages = append(r.Messages, call("c0", "cancel_reservation", `{"reservation_id": "ZZZ"}`), result("c0"))
						case transfer:
							r.Messages = append(r.Messages, call("c0", "transfer_to_human_agents", `{"summary": "s"}`), result("c0"))
						}
						switch agent {
						case "ledger":
							verdict := "ALLOW"
							if !ok {
								verdict = "REVISE"
							}
							r.AgentInfo = json.RawMessage(fmt.Sprintf(`{"gate": {"mode": "enforce", "verdicts": [{"tool": "cancel_reservation", "call_id": "x", "verdict": %q, "predicate": "p"}]}}`, verdict))
						case "baseline":
							verdict := "ALLOW"
							if !ok && trial%2 == 0 {
								verdict = "BLOCK"
							}
							r.AgentInfo = json.RawMessage(fmt.Sprintf(`{"gate": {"mode": "shadow", "verdicts": [{"tool": "cancel_reservation", "call_id": "c0", "verdict": %q, "predicate": "p"}]}}`, verdict))
						}
						if bb == "kimi-k2.5" && dom == "airline" && agent == "baseline" && task == 1 && trial == 3 {
							r.TerminationReason = evaluator.InfrastructureError
							r.RewardInfo = nil
							r.Error = "429 Too Many Requests"
							r.Messages = nil
						}
						out = append(out, r)
					}
				}
			}
		}
	}
	return out
}
