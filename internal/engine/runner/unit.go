package runner

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Unit is one simulation to run: a task and a trial with its seed.
type Unit struct {
	Task  *tasks.Task
	Trial int
	Seed  int64
	// Rejudge, when set, is the unit's record whose conversation finished but
	// whose NL judge failed (Record.JudgePending): the unit is judged again
	// from that trajectory instead of being run again.
	Rejudge *results.Record
}

// Key identifies the unit.
func (u Unit) Key() results.UnitKey { return results.UnitKey{TaskID: u.Task.ID, Trial: u.Trial} }

// Units lists every (task, trial) unit, task by task so that the trials of
// a task are scheduled together (they then run concurrently), with seeds[t]
// for trial t.
func Units(ts []tasks.Task, seeds []int64) []Unit {
	out := make([]Unit, 0, len(ts)*len(seeds))
	for i := range ts {
		for t, seed := range seeds {
			out = append(out, Unit{Task: &ts[i], Trial: t, Seed: seed})
		}
	}
	return out
}

// Shard selects a deterministic share of the units: unit u belongs to shard
// Index (1-based) of Count when hash(task id, trial) mod Count = Index-1.
// The zero Shard holds every unit.
type Shard struct {
	Index, Count int
}

// ParseShard parses "i/n" (1 ≤ i ≤ n).
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 1 ≤ i ≤ n, e.g. 2/4", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// String is "i/n", or "" for the whole run.
func (s Shard) String() string {
	if s.Count <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Has reports whether the unit key belongs to the shard.
func (s Shard) Has(k results.UnitKey) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(k.TaskID))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(k.Trial)))
	return int(h.Sum64()%uint64(s.Count)) == s.Index-1
}

// Filter keeps the units of the shard.
func (s Shard) Filter(units []Unit) []Unit {
	if s.Count <= 1 {
		return units
	}
	var out []Unit
	for _, u := range units {
		if s.Has(u.Key()) {
			out = append(out, u)
		}
	}
	return out
}

// Pending returns the units still to run given the records already made
// (the latest per unit): those without a record and those whose record
// ended in an infrastructure error. A unit whose latest record only lacks
// its NL judgement (Record.JudgePending) is returned with Rejudge set.
func Pending(units []Unit, done []results.Record) []Unit {
	latest := make(map[results.UnitKey]*results.Record, len(done))
	for i := range done {
		latest[done[i].Key()] = &done[i]
	}
	var out []Unit
	for _, u := range units {
		r, ok := latest[u.Key()]
		switch {
		case !ok:
			out = append(out, u)
		case r.Infrastructure():
			if r.JudgePending != "" && len(r.Messages) > 0 {
				u.Rejudge = r
			}
			out = append(out, u)
		}
	}
	return out
}

// ErrStopped is returned (wrapped with the context's cause) when a run was
// stopped before every unit started.
var ErrStopped = errors.New("run stopped")

// Expected lists the keys of units.
func Expected(units []Unit) []results.UnitKey {
	out := make([]results.UnitKey, len(units))
	for i, u := range units {
		out[i] = u.Key()
	}
	return out
}
