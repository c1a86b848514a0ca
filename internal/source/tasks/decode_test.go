package tasks

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// checkFast asserts the fast path's contract on one task: when it decodes,
// strictDecode decodes the same task; when it gives up, it says errSlow.
// It reports whether the fast path decoded.
func checkFast(t *testing.T, raw []byte) bool {
	t.Helper()
	got, err := decodeFast(raw)
	if err != nil {
		if !errors.Is(err, errSlow) {
			t.Fatalf("decodeFast(%s): error %v, not errSlow", raw, err)
		}
		return false
	}
	var want Task
	if err := strictDecode(raw, &want); err != nil {
		t.Fatalf("decodeFast accepted %s, which strictDecode rejects: %v", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeFast(%s) =\n%#v\nstrictDecode gives\n%#v", raw, got, want)
	}
	return true
}

// TestDecodeFastEdgeCases: the fast path decodes the forms upstream writes
// exactly as encoding/json does, and gives up on what it does not mirror.
func TestDecodeFastEdgeCases(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		json string
		fast bool
	}{
		{"minimal", `{"id": "a", "user_scenario": {"instructions": "x"}}`, true},
		{"nulls", `{"id": "a", "description": null, "ticket": null, "initial_state": null, "evaluation_criteria": null, "issues": null, "annotations": null, "required_documents": null, "user_tools": null, "user_scenario": {"persona": null, "instructions": "x"}}`, true},
		{"empty lists", `{"id": "a", "user_scenario": {"instructions": "x"}, "user_tools": [], "evaluation_criteria": {"actions": [], "env_assertions": [], "communicate_info": [], "nl_assertions": [], "reward_basis": []}}`, true},
		{"full", `{"id": "a\u00e9", "description": {"purpose": "p", "relevant_policies": null, "notes": "n"}, "user_scenario": {"persona": "calm", "instructions": {"domain": "d", "reason_for_call": "r\n", "known_info": null, "unknown_info": "u", "task_instructions": "t"}}, "ticket": "tk",
			"initial_state": {"initialization_data": {"agent_data": {"x": [1, 2.50]}, "user_data": null}, "initialization_actions": [{"env_type": "user", "func_name": "f", "arguments": {"a": 1e3}}], "message_history": [{"role": "user"}, null]},
			"evaluation_criteria": {"actions": [{"action_id": "1", "requestor": "user", "name": "n", "arguments": { "k" : "v" }, "info": null, "compare_args": []}, {"action_id": "2", "name": "m", "arguments": {}, "compare_args": ["k"]}],
				"env_assertions": [{"env_type": "user", "func_name": "g", "arguments": {}, "assert_value": false, "message": "m"}, {"env_type": "assistant", "func_name": "h", "arguments": null, "assert_value": null, "message": null}],
				"communicate_info": ["c"], "nl_assertions": ["n"], "reward_basis": ["DB", "ACTION"]}, "issues": [1, {"a": true}], "required_documents": ["d"], "user_tools": ["u"], "annotations": {"k": "v"}}`, true},
		{"whitespace", " {\n\t\"id\" : \"a\" ,\r\n\"user_scenario\":{\"instructions\":\"x\"} } ", false},
		{"other case", `{"ID": "a", "user_scenario": {"instructions": "x"}}`, false},
		{"repeated key", `{"id": "a", "id": "b", "user_scenario": {"instructions": "x"}}`, false},
		{"repeated nested key", `{"id": "a", "user_scenario": {"instructions": "x", "instructions": "y"}}`, false},
		{"unknown key", `{"id": "a", "user_scenario": {"instructions": "x"}, "bogus": 1}`, false},
		{"unknown description key", `{"id": "a", "description": {"purpose": "p", "extra": 1}, "user_scenario": {"instructions": "x"}}`, false},
		{"null string", `{"id": null, "user_scenario": {"instructions": "x"}}`, false},
		{"null instructions", `{"id": "a", "user_scenario": {"instructions": null}}`, false},
		{"number for string", `{"id": 1, "user_scenario": {"instructions": "x"}}`, false},
		{"bad literal", `{"id": "a", "user_scenario": {"instructions": "x"}, "evaluation_criteria": {"env_assertions": [{"env_type": "user", "func_name": "g", "arguments": {}, "assert_value": tru}]}}`, false},
		{"bad raw", `{"id": "a", "user_scenario": {"instructions": "x"}, "issues": [1,]}`, false},
		{"bad escape", `{"id": "a\q", "user_scenario": {"instructions": "x"}}`, false},
		{"control byte", "{\"id\": \"a\x01\", \"user_scenario\": {\"instructions\": \"x\"}}", false},
		{"invalid utf-8", "{\"id\": \"a\xff\", \"user_scenario\": {\"instructions\": \"x\"}}", true},
		{"not an object", `["id"]`, false},
		{"trailing", `{"id": "a", "user_scenario": {"instructions": "x"}} {}`, false},
		{"truncated", `{"id": "a", "user_scenario": {"instructions": "x"}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if fast := checkFast(t, []byte(tc.json)); fast != tc.fast {
				t.Errorf("fast path used: %v, want %v", fast, tc.fast)
			}
		})
	}
}

// TestDecodeFastUpstream: every task of every pinned tasks file takes the
// fast path and decodes as strictDecode does.
func TestDecodeFastUpstream(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	root := datatest.Root(t)
	for _, f := range []string{"airline/tasks.json", "retail/tasks.json", "telecom/tasks.json", "telecom/tasks_small.json"} {
		t.Run(f, func(t *testing.T) {
			b, err := data.ReadMapped(filepath.Join(data.Tau2Domain(root, filepath.Dir(f)), filepath.Base(f)))
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			elems, err := pyjson.Elements(b.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			for i, raw := range elems {
				if !checkFast(t, raw) {
					t.Errorf("task %d: not decoded on the fast path", i)
				}
			}
		})
	}
}

// FuzzDecodeFast: whatever the fast path decodes, strictDecode decodes to
// the same task.
func FuzzDecodeFast(f *testing.F) {
	f.Add([]byte(`{"id": "a", "user_scenario": {"persona": null, "instructions": {"domain": "d", "reason_for_call": "r", "known_info": null, "unknown_info": "u", "task_instructions": "t"}}, "evaluation_criteria": {"actions": [{"action_id": "1", "name": "n", "arguments": {"a": [1]}, "compare_args": null}], "env_assertions": [{"env_type": "user", "func_name": "g", "arguments": {}, "assert_value": true}], "reward_basis": ["DB"]}}`))
	f.Add([]byte(`{"id": "a", "initial_state": {"initialization_data": {"agent_data": {}, "user_data": null}, "initialization_actions": [], "message_history": null}, "user_scenario": {"instructions": "x"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			if _, err := decodeFast(b); err == nil {
				t.Fatalf("decodeFast accepted invalid JSON %q", b)
			}
			return
		}
		checkFast(t, b)
	})
}
