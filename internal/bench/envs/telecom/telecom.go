// Package telecom is τ²-bench's telecom domain: a dual-control environment
// where the agent works on the carrier's records (customers, lines, bills)
// and the simulated user operates a simulated phone.
//
// The agent database (db.toml) is loaded once and shared; each simulation
// changes it through copy-on-write tables. The user database (user_db.toml:
// the phone and the user's surroundings) is a small value copied into each
// simulation. Env.Sync mirrors line and billing state into the user's
// surroundings after every step, as upstream's sync_tools does.
//
// Deliberate differences from upstream, all invisible to the benchmark tasks:
//   - connect_vpn: upstream hands out one VPN details object shared by the
//     whole process, which break_vpn degrades for every later connection in
//     that process (QUIRK 10). Each simulation here has its own such object:
//     within a simulation a reconnect after break_vpn is still slow, but no
//     simulation affects another.
//   - refuel_data on a customer without a draft bill creates a bill whose id
//     upstream draws at random ("B" + 8 hex digits of a uuid4). Here the id
//     comes from a per-simulation deterministic sequence (see newBillID), so
//     the same actions give the same ids.
//   - Arguments of a wrong JSON type fail before the tool runs with a
//     port-specific text (upstream passes them into the Python code, which
//     may fail later with another text, or in a few cases store them: e.g.
//     set_network_mode_preference with a non-string mode). A non-object
//     apn_settings is reproduced: the phone keeps the value and later uses
//     of the APN settings fail as they do upstream.
//   - Sync with a user phone number that has no line leaves the state
//     unchanged (upstream raises).
package telecom

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/pyschema"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Domain names.
const (
	Name         = "telecom"
	WorkflowName = "telecom-workflow"
)

// Policy selects the technical-support half of the policy.
type Policy int

const (
	// Manual is upstream's default policy (tech_support_manual.md).
	Manual Policy = iota
	// Workflow is the step-by-step policy (tech_support_workflow.md),
	// reported as domain "telecom-workflow".
	Workflow
)

// Domain is the loaded telecom domain.
type Domain struct {
	name    string
	policy  string
	db      *DB
	userDB  *UserDB
	agent   *tool.Set[*Env]
	agentFn *tool.Set[*Env]
	user    *tool.Set[*Env]
	userFn  *tool.Set[*Env]
	// described lists both toolkits' infos with upstream's descriptions
	// and schemas, read from the source on first use (see Describe); the
	// sets above dispatch calls, which need only names, kinds and
	// parameters.
	described func() (toolInfos, error)
	tasks     *tasks.Set
}

// toolInfos are the agent's and the user's tool infos.
type toolInfos struct{ agent, user []tool.Info }

var _ envs.Domain = (*Domain)(nil)

// Load loads the telecom domain with upstream's default (manual) policy from
// a data directory.
func Load(root string) (*Domain, error) { return LoadPolicy(root, Manual) }

// LoadWorkflow loads the "telecom-workflow" variant.
func LoadWorkflow(root string) (*Domain, error) { return LoadPolicy(root, Workflow) }

// LoadPolicy loads the domain with the given tech-support policy.
func LoadPolicy(root string, p Policy) (*Domain, error) {
	dir := data.Tau2Domain(root, Name)
	d := newDomain(nil, nil)
	tech := "tech_support_manual.md"
	if p == Workflow {
		d.name, tech = WorkflowName, "tech_support_workflow.md"
	}
	main, err := readText(filepath.Join(dir, "main_policy.md"))
	if err != nil {
		return nil, err
	}
	techText, err := readText(filepath.Join(dir, tech))
	if err != nil {
		return nil, err
	}
	d.policy = composePolicy(main, techText)
	if d.db, err = LoadDB(filepath.Join(dir, "db.toml")); err != nil {
		return nil, err
	}
	if d.userDB, err = LoadUserDB(filepath.Join(dir, "user_db.toml")); err != nil {
		return nil, err
	}
	if d.tasks, err = loadTasks(dir, d.name); err != nil {
		return nil, err
	}
	d.described = sync.OnceValues(func() (toolInfos, error) { return d.describe(root) })
	return d, nil
}

// describe lists both toolkits with the descriptions and parameter schemas
// of upstream's source (tools.py and user_tools.py with their model files).
func (d *Domain) describe(root string) (toolInfos, error) {
	agent, err := pyschema.Described(d.agent, data.Tau2Source(root, "domains/telecom/tools.py"), agentClass,
		data.Tau2Source(root, "domains/telecom/data_model.py"))
	if err != nil {
		return toolInfos{}, fmt.Errorf("telecom agent tools: %w", err)
	}
	user, err := pyschema.Described(d.user, data.Tau2Source(root, "domains/telecom/user_tools.py"), userClass,
		data.Tau2Source(root, "domains/telecom/user_data_model.py"))
	if err != nil {
		return toolInfos{}, fmt.Errorf("telecom user tools: %w", err)
	}
	return toolInfos{agent: agent.Infos(), user: user.Infos()}, nil
}

// Describe reads the tools' descriptions from upstream's source, once, and
// reports a bad source (envs.Describer). Load leaves them to first use:
// verify and rescore only replay tools.
func (d *Domain) Describe() error {
	_, err := d.described()
	return err
}

// tools returns the described tool infos; a bad source panics with its
// error (Describe reports it first wherever tools are shown to a model).
func (d *Domain) tools() toolInfos {
	t, err := d.described()
	if err != nil {
		panic(fmt.Sprintf("telecom tools used without a successful Describe: %v", err))
	}
	return t
}

// ToolKind finds a tool's kind without the descriptions (envs.ToolKinder).
func (d *Domain) ToolKind(requestor message.Requestor, name string) (tool.Kind, bool) {
	set := d.agent
	if requestor == message.ByUser {
		set = d.user
	}
	ti, ok := set.Lookup(name)
	return ti.Kind, ok
}

// composePolicy is upstream's policy text: the main policy and the
// tech-support policy, each in its tag.
func composePolicy(main, tech string) string {
	return "<main_policy>\n" + main + "\n</main_policy>\n<tech_support_policy>\n" + tech + "\n</tech_support_policy>"
}

// newDomain builds a domain over databases, with its toolkits.
func newDomain(db *DB, user *UserDB) *Domain {
	d := &Domain{name: Name, db: db, userDB: user, agent: agentTools(), agentFn: agentFuncs(), user: userTools(), userFn: userFuncs()}
	plain := toolInfos{agent: d.agent.Infos(), user: d.user.Infos()}
	d.described = func() (toolInfos, error) { return plain, nil }
	return d
}

// loadTasks reads tasks.json with its splits (base, train, test, small,
// full; default base) and tasks_small.json as the extra list "small".
func loadTasks(dir, name string) (*tasks.Set, error) {
	set, err := tasks.LoadTau2(dir, name)
	if err != nil {
		return nil, fmt.Errorf("load telecom tasks: %w", err)
	}
	small, err := tasks.LoadFile(filepath.Join(dir, "tasks_small.json"))
	if err != nil {
		return nil, fmt.Errorf("load telecom tasks: %w", err)
	}
	set.Extra = map[string][]tasks.Task{"small": small}
	return set, nil
}

// readText reads a text file as Python's text mode does (universal
// newlines).
func readText(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read telecom policy: %w", err)
	}
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n"), nil
}

// Name is "telecom", or "telecom-workflow" for the workflow policy.
func (d *Domain) Name() string { return d.name }

// Policy is the agent's policy: the main policy and the tech-support
// policy, each in its tag.
func (d *Domain) Policy() string { return d.policy }

// AgentTools lists the agent's 13 tools in upstream order.
func (d *Domain) AgentTools() []tool.Info { return d.tools().agent }

// UserTools lists the user's 30 phone tools in upstream order.
func (d *Domain) UserTools() []tool.Info { return d.tools().user }

// Tasks returns the task set.
func (d *Domain) Tasks() *tasks.Set { return d.tasks }

// NewEnv returns a fresh simulation state.
func (d *Domain) NewEnv() envs.Env { return d.newEnv() }

// DB returns the shared agent database (read-only).
func (d *Domain) DB() *DB { return d.db }
