package goldentest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFirstDiff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		got, want string
		line      int
		g, w      string
	}{
		{"a\nb", "a\nb", 0, "", ""},
		{"a\nb", "a\nc", 2, "b", "c"},
		{"a\nb\n", "a\nb", 3, "", ""},
		{"a", "a\nb", 2, "", "b"},
		{"", "x", 1, "", "x"},
	} {
		line, g, w := FirstDiff(tc.got, tc.want)
		if line != tc.line || g != tc.g || w != tc.w {
			t.Errorf("FirstDiff(%q, %q) = %d %q %q; want %d %q %q", tc.got, tc.want, line, g, w, tc.line, tc.g, tc.w)
		}
	}
}

// TestCheckUpdate: with update the file is written (testdata/ created) and
// then matches; a different output fails the check.
func TestCheckUpdate(t *testing.T) {
	t.Chdir(t.TempDir())
	Check(t, true, "x.golden", "one\ntwo\n")
	b, err := os.ReadFile(filepath.Join("testdata", "x.golden"))
	if err != nil || string(b) != "one\ntwo\n" {
		t.Fatalf("written %q, %v", b, err)
	}
	Check(t, false, "x.golden", "one\ntwo\n")
	ft := &fakeTB{TB: t}
	Check(ft, false, "x.golden", "one\nthree\n")
	if !ft.failed {
		t.Errorf("a different output passed the check")
	}
}

type fakeTB struct {
	testing.TB
	failed bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Errorf(string, ...any) { f.failed = true }
func (f *fakeTB) Fatalf(string, ...any) { f.failed = true }
