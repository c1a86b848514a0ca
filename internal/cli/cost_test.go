package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
)

// TestUnpricedBackboneCostUnknown: a backbone without price: is not costed
// at $0. Its records say the cost is unknown, and so do the run summary,
// every report format, the view data and the τ²-bench export; an offline
// backbone costs $0, known.
func TestUnpricedBackboneCostUnknown(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewHandlerServer(t, fakeRetail)
	tmp := t.TempDir()
	bb := filepath.Join(tmp, "backbones.yaml")
	if err := os.WriteFile(bb, []byte(fmt.Sprintf("backbones:\n  free:\n    base_url: %s\n    model: fake-model\n    max_retries: 0\n", srv.BaseURL())), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "run")
	r, err := runWithEnv(t, t.Context(), nil, "--domain", "retail", "--backbone", "free", "--user-backbone", "free", "--no-judge",
		"--backbones", bb, "--trials", "1", "--limit", "2", "--out", dir)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, r.errOut)
	}
	if !strings.Contains(r.errOut, "cost unknown: no price for agent free, user free") {
		t.Errorf("header does not name the unpriced backbones:\n%s", r.errOut)
	}
	if !strings.Contains(r.out, "cost         unknown") || strings.Contains(r.out, "$0.0000 total") || !strings.Contains(r.out, "agent") ||
		!strings.Contains(r.out, "$— (unknown in 2 simulations: no price)") {
		t.Errorf("summary prices an unpriced backbone:\n%s", r.out)
	}
	for _, rec := range loadRun(t, dir).Records {
		if !rec.IsUnknown(results.UnknownAgentCost) || !rec.IsUnknown(results.UnknownUserCost) || rec.IsUnknown(results.UnknownJudgeCost) {
			t.Errorf("record %s/%d: unknown %v; want agent_cost and user_cost (no judge was asked)", rec.TaskID, rec.Trial, rec.Unknown)
		}
	}

	sim := filepath.Join(tmp, "sim")
	mustRun(t, "run", "--domain", "retail", "--backbone", "sim", "--no-judge", "--trials", "1", "--limit", "2", "--quiet", "--out", sim)

	// The costs table: unknown is —, the offline backbone's $0 is a value.
	rep := mustRun(t, "report", dir, sim, "--table", "costs")
	var free, offline string
	for _, line := range strings.Split(rep.out, "\n") {
		switch {
		case strings.Contains(line, "| free "):
			free = line
		case strings.Contains(line, "| sim "):
			offline = line
		}
	}
	cells := func(line string) []string {
		var out []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			out = append(out, strings.TrimSpace(c))
		}
		return out
	}
	if c := cells(free); len(c) < 14 || c[9] != "—" || c[10] != "—" || c[12] != "—" || c[13] != "—" {
		t.Errorf("unpriced group row %q; want agent, user, total and per-simulation cost —\n%s", free, rep.out)
	}
	if c := cells(offline); len(c) < 14 || c[9] != "0.0000" || c[12] != "0.0000" {
		t.Errorf("offline group row %q; want a known $0\n%s", offline, rep.out)
	}
	if !strings.Contains(rep.out, "agent cost in 2 of 2") {
		t.Errorf("costs notes do not say the cost is unknown:\n%s", rep.out)
	}

	// JSON: null, never 0.
	js := mustRun(t, "report", dir, "--format", "json")
	var got struct {
		Groups []struct {
			Cost struct {
				AgentCost *float64       `json:"agent_cost"`
				Total     *float64       `json:"total_cost"`
				Unknown   map[string]int `json:"unknown"`
			} `json:"cost"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(js.out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Groups) != 1 || got.Groups[0].Cost.AgentCost != nil || got.Groups[0].Cost.Total != nil || got.Groups[0].Cost.Unknown[results.UnknownAgentCost] != 2 {
		t.Errorf("JSON cost %+v; want agent_cost and total_cost null, unknown counted", got.Groups)
	}

	// The τ²-bench export writes null as upstream does for a cost it
	// could not compute, and reading it back keeps it unknown.
	exp := filepath.Join(tmp, "export.json")
	mustRun(t, "export", "--format", "tau2", dir, exp)
	f, err := results.ReadTau2(exp)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Simulations {
		if s.AgentCost != nil {
			t.Errorf("exported agent_cost %v; want null", *s.AgentCost)
		}
	}
	back, err := results.FromTau2(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) == 0 || !back[0].IsUnknown(results.UnknownAgentCost) {
		t.Errorf("imported record: unknown %v", back[0].Unknown)
	}
}
