package gateaudit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
