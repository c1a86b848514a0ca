// Package goldentest compares test output with golden files in a test
// package's testdata/ directory, and rewrites them when the package's
// -update flag is set (each test package declares its own flag and passes
// its value). Golden files hold our own output, never upstream prose.
package goldentest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Check compares got with testdata/<name>. With update set it first writes
// got there (creating testdata/). A missing file fails the test; a
// difference is reported with the first line that differs.
func Check(tb testing.TB, update bool, name, got string) {
	tb.Helper()
	path := filepath.Join("testdata", name)
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test -update to create it)", err)
	}
	if want := string(b); got != want {
		line, g, w := FirstDiff(got, want)
		tb.Errorf("%s differs at line %d (run go test -update if the change is intended):\n got %q\nwant %q", path, line, g, w)
	}
}

// FirstDiff returns the first line (1-based) where got and want differ and
// that line of each ("" past the end); line is 0 when they are equal.
func FirstDiff(got, want string) (line int, g, w string) {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		g, w = "", ""
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if i >= len(gl) || i >= len(wl) || g != w {
			return i + 1, g, w
		}
	}
	return 0, "", ""
}
