package telecom

import (
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
)

var update = flag.Bool("update", false, "update golden files")

// TestScenarios runs every scenario of testdata/cases.json (each user and
// agent tool with its branches and error paths, every device state
// transition the tasks use, the calling convention) on a fresh environment
// and compares the transcript with testdata/cases.golden. The same scenarios
// are checked against upstream's code by TestDifferentialOracle.
func TestScenarios(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	ctx := context.Background()
	var b strings.Builder
	for _, c := range loadScenarios(t) {
		e := d.newEnv()
		b.WriteString("=== " + c.Name + "\n")
		for _, s := range c.Steps {
			mode := ""
			if s.Mode == "func" {
				mode = " (function)"
			}
			b.WriteString("> " + string(s.Side) + " " + s.Name + mode + " " + string(s.Arguments) + "\n")
			o := runStep(ctx, e, s)
			if o.Error {
				b.WriteString("[error] ")
			}
			b.WriteString(o.Content + "\n")
		}
		a, u := dumps(e)
		b.WriteString("--- agent db " + shortHash(a) + ", user db " + shortHash(u) + "\n\n")
	}
	goldentest.Check(t, *update, "cases.golden", b.String())
}

// TestScenariosCoverEverything checks that testdata/cases.json calls every
// tool and every environment function of both sides at least once.
func TestScenariosCoverEverything(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	called := map[string]bool{}
	for _, c := range loadScenarios(t) {
		for _, s := range c.Steps {
			called[string(s.Side)+" "+s.Name] = true
		}
	}
	for side, sets := range map[string][]interface{ Infos() []tool.Info }{
		"assistant": {d.agent, d.agentFn},
		"user":      {d.user, d.userFn},
	} {
		for _, set := range sets {
			for _, ti := range set.Infos() {
				if !called[side+" "+ti.Name] {
					t.Errorf("no scenario calls %s %s", side, ti.Name)
				}
			}
		}
	}
}
