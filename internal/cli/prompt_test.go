package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/judge"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

type wireBody struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string  `json:"role"`
		Content *string `json:"content"`
	} `json:"messages"`
	Tools       []json.RawMessage `json:"tools"`
	ToolChoice  *string           `json:"tool_choice"`
	Temperature *float64          `json:"temperature"`
	Seed        *int64            `json:"seed"`
}

// The prompt command prints the first request of each role from the pulled
// upstream text, with the run's seed and the backbone's sampling, and calls
// nothing (the backbone's URL is unreachable).
func TestPromptCommand(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	bb := writeBackbones(t, t.TempDir(), "http://127.0.0.1:1/v1", time.Second)
	dom, err := domains.Load("airline", root)
	if err != nil {
		t.Fatal(err)
	}
	ap, err := baseline.LoadPrompt(root)
	if err != nil {
		t.Fatal(err)
	}
	up, err := usersim.LoadPrompt(root)
	if err != nil {
		t.Fatal(err)
	}
	jp, err := judge.LoadPrompt(root)
	if err != nil {
		t.Fatal(err)
	}
	seed := runner.TrialSeeds(300, 1)[0]
	sel, err := dom.Tasks().Select(tasksSel("0"))
	if err != nil || len(sel) != 1 {
		t.Fatalf("task 0: %v", err)
	}
	task := sel[0]
	cases := []struct {
		role  string
		check func(t *testing.T, b wireBody)
	}{
		{"agent", func(t *testing.T, b wireBody) {
			if len(b.Messages) != 3 || *b.Messages[0].Content != ap.System(dom.Policy()) || *b.Messages[1].Content != ap.Greeting ||
				b.Messages[1].Role != "assistant" ||
				*b.Messages[2].Content != placeholderUserMessage {
				t.Errorf("messages %+v", b.Messages)
			}
			if len(b.Tools) != len(dom.AgentTools()) || b.ToolChoice == nil || *b.ToolChoice != "auto" {
				t.Errorf("%d tools, tool_choice %v", len(b.Tools), b.ToolChoice)
			}
		}},
		{"user", func(t *testing.T, b wireBody) {
			if len(b.Messages) != 2 || *b.Messages[0].Content != up.System(false, "", task.UserScenario.String()) ||
				b.Messages[1].Role != "user" || *b.Messages[1].Content != ap.Greeting || b.Tools != nil || b.ToolChoice != nil {
				t.Errorf("messages %+v tools %d", b.Messages, len(b.Tools))
			}
		}},
		{"judge", func(t *testing.T, b wireBody) {
			if len(b.Messages) != 2 || *b.Messages[0].Content != jp.System || b.Tools != nil || b.Seed != nil {
				t.Errorf("messages %+v seed %v", b.Messages, b.Seed)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.role, func(t *testing.T) {
			r := mustRun(t, "prompt", "--domain", "airline", "--task", "0", "--role", tc.role, "--backbones", bb, "--backbone", "fake")
			var b wireBody
			if err := json.Unmarshal([]byte(r.out), &b); err != nil {
				t.Fatalf("output is not one JSON body: %v\n%s", err, r.out)
			}
			if b.Model != "fake-model" || b.Temperature == nil || *b.Temperature != 0 {
				t.Errorf("model %q temperature %v", b.Model, b.Temperature)
			}
			if tc.role != "judge" && (b.Seed == nil || *b.Seed != seed) {
				t.Errorf("seed %v; want %d", b.Seed, seed)
			}
			tc.check(t, b)
			if tc.role == "agent" && !strings.Contains(r.out, `{"role":"assistant","content":`+string(mustJSON(t, ap.Greeting))+`,"tool_calls":null}`) {
				t.Errorf("the greeting is not sent as upstream's text assistant message (tool_calls null)")
			}
		})
	}
	if r := execCLI(t, t.Context(), "prompt", "--domain", "airline", "--task", "0", "--role", "boss", "--backbones", bb, "--backbone", "fake"); r.code != ExitUsage {
		t.Errorf("bad role: exit %d", r.code)
	}
}

// run --record-requests writes every body the fake server received, once,
// and the manifest says the baseline's text is upstream's.
func TestRunRecordRequests(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewHandlerServer(t, fakeRetail)
	tmp := t.TempDir()
	bb := writeBackbones(t, tmp, srv.BaseURL(), 10*time.Second)
	dir := filepath.Join(tmp, "run")
	if r, err := runInProcess(t, t.Context(), "--domain", "retail", "--backbone", "fake", "--backbones", bb, "--trials", "1",
		"--task-ids", "0,1", "--out", dir, "--quiet", "--record-requests"); err != nil {
		t.Fatalf("run: %v\n%s", err, r.errOut)
	}
	f, err := os.Open(filepath.Join(dir, requestsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sent := map[string]int{}
	for _, r := range srv.Requests() {
		sent[string(r.Body)]++
	}
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var line struct {
			Backbone string          `json:"backbone"`
			Cached   bool            `json:"cached"`
			Body     json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if line.Backbone != "fake" || sent[string(line.Body)] == 0 {
			t.Errorf("line %d: backbone %q, body not among those sent", n, line.Backbone)
		}
		sent[string(line.Body)]--
		n++
	}
	if n != len(srv.Requests()) {
		t.Errorf("%d recorded requests; the server got %d", n, len(srv.Requests()))
	}
	m := loadRun(t, dir).Manifest
	if m.Prompts != results.PromptsUpstream || m.PromptHashes["agent_system"] == "" || m.PromptHashes["agent_greeting"] == "" ||
		m.PromptHashes["user_system_template"] == "" || m.PromptHashes["judge_system"] == "" || m.PromptHashes["agent_tools"] == "" {
		t.Errorf("manifest prompts %q hashes %v", m.Prompts, m.PromptHashes)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func tasksSel(id string) tasks.Selection { return tasks.Selection{Split: "all", TaskIDs: []string{id}} }
