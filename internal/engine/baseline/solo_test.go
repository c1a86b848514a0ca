package baseline_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

func agentSource(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile(baseline.AgentSource(datatest.Root(t)))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// tripleQuoted reads a `NAME = """…""".strip()` constant with a regular
// expression: an extraction independent of pyliteral's.
func tripleQuoted(t *testing.T, src []byte, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)\n` + name + ` = """(.*?)"""\.strip\(\)`).FindSubmatch(src)
	if m == nil {
		t.Fatalf("%s not found in llm_agent.py", name)
	}
	return strings.TrimSpace(string(m[1]))
}

func TestLoadSoloUpstream(t *testing.T) {
	t.Parallel()
	src := agentSource(t)
	s, err := baseline.LoadSolo(datatest.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	stopName := string(regexp.MustCompile(`STOP_FUNCTION_NAME = "([^"]+)"`).FindSubmatch(src)[1])
	stopToken := string(regexp.MustCompile(`STOP_TOKEN = "([^"]+)"`).FindSubmatch(src)[1])
	doc := string(regexp.MustCompile(`def ` + stopName + `\(\) -> str:\s*"""([^"]+)"""`).FindSubmatch(src)[1])
	instr := strings.ReplaceAll(tripleQuoted(t, src, "AGENT_SOLO_INSTRUCTION"), "{stop_function_name}", stopName)
	tmpl := tripleQuoted(t, src, "SYSTEM_PROMPT_SOLO")

	if s.Instruction != instr {
		t.Errorf("Instruction = %q\nwant %q", s.Instruction, instr)
	}
	if s.StopToken != stopToken || s.StopTool.Name != stopName || s.StopTool.Description != doc {
		t.Errorf("stop = %q, tool %q %q; want %q, %q %q", s.StopToken, s.StopTool.Name, s.StopTool.Description, stopToken, stopName, doc)
	}
	policy, ticket := "POLICY {not a field}", "TICKET {x}"
	want := strings.NewReplacer("{agent_instruction}", instr, "{domain_policy}", policy, "{ticket}", ticket).Replace(tmpl)
	if got := s.SystemPrompt(policy, ticket); got != want {
		t.Errorf("SystemPrompt = %q\nwant %q", got, want)
	}
	tools := s.Tools([]tool.Info{{Name: "a"}, {Name: "b"}})
	if len(tools) != 3 || tools[0].Name != "a" || tools[1].Name != "b" || tools[2].Name != stopName {
		t.Errorf("Tools = %v; want a, b, %s", tools, stopName)
	}
	opts := s.Options(baseline.Options{Policy: policy, Tools: tools[:2]}, ticket)
	if opts.SystemPrompt != want || opts.ToolChoice != "required" || len(opts.Tools) != 3 {
		t.Errorf("Options = %+v", opts)
	}
}

// A missing file or symbol is a load error naming it.
func TestParseSoloMissing(t *testing.T) {
	t.Parallel()
	src := agentSource(t)
	cases := []struct {
		name, old, new, want string
	}{
		{"instruction", "\nAGENT_SOLO_INSTRUCTION = ", "\nAGENT_SOLO_INSTRUCTION_V2 = ", "symbol AGENT_SOLO_INSTRUCTION"},
		{"template", "\nSYSTEM_PROMPT_SOLO = ", "\nSYSTEM_PROMPT_SOLO_V2 = ", "symbol SYSTEM_PROMPT_SOLO"},
		{"class", "class LLMSoloAgent(", "class SoloAgent(", "symbol LLMSoloAgent"},
		{"stop name", "STOP_FUNCTION_NAME = ", "STOP_FN = ", "symbol LLMSoloAgent.STOP_FUNCTION_NAME"},
		{"stop token", "STOP_TOKEN = ", "STOP_TEXT = ", "symbol LLMSoloAgent.STOP_TOKEN"},
		{"done function", "def done() -> str:", "def finish() -> str:", "symbol done: function not found"},
		{"docstring", `"""Call this function`, `# """Call this function`, "symbol done: no docstring"},
		{"unknown field", "{stop_function_name}", "{stop_fn}", "field {stop_fn}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !bytes.Contains(src, []byte(tc.old)) {
				t.Fatalf("llm_agent.py has no %q any more: update the test", tc.old)
			}
			_, err := baseline.ParseSolo(bytes.Replace(src, []byte(tc.old), []byte(tc.new), 1))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseSolo error = %v; want one containing %q", err, tc.want)
			}
		})
	}
	_, err := baseline.LoadSolo(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "llm_agent.py") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadSolo(empty dir) error = %v; want a not-exist error naming llm_agent.py", err)
	}
}

// replies is a Generator returning fixed messages.
type replies struct{ msgs []message.Message }

func (r *replies) Generate(_ context.Context, _ llm.Request) (llm.Response, error) {
	m := r.msgs[0]
	r.msgs = r.msgs[1:]
	return llm.Response{Message: m}, nil
}

func TestSoloAgentReplies(t *testing.T) {
	t.Parallel()
	s, err := baseline.LoadSolo(datatest.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	call := func(names ...string) message.Message {
		var m message.Message
		for _, n := range names {
			m.ToolCalls = append(m.ToolCalls, message.ToolCall{ID: n, Name: n, Arguments: []byte("{}")})
		}
		return m
	}
	stopName := s.StopTool.Name
	cases := []struct {
		name     string
		reply    message.Message
		stop     bool
		calls    int
		wantErr  error
		wantText string
	}{
		{name: "tool call", reply: call("check_status_bar"), calls: 1},
		{name: "stop tool", reply: call(stopName), stop: true, wantText: s.StopToken},
		{name: "stop tool among others", reply: call("check_status_bar", stopName), stop: true, wantText: s.StopToken},
		{name: "text", reply: message.Message{Content: "All done."}, wantErr: baseline.ErrSoloText},
		{name: "recorded stop message", reply: message.Message{Content: s.StopToken}, stop: true, wantText: s.StopToken},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gen := &replies{msgs: []message.Message{tc.reply}}
			a := baseline.NewSoloAgent(baseline.New(gen, s.Options(baseline.Options{Policy: "p"}, "t")), s)
			got, err := a.Next(t.Context(), nil)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Next error = %v; want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if a.IsStop(got) != tc.stop || len(got.ToolCalls) != tc.calls || (tc.wantText != "" && got.Content != tc.wantText) {
				t.Errorf("Next = %+v (stop %v); want stop %v, %d calls, content %q", got, a.IsStop(got), tc.stop, tc.calls, tc.wantText)
			}
		})
	}
}
