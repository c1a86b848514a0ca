package tasks

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

func TestParseErrorsNameFileTaskField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, json string
		wants      []string
	}{
		{"not an array", `{"id": "1"}`, []string{"f.json", "not a JSON array"}},
		{"unknown field", `[{"id": "t1", "user_scenario": {"instructions": "x"}, "bogus": 1}]`, []string{"f.json", `task "t1"`, `unknown field "bogus"`}},
		{"unknown nested field", `[{"id": "t2", "user_scenario": {"instructions": "x"}, "evaluation_criteria": {"mood": "sad"}}]`, []string{`task "t2"`, `"mood"`}},
		{"wrong type", `[{"id": "t3", "user_scenario": {"instructions": "x"}, "evaluation_criteria": {"actions": "nope"}}]`, []string{`task "t3"`, "evaluation_criteria.actions"}},
		{"bad reward type", `[{"id": "t4", "user_scenario": {"instructions": "x"}, "evaluation_criteria": {"reward_basis": ["VIBES"]}}]`, []string{`task "t4"`, "reward_basis", "VIBES"}},
		{"missing id", `[{"user_scenario": {"instructions": "x"}}]`, []string{"task #0", `"id"`}},
		{"duplicate id", `[{"id": "a", "user_scenario": {"instructions": "x"}}, {"id": "a", "user_scenario": {"instructions": "x"}}]`, []string{`task "a"`, "duplicate"}},
		{"bad requestor", `[{"id": "t5", "user_scenario": {"instructions": "x"}, "evaluation_criteria": {"actions": [{"action_id": "1", "name": "n", "arguments": {}, "requestor": "bot"}]}}]`, []string{`task "t5"`, "requestor"}},
		{"arguments not object", `[{"id": "t6", "user_scenario": {"instructions": "x"}, "evaluation_criteria": {"actions": [{"action_id": "1", "name": "n", "arguments": [1]}]}}]`, []string{`task "t6"`, "arguments"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.json", []byte(tc.json))
			if err == nil {
				t.Fatal("Parse accepted a malformed file")
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
	var te *Error
	_, err := Parse("f.json", []byte(`[{"id": "x", "oops": 1, "user_scenario": {"instructions": "i"}}]`))
	if !errors.As(err, &te) || te.TaskID != `"x"` {
		t.Errorf("error is not a *tasks.Error naming the task: %#v", err)
	}
}

func TestScenarioStringMatchesUpstreamLayout(t *testing.T) {
	t.Parallel()
	known := "Order #1"
	persona := "Calm.\nPolite."
	s := UserScenario{Persona: &persona, Instructions: Instructions{Structured: &StructuredInstructions{
		Domain: "retail", ReasonForCall: "Return\n\nshoes", KnownInfo: &known, TaskInstructions: "Be brief."}}}
	want := "Persona:\n\tCalm.\n\tPolite.\nInstructions:\n\tDomain: retail\n\tReason for call:\n\t\tReturn\n\n\t\tshoes\n\tKnown info:\n\t\tOrder #1\n\tTask instructions:\n\t\tBe brief."
	if got := s.String(); got != want {
		t.Errorf("String() =\n%q\nwant\n%q", got, want)
	}
}

func TestLoadAndSelectUpstream(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	set, err := LoadTau2(data.Tau2Domain(root, "airline"), "airline")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		sel  Selection
		want int
		err  string
	}{
		{Selection{}, 50, ""},
		{Selection{Split: "test"}, 20, ""},
		{Selection{Split: "train", Limit: 5}, 5, ""},
		{Selection{TaskIDs: []string{"3", "1"}}, 2, ""},
		{Selection{Split: "nope"}, 0, `unknown split "nope"`},
		{Selection{TaskIDs: []string{"1", "999"}}, 0, "999"},
	}
	for _, tc := range cases {
		got, err := set.Select(tc.sel)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Select(%+v) error = %v; want %q", tc.sel, err, tc.err)
			}
			continue
		}
		if err != nil || len(got) != tc.want {
			t.Errorf("Select(%+v) = %d tasks, %v; want %d", tc.sel, len(got), err, tc.want)
		}
	}
	ids, _ := set.Select(Selection{TaskIDs: []string{"3", "1"}})
	if ids[0].ID != "1" || ids[1].ID != "3" {
		t.Errorf("task ids not kept in file order: %s, %s", ids[0].ID, ids[1].ID)
	}
	for _, d := range []string{"retail", "telecom"} {
		if _, err := LoadTau2(data.Tau2Domain(root, d), d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Errorf("missing file accepted")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`[{"id": "t", "user_scenario": {"instructions": "x"}, "evaluation_criteria": {"actions": [{"action_id": "1", "name": "n", "arguments": {}}], "reward_basis": ["DB"]}}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, err := Parse("fuzz.json", b)
		if err == nil {
			for _, x := range ts {
				_ = x.UserScenario.String()
			}
		}
	})
}

// TestLazyLoad: a loaded set decodes only the tasks a selection picks, so a
// broken task elsewhere in the file is reported only when it is selected
// (naming the file and task) and by All.
func TestLazyLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tasks.json", `[
		{"id": "ok1", "user_scenario": {"instructions": "a"}},
		{"id": "bad", "user_scenario": {"instructions": "b"}, "evaluation_criteria": {"reward_basis": ["VIBES"]}},
		{"user_scenario": {"instructions": "c"}, "id": "ok2"}
	]`)
	write("split_tasks.json", `{"base": ["ok1", "ok2"], "all3": ["ok1", "bad", "ok2"]}`)
	set, err := LoadTau2(dir, "d")
	if err != nil {
		t.Fatal(err)
	}
	got, err := set.Select(Selection{})
	if err != nil || len(got) != 2 || got[0].ID != "ok1" || got[1].ID != "ok2" || got[1].UserScenario.Instructions.Text != "c" {
		t.Fatalf("Select(base) = %+v, %v; want ok1, ok2", got, err)
	}
	for _, sel := range []Selection{{Split: "all3"}, {Split: "all"}, {Split: "all", TaskIDs: []string{"bad"}}} {
		_, err := set.Select(sel)
		var te *Error
		if !errors.As(err, &te) || te.TaskID != `"bad"` || !strings.Contains(err.Error(), "VIBES") || !strings.Contains(err.Error(), "tasks.json") {
			t.Errorf("Select(%+v) error = %v; want the bad task's error", sel, err)
		}
	}
	if got, err := set.Select(Selection{Split: "all", Limit: 1}); err != nil || len(got) != 1 {
		t.Errorf("Select(all, limit 1) = %d tasks, %v; want the first task only", len(got), err)
	}
	if _, err := set.All(); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("All() error = %v; want the bad task's", err)
	}
	for _, tc := range []struct{ name, body, want string }{
		{"duplicate", `[{"id": "a", "user_scenario": {"instructions": "x"}}, {"id": "a"}]`, "duplicate"},
		{"missing id", `[{"user_scenario": {"instructions": "x"}}]`, "#0"},
		{"not an array", `{"id": "a"}`, "not a JSON array"},
		{"truncated", `[{"id": "a", "user_scenario": {"instructions": "x"}}`, "not a JSON array"},
	} {
		write("tasks.json", tc.body)
		if _, err := LoadTau2(dir, "d"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: LoadTau2 error = %v; want %q", tc.name, err, tc.want)
		}
	}
}

// TestLazyMatchesParse: every upstream tasks file gives the same tasks read
// lazily as decoded in full.
func TestLazyMatchesParse(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	root := datatest.Root(t)
	for _, d := range []string{"airline", "retail", "telecom"} {
		dir := data.Tau2Domain(root, d)
		set, err := LoadTau2(dir, d)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "tasks.json"))
		if err != nil {
			t.Fatal(err)
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(b, &raws); err != nil {
			t.Fatal(err)
		}
		base, err := set.Select(Selection{})
		if err != nil {
			t.Fatal(err)
		}
		all, err := set.All()
		if err != nil || len(all) != len(raws) {
			t.Fatalf("%s: All() = %d tasks, %v; want %d", d, len(all), err, len(raws))
		}
		byID := map[string]Task{}
		for i, raw := range raws {
			var want Task
			if err := strictDecode(raw, &want); err != nil {
				t.Fatal(err)
			}
			byID[want.ID] = want
			if !reflect.DeepEqual(all[i], want) {
				t.Fatalf("%s task %d: lazy and full decoding differ", d, i)
			}
		}
		for _, tk := range base {
			if !reflect.DeepEqual(tk, byID[tk.ID]) {
				t.Errorf("%s: selected task %s differs", d, tk.ID)
			}
		}
	}
}

// BenchmarkLoadTau2 loads each domain's tasks and decodes the base split.
func BenchmarkLoadTau2(b *testing.B) {
	root := datatest.Root(b)
	for _, d := range []string{"airline", "retail", "telecom"} {
		b.Run(d+"/base", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				set, err := LoadTau2(data.Tau2Domain(root, d), d)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := set.Select(Selection{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestParseSplitsMatchesEncodingJSON compares the scanner-based split
// decoder with encoding/json on each domain's split file and on edge cases.
func TestParseSplitsMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"empty":      `{}`,
		"null":       `null`,
		"null list":  `{"a": null}`,
		"empty list": `{"a": []}`,
		"escapes":    `{"b\u00e9": ["x\"y", "\u00e9"]}`,
		"duplicate":  `{"a": ["1"], "a": ["2"]}`,
		"not string": `{"a": [1]}`,
		"not list":   `{"a": "x"}`,
		"not object": `[]`,
		"bad string": `{"a": ["\x01"]}`,
		"unbalanced": `{"a": ["x"]`,
		"trailing":   `{"a": ["x"]} x`,
		"whitespace": " \n{ \"a\" :\t[ \"x\" , \"y\" ] }\n",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			var want Splits
			wantErr := json.Unmarshal([]byte(in), &want)
			got, err := parseSplits([]byte(in))
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("error %v, encoding/json's %v", err, wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("got %v, encoding/json %v", got, want)
			}
		})
	}
	for _, d := range []string{"airline", "retail", "telecom"} {
		t.Run(d, func(t *testing.T) {
			in := datatest.Tau2File(t, d, "split_tasks.json")
			var want Splits
			if err := json.Unmarshal(in, &want); err != nil {
				t.Fatal(err)
			}
			got, err := parseSplits(in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Error("split lists differ from encoding/json's")
			}
		})
	}
}

// TestSelectUnavailable: a split upstream cannot load is refused with its
// reason, not listed among the splits, and leaves the others selectable.
func TestSelectUnavailable(t *testing.T) {
	t.Parallel()
	set := &Set{Domain: "d", DefaultSplit: "test",
		Extra:       map[string][]Task{"test": {{ID: "0"}}, "dev-misnamed": {{ID: "0"}, {ID: "1"}}},
		Unavailable: map[string]string{"dev": "tasks_dev.py defines TASKS_TEST"}}
	if _, err := set.Select(Selection{Split: "dev"}); err == nil || !strings.Contains(err.Error(), `d: split "dev" is not offered: tasks_dev.py defines TASKS_TEST`) {
		t.Errorf("dev: %v", err)
	}
	if got := strings.Join(set.SplitNames(), ","); got != "dev-misnamed,test" {
		t.Errorf("SplitNames = %s", got)
	}
	if got, err := set.Select(Selection{Split: "dev-misnamed"}); err != nil || len(got) != 2 {
		t.Errorf("dev-misnamed: %d tasks, %v", len(got), err)
	}
}

// TestIgnoredKeys: upstream's pydantic models ignore keys they do not know
// in the user scenario and the initialization data (banking_knowledge's
// task_091 misspells persona; tasks 058 and 059 put their data beside
// agent_data), in both decoders.
func TestIgnoredKeys(t *testing.T) {
	t.Parallel()
	raw := `[{"id": "t", "user_scenario": {"persoca": "calm", "instructions": "x"},
		"initial_state": {"initialization_data": {"users": {"u": {}}, "agent_data": {"a": 1}}}}]`
	ts, err := Parse("f.json", []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if p := ts[0].UserScenario.Persona; p != nil {
		t.Errorf("persona %q; want none", *p)
	}
	if got := string(ts[0].InitialState.InitializationData.AgentData); got != `{"a": 1}` {
		t.Errorf("agent_data %s", got)
	}
	var slow Task
	if err := json.Unmarshal([]byte(raw[1:len(raw)-1]), &slow); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(slow, ts[0]) {
		t.Errorf("encoding/json %+v; fast %+v", slow, ts[0])
	}
}
