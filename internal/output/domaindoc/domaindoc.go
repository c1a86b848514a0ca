// Package domaindoc is the `domain D` command: a domain's documentation as
// τ²-bench's `tau2 domain` serves it (the environment's policy and its
// tools, agent and user side, with their parameter schemas), plus what a
// user choosing tasks needs (task and split counts). Everything is read
// from the loaded domain, so the text is the pulled upstream text the
// agent sees.
package domaindoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
)

// Options select the domain and how it is shown.
type Options struct {
	DataDir string
	Domain  string
	// Solo documents τ²-bench's solo mode of the domain (its solo policy,
	// the agent holding the user's tools).
	Solo bool
	// Load are the domain's load-time options (banking_knowledge's
	// retrieval variant decides its knowledge tools).
	Load domains.Options
	// JSON writes the Doc as one indented JSON object instead of Markdown.
	JSON bool
}

// Doc is a domain's documentation.
type Doc struct {
	Domain    string `json:"domain"`
	Benchmark string `json:"benchmark"`
	Solo      bool   `json:"solo,omitempty"`
	// Tasks counts the default split, what run selects without --split;
	// Splits each named split (and extra task list) as Select gives it.
	Tasks        int               `json:"tasks"`
	DefaultSplit string            `json:"default_split,omitempty"`
	Splits       []Split           `json:"splits"`
	Unavailable  map[string]string `json:"unavailable_splits,omitempty"`
	Policy       string            `json:"policy"`
	AgentTools   []Tool            `json:"agent_tools"`
	UserTools    []Tool            `json:"user_tools,omitempty"`
}

// Split is one named task list and its size.
type Split struct {
	Name  string `json:"name"`
	Tasks int    `json:"tasks"`
}

// Tool is one tool as the model is shown it, with its kind.
type Tool struct {
	Name        string          `json:"name"`
	Kind        tool.Kind       `json:"kind"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Load loads the domain and builds its Doc.
func Load(opts Options) (*Doc, error) {
	var (
		dom envs.Domain
		err error
	)
	if opts.Solo {
		dom, err = domains.LoadSolo(opts.Domain, opts.DataDir)
	} else {
		dom, err = domains.LoadWith(opts.Domain, opts.DataDir, opts.Load)
	}
	if err != nil {
		return nil, err
	}
	d, err := Build(dom)
	if err != nil {
		return nil, err
	}
	if opts.Solo {
		// No user plays a solo simulation: the agent holds the phone tools.
		d.Solo, d.UserTools = true, nil
	}
	return d, nil
}

// Build documents a loaded domain.
func Build(dom envs.Domain) (*Doc, error) {
	if err := envs.Describe(dom); err != nil {
		return nil, fmt.Errorf("document %s: %w", dom.Name(), err)
	}
	d := &Doc{Domain: dom.Name(), Policy: dom.Policy(), AgentTools: tools(dom.AgentTools()), UserTools: tools(dom.UserTools())}
	if k, ok := known.Lookup(dom.Name()); ok {
		d.Benchmark = string(k.Benchmark)
	}
	set := dom.Tasks()
	if set == nil {
		return d, nil
	}
	n, err := set.Count(set.DefaultSplit)
	if err != nil {
		return nil, fmt.Errorf("document %s: %w", dom.Name(), err)
	}
	d.Tasks, d.DefaultSplit = n, set.DefaultSplit
	d.Splits = []Split{}
	for _, name := range set.SplitNames() {
		n, err := set.Count(name)
		if err != nil {
			return nil, fmt.Errorf("document %s: split %s: %w", dom.Name(), name, err)
		}
		d.Splits = append(d.Splits, Split{Name: name, Tasks: n})
	}
	if len(set.Unavailable) > 0 {
		d.Unavailable = set.Unavailable
	}
	return d, nil
}

func tools(list []tool.Info) []Tool {
	out := make([]Tool, len(list))
	for i, t := range list {
		p := t.Parameters
		if len(bytes.TrimSpace(p)) == 0 {
			p = json.RawMessage("null")
		}
		out[i] = Tool{Name: t.Name, Kind: t.Kind, Description: t.Description, Parameters: p}
	}
	return out
}

// Run loads the domain and writes its documentation to w.
func Run(w io.Writer, opts Options) error {
	d, err := Load(opts)
	if err != nil {
		return err
	}
	if opts.JSON {
		return d.WriteJSON(w)
	}
	return d.WriteMarkdown(w)
}

// WriteJSON writes the Doc as one indented JSON object.
func (d *Doc) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// WriteMarkdown writes the Doc as Markdown: a summary of the tasks, the
// policy as upstream's text, then every tool with its description and its
// parameters' JSON schema.
func (d *Doc) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	title := d.Domain
	if d.Solo {
		title += " (solo mode)"
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	if d.Benchmark != "" {
		fmt.Fprintf(&b, "Ported from %s.\n\n", d.Benchmark)
	}
	fmt.Fprintf(&b, "## Tasks\n\n%d tasks", d.Tasks)
	if d.DefaultSplit != "" {
		fmt.Fprintf(&b, " in the default split `%s`", d.DefaultSplit)
	}
	b.WriteString(".\n\n")
	if len(d.Splits) > 0 {
		b.WriteString("| split | tasks |\n| --- | --- |\n")
		for _, s := range d.Splits {
			fmt.Fprintf(&b, "| %s | %d |\n", s.Name, s.Tasks)
		}
		b.WriteString("\n")
	}
	names := make([]string, 0, len(d.Unavailable))
	for n := range d.Unavailable {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "Split `%s` is not offered: %s\n\n", n, d.Unavailable[n])
	}
	b.WriteString("## Policy\n\n")
	b.WriteString(strings.TrimRight(d.Policy, "\n"))
	b.WriteString("\n\n")
	if err := writeTools(&b, "Agent tools", d.AgentTools); err != nil {
		return err
	}
	if len(d.UserTools) > 0 {
		if err := writeTools(&b, "User tools", d.UserTools); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeTools(b *strings.Builder, title string, list []Tool) error {
	fmt.Fprintf(b, "## %s (%d)\n\n", title, len(list))
	for _, t := range list {
		fmt.Fprintf(b, "### %s (%s)\n\n", t.Name, t.Kind)
		if desc := strings.TrimSpace(t.Description); desc != "" {
			b.WriteString(desc)
			b.WriteString("\n\n")
		}
		var schema bytes.Buffer
		if err := json.Indent(&schema, t.Parameters, "", "  "); err != nil {
			return fmt.Errorf("tool %s: parameters: %w", t.Name, err)
		}
		fmt.Fprintf(b, "Parameters:\n\n```json\n%s\n```\n\n", schema.String())
	}
	return nil
}
