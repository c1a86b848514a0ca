package tautraittelecom

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// absorb runs calls on a fresh environment and returns the ledger of their
// successful reads (and the environment).
func absorb(t *testing.T, d *Domain, calls ...message.ToolCall) (*ledger.Ledger, *envWrap) {
	t.Helper()
	env := &envWrap{d: d, e: d.NewEnv()}
	l := ledger.New()
	for _, c := range calls {
		env.run(l, c)
	}
	return l, env
}

type envWrap struct {
	d *Domain
	e envs.Env
	n int
}

// run executes a call as the agent would; a successful read is absorbed.
func (w *envWrap) run(l *ledger.Ledger, c message.ToolCall) message.Message {
	w.n++
	c.ID = "c" + strconv.Itoa(w.n)
	res := envs.Respond(context.Background(), w.e, c)
	if ti, ok := w.d.Toolset().Lookup(c.Name); ok && ti.Kind == "read" && !res.Error {
		l.Absorb(w.d, c.Name, c.Arguments, res.Content)
	}
	return res
}

// write logs, runs and resolves a write.
func (w *envWrap) write(l *ledger.Ledger, c message.ToolCall) message.Message {
	dec, _ := w.d.DecodeArgs(c.Name, c.Arguments)
	i := l.LogWrite(c.Name, c.Arguments, dec)
	res := w.run(l, c)
	l.Resolve(i, !res.Error)
	return res
}

func call(name, args string) message.ToolCall {
	return message.ToolCall{Name: name, Arguments: json.RawMessage(args)}
}

func TestRoute(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	l, _ := absorb(t, d,
		call("find_customer_by_phone", `{"phone": "(555) 234-5678"}`),
		call("get_customer_details", `{"customer_id": "lisa_chen_3456"}`),
		call("get_billing_details", `{"customer_id": "lisa_chen_3456"}`),
		call("get_services", `{}`),
		call("get_device_details", `{"device_name": "iPhone 15"}`),
		call("get_support_ticket_details", `{"ticket_id": "TICKET002"}`),
		call("get_customer_details", `{"customer_id": "nobody"}`),
	)
	if loc := ledger.Lookup[Located](l, "located.lisa_chen_3456"); loc == nil || loc.Method != "phone" || loc.Phone != "(555) 234-5678" {
		t.Errorf("located %+v", loc)
	}
	cv := ledgerCustomer(l, "lisa_chen_3456")
	if cv == nil || !slices.Equal(cv.Services, []string{"mobile_basic", "internet_cable_100mb"}) || len(cv.Devices) != 2 || cv.Devices[1] != (DeviceView{"2", "Basic WiFi Router", "internet_cable_100mb"}) {
		t.Errorf("customer %+v", cv)
	}
	if b := ledger.Lookup[BillingView](l, "billing.lisa_chen_3456"); b == nil || b.CurrentBalance != 185.5 || b.MonthlyCharges["late_fee"] != 25 {
		t.Errorf("billing %+v", b)
	}
	if s := ledger.Lookup[ServiceView](l, "services.tv_basic"); s == nil || s.Category != "tv" || s.Price != 45 {
		t.Errorf("service %+v", s)
	}
	if dm := ledger.Lookup[DeviceModel](l, "devices.iPhone 15"); dm == nil || dm.Manufacturer != "Apple" {
		t.Errorf("device %+v", dm)
	}
	if tk := ledgerTicket(l, "TICKET002"); tk == nil || tk.CustomerID != "sarah_johnson_5678" || tk.Status != "open" {
		t.Errorf("ticket %+v", tk)
	}
	if l.Has("customers.nobody") {
		t.Error("a not-found answer made an entry")
	}
}

// TestPredicates judges calls against ledgers built by real calls.
func TestPredicates(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	gate := ledgeragent.NewGate(d, d)
	details := call("get_customer_details", `{"customer_id": "lisa_chen_3456"}`)
	cases := []struct {
		name    string
		reads   []message.ToolCall
		writes  []message.ToolCall // logged and run before the judged call
		judged  message.ToolCall
		want    ledger.Decision
		failing string // the deciding predicate's rule
	}{
		{"unknown customer", nil, nil, call(toolCreateTicket, `{"customer_id": "lisa_chen_3456", "category": "billing"}`), ledger.Revise, "customer_known"},
		{"located customer", []message.ToolCall{call("find_customer_by_email", `{"email": "lisa.chen@email.com"}`)}, nil,
			call(toolCreateTicket, `{"customer_id": "lisa_chen_3456", "category": "billing"}`), ledger.Allow, ""},
		{"listing is not judged", nil, nil, call(toolManageService, `{"customer_id": "lisa_chen_3456", "action": "list"}`), ledger.Allow, ""},
		{"wrong type", []message.ToolCall{details}, nil, call(toolAddDevice, `{"customer_id": 7, "device_name": "iPhone 15"}`), ledger.Revise, "arguments"},
		{"device on record", []message.ToolCall{details}, nil,
			call(toolManageService, `{"customer_id": "lisa_chen_3456", "action": "add", "service_id": "tv_basic", "devices_ids": ["2"]}`), ledger.Revise, "switch_removes_old"},
		{"device not on record", []message.ToolCall{details}, nil,
			call(toolManageService, `{"customer_id": "lisa_chen_3456", "action": "add", "service_id": "tv_basic", "devices_ids": ["3"]}`), ledger.Revise, "devices_on_record"},
		{"device added, read again", []message.ToolCall{details},
			[]message.ToolCall{call(toolAddDevice, `{"customer_id": "lisa_chen_3456", "device_name": "iPhone 15"}`), details},
			call(toolManageService, `{"customer_id": "lisa_chen_3456", "action": "add", "service_id": "mobile_unlimited", "devices_ids": ["3"]}`), ledger.Allow, ""},
		{"details needed for devices", []message.ToolCall{call("find_customer_by_email", `{"email": "lisa.chen@email.com"}`)}, nil,
			call(toolManageService, `{"customer_id": "lisa_chen_3456", "action": "add", "service_id": "tv_basic", "devices_ids": ["1"]}`), ledger.Revise, "devices_on_record"},
		{"switch after removal", []message.ToolCall{details},
			[]message.ToolCall{call(toolManageService, `{"customer_id": "lisa_chen_3456", "action": "remove", "service_id": "internet_cable_100mb"}`)},
			call(toolManageService, `{"customer_id": "lisa_chen_3456", "action": "add", "service_id": "internet_fiber_500mb", "devices_ids": ["2"]}`), ledger.Allow, ""},
		{"remove a service held", []message.ToolCall{details}, nil,
			call(toolManageService, `{"customer_id": "lisa_chen_3456", "action": "remove", "service_id": "mobile_basic"}`), ledger.Allow, ""},
		{"remove a service not held", []message.ToolCall{details}, nil,
			call(toolManageService, `{"customer_id": "lisa_chen_3456", "action": "remove", "service_id": "tv_basic"}`), ledger.Revise, "service_on_record"},
		{"second ticket for the issue", []message.ToolCall{details},
			[]message.ToolCall{call(toolCreateTicket, `{"customer_id": "lisa_chen_3456", "category": "billing", "priority": "low"}`)},
			call(toolCreateTicket, `{"customer_id": "lisa_chen_3456", "category": "billing", "priority": "urgent"}`), ledger.Block, "one_ticket_per_issue"},
		{"another issue", []message.ToolCall{details},
			[]message.ToolCall{call(toolCreateTicket, `{"customer_id": "lisa_chen_3456", "category": "billing"}`)},
			call(toolCreateTicket, `{"customer_id": "lisa_chen_3456", "category": "internet"}`), ledger.Allow, ""},
		{"repeated payment", []message.ToolCall{details},
			[]message.ToolCall{call(toolRecordPayment, `{"customer_id": "lisa_chen_3456", "amount": 10, "method": "credit_card", "date": "2025-09-18"}`)},
			call(toolRecordPayment, `{"date": "2025-09-18", "customer_id": "lisa_chen_3456", "amount": 10, "method": "credit_card"}`), ledger.Block, "not_repeated"},
		{"priority not a level", []message.ToolCall{details}, nil,
			call(toolCreateTicket, `{"customer_id": "lisa_chen_3456", "category": "billing", "priority": "critical"}`), ledger.Revise, "ticket_levels"},
		{"status not open or closed", []message.ToolCall{call("get_support_ticket_details", `{"ticket_id": "TICKET002"}`), call("find_customer_by_email", `{"email": "sarah.johnson@email.com"}`)}, nil,
			call(toolModifyTicket, `{"ticket_id": "TICKET002", "status": "resolved", "priority": "low"}`), ledger.Revise, "ticket_levels"},
		{"ticket not read", []message.ToolCall{details}, nil,
			call(toolModifyTicket, `{"ticket_id": "TICKET002", "status": "closed", "priority": "low"}`), ledger.Revise, "ticket_known"},
		{"another customer's ticket", []message.ToolCall{details, call("get_support_ticket_details", `{"ticket_id": "TICKET002"}`)}, nil,
			call(toolModifyTicket, `{"ticket_id": "TICKET002", "status": "closed", "priority": "low"}`), ledger.Revise, "ticket_known"},
		{"own ticket", []message.ToolCall{call("get_support_ticket_details", `{"ticket_id": "TICKET002"}`), call("find_customer_by_email", `{"email": "sarah.johnson@email.com"}`)}, nil,
			call(toolModifyTicket, `{"ticket_id": "TICKET002", "status": "closed", "priority": "low"}`), ledger.Allow, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, env := absorb(t, d, tc.reads...)
			for _, w := range tc.writes {
				if ti, _ := d.Toolset().Lookup(w.Name); ti.Kind == "write" {
					env.write(l, w)
				} else {
					env.run(l, w)
				}
			}
			v := gate.Judge(l, tc.judged.Name, "", tc.judged.Arguments)
			if v.Decision != tc.want || (tc.failing != "" && v.Predicate != "telecom."+tc.judged.Name+"."+tc.failing) {
				t.Errorf("verdict %s by %s (%s); want %s by %s", v.Decision, v.Predicate, v.Reason, tc.want, tc.failing)
			}
			if v.Decision != ledger.Allow && !strings.Contains(v.Reason, "telecom policy") && !strings.Contains(v.Reason, "already sent") && !strings.Contains(v.Reason, "could not be checked") {
				t.Errorf("reason %q does not name the policy", v.Reason)
			}
		})
	}
}

var allKinds = []string{MutForeignCustomer, MutRepeatWrite, MutServiceNotOnRecord, MutSwitchWithoutRemove, MutUnlistedDevice}

// intended names the rules meant to catch each kind.
var intended = map[string][]string{
	MutForeignCustomer:     {"customer_known"},
	MutUnlistedDevice:      {"devices_on_record"},
	MutSwitchWithoutRemove: {"switch_removes_old"},
	MutServiceNotOnRecord:  {"service_on_record"},
	MutRepeatWrite:         {"not_repeated", "one_ticket_per_issue"},
}

// TestGateAuditMutations: the gate catches at least 95% of every mutation
// kind, each by the rule written for it; and every mutation really breaks
// the policy (checked against the state, not the gate): a customer the
// conversation never looked up, a device or service the customer's details
// do not show (the tool refuses them too), a device still on a service not
// removed, or an earlier write sent again.
func TestGateAuditMutations(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	ts, err := d.Tasks().Select(tasks.Selection{Split: "test"})
	if err != nil {
		t.Fatal(err)
	}
	reps, err := ledgeragent.AuditMutations(context.Background(), d, ts)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range reps {
		kinds = append(kinds, r.Kind)
		if r.Total == 0 || float64(r.Caught) < 0.95*float64(r.Total) {
			t.Errorf("%s: caught %d of %d (missed in tasks %v)", r.Kind, r.Caught, r.Total, r.Missed)
		}
		t.Logf("%-22s %3d/%-3d", r.Kind, r.Caught, r.Total)
	}
	if !slices.Equal(kinds, allKinds) {
		t.Errorf("kinds %v; want %v", kinds, allKinds)
	}
	gate := ledgeragent.NewGate(d, d)
	for i := range ts {
		task := &ts[i]
		l, env := absorb(t, d)
		for _, a := range task.GoldActions() {
			tc := call(a.Name, string(a.Arguments))
			if !gate.Guards(a.Name) {
				env.run(l, tc)
				continue
			}
			for _, r := range d.EvidenceReads(a.Name, a.Arguments) {
				env.run(l, r)
			}
			for _, m := range d.Mutations(a.Name, a.Arguments, l) {
				v := gate.Judge(l, m.Tool, "", m.Args)
				if !slices.ContainsFunc(intended[m.Kind], func(rule string) bool { return slices.Contains(v.Failed, "telecom."+m.Tool+"."+rule) }) {
					t.Errorf("task %s %s %s %s: not caught by %v (verdict %s %v)", task.ID, m.Kind, m.Tool, m.Args, intended[m.Kind], v.Decision, v.Failed)
				}
				a, _ := d.decodeWrite(m.Tool, m.Args)
				cv := ledgerCustomer(l, a.CustomerID)
				switch m.Kind {
				case MutForeignCustomer:
					if known(l, a.CustomerID) {
						t.Errorf("task %s: %s: the customer was looked up", task.ID, m.Args)
					}
				case MutUnlistedDevice:
					for _, id := range a.DeviceIDs {
						if slices.ContainsFunc(cv.Devices, func(dv DeviceView) bool { return dv.DeviceID == id }) {
							t.Errorf("task %s: %s: device %s is on record", task.ID, m.Args, id)
						}
					}
				case MutServiceNotOnRecord:
					if slices.Contains(cv.Services, a.ServiceID) {
						t.Errorf("task %s: %s: the customer has %s", task.ID, m.Args, a.ServiceID)
					}
					// The tool refuses it as well.
					probe := &envWrap{d: d, e: d.NewEnv()}
					if out := probe.run(ledger.New(), call(m.Tool, string(m.Args))).Content; !strings.HasPrefix(out, "Error:") {
						t.Errorf("task %s: %s %s: the tool accepts it (%s)", task.ID, m.Tool, m.Args, out)
					}
				case MutSwitchWithoutRemove:
					ok := false
					for _, dv := range cv.Devices {
						ok = ok || (slices.Contains(a.DeviceIDs, dv.DeviceID) && dv.Service != "" && dv.Service != a.ServiceID && !removed(l, cv.CustomerID, dv.Service))
					}
					if !ok {
						t.Errorf("task %s: %s: no device on another active service", task.ID, m.Args)
					}
				case MutRepeatWrite:
					if !slices.ContainsFunc(l.Writes(), func(w ledger.WriteRecord) bool {
						return w.Tool == m.Tool && string(w.Args) == string(m.Args) && w.Succeeded
					}) {
						t.Errorf("task %s: %s %s repeats no earlier write", task.ID, m.Tool, m.Args)
					}
				}
			}
			env.write(l, tc)
		}
	}
}
