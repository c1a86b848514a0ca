package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

func TestGateAuditRecordedArgs(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := t.TempDir()
	for _, n := range []string{"a.json", "b.json", "c.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	glob := filepath.Join(dir, "*.json")
	for _, tc := range []struct {
		name    string
		args    []string
		want    []string
		wantErr bool
	}{
		{"one flag, files after it", []string{"--recorded", a, b}, []string{a, b}, false},
		{"repeated flag", []string{"--recorded", a, "--recorded", b}, []string{a, b}, false},
		{"quoted glob", []string{"--recorded", glob}, []string{a, b}, false},
		{"positional glob", []string{glob}, []string{a, b}, false},
		{"glob matching nothing", []string{"--recorded", filepath.Join(dir, "*.csv")}, nil, true},
		{"no files", nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got *gateAuditOptions
			s := &Streams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}, Getenv: func(string) string { return "" }}
			cmd := newCmdGateAudit(s, &globalOptions{DataDir: dir}, func(_ context.Context, _ *Streams, o *gateAuditOptions) error {
				got = o
				return nil
			})
			cmd.SetArgs(tc.args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			if tc.wantErr {
				if !errext.IsUsage(err) {
					t.Fatalf("err = %v; want a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Recorded, tc.want) {
				t.Errorf("Recorded = %v; want %v", got.Recorded, tc.want)
			}
		})
	}
}

// TestGateAuditVerdictObjects audits a recorded upstream file: every
// non-allowed write gets one verdict object whose positions point at the
// recorded call, and the counts agree with the summary rows.
func TestGateAuditVerdictObjects(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	file := filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "claude-sonnet-4-5_airline_default_gpt4.1_1trials.json")
	if _, err := os.Stat(file); err != nil {
		t.Skipf("recorded airline run not available: %v", err)
	}
	f, err := results.ReadTau2(file)
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, "gate-audit", "--domain", "airline", "--json", "--recorded", file)
	stopped, verdicts := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
		var head struct {
			Report string `json:"report"`
		}
		if err := json.Unmarshal([]byte(line), &head); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		switch head.Report {
		case "recorded":
			var row struct {
				Revise      int    `json:"revise"`
				Block       int    `json:"block"`
				EnvRejected int    `json:"stopped_env_rejected"`
				NotRejected int    `json:"stopped_not_rejected"`
				Rescored    string `json:"rescored_outcome"`
			}
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				t.Fatal(err)
			}
			if row.Revise+row.Block != row.EnvRejected+row.NotRejected {
				t.Errorf("row %s: revise+block != env-rejected+not-rejected", line)
			}
			if row.Rescored == "" {
				t.Errorf("row without rescored outcome: %s", line)
			}
			stopped += row.Revise + row.Block
		case "verdict":
			verdicts++
			var v struct {
				File            string          `json:"file"`
				SimulationIndex *int            `json:"simulation_index"`
				MessageIndex    *int            `json:"message_index"`
				CallID          string          `json:"call_id"`
				TaskID          string          `json:"task_id"`
				Trial           *int            `json:"trial"`
				Tool            string          `json:"tool"`
				Arguments       json.RawMessage `json:"arguments"`
				Verdict         string          `json:"verdict"`
				Predicates      []struct {
					ID     string `json:"id"`
					Reason string `json:"reason"`
				} `json:"predicates"`
				Outcome     string `json:"outcome"`
				EnvRejected *bool  `json:"env_rejected"`
			}
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatal(err)
			}
			if v.File != filepath.Base(file) || v.SimulationIndex == nil || v.MessageIndex == nil || v.Trial == nil || v.EnvRejected == nil ||
				v.Verdict == "ALLOW" || len(v.Predicates) == 0 || v.Predicates[0].ID == "" || v.Predicates[0].Reason == "" || v.Outcome == "" {
				t.Fatalf("incomplete verdict object: %s", line)
			}
			sim := f.Simulations[*v.SimulationIndex]
			msgs := sim.Trajectory()
			m := msgs[*v.MessageIndex]
			if sim.TaskID != v.TaskID || !slices.ContainsFunc(m.ToolCalls, func(tc message.ToolCall) bool {
				return tc.ID == v.CallID && tc.Name == v.Tool
			}) {
				t.Errorf("verdict %s does not point at its recorded call", line)
			}
		}
	}
	if verdicts != stopped || verdicts == 0 {
		t.Errorf("%d verdict objects, %d stopped writes in the rows; want equal and > 0", verdicts, stopped)
	}
	// -v text output: the same stops, one line each
	txt := mustRun(t, "gate-audit", "--domain", "airline", "-v", "--recorded", file)
	if n := strings.Count(txt.out, "\nverdict "); n != verdicts {
		t.Errorf("-v printed %d verdict lines; want %d\n%s", n, verdicts, txt.out)
	}
	if !strings.Contains(txt.out, "% of writes stopped") || !strings.Contains(txt.out, "False positive rate (%)") || !strings.Contains(txt.out, "Recall (%)") {
		t.Errorf("rate column must say what it measures:\n%s", txt.out)
	}
}

// TestGateAuditFormats: the CSV tables carry the numbers of the JSON
// objects (one per gold report and mutation kind), and --strict exits 3
// exactly when a gold write was not allowed.
func TestGateAuditFormats(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	js := mustRun(t, "gate-audit", "--domain", "retail", "--json")
	type row struct {
		Report         string `json:"report"`
		Domain         string `json:"domain"`
		Kind           string `json:"kind"`
		Writes         int    `json:"writes"`
		FalsePositives int    `json:"false_positives"`
		Total          int    `json:"total"`
		Caught         int    `json:"caught"`
	}
	var want []row
	for _, line := range strings.Split(strings.TrimSpace(js.out), "\n") {
		var r row
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		want = append(want, r)
	}
	csvOut := mustRun(t, "gate-audit", "--domain", "retail", "--format", "csv").out
	tables := map[string][][]string{}
	for _, sec := range strings.Split(csvOut, "\n\n") {
		head, body, _ := strings.Cut(sec, "\n")
		id, _, _ := strings.Cut(strings.TrimPrefix(head, "# "), ":")
		recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatalf("table %s: %v", id, err)
		}
		tables[id] = recs[1:]
	}
	var got []row
	for _, r := range tables["gold"] {
		got = append(got, row{Report: "gold", Domain: r[0], Writes: atoiT(t, r[4]), FalsePositives: atoiT(t, r[5])})
	}
	for _, r := range tables["mutations"] {
		got = append(got, row{Report: "mutations", Domain: r[0], Kind: r[1], Total: atoiT(t, r[2]), Caught: atoiT(t, r[3])})
	}
	if len(got) != len(want) || len(got) < 2 {
		t.Fatalf("csv has %d gold/mutation rows, json %d objects\n%s", len(got), len(want), csvOut)
	}
	fp := 0
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("csv row %d = %+v; json %+v", i, got[i], want[i])
		}
		fp += want[i].FalsePositives
	}
	md := mustRun(t, "gate-audit", "--domain", "retail", "--format", "markdown").out
	if !strings.Contains(md, "### Gold backbone through LedgerAgent, live") || !strings.Contains(md, "| retail ") {
		t.Errorf("markdown output lacks its tables:\n%s", md)
	}
	wantCode := ExitOK
	if fp > 0 {
		wantCode = ExitFailed
	}
	if r := execCLI(t, t.Context(), "gate-audit", "--domain", "retail", "--strict"); r.code != wantCode {
		t.Errorf("--strict with %d false positives: exit %d; want %d", fp, r.code, wantCode)
	}
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("cell %q is not a whole number", s)
	}
	return n
}

// TestGateAuditMatchesLiveRun: the gold audit is the live run: the tasks
// `run --backbone gold` passes with LedgerAgent and with gate-only are the
// tasks the audit reports passed, and every gold write is allowed. (Main
// once reported 0 false positives on telecom while the live gold run lost 6
// tasks to a REVISE of resume_line, and telehealth's task 10 ran out of
// τ-Trait's 30 steps.)
func TestGateAuditMatchesLiveRun(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	for _, domain := range []string{"telecom", "telehealth"} {
		t.Run(domain, func(t *testing.T) {
			var gold struct {
				Report         string `json:"report"`
				Tasks          int    `json:"tasks"`
				Passed         int    `json:"passed"`
				FalsePositives int    `json:"false_positives"`
				Solo           bool   `json:"solo"`
			}
			for _, line := range strings.Split(strings.TrimSpace(mustRun(t, "gate-audit", "--domain", domain, "--json").out), "\n") {
				var r = gold
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatal(err)
				}
				if r.Report == "gold" && !r.Solo {
					gold = r
				}
			}
			for _, agent := range []string{"ledger", "gate-only"} {
				dir := filepath.Join(t.TempDir(), agent)
				mustRun(t, "run", "--domain", domain, "--agent", agent, "--backbone", "gold", "--no-judge", "--trials", "1", "--quiet", "--out", dir)
				passed := 0
				for _, r := range loadRun(t, dir).Records {
					if r.Success() {
						passed++
					}
				}
				if passed != gold.Passed || gold.Tasks == 0 {
					t.Errorf("%s: live gold run passed %d tasks; gate-audit says %d of %d", agent, passed, gold.Passed, gold.Tasks)
				}
			}
			if gold.Passed != gold.Tasks || gold.FalsePositives != 0 {
				t.Errorf("gold audit: %d of %d tasks passed, %d false positives; want all passed, none", gold.Passed, gold.Tasks, gold.FalsePositives)
			}
		})
	}
}
