// Package viewtest drives headless Chromium for the view's browser tests:
// it dumps a page's DOM after its script ran and takes screenshots.
package viewtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// Browser is a headless Chromium binary that starts.
type Browser struct {
	path    string
	profile string
}

// Chromium finds Chromium (chromium, chromium-browser, google-chrome or
// $LEDGERBENCH_CHROMIUM) and checks it starts; the test is skipped with the
// reason when it does not.
func Chromium(t *testing.T) *Browser {
	t.Helper()
	var path string
	if p := os.Getenv("LEDGERBENCH_CHROMIUM"); p != "" {
		path = p
	} else {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
			if p, err := exec.LookPath(name); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		t.Skip("headless Chromium not found (install Debian's chromium package, or set LEDGERBENCH_CHROMIUM); skipping the browser test")
	}
	b := &Browser{path: path, profile: t.TempDir()}
	out, err := b.run(60*time.Second, "--dump-dom", "data:text/html,<p id=ok>ok</p>")
	if err != nil || !bytes.Contains(out, []byte(`id="ok"`)) {
		t.Skipf("headless Chromium %s cannot start (%v): %.300s; skipping the browser test", path, err, out)
	}
	return b
}

// slot lets one Chromium run at a time in a test binary: the browser tests
// run in parallel with the others, but two browsers at once on a loaded
// 2-core machine can each outlast their timeout.
var slot = make(chan struct{}, 1)

// run runs Chromium with args, killing it after timeout (counted from its
// start, not from the wait for the slot).
func (b *Browser) run(timeout time.Duration, args ...string) ([]byte, error) {
	slot <- struct{}{}
	defer func() { <-slot }()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--disable-extensions", "--hide-scrollbars", "--user-data-dir=" + b.profile}
	cmd := exec.CommandContext(ctx, b.path, append(base, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil {
		return append(out.Bytes(), errOut.Bytes()...), err
	}
	return out.Bytes(), nil
}

// DOM returns the page's DOM after its script ran.
func (b *Browser) DOM(t *testing.T, url string) string {
	t.Helper()
	out, err := b.run(90*time.Second, "--virtual-time-budget=5000", "--dump-dom", url)
	if err != nil {
		t.Fatalf("chromium --dump-dom %s: %v\n%.2000s", url, err, out)
	}
	return string(out)
}

// Screenshot writes a PNG of the page at the given window size.
func (b *Browser) Screenshot(t *testing.T, url, path string, width, height int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := b.run(90*time.Second, "--virtual-time-budget=5000", "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "--screenshot="+path, url)
	if err != nil {
		t.Fatalf("chromium --screenshot %s: %v\n%.2000s", url, err, out)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("screenshot %s: %v", url, err)
	}
	if fi.Size() < 20000 {
		t.Errorf("screenshot of %s is %d bytes: a blank page?", url, fi.Size())
	}
}

var errCount = regexp.MustCompile(`id="page-errors" data-count="(\d+)"[^>]*>([^<]*)`)

// PageErrors returns the errors the page's script noted in #page-errors
// (script errors, rejected promises, console.error calls); it fails the test
// when the node is missing.
func PageErrors(t *testing.T, dom string) string {
	t.Helper()
	m := errCount.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no #page-errors node in the DOM:\n%.1000s", dom)
	}
	if m[1] == "0" {
		return ""
	}
	return m[2]
}

// Count returns how often a substring occurs in the DOM.
func Count(dom, s string) int { return bytes.Count([]byte(dom), []byte(s)) }
