package results

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Merged is what Merge wrote.
type Merged struct {
	Out  string
	Runs int
	// Recorded counts the units written, Infra those of them that are
	// infrastructure errors; Total is tasks × trials of the manifest.
	Recorded, Infra, Total int
	// Missing lists units no directory holds (task/trial).
	Missing []string
}

// Merge joins the run directories of shards into the new run directory out:
// the manifests must agree on everything but the shard; a unit recorded in
// two directories is refused unless one of the records is an
// infrastructure error (the other is kept). now stamps the manifest.
func Merge(out string, dirs []string, now time.Time) (*Merged, error) {
	if ok, err := Exists(out); err != nil {
		return nil, err
	} else if ok {
		return nil, fmt.Errorf("merge: %s already holds a run; choose a new directory", out)
	}
	var (
		first  *Manifest
		order  []UnitKey
		chosen = map[UnitKey]Record{}
		from   = map[UnitKey]string{}
	)
	for _, dir := range dirs {
		run, err := LoadRun(dir)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if first == nil {
			first = run.Manifest
		} else if d := first.Diff(run.Manifest, "shard"); len(d) > 0 {
			return nil, fmt.Errorf("merge: %s and %s are not shards of the same run:\n  %s", dirs[0], dir, strings.Join(d, "\n  "))
		}
		for _, r := range run.Records {
			k := r.Key()
			prev, seen := chosen[k]
			switch {
			case !seen:
				order = append(order, k)
			case prev.Infrastructure():
				// a real outcome (or a later error) replaces an infrastructure error
			case r.Infrastructure():
				continue
			default:
				return nil, fmt.Errorf("merge: task %s trial %d is recorded in both %s and %s; shards must not overlap", k.TaskID, k.Trial, from[k], dir)
			}
			chosen[k] = r
			from[k] = dir
		}
	}
	if first == nil {
		return nil, fmt.Errorf("merge: no run directories")
	}
	m := *first
	m.Shard = ""
	m.CreatedAt = now.UTC().Format(time.RFC3339)
	m.MergedFrom = nil
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			abs = d
		}
		m.MergedFrom = append(m.MergedFrom, abs)
	}
	if err := Create(out, &m); err != nil {
		return nil, err
	}
	w, err := OpenWriter(filepath.Join(out, SimulationsFile))
	if err != nil {
		return nil, err
	}
	res := &Merged{Out: out, Runs: len(dirs), Recorded: len(order), Total: len(m.TaskIDs) * m.Trials}
	for _, k := range order {
		r := chosen[k]
		if r.Infrastructure() {
			res.Infra++
		}
		if err := w.Write(r); err != nil {
			w.Close()
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	for _, id := range m.TaskIDs {
		for t := range m.Trials {
			if _, ok := chosen[UnitKey{TaskID: id, Trial: t}]; !ok {
				res.Missing = append(res.Missing, fmt.Sprintf("%s/%d", id, t))
			}
		}
	}
	return res, nil
}
