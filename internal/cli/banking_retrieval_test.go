package cli

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/banking"
	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge"
	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge/sandbox"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// The banking_knowledge retrieval variants end to end: `ledgerbench run`
// in process against fake endpoints (agent, user, reranker, embeddings),
// the agent calling a retrieval tool, and its answer checked against the
// same computation done here from the fixed vectors (and, with
// LEDGERBENCH_DENSE_ORACLE, against upstream's own pipeline:
//
//	TAU2_SRC=<tau2-bench>/src PYTHONPATH=<dir with numpy> \
//	LEDGERBENCH_DENSE_ORACLE="python3 $PWD/internal/bench/knowledge/testdata/oracle/dense_oracle.py" \
//	go test ./internal/cli -run BankingDense
//
// — an absolute path, as the command runs from this package's directory).

// bankVector is the fake embeddings endpoint's vector of a text: 16 values
// from its SHA-256, exact in float32 (the rule of
// internal/bench/knowledge/testdata/oracle/dense_oracle.py).
func bankVector(text string) []float64 {
	d := sha256.Sum256([]byte(text))
	v := make([]float64, 16)
	for i := range v {
		v[i] = float64(int(d[i])-128) / 32
	}
	return v
}

// bankRating is the fake reranker's rating of a prompt (dense_oracle.py's
// rule).
func bankRating(prompt string) int {
	d := sha256.Sum256([]byte(prompt))
	return int(d[0]) % 11
}

// bankFixture is a backbones file whose agent, user and reranker backbones
// and embeddings entries point at fakes.
type bankFixture struct {
	agent, user, rerank *openaitest.Server
	emb                 *openaitest.EmbeddingServer
	file                string

	// next decides the agent's reply to a request (nil: text).
	next func(r *openaitest.Request) openaitest.Reply
}

func newBankFixture(t *testing.T, next func(r *openaitest.Request) openaitest.Reply) *bankFixture {
	t.Helper()
	f := &bankFixture{next: next}
	f.agent = openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply { return f.next(r) })
	f.user = openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		if len(r.Messages) > 2 {
			return openaitest.Text("Thanks, that is all. ###STOP###")
		}
		return openaitest.Text("Hi, what is the fee for an overdraft?")
	})
	f.rerank = openaitest.NewHandlerServer(t, func(r *openaitest.Request) openaitest.Reply {
		return openaitest.Text(fmt.Sprintf(`{"relevance_score": %d}`, bankRating(r.LastMessage().Text())))
	})
	f.emb = openaitest.NewEmbeddingServer(t, func(_ int, r *openaitest.EmbeddingRequest) openaitest.EmbeddingReply {
		var vs [][]float64
		for _, s := range r.Input {
			vs = append(vs, bankVector(s))
		}
		return openaitest.EmbeddingReply{Vectors: vs}
	})
	f.file = filepath.Join(t.TempDir(), "backbones.yaml")
	yaml := fmt.Sprintf(`backbones:
  agent: {base_url: %[1]s, model: gpt-4.1-2025-04-14, temperature: 0.0, max_retries: 0, timeout: 20s}
  user: {base_url: %[2]s, model: gpt-4.1-2025-04-14, temperature: 0.0, max_retries: 0, timeout: 20s}
  gpt-5.2: {base_url: %[3]s, model: gpt-5.2, max_retries: 0, timeout: 20s}
embeddings:
  text-embedding-3-large: {type: openai, base_url: %[4]s, model: text-embedding-3-large, max_retries: 0, timeout: 20s}
  qwen3-embedding-8b: {type: openrouter, base_url: %[4]s, model: qwen/qwen3-embedding-8b, api_key_env: LB_TEST_OPENROUTER_KEY, max_retries: 0, timeout: 20s}
`, f.agent.BaseURL(), f.user.BaseURL(), f.rerank.BaseURL(), f.emb.BaseURL())
	if err := os.WriteFile(f.file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// bankRun runs the command line in process over the test data with env as
// the environment.
func bankRun(t *testing.T, env map[string]string, args ...string) execResult {
	t.Helper()
	return execEnv(t, env, append([]string{"--data", datatest.Root(t)}, args...)...)
}

// scriptedSearch is an agent that calls name with args once, then answers.
func scriptedSearch(name, args string) func(r *openaitest.Request) openaitest.Reply {
	return func(r *openaitest.Request) openaitest.Reply {
		if r.LastMessage().Role == "tool" {
			return openaitest.Text("The knowledge base says so.")
		}
		return openaitest.Calls(openaitest.Call(name, args))
	}
}

// toolOutputs are a record's tool messages' contents.
func toolOutputs(rec results.Record) []string {
	var out []string
	for _, m := range rec.Messages {
		if m.Role == message.Tool {
			out = append(out, m.Content)
		}
	}
	return out
}

type bankHit struct {
	ID    string
	Score string
}

var hitRE = regexp.MustCompile(`(?m)^\d+\. .*\n   ID: (.*)\n   Score: (.*)$`)

func parseHits(out string) []bankHit {
	var hs []bankHit
	for _, m := range hitRE.FindAllStringSubmatch(out, -1) {
		hs = append(hs, bankHit{m[1], m[2]})
	}
	return hs
}

// cosineTop ranks the documents by cosine similarity with q, best first,
// computed plainly here (no numpy emulation): the order and the four
// printed decimals are what upstream's retriever gives for vectors without
// ties (the test refuses ties at the cut).
func cosineTop(t *testing.T, docs []knowledge.Document, q []float64, k int) []bankHit {
	t.Helper()
	norm := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x * x
		}
		return math.Sqrt(s)
	}
	type scored struct {
		i int
		s float64
	}
	qn := norm(q)
	all := make([]scored, len(docs))
	for i, d := range docs {
		v := bankVector(d.Content)
		dot := 0.0
		for j := range v {
			dot += v[j] * q[j]
		}
		all[i] = scored{i, dot / (norm(v) * qn)}
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return 0
	})
	if math.Abs(all[k-1].s-all[k].s) < 1e-9 {
		t.Fatalf("documents %s and %s tie at the cut: choose another query", docs[all[k-1].i].ID, docs[all[k].i].ID)
	}
	var out []bankHit
	for _, s := range all[:k] {
		out = append(out, bankHit{docs[s.i].ID, fmt.Sprintf("%.4f", s.s)})
	}
	return out
}

func bankDocs(t *testing.T) []knowledge.Document {
	t.Helper()
	d, err := banking.LoadVariant(datatest.Root(t), banking.Options{Variant: "bm25"})
	if err != nil {
		t.Fatal(err)
	}
	kb, err := d.Knowledge()
	if err != nil {
		t.Fatal(err)
	}
	return kb.Docs()
}

func needSandbox(t *testing.T) {
	t.Helper()
	if err := sandbox.Check(context.Background(), sandbox.Options{}); err != nil {
		t.Skipf("the shell variants need bubblewrap: %v", err)
	}
}

// queryVector is the vector the endpoint returned for the run's one query
// (the last request holding a single text), and that text.
func queryVector(t *testing.T, reqs []openaitest.EmbeddingRequest) ([]float64, string) {
	t.Helper()
	for i := len(reqs) - 1; i >= 0; i-- {
		if len(reqs[i].Input) == 1 {
			return bankVector(reqs[i].Input[0]), reqs[i].Input[0]
		}
	}
	t.Fatal("no query was embedded")
	return nil, ""
}

// TestBankingDenseEndToEnd runs the dense variants (alltools, a reranked
// and a Qwen one) on one task: the agent's search returns the documents
// ranked by cosine similarity of the fixed vectors (rated and filtered by
// the fake reranker for the reranked variant); the documents are embedded
// in one request, once: a second run reads them from the embeddings cache.
func TestBankingDenseEndToEnd(t *testing.T) {
	docs := bankDocs(t)
	const query = "overdraft fee"
	for _, c := range []struct {
		variant, tool string
		qwen, rerank  bool
		shell         bool
	}{
		{variant: "alltools", tool: "KB_search_dense", shell: true},
		{variant: "openai_embeddings_reranker", tool: "KB_search", rerank: true},
		{variant: "qwen_embeddings", tool: "KB_search", qwen: true},
	} {
		t.Run(c.variant, func(t *testing.T) {
			t.Parallel()
			if c.shell {
				needSandbox(t)
			}
			f := newBankFixture(t, scriptedSearch(c.tool, fmt.Sprintf(`{"query": %q}`, query)))
			tmp := t.TempDir()
			cache := filepath.Join(tmp, "cache")
			env := map[string]string{"LB_TEST_OPENROUTER_KEY": "test-key"}
			args := []string{"run", "--domain", "banking_knowledge", "--retrieval-config", c.variant, "--backbone", "agent",
				"--user-backbone", "user", "--no-judge", "--task-ids", "task_001", "--trials", "1", "--backbones", f.file,
				"--embeddings-cache", cache, "--quiet"}
			r := bankRun(t, env, append(args, "--out", filepath.Join(tmp, "run1"))...)
			if r.code != ExitOK {
				t.Fatalf("run: exit %d\n%s", r.code, r.errOut)
			}
			run := loadRun(t, filepath.Join(tmp, "run1"))
			if len(run.Records) != 1 {
				t.Fatalf("%d records", len(run.Records))
			}
			outs := toolOutputs(run.Records[0])
			if len(outs) != 1 {
				t.Fatalf("tool outputs %q", outs)
			}
			reqs := f.emb.Requests()
			if len(reqs) != 2 || len(reqs[0].Input) != len(docs) {
				t.Fatalf("embeddings requests: %d (first with %d texts); want the %d documents in one, then the query", len(reqs), len(reqs[0].Input), len(docs))
			}
			for i, d := range docs {
				if reqs[0].Input[i] != d.Content {
					t.Fatalf("document %d sent as %.60q; want %s's content in file-name order", i, reqs[0].Input[i], d.ID)
				}
			}
			q, qtext := queryVector(t, reqs)
			if c.qwen != strings.HasPrefix(qtext, "Instruct: ") || !strings.HasSuffix(qtext, query) {
				t.Errorf("query sent as %q", qtext)
			}
			if !c.qwen && reqs[1].EncodingFormat != "base64" || c.qwen && reqs[1].EncodingFormat != "float" {
				t.Errorf("encoding_format %q", reqs[1].EncodingFormat)
			}
			want := cosineTop(t, docs, q, 10)
			if c.rerank {
				want = reranked(t, docs, want, f.rerank.Requests())
			}
			got := parseHits(outs[0])
			if !slices.Equal(got, want) {
				t.Errorf("%s returned\n %v\nwant\n %v\n(output %.400q)", c.tool, got, want, outs[0])
			}
			if m := run.Manifest; m.RetrievalConfig != c.variant || len(m.Embeddings) != 1 || c.rerank != (m.RerankerBackbone == "gpt-5.2") {
				t.Errorf("manifest: retrieval %q, embeddings %v, reranker %q", m.RetrievalConfig, m.Embeddings, m.RerankerBackbone)
			}
			denseOracle(t, docs, c.qwen, c.rerank, c.tool, query, outs[0])

			// A second run embeds the query only: the documents come from
			// the cache.
			r = bankRun(t, env, append(args, "--out", filepath.Join(tmp, "run2"))...)
			if r.code != ExitOK {
				t.Fatalf("second run: exit %d\n%s", r.code, r.errOut)
			}
			again := f.emb.Requests()[len(reqs):]
			if len(again) != 1 || len(again[0].Input) != 1 {
				t.Errorf("second run: %d embeddings requests (%v); want the query's only", len(again), again)
			}
			outs2 := toolOutputs(loadRun(t, filepath.Join(tmp, "run2")).Records[0])
			if len(outs2) != 1 || knowledge.StripTiming(outs2[0]) != knowledge.StripTiming(outs[0]) {
				t.Errorf("second run's output differs:\n%.300q\n%.300q", outs2, outs[0])
			}
			t.Logf("%s: %d documents embedded in 1 request, then %d request(s) for the query; the second run: %d", c.variant, len(docs), len(reqs)-1, len(again))
		})
	}
}

// reranked is the pointwise reranker's answer over the retrieved hits: each
// rated by the fake (its prompt holds the document's content), those rated
// 5 or more kept, best first, ties in retrieval order.
func reranked(t *testing.T, docs []knowledge.Document, hits []bankHit, reqs []openaitest.Request) []bankHit {
	t.Helper()
	byID := map[string]knowledge.Document{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	if len(reqs) != len(hits) {
		t.Fatalf("%d reranker requests for %d hits", len(reqs), len(hits))
	}
	rating := map[string]int{}
	for _, r := range reqs {
		prompt, best := r.LastMessage().Text(), ""
		for _, h := range hits { // the hit whose content the prompt holds (the longest, if one holds another)
			if c := byID[h.ID].Content; strings.Contains(prompt, c) && len(c) > len(byID[best].Content) {
				best = h.ID
			}
		}
		if best == "" {
			t.Fatalf("a reranker prompt holds no retrieved document: %.200q", prompt)
		}
		rating[best] = bankRating(prompt)
		if r.Model != "gpt-5.2" || r.ReasoningEffort == "" {
			t.Errorf("reranker request: model %q, reasoning_effort %q", r.Model, r.ReasoningEffort)
		}
	}
	var kept []bankHit
	for _, h := range hits {
		if rating[h.ID] >= 5 {
			kept = append(kept, bankHit{h.ID, fmt.Sprintf("%.4f", float64(rating[h.ID]))})
		}
	}
	slices.SortStableFunc(kept, func(a, b bankHit) int { return rating[b.ID] - rating[a.ID] })
	return kept
}

// denseOracle compares a search's output with upstream's pipeline over the
// same documents and fixed vectors (LEDGERBENCH_DENSE_ORACLE).
func denseOracle(t *testing.T, docs []knowledge.Document, qwen, rerank bool, toolName, query, got string) {
	cmd := os.Getenv("LEDGERBENCH_DENSE_ORACLE")
	if cmd == "" {
		return
	}
	typ, model := "openai", "text-embedding-3-large"
	if qwen {
		typ, model = "openrouter", "qwen3-embedding-8b"
	}
	call := map[string]any{"embedder_type": typ, "model": model, "top_k": 10, "reranker": rerank, "min_score": 5,
		"tool": toolName, "args": map[string]any{"query": query}}
	var want struct {
		Calls [][2]any `json:"calls"`
	}
	oracletest.JSON(t, cmd, map[string]any{"documents": docs, "calls": []any{call}}, &want)
	if len(want.Calls) != 1 || knowledge.StripTiming(want.Calls[0][0].(string)) != knowledge.StripTiming(got) {
		t.Errorf("upstream's %s output differs from the run's:\n ours %.400q\n upstream %.400q", toolName, got, want.Calls)
		return
	}
	t.Logf("%s output equal to upstream's pipeline over the same vectors", toolName)
}

// TestBankingDenseNeedsItsKey: a dense variant whose embeddings entry's key
// is unset fails before the run starts, naming the entry and the variable;
// nothing is written and no endpoint is called.
func TestBankingDenseNeedsItsKey(t *testing.T) {
	t.Parallel()
	f := newBankFixture(t, scriptedSearch("KB_search", `{"query": "x"}`))
	out := filepath.Join(t.TempDir(), "run")
	r := bankRun(t, nil, "run", "--domain", "banking_knowledge", "--retrieval-config", "qwen_embeddings_grep", "--backbone", "agent",
		"--user-backbone", "user", "--no-judge", "--task-ids", "task_001", "--trials", "1", "--backbones", f.file,
		"--embeddings-cache", t.TempDir(), "--out", out, "--quiet")
	if r.code != ExitError || !strings.Contains(r.errOut, "qwen3-embedding-8b") || !strings.Contains(r.errOut, "LB_TEST_OPENROUTER_KEY") {
		t.Errorf("exit %d, stderr %q; want exit 1 naming qwen3-embedding-8b and LB_TEST_OPENROUTER_KEY", r.code, r.errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the run directory was created")
	}
	if n := len(f.emb.Requests()) + len(f.agent.Requests()); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
}

// shellAgent runs commands in turn through the shell tool, then answers;
// before command i it calls wait(i) (nil: no wait).
func shellAgent(commands []string, wait func(r *openaitest.Request, i int)) func(r *openaitest.Request) openaitest.Reply {
	return func(r *openaitest.Request) openaitest.Reply {
		done := 0
		for _, m := range r.Messages {
			if m.Role == "tool" {
				done++
			}
		}
		if done == len(commands) {
			return openaitest.Text("Done.")
		}
		if wait != nil {
			wait(r, done)
		}
		b, _ := json.Marshal(map[string]string{"command": commands[done]})
		return openaitest.Calls(openaitest.Call(knowledge.ShellName, string(b)))
	}
}

// TestBankingShellEndToEnd runs terminal_use: the agent's commands run in
// the sandbox over upstream's export of the documents, read-only, and the
// sandbox's directories are gone when the run ends.
func TestBankingShellEndToEnd(t *testing.T) {
	needSandbox(t)
	tmpdir := t.TempDir()
	t.Setenv("TMPDIR", tmpdir)
	docs := bankDocs(t)
	var d knowledge.Document // a document whose id is its file name (upstream sanitises the others')
	for _, x := range docs[17:] {
		if regexp.MustCompile(`^[A-Za-z0-9_.-]+$`).MatchString(x.ID) {
			d = x
			break
		}
	}
	cmds := []string{"cat " + d.ID + ".md", "ls | wc -l; pwd", "touch x", "grep -l zzzz-not-there *.md"}
	f := newBankFixture(t, shellAgent(cmds, nil))
	out := filepath.Join(t.TempDir(), "run")
	r := bankRun(t, nil, "run", "--domain", "banking_knowledge", "--retrieval-config", "terminal_use", "--backbone", "agent",
		"--user-backbone", "user", "--no-judge", "--task-ids", "task_001", "--trials", "1", "--backbones", f.file, "--out", out, "--quiet")
	if r.code != ExitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.errOut)
	}
	outs := toolOutputs(loadRun(t, out).Records[0])
	if len(outs) != len(cmds) {
		t.Fatalf("tool outputs %q", outs)
	}
	// upstream's export_documents writes "# <title>\n\n<content>" per
	// document, plus INDEX.md; the working directory is
	// /tmp/agentic_search_<8 hex>/knowledge_base.
	if want := "# " + d.Title + "\n\n" + d.Content; outs[0] != want {
		t.Errorf("cat: %.200q; want %.200q", outs[0], want)
	}
	if !regexp.MustCompile(`^` + fmt.Sprint(len(docs)+1) + `\n/tmp/agentic_search_[0-9a-f]{8}/knowledge_base\n$`).MatchString(outs[1]) {
		t.Errorf("ls | wc -l; pwd: %q", outs[1])
	}
	if !strings.HasPrefix(outs[2], "Error (exit code 1): ") || !strings.Contains(outs[2], "Read-only file system") {
		t.Errorf("touch in the read-only variant: %q", outs[2])
	}
	if outs[3] != "No matches found." {
		t.Errorf("grep without a match: %q", outs[3])
	}
	left, _ := filepath.Glob(filepath.Join(tmpdir, "ledgerbench-kb-*"))
	if len(left) > 0 {
		t.Errorf("sandbox directories left after the run: %v", left)
	}
}

// TestBankingShellWritesArePrivate runs terminal_use_write with two
// simulations at once: each writes a file, and, once both have written,
// lists the files; each sees its own only.
func TestBankingShellWritesArePrivate(t *testing.T) {
	needSandbox(t)
	tmpdir := t.TempDir()
	t.Setenv("TMPDIR", tmpdir)
	var mu sync.Mutex
	wrote := 0
	both := make(chan struct{})
	marker := func(r *openaitest.Request) string { // the trial's seed, which the agent sends
		return fmt.Sprint(*r.Seed)
	}
	cmds := func(r *openaitest.Request) []string {
		m := marker(r)
		return []string{"echo " + m + " > note_" + m + ".txt", "ls note_*.txt; cat note_*.txt"}
	}
	wait := func(r *openaitest.Request, i int) {
		if i != 1 {
			return
		}
		mu.Lock()
		wrote++
		if wrote == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both:
		case <-time.After(20 * time.Second):
		}
	}
	f := newBankFixture(t, func(r *openaitest.Request) openaitest.Reply { return shellAgent(cmds(r), wait)(r) })
	out := filepath.Join(t.TempDir(), "run")
	r := bankRun(t, nil, "run", "--domain", "banking_knowledge", "--retrieval-config", "terminal_use_write", "--backbone", "agent",
		"--user-backbone", "user", "--no-judge", "--task-ids", "task_001", "--trials", "2", "--concurrency", "2",
		"--backbones", f.file, "--out", out, "--quiet")
	if r.code != ExitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.errOut)
	}
	select {
	case <-both:
	default:
		t.Fatal("the two simulations did not overlap")
	}
	run := loadRun(t, out)
	if len(run.Records) != 2 {
		t.Fatalf("%d records", len(run.Records))
	}
	for _, rec := range run.Records {
		outs := toolOutputs(rec)
		m := fmt.Sprint(rec.Seed)
		if len(outs) != 2 || outs[0] != "(no output)" || outs[1] != "note_"+m+".txt\n"+m+"\n" {
			t.Errorf("trial %d (seed %s): %q; want its own note only", rec.Trial, m, outs)
		}
	}
	left, _ := filepath.Glob(filepath.Join(tmpdir, "ledgerbench-kb-*"))
	if len(left) > 0 {
		t.Errorf("sandbox directories left after the run: %v", left)
	}
}
