package telecom

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

var (
	_ ledgeragent.Policy  = (*Domain)(nil)
	_ ledgeragent.Auditor = (*Domain)(nil)
)

// read is an agent read call.
func read(name string, kv ...string) message.ToolCall {
	return message.ToolCall{Name: name, Arguments: objectArgs(kv...), Requestor: message.ByAssistant}
}

// respond runs an agent call on env and fails the test on an error result
// unless wantErr.
func respond(tb testing.TB, env envs.Env, tc message.ToolCall) message.Message {
	tb.Helper()
	if tc.Requestor == "" {
		tc.Requestor = message.ByAssistant
	}
	tc.ID = "t"
	return envs.Respond(context.Background(), env, tc)
}

// absorbAll runs reads on env and absorbs the successful ones, as the agent
// does.
func absorbAll(tb testing.TB, d *Domain, env envs.Env, l *ledger.Ledger, calls ...message.ToolCall) {
	tb.Helper()
	for _, tc := range calls {
		res := respond(tb, env, tc)
		if res.Error {
			continue
		}
		if ti, ok := envs.ToolInfo(d, message.ByAssistant, tc.Name); ok && ti.Kind == "read" {
			l.Absorb(d, tc.Name, tc.Arguments, res.Content)
		}
	}
}

func TestRoute(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	env := d.NewEnv()
	ctx := context.Background()
	// An int data_used_gb (set_data_usage with an int) must survive routing.
	if _, err := env.RunFunction(ctx, message.ByAssistant, "set_data_usage", json.RawMessage(`{"customer_id":"C1001","line_id":"L1001","data_used_gb":20}`)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		call  message.ToolCall
		paths []string
		check func(t *testing.T, es []ledger.Entry)
	}{
		{"customer by phone", read("get_customer_by_phone", "phone_number", "555-123-2002"),
			[]string{"customers.C1001", "phone_lookups.555-123-2002"}, func(t *testing.T, es []ledger.Entry) {
				c := es[0].Value.(*Customer)
				if c.FullName != "John Smith" || !slices.Equal(c.LineIDs, []string{"L1001", "L1002", "L1003"}) || len(c.PaymentMethods) != 1 {
					t.Errorf("customer = %+v", c)
				}
				if p := es[1].Value.(*PhoneLookup); *p != (PhoneLookup{"555-123-2002", "C1001"}) {
					t.Errorf("lookup = %+v", p)
				}
			}},
		{"customer by contact phone of another", read("get_customer_by_phone", "phone_number", "555-123-1002"),
			[]string{"customers.C1002", "phone_lookups.555-123-1002"}, nil},
		{"customer by id", read("get_customer_by_id", "customer_id", "C1003"), []string{"customers.C1003"}, func(t *testing.T, es []ledger.Entry) {
			if c := es[0].Value.(*Customer); c.AccountStatus != "Suspended" || c.GoodwillCreditUsedThisYear != 50 {
				t.Errorf("customer = %+v", c)
			}
		}},
		{"customer by name", read("get_customer_by_name", "full_name", "john smith", "dob", "1985-06-15"), []string{"customers.C1001"}, nil},
		{"customer by name, none", read("get_customer_by_name", "full_name", "Nobody", "dob", "1985-06-15"), nil, nil},
		{"line", read("get_details_by_id", "id", "L1003"), []string{"lines.L1003"}, func(t *testing.T, es []ledger.Entry) {
			x := es[0].Value.(*Line)
			if x.Status != LineSuspended || x.SuspensionStartDate == nil || *x.SuspensionStartDate != "2025-02-01" || x.DeviceID == nil || *x.DeviceID != "D1003" {
				t.Errorf("line = %+v", x)
			}
		}},
		{"line with int usage", read("get_details_by_id", "id", "L1001"), []string{"lines.L1001"}, func(t *testing.T, es []ledger.Entry) {
			if x := es[0].Value.(*Line); x.DataUsedGB.String() != "20" {
				t.Errorf("data_used_gb = %s, want the int 20", x.DataUsedGB)
			}
		}},
		{"bill", read("get_details_by_id", "id", "B1002"), []string{"bills.B1002"}, func(t *testing.T, es []ledger.Entry) {
			if b := es[0].Value.(*Bill); b.Status != BillIssued || len(b.LineItems) != 4 || b.TotalDue != 150 {
				t.Errorf("bill = %+v", b)
			}
		}},
		{"customer details", read("get_details_by_id", "id", "C1004"), []string{"customers.C1004"}, nil},
		{"plan", read("get_details_by_id", "id", "P1002"), []string{"plans.P1002"}, func(t *testing.T, es []ledger.Entry) {
			if p := es[0].Value.(*Plan); p.DataRefuelingPricePerGB != 2 || p.DataLimitGB != 15 {
				t.Errorf("plan = %+v", p)
			}
		}},
		{"device", read("get_details_by_id", "id", "D1002"), []string{"devices.D1002"}, nil},
		{"bills", read("get_bills_for_customer", "customer_id", "C1001"), []string{"bills.B1003", "bills.B1002", "bills.B1001"}, nil},
		{"usage", read("get_data_usage", "customer_id", "C1001", "line_id", "L1002"), []string{"usage.L1002"}, func(t *testing.T, es []ledger.Entry) {
			u := es[0].Value.(*DataUsage)
			if u.DataUsedGB.String() != "8.7" || u.DataLimitGB != 15 || u.DataRefuelingGB != 0 || u.CycleEndDate != "2025-02-28" {
				t.Errorf("usage = %+v", u)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := respond(t, env, tt.call)
			if res.Error {
				t.Fatalf("%s failed: %s", tt.call.Name, res.Content)
			}
			es := d.Route(tt.call.Name, tt.call.Arguments, res.Content)
			var got []string
			for _, e := range es {
				got = append(got, e.Path)
			}
			if !slices.Equal(got, tt.paths) {
				t.Fatalf("paths = %v, want %v", got, tt.paths)
			}
			if tt.check != nil {
				tt.check(t, es)
			}
		})
	}
}

// TestRouteRoundTrip: every record routed from a tool return renders (with
// pyjson, as the ledger does) to the same JSON the tool returned.
func TestRouteRoundTrip(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	env := d.NewEnv()
	var calls []message.ToolCall
	for _, id := range []string{"C1001", "C1002", "L1001", "L1002", "L1009", "B1001", "B1005", "P1003", "D1002", "D1009"} {
		calls = append(calls, read("get_details_by_id", "id", id))
	}
	for _, tc := range calls {
		res := respond(t, env, tc)
		es := d.Route(tc.Name, tc.Arguments, res.Content)
		if len(es) != 1 {
			t.Fatalf("%s: %d entries", tc.Arguments, len(es))
		}
		l := ledger.New()
		l.Put(es[0].Path, es[0].Value)
		rendered := strings.TrimSuffix(strings.TrimPrefix(l.Render(), ledger.RenderHeader+es[0].Path+": "), "\n</ledger>")
		var want, got any
		if err := json.Unmarshal([]byte(res.Content), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(rendered), &got); err != nil {
			t.Fatalf("%s: rendered %q: %v", tc.Arguments, rendered, err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s:\n tool  %s\n ledger %s", tc.Arguments, res.Content, rendered)
		}
	}
}

func TestRouteIgnores(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	tests := []struct {
		name, tool, args, output string
	}{
		{"write tool", "enable_roaming", `{"customer_id":"C1001","line_id":"L1002"}`, "Roaming enabled successfully"},
		{"generic tool", "transfer_to_human_agents", `{"summary":"x"}`, "Transfer successful"},
		{"user tool", "check_network_status", `{}`, "Airplane Mode: OFF"},
		{"unknown tool", "get_everything", `{}`, `{"customer_id":"C1001"}`},
		{"not json", "get_customer_by_id", `{"customer_id":"C1001"}`, "Customer with ID C1001 not found"},
		{"wrong shape", "get_bills_for_customer", `{"customer_id":"C1001"}`, `{"bill_id":"B1"}`},
		{"no id", "get_customer_by_id", `{"customer_id":"C1001"}`, `{"full_name":"x"}`},
		{"unknown id prefix", "get_details_by_id", `{"id":"X1"}`, `{"line_id":"L1"}`},
		{"id of wrong type", "get_details_by_id", `{"id":5}`, `{"line_id":"L1"}`},
		{"usage with a bad number", "get_data_usage", `{"customer_id":"C1001","line_id":"L1"}`, `{"line_id":"L1","data_used_gb":"lots","data_limit_gb":"1.0","data_refueling_gb":"0.0","cycle_end_date":"2025-02-28"}`},
		{"line with a string usage", "get_details_by_id", `{"id":"L1"}`, `{"line_id":"L1","data_used_gb":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if es := d.Route(tt.tool, json.RawMessage(tt.args), tt.output); len(es) != 0 {
				t.Errorf("Route = %v, want nothing", es)
			}
		})
	}
	// A phone lookup with odd arguments still stores the customer.
	es := d.Route("get_customer_by_phone", json.RawMessage(`{"phone_number":5551232002}`), `{"customer_id":"C1001"}`)
	if len(es) != 1 || es[0].Path != "customers.C1001" {
		t.Errorf("phone lookup with a numeric phone = %v", es)
	}
}

func FuzzRoute(f *testing.F) {
	f.Add("get_details_by_id", `{"id":"L1"}`, `{"line_id":"L1","data_used_gb":1}`)
	f.Add("get_data_usage", `{}`, `{"line_id":"L1","data_used_gb":"1e400"}`)
	f.Add("get_customer_by_name", `{}`, `[null,{"customer_id":"C1"}]`)
	f.Add("get_bills_for_customer", `[]`, `[{"bill_id":"B1","line_items":[null]}]`)
	f.Add("get_customer_by_phone", `{"phone_number":"1"}`, `{"customer_id":"C1","payment_methods":null}`)
	d := &Domain{}
	f.Fuzz(func(t *testing.T, tool, args, output string) {
		l := ledger.New()
		l.Absorb(d, tool, json.RawMessage(args), output)
		_ = l.Render()
	})
}

// goldenLedger plays a conversation against a task's initialized
// environment and snapshots the rendered ledger after each step.
func goldenLedger(t *testing.T, d *Domain, task *tasks.Task, steps []message.ToolCall) string {
	t.Helper()
	env, err := evaluator.NewInitializedEnv(context.Background(), d, task)
	if err != nil {
		t.Fatal(err)
	}
	l := ledger.New()
	var b strings.Builder
	for _, tc := range steps {
		res := respond(t, env, tc)
		env.Sync()
		b.WriteString("### " + string(tc.Requestor) + " " + tc.Name + " " + string(tc.Arguments) + "\n")
		if res.Error {
			b.WriteString("(error: " + res.Content + ")\n")
			continue
		}
		if ti, ok := envs.ToolInfo(d, message.ByAssistant, tc.Name); ok && ti.Kind == "read" && tc.Requestor == message.ByAssistant {
			n := l.Absorb(d, tc.Name, tc.Arguments, res.Content)
			b.WriteString("absorbed " + strconv.Itoa(n) + " entries\n")
		} else {
			b.WriteString("not absorbed: " + res.Content + "\n")
		}
	}
	b.WriteString("\n" + l.Render() + "\n")
	return b.String()
}

func findTask(t *testing.T, d *Domain, split string, pred func(*tasks.Task) bool) *tasks.Task {
	t.Helper()
	ts, err := d.Tasks().Select(tasks.Selection{Split: split})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ts {
		if pred(&ts[i]) {
			return &ts[i]
		}
	}
	t.Fatalf("no such task in %s", split)
	return nil
}

func hasGold(names ...string) func(*tasks.Task) bool {
	return func(task *tasks.Task) bool {
		var got []string
		for _, a := range task.GoldActions() {
			if a.By() == string(message.ByAssistant) {
				got = append(got, a.Name)
			}
		}
		return slices.Equal(got, names)
	}
}

func TestLedgerGolden(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	user := func(name string, kv ...string) message.ToolCall {
		tc := read(name, kv...)
		tc.Requestor = message.ByUser
		return tc
	}
	write := func(name, args string) message.ToolCall {
		return message.ToolCall{Name: name, Arguments: json.RawMessage(args), Requestor: message.ByAssistant}
	}
	cases := []struct {
		name  string
		task  func(*tasks.Task) bool
		steps []message.ToolCall
	}{
		{"overdue_payment", hasGold("send_payment_request", "resume_line"), []message.ToolCall{
			read("get_customer_by_phone", "phone_number", "555-123-2002"),
			read("get_details_by_id", "id", "L1002"),
			read("get_bills_for_customer", "customer_id", "C1001"),
			read("get_details_by_id", "id", "B9999"), // fails: nothing absorbed
			write("send_payment_request", `{"customer_id": "C1001", "bill_id": "B1234321"}`),
			user("check_payment_request"),
			user("make_payment"),
			read("get_details_by_id", "id", "B1234321"),
			write("resume_line", `{"customer_id": "C1001", "line_id": "L1002"}`),
			read("get_details_by_id", "id", "L1002"),
		}},
		{"refuel_roaming", hasGold("refuel_data", "enable_roaming"), []message.ToolCall{
			read("get_customer_by_name", "full_name", "John Smith", "dob", "1985-06-15"),
			read("get_details_by_id", "id", "L1002"),
			read("get_details_by_id", "id", "P1002"),
			read("get_data_usage", "customer_id", "C1001", "line_id", "L1002"),
			user("check_network_status"),
			write("refuel_data", `{"customer_id": "C1001", "line_id": "L1002", "gb_amount": 2.0}`),
			read("get_data_usage", "customer_id", "C1001", "line_id", "L1002"),
			write("enable_roaming", `{"customer_id": "C1001", "line_id": "L1002"}`),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			task := findTask(t, d, "base", c.task)
			got := "task " + task.ID + "\n" + goldenLedger(t, d, task, c.steps)
			goldentest.Check(t, *update, "ledger_"+c.name+".golden", got)
		})
	}
}
