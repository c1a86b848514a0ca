package telecom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
)

// Env is one simulation's state: copy-on-write views of the agent tables
// that tools change, and a private copy of the user database value (whose
// shared pointers and slices are copied before any change).
type Env struct {
	d         *Domain
	customers table.Table[Customer]
	lines     table.Table[Line]
	bills     table.Table[Bill]
	user      UserDB
	// appsOwned is set once the app list has been copied for this
	// simulation.
	appsOwned bool
	// vpn is this simulation's default VPN details object (see connectVPN).
	vpn *VPNDetails
	// idSeq drives the deterministic ids of generated draft bills.
	idSeq uint64
}

var _ envs.Env = (*Env)(nil)

func (d *Domain) newEnv() *Env {
	return &Env{
		d:         d,
		customers: table.New(&d.db.Customers, cloneCustomer),
		lines:     table.New(&d.db.Lines, cloneLine),
		bills:     table.New(&d.db.Bills, cloneBill),
		user:      *d.userDB,
	}
}

// Call runs a tool for the agent ("assistant") or the user, without syncing
// (upstream's make_tool_call). The agent cannot reach user tools.
func (e *Env) Call(ctx context.Context, requestor message.Requestor, name string, args json.RawMessage) (any, error) {
	switch requestor {
	case message.ByAssistant:
		return e.d.agent.Call(ctx, e, name, args)
	case message.ByUser:
		return e.d.user.Call(ctx, e, name, args)
	}
	return nil, fmt.Errorf("Invalid requestor: %s", requestor)
}

// RunFunction calls any function of one side's toolkit by name (tools and
// the non-tool functions tasks use to set up and check the state), then
// syncs (upstream's run_env_function_call).
func (e *Env) RunFunction(ctx context.Context, side message.Requestor, name string, args json.RawMessage) (any, error) {
	var fns, tools *tool.Set[*Env]
	switch side {
	case message.ByAssistant:
		fns, tools = e.d.agentFn, e.d.agent
	case message.ByUser:
		fns, tools = e.d.userFn, e.d.user
	default:
		return nil, fmt.Errorf("Invalid environment type: %s", side)
	}
	set := fns
	if _, ok := fns.Lookup(name); !ok {
		set = tools
	}
	res, err := set.Call(ctx, e, name, args)
	if errors.Is(err, tool.ErrNotFound) {
		return nil, fmt.Errorf("'%s' object has no attribute '%s'", set.Class(), name)
	}
	if err != nil {
		return nil, err
	}
	if err := e.sync(); err != nil {
		return nil, err
	}
	return res, nil
}

// Sync mirrors the agent-side line and billing state into the user's
// surroundings (upstream's TelecomEnvironment.sync_tools). Upstream raises
// when the user's phone number has no line; here the state is left as is.
func (e *Env) Sync() { _ = e.sync() }

func (e *Env) sync() error {
	s := &e.user.Surroundings
	if s.PhoneNumber == nil {
		return nil
	}
	phone := *s.PhoneNumber
	l, err := e.lineByPhone(phone)
	if err != nil {
		return err
	}
	s.LineActive = l.Status == LineActive
	s.RoamingAllowed = l.RoamingEnabled
	p, err := e.planByID(l.PlanID)
	if err != nil {
		return err
	}
	s.MobileDataUsageExceeded = l.DataUsedGB.V >= p.DataLimitGB+l.DataRefuelingGB
	if pr := s.PaymentRequest; pr != nil && pr.Paid {
		if _, err := e.billByID(pr.BillID); err != nil {
			return err
		}
		b, _ := e.bills.Mut(pr.BillID)
		b.Status = BillPaid
		s.PaymentRequest = nil
	}
	if s.PaymentRequest == nil {
		c, err := e.customerByPhone(phone)
		if err != nil {
			return err
		}
		waiting, err := e.awaitingBills(c)
		if err != nil {
			return err
		}
		if len(waiting) > 0 {
			s.PaymentRequest = &PaymentRequest{BillID: waiting[0].BillID, AmountDue: waiting[0].TotalDue}
		}
	}
	return nil
}

// SameDB compares both databases with another telecom state, as upstream
// compares database hashes.
func (e *Env) SameDB(other envs.Env) (agent, user bool) {
	o, ok := other.(*Env)
	if !ok || o.d.db != e.d.db {
		return false, false
	}
	agent = table.Equal(&e.customers, &o.customers) && table.Equal(&e.lines, &o.lines) && table.Equal(&e.bills, &o.bills)
	user = pyjson.SameDump(&e.user, &o.user)
	return agent, user
}

// DumpDB returns values that encode (with pyjson) to upstream's model dumps
// of the agent and user databases.
func (e *Env) DumpDB() (agent, user any) {
	u := e.user
	return agentDump{e}, &u
}
