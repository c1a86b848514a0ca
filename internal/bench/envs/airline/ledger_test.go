package airline

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
)

var (
	_ ledgeragent.Policy  = (*Domain)(nil)
	_ ledgeragent.Auditor = (*Domain)(nil)
)

// readInto runs agent reads on env and absorbs every successful one into l,
// as LedgerAgent does.
func readInto(t testing.TB, d *Domain, env envs.Env, l *ledger.Ledger, calls ...message.ToolCall) {
	t.Helper()
	for i, tc := range calls {
		tc.ID = fmt.Sprintf("read_%d", i)
		tc.Requestor = message.ByAssistant
		res := envs.Respond(context.Background(), env, tc)
		if res.Error {
			t.Fatalf("%s %s: %s", tc.Name, tc.Arguments, res.Content)
		}
		l.Absorb(d, tc.Name, tc.Arguments, res.Content)
	}
}

// si5ukwReads are the reads of the paper's airline case study: Amelia Rossi
// asks to cancel her basic economy reservation SI5UKW; the agent reads her
// profile, the reservation and the status of both flights.
func si5ukwReads() []message.ToolCall {
	return []message.ToolCall{
		ledger.ToolCall("get_user_details", "user_id", "amelia_rossi_1297"),
		ledger.ToolCall("get_reservation_details", "reservation_id", "SI5UKW"),
		ledger.ToolCall("get_flight_status", "flight_number", "HAT062", "date", "2024-05-16"),
		ledger.ToolCall("get_flight_status", "flight_number", "HAT284", "date", "2024-05-17"),
	}
}

func TestRoute(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	env := d.NewEnv()
	l := ledger.New()
	readInto(t, d, env, l,
		ledger.ToolCall("get_user_details", "user_id", "amelia_rossi_1297"),
		ledger.ToolCall("get_reservation_details", "reservation_id", "SI5UKW"),
		ledger.ToolCall("search_direct_flight", "origin", "JFK", "destination", "SEA", "date", "2024-05-20"),
		ledger.ToolCall("search_onestop_flight", "origin", "JFK", "destination", "SEA", "date", "2024-05-20"),
		ledger.ToolCall("get_flight_status", "flight_number", "HAT062", "date", "2024-05-16"),
		ledger.ToolCall("list_all_airports"),
		ledger.ToolCall("calculate", "expression", "1 + 1"),
	)
	if u := ledgerUser(l); u == nil || u.UserID != "amelia_rossi_1297" || u.Membership != "regular" {
		t.Errorf("user = %+v", u)
	}
	if r := ledgerReservation(l, "SI5UKW"); r == nil || r.Cabin != "basic_economy" || len(r.Flights) != 2 {
		t.Errorf("reservation = %+v", r)
	}
	if f := ledgerFlight(l, "HAT069", "2024-05-20"); f == nil || f.Date == nil || *f.Date != "2024-05-20" {
		t.Errorf("flights.HAT069.2024-05-20 = %+v", f)
	}
	if st := knownStatus(l, "HAT062", "2024-05-16"); st != StatusAvailable {
		t.Errorf("status = %q", st)
	}
	for _, p := range []string{"airports", "searches.direct.JFK-SEA-2024-05-20", "searches.onestop.JFK-SEA-2024-05-20"} {
		if !l.Has(p) {
			t.Errorf("missing %s", p)
		}
	}
	// Errors and undecodable outputs give no entries.
	for _, c := range []struct{ tool, args, out string }{
		{"get_user_details", `{}`, "Error: User x not found"},
		{"get_reservation_details", `{}`, "{"},
		{"search_direct_flight", `{"origin": 1}`, "[]"},
		{"get_flight_status", `{"flight_number": "HAT1", "date": "2024-05-01"}`, ""},
		{"calculate", `{}`, "2.0"},
	} {
		if es := d.Route(c.tool, json.RawMessage(c.args), c.out); es != nil {
			t.Errorf("Route(%s, %s) = %v", c.tool, c.out, es)
		}
	}
}

// TestRenderGolden is the rendered ledger of the paper's SI5UKW case study,
// built from real tool outputs.
func TestRenderGolden(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	l := ledger.New()
	readInto(t, d, d.NewEnv(), l, append(si5ukwReads(),
		ledger.ToolCall("search_direct_flight", "origin", "JFK", "destination", "SEA", "date", "2024-05-20"))...)
	goldentest.Check(t, *update, "ledger_si5ukw.golden", l.Render())
}
