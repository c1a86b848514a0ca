package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestPromptCacheCost measures what the ledger costs with prompt caching
// (README, "Prompt caching and the ledger"): every simulation of τ²-bench's
// four recorded runs is played again through `ledgerbench run` against a
// local provider that answers the agent's and the user simulator's
// requests with the recorded turns and bills caching by OpenAI's rule
// (openaitest.PromptCache: prefixes from 1,024 tokens in 128-token steps,
// 4 bytes a token), as baseline, ledger-only with the ledger in the system
// message and ledger-only with it at the tail (ledger-only: no gate, so
// the conversation is the recorded one). Opt-in:
// LEDGERBENCH_CACHE_MEASURE=all (or N simulations per file);
// LEDGERBENCH_CACHE_TABLE=FILE writes the table as markdown.
func TestPromptCacheCost(t *testing.T) {
	want := os.Getenv("LEDGERBENCH_CACHE_MEASURE")
	if want == "" {
		t.Skip("set LEDGERBENCH_CACHE_MEASURE=all (or a number of simulations per recording) to measure")
	}
	per := 0
	if want != "all" {
		n, err := strconv.Atoi(want)
		if err != nil || n < 1 {
			t.Fatalf("LEDGERBENCH_CACHE_MEASURE=%q: want all or a positive number", want)
		}
		per = n
	}
	dir := filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Skipf("no τ²-bench recordings in %s", dir)
	}
	var (
		mu       sync.Mutex
		cur      []message.Message // the simulation being replayed
		cache    *openaitest.PromptCache
		diverged int
	)
	reply := func(m message.Message) openaitest.Reply {
		r := openaitest.Reply{Content: m.Content}
		for _, tc := range m.ToolCalls {
			r.ToolCalls = append(r.ToolCalls, openaitest.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: string(tc.Arguments)})
		}
		return r
	}
	srv := openaitest.NewHandlerServer(t, func(req *openaitest.Request) openaitest.Reply {
		mu.Lock()
		defer mu.Unlock()
		// The n-th reply of the role is the recording's n-th message of it:
		// the agent's history starts with the greeting (its message 0); the
		// user simulator's holds its own turns as assistant messages.
		role := message.Assistant
		if req.Model == "replay-user" {
			role = message.User
		}
		n := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				n++
			}
		}
		var out openaitest.Reply
		for _, m := range cur {
			if m.Role != role {
				continue
			}
			if n == 0 {
				out = reply(m)
				break
			}
			n--
		}
		if n > 0 || (out.Content == "" && len(out.ToolCalls) == 0) {
			diverged++
			out = openaitest.Text("###STOP###")
		}
		prompt, cached := cache.Bill(req)
		out.Usage = &openaitest.Usage{PromptTokens: prompt, CachedTokens: cached,
			CompletionTokens: openaitest.ApproxTokens(len(out.Content) + len(fmt.Sprint(out.ToolCalls)))}
		return out
	})
	bb := filepath.Join(t.TempDir(), "backbones.yaml")
	// gpt-4.1's prices for both roles.
	writeFile(t, bb, fmt.Sprintf(`backbones:
  replay-agent: {base_url: %[1]s, model: replay-agent, temperature: 0, price: {input: 2, cached_input: 0.5, output: 8}}
  replay-user: {base_url: %[1]s, model: replay-user, temperature: 0, price: {input: 2, cached_input: 0.5, output: 8}}
`, srv.BaseURL()))
	configs := []struct{ name, agent, placement string }{
		{"baseline", "baseline", ""}, {"ledger/system", "ledger-only", "system"}, {"ledger/tail", "ledger-only", "tail"},
	}
	type total struct {
		sims              int
		prompt, cached    int
		agentUSD, userUSD float64
	}
	var table strings.Builder
	table.WriteString("| Recording | Sims | Agent | Agent input tok/sim | Cached | $/sim | Ledger overhead tok/sim | Ledger overhead $/sim |\n|---|---|---|---|---|---|---|---|\n")
	for _, f := range files {
		rec, err := results.ReadTau2(f)
		if err != nil {
			t.Fatal(err)
		}
		domain := domainOf(f)
		sims := rec.Simulations
		if per > 0 && len(sims) > per {
			sims = sims[:per]
		}
		var base total
		for _, cfg := range configs {
			mu.Lock()
			cache, diverged = openaitest.NewPromptCache(), 0
			mu.Unlock()
			var tot total
			for i, s := range sims {
				mu.Lock()
				cur = s.Trajectory()
				mu.Unlock()
				out := filepath.Join(t.TempDir(), fmt.Sprintf("%d", i))
				args := []string{"run", "--domain", domain, "--agent", cfg.agent, "--backbone", "replay-agent", "--user-backbone", "replay-user",
					"--backbones", bb, "--no-judge", "--task-ids", s.TaskID, "--trials", "1", "--concurrency", "1", "--quiet", "--out", out}
				if domain == "telecom" {
					args = append(args, "--split", "full") // the gpt-4o run's tasks are not in base
				}
				if cfg.placement != "" {
					args = append(args, "--ledger-placement", cfg.placement)
				}
				r := execCLI(t, t.Context(), args...)
				if r.code != ExitOK && r.code != ExitFailed {
					t.Logf("%s task %s: exit %d: %s", filepath.Base(f), s.TaskID, r.code, firstLine(r.errOut))
					continue
				}
				for _, rec := range loadRun(t, out).Records {
					if rec.Infrastructure() {
						t.Logf("%s task %s: %s", filepath.Base(f), s.TaskID, rec.Error)
						continue
					}
					tot.sims++
					tot.prompt += rec.AgentUsage.PromptTokens
					tot.cached += rec.AgentUsage.CachedTokens
					tot.agentUSD += rec.AgentCost
					tot.userUSD += rec.UserCost
				}
			}
			if tot.sims == 0 {
				t.Errorf("%s %s: no simulation replayed", filepath.Base(f), cfg.name)
				continue
			}
			n := float64(tot.sims)
			perSim := (tot.agentUSD + tot.userUSD) / n
			overTok, overUSD := "—", "—"
			if cfg.name == "baseline" {
				base = tot
			} else if base.sims == tot.sims {
				bn := float64(base.sims)
				overTok = fmt.Sprintf("%+.0f (%+.1f%%)", float64(tot.prompt)/n-float64(base.prompt)/bn, 100*(float64(tot.prompt)/float64(base.prompt)-1))
				bUSD := (base.agentUSD + base.userUSD) / bn
				overUSD = fmt.Sprintf("%+.4f (%+.1f%%)", perSim-bUSD, 100*(perSim/bUSD-1))
			}
			fmt.Fprintf(&table, "| %s | %d | %s | %.0f | %.1f%% | %.4f | %s | %s |\n", strings.TrimSuffix(filepath.Base(f), ".json"), tot.sims, cfg.name,
				float64(tot.prompt)/n, 100*float64(tot.cached)/float64(tot.prompt), perSim, overTok, overUSD)
			t.Logf("%s %s: %d simulations, %d requests past the recording", filepath.Base(f), cfg.name, tot.sims, diverged)
		}
	}
	t.Logf("\n%s", table.String())
	if p := os.Getenv("LEDGERBENCH_CACHE_TABLE"); p != "" {
		writeFile(t, p, table.String())
	}
}

// domainOf reads the domain from a τ²-bench recording's file name.
func domainOf(path string) string {
	for _, d := range []string{"airline", "retail", "telecom"} {
		if strings.Contains(filepath.Base(path), d) {
			return d
		}
	}
	return ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
