package gateaudit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestRunGold: one domain's gold and mutation audit; the result's counts
// are the reports' own.
func TestRunGold(t *testing.T) {
	t.Parallel()
	res, err := Run(t.Context(), Options{DataDir: datatest.Root(t), Domains: []string{"retail"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Domains) != 1 || res.Domains[0].Gold.Domain != "retail" || res.Domains[0].Gold.Writes == 0 || len(res.Domains[0].Mutations) == 0 {
		t.Fatalf("Run(retail) = %+v", res.Domains)
	}
	if got, want := res.FalsePositives(), res.Domains[0].Gold.FalsePositives; got != want {
		t.Errorf("FalsePositives() = %d; want the gold report's %d", got, want)
	}
	if len(res.Files) != 0 || len(res.Verdicts()) != 0 {
		t.Errorf("no recorded files given, got %d", len(res.Files))
	}
}

// TestRecordedFileNeedsDomain: a results file that names no domain is
// refused before anything is loaded.
func TestRecordedFileNeedsDomain(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(p, []byte(`{"timestamp": "", "info": {}, "tasks": [], "simulations": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded := false
	_, _, err := RecordedFile(t.Context(), p, func(string, bool) (envs.Domain, error) { loaded = true; return nil, nil })
	if err == nil || !strings.Contains(err.Error(), "no info.environment_info.domain_name") || loaded {
		t.Errorf("err = %v (loaded %v); want the missing domain name named, nothing loaded", err, loaded)
	}
}

// TestRecordedV1: a τ-Trait results list (telecom_none.json) is audited in
// shadow mode like a τ²-bench file: every run, every recorded write (the
// first tool call of each agent message naming a write tool), each run
// rescored to its recorded outcome.
func TestRecordedV1(t *testing.T) {
	t.Parallel()
	path := filepath.Join(datatest.Trajectories(t), "collinear-ai+tau-trait", "telecom_none.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no τ-Trait telecom recording: %v", err)
	}
	var list []struct {
		Traj []struct {
			Role      string `json:"role"`
			ToolCalls []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"traj"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	writeTools := []string{"manage_service", "create_support_ticket", "add_device", "manage_billing", "modify_support_ticket", "record_payment"}
	writes := 0
	for _, r := range list {
		for _, m := range r.Traj {
			if m.Role == "assistant" && len(m.ToolCalls) > 0 && slices.Contains(writeTools, m.ToolCalls[0].Function.Name) {
				writes++
			}
		}
	}
	root := datatest.Root(t)
	reps, _, err := RecordedFile(t.Context(), path, func(d string, solo bool) (envs.Domain, error) { return domains.Load(d, root) })
	if err != nil {
		t.Fatal(err)
	}
	runs, got := 0, 0
	for _, r := range reps {
		runs += r.Runs
		got += r.Writes
		if r.Domain != "tautrait-telecom" || r.Outcome != r.Rescored {
			t.Errorf("report %+v: want tautrait-telecom, rescored as recorded", r)
		}
	}
	if runs != len(list) || got != writes {
		t.Errorf("%d runs, %d writes; want %d, %d", runs, got, len(list), writes)
	}
}
