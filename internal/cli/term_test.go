package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// The bar is drawn only when stderr is a terminal (whatever stdout
// is), and every drawn line fits the terminal's width.
func TestProgressTTYAndWidth(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		outTTY, errTTY bool
		width          int
	}{{true, false, 0}, {false, true, 80}, {false, true, 60}} {
		var out, errOut bytes.Buffer
		s := &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, IsTTY: tc.outTTY, ErrTTY: tc.errTTY, Width: tc.width,
			Getenv: func(string) string { return "" }}
		dir := filepath.Join(t.TempDir(), "run")
		args := append([]string{"--data", datatest.Root(t)}, append(simArgs, "--out", dir)...)
		if code := Execute(context.Background(), s, args); code != ExitOK {
			t.Fatalf("%+v: exit %d: %s", tc, code, errOut.String())
		}
		e := errOut.String()
		if bar := strings.Contains(e, "\r\033[K["); bar != tc.errTTY {
			t.Errorf("%+v: bar drawn %v; want %v", tc, bar, tc.errTTY)
		}
		if !tc.errTTY {
			continue
		}
		for _, frame := range strings.Split(strings.ReplaceAll(e, "\n", "\r"), "\r") {
			frame = strings.TrimPrefix(frame, "\033[K")
			if strings.HasPrefix(frame, "[") && utf8.RuneCountInString(frame) >= tc.width {
				t.Errorf("width %d: a %d-column progress line: %q", tc.width, utf8.RuneCountInString(frame), frame)
			}
		}
	}
}

func TestFitLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 100)
	if got := fitLine(long, 80); utf8.RuneCountInString(got) != 79 || !strings.HasSuffix(got, "…") {
		t.Errorf("fitLine = %d runes %q", utf8.RuneCountInString(got), got)
	}
	if got := fitLine("short", 80); got != "short" {
		t.Errorf("fitLine(short) = %q", got)
	}
	s := &Streams{Getenv: func(k string) string { return map[string]string{"COLUMNS": "120"}[k] }}
	if s.width() != 120 {
		t.Errorf("width with COLUMNS=120 = %d", s.width())
	}
	if (&Streams{}).width() != defaultWidth {
		t.Error("unknown width is not 80")
	}
}

// Llm retries and cache problems are reported on the run's stderr,
// clearing the bar's line on a terminal.
func TestStderrLogf(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := &lockedWriter{w: &b}
	stderrLogf(w, true)("retry %d: %s", 1, "429")
	stderrLogf(w, false)("cache: %v", fmt.Errorf("disk full"))
	if got, want := b.String(), "\r\033[Kretry 1: 429\ncache: disk full\n"; got != want {
		t.Errorf("logged %q; want %q", got, want)
	}
}

// A run's retries reach its stderr (llm.Options.Logf is wired).
func TestRunReportsRetries(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewHandlerServer(t, fakeRetail)
	srv.SetFaults(&openaitest.Faults{Seed: 3, RateLimit: 0.3})
	tmp := t.TempDir()
	bb := writeBackbones(t, tmp, srv.BaseURL(), time.Second)
	r, err := runInProcess(t, t.Context(), "--domain", "retail", "--backbone", "fake", "--user-backbone", "fake", "--backbones", bb,
		"--limit", "3", "--trials", "1", "--out", filepath.Join(tmp, "run"))
	if err != nil {
		t.Fatalf("run: %v\n%s", err, r.errOut)
	}
	if !strings.Contains(r.errOut, "llm fake: attempt 1 failed") || !strings.Contains(r.errOut, "retrying in") {
		t.Errorf("no retry reported on stderr:\n%s", r.errOut)
	}
}

// Cells running in parallel label their progress lines.
func TestExperimentLabelsParallelCells(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path, _ := simConfig(t, dir, false) // parallel_cells: 2
	r := mustRun(t, "experiment", "--no-report", path)
	labelled := 0
	for _, line := range strings.Split(r.errOut, "\n") {
		if strings.Contains(line, "/100%)") || strings.Contains(line, "(100%)") {
			if !strings.HasPrefix(line, "[") || !strings.Contains(line, "sim] ") {
				t.Errorf("unlabelled progress line of a parallel cell: %q", line)
			}
			labelled++
		}
	}
	if labelled == 0 {
		t.Errorf("no progress lines:\n%s", r.errOut)
	}
}

func TestPrefixWriter(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := &prefixWriter{w: &b, prefix: "[a] "}
	fmt.Fprint(w, "one\ntw")
	fmt.Fprint(w, "o\n\nthree\n")
	if got, want := b.String(), "[a] one\n[a] two\n[a] \n[a] three\n"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}

// What is not a terminal is told apart from one, /dev/null (a
// character device) included, so redirected output draws no bar.
func TestIsTerminalNot(t *testing.T) {
	t.Parallel()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no %s: %v", os.DevNull, err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, file := range map[string]*os.File{"/dev/null": null, "pipe": w, "file": f} {
		if isTerminal(file) {
			t.Errorf("isTerminal(%s) = true", name)
		}
		if n := terminalWidth(file); n != 0 {
			t.Errorf("terminalWidth(%s) = %d; want 0", name, n)
		}
	}
}
