package telecom

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
)

// fuzzCall runs one call with arbitrary arguments on both paths (tool call
// and environment function) of a fresh, set-up environment. Random input
// must give an output or an error, never a panic, and the result must format.
func fuzzCall(t *testing.T, d *Domain, side message.Requestor, name string, args []byte) {
	ctx := context.Background()
	e := d.newEnv()
	if _, err := e.RunFunction(ctx, message.ByUser, "set_user_info", json.RawMessage(`{"name": "John Smith", "phone_number": "555-123-2002"}`)); err != nil {
		t.Fatal(err)
	}
	m := envs.Respond(ctx, e, message.ToolCall{ID: "f", Name: name, Arguments: args, Requestor: side})
	if m.Error && m.Content == "Error: " {
		t.Errorf("%s(%q): empty error text", name, args)
	}
	if res, err := e.RunFunction(ctx, side, name, args); err == nil {
		_ = tool.Content(res)
	}
	a, u := dumps(e)
	if a == "" || u == "" {
		t.Error("dump failed")
	}
}

func FuzzToolArgs(f *testing.F) {
	d := domainForTest(f)
	for _, s := range []struct{ name, args string }{
		{"get_customer_by_phone", `{"phone_number": "555-123-2002"}`},
		{"get_customer_by_name", `{"full_name": "John Smith", "dob": "1985-06-15"}`},
		{"get_details_by_id", `{"id": "L1002"}`},
		{"suspend_line", `{"customer_id": "C1001", "line_id": "L1002", "reason": "x"}`},
		{"resume_line", `{"customer_id": "C1001", "line_id": "L1003"}`},
		{"get_bills_for_customer", `{"customer_id": "C1001", "limit": 2}`},
		{"send_payment_request", `{"customer_id": "C1001", "bill_id": "B1002"}`},
		{"get_data_usage", `{"customer_id": "C1001", "line_id": "L1002"}`},
		{"enable_roaming", `{"customer_id": "C1001", "line_id": "L1002"}`},
		{"refuel_data", `{"customer_id": "C1002", "line_id": "L1004", "gb_amount": 2.5}`},
		{"transfer_to_human_agents", `{"summary": "s"}`},
		{"suspend_line_for_overdue_bill", `{"customer_id": "C1001", "line_id": "L1002", "new_bill_id": "B1", "contract_ended": true}`},
		{"set_data_usage", `{"customer_id": "C1001", "line_id": "L1002", "data_used_gb": 20}`},
		{"assert_line_status", `{"customer_id": "C1001", "line_id": "L1002", "expected_status": "Active"}`},
		{"get_bills_for_customer", `[1]`},
		{"refuel_data", `{"customer_id": "C1001", "line_id": "L1002", "gb_amount": "1e400"}`},
	} {
		f.Add(s.name, []byte(s.args))
	}
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		fuzzCall(t, d, message.ByAssistant, name, args)
	})
}

func FuzzUserToolArgs(f *testing.F) {
	d := domainForTest(f)
	for _, s := range []struct{ name, args string }{
		{"check_status_bar", `{}`},
		{"set_network_mode_preference", `{"mode": "3g_only"}`},
		{"set_apn_settings", `{"apn_settings": {"apn_name": "broken", "mms_port": 80}}`},
		{"set_apn_settings", `{"apn_settings": [1, {"a": null}]}`},
		{"check_app_status", `{"app_name": "messaging"}`},
		{"grant_app_permission", `{"app_name": "messaging", "permission": "SMS"}`},
		{"toggle_airplane_mode", `{}`},
		{"make_payment", `{}`},
		{"lock_sim_card", `{"mode": "puk"}`},
		{"set_wifi_calling", `{"enabled": true, "mms_over_wifi": null}`},
		{"remove_app_permission", `{"app_name": "browser", "permission": "network"}`},
		{"assert_internet_speed", `{"expected_speed": 1e308, "expected_desc": "poor"}`},
		{"assert_service_status", `{"expected_status": "searching"}`},
		{"break_vpn", `null`},
	} {
		f.Add(s.name, []byte(s.args))
	}
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		fuzzCall(t, d, message.ByUser, name, args)
	})
}
