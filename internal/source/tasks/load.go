package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/core/parallel"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// UnmarshalJSON accepts a string or a structured instructions object.
func (i *Instructions) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		i.Structured = nil
		return json.Unmarshal(data, &i.Text)
	}
	var s StructuredInstructions
	if err := strictDecode(data, &s); err != nil {
		return fmt.Errorf("instructions: %w", err)
	}
	i.Text, i.Structured = "", &s
	return nil
}

// MarshalJSON writes the form the instructions were read in.
func (i Instructions) MarshalJSON() ([]byte, error) {
	if i.Structured != nil {
		return json.Marshal(i.Structured)
	}
	return json.Marshal(i.Text)
}

// UnmarshalJSON ignores unknown description keys, as upstream does.
func (d *Description) UnmarshalJSON(data []byte) error {
	type plain Description
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*d = Description(p)
	return nil
}

// UnmarshalJSON ignores unknown user-scenario keys, as upstream does
// (banking_knowledge's task_091 misspells persona; upstream reads none).
func (s *UserScenario) UnmarshalJSON(data []byte) error {
	type plain UserScenario
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*s = UserScenario(p)
	return nil
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	return nil
}

// Error describes a problem with one task of a file.
type Error struct {
	File   string
	TaskID string // or "#<index>" when the id is unknown
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: task %s: %v", e.File, e.TaskID, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Parse decodes a tasks file: a JSON array of tasks. Unknown fields, wrong
// types, missing ids and invalid reward types are errors naming the file, the
// task and the field.
func Parse(file string, data []byte) ([]Task, error) {
	f, err := index(file, data)
	if err != nil {
		return nil, err
	}
	return f.all()
}

// decodeTask strictly decodes and validates the task at position idx.
func decodeTask(file string, idx int, raw []byte) (Task, error) {
	t, err := decodeFast(raw)
	if err != nil { // errSlow: encoding/json decides
		t = Task{}
		if err := strictDecode(raw, &t); err != nil {
			return Task{}, &Error{File: file, TaskID: taskLabel(idx, raw), Err: fieldError(err)}
		}
	}
	if t.ID == "" {
		return Task{}, &Error{File: file, TaskID: "#" + strconv.Itoa(idx), Err: errors.New(`field "id": missing or empty`)}
	}
	if err := t.validate(); err != nil {
		return Task{}, &Error{File: file, TaskID: strconv.Quote(t.ID), Err: err}
	}
	return t, nil
}

// file is a tasks file split into tasks that are decoded on first use:
// a job decodes only the tasks it selects (telecom's tasks.json holds 2,285
// tasks; its base split uses 114).
type file struct {
	name string
	// names, when set, names each task's own file (LoadParts) in errors.
	names []string
	ids   []string
	raw   [][]byte
	once  []sync.Once
	tasks []Task
	errs  []error

	allOnce sync.Once // every task decoded
	allErr  error
}

// errFoundID stops the scan of a task once its id is read.
var errFoundID = errors.New("id found")

// index splits a tasks file into tasks and reads each id (see newFile).
func index(name string, data []byte) (*file, error) {
	elems, err := pyjson.Elements(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a JSON array of tasks: %w", name, err)
	}
	return newFile(name, elems)
}

// newFile reads the id of each task of a split file (a task whose id
// cannot be read is decoded in full, for the error). Duplicate ids are an
// error here; anything else wrong with a task is reported when it is
// decoded.
func newFile(name string, elems [][]byte) (*file, error) {
	f := &file{name: name, ids: make([]string, 0, len(elems)), raw: elems}
	seen := make(map[string]bool, len(elems))
	for idx, raw := range elems {
		id, ok := peekID(raw)
		if !ok {
			t, err := decodeTask(name, idx, raw)
			if err != nil {
				return nil, err
			}
			id = t.ID
		}
		if seen[id] {
			return nil, &Error{File: name, TaskID: strconv.Quote(id), Err: errors.New("duplicate task id")}
		}
		seen[id] = true
		f.ids = append(f.ids, id)
	}
	f.once = make([]sync.Once, len(f.ids))
	f.tasks = make([]Task, len(f.ids))
	f.errs = make([]error, len(f.ids))
	return f, nil
}

// peekID reads a task's "id" key without decoding the rest.
func peekID(raw []byte) (string, bool) {
	var id string
	err := pyjson.Object(raw, func(k string, v []byte) error {
		if k != "id" {
			return nil
		}
		s, err := pyjson.DecodeString(v)
		if err != nil {
			return err
		}
		id = s
		return errFoundID
	})
	return id, errors.Is(err, errFoundID) && id != ""
}

// task decodes task i once.
func (f *file) task(i int) (Task, error) {
	f.once[i].Do(func() {
		name, idx := f.name, i
		if f.names != nil {
			name, idx = f.names[i], 0
		}
		t, err := decodeTask(name, idx, f.raw[i])
		if err == nil && t.ID != f.ids[i] {
			err = &Error{File: name, TaskID: strconv.Quote(f.ids[i]), Err: fmt.Errorf("id read as %q", t.ID)}
		}
		f.tasks[i], f.errs[i] = t, err
	})
	return f.tasks[i], f.errs[i]
}

// decode decodes the tasks at positions pos on every core, in order.
func (f *file) decode(pos []int) ([]Task, error) {
	return parallel.Map(context.Background(), len(pos), func(_ context.Context, j int) (Task, error) {
		return f.task(pos[j])
	})
}

// all decodes every task, once; the first error in file order is returned.
func (f *file) all() ([]Task, error) {
	f.allOnce.Do(func() {
		pos := make([]int, len(f.ids))
		for i := range pos {
			pos[i] = i
		}
		if _, err := f.decode(pos); err != nil {
			f.allErr = err
			for i := range f.errs {
				if f.errs[i] != nil {
					f.allErr = f.errs[i]
					break
				}
			}
		}
	})
	if f.allErr != nil {
		return nil, f.allErr
	}
	return f.tasks, nil
}

// taskLabel names a task in an error: its id when it can be read, else its
// position in the file.
func taskLabel(idx int, raw json.RawMessage) string {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &probe) == nil && len(probe.ID) > 0 {
		var s string
		if json.Unmarshal(probe.ID, &s) == nil {
			return strconv.Quote(s)
		}
	}
	return "#" + strconv.Itoa(idx)
}

// fieldError rewrites encoding/json errors so they name the field plainly.
func fieldError(err error) error {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		return fmt.Errorf("field %q: expected %s, got JSON %s", ute.Field, ute.Type, ute.Value)
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fmt.Errorf("unknown field %s", rest)
	}
	return err
}

func (t *Task) validate() error {
	c := t.EvaluationCriteria
	if c == nil {
		return nil
	}
	for _, r := range c.RewardBasis {
		if !r.Valid() {
			return fmt.Errorf("field \"evaluation_criteria.reward_basis\": unknown reward type %q", r)
		}
	}
	for i, a := range c.Actions {
		if a.Name == "" {
			return fmt.Errorf("field \"evaluation_criteria.actions[%d].name\": missing", i)
		}
		if a.Requestor != "" && a.Requestor != "assistant" && a.Requestor != "user" {
			return fmt.Errorf("field \"evaluation_criteria.actions[%d].requestor\": %q is not assistant or user", i, a.Requestor)
		}
		if err := objectArgs(a.Arguments); err != nil {
			return fmt.Errorf("field \"evaluation_criteria.actions[%d].arguments\": %w", i, err)
		}
	}
	for i, a := range c.EnvAssertions {
		if a.EnvType != "assistant" && a.EnvType != "user" {
			return fmt.Errorf("field \"evaluation_criteria.env_assertions[%d].env_type\": %q is not assistant or user", i, a.EnvType)
		}
	}
	if s := t.InitialState; s != nil {
		for i, a := range s.InitializationActions {
			if a.EnvType != "assistant" && a.EnvType != "user" {
				return fmt.Errorf("field \"initial_state.initialization_actions[%d].env_type\": %q is not assistant or user", i, a.EnvType)
			}
		}
	}
	return nil
}

func objectArgs(raw json.RawMessage) error {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return errors.New("must be a JSON object")
	}
	return nil
}

// LoadFile reads and parses a tasks file.
func LoadFile(path string) ([]Task, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read tasks: %w", err)
	}
	return Parse(path, data)
}

// Splits maps a split name to task ids (split_tasks.json).
type Splits map[string][]string

// LoadSplits reads a split_tasks.json file.
func LoadSplits(path string) (Splits, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read splits: %w", err)
	}
	s, err := parseSplits(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// parseSplits decodes an object of arrays of task ids with the pyjson
// scanners (telecom's file lists 2,285 ids several times over).
func parseSplits(data []byte) (Splits, error) {
	s := Splits{}
	err := pyjson.Object(data, func(name string, list []byte) error {
		var ids []string
		if !bytes.Equal(list, []byte("null")) {
			ids = []string{}
		}
		if err := pyjson.Array(list, func(i int, raw []byte) error {
			id, err := pyjson.DecodeString(raw)
			if err != nil {
				return fmt.Errorf("split %q: element %d: %w", name, i, err)
			}
			ids = append(ids, id)
			return nil
		}); err != nil {
			return fmt.Errorf("split %q: %w", name, err)
		}
		s[name] = ids
		return nil
	})
	return s, err
}

// LoadTau2 loads a τ²-bench domain's tasks.json and split_tasks.json from
// dir. The default split is "base", as upstream's CLI. Tasks are decoded
// (and validated) as they are selected; All decodes every one.
func LoadTau2(dir, domain string) (*Set, error) {
	path := filepath.Join(dir, "tasks.json")
	m, err := data.ReadMapped(path)
	if err != nil {
		return nil, fmt.Errorf("read tasks: %w", err)
	}
	f, err := index(path, m.Bytes)
	if err != nil {
		m.Close()
		return nil, err
	}
	// The tasks are decoded from the mapped file, which is released with
	// the split file (decoded tasks hold copies).
	runtime.AddCleanup(f, func(m *data.Mapped) { m.Close() }, m)
	splits, err := LoadSplits(filepath.Join(dir, "split_tasks.json"))
	if err != nil {
		return nil, err
	}
	return &Set{Domain: domain, Splits: splits, DefaultSplit: "base", file: f}, nil
}

// LoadParts builds a lazily decoded set from tasks held one per file
// (banking_knowledge's tasks/task_*.json): parts are the files' contents in
// order and names their paths, which errors name. Tasks are decoded as they
// are selected, as LoadTau2's.
func LoadParts(domain string, names []string, parts [][]byte) (*Set, error) {
	for i, p := range parts {
		if _, ok := peekID(p); !ok {
			if _, err := decodeTask(names[i], 0, p); err != nil {
				return nil, err
			}
		}
	}
	f, err := newFile(domain+" tasks", parts)
	if err != nil {
		return nil, err
	}
	f.names = names
	return &Set{Domain: domain, file: f}, nil
}
