package banking

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// FuzzToolArgs: any arguments to any tool, the discoverable ones through
// their call tools, give a tool message, never a panic.
func FuzzToolArgs(f *testing.F) {
	d := domainForTest(f)
	f.Add("call_discoverable_agent_tool", `{"agent_tool_name": "file_debit_card_transaction_dispute_6281", "arguments": "{\"disputed_amount\": \"x\"}"}`, true)
	f.Add("call_discoverable_agent_tool", `{"agent_tool_name": "request_temporary_debit_card_limit_increase_8374", "arguments": "{\"card_id\": [1], \"limit_type\": \"atm\", \"new_limit\": 1e400}"}`, true)
	f.Add("get_user_information_by_id", `{"user_id": "a\"b"}`, false)
	f.Add("call_discoverable_user_tool", `{"discoverable_tool_name": "deposit_check_3847", "arguments": "{\"account_id\": 1, \"check_amount\": null}"}`, false)
	f.Add("give_discoverable_user_tool", `{"discoverable_tool_name": 5, "arguments": "[1"}`, false)
	f.Add("order_debit_card_5739", `{"account_id": "chk_x", "user_id": {}, "delivery_option": 3}`, false)
	f.Fuzz(func(t *testing.T, name, args string, unlock bool) {
		ctx := context.Background()
		env := d.NewEnv()
		req := message.ByAssistant
		if _, ok := d.ToolKind(message.ByUser, name); ok {
			req = message.ByUser
		}
		if unlock {
			var a struct {
				Name string `json:"agent_tool_name"`
			}
			_ = json.Unmarshal([]byte(args), &a)
			b, _ := json.Marshal(map[string]string{"agent_tool_name": a.Name})
			envs.Respond(ctx, env, message.ToolCall{ID: "u", Name: "unlock_discoverable_agent_tool", Arguments: b, Requestor: message.ByAssistant})
		}
		m := envs.Respond(ctx, env, message.ToolCall{ID: "x", Name: name, Arguments: json.RawMessage(args), Requestor: req})
		if m.Role != message.Tool {
			t.Fatalf("not a tool message: %+v", m)
		}
	})
}
