package tauv1

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

// Split is one of a domain's task lists. Name is the split's name in
// ledgerbench; File the task file in the domain folder (tasks_<split>.py);
// List the TASKS_* name read from it ("" for the one upstream's environment
// imports, ImportName of the split).
type Split struct {
	Name, File, List string
}

// Splits are the splits a domain offers: the lists upstream's environment
// loads (task_split test, dev, train) plus any offered under a name that
// says what they are. Unavailable lists the splits upstream names but cannot
// load, with the reason (tasks.Set.Unavailable).
type Splits struct {
	Default     string
	Lists       []Split
	Unavailable map[string]string
}

// StandardSplits are upstream's three splits, each read from
// tasks_<split>.py under the name upstream imports; test is the default.
func StandardSplits() Splits {
	s := Splits{Default: "test"}
	for _, n := range []string{"test", "dev", "train"} {
		s.Lists = append(s.Lists, Split{Name: n, File: "tasks_" + n + ".py"})
	}
	return s
}

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

// TaskMeta returns a τ-Trait task's upstream metadata (the simulated user's
// user_id among it).
func TaskMeta(t *tasks.Task) (Meta, error) {
	var m Meta
	if len(t.Annotations) == 0 {
		return m, errors.New("tauv1: task has no annotations")
	}
	if err := json.Unmarshal(t.Annotations, &m); err != nil {
		return m, fmt.Errorf("tauv1: task %s annotations: %w", t.ID, err)
	}
	return m, nil
}

// LoadTasks reads a domain's task files from dir (upstream's domain folder)
// and maps them onto the task model. Task IDs are the index within the split
// ("0".."19"), so each split is its own list (Set.Extra); the default
// split's is also the main list. label names the domain in task notes
// ("τ-Trait telehealth"). A file that fails to read or convert is an error
// naming the file (and the task); nothing is returned then.
func LoadTasks(domain, label, dir string, sp Splits) (*tasks.Set, error) {
	set := &tasks.Set{Domain: domain, DefaultSplit: sp.Default, Extra: map[string][]tasks.Task{}, Unavailable: sp.Unavailable}
	for _, s := range sp.Lists {
		path := filepath.Join(dir, s.File)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: read tasks: %w", domain, err)
		}
		ts, err := parseTasks(path, s.List, label, s.Name, src)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", domain, err)
		}
		set.Extra[s.Name] = ts
	}
	set.Tasks = set.Extra[sp.Default]
	return set, nil
}

// parseTasks converts one task file and maps its tasks.
func parseTasks(path, list, label, split string, src []byte) ([]tasks.Task, error) {
	js, err := ConvertList(path, src, list)
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
		t, err := mapTask(label, split, i, ut)
		if err != nil {
			return nil, &tasks.Error{File: path, TaskID: strconv.Itoa(i), Err: err}
		}
		out[i] = t
	}
	return out, nil
}

func mapTask(label, split string, i int, ut upstreamTask) (tasks.Task, error) {
	id := strconv.Itoa(i)
	meta, err := json.Marshal(Meta{Source: "tau-trait", Split: split, Index: i, UserID: ut.UserID, Annotator: ut.Annotator})
	if err != nil {
		return tasks.Task{}, err
	}
	notes := label + " " + split + " task " + id + "; simulated user " + ut.UserID
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
