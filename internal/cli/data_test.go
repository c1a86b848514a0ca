package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

// signalWriter collects writes and closes seen once a write contains want.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestDataPullShowsProgress: a pull that is slow (here: a server that holds
// its first file until a progress line appears) prints progress on stderr,
// then the one-line summary on stdout; a fast one prints only the summary.
func TestDataPullShowsProgress(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	var first sync.Once
	errOut := &signalWriter{want: "data pull: 0/", seen: make(chan struct{})}
	files := http.FileServer(http.Dir(root))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first.Do(func() {
			select {
			case <-errOut.seen:
			case <-time.After(30 * time.Second):
			}
		})
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	var out bytes.Buffer
	s := &Streams{Out: &out, ErrOut: errOut, Getenv: func(string) string { return "" }}
	opts := &dataPullOptions{DataDir: t.TempDir(), From: srv.URL, slowAfter: time.Millisecond, progressEvery: 10 * time.Millisecond}
	if err := runDataPull(t.Context(), s, opts); err != nil {
		t.Fatal(err)
	}
	select {
	case <-errOut.seen:
	default:
		t.Fatalf("no progress line while the pull waited; stderr %q", errOut.String())
	}
	m, err := data.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	n := len(m.Files)
	if got := errOut.String(); !strings.Contains(got, fmt.Sprintf("/%d files, ", n)) || !strings.Contains(got, " MB · tau2-bench/LICENSE") {
		t.Errorf("progress lines %q; want files, MB and the file being fetched", got)
	}
	if !strings.Contains(out.String(), fmt.Sprintf("%d files fetched", n)) {
		t.Errorf("summary %q", out.String())
	}
	// Already there: fast, no progress.
	errOut2 := &signalWriter{want: "data pull:", seen: make(chan struct{})}
	s.ErrOut, opts.slowAfter = errOut2, time.Minute
	if err := runDataPull(t.Context(), s, opts); err != nil {
		t.Fatal(err)
	}
	if errOut2.String() != "" {
		t.Errorf("a fast pull printed progress: %q", errOut2.String())
	}
}

// TestDataPullUnreachableOneLine: without network the pull fails with one
// line that says to use --from.
func TestDataPullUnreachableOneLine(t *testing.T) {
	t.Parallel()
	_, errOut, code := runCLI(t, "data", "pull", "--from", "http://127.0.0.1:1", "--data", t.TempDir())
	if code != ExitError || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "--from DIR") || !strings.Contains(errOut, "cannot reach 127.0.0.1:1") {
		t.Errorf("exit %d, stderr %q; want exit 1 and one line with the --from hint", code, errOut)
	}
}
