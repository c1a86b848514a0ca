package knowledge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge/sandbox"
)

func writeDocs(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := writeDocs(t, map[string]string{
		"b.json":   `{"id": "b", "title": "B", "content": "bee", "extra": 1}`,
		"a.json":   `{"id": "a", "title": "A", "content": "ay"}`,
		"c.txt":    `not a document`,
		"a_2.json": `{"id": "a", "title": "A again", "content": "later"}`,
	})
	b, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range b.Docs() {
		ids = append(ids, d.ID+"="+d.Content)
	}
	// File-name order (a.json, a_2.json, b.json); a later document with a
	// known id replaces it in place, as upstream's dict does.
	if got := strings.Join(ids, " "); got != "a=later b=bee" {
		t.Errorf("documents %s", got)
	}
	if d, ok := b.Doc("b"); !ok || d.Title != "B" {
		t.Errorf("Doc(b) = %+v %v", d, ok)
	}
	for _, tc := range []struct {
		files map[string]string
		names []string
		want  string
	}{
		{map[string]string{"x.json": `{"id": "x", "title": "X"}`}, nil, `x.json: field "content" missing`},
		{map[string]string{"x.json": `{"id": 5, "title": "X", "content": "c"}`}, nil, `x.json: field "id" is not a string`},
		{map[string]string{"x.json": `{"id": null, "title": "X", "content": "c"}`}, nil, `x.json: field "id" is not a string`},
		{map[string]string{"x.json": `[1]`}, nil, "x.json: json: cannot unmarshal"},
		{map[string]string{"x.json": `{"id": "x", "title": "X", "content": "c"}`}, []string{"x.json", "gone.json"}, "gone.json: open"},
		{map[string]string{}, nil, "no documents"},
	} {
		_, err := Load(writeDocs(t, tc.files), tc.names)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%v, %v): %v; want %q", tc.files, tc.names, err, tc.want)
		}
	}
}

func TestFormatResult(t *testing.T) {
	t.Parallel()
	p := &Pipeline{base: NewBase([]Document{{ID: "d1", Title: "", Content: "text"}, {ID: "d2", Title: "Two", Content: ""}})}
	got := p.FormatResult(Result{Hits: []Hit{{"d1", 1.23456}, {"d2", -0.0}}, Timing: Timing{RetrievalMS: 1.5, PostprocessingMS: 0.2, InputPreprocessingMS: 0.4}})
	want := "1. Untitled\n   ID: d1\n   Score: 1.2346\n   Content: text\n\n2. Two\n   ID: d2\n   Score: 0.0000\n   Content: \n\n\n[Timing: retrieval=2ms, reranking=0ms, total=2ms]"
	if got != want {
		t.Errorf("FormatResult:\n%q\nwant\n%q", got, want)
	}
	if StripTiming(got) != want[:strings.LastIndex(want, "\n\n[Timing")] {
		t.Errorf("StripTiming: %q", StripTiming(got))
	}
	if got := p.FormatResult(Result{}); got != "No relevant documents found.\n\n[Timing: retrieval=0ms, total=0ms]" {
		t.Errorf("empty: %q", got)
	}
	if got := p.FormatGrep("x(", Result{}); got != "No matches found for pattern: x(" {
		t.Errorf("grep empty: %q", got)
	}
}

func TestSliceStop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		k       any
		n, want int
		err     bool
	}{
		{jsonNum("3"), 10, 3, false}, {jsonNum("-3"), 10, 7, false}, {jsonNum("-30"), 10, 0, false},
		{jsonNum("30"), 10, 10, false}, {true, 10, 1, false}, {false, 10, 0, false},
		{jsonNum("2.0"), 10, 0, true}, {"3", 10, 0, true}, {jsonNum("100000000000000000000"), 10, 10, false},
	} {
		got, err := sliceStop(tc.k, tc.n)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("sliceStop(%v, %d) = %d, %v", tc.k, tc.n, got, err)
		}
	}
}

func TestEscapePattern(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{
		"ls -la":               "",
		"cat ../x":             "..",
		"cat '../x'":           "",
		"cat /etc/passwd":      "absolute path: /etc/passwd",
		"ls;/bin/ls":           "absolute path: /bin/ls",
		"echo \u00a0/etc":      "absolute path: /etc",
		" /x":                  "absolute path: /x",
		"/1":                   "absolute path at start",
		"ls ~":                 "~",
		"echo $HOME":           "$HOME",
		"echo ${HOME}":         "$HOME",
		`grep "a/b" x`:         "",
		"grep -r 'credit' .":   "",
		"find . -name '*.md'":  "",
		"head -n 5 ./INDEX.md": "",
	} {
		if got := escapePattern(cmd); got != want {
			t.Errorf("escapePattern(%q) = %q; want %q", cmd, got, want)
		}
	}
}

func TestSanitize(t *testing.T) {
	t.Parallel()
	s := &Shell{}
	in := "total 8\n-rw-r--r-- 1 root root 1234 Mar  3 12:01 doc.md\ndrwxr-xr-x 2 someone staff 4096 Dec 31  2025 dir\nplain line\n"
	want := "total 8\n-rw-r--r-- 1 kb_user  kb_group  1234 Jan  1 00:00 doc.md\ndrwxr-xr-x 2 kb_user  kb_group  4096 Jan  1 00:00 dir\nplain line\n"
	if got := s.sanitize(in); got != want {
		t.Errorf("sanitize:\n%q\nwant\n%q", got, want)
	}
}

func TestSanitizeFilename(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{
		"doc_bank_accounts_bank_accounts_(general)_001": "doc_bank_accounts_bank_accounts__general__001",
		"a/b\\c..d":              "a_b_c_d",
		"café ‑ x.y-z":           "café___x.y-z",
		strings.Repeat("x", 300): strings.Repeat("x", 255),
	} {
		if got := sanitizeFilename(id); got != want {
			t.Errorf("sanitizeFilename(%q) = %q; want %q", id, got, want)
		}
	}
}

func TestExportDocuments(t *testing.T) {
	t.Parallel()
	docs := []Document{{ID: "b", Title: "Bee", Content: "bz"}, {ID: "a(1)", Title: "Ay", Content: "é"}}
	for format, files := range map[string]map[string]string{
		"md":   {"b.md": "# Bee\n\nbz", "a_1_.md": "# Ay\n\né", "INDEX.md": "# Knowledge Base Index\n\n**Total documents:** 2\n\n## Documents\n\n- **a_1_.md** - Ay\n- **b.md** - Bee\n"},
		"json": {"b.json": "{\n  \"id\": \"b\",\n  \"title\": \"Bee\",\n  \"content\": \"bz\"\n}", "a_1_.json": "{\n  \"id\": \"a(1)\",\n  \"title\": \"Ay\",\n  \"content\": \"\\u00e9\"\n}"},
		"txt":  {"b.txt": "Title: Bee\n" + strings.Repeat("=", 50) + "\n\nbz"},
	} {
		dir := t.TempDir()
		if err := exportDocuments(dir, docs, format); err != nil {
			t.Fatal(err)
		}
		for name, want := range files {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || string(b) != want {
				t.Errorf("%s %s = %q (%v); want %q", format, name, b, err, want)
			}
		}
	}
}

func TestShellUnavailable(t *testing.T) {
	t.Parallel()
	base := NewBase([]Document{{ID: "a", Title: "A", Content: "x"}})
	_, err := NewShell(context.Background(), base, DefaultShell(), ShellOptions{TempDir: t.TempDir(), Sandbox: sandboxOpts("/nonexistent/bwrap")})
	if err == nil || !strings.Contains(err.Error(), "bubblewrap") {
		t.Errorf("no bwrap: %v", err)
	}
}

func jsonNum(s string) any { return json.Number(s) }

func sandboxOpts(bwrap string) sandbox.Options { return sandbox.Options{Bwrap: bwrap} }
