package baseline_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/telecom"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// TestSoloPromptOracle compares the solo system prompt of every telecom
// base task, and the stop tool, with what upstream's own LLMSoloAgent code
// builds (testdata/oracle/solo_prompt.py runs it from a tau2-bench
// checkout):
//
//	TAU2_SRC=/path/to/tau2-bench/src \
//	LEDGERBENCH_SOLO_ORACLE="python3 testdata/oracle/solo_prompt.py" \
//	go test ./baseline -run SoloPromptOracle
func TestSoloPromptOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_SOLO_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_SOLO_ORACLE not set")
	}
	root := datatest.Root(t)
	dom, err := telecom.LoadSolo(root, telecom.Manual)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := dom.Tasks().Select(tasks.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	var tickets []string
	for _, task := range ts {
		tickets = append(tickets, *task.Ticket)
	}
	in, _ := json.Marshal(map[string]any{"policy": dom.Policy(), "tickets": tickets})
	args := strings.Fields(cmdline)
	cmd := exec.CommandContext(t.Context(), args[0], args[1:]...)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	var want struct {
		SystemPrompts []string `json:"system_prompts"`
		StopTool      string   `json:"stop_tool"`
		StopDoc       string   `json:"stop_doc"`
		StopToken     string   `json:"stop_token"`
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("oracle output: %v", err)
	}
	s, err := baseline.LoadSolo(root)
	if err != nil {
		t.Fatal(err)
	}
	if s.StopTool.Name != want.StopTool || s.StopTool.Description != strings.TrimSpace(want.StopDoc) || s.StopToken != want.StopToken {
		t.Errorf("stop tool %q %q token %q; upstream %q %q %q", s.StopTool.Name, s.StopTool.Description, s.StopToken, want.StopTool, want.StopDoc, want.StopToken)
	}
	if len(want.SystemPrompts) != len(ts) {
		t.Fatalf("oracle gave %d prompts for %d tasks", len(want.SystemPrompts), len(ts))
	}
	same := 0
	for i, task := range ts {
		if got := s.SystemPrompt(dom.Policy(), *task.Ticket); got != want.SystemPrompts[i] {
			t.Errorf("task %s: system prompt differs from upstream's", task.ID)
		} else {
			same++
		}
	}
	t.Logf("%d/%d solo system prompts identical to upstream's", same, len(ts))
}
