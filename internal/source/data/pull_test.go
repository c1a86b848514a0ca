package data_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

func TestManifestMatchesSharedManifests(t *testing.T) {
	t.Parallel()
	m, err := data.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	root := datatest.Root(t)
	// every pinned file's hash also appears in the upstream copy's MANIFEST.txt
	for _, folder := range []string{data.Tau2, data.TauTrait} {
		b, err := os.ReadFile(filepath.Join(root, folder, "MANIFEST.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m.Files {
			if f.Folder == folder && !strings.Contains(string(b), f.SHA256+"  ") {
				t.Errorf("%s/%s: hash %s not in %s/MANIFEST.txt", folder, f.Path, f.SHA256, folder)
			}
		}
	}
	if len(m.Files) < 30 {
		t.Errorf("manifest has %d files; want the full pinned set", len(m.Files))
	}
}

func TestPullFromDirAndCheck(t *testing.T) {
	t.Parallel()
	m, _ := data.LoadManifest()
	dst := t.TempDir()
	st, err := data.Pull(context.Background(), m, data.Source{Dir: datatest.Root(t)}, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.Action != "fetched" {
			t.Errorf("%s: %s", s.File.Path, s.Action)
		}
	}
	if err := data.Check(m, dst); err != nil {
		t.Fatal(err)
	}
	// second pull keeps everything
	st, err = data.Pull(context.Background(), m, data.Source{Dir: datatest.Root(t)}, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Action != "ok" {
		t.Errorf("second pull: %s; want ok", st[0].Action)
	}
}

func TestPullMismatchLeavesNothing(t *testing.T) {
	t.Parallel()
	m := &data.Manifest{Files: []data.File{
		{Folder: "x", Path: "a.txt", SHA256: strings.Repeat("0", 64), Size: 5},
		{Folder: "x", Path: "missing.txt", SHA256: strings.Repeat("0", 64), Size: 1},
	}}
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "x", "a.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	_, err := data.Pull(context.Background(), m, data.Source{Dir: src}, dst, nil)
	if err == nil {
		t.Fatal("pull accepted a file with the wrong hash")
	}
	for _, name := range []string{"x/a.txt", "x/missing.txt"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dst, "x"))
	if len(entries) != 0 {
		t.Errorf("pull left files behind: %v", entries)
	}
}

func TestPullFromURL(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/x/a.txt" {
			w.Write([]byte("hello"))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	m := &data.Manifest{Files: []data.File{{Folder: "x", Path: "a.txt",
		SHA256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", Size: 5}}}
	dst := t.TempDir()
	if _, err := data.Pull(context.Background(), m, data.ParseSource(srv.URL), dst, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dst, "x", "a.txt"))
	if string(b) != "hello" {
		t.Errorf("got %q", b)
	}
}

// TestPullFailureSummary: a pull that cannot get its files fails with one
// line that groups the failures by cause and says how to pull from
// elsewhere, whatever the source.
func TestPullFailureSummary(t *testing.T) {
	t.Parallel()
	m, err := data.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	var requests atomic.Int64
	status := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			w.WriteHeader(code)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	// A port nothing listens on: listen, note the address, close.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	n := len(m.Files)
	for _, tc := range []struct {
		name, from string
		want       []string
	}{
		{"missing folder", filepath.Join(t.TempDir(), "nope"), []string{"is not a folder", "--from DIR wants one folder per upstream repository"}},
		{"empty folder", t.TempDir(), []string{fmt.Sprintf("%d of %d files failed: missing from the source (tau2-bench/LICENSE, ", n, n), fmt.Sprintf("and %d more)", n-2), "--from DIR wants"}},
		{"404", status(http.StatusNotFound), []string{"missing from the source", "--from URL must serve"}},
		{"500", status(http.StatusInternalServerError), []string{"HTTP 500 Internal Server Error (tau2-bench/LICENSE"}},
		{"unreachable", closed, []string{"cannot reach " + strings.TrimPrefix(closed, "http://"), "--from DIR reads a local copy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := data.Pull(t.Context(), m, data.ParseSource(tc.from), t.TempDir(), nil)
			if err == nil {
				t.Fatal("pull succeeded")
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of %d lines; want one:\n%s", strings.Count(err.Error(), "\n")+1, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q; want %q", err, w)
				}
			}
		})
	}
	if got := requests.Load(); got != int64(2*n) {
		t.Errorf("%d requests to the 404 and 500 servers; want %d (each file once)", got, 2*n)
	}
}

// TestPullStopsWhenUnreachable: once the host cannot be reached, no other
// file is tried.
func TestPullStopsWhenUnreachable(t *testing.T) {
	t.Parallel()
	m, _ := data.LoadManifest()
	var dials atomic.Int64
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("network is unreachable")}
	}}}
	sts, err := data.Pull(t.Context(), m, data.Source{BaseURL: "http://upstream.invalid", Client: client}, t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), "cannot reach upstream.invalid") {
		t.Fatalf("error %v; want cannot reach upstream.invalid", err)
	}
	if got := dials.Load(); got != 1 {
		t.Errorf("%d dials; want 1", got)
	}
	if len(sts) != len(m.Files) || sts[len(sts)-1].Action != "failed" {
		t.Errorf("%d statuses; want %d, all failed", len(sts), len(m.Files))
	}
}

// TestCheckModifiedAndMissing: data check says "modified" for a changed
// file and "missing" for an absent one.
func TestCheckModifiedAndMissing(t *testing.T) {
	t.Parallel()
	m := &data.Manifest{Files: []data.File{
		{Folder: "x", Path: "a.txt", SHA256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", Size: 5},
		{Folder: "x", Path: "b.txt", SHA256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", Size: 5},
		{Folder: "x", Path: "c.txt", SHA256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", Size: 5},
	}}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"a.txt": "hello", "b.txt": "hellO"} {
		if err := os.WriteFile(filepath.Join(dir, "x", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := data.Check(m, dir)
	if err == nil {
		t.Fatal("check passed")
	}
	for _, w := range []string{"differs from the manifest: 1 modified, 1 missing (of 3 pinned files", "b.txt: modified (sha256 ", "c.txt: missing"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q; want %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "incomplete") || strings.Contains(err.Error(), "a.txt") {
		t.Errorf("error %q calls the data incomplete or names the good file", err)
	}
}
