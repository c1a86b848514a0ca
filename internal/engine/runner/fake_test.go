package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// fakeDomain has no tools; its tasks are scored on COMMUNICATE only: the
// agent passes when it says "secret".
type fakeDomain struct{ set *tasks.Set }

func newFakeDomain(n int) *fakeDomain {
	set := &tasks.Set{Domain: "fake"}
	for i := range n {
		set.Tasks = append(set.Tasks, tasks.Task{
			ID: strconv.Itoa(i),
			EvaluationCriteria: &tasks.EvaluationCriteria{
				CommunicateInfo: []string{"secret"},
				RewardBasis:     []tasks.RewardType{tasks.RewardCommunicate},
			},
		})
	}
	return &fakeDomain{set: set}
}

func (d *fakeDomain) Name() string            { return "fake" }
func (d *fakeDomain) Policy() string          { return "be nice" }
func (d *fakeDomain) AgentTools() []tool.Info { return nil }
func (d *fakeDomain) UserTools() []tool.Info  { return nil }
func (d *fakeDomain) Tasks() *tasks.Set       { return d.set }
func (d *fakeDomain) NewEnv() envs.Env        { return fakeEnv{} }
func (d *fakeDomain) TaskList() []tasks.Task  { return d.set.Tasks }
func (d *fakeDomain) IDs() (ids []string) {
	for _, t := range d.set.Tasks {
		ids = append(ids, t.ID)
	}
	return ids
}

type fakeEnv struct{}

func (fakeEnv) Call(context.Context, message.Requestor, string, json.RawMessage) (any, error) {
	return nil, errors.New("no tools")
}
func (fakeEnv) RunFunction(context.Context, message.Requestor, string, json.RawMessage) (any, error) {
	return nil, errors.New("no functions")
}
func (fakeEnv) Sync()                        {}
func (fakeEnv) SameDB(envs.Env) (bool, bool) { return true, true }
func (fakeEnv) DumpDB() (any, any)           { return nil, nil }

// script decides what the fake agent does for a unit.
type script struct {
	// pass says whether the agent communicates the secret.
	pass func(Spec) bool
	// infra makes the agent fail with an infrastructure error.
	infra func(Spec) bool
	// block, if set, makes every agent turn wait until it is closed.
	block chan struct{}
}

// tracker counts concurrent and total agent constructions.
type tracker struct {
	mu      sync.Mutex
	calls   map[results.UnitKey]int
	running atomic.Int64
	peak    atomic.Int64
	started atomic.Int64
	// entered receives one event per agent that started its first turn.
	entered chan struct{}
}

func newTracker() *tracker {
	return &tracker{calls: map[results.UnitKey]int{}, entered: make(chan struct{}, 1024)}
}

// waitEntered waits until n agents have started their first turn; false
// (and a test error) if they did not within 10s.
func (tr *tracker) waitEntered(t *testing.T, n int) bool {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for range n {
		select {
		case <-tr.entered:
		case <-timeout:
			t.Errorf("%d agents did not start", n)
			return false
		}
	}
	return true
}

func (tr *tracker) makers(sc script) Makers {
	return Makers{
		Agent: func(s Spec) (orchestrator.Agent, error) {
			tr.mu.Lock()
			tr.calls[results.UnitKey{TaskID: s.Task.ID, Trial: s.Trial}]++
			tr.mu.Unlock()
			return &fakeAgent{spec: s, sc: sc, tr: tr}, nil
		},
		User: func(Spec) (orchestrator.User, error) { return &fakeUser{}, nil },
	}
}

type fakeAgent struct {
	spec  Spec
	sc    script
	tr    *tracker
	turns int
}

func (a *fakeAgent) Next(ctx context.Context, _ []message.Message) (message.Message, error) {
	if a.turns == 0 {
		a.tr.started.Add(1)
		n := a.tr.running.Add(1)
		defer a.tr.running.Add(-1)
		select {
		case a.tr.entered <- struct{}{}:
		default:
		}
		for {
			p := a.tr.peak.Load()
			if n <= p || a.tr.peak.CompareAndSwap(p, n) {
				break
			}
		}
		if a.sc.block != nil {
			select {
			case <-a.sc.block:
			case <-ctx.Done():
				return message.Message{}, ctx.Err()
			}
		}
	}
	a.turns++
	if a.sc.infra != nil && a.sc.infra(a.spec) {
		return message.Message{}, fmt.Errorf("%w: fake outage", fault.ErrInfrastructure)
	}
	text := "I cannot help."
	if a.sc.pass == nil || a.sc.pass(a.spec) {
		text = "The secret is out."
	}
	u := message.Usage{PromptTokens: 10, CompletionTokens: 5}
	return message.Message{Content: text, Usage: &u, Cost: 0.001}, nil
}

type fakeUser struct{ turns int }

func (u *fakeUser) Next(context.Context, []message.Message) (message.Message, error) {
	u.turns++
	us := message.Usage{PromptTokens: 7, CompletionTokens: 3}
	if u.turns == 1 {
		return message.Message{Content: "Hello, tell me.", Usage: &us, Cost: 0.0005}, nil
	}
	return message.Message{Content: "Thanks ###STOP###", Usage: &us, Cost: 0.0005}, nil
}

// memSink collects records.
type memSink struct {
	mu   sync.Mutex
	recs []results.Record
	fail error
}

func (s *memSink) Write(r results.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.recs = append(s.recs, r)
	return nil
}
