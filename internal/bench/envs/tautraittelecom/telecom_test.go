package tautraittelecom

import (
	"context"
	"strconv"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/core/message"

	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

var domainCache datatest.Cache[*Domain]

// loadDomain loads the domain from the test data once per test binary
// (skipping when the data is absent).
func loadDomain(t testing.TB) *Domain {
	t.Helper()
	return domainCache.Get(t, func(root string) (*Domain, error) { return Load(root) })
}

// TestToolCasesKeepSharedData plays every tool case (testdata/tool_cases.json,
// which reaches every tool's changes and error paths) and checks that the
// loaded database, shared by all simulations, is unchanged, and that a
// fresh environment sees none of the changes.
func TestToolCasesKeepSharedData(t *testing.T) {
	t.Parallel()
	d := loadDomain(t)
	before := dump(d.Env())
	ctx := context.Background()
	for _, c := range toolCases(t) {
		env := d.Env()
		for j, call := range c.Calls {
			envs.Respond(ctx, env, message.ToolCall{ID: strconv.Itoa(j), Name: call.Name, Arguments: call.Kwargs})
			if now := dump(d.Env()); now != before {
				t.Fatalf("%s: call %d (%s %s) changed the shared data", c.label, j, call.Name, call.Kwargs)
			}
		}
		if agent, _ := env.SameDB(d.Env()); agent && c.label != "tool case lookups" && c.label != "tool case discount" && c.label != "tool case troubleshoot" {
			t.Errorf("%s: the changed environment compares equal to a fresh one", c.label)
		}
	}
}

// dump is json.dumps of an environment's data dict.
func dump(e *tauv1.Env) string {
	s, err := tauv1.Dumps(e.State.Dump())
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return s
}
