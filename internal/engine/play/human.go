// Package play has a person play one side of a simulation at a terminal:
// `ledgerbench play`, τ²-bench's manual mode (src/tau2/scripts/manual_mode.py
// over its gym environments). Human is an orchestrator participant, the
// agent or the user, that shows the person what its side receives and reads
// its side's next message from lines of input; Run plans one simulation with
// a Human on one side through the same planner, orchestrator, recording and
// evaluator as `ledgerbench run`, so the result is an ordinary run directory.
//
// The texts the person reads about the domain (policy, tool descriptions,
// scenario, ticket) are the pulled upstream files' as the models get them;
// the prompts, help and notices are this package's own.
package play

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
)

// Why a person's side ended the conversation without a stop: the
// simulation ends with agent_error or user_error and this error, and is
// scored (reward 0, as upstream scores every end other than a stop).
var (
	ErrQuit        = errors.New("the player quit")
	ErrEndOfInput  = errors.New("the player's input ended (EOF) before the conversation did")
	ErrInterrupted = errors.New("the player interrupted the conversation (Ctrl-C)")
)

// Implementation names a person's side in the record's agent_info or
// user_info.
const Implementation = "human"

// Side is what a person playing one side can be shown: its tools, the
// agent's policy, the user's scenario, the solo ticket.
type Side struct {
	// Role is agents.HumanAgent or agents.HumanUser.
	Role string
	// Tools are the side's tools (the agent's, or the user's own: telecom's
	// phone), in upstream order.
	Tools []tool.Info
	// Policy is the agent's policy (shown to the user on request too, as
	// upstream's manual mode shows it "for reference").
	Policy string
	// Scenario is the user's scenario (playing the user).
	Scenario string
	// Ticket is the solo mode's ticket ("" outside solo mode).
	Ticket string
	// StopTool and StopToken: a call of StopTool (the agent's `done`)
	// becomes the message StopToken, which ends the conversation with
	// agent_stop, as upstream's GymAgent and solo agent turn it. Empty on
	// a loop where the agent cannot stop (τ-Trait's).
	StopTool, StopToken string
}

// agent reports whether the side is the agent.
func (s *Side) agent() bool { return s.Role == agents.HumanAgent }

// Lines reads a person's input a line at a time, in the background, so
// that waiting for a line can end on an interrupt or a deadline.
type Lines struct {
	ch   chan lineOrErr
	done chan struct{}
	stop sync.Once
}

type lineOrErr struct {
	text string
	err  error
}

// NewLines starts reading r. Close ends the reader (a read in progress
// ends with r).
func NewLines(r io.Reader) *Lines {
	l := &Lines{ch: make(chan lineOrErr), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			select {
			case l.ch <- lineOrErr{text: sc.Text()}:
			case <-l.done:
				return
			}
		}
		err := sc.Err()
		if err == nil {
			err = io.EOF
		}
		select {
		case l.ch <- lineOrErr{err: err}:
		case <-l.done:
		}
		close(l.ch)
	}()
	return l
}

// Close stops reading.
func (l *Lines) Close() { l.stop.Do(func() { close(l.done) }) }

// next waits for a line, ctx's end or interrupt.
func (l *Lines) next(ctx context.Context, interrupt <-chan struct{}) (string, error) {
	select {
	case x, ok := <-l.ch:
		if !ok {
			return "", io.EOF
		}
		return x.text, x.err
	case <-interrupt:
		return "", ErrInterrupted
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Human is a person playing one side of one conversation: an
// orchestrator.Agent (with its stop rule) or orchestrator.User.
type Human struct {
	side      Side
	in        *Lines
	out       io.Writer
	interrupt <-chan struct{}

	step, calls int
	// names are the tools of the person's last calls by call id (a result
	// is shown under its tool's name).
	names map[string]string
	left  string // why the person left, for the report
}

// NewHuman returns a person playing side, reading in, writing out; a
// receive on interrupt (Ctrl-C) ends its turn with ErrInterrupted.
func NewHuman(side Side, in *Lines, out io.Writer, interrupt <-chan struct{}) *Human {
	return &Human{side: side, in: in, out: out, interrupt: interrupt, names: map[string]string{}}
}

// Next shows what the side received and reads the person's next message.
func (h *Human) Next(ctx context.Context, incoming []message.Message) (message.Message, error) {
	h.show(incoming)
	h.step++
	for {
		fmt.Fprintf(h.out, "\n[%d] %s> ", h.step, h.side.Role)
		line, err := h.in.next(ctx, h.interrupt)
		if err != nil {
			fmt.Fprintln(h.out)
			if errors.Is(err, io.EOF) {
				err = ErrEndOfInput
			}
			if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				h.left = err.Error()
			}
			return message.Message{}, err
		}
		msg, done, err := h.act(line)
		switch {
		case errors.Is(err, ErrQuit):
			return message.Message{}, err
		case err != nil:
			fmt.Fprintf(h.out, "  ! %v\n", err)
		case done:
			return msg, nil
		}
	}
}

// act handles one line: a command (shown, no message), quit (ErrQuit), or
// the side's message.
func (h *Human) act(line string) (message.Message, bool, error) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "":
		fmt.Fprintln(h.out, "  (type a message, a tool call, or help)")
		return message.Message{}, false, nil
	case "help":
		h.help()
		return message.Message{}, false, nil
	case "tools":
		h.tools()
		return message.Message{}, false, nil
	case "policy":
		h.text("policy", h.side.Policy)
		return message.Message{}, false, nil
	case "scenario":
		h.text("scenario", h.side.Scenario)
		return message.Message{}, false, nil
	case "ticket":
		h.text("ticket", h.side.Ticket)
		return message.Message{}, false, nil
	case "quit", "exit":
		h.left = ErrQuit.Error()
		return message.Message{}, false, ErrQuit
	}
	if name, ok := strings.CutPrefix(strings.TrimSpace(line), "tool "); ok && !strings.ContainsAny(name, "({ ") {
		h.describe(name)
		return message.Message{}, false, nil
	}
	a, err := parseAction(line, h.known)
	if err != nil {
		return message.Message{}, false, err
	}
	if a.call == nil {
		return message.Message{Content: a.text}, true, nil
	}
	if h.side.agent() && h.side.StopTool != "" && a.call.Name == h.side.StopTool {
		fmt.Fprintf(h.out, "  ending the conversation (%s)\n", h.side.StopToken)
		return message.Message{Content: h.side.StopToken}, true, nil
	}
	h.calls++
	a.call.ID = fmt.Sprintf("%s_call_%d", h.side.Role, h.calls)
	h.names[a.call.ID] = a.call.Name
	fmt.Fprintf(h.out, "  calling %s %s\n", a.call.Name, a.call.Arguments)
	return message.Message{ToolCalls: []message.ToolCall{*a.call}}, true, nil
}

// known reports whether name is one of the side's tools (or the agent's
// stop tool).
func (h *Human) known(name string) bool {
	if h.side.agent() && h.side.StopTool != "" && name == h.side.StopTool {
		return true
	}
	return slices.ContainsFunc(h.side.Tools, func(t tool.Info) bool { return t.Name == name })
}

// IsStop is the agent's stop rule (upstream's GymAgent.is_stop): a message
// holding the stop token. The user's stops are the orchestrator's tokens.
func (h *Human) IsStop(m message.Message) bool {
	return h.side.agent() && h.side.StopToken != "" && strings.Contains(m.Content, h.side.StopToken)
}

// Report names the side's implementation, the role and how the person
// left when they left without a stop.
func (h *Human) Report() any {
	r := map[string]string{"implementation": Implementation, "role": h.side.Role}
	if h.left != "" {
		r["left"] = h.left
	}
	return r
}

// show prints the messages the side received since its last turn.
func (h *Human) show(incoming []message.Message) {
	for _, m := range incoming {
		switch m.Role {
		case message.Tool:
			name := h.names[m.ToolCallID]
			if name == "" {
				name = m.Name
			}
			label := "result"
			if m.Error {
				label = "error"
			}
			fmt.Fprintf(h.out, "tool %s %s: %s\n", name, label, m.Content)
		case message.Assistant:
			who := "agent"
			if h.side.agent() {
				who = "agent (you, the greeting)"
			}
			fmt.Fprintf(h.out, "%s: %s\n", who, m.Content)
		case message.User:
			fmt.Fprintf(h.out, "user: %s\n", m.Content)
		default:
			fmt.Fprintf(h.out, "%s: %s\n", m.Role, m.Content)
		}
	}
}

// Intro prints what the person starts with: the role, the tools, and the
// policy (agent), the scenario (user) or the ticket (solo).
func (h *Human) Intro() {
	fmt.Fprintf(h.out, "You play the %s. Type help for the commands.\n", h.side.Role)
	h.tools()
	switch {
	case h.side.Ticket != "":
		h.text("ticket", h.side.Ticket)
	case h.side.agent():
		h.text("policy", h.side.Policy)
	default:
		h.text("scenario", h.side.Scenario)
	}
}

func (h *Human) help() {
	w := h.out
	fmt.Fprintln(w, "  Type a message to send it, or call a tool:")
	fmt.Fprintln(w, "    name(arg='value', n=1)                 Python keyword arguments")
	fmt.Fprintln(w, `    name {"arg": "value"}                  JSON arguments`)
	fmt.Fprintln(w, `    {"name": "x", "arguments": {...}}      a JSON tool call`)
	fmt.Fprintln(w, `  A line starting with \ is sent as text.`)
	fmt.Fprintln(w, "  Commands: tools, tool NAME (its parameters), help, quit")
	if h.side.agent() {
		fmt.Fprintln(w, "            policy"+map[bool]string{true: ", ticket", false: ""}[h.side.Ticket != ""])
		if h.side.StopTool != "" {
			fmt.Fprintf(w, "  %s() ends the conversation (agent_stop).\n", h.side.StopTool)
		} else {
			fmt.Fprintf(w, "  The user ends the conversation (%s); the agent has no stop on this loop.\n", orchestrator.StopTokens()[0])
		}
	} else {
		fmt.Fprintln(w, "            scenario, policy")
		fmt.Fprintf(w, "  A message holding %s ends the conversation.\n", strings.Join(orchestrator.StopTokens(), ", "))
	}
	fmt.Fprintln(w, "  quit, end of input (Ctrl-D) or Ctrl-C leave the conversation unfinished (recorded, reward 0).")
}

func (h *Human) tools() {
	if len(h.side.Tools) == 0 {
		fmt.Fprintln(h.out, "Tools: none")
		return
	}
	fmt.Fprintln(h.out, "Tools:")
	for _, t := range h.side.Tools {
		fmt.Fprintf(h.out, "  %s(%s)  %s\n", t.Name, params(t), firstLine(t.Description))
	}
	if h.side.agent() && h.side.StopTool != "" {
		fmt.Fprintf(h.out, "  %s()  ends the conversation\n", h.side.StopTool)
	}
}

// describe prints one tool's description and parameter schema.
func (h *Human) describe(name string) {
	i := slices.IndexFunc(h.side.Tools, func(t tool.Info) bool { return t.Name == name })
	if i < 0 {
		fmt.Fprintf(h.out, "  ! no tool %q (type tools to list them)\n", name)
		return
	}
	t := h.side.Tools[i]
	fmt.Fprintf(h.out, "%s(%s)\n%s\nparameters: %s\n", t.Name, params(t), strings.TrimSpace(t.Description), t.Parameters)
}

func (h *Human) text(title, s string) {
	if strings.TrimSpace(s) == "" {
		fmt.Fprintf(h.out, "  (no %s)\n", title)
		return
	}
	fmt.Fprintf(h.out, "── %s ──\n%s\n── end of %s ──\n", title, strings.TrimSpace(s), title)
}

// params lists a tool's parameters, optional ones marked with "?".
func params(t tool.Info) string {
	ps := make([]string, len(t.Params))
	for i, p := range t.Params {
		ps[i] = p.Name
		if !p.Required {
			ps[i] += "?"
		}
	}
	return strings.Join(ps, ", ")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

var (
	_ orchestrator.Agent    = (*Human)(nil)
	_ orchestrator.User     = (*Human)(nil)
	_ orchestrator.Stopper  = (*Human)(nil)
	_ orchestrator.Reporter = (*Human)(nil)
)
