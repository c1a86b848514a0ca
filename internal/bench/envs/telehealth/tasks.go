package telehealth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// splits are τ-Trait's telehealth task splits; test is the default.
func splits() []string { return []string{"test", "dev", "train"} }

// upstreamTask is a converted Task(...): τ-Bench v1's task model plus the
// annotator keyword the pydantic model drops.
type upstreamTask struct {
	Annotator   string   `json:"annotator"`
	UserID      string   `json:"user_id"`
	Instruction string   `json:"instruction"`
	Actions     []action `json:"actions"`
	Outputs     []string `json:"outputs"`
}

type action struct {
	Name   string          `json:"name"`
	Kwargs json.RawMessage `json:"kwargs"`
}

// Meta is what a τ-Trait task carries beyond the τ² task model. It is
// stored in Task.Annotations; TaskMeta reads it back.
type Meta struct {
	Source    string `json:"source"` // "tau-trait"
	Split     string `json:"split"`
	Index     int    `json:"index"`
	UserID    string `json:"user_id"`
	Annotator string `json:"annotator"`
}

// TaskMeta returns a telehealth task's upstream metadata (the simulated
// user's user_id among it).
func TaskMeta(t *tasks.Task) (Meta, error) {
	var m Meta
	if len(t.Annotations) == 0 {
		return m, errors.New("telehealth: task has no annotations")
	}
	if err := json.Unmarshal(t.Annotations, &m); err != nil {
		return m, fmt.Errorf("telehealth: task %s annotations: %w", t.ID, err)
	}
	return m, nil
}

// LoadTasks reads tasks_test.py, tasks_dev.py and tasks_train.py from dir
// (upstream's telehealth folder) and maps them onto the task model. Task IDs
// are the index within the split ("0".."19" for test), so each split is its
// own list (Set.Extra); the default split is test.
func LoadTasks(dir string) (*tasks.Set, error) {
	set := &tasks.Set{Domain: "telehealth", DefaultSplit: "test", Extra: map[string][]tasks.Task{}}
	for _, split := range splits() {
		path := filepath.Join(dir, "tasks_"+split+".py")
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("telehealth: read tasks: %w", err)
		}
		ts, err := parseTasks(path, split, src)
		if err != nil {
			return nil, err
		}
		set.Extra[split] = ts
	}
	set.Tasks = set.Extra["test"]
	return set, nil
}

// parseTasks converts one task file and maps its tasks.
func parseTasks(path, split string, src []byte) ([]tasks.Task, error) {
	js, err := ConvertTasks(path, src)
	if err != nil {
		return nil, err
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([]tasks.Task, len(raw))
	for i, r := range raw {
		var ut upstreamTask
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ut); err != nil {
			return nil, &tasks.Error{File: path, TaskID: strconv.Itoa(i), Err: err}
		}
		t, err := mapTask(split, i, ut)
		if err != nil {
			return nil, &tasks.Error{File: path, TaskID: strconv.Itoa(i), Err: err}
		}
		out[i] = t
	}
	return out, nil
}

func mapTask(split string, i int, ut upstreamTask) (tasks.Task, error) {
	id := strconv.Itoa(i)
	meta, err := json.Marshal(Meta{Source: "tau-trait", Split: split, Index: i, UserID: ut.UserID, Annotator: ut.Annotator})
	if err != nil {
		return tasks.Task{}, err
	}
	notes := "τ-Trait telehealth " + split + " task " + id + "; simulated user " + ut.UserID
	acts := make([]tasks.Action, len(ut.Actions))
	for j, a := range ut.Actions {
		if a.Name == "" {
			return tasks.Task{}, fmt.Errorf("action %d has no name", j)
		}
		var args bytes.Buffer
		if err := json.Compact(&args, a.Kwargs); err != nil {
			return tasks.Task{}, fmt.Errorf("action %d kwargs: %w", j, err)
		}
		if args.Len() == 0 || args.Bytes()[0] != '{' {
			return tasks.Task{}, fmt.Errorf("action %d kwargs: not a dict", j)
		}
		acts[j] = tasks.Action{
			ActionID:  id + "_" + strconv.Itoa(j),
			Requestor: "assistant",
			Name:      a.Name,
			Arguments: json.RawMessage(args.Bytes()),
		}
	}
	outputs := ut.Outputs
	if outputs == nil {
		outputs = []string{}
	}
	return tasks.Task{
		ID:           id,
		Description:  &tasks.Description{Notes: &notes},
		UserScenario: tasks.UserScenario{Instructions: tasks.Instructions{Text: ut.Instruction}},
		EvaluationCriteria: &tasks.EvaluationCriteria{
			Actions:         acts,
			CommunicateInfo: outputs,
			RewardBasis:     []tasks.RewardType{tasks.RewardDB, tasks.RewardCommunicate},
		},
		Annotations: meta,
	}, nil
}
