package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// --ledger-placement tail is recorded in the manifest and the prompt hashes
// (the default leaves both as before), resumes as it ran, and is refused for
// an agent that renders no ledger.
func TestLedgerPlacementRecorded(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	common := []string{"run", "--domain", "retail", "--backbone", "sim", "--no-judge", "--limit", "2", "--trials", "1", "--quiet"}
	sys, tail := filepath.Join(tmp, "system"), filepath.Join(tmp, "tail")
	mustRun(t, append(common, "--agent", "ledger", "--out", sys)...)
	mustRun(t, append(common, "--agent", "ledger", "--ledger-placement", "tail", "--out", tail)...)
	ms, mt := loadRun(t, sys).Manifest, loadRun(t, tail).Manifest
	if ms.LedgerPlacement != "" || ms.PromptHashes["ledger_placement"] != "" {
		t.Errorf("default placement recorded %q, hash %q; want both absent", ms.LedgerPlacement, ms.PromptHashes["ledger_placement"])
	}
	if mt.LedgerPlacement != "tail" || mt.PromptHashes["ledger_placement"] == "" {
		t.Errorf("tail placement recorded %q, hash %q; want tail and a hash", mt.LedgerPlacement, mt.PromptHashes["ledger_placement"])
	}
	if ms.PromptHashes["agent_system"] != mt.PromptHashes["agent_system"] {
		t.Errorf("the system prompt's hash differs between placements")
	}
	mustRun(t, "run", "--resume", "--out", tail, "--quiet")
	if r := execCLI(t, t.Context(), append(common, "--agent", "ledger", "--ledger-placement", "system", "--out", tail)...); r.code == ExitOK || !strings.Contains(r.errOut, "ledger_placement") {
		t.Errorf("continuing a tail run with --ledger-placement system: exit %d\n%s; want refused naming ledger_placement", r.code, r.errOut)
	}
	if r := execCLI(t, t.Context(), append(common, "--agent", "baseline", "--ledger-placement", "tail", "--out", filepath.Join(tmp, "b"))...); r.code == ExitOK || !strings.Contains(r.errOut, "renders no ledger") {
		t.Errorf("baseline with --ledger-placement tail: exit %d\n%s; want refused", r.code, r.errOut)
	}
	if r := execCLI(t, t.Context(), append(common, "--agent", "ledger", "--ledger-placement", "head", "--out", filepath.Join(tmp, "h"))...); r.code == ExitOK || !strings.Contains(r.errOut, `unknown ledger placement "head"`) {
		t.Errorf("--ledger-placement head: exit %d\n%s; want refused", r.code, r.errOut)
	}
}
