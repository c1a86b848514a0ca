package metrics

import (
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Catalog is what metrics need to know about domains beyond the records:
// each task's evaluation criteria and each tool's kind. Records alone carry
// the gold actions only when they were evaluated in full, so a catalog built
// from the loaded domains makes subsets and error categories exact.
type Catalog interface {
	// Task looks a task up by domain and id.
	Task(domain, taskID string) (*tasks.Task, bool)
	// ToolKind is the kind of a tool on the side that runs it.
	ToolKind(domain string, requestor message.Requestor, name string) (tool.Kind, bool)
}

// DomainCatalog is a Catalog over loaded domains.
type DomainCatalog struct {
	doms  map[string]envs.Domain
	tasks map[string]map[string]*tasks.Task
}

// NewDomainCatalog indexes the tasks (every list of each set) and tools of
// domains.
func NewDomainCatalog(doms ...envs.Domain) *DomainCatalog {
	c := &DomainCatalog{doms: map[string]envs.Domain{}, tasks: map[string]map[string]*tasks.Task{}}
	for _, d := range doms {
		c.doms[d.Name()] = d
		byID := map[string]*tasks.Task{}
		set := d.Tasks()
		if set != nil {
			main, _ := set.All() // a set whose file has an invalid task indexes only its extra lists
			for i := range main {
				byID[main[i].ID] = &main[i]
			}
			for _, list := range set.Extra {
				for i := range list {
					if _, dup := byID[list[i].ID]; !dup {
						byID[list[i].ID] = &list[i]
					}
				}
			}
		}
		c.tasks[d.Name()] = byID
	}
	return c
}

// Task implements Catalog.
func (c *DomainCatalog) Task(domain, taskID string) (*tasks.Task, bool) {
	t, ok := c.tasks[domain][taskID]
	return t, ok
}

// ToolKind implements Catalog.
func (c *DomainCatalog) ToolKind(domain string, requestor message.Requestor, name string) (tool.Kind, bool) {
	d, ok := c.doms[domain]
	if !ok {
		return "", false
	}
	ti, ok := envs.ToolInfo(d, requestor, name)
	if !ok {
		return "", false
	}
	return ti.Kind, true
}

// GoldAction is a gold action with its tool's kind ("" when unknown).
type GoldAction struct {
	tasks.Action
	Kind tool.Kind
}

// Gold is what is known of one task's evaluation criteria.
type Gold struct {
	// Known is false when neither the catalog nor any record gave the gold
	// actions.
	Known       bool
	Actions     []GoldAction
	Basis       []tasks.RewardType // nil when unknown
	Communicate []string
}

// HasWrite reports whether the task is environment-changing (at least one
// gold write on either side) and whether that is known.
func (g Gold) HasWrite() (write, known bool) {
	if !g.Known {
		return false, false
	}
	known = true
	for _, a := range g.Actions {
		switch a.Kind {
		case tool.Write:
			return true, true
		case "":
			known = false
		}
	}
	return false, known
}

func (g Gold) hasBasis(r tasks.RewardType) bool {
	for _, b := range g.Basis {
		if b == r {
			return true
		}
	}
	return false
}

// relevant reports whether a gold action's absence can explain a failure: all
// actions count when ACTION is in the basis (or the basis is unknown); with a
// DB or environment-assertion basis only writes (or actions of unknown kind)
// change the outcome.
func (g Gold) relevant(a GoldAction) bool {
	if g.Basis == nil || g.hasBasis(tasks.RewardAction) {
		return true
	}
	if g.hasBasis(tasks.RewardDB) || g.hasBasis(tasks.RewardEnvAssertion) {
		return a.Kind == tool.Write || a.Kind == ""
	}
	return false
}

// GoldIndex resolves the gold of every task of a set of records: from the
// catalog when it knows the task, else from the first record whose reward
// info lists action checks.
type GoldIndex struct {
	cat  Catalog
	gold map[[2]string]Gold
	// seen are tool kinds the records' action checks report.
	seen map[[3]string]tool.Kind
}

// NewGoldIndex builds the index for records.
func NewGoldIndex(cat Catalog, recs []results.Record) *GoldIndex {
	x := &GoldIndex{cat: cat, gold: map[[2]string]Gold{}, seen: map[[3]string]tool.Kind{}}
	for i := range recs {
		if ri := recs[i].RewardInfo; ri != nil {
			for _, c := range ri.ActionChecks {
				if c.ToolType != "" {
					x.seen[[3]string{recs[i].Domain, c.Action.By(), c.Action.Name}] = tool.Kind(c.ToolType)
				}
			}
		}
	}
	for i := range recs {
		r := &recs[i]
		k := [2]string{r.Domain, r.TaskID}
		if g, ok := x.gold[k]; ok && g.Known {
			continue
		}
		x.gold[k] = x.resolve(r)
	}
	return x
}

// Gold returns the gold of a task (Known false when nothing says).
func (x *GoldIndex) Gold(domain, taskID string) Gold {
	k := [2]string{domain, taskID}
	if g, ok := x.gold[k]; ok {
		return g
	}
	g, _ := x.fromCatalog(domain, taskID)
	x.gold[k] = g
	return g
}

// Kind returns a tool's kind from the catalog, else from the tool types of
// the records' action checks ("" when unknown).
func (x *GoldIndex) Kind(domain string, requestor message.Requestor, name string) tool.Kind {
	if requestor == "" {
		requestor = message.ByAssistant
	}
	if x.cat != nil {
		if k, ok := x.cat.ToolKind(domain, requestor, name); ok {
			return k
		}
	}
	return x.seen[[3]string{domain, string(requestor), name}]
}

// fromCatalog resolves a task's gold from the catalog.
func (x *GoldIndex) fromCatalog(domain, taskID string) (Gold, bool) {
	if x.cat == nil {
		return Gold{}, false
	}
	t, ok := x.cat.Task(domain, taskID)
	if !ok {
		return Gold{}, false
	}
	g := Gold{Known: true}
	crit := t.EvaluationCriteria
	g.Basis = crit.Basis()
	if crit != nil {
		g.Communicate = crit.CommunicateInfo
	}
	for _, a := range t.GoldActions() {
		g.Actions = append(g.Actions, GoldAction{Action: a, Kind: x.Kind(domain, message.Requestor(a.By()), a.Name)})
	}
	return g, true
}

func (x *GoldIndex) resolve(r *results.Record) Gold {
	if g, ok := x.fromCatalog(r.Domain, r.TaskID); ok {
		return g
	}
	ri := r.RewardInfo
	if ri == nil || (ri.ActionChecks == nil && ri.RewardBasis == nil) {
		return Gold{}
	}
	g := Gold{Known: true, Basis: ri.RewardBasis}
	for _, c := range ri.CommunicateChecks {
		g.Communicate = append(g.Communicate, c.Info)
	}
	for _, c := range ri.ActionChecks {
		kind := tool.Kind(c.ToolType)
		if kind == "" {
			kind = x.Kind(r.Domain, message.Requestor(c.Action.By()), c.Action.Name)
		}
		g.Actions = append(g.Actions, GoldAction{Action: c.Action, Kind: kind})
	}
	return g
}
