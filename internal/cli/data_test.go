package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	s := &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(string) string { return "" }}
	code := Execute(context.Background(), s, args)
	return out.String(), errOut.String(), code
}

func TestDataPullConvertsAndChecks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, errOut, code := runCLI(t, "data", "pull", "--from", datatest.Root(t), "--data", dir)
	if code != 0 {
		t.Fatalf("data pull exit %d: %s", code, errOut)
	}
	m, err := data.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("all %d verified", len(m.Files)); !strings.Contains(out, want) {
		t.Errorf("output = %q", out)
	}
	for _, split := range []string{"test", "dev", "train"} {
		got, err := os.ReadFile(filepath.Join(data.Telehealth(dir), "tasks_"+split+".json"))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join(datatest.Root(t), "tau-trait", "derived", "telehealth", "tasks_"+split+".json"))
		if !bytes.Equal(got, want) {
			t.Errorf("converted tasks_%s.json differs from the reference conversion", split)
		}
	}
	if _, errOut, code := runCLI(t, "data", "check", "--data", dir); code != 0 {
		t.Errorf("data check exit %d: %s", code, errOut)
	}
	// a corrupted file is named by check
	p := filepath.Join(data.Tau2Domain(dir, "airline"), "policy.md")
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runCLI(t, "data", "check", "--data", dir)
	if code == 0 || !strings.Contains(errOut, "airline/policy.md") {
		t.Errorf("check of a tampered file: exit %d, %q", code, errOut)
	}
}

func TestCommandsWithoutDataSayHowToGetIt(t *testing.T) {
	t.Parallel()
	_, errOut, code := runCLI(t, "verify", "--domain", "retail", "--data", t.TempDir())
	if code == 0 || !strings.Contains(errOut, "ledgerbench data pull") {
		t.Errorf("verify without data: exit %d, %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "verify", "--domain", "nope", "--data", t.TempDir())
	if code == 0 || !strings.Contains(errOut, `unknown domain "nope"`) {
		t.Errorf("unknown domain: exit %d, %q", code, errOut)
	}
}
