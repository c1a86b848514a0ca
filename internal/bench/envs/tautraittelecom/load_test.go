package tautraittelecom

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// copyEnv copies the pulled telecom folder into a new data directory.
func copyEnv(t *testing.T) (root, dir string) {
	t.Helper()
	src := data.TauTraitEnv(datatest.Root(t), UpstreamEnv)
	root = t.TempDir()
	dir = data.TauTraitEnv(root, UpstreamEnv)
	err := filepath.WalkDir(src, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if de.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root, dir
}

// TestLoadErrors: bad or missing files are errors naming the file and the
// item, and nothing is returned.
func TestLoadErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(dir string) error
		want   []string
	}{
		{"task that does not convert", func(dir string) error {
			p := filepath.Join(dir, "tasks_test.py")
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			// The fourth Task(...) call of the list becomes another call.
			parts := strings.SplitN(string(b), "    Task(", 5)
			return os.WriteFile(p, []byte(strings.Join(parts[:4], "    Task(")+"    Tusk("+parts[4]), 0o644)
		}, []string{"tasks_test.py", "TASKS_TEST[3]"}},
		{"missing tool module", func(dir string) error { return os.Remove(filepath.Join(dir, "tools", "add_device.py")) },
			[]string{"add_device"}},
		{"missing data file", func(dir string) error { return os.Remove(filepath.Join(dir, "data", "billing.json")) },
			[]string{"billing.json"}},
		{"record that is not a dict", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "data", "services.json"), []byte(`{"tv_basic": [1, 2]}`), 0o644)
		}, []string{"services.json", "tv_basic"}},
		{"troubleshooting answers moved", func(dir string) error {
			p := filepath.Join(dir, "tools", "troubleshoot_device.py")
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(p, []byte(strings.Replace(string(b), `return """Unknown issue"""`, `pass`, 1)), 0o644)
		}, []string{"troubleshoot_device.py", "TroubleshootDevice.invoke", "return strings"}},
		{"rules not a string", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "rules.py"), []byte("RULES = 3\n"), 0o644)
		}, []string{"rules.py", "RULES"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, dir := copyEnv(t)
			if err := tc.change(dir); err != nil {
				t.Fatal(err)
			}
			d, err := Load(root)
			if err == nil || d != nil {
				t.Fatalf("Load = %v, %v; want an error", d, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// FuzzToolArgs calls every tool with arbitrary arguments: a tool answers or
// fails with an exception text, never panics, and leaves the shared data
// as it was loaded.
func FuzzToolArgs(f *testing.F) {
	d := loadDomain(f)
	names := make([]string, 0, 18)
	for _, ti := range d.AgentTools() {
		names = append(names, ti.Name)
	}
	for _, seed := range []string{`{"customer_id": "lisa_chen_3456", "action": "add", "service_id": "tv_basic", "devices_ids": ["2", "9"]}`,
		`{"customer_id": "robert_wilson_7890", "action": "remove", "service_id": "internet_fiber_1gb"}`,
		`{"customer_id": "lisa_chen_3456", "amount": "1e400", "method": [1], "date": null}`,
		`{"device_name": "HD Cable Box", "issue": "slow_speeds"}`, `{"phone": ["5", 5]}`, `[]`, `{"data": 1}`} {
		for i := range names {
			f.Add(i, seed)
		}
	}
	before := dump(d.Env())
	f.Fuzz(func(t *testing.T, i int, args string) {
		if i < 0 {
			i = -i
		}
		env := d.NewEnv()
		for range 2 { // twice: the second call sees the first one's changes
			envs.Respond(context.Background(), env, message.ToolCall{ID: "f", Name: names[i%len(names)], Arguments: json.RawMessage(args)})
		}
		if after := dump(d.Env()); after != before {
			t.Fatalf("%s %s changed the shared data", names[i%len(names)], args)
		}
	})
}

// BenchmarkEpisode is the environment side of one gold episode: a fresh
// state, every gold call of a task with writes (test 8: two service
// changes), and the database comparison with a gold replay.
func BenchmarkEpisode(b *testing.B) {
	d := loadDomain(b)
	task := &d.Tasks().Extra["test"][8]
	gold := d.NewEnv()
	for _, a := range task.GoldActions() {
		envs.Respond(context.Background(), gold, message.ToolCall{Name: a.Name, Arguments: a.Arguments})
	}
	b.ReportAllocs()
	for b.Loop() {
		env := d.NewEnv()
		for _, a := range task.GoldActions() {
			envs.Respond(context.Background(), env, message.ToolCall{Name: a.Name, Arguments: a.Arguments})
		}
		if same, _ := env.SameDB(gold); !same {
			b.Fatal("the replay differs from the gold state")
		}
	}
}
