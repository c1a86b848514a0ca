package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// corruptedData copies the pinned files a domain loads and changes one digit
// of its file at path (the first number after marker, so still valid JSON);
// it returns the directory and the corrupted file's SHA-256.
func corruptedData(t *testing.T, domain, path, marker string) (string, string) {
	t.Helper()
	m, err := data.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	src, dst := datatest.Root(t), t.TempDir()
	sum := ""
	for _, f := range m.DomainFiles(domain) {
		b, err := os.ReadFile(filepath.Join(src, f.Folder, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if f.Path == path {
			i := bytes.Index(b, []byte(marker))
			if i < 0 {
				t.Fatalf("no %s in %s", marker, path)
			}
			j := i + len(marker)
			b = append([]byte(nil), b...)
			if b[j] == '9' {
				b[j] = '8'
			} else {
				b[j]++
			}
			h := sha256.Sum256(b)
			sum = hex.EncodeToString(h[:])
		}
		p := filepath.Join(dst, f.Folder, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if sum == "" {
		t.Fatalf("%s is not among %s's pinned files", path, domain)
	}
	return dst, sum
}

func execWithData(t *testing.T, dir string, args ...string) execResult {
	t.Helper()
	var out, errOut bytes.Buffer
	s := &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(string) string { return "" }}
	code := Execute(context.Background(), s, append([]string{"--data", dir}, args...))
	return execResult{code: code, out: out.String(), errOut: errOut.String()}
}

// TestCorruptedDataRefused: run, verify and rescore refuse a data file whose
// hash is not its pin, naming it, and print no result; with --allow-modified-data a run goes on
// and its manifest records the hash actually loaded.
func TestCorruptedDataRefused(t *testing.T) {
	t.Parallel()
	dir, sum := corruptedData(t, "retail", "data/tau2/domains/retail/db.json", `"price": `)
	out := filepath.Join(t.TempDir(), "run")
	recorded := filepath.Join(datatest.Trajectories(t), "sierra-research+tau2-bench", "toolorchestra_retail_gpt-5_1trial.json")
	cmds := [][]string{
		{"run", "--domain", "retail", "--backbone", "sim", "--no-judge", "--limit", "2", "--trials", "1", "--quiet", "--out", out},
		{"verify", "--domain", "retail", "--limit", "2"},
		{"rescore", recorded},
	}
	for _, args := range cmds {
		t.Run(args[0], func(t *testing.T) {
			r := execWithData(t, dir, args...)
			if r.code == ExitOK || !strings.Contains(r.errOut, "retail/db.json") || !strings.Contains(r.errOut, "--allow-modified-data") {
				t.Errorf("%s on corrupted data: exit %d, stderr %q; want a refusal naming db.json", args[0], r.code, r.errOut)
			}
			// verify evaluates while the hashes are checked: nothing of it may show.
			if r.out != "" {
				t.Errorf("%s on corrupted data printed %q before the refusal", args[0], r.out)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("refused run left a run directory")
	}
	r := execWithData(t, dir, append(cmds[0], "--allow-modified-data")...)
	if r.code != ExitOK {
		t.Fatalf("run --allow-modified-data: exit %d: %s", r.code, r.errOut)
	}
	run := loadRun(t, out)
	if got := run.Manifest.ModifiedData["tau2-bench/data/tau2/domains/retail/db.json"]; got != sum || len(run.Manifest.ModifiedData) != 1 {
		t.Errorf("manifest modified_data = %v; want db.json → %s", run.Manifest.ModifiedData, sum)
	}
}
