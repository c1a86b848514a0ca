package telecom

import (
	"context"
	"os"
	"regexp"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
)

// TestDifferentialOracle runs the scenarios of testdata/cases.json plus
// random call sequences (LEDGERBENCH_TELECOM_ORACLE_N of them, default 300,
// from LEDGERBENCH_TELECOM_ORACLE_SEED) through an external reference implementation and
// compares every output and both final databases. It runs only when
// LEDGERBENCH_TELECOM_ORACLE names the command, e.g.
//
//	LEDGERBENCH_TELECOM_ORACLE="python3 testdata/oracle/telecom_oracle.py /path/to/tau2-bench"
//
// (see that script: it drives upstream's own telecom toolkits).
func TestDifferentialOracle(t *testing.T) {
	t.Parallel()
	cmdline := os.Getenv("LEDGERBENCH_TELECOM_ORACLE")
	if cmdline == "" {
		t.Skip("LEDGERBENCH_TELECOM_ORACLE not set")
	}
	n := oracletest.EnvInt(t, "LEDGERBENCH_TELECOM_ORACLE_N", 300)
	seed := uint64(oracletest.EnvInt(t, "LEDGERBENCH_TELECOM_ORACLE_SEED", 1))
	d := domainForTest(t)
	cases := loadScenarios(t)
	cases = append(cases, randomScenarios(d, n, seed)...)
	seqs := make([][]step, len(cases))
	for i, c := range cases {
		seqs[i] = c.Steps
	}
	var want []struct {
		Results []outcome `json:"results"`
		AgentDB string    `json:"agent_db"`
		UserDB  string    `json:"user_db"`
	}
	oracletest.JSON(t, cmdline, map[string]any{"cases": seqs}, &want)
	if len(want) != len(cases) {
		t.Fatalf("oracle answered %d cases; want %d", len(want), len(cases))
	}
	ctx := context.Background()
	calls, same := 0, 0
	for i, c := range cases {
		e := d.newEnv()
		for j, s := range c.Steps {
			got := runStep(ctx, e, s)
			w := want[i].Results[j]
			calls++
			if got == w {
				same++
				continue
			}
			if reason, ok := knownOracleDivergence(s, got, w); ok {
				t.Logf("case %q step %d %s: known divergence (%s)", c.Name, j, s.Name, reason)
				continue
			}
			t.Errorf("case %q step %d %s %s:\n got %q %v\nwant %q %v", c.Name, j, s.Name, s.Arguments, got.Content, got.Error, w.Content, w.Error)
		}
		a, u := dumps(e)
		if a != want[i].AgentDB {
			t.Errorf("case %q: agent db differs: %s", c.Name, firstDiff(a, want[i].AgentDB))
		}
		if u != want[i].UserDB {
			t.Errorf("case %q: user db differs: %s", c.Name, firstDiff(u, want[i].UserDB))
		}
	}
	t.Logf("%d cases, %d calls, %d identical outputs", len(cases), calls, same)
}

// knownOracleDivergence accepts what the port cannot reproduce: the pydantic
// version in its errors' links.
func knownOracleDivergence(_ step, got, want outcome) (string, bool) {
	if pydanticVersion.ReplaceAllString(got.Content, "") == pydanticVersion.ReplaceAllString(want.Content, "") && got.Error == want.Error {
		return "pydantic version in the errors URL", true
	}
	return "", false
}

// pydanticVersion matches the version in pydantic's documentation links:
// the port cites upstream's locked 2.12, the oracle whichever is installed.
var pydanticVersion = regexp.MustCompile(`errors\.pydantic\.dev/[0-9.]+/`)

// firstDiff shows both strings around their first difference.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-120)
	return "\n got ..." + got[from:min(len(got), i+80)] + "\nwant ..." + want[from:min(len(want), i+80)]
}
