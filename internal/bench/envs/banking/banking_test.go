package banking

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge"
	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge/sandbox"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestPinnedDBLazy: the pinned db.json decoded lazily (records split, each
// decoded on first use) is the database the full decoder validates.
func TestPinnedDBLazy(t *testing.T) {
	t.Parallel()
	raw := datatest.Tau2File(t, Name, dbFile)
	lazy, err := decodePinnedDB(raw)
	if err != nil {
		t.Fatal(err)
	}
	full, err := DecodeDB(raw)
	if err != nil {
		t.Fatal(err)
	}
	a, b := lazy.newState(), full.newState()
	if pyjson.String(&a) != pyjson.String(&b) {
		t.Error("lazy and full decoding differ")
	}
}

func TestDecodeDBErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"unknown table", `{"bogus": {"data": {}}}`, `unknown table "bogus"`},
		{"record not a dict", `{"users": {"data": {"u": 1}}}`, "data.u: want a dict"},
		{"notes not a str", `{"users": {"data": {}, "notes": 3}}`, "notes: want a str"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := DecodeDB([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("DecodeDB(%s) error %v; want %q", c.in, err, c.want)
			}
		})
	}
}

// copyDomain copies the domain's pulled files into a fresh data directory,
// minus the named ones.
func copyDomain(t *testing.T, drop ...string) string {
	t.Helper()
	src := datatest.Root(t)
	m, err := data.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	for _, f := range m.DomainFiles(Name) {
		if slices.Contains(drop, f.Path) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, f.Folder, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, f.Folder, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestMissingFiles: a document or task missing from the data is a load
// error naming it, for every variant.
func TestMissingFiles(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	dir := data.Tau2DomainPath(Name)
	for _, c := range []struct{ drop, variant string }{
		{dir + "/documents/doc_bank_accounts_bank_accounts_(general)_001.json", "no_knowledge"},
		{dir + "/documents/doc_bank_accounts_bank_accounts_(general)_001.json", "full_kb"},
		{dir + "/tasks/task_043.json", "no_knowledge"},
		{dir + "/prompts/components/policy_header.md", "bm25"},
	} {
		t.Run(filepath.Base(c.drop)+"/"+c.variant, func(t *testing.T) {
			root := copyDomain(t, c.drop)
			_, err := LoadVariant(root, Options{Variant: c.variant})
			if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Base(c.drop)) {
				t.Errorf("load without %s: %v; want a not-exist error naming it", c.drop, err)
			}
		})
	}
}

func TestResolveVariant(t *testing.T) {
	t.Parallel()
	if got := len(VariantNames()); got != 20 {
		t.Errorf("%d variants; upstream registers 20", got)
	}
	if got := OfflineVariants(); !slices.Equal(got, []string{"no_knowledge", "full_kb", "golden_retrieval", "bm25_grep", "bm25", "grep_only"}) {
		t.Errorf("offline variants %v", got)
	}
	v, err := ResolveVariant("AllTools", json.RawMessage(`{"top_k": 5, "grep_top_k": 3, "extra": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "alltools" || v.KBSearchBM25.TopK != 5 || v.KBSearchDense.TopK != 5 || v.Grep != nil {
		t.Errorf("alias and overrides: %+v", v)
	}
	if v, _ := ResolveVariant("bm25_grep", json.RawMessage(`{"case_sensitive": true, "grep_top_k": 3}`)); !v.Grep.CaseSensitive || v.Grep.TopK != 3 || v.KBSearch.TopK != 10 {
		t.Errorf("grep overrides: %+v %+v", v.Grep, v.KBSearch)
	}
	for _, c := range []struct{ name, kwargs, want string }{
		{"nope", "", "unknown retrieval variant"},
		{"bm25", `{"top_k": "5"}`, "top_k must be an integer"},
		{"bm25", `{"top_k": 0}`, "top_k must be positive"},
		{"bm25", `[1]`, "want a JSON object"},
	} {
		if _, err := ResolveVariant(c.name, json.RawMessage(c.kwargs)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ResolveVariant(%s, %s) = %v; want %q", c.name, c.kwargs, err, c.want)
		}
	}
}

// TestToolKindsAndMutation: upstream's tool types and mutates_state, which
// decide what an evaluation replays.
func TestToolKindsAndMutation(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	for _, c := range []struct {
		side    message.Requestor
		name    string
		mutates bool
	}{
		{message.ByAssistant, "get_user_information_by_id", false},
		{message.ByAssistant, "log_verification", true},
		{message.ByAssistant, "give_discoverable_user_tool", true},
		{message.ByAssistant, "unlock_discoverable_agent_tool", true},
		{message.ByAssistant, "transfer_to_human_agents", false},
		{message.ByAssistant, "call_discoverable_agent_tool", true},
		{message.ByAssistant, "freeze_debit_card_3892", true},
		{message.ByAssistant, "get_bank_account_transactions_9173", false},
		{message.ByAssistant, "initial_transfer_to_human_agent_0218", false},
		{message.ByUser, "call_discoverable_user_tool", true},
		{message.ByUser, "list_discoverable_user_tools", false},
		{message.ByUser, "get_card_last_4_digits", false},
		{message.ByUser, "deposit_check_3847", true},
	} {
		m, ok := envs.Mutates(d, c.side, c.name)
		if !ok || m != c.mutates {
			t.Errorf("%s %s: mutates %v (known %v); want %v", c.side, c.name, m, ok, c.mutates)
		}
	}
	if err := d.Describe(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ti := range d.AgentTools() {
		names = append(names, ti.Name)
	}
	if len(names) != 14 || names[0] != "transfer_to_human_agents" || slices.Contains(names, "freeze_debit_card_3892") {
		t.Errorf("agent tools %v", names)
	}
	if got := len(d.UserTools()); got != 6 {
		t.Errorf("%d user tools; want 6", got)
	}
}

// TestPolicyClauses: the headings the gate cites are in every variant's
// policy.
func TestPolicyClauses(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	for _, v := range []string{"no_knowledge", "bm25", "golden_retrieval", "alltools", "terminal_use"} {
		d, err := LoadVariant(root, Options{Variant: v})
		if err != nil {
			t.Fatal(err)
		}
		p := d.Policy()
		if d.PolicyPerTask() {
			all, _ := d.Tasks().All()
			p = d.TaskPolicy(&all[0])
		}
		for _, h := range []string{clauseAuth, clauseUnlock} {
			if !strings.Contains(p, "# "+h+"\n") {
				t.Errorf("%s: policy has no heading %q", v, h)
			}
		}
	}
}

// TestShellVariantsWithoutSandbox: a shell variant where bubblewrap cannot
// run fails before the job, naming the variant and what is missing; the
// tool descriptions (prompt) need no sandbox.
func TestShellVariantsWithoutSandbox(t *testing.T) {
	root := datatest.Root(t)
	for _, v := range []string{"terminal_use", "terminal_use_write", "alltools"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			missing := filepath.Join(t.TempDir(), "bwrap")
			d, err := LoadVariant(root, Options{Variant: v, Shell: knowledge.ShellOptions{Sandbox: sandbox.Options{Bwrap: missing}},
				Knowledge: knowledge.Deps{Embedder: func(string, string) (knowledge.Embedder, error) { return nil, errors.New("no embedder in this test") }}})
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Describe(); err != nil || !slices.Contains(toolNames(d.AgentTools()), knowledge.ShellName) {
				t.Fatalf("describe: %v", err)
			}
			err = d.Prepare(t.Context())
			if v == "alltools" { // its dense search fails first
				if err == nil || !strings.Contains(err.Error(), "no embedder in this test") {
					t.Errorf("prepare: %v", err)
				}
				return
			}
			if !errors.Is(err, sandbox.ErrUnavailable) || !strings.Contains(err.Error(), "retrieval variant "+v) || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "apt-get install bubblewrap") {
				t.Errorf("prepare: %v", err)
			}
		})
	}
}

func toolNames(infos []tool.Info) []string {
	var out []string
	for _, i := range infos {
		out = append(out, i.Name)
	}
	return out
}

// TestTextShapeErrors: a tools.py whose literals differ from what the
// tools render (one more literal, another field expression, a method
// gone) is a one-line load error naming the method.
func TestTextShapeErrors(t *testing.T) {
	t.Parallel()
	rel := data.Tau2Source("", toolsFile)
	for _, c := range []struct {
		name, method, want string
		mutate             func(string) string
	}{
		{"a literal added", agentClass + ".example_agent_tool_0000", "string literals, the tool expects",
			func(s string) string {
				return strings.Replace(s, "def example_agent_tool_0000(self) -> str:\n", "def example_agent_tool_0000(self) -> str:\n        x = 'added'\n", 1)
			}},
		{"a field changed", agentClass + ".change_user_email", `has fields ["user_id" "new_email.lower()"]`,
			func(s string) string { return strings.Replace(s, "{new_email}\"", "{new_email.lower()}\"", 1) }},
		{"a method gone", userClass + ".submit_referral", "no such function",
			func(s string) string { return strings.Replace(s, "def submit_referral(", "def submit_referral_v2(", 1) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := copyDomain(t)
			p := filepath.Join(root, rel)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			mutated := c.mutate(string(b))
			if mutated == string(b) {
				t.Fatal("the mutation did not apply to tools.py")
			}
			if err := os.WriteFile(p, []byte(mutated), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Load(root)
			if err == nil {
				t.Fatal("load succeeded")
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.Contains(msg, c.method+": ") || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q; want one line naming %s with %q", msg, c.method, c.want)
			}
		})
	}
}

// BenchmarkLoadTexts: reading and checking every tool method's literals
// of the pulled tools.py (one pass), as each load does.
func BenchmarkLoadTexts(b *testing.B) {
	path := data.Tau2Source(datatest.Root(b), toolsFile)
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := loadTexts(map[string]lits{}, path, src, textShapes, ""); err != nil {
			b.Fatal(err)
		}
	}
}
