// Package offlinetest is a tiny in-memory domain for testing agents, user
// simulators and offline backbones without upstream data: a shop with users
// (payment methods, orders), agent read and write tools, and user-side
// device tools (so dual-control flows can be tested), plus two tasks.
package offlinetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Policy is the shop's policy text.
const Policy = "# Shop policy\n\nOnly act on the authenticated user's orders. Charge only a payment method of the user."

// User is a shop customer.
type User struct {
	UserID         string                    `json:"user_id"`
	PaymentMethods map[string]map[string]any `json:"payment_methods"`
	Orders         []string                  `json:"orders"`
}

// Order is an order.
type Order struct {
	OrderID  string `json:"order_id"`
	UserID   string `json:"user_id"`
	Status   string `json:"status"`
	Items    []Item `json:"items"`
	PaidWith string `json:"paid_with"`
}

// Item is an order line.
type Item struct {
	ItemID string `json:"item_id"`
}

// State is one simulation's state.
type State struct {
	Users    map[string]*User  `json:"users"`
	Orders   map[string]*Order `json:"orders"`
	Restarts int               `json:"restarts"` // user side
}

func initial() *State {
	return &State{
		Users: map[string]*User{
			"u1": {UserID: "u1", Orders: []string{"#O1", "#O2", "#O3"}, PaymentMethods: map[string]map[string]any{
				"card_1": {"id": "card_1", "source": "card"},
				"gift_2": {"id": "gift_2", "source": "gift_card"},
			}},
		},
		Orders: map[string]*Order{
			"#O1": {OrderID: "#O1", UserID: "u1", Status: "pending", Items: []Item{{"i1"}, {"i2"}}},
			"#O2": {OrderID: "#O2", UserID: "u1", Status: "pending", Items: []Item{{"i3"}}},
			"#O3": {OrderID: "#O3", UserID: "u1", Status: "pending", Items: []Item{{"i4"}}},
		},
	}
}

type userArgs struct {
	UserID string `json:"user_id"`
}
type orderArgs struct {
	OrderID string `json:"order_id"`
}
type payArgs struct {
	OrderID         string `json:"order_id"`
	PaymentMethodID string `json:"payment_method_id"`
}
type noArgs struct{}

var errNotFound = errors.New("not found")

func agentTools() *tool.Set[*State] {
	return tool.NewSet[*State]("ShopTools",
		tool.New("get_user_details", tool.Read, "Look up a user.", func(_ context.Context, s *State, a userArgs) (any, error) {
			u, ok := s.Users[a.UserID]
			if !ok {
				return nil, fmt.Errorf("user %w", errNotFound)
			}
			return u, nil
		}),
		tool.New("get_order_details", tool.Read, "Look up an order.", func(_ context.Context, s *State, a orderArgs) (any, error) {
			o, ok := s.Orders[a.OrderID]
			if !ok {
				return nil, fmt.Errorf("order %w", errNotFound)
			}
			return o, nil
		}),
		tool.New("pay_order", tool.Write, "Pay a pending order.", func(_ context.Context, s *State, a payArgs) (any, error) {
			o, ok := s.Orders[a.OrderID]
			if !ok {
				return nil, fmt.Errorf("order %w", errNotFound)
			}
			if _, ok := s.Users[o.UserID].PaymentMethods[a.PaymentMethodID]; !ok {
				return nil, fmt.Errorf("payment method %w", errNotFound)
			}
			if o.PaidWith != "" {
				return nil, errors.New("order already paid")
			}
			o.PaidWith = a.PaymentMethodID
			return o, nil
		}),
		tool.New("cancel_order", tool.Write, "Cancel a pending order.", func(_ context.Context, s *State, a orderArgs) (any, error) {
			o, ok := s.Orders[a.OrderID]
			if !ok {
				return nil, fmt.Errorf("order %w", errNotFound)
			}
			if o.Status != "pending" {
				return nil, errors.New("non-pending order cannot be cancelled")
			}
			o.Status = "cancelled"
			return o, nil
		}),
	)
}

func userTools() *tool.Set[*State] {
	return tool.NewSet[*State]("ShopUserTools",
		tool.New("restart_device", tool.Write, "Restart your device.", func(_ context.Context, s *State, _ noArgs) (any, error) {
			s.Restarts++
			return "Device restarted.", nil
		}),
		tool.New("check_device", tool.Read, "Check your device.", func(_ context.Context, s *State, _ noArgs) (any, error) {
			return fmt.Sprintf("Device restarted %d times.", s.Restarts), nil
		}),
	)
}

// Domain is the shop. Its tool sets are built once.
type Domain struct {
	agent, user *tool.Set[*State]
	tasks       *tasks.Set
}

// New returns the shop domain.
func New() *Domain {
	return &Domain{agent: agentTools(), user: userTools(), tasks: &tasks.Set{Domain: "shop", Tasks: Tasks()}}
}

func (d *Domain) Name() string            { return "shop" }
func (d *Domain) Policy() string          { return Policy }
func (d *Domain) AgentTools() []tool.Info { return d.agent.Infos() }
func (d *Domain) UserTools() []tool.Info  { return d.user.Infos() }
func (d *Domain) Tasks() *tasks.Set       { return d.tasks }
func (d *Domain) NewEnv() envs.Env        { return &Env{d: d, s: initial()} }

// Env is one simulation's shop.
type Env struct {
	d *Domain
	s *State
}

func (e *Env) Call(ctx context.Context, req message.Requestor, name string, args json.RawMessage) (any, error) {
	set := e.d.agent
	if req == message.ByUser {
		set = e.d.user
	}
	res, err := set.Call(ctx, e.s, name, args)
	if err != nil {
		return nil, err
	}
	if s, ok := res.(string); ok {
		return s, nil
	}
	// Results are snapshots: later writes must not change a returned value.
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return pyjson.Decode(b)
}

func (e *Env) RunFunction(ctx context.Context, side message.Requestor, name string, args json.RawMessage) (any, error) {
	return e.Call(ctx, side, name, args)
}

func (e *Env) Sync() {}

func (e *Env) SameDB(other envs.Env) (agent, user bool) {
	o := other.(*Env)
	a, _ := json.Marshal(struct {
		U any
		O any
	}{e.s.Users, e.s.Orders})
	b, _ := json.Marshal(struct {
		U any
		O any
	}{o.s.Users, o.s.Orders})
	return string(a) == string(b), e.s.Restarts == o.s.Restarts
}

func (e *Env) DumpDB() (agent, user any) { return e.s, e.s.Restarts }

func str(s string) *string { return &s }

// Tasks are the shop's tasks: "pay" (agent only, with communicate_info) and
// "device" (user actions between agent actions).
func Tasks() []tasks.Task {
	return []tasks.Task{
		{
			ID: "pay",
			UserScenario: tasks.UserScenario{Instructions: tasks.Instructions{Structured: &tasks.StructuredInstructions{
				Domain: "shop", ReasonForCall: "You want to pay for order #O1 with your card.", KnownInfo: str("You are user u1."),
				TaskInstructions: "Be brief."}}},
			EvaluationCriteria: &tasks.EvaluationCriteria{
				Actions: []tasks.Action{
					{ActionID: "0", Name: "get_user_details", Arguments: json.RawMessage(`{"user_id": "u1"}`)},
					{ActionID: "1", Name: "get_order_details", Arguments: json.RawMessage(`{"order_id": "#O1"}`)},
					{ActionID: "2", Name: "pay_order", Arguments: json.RawMessage(`{"order_id": "#O1", "payment_method_id": "card_1"}`)},
				},
				CommunicateInfo: []string{"#O1 is paid"},
				RewardBasis:     []tasks.RewardType{tasks.RewardDB, tasks.RewardCommunicate},
			},
		},
		{
			ID:           "device",
			UserScenario: tasks.UserScenario{Instructions: tasks.Instructions{Text: "Your device misbehaves and you want order #O2 cancelled."}},
			EvaluationCriteria: &tasks.EvaluationCriteria{
				Actions: []tasks.Action{
					{ActionID: "0", Name: "get_user_details", Arguments: json.RawMessage(`{"user_id": "u1"}`)},
					{ActionID: "1", Requestor: "user", Name: "restart_device", Arguments: json.RawMessage(`{}`)},
					{ActionID: "2", Requestor: "user", Name: "check_device", Arguments: json.RawMessage(`{}`)},
					{ActionID: "3", Name: "cancel_order", Arguments: json.RawMessage(`{"order_id": "#O2"}`)},
				},
				RewardBasis: []tasks.RewardType{tasks.RewardDB, tasks.RewardAction},
			},
		},
	}
}

// Task returns the task with the given id.
func Task(id string) *tasks.Task {
	ts := Tasks()
	i := slices.IndexFunc(ts, func(t tasks.Task) bool { return t.ID == id })
	if i < 0 {
		panic("offlinetest: no task " + id)
	}
	return &ts[i]
}
