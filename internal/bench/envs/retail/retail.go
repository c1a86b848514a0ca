// Package retail ports τ²-bench's retail domain: an online store whose agent
// looks up customers, orders and products and cancels, modifies, returns or
// exchanges orders under a written policy.
//
// The loaded database (products, users, orders) is shared by every
// simulation and never modified. A simulation's Env holds copy-on-write views
// of the users and orders tables (products never change), so a fresh
// environment costs one small allocation and a write copies only the records
// it touches.
//
// Tool names, parameters, output formats, error texts and quirks follow
// upstream's RetailTools (src/tau2/domains/retail/tools.py) exactly; the tool
// descriptions are our own.
package retail

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/pyschema"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Name is the domain's name.
const Name = "retail"

// toolkitClass is upstream's toolkit class name, used in argument error texts.
const toolkitClass = "RetailTools"

// Domain is the loaded retail domain: database, policy, tasks and tools.
// envs.Single provides Name, Policy, AgentTools, UserTools and Tasks.
type Domain struct {
	envs.Single[*Env]
	db *DB
	// productTypes is list_all_product_types' output, fixed because products
	// never change.
	productTypes string
	// sameItem lets the gate pass an exchange or item change into the same
	// item (see AllowSameItem).
	sameItem bool
}

// AllowSameItem makes the gate's same_product rule let an item "change" into
// the item itself through (for τ-bench v1's retail, whose gold trajectories
// do that in three tasks, which τ² re-annotated).
func (d *Domain) AllowSameItem() { d.sameItem = true }

var _ envs.Domain = (*Domain)(nil)

// Load reads the retail files (db.json, policy.md, tasks.json,
// split_tasks.json) from a data directory.
func Load(root string) (*Domain, error) {
	dir := data.Tau2Domain(root, Name)
	dbPath := filepath.Join(dir, "db.json")
	raw, err := os.ReadFile(dbPath)
	if err != nil {
		return nil, fmt.Errorf("read retail db: %w", err)
	}
	db, err := loadDB(raw)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", dbPath, err)
	}
	policy, err := os.ReadFile(filepath.Join(dir, "policy.md"))
	if err != nil {
		return nil, fmt.Errorf("read retail policy: %w", err)
	}
	ts, err := tasks.LoadTau2(dir, Name)
	if err != nil {
		return nil, fmt.Errorf("load retail tasks: %w", err)
	}
	d := New(db, string(policy), ts)
	tools, err := pyschema.Described(d.Toolset(), data.Tau2Source(root, "domains/retail/tools.py"), toolkitClass,
		data.Tau2Source(root, "domains/retail/data_model.py"))
	if err != nil {
		return nil, fmt.Errorf("retail tools: %w", err)
	}
	d.SetToolset(tools)
	return d, nil
}

// New builds a domain over an already decoded database (tests use small
// fixture databases). db must not be modified afterwards. Its tools have no
// descriptions and only the parameter structure of their argument types:
// what the model is shown comes from upstream's source, which Load reads.
func New(db *DB, policy string, ts *tasks.Set) *Domain {
	return &Domain{Single: envs.NewSingle(Name, policy, ts, newToolSet()), db: db, productTypes: productTypes(db)}
}

// DB returns the shared loaded database. It must not be modified.
func (d *Domain) DB() *DB { return d.db }

// NewEnv returns a fresh environment (implements envs.Domain).
func (d *Domain) NewEnv() envs.Env { return d.Env() }

// Env returns a fresh environment with its concrete type.
func (d *Domain) Env() *Env {
	return &Env{
		d:      d,
		users:  table.New(&d.db.Users, cloneUser),
		orders: table.New(&d.db.Orders, cloneOrder),
	}
}

// Env is one simulation's state: copy-on-write views of users and orders over
// the shared database.
type Env struct {
	d      *Domain
	users  table.Table[User]
	orders table.Table[Order]
}

var _ envs.Env = (*Env)(nil)

// Call runs an agent tool (upstream's make_tool_call; envs.Single.CallTool).
// Retail has no user tools. Upstream's requestor defaults to "assistant" in
// the ToolCall message, never in make_tool_call: an empty requestor is
// invalid here as there (envs.Respond supplies the default).
func (e *Env) Call(ctx context.Context, requestor message.Requestor, name string, args json.RawMessage) (any, error) {
	return e.d.CallTool(ctx, e, requestor, name, args)
}

// RunFunction calls a toolkit function by name (upstream's
// run_env_function_call; envs.Single.RunToolFunction).
func (e *Env) RunFunction(ctx context.Context, side message.Requestor, name string, args json.RawMessage) (any, error) {
	return e.d.RunToolFunction(ctx, e, side, name, args)
}

// Sync is a no-op: retail has a single database.
func (e *Env) Sync() {}

// SameDB reports whether two retail states hold equal databases (compared
// like upstream's hash of model_dump). user is always true.
func (e *Env) SameDB(other envs.Env) (agent, user bool) {
	o, ok := other.(*Env)
	if !ok {
		return false, true
	}
	if o.d.db == e.d.db {
		return table.Equal(&e.users, &o.users) && table.Equal(&e.orders, &o.orders), true
	}
	return pyjson.String(e.Snapshot()) == pyjson.String(o.Snapshot()), true
}

// DumpDB returns a snapshot of the database, which encodes (pyjson) as
// upstream's RetailDB.model_dump. There is no user database.
func (e *Env) DumpDB() (agent, user any) { return e.Snapshot(), nil }

// Snapshot returns the current database as a DB value independent of later
// calls. Unchanged records are shared with the loaded database and must not
// be modified.
func (e *Env) Snapshot() *DB {
	return &DB{
		Products: e.d.db.Products,
		Users:    e.users.Snapshot(),
		Orders:   e.orders.Snapshot(),
	}
}
