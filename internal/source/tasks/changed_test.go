package tasks

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestChanged(t *testing.T) {
	t.Parallel()
	const base = `{"id": "1", "description": {"purpose": "p"}, "user_scenario": {"instructions": {"domain": "airline", "reason_for_call": "r"}},
		"evaluation_criteria": {"actions": [{"action_id": "1_0", "name": "get_user_details", "arguments": {"user_id": "u", "x": 1}}], "reward_basis": ["DB"]}}`
	for _, tc := range []struct {
		name, other string
		want        []string
		drift       []string
	}{
		{"same", base, nil, nil},
		{"as a results file dumps it", `{"id": "1", "description": {"purpose": "p", "notes": null}, "user_scenario": {"persona": null, "instructions": {"reason_for_call": "r", "domain": "airline"}},
			"evaluation_criteria": {"actions": [{"action_id": "1_0", "requestor": "assistant", "name": "get_user_details", "arguments": {"x": 1, "user_id": "u"}, "info": null, "compare_args": null}], "env_assertions": null, "reward_basis": ["DB"]}, "issues": null}`, nil, nil},
		{"other arguments", `{"id": "1", "description": {"purpose": "p"}, "user_scenario": {"instructions": {"domain": "airline", "reason_for_call": "r"}},
			"evaluation_criteria": {"actions": [{"action_id": "1_0", "name": "get_user_details", "arguments": {"user_id": "v", "x": 1}}], "reward_basis": ["DB"]}}`, []string{"evaluation_criteria"}, []string{"evaluation_criteria"}},
		{"other purpose and instructions", `{"id": "1", "description": {"purpose": "q"}, "user_scenario": {"instructions": {"domain": "airline", "reason_for_call": "s"}},
			"evaluation_criteria": {"actions": [{"action_id": "1_0", "name": "get_user_details", "arguments": {"user_id": "u", "x": 1}}], "reward_basis": ["DB"]}}`, []string{"description", "user_scenario"}, []string{"user_scenario"}},
		{"requestor user", `{"id": "1", "description": {"purpose": "p"}, "user_scenario": {"instructions": {"domain": "airline", "reason_for_call": "r"}},
			"evaluation_criteria": {"actions": [{"action_id": "1_0", "requestor": "user", "name": "get_user_details", "arguments": {"user_id": "u", "x": 1}}], "reward_basis": ["DB"]}}`, []string{"evaluation_criteria"}, []string{"evaluation_criteria"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a, b Task
			if err := json.Unmarshal([]byte(base), &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.other), &b); err != nil {
				t.Fatal(err)
			}
			got, err := Changed(&a, &b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Changed = %v; want %v", got, tc.want)
			}
			d, err := CompareEmbedded([]Task{b}, func(id string) *Task { return &a }, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Fields, tc.drift) || (len(d.IDs) > 0) != (tc.drift != nil) {
				t.Errorf("CompareEmbedded = %+v; want fields %v", d, tc.drift)
			}
		})
	}
}
