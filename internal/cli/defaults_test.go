package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
)

// Without --user-backbone the user simulator is τ²-bench's default
// (gpt-4.1-2025-04-14 at temperature 0) from the backbones file, not the
// agent's backbone; the run header says so and the manifest records it.
func TestUserBackboneDefaultsToUpstream(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	userModels := map[string]int{}
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		if len(r.Tools) == 0 && !isJudge(r) {
			mu.Lock()
			temp := "unset"
			if r.Temperature != nil {
				temp = fmt.Sprint(*r.Temperature)
			}
			userModels[r.Model+" t="+temp]++
			mu.Unlock()
		}
		return fakeRetail(r)
	})
	tmp := t.TempDir()
	bb := filepath.Join(tmp, "backbones.yaml")
	text := fmt.Sprintf(`judge: gpt-4.1
backbones:
  fake:
    base_url: %[1]s
    model: fake-model
    temperature: 0.7
  gpt-4.1:
    base_url: %[1]s
    model: gpt-4.1-2025-04-14
    temperature: 0.0
`, srv.BaseURL())
	if err := os.WriteFile(bb, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "run")
	r, err := runInProcess(t, t.Context(), "--domain", "retail", "--backbone", "fake", "--backbones", bb, "--limit", "2", "--trials", "1", "--out", dir)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, r.errOut)
	}
	if !strings.Contains(r.errOut+r.out, "default user-backbone gpt-4.1 (τ²-bench's default user simulator: gpt-4.1-2025-04-14, temperature 0)") {
		t.Errorf("the run header does not say which default applied:\n%s", r.errOut)
	}
	if len(userModels) != 1 || userModels["gpt-4.1-2025-04-14 t=0"] == 0 {
		t.Errorf("user simulator requests went to %v; want gpt-4.1-2025-04-14 at temperature 0 only", userModels)
	}
	m := loadRun(t, dir).Manifest
	if m.UserBackbone != "gpt-4.1" || len(m.Defaults) != 2 || !strings.Contains(m.Defaults[0], "gpt-4.1-2025-04-14") || !strings.Contains(m.Defaults[1], "judge-backbone gpt-4.1 (judge: of") {
		t.Errorf("manifest user %q, defaults %v", m.UserBackbone, m.Defaults)
	}
	// Resuming keeps the run's defaults.
	if r, err := runInProcess(t, t.Context(), "--out", dir, "--backbones", bb); err != nil {
		t.Fatalf("resume: %v\n%s", err, r.errOut)
	}
}

// Judge: of the backbones file is the judge whatever the agent's
// backbone (an offline gold agent here, on a task scored on NL
// assertions); the header says which default applied, the manifest
// records it, and a judge reply with an empty results list is reported.
func TestJudgeFromBackbonesFileForOfflineAgent(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	judged := 0
	srv := openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		if isJudge(r) {
			mu.Lock()
			judged++
			mu.Unlock()
		}
		return fakeRetail(r) // the judge's reply: {"results": []}
	})
	tmp := t.TempDir()
	bb := filepath.Join(tmp, "backbones.yaml")
	if err := os.WriteFile(bb, []byte(fmt.Sprintf("judge: j\nbackbones:\n  j:\n    base_url: %s\n    model: judge-model\n    temperature: 0\n", srv.BaseURL())), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "run")
	r, err := runInProcess(t, t.Context(), "--domain", "retail", "--backbone", "gold", "--task-ids", "2", "--trials", "1", "--backbones", bb, "--out", dir)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, r.errOut)
	}
	if judged != 1 {
		t.Errorf("%d judge requests; want 1 (task 2 is scored on NL assertions)", judged)
	}
	for _, want := range []string{"judge j", "default judge-backbone j (judge: of " + bb} {
		if !strings.Contains(r.errOut, want) {
			t.Errorf("the header does not say %q:\n%s", want, r.errOut)
		}
	}
	if !strings.Contains(r.out, "NL judge gave fewer verdicts than assertions (an empty results list) in 1 simulations") {
		t.Errorf("the summary does not report the empty judge reply:\n%s", r.out)
	}
	run := loadRun(t, dir)
	if m := run.Manifest; m.JudgeBackbone != "j" || len(m.Defaults) != 1 || !strings.Contains(m.Defaults[0], "judge-backbone j") {
		t.Errorf("manifest judge %q defaults %q", m.JudgeBackbone, m.Defaults)
	}
	if ri := run.Records[0].RewardInfo; ri == nil || ri.NLMissing == 0 || ri.Reward != 1 {
		t.Errorf("reward info %+v; want the missing verdicts counted and upstream's reward 1", ri)
	}
	// Without a judge: in the file, the run refuses the NL task with a hint.
	if err := os.WriteFile(bb, []byte(fmt.Sprintf("backbones:\n  j:\n    base_url: %s\n    model: judge-model\n", srv.BaseURL())), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runInProcess(t, t.Context(), "--domain", "retail", "--backbone", "gold", "--task-ids", "2", "--trials", "1", "--backbones", bb, "--out", filepath.Join(tmp, "run2")); err == nil || !strings.Contains(err.Error(), "need a judge") {
		t.Errorf("no judge in the file: %v; want the NL task refused with a hint", err)
	}
}
