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
	Domain string
	// Tasks is the main task list of a set built in memory. A set read by
	// LoadTau2 leaves it nil and decodes tasks as they are selected: read the
	// main list with All.
	Tasks        []Task
	Splits       Splits
	DefaultSplit string
	// Sets of tasks that are not splits of the main file (e.g. telecom "full",
	// "small") are exposed as extra named lists.
	Extra map[string][]Task
	// Unavailable names splits upstream defines but cannot load, each with
	// the reason (τ-Trait telecom's dev); selecting one is an error giving it.
	Unavailable map[string]string
	file        *file // the lazily decoded main list (LoadTau2)
}

// All returns the main task list, decoding every task of a loaded set (the
// first invalid task is the error). The slice must not be modified.
func (s *Set) All() ([]Task, error) {
	if s.file != nil {
		return s.file.all()
	}
	return s.Tasks, nil
}

// Find looks a task up by id in the main list, then in the extra lists.
func (s *Set) Find(id string) (*Task, error) {
	main, err := s.All()
	if err != nil {
		return nil, err
	}
	for i := range main {
		if main[i].ID == id {
			return &main[i], nil
		}
	}
	for _, list := range s.Extra {
		for i := range list {
			if list[i].ID == id {
				return &list[i], nil
			}
		}
	}
	return nil, fmt.Errorf("%s: no task with id %q", s.Domain, id)
}

// mainIDs lists the main list's task ids in order.
func (s *Set) mainIDs() []string {
	if s.file != nil {
		return s.file.ids
	}
	return idsOf(s.Tasks)
}

func idsOf(ts []Task) []string {
	ids := make([]string, len(ts))
	for i := range ts {
		ids[i] = ts[i].ID
	}
	return ids
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

// Select applies a selection, keeping file order. Only the selected tasks
// of a loaded set are decoded.
func (s *Set) Select(sel Selection) ([]Task, error) {
	split := sel.Split
	if split == "" {
		split = s.DefaultSplit
	}
	extra := s.Extra[split]
	pos, ids, err := s.positions(split)
	if err != nil {
		return nil, err
	}
	if len(sel.TaskIDs) > 0 {
		want := make(map[string]bool, len(sel.TaskIDs))
		for _, id := range sel.TaskIDs {
			want[id] = true
		}
		var out []int
		for _, i := range pos {
			if want[ids[i]] {
				out = append(out, i)
				delete(want, ids[i])
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
		pos = out
	}
	if sel.Limit > 0 && sel.Limit < len(pos) {
		pos = pos[:sel.Limit]
	}
	if len(pos) == 0 {
		return nil, nil
	}
	if extra == nil && s.file != nil {
		return s.file.decode(pos)
	}
	list := extra
	if list == nil {
		list = s.Tasks
	}
	out := make([]Task, len(pos))
	for j, i := range pos {
		out[j] = list[i]
	}
	return out, nil
}

// positions are the indexes of a split's tasks in the list they come from
// (an extra list, else the main list), and that list's ids.
func (s *Set) positions(split string) ([]int, []string, error) {
	if why, ok := s.Unavailable[split]; ok {
		return nil, nil, fmt.Errorf("%s: split %q is not offered: %s", s.Domain, split, why)
	}
	extra := s.Extra[split]
	var ids []string
	switch {
	case extra != nil:
		ids = idsOf(extra)
	default:
		ids = s.mainIDs()
	}
	pos := make([]int, 0, len(ids))
	switch {
	case extra != nil, split == "" || split == "all":
		for i := range ids {
			pos = append(pos, i)
		}
	default:
		list, ok := s.Splits[split]
		if !ok {
			return nil, nil, fmt.Errorf("%s: unknown split %q (have: %s)", s.Domain, split, strings.Join(s.SplitNames(), ", "))
		}
		in := make(map[string]bool, len(list))
		for _, id := range list {
			in[id] = true
		}
		for i, id := range ids {
			if in[id] {
				pos = append(pos, i)
			}
		}
	}
	return pos, ids, nil
}

// Count is the number of tasks Select gives for a split ("" or "all": the
// main list) with no ids or limit, without decoding them.
func (s *Set) Count(split string) (int, error) {
	pos, _, err := s.positions(split)
	return len(pos), err
}
