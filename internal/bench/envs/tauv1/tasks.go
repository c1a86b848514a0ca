package tauv1

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Split is one task split an upstream environment can load: its env.py
// imports the list Symbol from File (`from ….tasks_test import TASKS as
// tasks`). Only these are offered: the older tasks.py beside them is never
// imported.
type Split struct {
	Name   string // "test", "dev", "train"
	File   string // "tasks_test.py"
	Symbol string // "TASKS" or "TASKS_TEST"
}

// Meta is what a v1 task carries beyond the τ² task model. It is stored in
// Task.Annotations; TaskMeta reads it back.
type Meta struct {
	Source    string `json:"source"` // "tau-trait" or "tau-bench"
	Split     string `json:"split"`
	Index     int    `json:"index"`
	UserID    string `json:"user_id"`
	Annotator any    `json:"annotator,omitempty"`
}

// TaskMeta returns a v1 task's upstream metadata (the simulated user's
// user_id among it).
func TaskMeta(t *tasks.Task) (Meta, error) {
	var m Meta
	if len(t.Annotations) == 0 {
		return m, fmt.Errorf("task %s has no annotations", t.ID)
	}
	if err := json.Unmarshal(t.Annotations, &m); err != nil {
		return m, fmt.Errorf("task %s annotations: %w", t.ID, err)
	}
	return m, nil
}

// LoadTasks reads an environment's task splits from dir (the environment's
// folder) and maps them onto the task model: IDs are the index within the
// split ("0".."49"), each split is its own list (Set.Extra), the first split
// is the default. domain names the set; label (e.g. "τ-Trait airline") goes
// into each task's notes; source into its metadata. A file that is missing
// or does not convert is an error naming the file (and the task).
func LoadTasks(dir, domain, label, source string, splits []Split) (*tasks.Set, error) {
	set := &tasks.Set{Domain: domain, DefaultSplit: splits[0].Name, Extra: map[string][]tasks.Task{}}
	for _, sp := range splits {
		path := filepath.Join(dir, sp.File)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read tasks: %w", err)
		}
		list, err := taskList(path, src, sp.Symbol)
		if err != nil {
			return nil, err
		}
		ts := make([]tasks.Task, len(list))
		for i, v := range list {
			t, err := mapTask(label, source, sp.Name, i, v)
			if err != nil {
				return nil, &tasks.Error{File: path, TaskID: strconv.Itoa(i), Err: err}
			}
			ts[i] = t
		}
		set.Extra[sp.Name] = ts
	}
	set.Tasks = set.Extra[splits[0].Name]
	return set, nil
}

// ConvertTasks turns an upstream task list into JSON: the list assigned to
// symbol (any TASKS* name when symbol is empty), each Task(...) and Action(...) call written as an object of its
// keyword arguments in source order, as json.dump(tasks, indent=2,
// ensure_ascii=False) plus a newline writes it. file names the source in
// errors.
func ConvertTasks(file string, src []byte, symbol string) ([]byte, error) {
	list, err := taskList(file, src, symbol)
	if err != nil {
		return nil, err
	}
	b, err := pyjson.MarshalOptions(list, pyjson.Options{Indent: 2, UnicodeOK: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return append(b, '\n'), nil
}

// taskList parses the file's task list into plain values (*pyjson.Dict,
// []any, string, json.Number, float64, bool, nil). The file must assign
// exactly one TASKS* list, and it must be symbol (what upstream imports).
func taskList(file string, src []byte, symbol string) ([]any, error) {
	a, err := pyliteral.Assignment(src, func(name string) bool { return strings.HasPrefix(name, "TASKS") })
	if err != nil {
		if errors.Is(err, pyliteral.ErrNoAssignment) {
			want := symbol
			if want == "" {
				want = "TASKS_*"
			}
			return nil, fmt.Errorf("%s: no %s = [...] assignment", file, want)
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if symbol != "" && a.Name != symbol {
		return nil, fmt.Errorf("%s: defines %s, not %s (upstream's import would fail)", file, a.Name, symbol)
	}
	list, ok := a.Value.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: line %d: %s is not a list", file, a.Line, a.Name)
	}
	out := make([]any, len(list))
	for i, v := range list {
		c, ok := v.(*pyliteral.Call)
		if !ok || !isCall(c, "Task") {
			return nil, fmt.Errorf("%s: %s[%d] is not a Task(...) call", file, a.Name, i)
		}
		if out[i], err = plain(file, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func isCall(c *pyliteral.Call, name string) bool {
	return c.Func == name || strings.HasSuffix(c.Func, "."+name)
}

// plain converts a literal to JSON-ready values: Task and Action calls
// become objects of their keyword arguments, tuples become lists.
func plain(file string, v any) (any, error) {
	switch x := v.(type) {
	case *pyliteral.Call:
		if !isCall(x, "Task") && !isCall(x, "Action") {
			return nil, fmt.Errorf("%s: line %d, column %d: call of %s (only Task and Action are supported)", file, x.Line, x.Col, x.Func)
		}
		if len(x.Args) > 0 {
			return nil, fmt.Errorf("%s: line %d, column %d: %s(...) with positional arguments (use keywords)", file, x.Line, x.Col, x.Func)
		}
		return plainDict(file, x.Kwargs)
	case *pyjson.Dict:
		return plainDict(file, x)
	case pyliteral.Tuple:
		return plainList(file, x)
	case []any:
		return plainList(file, x)
	}
	return v, nil
}

func plainDict(file string, d *pyjson.Dict) (any, error) {
	out := &pyjson.Dict{Keys: append([]string(nil), d.Keys...), Values: make([]any, len(d.Values))}
	for i, v := range d.Values {
		p, err := plain(file, v)
		if err != nil {
			return nil, err
		}
		out.Values[i] = p
	}
	return out, nil
}

func plainList(file string, l []any) (any, error) {
	out := make([]any, len(l))
	for i, v := range l {
		p, err := plain(file, v)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// mapTask validates one converted Task(...) as upstream's pydantic model
// does (user_id, instruction: str; outputs: a list of str; actions: a list
// of Action(name: str, kwargs: dict); other keywords such as annotator are
// ignored by the model and kept here as metadata) and maps it onto the task
// model: the gold actions as the assistant's, the outputs as
// communicate_info, the reward basis [DB, COMMUNICATE].
func mapTask(label, source, split string, i int, v any) (tasks.Task, error) {
	d, ok := v.(*pyjson.Dict)
	if !ok {
		return tasks.Task{}, errors.New("not a Task(...) call")
	}
	str := func(key string) (string, error) {
		x, ok := d.Get(key)
		if !ok {
			return "", fmt.Errorf("%s: field required", key)
		}
		s, ok := x.(string)
		if !ok {
			return "", fmt.Errorf("%s: input should be a valid string, not %s", key, pyjson.TypeName(x))
		}
		return s, nil
	}
	userID, err := str("user_id")
	if err != nil {
		return tasks.Task{}, err
	}
	instruction, err := str("instruction")
	if err != nil {
		return tasks.Task{}, err
	}
	ov, ok := d.Get("outputs")
	if !ok {
		return tasks.Task{}, errors.New("outputs: field required")
	}
	ol, ok := ov.([]any)
	if !ok {
		return tasks.Task{}, fmt.Errorf("outputs: input should be a valid list, not %s", pyjson.TypeName(ov))
	}
	outputs := make([]string, len(ol))
	for j, o := range ol {
		s, ok := o.(string)
		if !ok {
			return tasks.Task{}, fmt.Errorf("outputs.%d: input should be a valid string, not %s", j, pyjson.TypeName(o))
		}
		outputs[j] = s
	}
	av, ok := d.Get("actions")
	if !ok {
		return tasks.Task{}, errors.New("actions: field required")
	}
	al, ok := av.([]any)
	if !ok {
		return tasks.Task{}, fmt.Errorf("actions: input should be a valid list, not %s", pyjson.TypeName(av))
	}
	id := strconv.Itoa(i)
	acts := make([]tasks.Action, len(al))
	for j, a := range al {
		ad, ok := a.(*pyjson.Dict)
		if !ok {
			return tasks.Task{}, fmt.Errorf("actions.%d: not an Action(...) call", j)
		}
		nv, _ := ad.Get("name")
		name, ok := nv.(string)
		if !ok || name == "" {
			return tasks.Task{}, fmt.Errorf("actions.%d.name: input should be a valid string", j)
		}
		kv, ok := ad.Get("kwargs")
		kw, isDict := kv.(*pyjson.Dict)
		if !ok || !isDict {
			return tasks.Task{}, fmt.Errorf("actions.%d.kwargs: input should be a valid dictionary", j)
		}
		args, err := kw.MarshalJSON()
		if err != nil {
			return tasks.Task{}, fmt.Errorf("actions.%d.kwargs: %w", j, err)
		}
		acts[j] = tasks.Action{ActionID: id + "_" + strconv.Itoa(j), Requestor: "assistant", Name: name, Arguments: args}
	}
	annotator, _ := d.Get("annotator")
	meta, err := json.Marshal(Meta{Source: source, Split: split, Index: i, UserID: userID, Annotator: annotator})
	if err != nil {
		return tasks.Task{}, err
	}
	notes := label + " " + split + " task " + id + "; simulated user " + userID
	return tasks.Task{
		ID:           id,
		Description:  &tasks.Description{Notes: &notes},
		UserScenario: tasks.UserScenario{Instructions: tasks.Instructions{Text: instruction}},
		EvaluationCriteria: &tasks.EvaluationCriteria{
			Actions:         acts,
			CommunicateInfo: outputs,
			RewardBasis:     []tasks.RewardType{tasks.RewardDB, tasks.RewardCommunicate},
		},
		Annotations: meta,
	}, nil
}
