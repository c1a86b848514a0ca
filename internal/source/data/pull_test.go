package data_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
