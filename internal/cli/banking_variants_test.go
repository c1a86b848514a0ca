package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/banking"
	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
)

// retrievalCalls are the arguments the variant-sweeping agent gives each
// retrieval tool it is offered.
var retrievalCalls = map[string]string{
	knowledge.KBSearchName:      `{"query": "overdraft fee"}`,
	knowledge.KBSearchBM25Name:  `{"query": "overdraft fee"}`,
	knowledge.KBSearchDenseName: `{"query": "overdraft fee"}`,
	knowledge.GrepName:          `{"pattern": "overdraft"}`,
	knowledge.ShellName:         `{"command": "ls | head -n 2"}`,
}

// everyRetrievalTool is an agent that, on its first turn, calls every
// retrieval tool the request offers (in the request's order), then answers.
func everyRetrievalTool(r *openaitest.Request) openaitest.Reply {
	if r.LastMessage().Role == "tool" {
		return openaitest.Text("The knowledge base says so.")
	}
	var calls []openaitest.ToolCall
	for _, tl := range r.Tools {
		if args, ok := retrievalCalls[tl.Name]; ok {
			calls = append(calls, openaitest.Call(tl.Name, args))
		}
	}
	if len(calls) == 0 {
		return openaitest.Text("Let me help with that.")
	}
	return openaitest.Calls(calls...)
}

// TestBankingEveryVariantEndToEnd runs `ledgerbench run` once under every
// retrieval variant upstream registers, with --retrieval-config-kwargs,
// against the fake endpoints (agent, user, reranker, embeddings): the agent
// calls each retrieval tool the variant gives it, and every call answers
// without an error (KB_search* with top_k hits, fewer, or none found, when
// the reranker drops some); the manifest records the variant and its kwargs, and
// `submit prepare` writes them as upstream's retrieval_config. The shell
// variants (terminal_use*, alltools*) skip without bubblewrap.
func TestBankingEveryVariantEndToEnd(t *testing.T) {
	const kwargs = `{"top_k": 3, "grep_top_k": 2}`
	for _, name := range banking.VariantNames() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, err := banking.ResolveVariant(name, json.RawMessage(kwargs))
			if err != nil {
				t.Fatal(err)
			}
			if v.Shell != nil {
				needSandbox(t)
			}
			f := newBankFixture(t, everyRetrievalTool)
			tmp := t.TempDir()
			out := filepath.Join(tmp, "run")
			r := bankRun(t, map[string]string{"LB_TEST_OPENROUTER_KEY": "test-key"}, "run", "--domain", "banking_knowledge",
				"--retrieval-config", name, "--retrieval-config-kwargs", kwargs, "--backbone", "agent", "--user-backbone", "user",
				"--no-judge", "--task-ids", "task_001", "--trials", "1", "--backbones", f.file,
				"--embeddings-cache", filepath.Join(tmp, "cache"), "--out", out, "--quiet")
			if r.code != ExitOK {
				t.Fatalf("run: exit %d\n%s", r.code, r.errOut)
			}
			run := loadRun(t, out)
			if len(run.Records) != 1 {
				t.Fatalf("%d records", len(run.Records))
			}
			rec := run.Records[0]
			var offered []string
			for _, m := range rec.Messages {
				for _, c := range m.ToolCalls {
					offered = append(offered, c.Name)
				}
			}
			outs := toolOutputs(rec)
			if len(outs) != len(offered) {
				t.Fatalf("%d tool outputs for calls %v", len(outs), offered)
			}
			wantTools := 0
			for _, p := range []*knowledge.PipelineSpec{v.KBSearch, v.KBSearchBM25, v.KBSearchDense} {
				if p != nil {
					wantTools++
				}
			}
			if v.Grep != nil {
				wantTools++
			}
			if v.Shell != nil {
				wantTools++
			}
			if len(offered) != wantTools {
				t.Errorf("the agent was offered %v; want %d retrieval tools", offered, wantTools)
			}
			for i, o := range outs {
				if strings.HasPrefix(o, "Error") || strings.TrimSpace(o) == "" {
					t.Errorf("%s: %.300q", offered[i], o)
				}
				if strings.HasPrefix(offered[i], knowledge.KBSearchName) {
					n := len(parseHits(o))
					// The fake reranker may rate all three below its cut.
					dropped := v.Reranked() && (n > 0 || strings.HasPrefix(o, "No relevant documents found."))
					if n > 3 || n != 3 && !dropped {
						t.Errorf("%s: %d hits with top_k 3 (output %.300q)", offered[i], n, o)
					}
				}
			}
			var kw bytes.Buffer
			_ = json.Compact(&kw, run.Manifest.RetrievalConfigKwargs)
			if run.Manifest.RetrievalConfig != name || kw.String() != `{"top_k":3,"grep_top_k":2}` {
				t.Errorf("manifest: retrieval_config %q, kwargs %s", run.Manifest.RetrievalConfig, run.Manifest.RetrievalConfigKwargs)
			}
			sub := filepath.Join(tmp, "sub")
			if r := bankRun(t, nil, "submit", "prepare", out, "--out", sub, "--date", "2026-12-01", "--model-organization", "Test Org",
				"--custom", "--no-verify"); r.code != ExitOK {
				t.Fatalf("submit prepare: exit %d\n%s", r.code, r.errOut)
			}
			_, s := prepared(t, sub)
			if bk := s.Results.BankingKnowledge; bk == nil || bk.RetrievalConfig == nil || *bk.RetrievalConfig != name {
				b, _ := s.Encode()
				t.Errorf("submission %s; want banking_knowledge's retrieval_config %q", b, name)
			}
		})
	}
}
