// Package viewtest drives headless Chromium for the view's browser tests:
// it dumps a page's DOM after its script ran and takes screenshots.
//
// One Chromium serves every test of a test binary: it is started on first
// use and driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe), each page in a new tab. Starting a browser
// costs seconds on a loaded machine; a tab costs a fraction of one. A page
// is read the way `chromium --virtual-time-budget=5000 --dump-dom` reads it:
// loaded with virtual time paused, then given 5 s of virtual time (advancing
// while no fetch is pending) for its scripts, then serialised.
package viewtest

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// virtualBudgetMS is the virtual time a page's scripts get before it is
// read (as --virtual-time-budget=5000).
const virtualBudgetMS = 5000

// pageTimeout bounds one page, from opening its tab to reading it.
const pageTimeout = 90 * time.Second

// Browser is a running headless Chromium, shared by the tests of a binary.
type Browser struct {
	cmd     *exec.Cmd
	w       io.WriteCloser // commands, to Chromium's fd 3
	done    chan struct{}  // closed when Chromium's fd 4 reaches EOF
	mu      sync.Mutex
	nextID  int
	pending map[int]chan reply
	waiters map[string][]chan struct{} // sessionId + " " + event method
	err     error                      // why the pipe ended
}

type reply struct {
	result json.RawMessage
	err    error
}

var (
	sharedMu  sync.Mutex
	shared    *Browser
	sharedErr string // why Chromium cannot run here (the skip reason)
	// slot lets one page load at a time in a test binary: the browser
	// tests run in parallel with the others, and two pages at once on a
	// loaded 2-core machine each take twice as long.
	slot = make(chan struct{}, 1)
)

// Chromium returns the binary's shared headless Chromium (chromium,
// chromium-browser, google-chrome or $LEDGERBENCH_CHROMIUM), starting it on
// first use; the test is skipped with the reason when it cannot start.
func Chromium(t *testing.T) *Browser {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedErr != "" {
		t.Skip(sharedErr)
	}
	if shared != nil && !shared.exited() {
		return shared
	}
	path := chromiumPath()
	if path == "" {
		sharedErr = "headless Chromium not found (install Debian's chromium package, or set LEDGERBENCH_CHROMIUM); skipping the browser test"
		t.Skip(sharedErr)
	}
	b, err := start(path)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		_, err = b.call(ctx, "", "Browser.getVersion", nil)
		cancel()
	}
	if err != nil {
		if b != nil {
			b.close()
		}
		sharedErr = fmt.Sprintf("headless Chromium %s cannot start (%.300s); skipping the browser test", path, err)
		t.Skip(sharedErr)
	}
	shared = b
	return b
}

func chromiumPath() string {
	if p := os.Getenv("LEDGERBENCH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// start launches Chromium with the DevTools protocol on fds 3 (its input)
// and 4 (its output). It lives until the test binary exits: Chromium quits
// when its end of the pipe closes.
func start(path string) (*Browser, error) {
	profile, err := os.MkdirTemp("", "viewtest-chromium-")
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--disable-extensions", "--hide-scrollbars", "--user-data-dir="+profile, "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{inR, outW}
	var stderr strings.Builder
	cmd.Stderr = &limitWriter{w: &stderr, n: 4000}
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	inR.Close()
	outW.Close()
	b := &Browser{cmd: cmd, w: inW, done: make(chan struct{}), pending: map[int]chan reply{}, waiters: map[string][]chan struct{}{}}
	go b.read(outR, &stderr, profile)
	return b, nil
}

// read dispatches Chromium's messages (NUL-terminated JSON) until EOF.
func (b *Browser) read(r io.ReadCloser, stderr *strings.Builder, profile string) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var line []byte
		line, err = br.ReadBytes(0)
		if err != nil {
			break
		}
		var m struct {
			ID        int             `json:"id"`
			Method    string          `json:"method"`
			SessionID string          `json:"sessionId"`
			Result    json.RawMessage `json:"result"`
			Error     *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line[:len(line)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch := b.pending[m.ID]; ch != nil {
				delete(b.pending, m.ID)
				rep := reply{result: m.Result}
				if m.Error != nil {
					rep.err = fmt.Errorf("%s (%d)", m.Error.Message, m.Error.Code)
				}
				ch <- rep
			}
		} else if m.Method != "" {
			key := m.SessionID + " " + m.Method
			for _, ch := range b.waiters[key] {
				close(ch)
			}
			delete(b.waiters, key)
		}
		b.mu.Unlock()
	}
	_ = b.cmd.Wait()
	os.RemoveAll(profile)
	b.mu.Lock()
	b.err = fmt.Errorf("chromium exited (%v): %.2000s", err, stderr.String())
	for id, ch := range b.pending {
		ch <- reply{err: b.err}
		delete(b.pending, id)
	}
	b.mu.Unlock()
	close(b.done)
}

func (b *Browser) exited() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

func (b *Browser) close() {
	b.w.Close()
	select {
	case <-b.done:
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		<-b.done
	}
}

// call sends one command (to the browser when session is "", else to a
// tab's session) and waits for its result.
func (b *Browser) call(ctx context.Context, session, method string, params any) (json.RawMessage, error) {
	if params == nil {
		params = struct{}{}
	}
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return nil, b.err
	}
	b.nextID++
	id := b.nextID
	ch := make(chan reply, 1)
	b.pending[id] = ch
	msg, err := json.Marshal(struct {
		ID        int    `json:"id"`
		SessionID string `json:"sessionId,omitempty"`
		Method    string `json:"method"`
		Params    any    `json:"params"`
	}{id, session, method, params})
	if err == nil {
		_, err = b.w.Write(append(msg, 0))
	}
	if err != nil {
		delete(b.pending, id)
		b.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	b.mu.Unlock()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("%s: %w", method, r.err)
		}
		return r.result, nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// await returns a channel closed when the session next receives event.
func (b *Browser) await(session, event string) <-chan struct{} {
	ch := make(chan struct{})
	b.mu.Lock()
	key := session + " " + event
	b.waiters[key] = append(b.waiters[key], ch)
	b.mu.Unlock()
	return ch
}

// page is one open tab.
type page struct {
	b       *Browser
	target  string
	session string
}

// open loads url in a new tab of the given size (0 for Chromium's default)
// and runs its scripts for the virtual time budget.
func (b *Browser) open(ctx context.Context, url string, width, height int) (*page, error) {
	res, err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		return nil, err
	}
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := json.Unmarshal(res, &created); err != nil {
		return nil, fmt.Errorf("Target.createTarget: %w", err)
	}
	p := &page{b: b, target: created.TargetID}
	res, err = b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": p.target, "flatten": true})
	if err == nil {
		var attached struct {
			SessionID string `json:"sessionId"`
		}
		err = json.Unmarshal(res, &attached)
		p.session = attached.SessionID
	}
	if err != nil {
		p.close()
		return nil, err
	}
	steps := []struct {
		method string
		params any
	}{{"Emulation.setVirtualTimePolicy", map[string]any{"policy": "pause"}}}
	if width > 0 {
		steps = append(steps, struct {
			method string
			params any
		}{"Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}})
	}
	for _, s := range steps {
		if _, err := b.call(ctx, p.session, s.method, s.params); err != nil {
			p.close()
			return nil, err
		}
	}
	if res, err = b.call(ctx, p.session, "Page.navigate", map[string]any{"url": url}); err == nil {
		var nav struct {
			ErrorText string `json:"errorText"`
		}
		_ = json.Unmarshal(res, &nav)
		if nav.ErrorText != "" {
			err = fmt.Errorf("Page.navigate %s: %s", url, nav.ErrorText)
		}
	}
	if err != nil {
		p.close()
		return nil, err
	}
	expired := b.await(p.session, "Emulation.virtualTimeBudgetExpired")
	if _, err := b.call(ctx, p.session, "Emulation.setVirtualTimePolicy", map[string]any{"policy": "pauseIfNetworkFetchesPending", "budget": virtualBudgetMS}); err != nil {
		p.close()
		return nil, err
	}
	select {
	case <-expired:
		return p, nil
	case <-b.done:
		return nil, b.err
	case <-ctx.Done():
		p.close()
		return nil, fmt.Errorf("%s: virtual time budget not spent: %w", url, ctx.Err())
	}
}

func (p *page) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = p.b.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": p.target})
}

// withPage opens url, hands the tab to f and closes it, one page at a time.
func (b *Browser) withPage(url string, width, height int, f func(ctx context.Context, p *page) error) error {
	slot <- struct{}{}
	defer func() { <-slot }()
	ctx, cancel := context.WithTimeout(context.Background(), pageTimeout)
	defer cancel()
	p, err := b.open(ctx, url, width, height)
	if err != nil {
		return err
	}
	defer p.close()
	return f(ctx, p)
}

// domScript serialises the document as --dump-dom does: the doctype, then
// the root element's outer HTML.
const domScript = `(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + "\n" : "") + document.documentElement.outerHTML`

// DOM returns the page's DOM after its script ran.
func (b *Browser) DOM(t *testing.T, url string) string {
	t.Helper()
	var dom string
	err := b.withPage(url, 0, 0, func(ctx context.Context, p *page) error {
		res, err := b.call(ctx, p.session, "Runtime.evaluate", map[string]any{"expression": domScript, "returnByValue": true})
		if err != nil {
			return err
		}
		var ev struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
			ExceptionDetails json.RawMessage `json:"exceptionDetails"`
		}
		if err := json.Unmarshal(res, &ev); err != nil {
			return fmt.Errorf("Runtime.evaluate: %w", err)
		}
		if len(ev.ExceptionDetails) > 0 {
			return fmt.Errorf("Runtime.evaluate: %.500s", ev.ExceptionDetails)
		}
		dom = ev.Result.Value
		return nil
	})
	if err != nil {
		t.Fatalf("chromium DOM of %s: %v", url, err)
	}
	return dom
}

// Screenshot writes a PNG of the page at the given window size.
func (b *Browser) Screenshot(t *testing.T, url, path string, width, height int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var png []byte
	err := b.withPage(url, width, height, func(ctx context.Context, p *page) error {
		res, err := b.call(ctx, p.session, "Page.captureScreenshot", map[string]any{"format": "png"})
		if err != nil {
			return err
		}
		var shot struct {
			Data string `json:"data"`
		}
		if err := json.Unmarshal(res, &shot); err != nil {
			return fmt.Errorf("Page.captureScreenshot: %w", err)
		}
		png, err = base64.StdEncoding.DecodeString(shot.Data)
		return err
	})
	if err == nil && len(png) == 0 {
		err = errors.New("empty image")
	}
	if err != nil {
		t.Fatalf("chromium screenshot of %s: %v", url, err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(png) < 20000 {
		t.Errorf("screenshot of %s is %d bytes: a blank page?", url, len(png))
	}
}

// limitWriter keeps the first n bytes written to it.
type limitWriter struct {
	mu sync.Mutex
	w  *strings.Builder
	n  int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
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
func Count(dom, s string) int { return strings.Count(dom, s) }
