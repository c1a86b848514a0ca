package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/openaitest"
)

// Item 7: without --user-backbone the user simulator is τ²-bench's default
// (gpt-4.1-2025-04-14 at temperature 0) from the backbones file, not the
// agent's backbone; the run header says so and the manifest records it.
func TestUserBackboneDefaultsToUpstream(t *testing.T) {
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
