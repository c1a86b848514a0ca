package telecom

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
)

// soloTrajectory is a solo agent's run: it looks the customer up, reads the
// line, checks the phone itself, and refuels without reading the plan's
// price (there is no user to confirm it with).
func soloTrajectory(t *testing.T, solo *Solo) []message.Message {
	t.Helper()
	env := solo.NewEnv()
	runFn(t, env, message.ByUser, "set_user_info", `{"name":"John Smith","phone_number":"555-123-2002"}`)
	scRoamingOff(t, env)
	calls := []message.ToolCall{
		read("get_customer_by_phone", "phone_number", "555-123-2002"),
		read("get_details_by_id", "id", "L1002"),
		{Name: "check_status_bar", Arguments: []byte(`{}`)},
		{Name: "refuel_data", Arguments: []byte(`{"customer_id": "C1001", "line_id": "L1002", "gb_amount": 1.0}`)},
	}
	var traj []message.Message
	for i, tc := range calls {
		tc.ID = fmt.Sprintf("c%d", i)
		tc.Requestor = message.ByAssistant
		res := envs.Respond(context.Background(), env, tc)
		if res.Error {
			t.Fatalf("%s: %s", tc.Name, res.Content)
		}
		traj = append(traj, message.Message{Role: message.Assistant, ToolCalls: []message.ToolCall{tc}}, res)
	}
	return traj
}

// TestSoloAudit: the same recorded solo run judged in the normal domain
// asks for the price to confirm with the user; in the solo domain (no user)
// it does not.
func TestSoloAudit(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	solo, err := LoadSolo(testRoot(t), Manual)
	if err != nil {
		t.Fatal(err)
	}
	traj := soloTrajectory(t, solo)
	for _, tc := range []struct {
		name      string
		dom       envs.Domain
		wantPrice bool
	}{{"normal", d, true}, {"solo", solo, false}} {
		t.Run(tc.name, func(t *testing.T) {
			vs, err := ledgeragent.Shadow(tc.dom, traj)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != 1 || vs[0].Tool != "refuel_data" {
				t.Fatalf("verdicts = %+v; want the refuel only (phone tools are not guarded)", vs)
			}
			if got := slices.Contains(vs[0].Failed, "telecom.refuel_data.price_known"); got != tc.wantPrice {
				t.Errorf("price_known failed = %v; want %v (%+v)", got, tc.wantPrice, vs[0].Predicates)
			}
			if !tc.wantPrice && vs[0].Decision != ledger.Allow {
				t.Errorf("solo refuel = %s %+v; want ALLOW", vs[0].Decision, vs[0].Predicates)
			}
		})
	}
	// the solo agent's own phone read lands in its ledger; a normal
	// domain's path map has no place for it
	r := ledgeragent.RouterOf(solo, solo)
	if es := r.Route("check_status_bar", nil, "Status Bar: ..."); len(es) != 1 || es[0].Path != "phone.check_status_bar" {
		t.Errorf("solo router: check_status_bar → %+v; want phone.check_status_bar", es)
	}
	if es := ledgeragent.RouterOf(d, d).Route("check_status_bar", nil, "Status Bar: ..."); es != nil {
		t.Errorf("normal router: check_status_bar → %+v; want nothing", es)
	}
}
func TestRouteUser(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	if es := d.RouteUser("check_status_bar", nil, "Status Bar: ..."); len(es) != 1 || es[0].Path != "phone.check_status_bar" {
		t.Errorf("check_status_bar → %+v; want phone.check_status_bar", es)
	}
	for _, tool := range []string{"toggle_airplane_mode", "get_customer_by_id", "no_such_tool"} {
		if es := d.RouteUser(tool, nil, "x"); es != nil {
			t.Errorf("%s → %+v; want nothing (a write, an agent tool, unknown)", tool, es)
		}
	}
	if _, ok := any(d).(ledgeragent.SoloPolicy); !ok {
		t.Error("telecom is not a ledgeragent.SoloPolicy")
	}
}
