package cli

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/score/rescore"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

func recordedFile(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("recorded run %s not available: %v", name, err)
	}
	return path
}

// rescoreJSON runs rescore --json and decodes its lines.
func rescoreJSON(t *testing.T, args ...string) []rescore.Sim {
	t.Helper()
	r := mustRun(t, append([]string{"rescore", "--json"}, args...)...)
	var out []rescore.Sim
	sc := bufio.NewScanner(strings.NewReader(r.out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var s rescore.Sim
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("rescore --json line %q: %v", sc.Text(), err)
		}
		out = append(out, s)
	}
	return out
}

// TestRescoreJSONFields checks that every line of rescore --json carries the
// documented keys.
func TestRescoreJSONFields(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	path := recordedFile(t, "2025-08-10_telecom_llm_agent_gpt-4o_user_simulator_gpt-4o.json")
	r := mustRun(t, "rescore", "--json", path)
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	if len(lines) != 20 {
		t.Fatalf("rescore --json wrote %d lines; want one per simulation (20)", len(lines))
	}
	want := []string{"file", "simulation_index", "simulation_id", "task_id", "trial", "recorded_reward", "reward", "reward_breakdown", "db_match", "notes"}
	for i, l := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range want {
			if _, ok := m[k]; !ok {
				t.Errorf("line %d lacks %q: %s", i, k, l)
			}
		}
		if len(m) != len(want) {
			t.Errorf("line %d has %d keys; want %d: %s", i, len(m), len(want), l)
		}
		var idx int
		if err := json.Unmarshal(m["simulation_index"], &idx); err != nil || idx != i {
			t.Errorf("line %d: simulation_index %s", i, m["simulation_index"])
		}
	}
}

// TestRescoreByTaskID: upstream's retail tasks 95–113 carry the next task's
// action ids, so the action-id guess would score correctly labelled
// simulations against the wrong task. By default every simulation is scored
// by its own task_id; --relabel is opt-in, noted per simulation, and leaves
// the simulations it does not relabel as they were.
func TestRescoreByTaskID(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	path := recordedFile(t, "toolorchestra_retail_gpt-5_1trial.json")
	def := rescoreJSON(t, "--criteria", "domain", path)
	rel := rescoreJSON(t, "--criteria", "domain", "--relabel", path)
	if len(def) != 114 || len(rel) != 114 {
		t.Fatalf("got %d and %d simulations; want 114", len(def), len(rel))
	}
	relabelled := 0
	for i := range def {
		for _, n := range def[i].Notes {
			if strings.HasPrefix(n, "relabelled") {
				t.Errorf("simulation %d relabelled without --relabel: %s", i, n)
			}
		}
		isRel := false
		for _, n := range rel[i].Notes {
			isRel = isRel || strings.HasPrefix(n, "relabelled")
		}
		if isRel {
			relabelled++
			continue
		}
		if !sameReward(def[i].Reward, rel[i].Reward) {
			t.Errorf("simulation %d (task %s) not relabelled but --relabel changed its reward", i, def[i].TaskID)
		}
	}
	if relabelled == 0 {
		t.Error("--relabel relabelled no simulation of a file whose action ids name other tasks")
	}
}

func sameReward(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return math.Abs(*a-*b) <= 1e-9
}

// TestRescoreReusedCallIDs rewrites a recorded run as a provider that reuses
// one tool-call id for every call would have written it: pairing calls with
// their outputs by position, every simulation scores as the original.
func TestRescoreReusedCallIDs(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	for _, name := range []string{"claude-sonnet-4-5_airline_default_gpt4.1_1trials.json", "gpt-4.1_telecom_default_gpt-4.1_1trials.json"} {
		t.Run(name, func(t *testing.T) {
			path := recordedFile(t, name)
			reused := filepath.Join(t.TempDir(), name)
			writeReusedIDs(t, path, reused)
			orig := rescoreJSON(t, "--criteria", "domain", path)
			got := rescoreJSON(t, "--criteria", "domain", reused)
			if len(orig) != len(got) {
				t.Fatalf("%d simulations; original %d", len(got), len(orig))
			}
			for i := range orig {
				if !sameReward(got[i].Reward, orig[i].Reward) {
					t.Errorf("simulation %d (task %s): reward %v with reused ids; %v with the recorded ids (notes %q)", i, got[i].TaskID, deref(got[i].Reward), deref(orig[i].Reward), got[i].Notes)
				}
				if a, b := mismatches(got[i].Notes), mismatches(orig[i].Notes); a != b {
					t.Errorf("simulation %d (task %s): %d replay mismatches with reused ids; %d with the recorded ids: %q", i, got[i].TaskID, a, b, got[i].Notes)
				}
			}
		})
	}
}

func mismatches(notes []string) int {
	n := 0
	for _, s := range notes {
		if strings.Contains(s, "gave a different output") {
			n++
		}
	}
	return n
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// writeReusedIDs copies a τ²-bench results file with every tool call's and
// tool message's id set to "call_0".
func writeReusedIDs(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range f["simulations"].([]any) {
		for _, m := range s.(map[string]any)["messages"].([]any) {
			msg := m.(map[string]any)
			if msg["role"] == "tool" {
				msg["id"] = "call_0"
				n++
			}
			if tcs, ok := msg["tool_calls"].([]any); ok {
				for _, tc := range tcs {
					tc.(map[string]any)["id"] = "call_0"
				}
			}
		}
	}
	if n == 0 {
		t.Fatalf("%s has no tool messages", src)
	}
	out, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Rescoring a run whose NL assertions were not judged
// (--no-judge) does not count the recorded "verdict" as standing in: there
// is none; those simulations are counted as NL not judged.
func TestRescoreNLNotRecorded(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := simRun(t, "1") // retail tasks 0-2: task 2 has NL assertions, unjudged
	exp := filepath.Join(t.TempDir(), "results.json")
	mustRun(t, "export", "--format", "tau2", dir, exp)
	r := mustRun(t, "rescore", exp)
	lines := strings.Split(r.out, "\n")
	if len(lines) < 2 {
		t.Fatalf("rescore output:\n%s", r.out)
	}
	head, row := strings.Fields(lines[0]), strings.Fields(lines[1])
	col := func(name string) string {
		// Header names have spaces: find the column by its position among
		// the header's words.
		names := []string{"FILE", "DOMAIN", "SIMS", "AGREE", "DISAGREE", "NL FROM RECORD", "NL NOT JUDGED", "RELABELLED", "NO TASK", "NOT EVALUATED"}
		for i, n := range names {
			if n == name && i < len(row) {
				return row[i]
			}
		}
		t.Fatalf("no column %s in %v", name, head)
		return ""
	}
	if got := col("NL FROM RECORD"); got != "0" {
		t.Errorf("NL FROM RECORD = %s; want 0 (the record holds no NL verdict)\n%s", got, r.out)
	}
	if got := col("NL NOT JUDGED"); got != "1" {
		t.Errorf("NL NOT JUDGED = %s; want 1\n%s", got, r.out)
	}
	if got := col("AGREE"); got != "3" {
		t.Errorf("AGREE = %s; want 3\n%s", got, r.out)
	}
	for _, s := range rescoreJSON(t, exp) {
		if s.TaskID == "2" && !strings.Contains(strings.Join(s.Notes, "\n"), "judged neither here nor in the record") {
			t.Errorf("task 2 notes %v", s.Notes)
		}
	}
}

// TestRescoreOutputDir: rescore -o DIR --fresh-tasks (upstream's
// evaluate-trajs -o, --fresh-tasks) writes DIR/updated_<name>: the recorded
// file with every key and value as it was but the simulations'
// reward_info, which holds the recomputed rewards — rescoring the updated
// file agrees with it on every simulation. τ-bench v1 lists and two inputs
// of one name are refused before anything is written.
func TestRescoreOutputDir(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	path := recordedFile(t, "claude-sonnet-4-5_airline_default_gpt4.1_1trials.json")
	dir := filepath.Join(t.TempDir(), "out")
	first := rescoreJSON(t, "--fresh-tasks", "-o", dir, path)
	updated := filepath.Join(dir, "updated_"+filepath.Base(path))
	again := rescoreJSON(t, "--fresh-tasks", updated)
	if len(again) != len(first) || len(first) != 50 {
		t.Fatalf("%d simulations rescored, %d after -o; want 50", len(first), len(again))
	}
	changed := 0
	for i := range first {
		if *first[i].RecordedReward != *first[i].Reward {
			changed++
		}
		if again[i].RecordedReward == nil || *again[i].RecordedReward != *first[i].Reward || *again[i].Reward != *first[i].Reward {
			t.Errorf("simulation %d: updated file records %v, rescores to %v; the first pass gave %v", i, again[i].RecordedReward, again[i].Reward, first[i].Reward)
		}
	}
	if changed == 0 {
		t.Errorf("--fresh-tasks changed no reward; the file's tasks differ from the pinned ones, so some should")
	}
	var orig, upd map[string]any
	for p, v := range map[string]*map[string]any{path: &orig, updated: &upd} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range orig {
		if k == "simulations" {
			continue
		}
		if !reflect.DeepEqual(v, upd[k]) {
			t.Errorf("key %q changed", k)
		}
	}
	osims, usims := orig["simulations"].([]any), upd["simulations"].([]any)
	for i := range osims {
		o, u := osims[i].(map[string]any), usims[i].(map[string]any)
		for k, v := range o {
			if k != "reward_info" && !reflect.DeepEqual(v, u[k]) {
				t.Errorf("simulation %d: key %q changed", i, k)
			}
		}
	}

	v1 := filepath.Join(datatest.Trajectories(t), "sierra-research+tau-bench", "gpt-4o-airline.json")
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"v1 list", []string{path, v1}, "not a τ²-bench results file"},
		{"same name twice", []string{path, updated, updated}, "would both be written"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "o")
			r := execCLI(t, t.Context(), append([]string{"rescore", "-o", out}, tc.files...)...)
			if r.code != ExitError || !strings.Contains(r.errOut, tc.want) {
				t.Errorf("exit %d, %q; want 1 and %q", r.code, r.errOut, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written despite the error", out)
			}
		})
	}
	r := execCLI(t, t.Context(), "rescore", "--fresh-tasks", "--criteria", "record", path)
	if r.code != ExitUsage {
		t.Errorf("--fresh-tasks with --criteria record: exit %d; want 2", r.code)
	}
}
