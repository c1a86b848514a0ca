package tautrait_test

import (
	"os"
	"reflect"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestOracleFirstRequests compares the first user-simulator request and the
// first agent request of every task of every split upstream loads, of
// telehealth and tautrait-telecom,
// with what upstream's own code sends, run by
// testdata/oracle/tautrait_oracle.py with litellm's completion() stubbed:
//
//	git -C <tau-trait repo> archive 5855e280d3d18ae1280b8b3ef21fe907ab62ba7e tau_trait | tar x -C /tmp/tautrait-src
//	TAUTRAIT_SRC=/tmp/tautrait-src \
//	LEDGERBENCH_TAUTRAIT_ORACLE="python3 testdata/oracle/tautrait_oracle.py" \
//	go test ./internal/engine/tautrait -run Oracle
//
// Only what is not model-facing is normalised: the model name and stream
// flag of our bodies, and litellm's routing arguments (model,
// custom_llm_provider) of upstream's calls.
func TestOracleFirstRequests(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_TAUTRAIT_ORACLE")
	if cmdline == "" || os.Getenv("TAUTRAIT_SRC") == "" {
		t.Skip("LEDGERBENCH_TAUTRAIT_ORACLE and TAUTRAIT_SRC not set")
	}
	root := datatest.Root(t)
	for _, td := range tauTraitDomains(t, root) {
		for _, split := range td.dom.Tasks().SplitNames() {
			if split != "test" && split != "dev" && split != "train" {
				continue // not a split upstream's environment loads (dev-misnamed)
			}
			firstRequests(t, cmdline, root, td, split)
		}
	}
}

func firstRequests(t *testing.T, cmdline, root string, td tauTraitDomain, split string) {
	dom := td.dom
	list := dom.Tasks().Extra[split]
	idx := make([]int, len(list))
	for i := range idx {
		idx[i] = i
	}
	var want []struct {
		Task  int            `json:"task"`
		User  map[string]any `json:"user"`
		Agent map[string]any `json:"agent"`
	}
	oracletest.JSON(t, cmdline, map[string]any{"env": td.env, "split": split, "tasks": idx, "user_opening": userOpening, "agent_answer": agentAnswer}, &want)
	if len(want) != len(list) {
		t.Fatalf("%s %s: oracle answered %d tasks; want %d", dom.Name(), split, len(want), len(list))
	}
	agentEq, userEq := 0, 0
	for _, w := range want {
		for _, m := range []map[string]any{w.User, w.Agent} {
			delete(m, "model")
			delete(m, "custom_llm_provider")
		}
		c := runFake(t, dom, root, &list[w.Task], "baseline")
		if got := normalised(t, c.user[0]); reflect.DeepEqual(got, w.User) {
			userEq++
		} else {
			t.Errorf("%s %s task %d: user request\n%s\nupstream\n%s", dom.Name(), split, w.Task, mustJSON(got), mustJSON(w.User))
		}
		if got := normalised(t, c.agent[0]); reflect.DeepEqual(got, w.Agent) {
			agentEq++
		} else {
			t.Errorf("%s %s task %d: agent request\n%.3000s\nupstream\n%.3000s", dom.Name(), split, w.Task, mustJSON(got), mustJSON(w.Agent))
		}
	}
	t.Logf("%s %s: first requests equal to upstream's: agent %d/%d, user %d/%d", dom.Name(), split, agentEq, len(want), userEq, len(want))
}
