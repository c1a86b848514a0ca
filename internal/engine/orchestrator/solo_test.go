package orchestrator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/telecom"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// soloScript is a scripted solo agent: its stop message holds ###STOP###.
type soloScript struct{ script }

func (s *soloScript) IsStop(m message.Message) bool { return strings.Contains(m.Content, "###STOP###") }

func loadSolo(t *testing.T) (*telecom.Solo, *tasks.Task) {
	t.Helper()
	dom, err := telecom.LoadSolo(datatest.Root(t), telecom.Manual)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := dom.Tasks().Select(tasks.Selection{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return dom, &ts[0]
}

func TestSoloLoop(t *testing.T) {
	t.Parallel()
	stop := text("###STOP###")
	cases := []struct {
		name     string
		msgs     []message.Message
		cfg      orchestrator.Config
		term     evaluator.Termination
		traj     int // trajectory length
		steps    int
		numErrs  int
		wantErr  string
		notStops bool // the agent is not a Stopper
	}{
		{name: "stop at once", msgs: []message.Message{stop}, term: evaluator.AgentStop, traj: 1},
		{name: "phone tool, agent tool, stop", msgs: []message.Message{
			calls(`check_status_bar {}`), calls(`get_customer_by_phone {"phone_number": "555-123-2002"}`), stop},
			term: evaluator.AgentStop, traj: 5, steps: 4},
		{name: "text at once", msgs: []message.Message{text("Hello?")}, term: evaluator.AgentError, traj: 1, wantErr: "without tool calls"},
		{name: "text later", msgs: []message.Message{calls(`check_status_bar {}`), text("Done.")}, term: evaluator.AgentError, traj: 3, steps: 2, wantErr: "without tool calls"},
		{name: "max steps override the stop", msgs: []message.Message{calls(`check_status_bar {}`), stop},
			cfg: orchestrator.Config{MaxSteps: 2}, term: evaluator.MaxSteps, traj: 3, steps: 2},
		{name: "max steps after the environment", msgs: []message.Message{calls(`check_status_bar {}`), stop},
			cfg: orchestrator.Config{MaxSteps: 1}, term: evaluator.MaxSteps, traj: 2, steps: 1},
		{name: "too many errors", msgs: []message.Message{calls(`no_such_tool {}`, `no_such_tool {}`), stop},
			cfg: orchestrator.Config{MaxErrors: 2}, term: evaluator.TooManyErrors, traj: 3, steps: 1, numErrs: 2},
		{name: "agent that cannot stop", msgs: []message.Message{stop}, notStops: true, term: evaluator.AgentError, wantErr: "solo agent"},
	}
	dom, task := loadSolo(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &soloScript{script{msgs: tc.msgs}}
			var agent orchestrator.Agent = s
			if tc.notStops {
				agent = &s.script
			}
			rec, err := orchestrator.Run(context.Background(), dom, task, agent, orchestrator.DummyUser{}, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if rec.TerminationReason != tc.term || len(rec.Messages) != tc.traj || rec.Steps != tc.steps || rec.NumErrors != tc.numErrs {
				t.Errorf("termination %s, %d messages, %d steps, %d errors; want %s, %d, %d, %d",
					rec.TerminationReason, len(rec.Messages), rec.Steps, rec.NumErrors, tc.term, tc.traj, tc.steps, tc.numErrs)
			}
			if (tc.wantErr == "") != (rec.Error == "") || !strings.Contains(rec.Error, tc.wantErr) {
				t.Errorf("error %q; want one containing %q", rec.Error, tc.wantErr)
			}
			if !tc.notStops && (len(s.seen) == 0 || len(s.seen[0]) != 0) {
				t.Errorf("first agent turn received %v; want nothing (no greeting, no user)", s.seen)
			}
			for _, m := range rec.Messages {
				if m.Role == message.User || m.Content == orchestrator.DefaultGreeting {
					t.Errorf("solo trajectory holds %+v", m)
				}
				for _, tc := range m.ToolCalls {
					if tc.Requestor != message.ByAssistant {
						t.Errorf("call %s requestor %q; want assistant", tc.Name, tc.Requestor)
					}
				}
				if m.Role == message.Tool && m.Requestor != message.ByAssistant {
					t.Errorf("tool message requestor %q; want assistant", m.Requestor)
				}
			}
		})
	}
}

// The agent's phone-tool calls run on the phone (upstream's solo routing);
// user-requested calls are refused with upstream's error.
func TestSoloEnvRouting(t *testing.T) {
	t.Parallel()
	dom, task := loadSolo(t)
	env, err := evaluator.NewInitializedEnv(context.Background(), dom, task)
	if err != nil {
		t.Fatal(err)
	}
	phone := envs.Respond(context.Background(), env, message.ToolCall{ID: "1", Name: "check_status_bar", Arguments: []byte("{}"), Requestor: message.ByAssistant})
	if phone.Error || !strings.Contains(phone.Content, "Status Bar") {
		t.Errorf("agent check_status_bar in solo mode = %+v; want the phone's status bar", phone)
	}
	normal := envs.Respond(context.Background(), dom.Base().NewEnv(), message.ToolCall{ID: "1", Name: "check_status_bar", Arguments: []byte("{}"), Requestor: message.ByAssistant})
	if !normal.Error {
		t.Errorf("agent check_status_bar in normal mode = %+v; want an error", normal)
	}
	user := envs.Respond(context.Background(), env, message.ToolCall{ID: "2", Name: "check_status_bar", Arguments: []byte("{}"), Requestor: message.ByUser})
	if want := "Error: User tool calls are not allowed in solo mode"; !user.Error || user.Content != want {
		t.Errorf("user call in solo mode = %q; want %q", user.Content, want)
	}
}
