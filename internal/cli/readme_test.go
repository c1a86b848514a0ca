package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/runplan"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// readmeCommands are the `ledgerbench …` command lines of the README: the
// lines of its code blocks and its inline code spans, comments cut.
func readmeCommands(t *testing.T) []string {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	// Join continued lines (a trailing backslash) as the shell does.
	text := strings.ReplaceAll(string(b), "\\\n", " ")
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if in {
			if l := strings.TrimPrefix(strings.TrimSpace(line), "$ "); strings.HasPrefix(l, "ledgerbench ") {
				if i := strings.Index(l, " #"); i >= 0 {
					l = l[:i]
				}
				out = append(out, strings.TrimSpace(l))
			}
			continue
		}
		// Inline spans with flags are examples; a bare command name in a
		// sentence is a reference to the command.
		for _, m := range regexp.MustCompile("`(ledgerbench [^`]*)`").FindAllStringSubmatch(line, -1) {
			if strings.Contains(m[1], " -") {
				out = append(out, m[1])
			}
		}
	}
	return out
}

var placeholder = regexp.MustCompile(`(^|[\s=/])([A-Z][A-Z0-9_]*|[A-Z]\w*\.\w+)(\s|$|,)`)

// skipReason says why a README command cannot run here ("" when it can).
func skipReason(args []string, root string) string {
	line := strings.Join(args, " ")
	switch {
	case strings.ContainsAny(line, "[|…<>"), placeholder.MatchString(line):
		return "a synopsis with placeholders, not an example"
	case strings.Contains(line, "://"):
		return "needs the network"
	case len(args) >= 2 && args[0] == "data" && args[1] == "pull" && !strings.Contains(line, "--from"):
		return "pulls from GitHub (needs the network)"
	}
	for i, a := range args {
		if (a == "--backbone" || a == "--user-backbone" || a == "--judge-backbone") && i+1 < len(args) && !runplan.IsOffline(args[i+1]) {
			return "needs an API key for backbone " + args[i+1]
		}
	}
	for _, a := range args {
		if a == "--open" {
			return "opens a browser"
		}
	}
	if len(args) >= 2 && args[0] == "experiment" {
		if bb := onlineBackbones(filepath.Join(root, args[1])); bb != "" {
			return "needs API keys (backbone " + bb + ")"
		}
	}
	return ""
}

// missingInput is a positional path argument (not a flag's value) that
// exists neither here nor in the checkout.
func missingInput(args []string, root string) string {
	for i := 1; i < len(args); i++ {
		a, prev := args[i], args[i-1]
		if strings.HasPrefix(a, "-") || strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") || !strings.Contains(a, "/") || strings.ContainsAny(a, "*?") {
			continue
		}
		if _, err := os.Stat(a); err == nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, a)); err == nil {
			continue
		}
		return a
	}
	return ""
}

// onlineBackbones names a backbone of an experiment file that needs a key.
func onlineBackbones(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var doc struct {
		Grid []struct {
			Backbones     []string `yaml:"backbones"`
			UserBackbones []string `yaml:"user_backbones"`
		} `yaml:"grid"`
	}
	if yaml.Unmarshal(b, &doc) != nil {
		return ""
	}
	for _, g := range doc.Grid {
		for _, bb := range append(g.Backbones, g.UserBackbones...) {
			if !runplan.IsOffline(bb) {
				return bb
			}
		}
	}
	return ""
}

// TestREADMECommands runs every example command of the README with the
// built binary, in order, from a scratch directory, against the shared data
// (the data directory comes from $LEDGERBENCH_DATA, as after `make run`).
// Paths the README gives relative to the checkout are resolved there; globs
// are expanded as a shell would.
func TestREADMECommands(t *testing.T) {
	racetest.PlainOnly(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every README example; skipped with -short")
	}
	data := datatest.Root(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeCommands(t)
	if len(cmds) < 5 {
		t.Fatalf("found %d README commands", len(cmds))
	}
	bin := buildBinary(t)
	work, home := t.TempDir(), t.TempDir()
	ran := 0
	for _, line := range cmds {
		args := strings.Fields(strings.TrimPrefix(line, "ledgerbench "))
		if why := skipReason(args, root); why != "" {
			t.Logf("skip %q: %s", line, why)
			continue
		}
		dataDir := data
		if len(args) >= 2 && args[0] == "data" && args[1] == "pull" {
			dataDir = filepath.Join(t.TempDir(), "data") // never into the shared copy
		}
		var expanded []string
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && !filepath.IsAbs(a) {
				if _, err := os.Stat(filepath.Join(root, filepath.Dir(a))); err == nil && strings.Contains(a, "/") {
					a = filepath.Join(root, a)
				}
			}
			if strings.ContainsAny(a, "*?") {
				pattern := a
				if !filepath.IsAbs(pattern) {
					pattern = filepath.Join(work, pattern)
				}
				m, _ := filepath.Glob(pattern)
				if len(m) == 0 {
					t.Errorf("%q: %s matches nothing", line, a)
				}
				expanded = append(expanded, m...)
				continue
			}
			expanded = append(expanded, a)
		}
		if a := missingInput(args, root); a != "" {
			t.Logf("skip %q: reads %s, which no earlier README command makes (the reader's own runs)", line, a)
			continue
		}
		cmd := exec.CommandContext(t.Context(), bin, expanded...)
		cmd.Dir = work
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + os.TempDir(), "LEDGERBENCH_DATA=" + dataDir}
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Errorf("README command %q: %v\nstdout:\n%s\nstderr:\n%s", line, err, out.String(), errOut.String())
			continue
		}
		ran++
	}
	if ran < 3 {
		t.Errorf("ran %d README commands", ran)
	}
}
