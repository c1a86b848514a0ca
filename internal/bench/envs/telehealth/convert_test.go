package telehealth

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// TestConvertTasks reproduces the reference conversions byte for byte.
func TestConvertTasks(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	for _, split := range []string{"test", "dev", "train"} {
		t.Run(split, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(data.Telehealth(root), "tasks_"+split+".py"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(root, "tau-trait", "derived", "telehealth", "tasks_"+split+".json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ConvertTasks("tasks_"+split+".py", src)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
				for i := range min(len(gl), len(wl)) {
					if gl[i] != wl[i] {
						t.Fatalf("line %d:\n got: %q\nwant: %q", i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("got %d lines; want %d", len(gl), len(wl))
			}
		})
	}
}

func TestConvertTasksErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, file, src, want string }{
		{"no list", "tasks_test.py", "x = 1\n", "no TASKS_TEST = [...] assignment"},
		{"wrong name", "tasks_dev.py", "TASKS_TEST = []\n", "defines TASKS_TEST, not TASKS_DEV"},
		{"not a list", "t.py", "TASKS_X = {}\n", "TASKS_X is not a list"},
		{"not a Task", "t.py", "TASKS_X = [1]\n", "TASKS_X[0] is not a Task(...) call"},
		{"positional", "t.py", "TASKS_X = [Task(1)]\n", "line 1, column 12: Task(...) with positional arguments"},
		{"other call", "t.py", "TASKS_X = [Task(a=dict(b=1))]\n", "line 1, column 19: call of dict"},
		{"syntax", "t.py", "TASKS_X = [Task(a=1 b=2)]\n", "t.py: line 1, column 21: expected ',' or a closing bracket"},
		{"expression", "t.py", "TASKS_X = [Task(a=1 + 2)]\n", `t.py: line 1, column 21`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ConvertTasks(c.file, []byte(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ConvertTasks error = %v; want it to contain %q", err, c.want)
			}
		})
	}
	// Tuples become lists; dotted names, comments and other statements are fine.
	got, err := ConvertTasks("x.py", []byte("import t\n# c\nTASKS_X = [t.Task(k=(1, 2.50), s='a' \"b\")]  # end\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "[\n  {\n    \"k\": [\n      1,\n      2.5\n    ],\n    \"s\": \"ab\"\n  }\n]\n"; string(got) != want {
		t.Errorf("ConvertTasks = %q; want %q", got, want)
	}
}

func TestLoadTasksMapping(t *testing.T) {
	t.Parallel()
	set := loadDomain(t).Tasks()
	if set.DefaultSplit != "test" || strings.Join(set.SplitNames(), ",") != "dev,test,train" {
		t.Errorf("default %q, splits %v", set.DefaultSplit, set.SplitNames())
	}
	sel, err := set.Select(tasksSelection("", nil))
	if err != nil || len(sel) != 20 || sel[19].ID != "19" {
		t.Fatalf("default selection: %d tasks, %v", len(sel), err)
	}
	dev, err := set.Select(tasksSelection("dev", nil))
	if err != nil || len(dev) != 1 || dev[0].ID != "0" {
		t.Fatalf("dev selection: %v", err)
	}
	task := sel[3]
	meta, err := TaskMeta(&task)
	if err != nil {
		t.Fatal(err)
	}
	if meta != (Meta{Source: "tau-trait", Split: "test", Index: 3, UserID: "mira_desai_3471", Annotator: "3"}) {
		t.Errorf("TaskMeta = %+v", meta)
	}
	if task.UserScenario.Persona != nil || !strings.HasPrefix(task.UserScenario.Instructions.Text, "\n        Your user id is mira_desai_3471") {
		t.Errorf("instructions %.60q", task.UserScenario.Instructions.Text)
	}
	c := task.EvaluationCriteria
	if len(c.Actions) != 5 || c.Actions[4].ActionID != "3_4" || c.Actions[4].Requestor != "assistant" || c.Actions[4].Name != "schedule_appointment" {
		t.Errorf("actions %+v", c.Actions)
	}
	var args map[string]any
	if err := json.Unmarshal(c.Actions[4].Arguments, &args); err != nil || args["bill_insurance"] != false || args["voucher_id"] != "THV-224" {
		t.Errorf("arguments %s (%v)", c.Actions[4].Arguments, err)
	}
	if len(c.CommunicateInfo) != 0 || c.CommunicateInfo == nil || !c.HasBasis("DB") || !c.HasBasis("COMMUNICATE") || len(c.RewardBasis) != 2 {
		t.Errorf("criteria %+v", c)
	}
	// The stray `",` in the train instruction is kept verbatim.
	train, _ := set.Select(tasksSelection("train", nil))
	if !strings.Contains(train[0].UserScenario.Instructions.Text, `feeling better.",`) {
		t.Errorf("train instruction %q", train[0].UserScenario.Instructions.Text)
	}
	// Tasks round-trip through the τ² task file format.
	raw, err := json.Marshal(sel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseTau2(raw); err != nil {
		t.Errorf("mapped tasks do not parse as τ² tasks: %v", err)
	}
}

func BenchmarkConvertTasks(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(data.Telehealth(datatest.Root(b)), "tasks_test.py"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ConvertTasks("tasks_test.py", src); err != nil {
			b.Fatal(err)
		}
	}
}

func tasksSelection(split string, ids []string) tasks.Selection {
	return tasks.Selection{Split: split, TaskIDs: ids}
}

func parseTau2(raw []byte) ([]tasks.Task, error) { return tasks.Parse("mapped.json", raw) }
