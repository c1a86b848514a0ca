package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExperimentRetrievalCells: a block's retrieval_configs make one
// banking_knowledge cell each (named /retrieval=R, run into
// …_retrieval-R), run with that variant and its kwargs; the dry run names
// what a dense, reranked or shell cell lacks (embeddings entry or key,
// the reranker model's backbone, the sandbox) and exits 3.
func TestExperimentRetrievalCells(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bb := filepath.Join(dir, "backbones.yaml")
	if err := os.WriteFile(bb, []byte(`
backbones:
  gpt-4.1: {base_url: "http://127.0.0.1:9/v1", model: gpt-4.1-2025-04-14, temperature: 0}
embeddings:
  text-embedding-3-large: {type: openai, base_url: "http://127.0.0.1:9/v1", model: text-embedding-3-large, api_key_env: LB_TEST_EMB_KEY}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	grid := func(configs string) string {
		path := filepath.Join(t.TempDir(), "grid.yaml")
		if err := os.WriteFile(path, []byte(fmt.Sprintf(`name: bank
out: %s
backbones_file: %s
trials: 1
task_ids: [task_001, task_002]
judge: none
grid:
  - domains: [banking_knowledge]
    agents: [baseline]
    backbones: [gold]
    retrieval_configs: [%s]
    retrieval_config_kwargs: {top_k: 3}
`, filepath.Join(dir, "exp"), bb, configs)), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}

	r := execCLI(t, t.Context(), "experiment", "--dry-run", grid("bm25, openai_embeddings, qwen_embeddings, bm25_reranker"))
	if r.code != ExitFailed {
		t.Fatalf("dry run: exit %d; want 3\n%s", r.code, r.errOut)
	}
	for _, want := range []string{
		"cannot run: banking_knowledge/baseline/gold/retrieval=openai_embeddings: retrieval openai_embeddings: embeddings text-embedding-3-large: llm: API key not set: set LB_TEST_EMB_KEY",
		`cannot run: banking_knowledge/baseline/gold/retrieval=qwen_embeddings: retrieval qwen_embeddings: llm: unknown embeddings entry "qwen3-embedding-8b"`,
		"cannot run: banking_knowledge/baseline/gold/retrieval=bm25_reranker: retrieval bm25_reranker: the reranker asks upstream's model gpt-5.2: no backbone of " + bb,
	} {
		if !strings.Contains(r.errOut, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, r.errOut)
		}
	}
	if strings.Contains(r.errOut, "retrieval=bm25:") {
		t.Errorf("the offline bm25 cell is named a problem:\n%s", r.errOut)
	}
	for _, bad := range []struct{ configs, want string }{
		{"nosuch", `--retrieval-config: unknown retrieval variant "nosuch"`},
	} {
		r := execCLI(t, t.Context(), "experiment", "--dry-run", grid(bad.configs))
		if r.code != ExitUsage || !strings.Contains(r.errOut, bad.want) {
			t.Errorf("retrieval_configs [%s]: exit %d, %q; want 2 and %q", bad.configs, r.code, r.errOut, bad.want)
		}
	}

	// Offline cells run: the manifest records each cell's variant and kwargs.
	configs := "bm25, grep_only"
	sandboxed := execCLI(t, t.Context(), "experiment", "--dry-run", grid("terminal_use")).code == ExitOK
	if sandboxed {
		configs += ", terminal_use"
	}
	mustRun(t, "experiment", "--no-report", "--quiet", grid(configs))
	for _, v := range strings.Split(configs, ", ") {
		run := loadRun(t, filepath.Join(dir, "exp", "runs", "banking-knowledge_baseline_gold_retrieval-"+strings.ReplaceAll(v, "_", "-")))
		var kw bytes.Buffer
		_ = json.Compact(&kw, run.Manifest.RetrievalConfigKwargs)
		if run.Manifest.RetrievalConfig != v || kw.String() != `{"top_k":3}` || len(run.Records) != 2 {
			t.Errorf("cell %s: manifest %q %s, %d records", v, run.Manifest.RetrievalConfig, run.Manifest.RetrievalConfigKwargs, len(run.Records))
		}
	}
}
