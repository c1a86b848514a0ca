// Package domains loads the ported domains: each name of internal/source/known
// paired with its loader, its solo-mode loader and the derived files built
// at pull time. Adding a domain means adding its package, a line in known
// and a line here.
package domains

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/airline"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/retail"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/telecom"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/telehealth"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
)

type entry struct {
	name string
	load func(root string) (envs.Domain, error)
	// solo loads the domain in τ²-bench's solo mode; nil when upstream has
	// none for the domain.
	solo func(root string) (envs.Domain, error)
	// derive builds the files derived from the pulled data (nil: none).
	derive func(root string) ([]File, error)
}

// list is fixed at compile time; it holds no state. Its names are
// known.Names(), in the same order (TestListMatchesKnown).
var list = []entry{
	{name: "airline", load: func(r string) (envs.Domain, error) { return airline.Load(r) }},
	{name: "retail", load: func(r string) (envs.Domain, error) { return retail.Load(r) }},
	{name: "telecom", load: func(r string) (envs.Domain, error) { return telecom.Load(r) },
		solo: func(r string) (envs.Domain, error) { return telecom.LoadSolo(r, telecom.Manual) }},
	{name: "telecom-workflow", load: func(r string) (envs.Domain, error) { return telecom.LoadWorkflow(r) },
		solo: func(r string) (envs.Domain, error) { return telecom.LoadSolo(r, telecom.Workflow) }},
	{name: "telehealth", load: func(r string) (envs.Domain, error) { return telehealth.Load(r) },
		derive: telehealthTasksJSON},
}

// Names lists the domain names in order.
func Names() []string { return known.Names() }

// Bases lists the base domains (no variants) in order.
func Bases() []string { return known.Bases() }

// ErrNoData is wrapped when a domain's data files are missing.
var ErrNoData = errors.New("data not found")

// Load loads a domain's data from a data directory.
func Load(name, root string) (envs.Domain, error) {
	return load(name, root, false)
}

// LoadSolo loads a domain in τ²-bench's solo mode (the agent holds the
// user's tools and works from the task's ticket; telecom only).
func LoadSolo(name, root string) (envs.Domain, error) {
	return load(name, root, true)
}

// SoloNames lists the domains that have a solo mode.
func SoloNames() []string {
	var out []string
	for _, e := range list {
		if e.solo != nil {
			out = append(out, e.name)
		}
	}
	return out
}

func lookup(name string) (entry, error) {
	for _, e := range list {
		if e.name == name {
			return e, nil
		}
	}
	return entry{}, fmt.Errorf("unknown domain %q (known: %s)", name, strings.Join(Names(), ", "))
}

func load(name, root string, solo bool) (envs.Domain, error) {
	e, err := lookup(name)
	if err != nil {
		return nil, err
	}
	loadFn := e.load
	if solo {
		if e.solo == nil {
			return nil, errext.Usagef("domain %s has no solo mode (upstream's solo mode: %s)", name, strings.Join(SoloNames(), ", "))
		}
		loadFn = e.solo
	}
	d, err := loadFn(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("load %s from %s: %w: %w (run `ledgerbench data pull` first, or pass --data)", name, root, ErrNoData, err)
		}
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	return d, nil
}

// File is a file derived from the pulled data: Path in the data directory
// and its contents.
type File struct {
	Path string
	Data []byte
}

// Derived builds every domain's derived files from the data in root (the
// caller writes them).
func Derived(root string) ([]File, error) {
	var out []File
	for _, e := range list {
		if e.derive == nil {
			continue
		}
		fs, err := e.derive(root)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		out = append(out, fs...)
	}
	return out, nil
}

// telehealthTasksJSON converts τ-Trait's task lists from Python literals to
// JSON (tasks_<split>.json beside each tasks_<split>.py), for inspection and
// for other tools; ledgerbench itself parses the .py files when it loads
// the domain.
func telehealthTasksJSON(root string) ([]File, error) {
	th := data.Telehealth(root)
	var out []File
	for _, split := range []string{"test", "dev", "train"} {
		src := filepath.Join(th, "tasks_"+split+".py")
		b, err := os.ReadFile(src)
		if err != nil {
			return nil, fmt.Errorf("convert τ-Trait tasks: %w", err)
		}
		j, err := telehealth.ConvertTasks(src, b)
		if err != nil {
			return nil, fmt.Errorf("convert τ-Trait tasks: %w", err)
		}
		out = append(out, File{Path: filepath.Join(th, "tasks_"+split+".json"), Data: j})
	}
	return out, nil
}
