package play

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
)

func testSide(role string) Side {
	return Side{Role: role, Policy: "the policy", Scenario: "the scenario", StopTool: "done", StopToken: "###STOP###",
		Tools: []tool.Info{{Name: "get_user_details", Description: "Get the details of a user.\nMore.", Params: []tool.Param{{Name: "user_id", Required: true}},
			Parameters: []byte(`{"type":"object"}`)}}}
}

// TestHumanNext drives the participant with scripted lines: commands
// print and wait for more, a tool call or text is the turn's message, and
// the person leaving is the side's error.
func TestHumanNext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		role    string
		input   string
		want    message.Message
		err     error
		screen  []string // the screen holds these
		stopped bool     // the message is the agent's stop
		noStop  bool     // the loop has no agent stop
	}{
		{name: "text", role: agents.HumanAgent, input: "How can I help?\n", want: message.Message{Content: "How can I help?"}},
		{name: "commands first", role: agents.HumanAgent, input: "help\ntools\ntool get_user_details\npolicy\n\nget_user_details(user_id='u1')\n",
			want:   message.Message{ToolCalls: []message.ToolCall{{ID: "agent_call_1", Name: "get_user_details", Arguments: []byte(`{"user_id": "u1"}`)}}},
			screen: []string{"Commands: tools", "get_user_details(user_id)  Get the details of a user.", `parameters: {"type":"object"}`, "── policy ──\nthe policy", "calling get_user_details {\"user_id\": \"u1\"}"}},
		{name: "bad call then text", role: agents.HumanAgent, input: "get_user_details(7)\nok\n", want: message.Message{Content: "ok"},
			screen: []string{"! tool call get_user_details: arguments are given by name"}},
		{name: "done is the stop", role: agents.HumanAgent, input: "done()\n", want: message.Message{Content: "###STOP###"}, stopped: true},
		{name: "user scenario", role: agents.HumanUser, input: "scenario\nI need help ###STOP###\n", want: message.Message{Content: "I need help ###STOP###"},
			screen: []string{"── scenario ──\nthe scenario"}},
		{name: "done is no user tool", role: agents.HumanUser, input: "done()\n", err: ErrEndOfInput, screen: []string{`no tool "done"`}},
		{name: "no stop on τ-Trait's loop", role: agents.HumanAgent, noStop: true, input: "done()\nhelp\n", err: ErrEndOfInput,
			screen: []string{`no tool "done"`, "the agent has no stop on this loop"}},
		{name: "quit", role: agents.HumanAgent, input: "quit\n", err: ErrQuit},
		{name: "end of input", role: agents.HumanUser, input: "tools\n", err: ErrEndOfInput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var screen strings.Builder
			lines := NewLines(strings.NewReader(tc.input))
			defer lines.Close()
			side := testSide(tc.role)
			if tc.noStop {
				side.StopTool, side.StopToken = "", ""
			}
			h := NewHuman(side, lines, &screen, nil)
			got, err := h.Next(t.Context(), []message.Message{{Role: message.User, Content: "hi there"}})
			if !errors.Is(err, tc.err) {
				t.Fatalf("Next: err %v; want %v\nscreen:\n%s", err, tc.err, screen.String())
			}
			if tc.err == nil && (got.Content != tc.want.Content || len(got.ToolCalls) != len(tc.want.ToolCalls)) {
				t.Fatalf("Next = %+v; want %+v", got, tc.want)
			}
			for i, c := range tc.want.ToolCalls {
				g := got.ToolCalls[i]
				if g.ID != c.ID || g.Name != c.Name || string(g.Arguments) != string(c.Arguments) {
					t.Errorf("call %d = %+v; want %+v", i, g, c)
				}
			}
			if h.IsStop(got) != tc.stopped {
				t.Errorf("IsStop(%+v) = %v; want %v", got, !tc.stopped, tc.stopped)
			}
			for _, s := range append([]string{"user: hi there", "[1] " + tc.role + "> "}, tc.screen...) {
				if !strings.Contains(screen.String(), s) {
					t.Errorf("screen lacks %q:\n%s", s, screen.String())
				}
			}
			if tc.err != nil {
				if r := h.Report().(map[string]string); r["left"] != tc.err.Error() || r["implementation"] != Implementation {
					t.Errorf("report %v; want left %q", r, tc.err)
				}
			}
		})
	}
}

// TestHumanShowsResults: the results of the person's calls are shown under
// the tool's name, errors marked.
func TestHumanShowsResults(t *testing.T) {
	t.Parallel()
	var screen strings.Builder
	lines := NewLines(strings.NewReader("get_user_details(user_id='a')\nget_user_details(user_id='b')\n"))
	defer lines.Close()
	h := NewHuman(testSide(agents.HumanAgent), lines, &screen, nil)
	first, err := h.Next(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	id := first.ToolCalls[0].ID
	second, err := h.Next(t.Context(), []message.Message{{Role: message.Tool, ToolCallID: id, Content: "Error: User not found", Error: true}})
	if err != nil {
		t.Fatal(err)
	}
	if second.ToolCalls[0].ID == id {
		t.Errorf("call ids repeat: %s", id)
	}
	if s := screen.String(); !strings.Contains(s, "tool get_user_details error: Error: User not found") || !strings.Contains(s, "[2] agent> ") {
		t.Errorf("screen:\n%s", s)
	}
}

// TestHumanInterrupt: an interrupt or the simulation's deadline ends the
// wait for a line; only the interrupt is the person's leaving.
func TestHumanInterrupt(t *testing.T) {
	t.Parallel()
	block, unblock := blockingReader()
	defer unblock()
	lines := NewLines(block)
	defer lines.Close()
	stop := make(chan struct{})
	h := NewHuman(testSide(agents.HumanAgent), lines, &strings.Builder{}, stop)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := h.Next(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Next after the context's end: %v; want context.Canceled", err)
	}
	if r := h.Report().(map[string]string); r["left"] != "" {
		t.Errorf("a deadline is not the person leaving: %v", r)
	}
	close(stop)
	if _, err := h.Next(t.Context(), nil); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Next after the interrupt: %v; want ErrInterrupted", err)
	}
}

// blockingReader is a reader whose Read waits until unblock is called.
func blockingReader() (*chanReader, func()) {
	r := &chanReader{c: make(chan struct{})}
	return r, func() { close(r.c) }
}

type chanReader struct{ c chan struct{} }

func (r *chanReader) Read([]byte) (int, error) {
	<-r.c
	return 0, errors.New("closed")
}
