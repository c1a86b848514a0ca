package telecom

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// loaded caches the domain across tests: loading parses the 14 MB tasks file.
var loaded datatest.Cache[*Domain]

func domainForTest(tb testing.TB) *Domain {
	tb.Helper()
	return loaded.Get(tb, Load)
}

// step is one call of a scenario: a tool call answered as upstream's
// get_response ("tool"), or an environment function as
// run_env_function_call ("func").
type step struct {
	Side      message.Requestor `json:"side"`
	Mode      string            `json:"mode"`
	Name      string            `json:"name"`
	Arguments json.RawMessage   `json:"arguments"`
}

type scenario struct {
	Name  string `json:"name"`
	Steps []step `json:"steps"`
}

// outcome is a step's output as the oracle protocol reports it.
type outcome struct {
	Content string
	Error   bool
}

func (o *outcome) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil || len(pair) != 2 {
		return err
	}
	if err := json.Unmarshal(pair[0], &o.Content); err != nil {
		return err
	}
	return json.Unmarshal(pair[1], &o.Error)
}

func (o outcome) MarshalJSON() ([]byte, error) { return json.Marshal([]any{o.Content, o.Error}) }

func runStep(ctx context.Context, e *Env, s step) outcome {
	if s.Mode == "func" {
		res, err := e.RunFunction(ctx, s.Side, s.Name, s.Arguments)
		if err != nil {
			return outcome{"Error: " + err.Error(), true}
		}
		return outcome{pyjson.String(res), false}
	}
	m := envs.Respond(ctx, e, message.ToolCall{ID: "call", Name: s.Name, Arguments: s.Arguments, Requestor: s.Side})
	return outcome{m.Content, m.Error}
}

// dumps returns json.dumps of both databases' model dumps.
func dumps(e *Env) (agent, user string) {
	a, u := e.DumpDB()
	return pyjson.String(a), pyjson.String(u)
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

func loadScenarios(t *testing.T) []scenario {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []scenario
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func testRoot(tb testing.TB) string { return datatest.Root(tb) }
