package telecom

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// A setup prepares the environment (as a task's initialization would)
// before the agent's reads.
type setup func(tb testing.TB, env envs.Env)

func runFn(tb testing.TB, env envs.Env, side message.Requestor, name, args string) {
	tb.Helper()
	if _, err := env.RunFunction(context.Background(), side, name, json.RawMessage(args)); err != nil {
		tb.Fatalf("%s %s: %v", name, args, err)
	}
}

func chain(ss ...setup) setup {
	return func(tb testing.TB, env envs.Env) {
		for _, s := range ss {
			s(tb, env)
		}
	}
}

var (
	scBase       setup = func(testing.TB, envs.Env) {}
	scRoamingOff setup = func(tb testing.TB, env envs.Env) {
		runFn(tb, env, message.ByAssistant, "disable_roaming", `{"customer_id":"C1001","line_id":"L1002"}`)
		runFn(tb, env, message.ByAssistant, "set_data_usage", `{"customer_id":"C1001","line_id":"L1002","data_used_gb":15.1}`)
	}
	scOverdue setup = func(tb testing.TB, env envs.Env) {
		runFn(tb, env, message.ByAssistant, "suspend_line_for_overdue_bill", `{"customer_id":"C1001","line_id":"L1002","new_bill_id":"B1234321","contract_ended":false}`)
	}
	scContract setup = func(tb testing.TB, env envs.Env) {
		runFn(tb, env, message.ByAssistant, "suspend_line_for_overdue_bill", `{"customer_id":"C1001","line_id":"L1002","new_bill_id":"B1234321","contract_ended":true}`)
	}
	scAwaiting = chain(scOverdue, func(tb testing.TB, env envs.Env) {
		runFn(tb, env, message.ByAssistant, "send_payment_request", `{"customer_id":"C1001","bill_id":"B1234321"}`)
	})
	scPaid = chain(scAwaiting, func(tb testing.TB, env envs.Env) {
		runFn(tb, env, message.ByUser, "make_payment", `{}`)
	})
	scRefueled = func(gb string) setup {
		return chain(scRoamingOff, func(tb testing.TB, env envs.Env) {
			runFn(tb, env, message.ByAssistant, "refuel_data", `{"customer_id":"C1001","line_id":"L1002","gb_amount":`+gb+`}`)
		})
	}
)

// careful are the reads of a careful agent on John Smith's account.
func careful() []message.ToolCall {
	return []message.ToolCall{
		read("get_customer_by_phone", "phone_number", "555-123-2002"),
		read("get_details_by_id", "id", "L1001"),
		read("get_details_by_id", "id", "L1002"),
		read("get_details_by_id", "id", "L1003"),
		read("get_details_by_id", "id", "P1001"),
		read("get_details_by_id", "id", "P1002"),
		read("get_bills_for_customer", "customer_id", "C1001"),
		read("get_data_usage", "customer_id", "C1001", "line_id", "L1002"),
	}
}

// fixture builds the agent's ledger after the setup and the reads; edit
// may then change it (stale or unusual records) and log earlier writes.
type fixture struct {
	sc    setup
	reads []message.ToolCall
	edit  func(l *ledger.Ledger)
}

func (f fixture) build(tb testing.TB, d *Domain) *ledger.Ledger {
	tb.Helper()
	env := d.NewEnv()
	runFn(tb, env, message.ByUser, "set_user_info", `{"name":"John Smith","phone_number":"555-123-2002"}`)
	f.sc(tb, env)
	l := ledger.New()
	absorbAll(tb, d, env, l, f.reads...)
	if f.edit != nil {
		f.edit(l)
	}
	return l
}

// logged records an earlier allowed write and its outcome.
func logged(tool, args string, ok bool) func(*ledger.Ledger) {
	return func(l *ledger.Ledger) {
		l.Resolve(l.LogWrite(tool, json.RawMessage(args), decodedWrite(tool, args)), ok)
	}
}

// decodedWrite is a write's arguments as the gate decodes them (nil when
// they do not decode).
func decodedWrite(tool, args string) any {
	v, err := agentTools().Decode(tool, json.RawMessage(args))
	if err != nil {
		return nil
	}
	return v
}

// putLine changes a line record in the ledger.
func putLine(id string, change func(*Line)) func(*ledger.Ledger) {
	return func(l *ledger.Ledger) {
		x := *lineIn(l, id)
		change(&x)
		l.Put(pathLines+id, &x)
	}
}

func putBill(id, status string) func(*ledger.Ledger) {
	return func(l *ledger.Ledger) {
		b := *billIn(l, id)
		b.Status = status
		l.Put(pathBills+id, &b)
	}
}

func edits(es ...func(*ledger.Ledger)) func(*ledger.Ledger) {
	return func(l *ledger.Ledger) {
		for _, e := range es {
			e(l)
		}
	}
}

func TestGatePredicates(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	gate := ledger.NewGate(d.GatePredicates(), writeToolNames(d), d.DecodeArgs)
	byID := read("get_customer_by_id", "customer_id", "C1001")
	customerOnly := []message.ToolCall{careful()[0]}
	noBills := slices.DeleteFunc(careful(), func(tc message.ToolCall) bool { return tc.Name == "get_bills_for_customer" })
	noPlan := slices.DeleteFunc(careful(), func(tc message.ToolCall) bool { return strings.Contains(string(tc.Arguments), `"P1002"`) })
	onlyL1001 := []message.ToolCall{careful()[0], careful()[1], careful()[4]}
	full := fixture{sc: scBase, reads: careful()}
	roamOff := fixture{sc: scRoamingOff, reads: careful()}
	overdue := fixture{sc: scOverdue, reads: careful()}
	paid := fixture{sc: scPaid, reads: careful()}
	awaiting := fixture{sc: scAwaiting, reads: careful()}
	contract := fixture{sc: scContract, reads: careful()}
	const (
		c1l1 = `{"customer_id": "C1001", "line_id": "L1001"}`
		c1l2 = `{"customer_id": "C1001", "line_id": "L1002"}`
		c1l3 = `{"customer_id": "C1001", "line_id": "L1003"}`
	)
	refuel := func(gb string) string { return `{"customer_id": "C1001", "line_id": "L1002", "gb_amount": ` + gb + `}` }
	pay := func(bill string) string { return `{"customer_id": "C1001", "bill_id": "` + bill + `"}` }
	suspend := func(line string) string {
		return `{"customer_id": "C1001", "line_id": "` + line + `", "reason": "overdue bill"}`
	}
	tests := []struct {
		name  string
		fx    fixture
		tool  string
		args  string
		want  ledger.Decision
		fails []string // rule names (telecom.<tool>.<rule>) that do not allow
	}{
		// customer_identified
		{"identified", roamOff, "enable_roaming", c1l2, ledger.Allow, nil},
		{"identified by id", fixture{sc: scRoamingOff, reads: []message.ToolCall{byID, careful()[2]}}, "enable_roaming", c1l2, ledger.Allow, nil},
		{"not identified", fixture{sc: scRoamingOff}, "enable_roaming", c1l2, ledger.Revise, []string{"customer_identified", "not_enabled"}},
		{"another customer", roamOff, "disable_roaming", `{"customer_id": "C1002", "line_id": "L1004"}`, ledger.Revise, []string{"customer_identified", "enabled"}},
		{"numeric customer id", roamOff, "refuel_data", `{"customer_id": 1001, "line_id": "L1002", "gb_amount": 1}`, ledger.Revise, []string{"arguments"}},
		{"arguments not an object", roamOff, "refuel_data", `["C1001", "L1002", 2]`, ledger.Revise, []string{"arguments"}},
		{"list customer id", roamOff, "enable_roaming", `{"customer_id": ["C1001"], "line_id": "L1002"}`, ledger.Revise, []string{"arguments"}},
		{"arguments null", roamOff, "suspend_line", `null`, ledger.Revise, []string{"arguments"}},
		{"missing customer id", roamOff, "resume_line", `{"line_id": "L1002"}`, ledger.Revise, []string{"arguments"}},

		// line_owned
		{"foreign line", roamOff, "enable_roaming", `{"customer_id": "C1001", "line_id": "L1004"}`, ledger.Revise, []string{"line_owned"}},
		{"numeric line id", roamOff, "enable_roaming", `{"customer_id": "C1001", "line_id": 1002}`, ledger.Revise, []string{"arguments"}},
		{"missing line id", roamOff, "resume_line", `{"customer_id": "C1001"}`, ledger.Revise, []string{"arguments"}},

		// user_line
		{"user's line", roamOff, "refuel_data", refuel("2.0"), ledger.Allow, nil},
		{"another line than the number given", roamOff, "refuel_data", `{"customer_id": "C1001", "line_id": "L1001", "gb_amount": 1.0}`, ledger.Revise, []string{"user_line"}},
		{"another line, others unread", fixture{sc: scRoamingOff, reads: onlyL1001}, "enable_roaming", c1l1, ledger.Revise, []string{"user_line"}},
		{"another line the user also gave", fixture{sc: scRoamingOff, reads: append(careful(), read("get_customer_by_phone", "phone_number", "555-123-2001"))},
			"enable_roaming", c1l1, ledger.Allow, nil},
		{"no phone lookup", fixture{sc: scRoamingOff, reads: append([]message.ToolCall{byID}, careful()[1:]...)}, "enable_roaming", c1l1, ledger.Allow, nil},

		// suspend_line
		{"suspend with an overdue bill", overdue, "suspend_line", suspend("L1001"), ledger.Allow, nil},
		{"suspend with the contract ended", fixture{sc: scBase, reads: careful(), edit: putLine("L1001", func(x *Line) { end := Date("2025-01-31"); x.ContractEndDate = &end })},
			"suspend_line", suspend("L1001"), ledger.Allow, nil},
		{"suspend a suspended line", full, "suspend_line", suspend("L1003"), ledger.Block, []string{"line_active", "basis"}},
		{"suspend an unread line", fixture{sc: scOverdue, reads: customerOnly}, "suspend_line", suspend("L1001"), ledger.Revise, []string{"line_active"}},
		{"suspend without basis", full, "suspend_line", suspend("L1001"), ledger.Block, []string{"basis"}},
		{"suspend, bills unread", fixture{sc: scBase, reads: noBills}, "suspend_line", suspend("L1001"), ledger.Revise, []string{"basis"}},

		// resume_line
		{"resume after payment", paid, "resume_line", c1l2, ledger.Allow, nil},
		{"resume a line suspended without a bill", full, "resume_line", c1l3, ledger.Allow, nil},
		{"resume an active line", paid, "resume_line", c1l1, ledger.Block, []string{"line_suspended"}},
		{"resume a pending line", fixture{sc: scPaid, reads: careful(), edit: putLine("L1002", func(x *Line) { x.Status = LinePendingActivation })},
			"resume_line", c1l2, ledger.Block, []string{"line_suspended"}},
		{"resume an unread line", fixture{sc: scPaid, reads: []message.ToolCall{careful()[0], careful()[6]}}, "resume_line", c1l2, ledger.Revise, []string{"line_suspended"}},
		{"resume with a bill overdue", overdue, "resume_line", c1l2, ledger.Revise, []string{"overdue_paid"}},
		{"resume with a bill awaiting payment", awaiting, "resume_line", c1l2, ledger.Revise, []string{"overdue_paid"}},
		{"resume, bills unread", fixture{sc: scPaid, reads: noBills}, "resume_line", c1l2, ledger.Revise, []string{"overdue_paid"}},
		{"resume, paid bill read again", fixture{sc: scPaid, reads: append(noBills, read("get_details_by_id", "id", "B1001"), read("get_details_by_id", "id", "B1002"), read("get_details_by_id", "id", "B1003"), read("get_details_by_id", "id", "B1234321"))},
			"resume_line", c1l2, ledger.Allow, nil},
		{"resume, contract ended", fixture{sc: chain(scContract, func(tb testing.TB, env envs.Env) {
			runFn(tb, env, message.ByAssistant, "send_payment_request", pay("B1234321"))
			runFn(tb, env, message.ByUser, "make_payment", `{}`)
		}), reads: careful()}, "resume_line", c1l2, ledger.Block, []string{"contract_not_ended"}},
		{"resume, contract ended and unpaid", contract, "resume_line", c1l2, ledger.Block, []string{"overdue_paid", "contract_not_ended"}},

		// send_payment_request
		{"request for the overdue bill", overdue, "send_payment_request", pay("B1234321"), ledger.Allow, nil},
		{"request, bill read by id only", fixture{sc: scOverdue, reads: []message.ToolCall{careful()[0], read("get_details_by_id", "id", "B1234321")}}, "send_payment_request", pay("B1234321"), ledger.Allow, nil},
		{"request for another customer's bill", overdue, "send_payment_request", pay("B1005"), ledger.Revise, []string{"bill_owned"}},
		{"numeric bill id", overdue, "send_payment_request", `{"customer_id": "C1001", "bill_id": 1234321}`, ledger.Revise, []string{"arguments"}},
		{"request for an issued bill", overdue, "send_payment_request", pay("B1002"), ledger.Revise, []string{"bill_overdue"}},
		{"request, no overdue bill", full, "send_payment_request", pay("B1002"), ledger.Block, []string{"bill_overdue"}},
		{"request, bill unread", fixture{sc: scOverdue, reads: customerOnly}, "send_payment_request", pay("B1234321"), ledger.Revise, []string{"bill_overdue"}},
		{"request for a bill awaiting payment", awaiting, "send_payment_request", pay("B1234321"), ledger.Block, []string{"bill_overdue"}},
		{"second bill while one awaits", fixture{sc: scAwaiting, reads: careful(), edit: putBill("B1002", BillOverdue)}, "send_payment_request", pay("B1002"), ledger.Block, []string{"single_awaiting"}},
		{"request sent twice", fixture{sc: scAwaiting, reads: noBills, edit: edits(logged("send_payment_request", pay("B1234321"), true))},
			"send_payment_request", pay("B1234321"), ledger.Block, []string{"bill_overdue", "once"}},
		{"request sent twice, stale bill", fixture{sc: scOverdue, reads: careful(), edit: logged("send_payment_request", pay("B1234321"), true)},
			"send_payment_request", pay("B1234321"), ledger.Block, []string{"once"}},
		{"second request before the first is paid", fixture{sc: scOverdue, reads: careful(), edit: edits(putBill("B1002", BillOverdue), logged("send_payment_request", pay("B1234321"), true))},
			"send_payment_request", pay("B1002"), ledger.Revise, []string{"once"}},
		{"second request after the first is paid", fixture{sc: scPaid, reads: careful(), edit: edits(putBill("B1002", BillOverdue), logged("send_payment_request", pay("B1234321"), true))},
			"send_payment_request", pay("B1002"), ledger.Allow, nil},
		{"earlier request failed", fixture{sc: scOverdue, reads: careful(), edit: logged("send_payment_request", pay("B1234321"), false)},
			"send_payment_request", pay("B1234321"), ledger.Allow, nil},

		// enable_roaming / disable_roaming
		// a harmless no-op is revised, not blocked
		{"enable on an enabled line", full, "enable_roaming", c1l2, ledger.Revise, []string{"not_enabled"}},
		{"enable twice", fixture{sc: scRoamingOff, reads: careful(), edit: logged("enable_roaming", c1l2, true)}, "enable_roaming", c1l2, ledger.Block, []string{"once"}},
		{"enable, earlier call pending", fixture{sc: scRoamingOff, reads: careful(), edit: func(l *ledger.Ledger) {
			l.LogWrite("enable_roaming", json.RawMessage(c1l2), decodedWrite("enable_roaming", c1l2))
		}}, "enable_roaming", c1l2, ledger.Block, []string{"once"}},
		{"enable an unread line", fixture{sc: scRoamingOff, reads: customerOnly}, "enable_roaming", c1l2, ledger.Revise, []string{"not_enabled"}},
		{"disable an enabled line", full, "disable_roaming", c1l2, ledger.Allow, nil},
		{"disable a disabled line", roamOff, "disable_roaming", c1l2, ledger.Revise, []string{"enabled"}},
		{"disable an unread line", fixture{sc: scBase, reads: customerOnly}, "disable_roaming", c1l2, ledger.Revise, []string{"enabled"}},

		// refuel_data
		{"refuel an int amount", roamOff, "refuel_data", refuel("2"), ledger.Allow, nil},
		{"refuel a fraction", roamOff, "refuel_data", refuel("0.5"), ledger.Allow, nil},
		{"refuel over the cap", roamOff, "refuel_data", refuel("2.5"), ledger.Revise, []string{"amount"}},
		{"refuel zero", roamOff, "refuel_data", refuel("0"), ledger.Revise, []string{"amount"}},
		{"refuel negative", roamOff, "refuel_data", refuel("-1.0"), ledger.Revise, []string{"amount"}},
		{"refuel a string", roamOff, "refuel_data", refuel(`"2"`), ledger.Revise, []string{"amount"}},
		{"refuel a bool", roamOff, "refuel_data", refuel("true"), ledger.Revise, []string{"amount"}},
		{"refuel null", roamOff, "refuel_data", refuel("null"), ledger.Revise, []string{"amount"}},
		{"refuel without amount", roamOff, "refuel_data", c1l2, ledger.Revise, []string{"arguments"}},
		{"refuel huge", roamOff, "refuel_data", refuel("1e400"), ledger.Revise, []string{"amount"}},
		{"refuel within what is left", fixture{sc: scRefueled("1.5"), reads: careful()}, "refuel_data", refuel("0.5"), ledger.Allow, nil},
		{"refuel past what is left", fixture{sc: scRefueled("1.5"), reads: careful()}, "refuel_data", refuel("1.0"), ledger.Revise, []string{"amount"}},
		{"refuel past what is left, stale line", fixture{sc: scRoamingOff, reads: careful()[:7], edit: func(l *ledger.Ledger) {
			l.Put(pathUsage+"L1002", &DataUsage{LineID: "L1002", DataRefuelingGB: 1.5})
		}}, "refuel_data", refuel("1.0"), ledger.Revise, []string{"amount"}},
		{"refuel a full line", fixture{sc: scRefueled("2"), reads: careful()}, "refuel_data", refuel("0.5"), ledger.Block, []string{"amount"}},
		{"refuel, plan unread", fixture{sc: scRoamingOff, reads: noPlan}, "refuel_data", refuel("2.0"), ledger.Revise, []string{"price_known"}},
		{"refuel, line unread", fixture{sc: scRoamingOff, reads: customerOnly}, "refuel_data", refuel("2.0"), ledger.Revise, []string{"price_known"}},
		{"refuel twice", fixture{sc: scRoamingOff, reads: careful(), edit: logged("refuel_data", refuel("1.0"), true)}, "refuel_data", refuel("1.0"), ledger.Block, []string{"once"}},
		{"refuel after a failed refuel", fixture{sc: scRoamingOff, reads: careful(), edit: logged("refuel_data", refuel("1.0"), false)}, "refuel_data", refuel("1.0"), ledger.Allow, nil},
		{"refuel another line after one", fixture{sc: scRoamingOff, reads: append(careful(), read("get_customer_by_phone", "phone_number", "555-123-2001")), edit: logged("refuel_data", refuel("1.0"), true)},
			"refuel_data", `{"customer_id": "C1001", "line_id": "L1001", "gb_amount": 1.0}`, ledger.Allow, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.fx.build(t, d)
			v := gate.Judge(l, tt.tool, "c1", json.RawMessage(tt.args))
			var want []string
			for _, r := range tt.fails {
				want = append(want, "telecom."+tt.tool+"."+r)
			}
			if v.Decision != tt.want || !slices.Equal(v.Failed, want) {
				t.Fatalf("verdict %s %v, want %s %v\nreason: %s", v.Decision, v.Failed, tt.want, want, v.Reason)
			}
			if tt.want != ledger.Allow && (v.Reason == "" || v.Clause == "") {
				t.Errorf("verdict without reason or clause: %+v", v)
			}
			t.Logf("%s: %s", v.Decision, v.Reason)
		})
	}
}

// TestGateMessages pins a few messages in the paper's style.
func TestGateMessages(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	gate := ledger.NewGate(d.GatePredicates(), writeToolNames(d), d.DecodeArgs)
	contract := fixture{sc: scContract, reads: careful()}.build(t, d)
	v := gate.Judge(contract, "resume_line", "", json.RawMessage(`{"customer_id": "C1001", "line_id": "L1002"}`))
	if v.Predicate != "telecom.resume_line.contract_not_ended" || v.Clause != "Line Suspension" ||
		!strings.Contains(v.Reason, "Per telecom policy, the suspension of line L1002 cannot be lifted: its contract end date (2025-01-31) is in the past") {
		t.Errorf("contract verdict = %+v", v)
	}
	roam := fixture{sc: scRoamingOff, reads: careful()}.build(t, d)
	v = gate.Judge(roam, "refuel_data", "", json.RawMessage(`{"customer_id": "C1001", "line_id": "L1002", "gb_amount": 5}`))
	if want := "Per telecom policy, the maximum amount of data that can be refueled is 2 GB; you asked for 5 GB."; v.Reason != want {
		t.Errorf("refuel reason = %q, want %q", v.Reason, want)
	}
	v = gate.Judge(roam, "enable_roaming", "", json.RawMessage(`{"customer_id": "C1001", "line_id": "L1004"}`))
	if !strings.Contains(v.Reason, "line L1004 is not a line of customer C1001 (John Smith); the customer's lines are ['L1001', 'L1002', 'L1003']") {
		t.Errorf("ownership reason = %q", v.Reason)
	}
	// The user pays on their side: after a payment request sent since the
	// bill was read Overdue, the gate asks for a new read, not a new request.
	requested := fixture{sc: scOverdue, reads: careful(), edit: logged("send_payment_request", `{"customer_id": "C1001", "bill_id": "B1234321"}`, true)}.build(t, d)
	v = gate.Judge(requested, "resume_line", "", json.RawMessage(`{"customer_id": "C1001", "line_id": "L1002"}`))
	if v.Decision != ledger.Revise || v.Predicate != "telecom.resume_line.overdue_paid" ||
		!strings.Contains(v.Reason, "a payment request for bill B1234321 was sent after it was last read (Overdue). Once the user has paid, read the bill again") {
		t.Errorf("resume after a payment request, bill not read again: %+v", v)
	}
}

func writeToolNames(d *Domain) []string {
	var out []string
	for _, ti := range d.AgentTools() {
		if ti.Mutates() {
			out = append(out, ti.Name)
		}
	}
	return out
}

// TestPredicateCatalogue checks the predicates' names, tools and clauses,
// for both policy variants.
func TestPredicateCatalogue(t *testing.T) {
	t.Parallel()
	t.Run("manual", func(t *testing.T) { checkCatalogue(t, domainForTest(t)) })
	t.Run("workflow", func(t *testing.T) {
		if testing.Short() {
			t.Skip("loads the task file again")
		}
		d, err := LoadWorkflow(datatest.Root(t))
		if err != nil {
			t.Fatal(err)
		}
		checkCatalogue(t, d)
	})
}

func checkCatalogue(t *testing.T, d *Domain) {
	writes := writeToolNames(d)
	if want := []string{"suspend_line", "resume_line", "send_payment_request", "enable_roaming", "disable_roaming", "refuel_data"}; !slices.Equal(writes, want) {
		t.Fatalf("write tools = %v, want %v", writes, want)
	}
	headings := map[string]bool{}
	for _, line := range strings.Split(d.Policy(), "\n") {
		if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") {
			headings[strings.TrimSpace(h)] = true
		}
	}
	idRE := regexp.MustCompile(`^telecom\.([a-z_]+)\.([a-z_]+)$`)
	seen := map[string]bool{}
	guarded := map[string]int{}
	rules := map[string]bool{}
	for _, p := range d.GatePredicates() {
		m := idRE.FindStringSubmatch(p.ID)
		if m == nil || m[1] != p.Tool {
			t.Errorf("%s: id not telecom.%s.<rule>", p.ID, p.Tool)
		}
		if seen[p.ID] {
			t.Errorf("%s: duplicate id", p.ID)
		}
		seen[p.ID] = true
		if !slices.Contains(writes, p.Tool) {
			t.Errorf("%s guards %s, not a write tool", p.ID, p.Tool)
		}
		if !headings[p.Clause] {
			t.Errorf("%s: clause %q is not a heading of the policy", p.ID, p.Clause)
		}
		if p.Check == nil {
			t.Errorf("%s: no check", p.ID)
		}
		guarded[p.Tool]++
		rules[p.ID] = true
	}
	for _, w := range writes {
		if guarded[w] < 3 {
			t.Errorf("%s has %d predicates", w, guarded[w])
		}
	}
	if len(rules) < 6 {
		t.Errorf("%d predicates; the paper has 6 for telecom", len(rules))
	}
}

// FuzzPredicates: no predicate panics on any arguments, whatever the ledger
// holds (the gate recovers, but predicates must not rely on it).
func FuzzPredicates(f *testing.F) {
	for _, s := range []string{`{"customer_id":"C1001","line_id":"L1002","gb_amount":2}`, `{"customer_id":"C1001","bill_id":"B1234321"}`,
		`{"customer_id":null,"line_id":[],"gb_amount":{}}`, `[]`, `"x"`, ``, `{"gb_amount":1e999}`, `{"customer_id":"C1001","line_id":"L1003","reason":5}`} {
		f.Add(s)
	}
	d := domainForTest(f)
	preds := d.GatePredicates()
	leds := []*ledger.Ledger{
		ledger.New(),
		fixture{sc: scOverdue, reads: careful(), edit: logged("refuel_data", `{"customer_id":"C1001","line_id":"L1002","gb_amount":"x"}`, true)}.build(f, d),
		fixture{sc: scPaid, reads: careful(), edit: edits(logged("send_payment_request", `[1]`, true), logged("enable_roaming", `{"line_id":1}`, true))}.build(f, d),
	}
	// Odd values at known paths.
	odd := ledger.New()
	odd.Put(pathCustomers+"C1001", "not a customer")
	odd.Put(pathLines+"L1002", &Line{})
	odd.Put(pathBills+"B1", 3)
	odd.Put(pathPhoneLookups+"1", nil)
	leds = append(leds, odd)
	f.Fuzz(func(t *testing.T, args string) {
		for _, l := range leds {
			for _, p := range preds {
				decoded, fail := d.DecodeArgs(p.Tool, json.RawMessage(args))
				if fail != nil {
					if fail.Reason == "" || !strings.HasSuffix(fail.ID, ".arguments") {
						t.Fatalf("%s: arguments failure %+v", p.ID, fail)
					}
					continue
				}
				o := p.Check(l, decoded)
				if o.Decision != ledger.Allow && o.Reason == "" {
					t.Errorf("%s: %s without a reason", p.ID, o.Decision)
				}
			}
		}
	})
}
