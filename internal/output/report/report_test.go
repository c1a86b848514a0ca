package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

var update = flag.Bool("update", false, "update golden files")

func fixtureReport() *Report {
	return Build(metrics.Summarize(fixture(), metrics.Options{Catalog: fixtureCatalog{}}), Options{})
}

func TestGolden(t *testing.T) {
	t.Parallel()
	rep := fixtureReport()
	for _, f := range Formats() {
		t.Run(string(f), func(t *testing.T) {
			var b bytes.Buffer
			if err := rep.Write(&b, f); err != nil {
				t.Fatal(err)
			}
			ext := map[Format]string{Text: "txt", Markdown: "md", CSV: "csv", JSON: "json"}[f]
			goldentest.Check(t, *update, "report."+ext+".golden", b.String())
		})
	}
}

func TestSingleTableCSV(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := fixtureReport().Write(&b, CSV, TableMain); err != nil {
		t.Fatal(err)
	}
	goldentest.Check(t, *update, "table2.csv.golden", b.String())
	if err := fixtureReport().Write(io.Discard, CSV, "nope"); err == nil {
		t.Error("an unknown table id was accepted")
	}
}

func TestJSONShape(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := fixtureReport().Write(&b, JSON); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Tables []TableJSON
		Groups []struct {
			Domain     string             `json:"domain"`
			Agent      string             `json:"agent"`
			Backbone   string             `json:"backbone"`
			PassHatK   map[string]float64 `json:"pass_hat_k"`
			Incomplete []struct {
				TaskID string `json:"task_id"`
				Trials int    `json:"trials"`
			} `json:"incomplete_tasks"`
			Infrastructure int `json:"infrastructure_errors"`
		}
	}
	if err := json.Unmarshal(b.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	// Every table but τ-Trait's, which the default output has only when
	// some group carries traits (none here).
	if len(rep.Tables) != len(TableIDs())-1 {
		t.Errorf("JSON carries %d tables; want %d", len(rep.Tables), len(TableIDs())-1)
	}
	groups := rep.Groups
	if len(groups) != 12 {
		t.Fatalf("groups = %d; want 12", len(groups))
	}
	for _, g := range groups {
		if len(g.PassHatK) != 4 {
			t.Errorf("%s/%s/%s: pass_hat_k has keys %v; want 1..4", g.Domain, g.Agent, g.Backbone, g.PassHatK)
		}
		for _, k := range []string{"1", "2", "3", "4"} {
			if _, ok := g.PassHatK[k]; !ok {
				t.Errorf("%s/%s/%s: pass_hat_k lacks %q", g.Domain, g.Agent, g.Backbone, k)
			}
		}
		if g.Domain == "airline" && g.Agent == "baseline" && g.Backbone == "kimi-k2.5" {
			if g.Infrastructure != 1 || len(g.Incomplete) != 1 || g.Incomplete[0].TaskID != "1" || g.Incomplete[0].Trials != 3 {
				t.Errorf("infrastructure %d, incomplete %v; want 1 and task 1 with 3 trials", g.Infrastructure, g.Incomplete)
			}
		}
	}
}

// wellFormed parses an SVG as XML and returns its text content.
func wellFormed(t *testing.T, name string, svg []byte) string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var text strings.Builder
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", name, err)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = v.Name.Local
			}
		case xml.CharData:
			text.Write(v)
			text.WriteByte('\n')
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q; want svg", name, root)
	}
	return text.String()
}

func TestFigures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths, err := fixtureReport().WriteFigures(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"passk_airline.svg":              {"pass", "vs k: airline", "baseline / glm-5", "ledger / kimi-k2.5", "irma / glm-5", "(%)"},
		"passk_retail.svg":               {"vs k: retail", "ledger / glm-5"},
		"write_subset_glm-5.svg":         {"Environment-changing subset", "airline pass", "retail pass", "4", "baseline", "irma", "ledger"},
		"write_subset_kimi-k2.5.svg":     {"kimi-k2.5"},
		"errors_glm-5.svg":               {"Error breakdown", "missed required action", "wrong action arguments", "airline/baseline", "retail/ledger"},
		"errors_kimi-k2.5.svg":           {"premature transfer"},
		"action_reliability_airline.svg": {"Action-level reliability", "glm-5", "kimi-k2.5", "ledger"},
		"action_reliability_retail.svg":  {"retail"},
	}
	if len(paths) != len(want) {
		t.Errorf("wrote %d figures; want %d: %v", len(paths), len(want), paths)
	}
	for name, labels := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Error(err)
			continue
		}
		text := wellFormed(t, name, b)
		for _, l := range labels {
			if !strings.Contains(text, l) {
				t.Errorf("%s lacks the text %q", name, l)
			}
		}
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, f := range Formats() {
		if got, err := ParseFormat(string(f)); err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	if _, err := ParseFormat("html"); err == nil {
		t.Error("ParseFormat(html) succeeded")
	}
}
