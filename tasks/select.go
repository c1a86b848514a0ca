package tasks

import (
	"fmt"
	"sort"
	"strings"
)

// Selection picks tasks the way every command's flags do.
type Selection struct {
	Split   string   // split name; "" means the set's default
	TaskIDs []string // if set, only these (all must exist in the split)
	Limit   int      // if > 0, the first Limit tasks after filtering
}

// Set is a domain's tasks with their splits.
type Set struct {
	Domain       string
	Tasks        []Task
	Splits       Splits
	DefaultSplit string
	// Sets of tasks that are not splits of the main file (e.g. telecom "full",
	// "small") are exposed as extra named lists.
	Extra map[string][]Task
}

// SplitNames lists the available split names, sorted.
func (s *Set) SplitNames() []string {
	var names []string
	for k := range s.Splits {
		names = append(names, k)
	}
	for k := range s.Extra {
		if _, dup := s.Splits[k]; !dup {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

// Select applies a selection, keeping file order.
func (s *Set) Select(sel Selection) ([]Task, error) {
	split := sel.Split
	if split == "" {
		split = s.DefaultSplit
	}
	var pool []Task
	switch {
	case s.Extra[split] != nil:
		pool = s.Extra[split]
	case split == "" || split == "all":
		pool = s.Tasks
	default:
		ids, ok := s.Splits[split]
		if !ok {
			return nil, fmt.Errorf("%s: unknown split %q (have: %s)", s.Domain, split, strings.Join(s.SplitNames(), ", "))
		}
		in := make(map[string]bool, len(ids))
		for _, id := range ids {
			in[id] = true
		}
		for _, t := range s.Tasks {
			if in[t.ID] {
				pool = append(pool, t)
			}
		}
	}
	if len(sel.TaskIDs) > 0 {
		want := make(map[string]bool, len(sel.TaskIDs))
		for _, id := range sel.TaskIDs {
			want[id] = true
		}
		var out []Task
		for _, t := range pool {
			if want[t.ID] {
				out = append(out, t)
				delete(want, t.ID)
			}
		}
		if len(want) > 0 {
			var missing []string
			for id := range want {
				missing = append(missing, id)
			}
			sort.Strings(missing)
			return nil, fmt.Errorf("%s: task ids not in split %q: %s", s.Domain, split, strings.Join(missing, ", "))
		}
		pool = out
	}
	if sel.Limit > 0 && sel.Limit < len(pool) {
		pool = pool[:sel.Limit]
	}
	return pool, nil
}
