package atomicfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/atomicfile"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		old  string // "" = no file before
		data string
	}{
		{"new file", "", "hello\n"},
		{"replaces", "old content that is longer", "new"},
		{"empty", "something", ""},
		{"multi-byte", "", "naïve café — 東京\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.json")
			if tc.old != "" {
				if err := os.WriteFile(p, []byte(tc.old), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := atomicfile.Write(p, []byte(tc.data)); err != nil {
				t.Fatalf("Write: %v", err)
			}
			got, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.data {
				t.Errorf("content %q; want %q", got, tc.data)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != atomicfile.Mode {
				t.Errorf("mode %v; want %v", fi.Mode().Perm(), atomicfile.Mode)
			}
			assertOnly(t, dir, "f.json")
		})
	}
}

func TestWriteFuncRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "data.bin")
	if err := os.WriteFile(p, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("checksum mismatch")
	err := atomicfile.WriteFunc(p, func(w io.Writer) error {
		if _, err := io.WriteString(w, "partial garbage"); err != nil {
			return err
		}
		return refused
	})
	if err != refused {
		t.Fatalf("err = %v; want fill's error as it is", err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "keep" {
		t.Errorf("content %q after a refused write; want the old %q", got, "keep")
	}
	assertOnly(t, dir, "data.bin")
}

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name string
		path string
	}{
		{"missing directory", filepath.Join(dir, "nope", "f")},
		{"destination is a directory", dir},
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests[1].path = filepath.Join(dir, "sub")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := atomicfile.Write(tc.path, []byte("x"))
			if err == nil || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("err = %v; want an error naming %s", err, tc.path)
			}
		})
	}
	assertOnly(t, dir, "sub")
}

// assertOnly fails when dir holds anything but names (a leftover temporary
// file).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("directory holds %v; want %v", got, names)
	}
}
