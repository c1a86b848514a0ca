// The layering of ledgerbench's packages, checked over `go list`.
//
// Every package lives in internal/<layer>/ (cmd/ledgerbench is the entry
// point above them all). From the bottom up the layers are py, core,
// source, bench, engine, score, output and cli; a package imports only
// from its own layer and the layers below it. Tests are not part of the
// build graph and may exercise a package through higher layers (a domain's
// gate through ledgeragent, say).
package layers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ledgerbench/ledgerbench/"

// layers lists the layer folders from the bottom up.
var layers = []string{"py", "core", "source", "bench", "engine", "score", "output", "cli"}

// apart lists imports a layer allows but the design rules out: the
// orchestrator knows roles, not models (agents and user simulators are its
// interfaces; the LLM client is behind them).
var apart = map[string][]string{
	"internal/engine/orchestrator": {"internal/engine/llm"},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

// rank returns the layer index of a module-relative package path (one past
// the top for cmd/, -1 for a package outside the layer folders) and the
// layer's name.
func rank(rel string) (int, string) {
	if strings.HasPrefix(rel, "cmd/") {
		return len(layers), "cmd"
	}
	if !strings.HasPrefix(rel, "internal/") {
		return -1, ""
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(rel, "internal/"), "/")
	return slices.Index(layers, name), name
}

// breaches lists every import of pkgs that goes against the layering.
func breaches(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.ImportPath, module)
		r, name := rank(rel)
		if r < 0 {
			out = append(out, fmt.Sprintf("%s: not in a layer folder (internal/<%s>/…)", rel, strings.Join(layers, "|")))
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			irel := strings.TrimPrefix(imp, module)
			ir, iname := rank(irel)
			if ir > r || ir < 0 {
				out = append(out, fmt.Sprintf("%s (%s) imports %s (%s): a layer above its own", rel, name, irel, iname))
			}
			if slices.Contains(apart[rel], irel) {
				out = append(out, fmt.Sprintf("%s imports %s: ruled out by the design", rel, irel))
			}
		}
	}
	return out
}

func TestLayers(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not on PATH")
	}
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.ImportPath != module+"internal" { // this test's own folder
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) < 40 {
		t.Fatalf("go list gave %d packages; want the whole module", len(pkgs))
	}
	for _, b := range breaches(pkgs) {
		t.Error(b)
	}
}

func TestBreaches(t *testing.T) {
	tests := []struct {
		name   string
		pkg    pkg
		breach bool
	}{
		{"same layer", pkg{module + "internal/bench/envs/airline", []string{module + "internal/bench/ledger"}}, false},
		{"lower layer", pkg{module + "internal/engine/runner", []string{module + "internal/py/pyjson", "context"}}, false},
		{"higher layer", pkg{module + "internal/engine/runner", []string{module + "internal/score/metrics"}}, true},
		{"cli from a library layer", pkg{module + "internal/bench/results", []string{module + "internal/cli"}}, true},
		{"cmd imports cli", pkg{module + "cmd/ledgerbench", []string{module + "internal/cli"}}, false},
		{"ruled out", pkg{module + "internal/engine/orchestrator", []string{module + "internal/engine/llm"}}, true},
		{"outside the layers", pkg{module + "results", nil}, true},
		{"unknown layer", pkg{module + "internal/misc/x", nil}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := len(breaches([]pkg{tc.pkg})) > 0; got != tc.breach {
				t.Errorf("breaches(%v) = %v; want breach %v", tc.pkg, breaches([]pkg{tc.pkg}), tc.breach)
			}
		})
	}
}
