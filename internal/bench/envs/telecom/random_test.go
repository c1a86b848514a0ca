package telecom

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// randomScenarios builds n random call sequences over every tool and
// environment function, with mostly valid and some invalid arguments.
func randomScenarios(d *Domain, n int, seed uint64) []scenario {
	r := rand.New(rand.NewPCG(seed, 11))
	pick := func(vals ...any) any { return vals[r.IntN(len(vals))] }
	customers := func() any { return pick("C1001", "C1001", "C1002", "C1003", "C1004", "C9") }
	lines := func() any { return pick("L1001", "L1002", "L1002", "L1003", "L1004", "L1009", "L9") }
	bills := func() any { return pick("B1001", "B1002", "B1003", "B1005", "B1006", "B1234321", "B9") }
	args := func(kv ...any) json.RawMessage {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		b, _ := json.Marshal(m)
		return b
	}
	type gen func() (message.Requestor, string, string, json.RawMessage)
	u, a := message.ByUser, message.ByAssistant
	noArgs := func(side message.Requestor, mode, name string) gen {
		return func() (message.Requestor, string, string, json.RawMessage) { return side, mode, name, args() }
	}
	var gens []gen
	for _, ti := range d.user.Infos() {
		if len(ti.Params) == 0 {
			gens = append(gens, noArgs(u, "tool", ti.Name))
		}
	}
	for _, name := range []string{"turn_airplane_mode_on", "turn_airplane_mode_off", "unseat_sim_card", "turn_data_on",
		"turn_data_off", "turn_roaming_on", "turn_roaming_off", "turn_data_saver_mode_on", "turn_data_saver_mode_off",
		"break_apn_settings", "break_apn_mms_setting", "break_vpn", "simulate_network_search", "assert_internet_not_excellent"} {
		gens = append(gens, noArgs(u, "func", name))
	}
	gens = append(gens,
		func() (message.Requestor, string, string, json.RawMessage) {
			return u, "tool", "set_network_mode_preference", args("mode", pick("4g_5g_preferred", "4g_only", "3g_only", "2g_only", "5g"))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return u, "tool", "set_apn_settings", args("apn_settings", pick(map[string]any{}, map[string]any{"apn_name": "broken"},
				map[string]any{"mmsc_url": nil}, map[string]any{"apn_name": "internet", "reset_at_reboot": true}, map[string]any{"bad": 1}))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return u, "tool", pick("check_app_status", "check_app_permissions").(string), args("app_name", pick("messaging", "browser", "camera"))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return u, "tool", "grant_app_permission", args("app_name", pick("messaging", "browser", "camera"), "permission", pick("sms", "STORAGE", "phone", "network", "camera"))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return u, "func", "remove_app_permission", args("app_name", pick("messaging", "browser"), "permission", pick("sms", "storage", "network"))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return u, "func", "set_user_location", args("abroad", pick(true, false))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return u, "func", "lock_sim_card", args("mode", pick("pin", "puk"))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return u, "func", "set_wifi_calling", args("enabled", pick(true, false), "mms_over_wifi", pick(true, false, nil))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return u, "func", pick("assert_mobile_data_status", "assert_can_send_mms", "assert_airplane_mode_status",
					"assert_mobile_roaming_status", "assert_mobile_data_saver_mode_status", "assert_mobile_data_usage_exceeded").(string),
				args("expected_status", pick(true, false))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return u, "func", "assert_service_status", args("expected_status", pick("connected", "no_service", "searching"))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return u, "func", "assert_internet_speed", args("expected_speed", pick(0, 1.5, 200), "expected_desc", pick("excellent", "fair", nil))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "tool", "get_customer_by_phone", args("phone_number", pick("555-123-2002", "555-123-2001", "555-123-1003", "555-0"))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "tool", "get_customer_by_id", args("customer_id", customers())
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "tool", "get_customer_by_name", args("full_name", pick("John Smith", "sarah johnson", "Nobody"), "dob", pick("1985-06-15", "1990-11-22"))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "tool", "get_details_by_id", args("id", pick(lines(), bills(), customers(), "D1002", "P1002", "Z1"))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "tool", "suspend_line", args("customer_id", customers(), "line_id", lines(), "reason", "r")
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "tool", pick("resume_line", "get_data_usage", "enable_roaming", "disable_roaming").(string), args("customer_id", customers(), "line_id", lines())
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "tool", "get_bills_for_customer", args("customer_id", customers(), "limit", pick(1, 3, 12, -1))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "tool", "send_payment_request", args("customer_id", customers(), "bill_id", bills())
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "tool", "refuel_data", args("customer_id", customers(), "line_id", lines(), "gb_amount", pick(1, 2.0, 0.5, 0, -2, 10))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "tool", "transfer_to_human_agents", args("summary", "s")
		},
		// Wrong argument types: both implementations must fail.
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "tool", pick("get_customer_by_id", "get_bills_for_customer").(string), args("customer_id", 1001, "limit", "3")
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return u, "tool", "set_apn_settings", args("apn_settings", pick("internet", 5, []any{}))
		},
		// Other JSON types for the agent tools' str arguments: upstream's
		// code compares, formats or calls methods on them.
		func() (message.Requestor, string, string, json.RawMessage) {
			odd := func() any {
				return pick(1001, 2.5, true, nil, []any{"C1001"}, map[string]any{"L1002": 1}, "", []any{})
			}
			switch r.IntN(7) {
			case 0:
				return a, "tool", "get_customer_by_phone", args("phone_number", odd())
			case 1:
				return a, "tool", "get_customer_by_name", args("full_name", pick(odd(), "John Smith"), "dob", pick(odd(), "1985-06-15"))
			case 2:
				return a, "tool", pick("get_details_by_id", "get_customer_by_id").(string), args("id", odd(), "customer_id", odd())
			case 3:
				return a, "tool", "suspend_line", args("customer_id", pick(odd(), customers()), "line_id", pick(odd(), lines()), "reason", odd())
			case 4:
				return a, "tool", pick("resume_line", "get_data_usage", "enable_roaming", "disable_roaming").(string), args("customer_id", pick(odd(), customers()), "line_id", pick(odd(), lines()))
			case 5:
				return a, "tool", "send_payment_request", args("customer_id", pick(odd(), customers()), "bill_id", pick(odd(), bills()))
			}
			return a, "tool", pick("refuel_data", "transfer_to_human_agents").(string), args("customer_id", pick(odd(), customers()), "line_id", pick(odd(), lines()), "gb_amount", 1, "summary", odd())
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			odd := pick(7, 2.5, true, nil, []any{"messaging"}, map[string]any{"messaging": 1}, "")
			if r.IntN(2) == 0 {
				return u, "tool", pick("check_app_status", "check_app_permissions").(string), args("app_name", odd)
			}
			return u, "tool", "grant_app_permission", args("app_name", pick(odd, "messaging"), "permission", pick(odd, "sms"))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "func", "set_data_usage", args("customer_id", customers(), "line_id", lines(), "data_used_gb", pick(1.5, 15.1, 20.0))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "func", "suspend_line_for_overdue_bill", args("customer_id", customers(), "line_id", lines(), "new_bill_id", pick("B1234321", "B55"), "contract_ended", pick(true, false))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "func", pick("assert_overdue_bill_exists", "assert_no_overdue_bill").(string), args("customer_id", customers(), "overdue_bill_id", bills())
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "func", "assert_data_refueling_amount", args("customer_id", customers(), "line_id", lines(), "expected_amount", pick(0, 2.0))
		},
		func() (message.Requestor, string, string, json.RawMessage) {
			return a, "func", "assert_line_status", args("customer_id", customers(), "line_id", lines(), "expected_status", pick("Active", "Suspended"))
		},
	)
	out := make([]scenario, n)
	for i := range out {
		s := scenario{Name: fmt.Sprintf("random #%d", i)}
		if r.IntN(4) != 0 {
			s.Steps = append(s.Steps, step{Side: u, Mode: "func", Name: "set_user_info", Arguments: args("name", "John Smith", "phone_number", pick("555-123-2002", "555-123-2001", "555-123-2009"))})
		}
		for range 1 + r.IntN(15) {
			side, mode, name, a := gens[r.IntN(len(gens))]()
			if name == "assert_no_overdue_bill" {
				a = args("overdue_bill_id", bills())
			}
			s.Steps = append(s.Steps, step{Side: side, Mode: mode, Name: name, Arguments: a})
		}
		out[i] = s
	}
	return out
}
