package offline

import (
	"bytes"
	"fmt"
	"os"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// loadV1Recording reads a τ-bench v1 / τ-Trait results list (a JSON array
// of {task_id, reward, info, traj, trial}); ok is false when the file is not
// a list, i.e. a τ²-bench results file. The trajectories are kept as
// results.ParseV1 converts them (system prompt dropped; no greeting: the
// user speaks first).
func loadV1Recording(path string) (*Recording, bool, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, false, fmt.Errorf("replay: %w", err)
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' {
		return nil, false, nil
	}
	recs, err := results.ParseV1(raw, results.V1Labels{})
	if err != nil {
		return nil, true, fmt.Errorf("replay: %s: %w", path, err)
	}
	r := &Recording{Path: path, trajs: map[recKey][]message.Message{}}
	for _, rec := range recs {
		k := recKey{rec.TaskID, rec.Trial}
		if _, dup := r.trajs[k]; dup {
			continue // the first recording of a unit wins
		}
		r.trajs[k] = rec.Messages
		r.keys = append(r.keys, k)
	}
	if len(r.keys) == 0 {
		return nil, true, fmt.Errorf("replay: %s has no simulations", path)
	}
	return r, true, nil
}
