package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Changed lists the top-level fields (by their JSON names) in which two
// versions of a task differ, in sorted order; nil when they are the same.
// Versions are compared as upstream reads them: key order, a null and an
// absent key, and an action's requestor left out or "assistant" are the same.
func Changed(a, b *Task) ([]string, error) {
	fa, err := topFields(a)
	if err != nil {
		return nil, err
	}
	fb, err := topFields(b)
	if err != nil {
		return nil, err
	}
	var out []string
	for k, va := range fa {
		if vb, ok := fb[k]; !ok || !bytes.Equal(va, vb) {
			out = append(out, k)
		}
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

// topFields encodes each top-level field of a task canonically (sorted keys,
// no nulls, default requestors filled in).
func topFields(t *Task) (map[string][]byte, error) {
	c := *t
	if c.EvaluationCriteria != nil {
		ec := *c.EvaluationCriteria
		ec.Actions = append([]Action(nil), ec.Actions...)
		for i := range ec.Actions {
			ec.Actions[i].Requestor = ec.Actions[i].By()
		}
		c.EvaluationCriteria = &ec
	}
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, fmt.Errorf("encode task %s: %w", t.ID, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("encode task %s: %w", t.ID, err)
	}
	out := make(map[string][]byte, len(m))
	for k, v := range dropNulls(m).(map[string]any) {
		if out[k], err = json.Marshal(v); err != nil {
			return nil, fmt.Errorf("encode task %s: %w", t.ID, err)
		}
	}
	return out, nil
}

// dropNulls removes the null members of every object in v.
func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = dropNulls(e)
		}
	case []any:
		for i := range x {
			x[i] = dropNulls(x[i])
		}
	}
	return v
}

// Drift is the tasks of a recording (a results file's embedded tasks) that
// differ from the pinned ones of the same id.
type Drift struct {
	// IDs are the differing tasks in the recording's order; Fields the
	// fields that differ in any of them, sorted.
	IDs    []string
	Fields []string
}

// notes are the task fields that document a task without shaping its
// simulation or reward; CompareEmbedded ignores them.
var notes = map[string]bool{"description": true, "issues": true, "annotations": true}

// CompareEmbedded compares tasks a recording embeds with the pinned ones
// pinned returns by id (nil: not pinned; such tasks are skipped, as are ids
// keep rejects when keep is set) in the fields that shape a simulation and
// its reward (every field but description, issues and annotations).
func CompareEmbedded(embedded []Task, pinned func(id string) *Task, keep func(id string) bool) (Drift, error) {
	var d Drift
	seen := map[string]bool{}
	for i := range embedded {
		e := &embedded[i]
		if keep != nil && !keep(e.ID) {
			continue
		}
		p := pinned(e.ID)
		if p == nil {
			continue
		}
		all, err := Changed(e, p)
		if err != nil {
			return Drift{}, err
		}
		var ch []string
		for _, f := range all {
			if !notes[f] {
				ch = append(ch, f)
			}
		}
		if len(ch) == 0 {
			continue
		}
		d.IDs = append(d.IDs, e.ID)
		for _, f := range ch {
			if !seen[f] {
				seen[f] = true
				d.Fields = append(d.Fields, f)
			}
		}
	}
	sort.Strings(d.Fields)
	return d, nil
}

// String says which tasks differ and where: "3 tasks (2, 9, 27) differ in
// evaluation_criteria", "1 task (4) differs in user_scenario".
func (d Drift) String() string {
	ids := d.IDs
	more := ""
	if len(ids) > 10 {
		ids, more = ids[:10], fmt.Sprintf(" … %d more", len(d.IDs)-10)
	}
	noun, verb := "tasks", "differ"
	if len(d.IDs) == 1 {
		noun, verb = "task", "differs"
	}
	return fmt.Sprintf("%d %s (%s%s) %s in %s", len(d.IDs), noun, strings.Join(ids, ", "), more, verb, strings.Join(d.Fields, ", "))
}
