package telecom

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

func selectSplit(tb testing.TB, d *Domain, split string) []tasks.Task {
	tb.Helper()
	ts, err := d.Tasks().Select(tasks.Selection{Split: split})
	if err != nil {
		tb.Fatal(err)
	}
	return ts
}

var auditSplits = []struct {
	split         string
	tasks, writes int
}{
	{"base", 114, 103},
	{"full", 2285, 2256},
}

// wantKinds are the mutation kinds each split must produce.
var wantKinds = []string{
	MutUnidentifiedCustomer, MutForeignLine, MutOtherUserLine, MutRefuelOverCap, MutRefuelNonPositive,
	MutMalformedAmount, MutRefuelTwice, MutPaymentTwice, MutPaymentNotOverdue, MutForeignBill,
	MutResumeBeforePayment, MutResumeActiveLine, MutSuspendWithoutBasis, MutRoamingAlreadyOn,
}

// TestGateAuditMutations: recall of at least 95% per kind (in fact all).
func TestGateAuditMutations(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	d := domainForTest(t)
	for _, s := range auditSplits {
		t.Run(s.split, func(t *testing.T) {
			if s.split == "full" && testing.Short() {
				t.Skip("full split in -short mode")
			}
			reps, err := ledgeragent.AuditMutations(context.Background(), d, selectSplit(t, d, s.split))
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, r := range reps {
				kinds = append(kinds, r.Kind)
				if r.Total == 0 || float64(r.Caught) < 0.95*float64(r.Total) {
					t.Errorf("%s: caught %d of %d (missed in %v)", r.Kind, r.Caught, r.Total, r.Missed)
				}
				t.Logf("%-24s %5d/%-5d", r.Kind, r.Caught, r.Total)
			}
			for _, k := range wantKinds {
				if !slices.Contains(kinds, k) {
					t.Errorf("no mutation of kind %s", k)
				}
			}
		})
	}
}

// walkGold replays a task's gold actions as ledgeragent's audits do: before
// each agent write, its evidence reads; visit sees the ledger just before
// the write runs.
func walkGold(tb testing.TB, d *Domain, task *tasks.Task, visit func(a tasks.Action, l *ledger.Ledger)) {
	tb.Helper()
	ctx := context.Background()
	env, err := evaluator.NewInitializedEnv(ctx, d, task)
	if err != nil {
		tb.Fatal(err)
	}
	l := ledger.New()
	call := func(tc message.ToolCall) message.Message {
		if tc.Requestor == "" {
			tc.Requestor = message.ByAssistant
		}
		tc.ID = "w"
		res := envs.Respond(ctx, env, tc)
		env.Sync()
		if tc.Requestor == message.ByAssistant && !res.Error {
			if ti, ok := envs.ToolInfo(d, message.ByAssistant, tc.Name); ok && ti.Kind == "read" {
				l.Absorb(d, tc.Name, tc.Arguments, res.Content)
			}
		}
		return res
	}
	for _, a := range task.GoldActions() {
		tc := message.ToolCall{Name: a.Name, Arguments: a.Arguments, Requestor: message.Requestor(a.By())}
		ti, _ := envs.ToolInfo(d, message.ByAssistant, a.Name)
		if tc.Requestor != message.ByAssistant || !ti.Mutates() {
			call(tc)
			continue
		}
		for _, r := range d.EvidenceReads(a.Name, a.Arguments) {
			if res := call(r); res.Error {
				tb.Errorf("%s: evidence read %s %s failed: %s", task.ID, r.Name, r.Arguments, res.Content)
			}
		}
		visit(a, l)
		decoded, _ := d.DecodeArgs(a.Name, a.Arguments)
		i := l.LogWrite(a.Name, a.Arguments, decoded)
		res := call(tc)
		l.Resolve(i, !res.Error)
	}
}

// mutationRules: the predicate rules that must catch each kind (any one).
var mutationRules = map[string][]string{
	MutUnidentifiedCustomer: {"customer_identified"},
	MutForeignLine:          {"line_owned"},
	MutOtherUserLine:        {"user_line"},
	MutRefuelOverCap:        {"amount"},
	MutRefuelNonPositive:    {"amount"},
	MutMalformedAmount:      {"amount"},
	MutRefuelTwice:          {"once"},
	MutPaymentTwice:         {"once", "bill_overdue"}, // the replayed bill may since be read as Paid
	MutRoamingTwice:         {"once"},
	MutPaymentNotOverdue:    {"bill_overdue"},
	MutForeignBill:          {"bill_owned"},
	MutResumeBeforePayment:  {"overdue_paid"},
	MutResumeActiveLine:     {"line_suspended"},
	MutSuspendWithoutBasis:  {"basis"},
	MutRoamingAlreadyOn:     {"not_enabled"},
}

// TestMutationsHitTheirRule: each mutation is caught by the rule it
// violates, not only by some other predicate (e.g. missing evidence), and
// the gold call itself is allowed at that point.
func TestMutationsHitTheirRule(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	gate := ledger.NewGate(d.GatePredicates(), writeToolNames(d), d.DecodeArgs)
	ts := selectSplit(t, d, "base")
	count := map[string]int{}
	for i := range ts {
		task := &ts[i]
		walkGold(t, d, task, func(a tasks.Action, l *ledger.Ledger) {
			if v := gate.Judge(l, a.Name, "", a.Arguments); v.Decision != ledger.Allow {
				t.Errorf("%s: gold %s refused: %s", task.ID, a.Name, v.Reason)
			}
			for _, m := range d.Mutations(a.Name, a.Arguments, l) {
				rules, ok := mutationRules[m.Kind]
				if !ok {
					t.Fatalf("undocumented mutation kind %s", m.Kind)
				}
				count[m.Kind]++
				v := gate.Judge(l, m.Tool, "", m.Args)
				hit := slices.ContainsFunc(rules, func(r string) bool { return slices.Contains(v.Failed, "telecom."+m.Tool+"."+r) })
				if !hit {
					t.Errorf("%s: %s %s %s -> %s %v, want one of %v", task.ID, m.Kind, m.Tool, m.Args, v.Decision, v.Failed, rules)
				}
			}
		})
	}
	t.Logf("mutations by kind: %v", count)
}

func TestEvidenceReads(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	tests := []struct {
		tool, args string
		want       []string // "name args"
	}{
		{"refuel_data", `{"customer_id": "C1001", "line_id": "L1002", "gb_amount": 2.0}`, []string{
			`get_customer_by_phone {"phone_number": "555-123-2002"}`, `get_details_by_id {"id": "L1002"}`,
			`get_details_by_id {"id": "P1002"}`, `get_data_usage {"customer_id": "C1001", "line_id": "L1002"}`}},
		{"enable_roaming", `{"customer_id": "C1001", "line_id": "L1001"}`, []string{
			`get_customer_by_phone {"phone_number": "555-123-2001"}`, `get_details_by_id {"id": "L1001"}`}},
		{"disable_roaming", `{"customer_id": "C1002", "line_id": "L1005"}`, []string{
			`get_customer_by_phone {"phone_number": "555-123-2005"}`, `get_details_by_id {"id": "L1005"}`}},
		{"resume_line", `{"customer_id": "C1001", "line_id": "L1002"}`, []string{
			`get_customer_by_phone {"phone_number": "555-123-2002"}`, `get_details_by_id {"id": "L1002"}`,
			`get_bills_for_customer {"customer_id": "C1001"}`}},
		{"suspend_line", `{"customer_id": "C1003", "line_id": "L1009", "reason": "x"}`, []string{
			`get_customer_by_phone {"phone_number": "555-123-2009"}`, `get_details_by_id {"id": "L1009"}`,
			`get_bills_for_customer {"customer_id": "C1003"}`}},
		{"send_payment_request", `{"customer_id": "C1001", "bill_id": "B1234321"}`, []string{
			`get_customer_by_phone {"phone_number": "555-123-2002"}`, `get_bills_for_customer {"customer_id": "C1001"}`,
			`get_details_by_id {"id": "B1234321"}`, `get_details_by_id {"id": "L1001"}`, `get_details_by_id {"id": "L1002"}`,
			`get_details_by_id {"id": "L1003"}`}},
		// A line that is not the customer's: the customer's own number.
		{"enable_roaming", `{"customer_id": "C1002", "line_id": "L1002"}`, []string{
			`get_customer_by_phone {"phone_number": "555-123-1002"}`, `get_details_by_id {"id": "L1002"}`}},
		// An unknown customer: by id.
		{"refuel_data", `{"customer_id": "C9", "line_id": "L9", "gb_amount": 1}`, []string{
			`get_customer_by_id {"customer_id": "C9"}`, `get_details_by_id {"id": "L9"}`, `get_data_usage {"customer_id": "C9", "line_id": "L9"}`}},
		{"refuel_data", `[1, 2]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			var got []string
			for _, tc := range d.EvidenceReads(tt.tool, json.RawMessage(tt.args)) {
				if tc.Requestor != "" && tc.Requestor != message.ByAssistant {
					t.Errorf("%s requested by %s", tc.Name, tc.Requestor)
				}
				got = append(got, tc.Name+" "+string(tc.Arguments))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("EvidenceReads =\n %s\nwant\n %s", strings.Join(got, "\n "), strings.Join(tt.want, "\n "))
			}
		})
	}
}

func TestMutationsOnOddArguments(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	l := fixture{sc: scOverdue, reads: careful()}.build(t, d)
	for _, args := range []string{`null`, `[]`, `{"customer_id": 5}`, `{}`, `{"customer_id": "C1001", "line_id": 7}`} {
		for _, tool := range writeToolNames(d) {
			for _, m := range d.Mutations(tool, json.RawMessage(args), l) {
				if _, ok := mutationRules[m.Kind]; !ok || !json.Valid(m.Args) {
					t.Errorf("%s %s: mutation %+v", tool, args, m)
				}
			}
		}
	}
}

// TestRecordedShadow runs the gate in shadow mode over the recorded telecom
// runs: a recorded write equal to one of its task's gold writes must not be
// refused (the agents of these runs read the evidence first). The refused
// writes are logged.
func TestRecordedShadow(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	byID := map[string]*tasks.Task{}
	main, err := d.Tasks().All()
	if err != nil {
		t.Fatal(err)
	}
	for i := range main {
		byID[main[i].ID] = &main[i]
	}
	dir := filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench")
	files := []string{"gpt-4.1_telecom_default_gpt-4.1_1trials.json", "2025-08-10_telecom_llm_agent_gpt-4o_user_simulator_gpt-4o.json"}
	refused := 0
	for _, name := range files {
		f, err := results.ReadTau2(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, sim := range f.Simulations {
			task := byID[sim.TaskID]
			if task == nil {
				t.Fatalf("%s: unknown task %s", name, sim.TaskID)
			}
			verdicts, err := ledgeragent.ShadowVerdicts(d, sim.Trajectory())
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range verdicts {
				if v.Decision == ledger.Allow {
					continue
				}
				refused++
				if isGoldCall(task, v.Tool, v.Arguments) {
					t.Errorf("%s %s: gold write %s %s refused: %s", name, sim.TaskID, v.Tool, v.Arguments, v.Reason)
				}
				reward := 0.0
				if sim.RewardInfo != nil {
					reward = sim.RewardInfo.Reward
				}
				t.Logf("%s reward=%v: %s %s -> %s %v", sim.TaskID, reward, v.Tool, compactJSON(v.Arguments), v.Decision, v.Failed)
			}
		}
	}
	t.Logf("%d refused writes", refused)
}

func isGoldCall(task *tasks.Task, name string, args json.RawMessage) bool {
	got, err := pyjson.Decode(args)
	if err != nil {
		return false
	}
	for _, a := range task.GoldActions() {
		if a.Name != name {
			continue
		}
		if want, err := pyjson.Decode(a.Arguments); err == nil && pyjson.Equal(got, want) {
			return true
		}
	}
	return false
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// longLedger is the ledger at the end of a long conversation: every record
// of the database read (several times), and a dozen writes logged.
func longLedger(tb testing.TB, d *Domain) (*ledger.Ledger, envs.Env) {
	tb.Helper()
	env := d.NewEnv()
	runFn(tb, env, message.ByUser, "set_user_info", `{"name":"John Smith","phone_number":"555-123-2002"}`)
	scOverdue(tb, env)
	var reads []message.ToolCall
	for range 5 {
		reads = append(reads, careful()...)
		for _, c := range d.db.Customers.All() {
			reads = append(reads, read("get_customer_by_id", "customer_id", c.CustomerID), read("get_bills_for_customer", "customer_id", c.CustomerID))
			for _, id := range c.LineIDs {
				reads = append(reads, read("get_data_usage", "customer_id", c.CustomerID, "line_id", id))
			}
		}
		for _, x := range d.db.Lines.All() {
			reads = append(reads, read("get_details_by_id", "id", x.LineID))
		}
		for _, p := range d.db.Plans.All() {
			reads = append(reads, read("get_details_by_id", "id", p.PlanID))
		}
		for _, dv := range d.db.Devices.All() {
			reads = append(reads, read("get_details_by_id", "id", dv.DeviceID))
		}
	}
	l := ledger.New()
	absorbAll(tb, d, env, l, reads...)
	for i := range 12 {
		logged("enable_roaming", fmt.Sprintf(`{"customer_id": "C1002", "line_id": "L100%d"}`, 4+i%5), true)(l)
	}
	return l, env
}

func BenchmarkLedgerAbsorb(b *testing.B) {
	d := domainForTest(b)
	l, env := longLedger(b, d)
	tc := read("get_details_by_id", "id", "L1002")
	out := respond(b, env, tc).Content
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		l.Absorb(d, tc.Name, tc.Arguments, out)
	}
	b.ReportMetric(float64(l.Len()), "entries")
}

func BenchmarkLedgerRender(b *testing.B) {
	d := domainForTest(b)
	l, _ := longLedger(b, d)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = len(l.Render())
	}
	b.ReportMetric(float64(n), "chars")
}

func BenchmarkGateJudge(b *testing.B) {
	d := domainForTest(b)
	l, _ := longLedger(b, d)
	gate := ledger.NewGate(d.GatePredicates(), writeToolNames(d), d.DecodeArgs)
	calls := map[string]string{
		"refuel_data":          `{"customer_id": "C1001", "line_id": "L1002", "gb_amount": 2.0}`,
		"send_payment_request": `{"customer_id": "C1001", "bill_id": "B1234321"}`,
		"resume_line":          `{"customer_id": "C1001", "line_id": "L1002"}`,
		"enable_roaming":       `{"customer_id": "C1001", "line_id": "L1002"}`,
		"suspend_line":         `{"customer_id": "C1001", "line_id": "L1001", "reason": "overdue"}`,
	}
	for _, tool := range writeToolNames(d) {
		args, ok := calls[tool]
		if !ok {
			continue
		}
		b.Run(tool, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				gate.Judge(l, tool, "c", json.RawMessage(args))
			}
		})
	}
}

// BenchmarkTurn is one agent turn's harness work at the end of a long
// conversation: absorb a read return, render the ledger, judge a write.
func BenchmarkTurn(b *testing.B) {
	d := domainForTest(b)
	l, env := longLedger(b, d)
	gate := ledger.NewGate(d.GatePredicates(), writeToolNames(d), d.DecodeArgs)
	tc := read("get_bills_for_customer", "customer_id", "C1001")
	out := respond(b, env, tc).Content
	args := json.RawMessage(`{"customer_id": "C1001", "bill_id": "B1234321"}`)
	b.ReportAllocs()
	for b.Loop() {
		l.Absorb(d, tc.Name, tc.Arguments, out)
		_ = l.Render()
		gate.Judge(l, "send_payment_request", "c", args)
	}
}
