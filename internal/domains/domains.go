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
}

// list is fixed at compile time; it holds no state.
var list = []entry{
	// domain entries: {"airline", func(r string) (envs.Domain, error) { return airline.Load(r) }},
	{"airline", func(r string) (envs.Domain, error) { return airline.Load(r) }},
	{"retail", func(r string) (envs.Domain, error) { return retail.Load(r) }},
	{"telecom", func(r string) (envs.Domain, error) { return telecom.Load(r) }},
	{"telecom-workflow", func(r string) (envs.Domain, error) { return telecom.LoadWorkflow(r) }},
	{"telehealth", func(r string) (envs.Domain, error) { return telehealth.Load(r) }},
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
	for _, e := range list {
		if e.name == name {
			d, err := e.load(root)
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
