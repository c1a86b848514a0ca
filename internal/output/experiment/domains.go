package experiment

import (
	"context"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/engine/runplan"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// NewDomains returns an empty cache over the data directory dir.
func NewDomains(dir string) *Domains {
	return &Domains{dir: dir, loaded: map[string]envs.Domain{}}
}

// Domains loads each domain of an experiment once (from the data
// directory dir) and plans cells' tasks with them.
type Domains struct {
	dir    string
	mu     sync.Mutex
	loaded map[string]envs.Domain
}

// List is the domains loaded so far.
func (d *Domains) List() []envs.Domain {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []envs.Domain
	for _, dom := range d.loaded {
		out = append(out, dom)
	}
	return out
}

func (d *Domains) get(name string) (envs.Domain, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if dom, ok := d.loaded[name]; ok {
		return dom, nil
	}
	dom, err := domains.Load(name, d.dir)
	if err != nil {
		return nil, err
	}
	d.loaded[name] = dom
	return dom, nil
}

// Plan is a Planner over the loaded domains.
func (d *Domains) Plan(_ context.Context, domain string, sel tasks.Selection) ([]string, error) {
	dom, err := d.get(domain)
	if err != nil {
		return nil, err
	}
	ts, err := dom.Tasks().Select(sel)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ts))
	for i := range ts {
		ids[i] = ts[i].ID
	}
	return ids, nil
}

// NeedsJudge reports whether any task a cell selects has NL assertions
// (runplan.CountNL); a cell whose tasks cannot be planned is assumed to
// need one (its planning error is reported on its own).
func (d *Domains) NeedsJudge(c Cell) bool {
	dom, err := d.get(c.Domain)
	if err != nil {
		return true
	}
	ts, err := dom.Tasks().Select(tasks.Selection{Split: c.Split, TaskIDs: c.TaskIDs, Limit: c.Limit})
	return err != nil || runplan.CountNL(ts) > 0
}

// Catalog is the metrics catalog of the domains loaded so far (nil: none).
func (d *Domains) Catalog() metrics.Catalog {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.loaded) == 0 {
		return nil
	}
	var doms []envs.Domain
	for _, dom := range d.loaded {
		doms = append(doms, dom)
	}
	return metrics.NewDomainCatalog(doms...)
}
