package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// dumpDB runs replay --dump-db in process and decodes its output.
func dumpDB(t *testing.T, args ...string) (db, userDB any) {
	t.Helper()
	r := mustRun(t, append([]string{"replay", "--dump-db"}, args...)...)
	var out struct {
		DB     any `json:"db"`
		UserDB any `json:"user_db"`
	}
	if err := json.Unmarshal([]byte(r.out), &out); err != nil {
		t.Fatalf("replay output is not {db, user_db}: %v\n%s", err, r.out)
	}
	return out.DB, out.UserDB
}

func writeJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "calls.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReplayNoCallsIsUpstreamDB: replaying no calls dumps upstream's
// db.json: every field with its value; fields db.json leaves out are those
// upstream's models fill with None (model_dump prints them as null).
func TestReplayNoCallsIsUpstreamDB(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	root := datatest.Root(t)
	for _, domain := range []string{"airline", "retail"} {
		t.Run(domain, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(root, data.Tau2, "data", "tau2", "domains", domain, "db.json"))
			if err != nil {
				t.Skipf("no upstream db.json: %v", err)
			}
			var want any
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			got, _ := dumpDB(t, "--domain", domain, "--task", "0", "--calls", writeJSON(t, []any{}))
			if path, ok := sameOrNull(got, want, ""); !ok {
				t.Errorf("replay with no calls: db differs from upstream's %s db.json at %s", domain, path)
			}
		})
	}
}

// TestReplayGoldEqualsCalls: the gold replay equals replaying the task's
// gold actions given as --calls, and differs from the initial database
// when the gold actions write.
func TestReplayGoldEqualsCalls(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	root := datatest.Root(t)
	dom, err := domains.Load("retail", root)
	if err != nil {
		t.Fatal(err)
	}
	task, err := dom.Tasks().Find("0")
	if err != nil {
		t.Fatal(err)
	}
	acts := task.GoldActions()
	if len(acts) == 0 {
		t.Fatal("retail task 0 has no gold actions")
	}
	gold, _ := dumpDB(t, "--domain", "retail", "--task", "0")
	given, _ := dumpDB(t, "--domain", "retail", "--task", "0", "--calls", writeJSON(t, acts))
	if !reflect.DeepEqual(gold, given) {
		t.Error("gold replay and --calls with the gold actions differ")
	}
	initial, _ := dumpDB(t, "--domain", "retail", "--task", "0", "--calls", writeJSON(t, []any{}))
	if reflect.DeepEqual(gold, initial) {
		t.Error("retail task 0's gold actions left the database unchanged")
	}
}

func TestReplayErrors(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"unknown task", []string{"replay", "--domain", "retail", "--task", "no-such-task", "--dump-db"}, ExitError},
		{"bad calls file", []string{"replay", "--domain", "retail", "--task", "0", "--dump-db", "--calls", "/nonexistent/calls.json"}, ExitError},
		{"no dump", []string{"replay", "--domain", "retail", "--task", "0"}, ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := execCLI(t, t.Context(), tc.args...); r.code != tc.code || r.errOut == "" {
				t.Errorf("exit %d, stderr %q; want exit %d and a message", r.code, r.errOut, tc.code)
			}
		})
	}
}

// sameOrNull reports whether got equals want, objects in got holding extra
// keys only with null values; else the path of the first difference.
func sameOrNull(got, want any, path string) (string, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		for k, v := range w {
			if p, ok := sameOrNull(g[k], v, path+"/"+k); !ok {
				return p, false
			}
		}
		for k, v := range g {
			if _, in := w[k]; !in && v != nil {
				return path + "/" + k, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path, false
		}
		for i := range w {
			if p, ok := sameOrNull(g[i], w[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	}
	return path, reflect.DeepEqual(got, want)
}

// TestReplaySplit replays telehealth's dev task 0, whose id the test split
// reuses: --split dev replays the dev task's gold actions, not test's.
func TestReplaySplit(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	root := datatest.Root(t)
	dom, err := domains.Load("telehealth", root)
	if err != nil {
		t.Fatal(err)
	}
	dev := dom.Tasks().Extra["dev"]
	if len(dev) == 0 || dev[0].ID != "0" {
		t.Fatalf("telehealth dev split: %d tasks; want task 0 first", len(dev))
	}
	got, _ := dumpDB(t, "--domain", "telehealth", "--task", "0", "--split", "dev")
	want, _ := dumpDB(t, "--domain", "telehealth", "--task", "0", "--calls", writeJSON(t, dev[0].GoldActions()))
	def, _ := dumpDB(t, "--domain", "telehealth", "--task", "0")
	if !reflect.DeepEqual(got, want) {
		t.Error("--split dev: the database is not the one dev task 0's gold actions give")
	}
	if reflect.DeepEqual(got, def) {
		t.Error("--split dev gives the test split's task 0 database")
	}
	if r := execCLI(t, t.Context(), "replay", "--domain", "telehealth", "--task", "0", "--split", "nope", "--dump-db"); r.code != ExitError || !strings.Contains(r.errOut, `unknown split "nope"`) {
		t.Errorf("--split nope: exit %d, %q; want the unknown split named", r.code, r.errOut)
	}
}

// TestReplayUnknownTool: a --calls entry naming no tool of its requestor
// is an error naming it, not a call skipped in silence.
func TestReplayUnknownTool(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	for _, tc := range []struct {
		name  string
		calls []map[string]any
		want  string
	}{
		{"typo", []map[string]any{{"name": "cancel_reservaton", "arguments": map[string]any{"reservation_id": "EHGLP3"}}}, `call 0: unknown tool "cancel_reservaton" for the assistant`},
		{"user side", []map[string]any{{"name": "get_user_details", "arguments": map[string]any{"user_id": "x"}, "requestor": "user"}}, `unknown tool "get_user_details": airline has no user tools`},
		{"bad requestor", []map[string]any{{"name": "get_user_details", "arguments": map[string]any{}, "requestor": "judge"}}, `requestor "judge": want assistant or user`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := execCLI(t, t.Context(), "replay", "--domain", "airline", "--task", "0", "--dump-db", "--calls", writeJSON(t, tc.calls))
			if r.code != ExitError || !strings.Contains(r.errOut, tc.want) || r.out != "" {
				t.Errorf("exit %d, stdout %.80q, stderr %q; want exit 1 and %q", r.code, r.out, r.errOut, tc.want)
			}
		})
	}
}

// TestReplayBackboneTaskDrift runs on replay:FILE of an exported run, as
// exported and with one embedded task's gold actions changed: only the
// second warns, naming the task and the field.
func TestReplayBackboneTaskDrift(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	mustRun(t, "run", "--domain", "airline", "--backbone", "gold", "--no-judge", "--task-ids", "1,4", "--trials", "1", "--out", run, "--quiet")
	file := filepath.Join(dir, "run.json")
	mustRun(t, "export", "--format", "tau2", run, file)
	replay := func(f string) string {
		r := mustRun(t, "run", "--domain", "airline", "--backbone", "replay:"+f, "--no-judge", "--task-ids", "1,4", "--trials", "1", "--out", filepath.Join(t.TempDir(), "r"), "--quiet")
		return r.errOut
	}
	if errOut := replay(file); strings.Contains(errOut, "differ") {
		t.Errorf("replay of an unchanged export warns: %q", errOut)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, raw := range f["tasks"].([]any) {
		task := raw.(map[string]any)
		if task["id"] == "4" {
			ec := task["evaluation_criteria"].(map[string]any)
			ec["actions"] = ec["actions"].([]any)[:1]
		}
	}
	changed := filepath.Join(dir, "changed.json")
	b, _ = json.Marshal(f)
	if err := os.WriteFile(changed, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if errOut := replay(changed); !strings.Contains(errOut, "1 task (4) differs in evaluation_criteria from the pinned ones") {
		t.Errorf("replay of a file with a changed task: stderr %q; want a warning naming task 4", errOut)
	}
	if r := mustRun(t, "rescore", changed); !strings.Contains(r.errOut, "1 task (4) differs in evaluation_criteria from the pinned ones; scored against the file's") {
		t.Errorf("rescore of a file with a changed task: stderr %q; want the same warning", r.errOut)
	}
	if r := mustRun(t, "rescore", file); strings.Contains(r.errOut, "differ") {
		t.Errorf("rescore of an unchanged export warns: %q", r.errOut)
	}
}
