package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
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
	t.Parallel()
	root := datatest.Root(t)
	dom, err := domains.Load("retail", root)
	if err != nil {
		t.Fatal(err)
	}
	task, err := findTask(dom.Tasks(), "0")
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
