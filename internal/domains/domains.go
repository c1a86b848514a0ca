// Package domains is the list of ported domains: the one place that names
// them all. Adding a domain means adding its package and one line here.
package domains

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/ledgerbench/ledgerbench/envs"
	"github.com/ledgerbench/ledgerbench/envs/airline"
	"github.com/ledgerbench/ledgerbench/envs/retail"
	"github.com/ledgerbench/ledgerbench/envs/telecom"
	"github.com/ledgerbench/ledgerbench/envs/telehealth"
)

type entry struct {
	name string
	load func(root string) (envs.Domain, error)
	// solo loads the domain in τ²-bench's solo mode; nil when upstream has
	// none for the domain.
	solo func(root string) (envs.Domain, error)
}

// list is fixed at compile time; it holds no state.
var list = []entry{
	// domain entries: {"airline", func(r string) (envs.Domain, error) { return airline.Load(r) }},
	{"airline", func(r string) (envs.Domain, error) { return airline.Load(r) }, nil},
	{"retail", func(r string) (envs.Domain, error) { return retail.Load(r) }, nil},
	{"telecom", func(r string) (envs.Domain, error) { return telecom.Load(r) },
		func(r string) (envs.Domain, error) { return telecom.LoadSolo(r, telecom.Manual) }},
	{"telecom-workflow", func(r string) (envs.Domain, error) { return telecom.LoadWorkflow(r) },
		func(r string) (envs.Domain, error) { return telecom.LoadSolo(r, telecom.Workflow) }},
	{"telehealth", func(r string) (envs.Domain, error) { return telehealth.Load(r) }, nil},
}

// Names lists the domain names in order.
func Names() []string {
	out := make([]string, len(list))
	for i, e := range list {
		out[i] = e.name
	}
	return out
}

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

func load(name, root string, solo bool) (envs.Domain, error) {
	for _, e := range list {
		if e.name == name {
			loadFn := e.load
			if solo {
				if e.solo == nil {
					return nil, fmt.Errorf("domain %s has no solo mode (upstream's solo mode: %s)", name, strings.Join(SoloNames(), ", "))
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
	}
	return nil, fmt.Errorf("unknown domain %q (known: %s)", name, strings.Join(Names(), ", "))
}
