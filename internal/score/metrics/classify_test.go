package metrics

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

func tc(id, name, args string) message.ToolCall {
	return message.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args), Requestor: message.ByAssistant}
}

func asst(calls ...message.ToolCall) message.Message {
	return message.Message{Role: message.Assistant, ToolCalls: calls}
}

func toolMsg(id string, failed bool) message.Message {
	return message.Message{Role: message.Tool, ToolCallID: id, Requestor: message.ByAssistant, Error: failed, Content: "ok"}
}

func say(role message.Role, text string) message.Message {
	return message.Message{Role: role, Content: text}
}

var testKinds = map[string]tool.Kind{
	"cancel_reservation": tool.Write, "book_reservation": tool.Write, "toggle_data": tool.Write,
	"get_reservation_details": tool.Read, "get_user_details": tool.Read,
	"transfer_to_human_agents": tool.Generic,
}

func testKind(_ message.Requestor, name string) tool.Kind { return testKinds[name] }

func goldOf(basis []tasks.RewardType, acts ...tasks.Action) Gold {
	g := Gold{Known: true, Basis: basis}
	for _, a := range acts {
		g.Actions = append(g.Actions, GoldAction{Action: a, Kind: testKinds[a.Name]})
	}
	return g
}

func act(name, args string) tasks.Action {
	return tasks.Action{ActionID: name, Name: name, Arguments: json.RawMessage(args)}
}

func failedInfo(mut func(*evaluator.RewardInfo)) *evaluator.RewardInfo {
	ri := &evaluator.RewardInfo{Reward: 0, DBCheck: &evaluator.DBCheck{DBMatch: true, DBReward: 1}}
	if mut != nil {
		mut(ri)
	}
	return ri
}

func TestClassify(t *testing.T) {
	t.Parallel()
	dbComm := []tasks.RewardType{tasks.RewardDB, tasks.RewardCommunicate}
	cancelABC := act("cancel_reservation", `{"reservation_id": "ABC"}`)
	readABC := act("get_reservation_details", `{"reservation_id": "ABC"}`)
	gold := goldOf(dbComm, readABC, cancelABC)
	stop := evaluator.UserStop
	cases := []struct {
		name   string
		term   evaluator.Termination
		msgs   []message.Message
		info   *evaluator.RewardInfo
		agent  string // agent_info JSON
		gold   Gold
		want   Category
		detail string // substring of the detail
	}{
		{name: "infrastructure", term: evaluator.InfrastructureError, gold: gold, want: Infrastructure},
		{name: "unexpected error is infrastructure", term: evaluator.UnexpectedError, gold: gold, want: Infrastructure},
		{name: "user error", term: evaluator.UserError, gold: gold, want: UserSimulator, detail: "user_error"},
		{name: "user out of scope", term: stop, gold: gold, info: failedInfo(nil),
			msgs: []message.Message{say(message.Assistant, "hi"), say(message.User, "I can't say. ###OUT-OF-SCOPE###")}, want: UserSimulator},
		{name: "max steps", term: evaluator.MaxSteps, gold: gold, want: Limits, detail: "max_steps"},
		{name: "too many errors", term: evaluator.TooManyErrors, gold: gold, want: Limits},
		{name: "timeout", term: evaluator.Timeout, gold: gold, want: Limits},
		{name: "missed required action", term: stop, gold: gold, info: failedInfo(nil),
			msgs: []message.Message{asst(tc("1", "get_reservation_details", `{"reservation_id": "ABC"}`)), toolMsg("1", false)},
			want: MissedAction, detail: "cancel_reservation not called"},
		{name: "wrong arguments", term: stop, gold: gold, info: failedInfo(nil),
			msgs: []message.Message{asst(tc("1", "cancel_reservation", `{"reservation_id": "XYZ"}`)), toolMsg("1", false)},
			want: WrongArguments, detail: "XYZ"},
		{name: "premature transfer", term: stop, gold: gold, info: failedInfo(nil),
			msgs: []message.Message{asst(tc("1", "transfer_to_human_agents", `{"summary": "x"}`)), toolMsg("1", false),
				say(message.User, "###TRANSFER###")},
			want: PrematureTransfer, detail: "before cancel_reservation"},
		{name: "wrong arguments before a transfer", term: stop, gold: gold, info: failedInfo(nil),
			msgs: []message.Message{asst(tc("1", "cancel_reservation", `{"reservation_id": "XYZ"}`)), toolMsg("1", true),
				asst(tc("2", "transfer_to_human_agents", `{"summary": "x"}`)), toolMsg("2", false)},
			want: WrongArguments},
		{name: "transfer in the gold set is not premature", term: stop,
			gold: goldOf(dbComm, act("transfer_to_human_agents", `{"summary": "x"}`)),
			info: failedInfo(func(ri *evaluator.RewardInfo) {
				ri.CommunicateChecks = []evaluator.CommunicateCheck{{Info: "42", Met: false}}
			}),
			msgs: []message.Message{asst(tc("1", "transfer_to_human_agents", `{"summary": "x"}`)), toolMsg("1", false)},
			want: MissingInfo},
		{name: "extra write outside the gold set", term: stop, gold: gold, info: failedInfo(nil),
			msgs: []message.Message{asst(tc("1", "cancel_reservation", `{"reservation_id": "ABC"}`)), toolMsg("1", false),
				asst(tc("2", "book_reservation", `{"user_id": "u"}`)), toolMsg("2", false)},
			want: ExtraWrite, detail: "book_reservation"},
		{name: "failed write is not extra", term: stop, gold: gold,
			info: failedInfo(func(ri *evaluator.RewardInfo) {
				ri.CommunicateChecks = []evaluator.CommunicateCheck{{Info: "refund", Met: false}}
			}),
			msgs: []message.Message{asst(tc("1", "cancel_reservation", `{"reservation_id": "ABC"}`)), toolMsg("1", false),
				asst(tc("2", "book_reservation", `{"user_id": "u"}`)), toolMsg("2", true)},
			want: MissingInfo},
		{name: "database mismatch with every action matched", term: stop, gold: gold,
			info: failedInfo(func(ri *evaluator.RewardInfo) { ri.DBCheck = &evaluator.DBCheck{DBMatch: false} }),
			msgs: []message.Message{asst(tc("1", "cancel_reservation", `{"reservation_id": "ABC"}`)), toolMsg("1", false)},
			want: ExtraWrite, detail: "database"},
		{name: "write the gate refuses", term: stop, gold: goldOf(dbComm),
			info:  failedInfo(nil),
			agent: `{"gate": {"mode": "shadow", "verdicts": [{"tool": "cancel_reservation", "call_id": "1", "verdict": "BLOCK", "predicate": "airline.cancel.basis"}]}}`,
			msgs:  []message.Message{asst(tc("1", "cancel_reservation", `{"reservation_id": "ABC"}`)), toolMsg("1", false)},
			want:  ExtraWrite},
		{name: "write the gate refused and removed", term: stop, gold: goldOf([]tasks.RewardType{tasks.RewardNLAssertion}),
			info: failedInfo(func(ri *evaluator.RewardInfo) {
				ri.DBCheck = nil
				ri.NLAssertions = []evaluator.NLCheck{{NLAssertion: "agent refuses", Met: false}}
			}),
			agent: `{"gate": {"verdicts": [{"tool": "cancel_reservation", "call_id": "1", "verdict": "BLOCK"}]}}`,
			msgs:  []message.Message{say(message.Assistant, "I cannot cancel it.")},
			want:  Other, detail: "NL assertion"},
		{name: "transfer before stating the information", term: stop, gold: gold,
			info: failedInfo(func(ri *evaluator.RewardInfo) {
				ri.CommunicateChecks = []evaluator.CommunicateCheck{{Info: "327", Met: false}}
			}),
			msgs: []message.Message{asst(tc("1", "cancel_reservation", `{"reservation_id": "ABC"}`)), toolMsg("1", false),
				asst(tc("2", "transfer_to_human_agents", `{"summary": "x"}`)), toolMsg("2", false)},
			want: PrematureTransfer, detail: "no gold action transfers"},
		{name: "missing communicated info", term: stop, gold: gold,
			info: failedInfo(func(ri *evaluator.RewardInfo) {
				ri.CommunicateChecks = []evaluator.CommunicateCheck{{Info: "327", Met: false}}
			}),
			msgs: []message.Message{asst(tc("1", "cancel_reservation", `{"reservation_id": "ABC"}`)), toolMsg("1", false)},
			want: MissingInfo, detail: "327"},
		{name: "read missing under a DB basis is not the cause", term: stop, gold: gold,
			info: failedInfo(func(ri *evaluator.RewardInfo) { ri.DBCheck = &evaluator.DBCheck{DBMatch: false} }),
			msgs: []message.Message{asst(tc("1", "cancel_reservation", `{"reservation_id": "ABC"}`)), toolMsg("1", false),
				asst(tc("2", "cancel_reservation", `{"reservation_id": "DEF"}`)), toolMsg("2", false)},
			want: ExtraWrite, detail: "cancel_reservation not in the gold set"},
		{name: "read missing under an ACTION basis", term: stop, gold: goldOf([]tasks.RewardType{tasks.RewardAction}, readABC, cancelABC),
			info: failedInfo(nil),
			msgs: []message.Message{asst(tc("1", "cancel_reservation", `{"reservation_id": "ABC"}`)), toolMsg("1", false)},
			want: MissedAction, detail: "get_reservation_details"},
		{name: "compare_args narrows the match", term: stop,
			gold: goldOf(dbComm, tasks.Action{Name: "cancel_reservation", Arguments: json.RawMessage(`{"reservation_id": "ABC", "reason": "x"}`), CompareArgs: &[]string{"reservation_id"}}),
			info: failedInfo(func(ri *evaluator.RewardInfo) {
				ri.CommunicateChecks = []evaluator.CommunicateCheck{{Info: "done", Met: false}}
			}),
			msgs: []message.Message{asst(tc("1", "cancel_reservation", `{"reservation_id": "ABC", "reason": "y"}`)), toolMsg("1", false)},
			want: MissingInfo},
		{name: "environment assertion", term: stop, gold: goldOf([]tasks.RewardType{tasks.RewardEnvAssertion}, act("toggle_data", `{}`)),
			info: &evaluator.RewardInfo{EnvAssertions: []evaluator.EnvAssertionCheck{{EnvAssertion: tasks.EnvAssertion{FuncName: "assert_data_on"}, Met: false}}},
			msgs: []message.Message{asst(tc("1", "toggle_data", `{}`)), toolMsg("1", false)},
			want: Other, detail: "assert_data_on"},
		{name: "gold unknown", term: stop, info: &evaluator.RewardInfo{}, want: Other, detail: "unknown"},
		{name: "success", term: stop, gold: gold, info: &evaluator.RewardInfo{Reward: 1}, want: ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &results.Record{TaskID: "0", TerminationReason: c.term, Messages: c.msgs, RewardInfo: c.info}
			if c.agent != "" {
				r.AgentInfo = json.RawMessage(c.agent)
			}
			got := Classify(r, c.gold, testKind)
			if got.Category != c.want {
				t.Errorf("Classify = %q (%s); want %q", got.Category, got.Detail, c.want)
			}
			if !strings.Contains(got.Detail, c.detail) {
				t.Errorf("Classify detail = %q; want it to mention %q", got.Detail, c.detail)
			}
		})
	}
}

func TestCategoriesLabelled(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range Categories() {
		if c.Label() == "other" && c != Other || c.Short() == "other" && c != Other {
			t.Errorf("category %q has no label", c)
		}
		if seen[c.Short()] {
			t.Errorf("short label %q used twice", c.Short())
		}
		seen[c.Short()] = true
	}
}
