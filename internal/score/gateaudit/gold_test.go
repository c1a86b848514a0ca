package gateaudit

import (
	"encoding/json"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// TestGoldPassesLive: the gold backbone played through LedgerAgent as `run`
// plays it passes every task of every domain, split and mode, and the gate
// allows every gold write the environment accepts. (Before the gold script
// read only what the gate needs, telecom lost the 6 tasks whose user pays
// an overdue bill on their phone before resume_line — the script did not
// read the bill again — and telehealth task 10 ran past τ-Trait's 30
// steps.) Retail's two gold writes the environment rejects (task 64
// exchanges a pending order; task 105 pays $21.10 with a gift card holding
// $17) are counted apart.
func TestGoldPassesLive(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	tests := []struct {
		domain, split        string
		solo, long           bool
		tasks, writes, envNo int
	}{
		{domain: "airline", split: "base", tasks: 50, writes: 49},
		{domain: "airline", split: "train", tasks: 30, writes: 26},
		{domain: "retail", split: "base", tasks: 114, writes: 174, envNo: 2},
		{domain: "telecom", split: "base", tasks: 114, writes: 103},
		{domain: "telecom", split: "full", tasks: 2285, writes: 2256, long: true},
		{domain: "telecom", split: "base", solo: true, tasks: 114, writes: 103},
		{domain: "telecom-workflow", split: "base", tasks: 114, writes: 103},
		{domain: "telecom-workflow", split: "base", solo: true, tasks: 114, writes: 103},
		{domain: "telehealth", split: "test", tasks: 20, writes: 41},
		{domain: "telehealth", split: "dev", tasks: 1},
		{domain: "telehealth", split: "train", tasks: 1},
		{domain: "banking_knowledge", split: "base", tasks: 97, writes: 343},
		{domain: "tautrait-telecom", split: "test", tasks: 18, writes: 16},
		{domain: "tautrait-telecom", split: "train", tasks: 1},
		{domain: "tautrait-telecom", split: "dev-misnamed", tasks: 8, writes: 5},
	}
	for _, tc := range tests {
		name := tc.domain + "/" + tc.split
		if tc.solo {
			name += "/solo"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tc.long && testing.Short() {
				t.Skip("a large split in -short mode")
			}
			load := domains.LoadOffline // banking_knowledge's bm25 variant: no endpoint
			if tc.solo {
				load = domains.LoadSolo
			}
			dom, err := load(tc.domain, root)
			if err != nil {
				t.Fatal(err)
			}
			ts, err := dom.Tasks().Select(tasks.Selection{Split: tc.split})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := AuditGold(t.Context(), root, dom, ts)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Tasks != tc.tasks || rep.Passed != tc.tasks || rep.Writes != tc.writes || rep.RejectedByEnv != tc.envNo || rep.FalsePositives != 0 || rep.HarnessErrors != 0 {
				t.Errorf("%d tasks, %d passed, %d writes, %d rejected by the environment, %d false positives, %d harness errors; want %d, %d, %d, %d, 0, 0",
					rep.Tasks, rep.Passed, rep.Writes, rep.RejectedByEnv, rep.FalsePositives, rep.HarnessErrors, tc.tasks, tc.tasks, tc.writes, tc.envNo)
			}
			for _, l := range rep.Lost {
				t.Errorf("task %s lost live: %s, reward %v after %d steps %s", l.TaskID, l.Termination, l.Reward, l.Steps, l.Error)
			}
			for _, c := range rep.Cases {
				t.Errorf("false positive in task %s: %s %s: %s %v: %s", c.TaskID, c.Verdict.Tool, c.Verdict.Arguments, c.Verdict.Decision, c.Verdict.Failed, c.Verdict.Reason)
			}
		})
	}
}

// strict is airline whose gate refuses every cancel_reservation and whose
// update_reservation_baggages predicate panics.
type strict struct {
	envs.Domain
	pol ledgeragent.Policy
	ledgeragent.Auditor
}

func (s strict) Route(tool string, args json.RawMessage, out string) []ledger.Entry {
	return s.pol.Route(tool, args, out)
}

func (s strict) DecodeArgs(tool string, raw json.RawMessage) (any, *ledger.Failure) {
	return s.pol.DecodeArgs(tool, raw)
}

func (s strict) GatePredicates() []ledger.Predicate {
	return append(s.pol.GatePredicates(),
		ledger.Predicate{ID: "test.cancel.never", Tool: "cancel_reservation", Check: func(*ledger.Ledger, any) ledger.Outcome {
			return ledger.Refuse("never")
		}},
		ledger.Predicate{ID: "test.bags.panics", Tool: "update_reservation_baggages", Check: func(*ledger.Ledger, any) ledger.Outcome {
			var p *ledger.Outcome
			return *p
		}})
}

// TestGoldAuditReportsLiveLosses: what the live gate stops and what the
// live run loses is what the audit reports: a refused gold write is a false
// positive and its task is lost; a predicate that panics is a harness error
// (an infrastructure error of the simulation), not a false positive.
func TestGoldAuditReportsLiveLosses(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	base, err := domains.Load("airline", root)
	if err != nil {
		t.Fatal(err)
	}
	dom := strict{Domain: base, pol: base.(ledgeragent.Policy), Auditor: base.(ledgeragent.Auditor)}
	ts, err := base.Tasks().Select(tasks.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	cancels, bags := map[string]bool{}, map[string]bool{}
	for _, task := range ts {
		for _, a := range task.GoldActions() {
			switch a.Name {
			case "cancel_reservation":
				cancels[task.ID] = true
			case "update_reservation_baggages":
				bags[task.ID] = true
			}
		}
	}
	rep, err := AuditGold(t.Context(), root, dom, ts)
	if err != nil {
		t.Fatal(err)
	}
	lost := map[string]bool{}
	for _, l := range rep.Lost {
		lost[l.TaskID] = true
	}
	for id := range cancels {
		if !lost[id] {
			t.Errorf("task %s: its refused cancel_reservation did not lose it", id)
		}
	}
	fp := map[string]bool{}
	for _, c := range rep.Cases {
		if c.Verdict.Tool != "cancel_reservation" || c.Verdict.Predicate != "test.cancel.never" {
			t.Errorf("false positive %s %s by %s; want only the refused cancels", c.TaskID, c.Verdict.Tool, c.Verdict.Predicate)
		}
		fp[c.TaskID] = true
	}
	if len(fp) == 0 || rep.FalsePositives != len(rep.Cases) {
		t.Errorf("%d false positives, %d cases; want the refused cancels", rep.FalsePositives, len(rep.Cases))
	}
	harness := 0
	for id := range bags {
		if !cancels[id] {
			harness++
		}
	}
	if harness == 0 || rep.HarnessErrors < harness {
		t.Errorf("%d harness errors; want at least %d (the tasks whose baggage update reaches the panicking predicate)", rep.HarnessErrors, harness)
	}
	if rep.Passed+len(rep.Lost) != rep.Tasks {
		t.Errorf("passed %d + lost %d != %d tasks", rep.Passed, len(rep.Lost), rep.Tasks)
	}
}

// BenchmarkEvidencePlan: the gold script's evidence reads of one telecom
// task (a replay of its gold actions with the ledger and gate), computed
// once per task of a run.
func BenchmarkEvidencePlan(b *testing.B) {
	dom, err := domains.Load("telecom", datatest.Root(b))
	if err != nil {
		b.Fatal(err)
	}
	ts, err := dom.Tasks().Select(tasks.Selection{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := ledgeragent.EvidencePlan(b.Context(), dom, &ts[i%len(ts)]); err != nil {
			b.Fatal(err)
		}
	}
}
