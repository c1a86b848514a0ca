package airline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	db := d.DB()
	if db.Flights.Len() != 300 || db.Users.Len() != 500 || db.Reservations.Len() != 2000 {
		t.Errorf("sizes %d flights, %d users, %d reservations; want 300, 500, 2000", db.Flights.Len(), db.Users.Len(), db.Reservations.Len())
	}
	if all, err := d.Tasks().All(); err != nil || len(all) != 50 {
		t.Errorf("%d tasks (%v); want 50", len(all), err)
	}
	if !strings.HasPrefix(d.Policy(), "# Airline Agent Policy") {
		t.Errorf("policy starts %.40q", d.Policy())
	}
	if d.Name() != "airline" || len(d.AgentTools()) != 14 || d.UserTools() != nil {
		t.Errorf("name %q, %d agent tools, user tools %v", d.Name(), len(d.AgentTools()), d.UserTools())
	}
	// The data edits of Appendix A are in.
	f, _ := db.Flights.Get("HAT018")
	if s, _ := f.Dates.Get("2024-05-11"); s.State() != StatusDelayed {
		t.Errorf("HAT018 on 2024-05-11 is %s; want delayed", s.State())
	}
	r, _ := db.Reservations.Get("Z7GOZK")
	if r.FlightType != "round_trip" || r.Destination != "IAH" || r.Status != nil {
		t.Errorf("Z7GOZK: %s to %s, status %v", r.FlightType, r.Destination, r.Status)
	}
}

func TestLoadMissingData(t *testing.T) {
	t.Parallel()
	_, err := Load(t.TempDir())
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(empty dir) = %v; want an fs.ErrNotExist error", err)
	}
}

func TestDecodeDBRejectsBadData(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, json string }{
		{"extra top-level key", `{"flights": {}, "users": {}, "reservations": {}, "x": 1}`},
		{"missing table", `{"flights": {}, "users": {}}`},
		{"unknown status", `{"flights": {"F": {"flight_number": "F", "dates": {"2024-05-01": {"status": "boarding"}}}}, "users": {}, "reservations": {}}`},
		{"status fields missing", `{"flights": {"F": {"flight_number": "F", "dates": {"2024-05-01": {"status": "landed"}}}}, "users": {}, "reservations": {}}`},
		{"cabin order", `{"flights": {"F": {"flight_number": "F", "dates": {"2024-05-01": {"status": "available", "available_seats": {"economy": 1, "basic_economy": 1, "business": 1}, "prices": {"basic_economy": 1, "economy": 1, "business": 1}}}}}, "users": {}, "reservations": {}}`},
		{"unknown payment source", `{"flights": {}, "users": {"u": {"user_id": "u", "payment_methods": {"p": {"source": "paypal", "id": "p"}}}}, "reservations": {}}`},
	} {
		if _, err := DecodeDB([]byte(tc.json)); err == nil {
			t.Errorf("%s: DecodeDB succeeded", tc.name)
		}
	}
}

func TestRequestors(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	e := d.Env()
	ctx := context.Background()
	args := json.RawMessage(`{"user_id": "mia_li_3668"}`)
	for _, tc := range []struct {
		name string
		run  func() (any, error)
		want string
	}{
		{"user call", func() (any, error) { return e.Call(ctx, message.ByUser, "get_user_details", args) }, "User tools not available"},
		{"bad requestor", func() (any, error) { return e.Call(ctx, "system", "get_user_details", args) }, "Invalid requestor: system"},
		{"user function", func() (any, error) { return e.RunFunction(ctx, message.ByUser, "get_user_details", args) }, "'NoneType' object has no attribute 'get_user_details'"},
		{"unknown function", func() (any, error) { return e.RunFunction(ctx, message.ByAssistant, "assert_x", args) }, "'AirlineTools' object has no attribute 'assert_x'"},
		{"bad side", func() (any, error) { return e.RunFunction(ctx, "x", "get_user_details", args) }, "Invalid environment type: x"},
		{"unknown tool", func() (any, error) { return e.Call(ctx, message.ByAssistant, "think", args) }, "Tool 'think' not found."},
		{"args not an object", func() (any, error) {
			return e.Call(ctx, message.ByAssistant, "get_user_details", json.RawMessage(`[1]`))
		}, "AirlineTools.get_user_details() argument after ** must be a mapping, not list"},
	} {
		_, err := tc.run()
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v; want %q", tc.name, err, tc.want)
		}
	}
	res, err := e.RunFunction(ctx, message.ByAssistant, "send_certificate", json.RawMessage(`{"user_id": "mia_li_3668", "amount": 10}`))
	if err != nil || res != "Certificate certificate_3221322 added to user mia_li_3668 with amount 10." {
		t.Errorf("RunFunction(send_certificate) = %v, %v", res, err)
	}
}

func mustCall(t *testing.T, e *Env, name, args string) {
	t.Helper()
	if m := envs.Respond(context.Background(), e, message.ToolCall{ID: "1", Name: name, Arguments: json.RawMessage(args)}); m.Error {
		t.Fatalf("%s(%s): %s", name, args, m.Content)
	}
}

func TestSameDB(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	fresh := d.Env()
	a, b := d.Env(), d.Env()
	if same, user := a.SameDB(b); !same || !user {
		t.Errorf("fresh envs differ: %v %v", same, user)
	}
	// Reading never changes the database.
	mustCall(t, a, "get_user_details", `{"user_id": "mia_li_3668"}`)
	mustCall(t, a, "search_direct_flight", `{"origin": "JFK", "destination": "ATL", "date": "2024-05-20"}`)
	if same, _ := a.SameDB(fresh); !same {
		t.Error("reads changed the database")
	}
	// The same writes in both: equal.
	for _, e := range []*Env{a, b} {
		mustCall(t, e, "cancel_reservation", `{"reservation_id": "NO6JO3"}`)
		mustCall(t, e, "send_certificate", `{"user_id": "mia_li_3668", "amount": 50}`)
	}
	if same, _ := a.SameDB(b); !same {
		t.Error("equal writes compare different")
	}
	if same, _ := a.SameDB(fresh); same {
		t.Error("written database equals the fresh one")
	}
	// Dict order does not count (upstream hashes with sort_keys) ...
	ua, _ := a.users.Mut("mia_li_3668")
	first := ua.PaymentMethods.Keys()[0]
	pm, _ := ua.PaymentMethods.Get(first)
	ua.PaymentMethods.Delete(first)
	ua.PaymentMethods.Set(first, pm)
	if same, _ := a.SameDB(b); !same {
		t.Error("payment method order made a difference")
	}
	if pyjson.String(a.Snapshot()) == pyjson.String(b.Snapshot()) {
		t.Error("test setup: dumps should differ in order")
	}
	// ... but 2 and 2.0 do.
	c, e := d.Env(), d.Env()
	mustCall(t, c, "update_reservation_baggages", `{"reservation_id": "AIXC49", "total_baggages": 2, "nonfree_baggages": 0, "payment_id": "credit_card_4421486"}`)
	mustCall(t, e, "update_reservation_baggages", `{"reservation_id": "AIXC49", "total_baggages": 2.0, "nonfree_baggages": 0, "payment_id": "credit_card_4421486"}`)
	if same, _ := c.SameDB(e); same {
		t.Error("total_baggages 2 and 2.0 compare equal")
	}
	// A booking is a new record.
	g := d.Env()
	mustCall(t, g, "book_reservation", `{"user_id": "mia_li_3668", "origin": "JFK", "destination": "ATL", "flight_type": "one_way", "cabin": "economy", "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}], "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}], "payment_methods": [{"payment_id": "credit_card_4421486", "amount": 152}], "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no"}`)
	if same, _ := g.SameDB(fresh); same {
		t.Error("booking left the database equal")
	}
	if same, _ := fresh.SameDB(g); same {
		t.Error("SameDB is not symmetric")
	}
	// Envs of separately loaded domains compare by content.
	other := New(d.db, d.Policy(), d.Tasks())
	if same, _ := other.Env().SameDB(fresh); !same {
		t.Error("fresh envs of two domains differ")
	}
}

// TestEnvIsolation checks copy-on-write: writes in one env are invisible to
// another and never reach the shared database.
func TestEnvIsolation(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	before := canonical(mustGet(t, d, "NO6JO3"))
	a := d.Env()
	mustCall(t, a, "book_reservation", `{"user_id": "mia_li_3668", "origin": "JFK", "destination": "ATL", "flight_type": "one_way", "cabin": "economy", "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}], "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}], "payment_methods": [{"payment_id": "certificate_7504069", "amount": 152}], "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no"}`)
	b := d.Env()
	if _, ok := b.reservations.Get("HATHAT"); ok {
		t.Error("a booking leaked into another env")
	}
	u, _ := d.db.Users.Get("mia_li_3668")
	if !u.PaymentMethods.Has("certificate_7504069") || len(u.Reservations) != 3 {
		t.Error("the shared user changed")
	}
	f, _ := d.db.Flights.Get("HAT136")
	s, _ := f.Dates.Get("2024-05-20")
	if s.(*Available).AvailableSeats.Economy != 14 {
		t.Errorf("shared seats changed to %d", s.(*Available).AvailableSeats.Economy)
	}
	mustCall(t, a, "cancel_reservation", `{"reservation_id": "NO6JO3"}`)
	if after := canonical(mustGet(t, d, "NO6JO3")); after != before {
		t.Error("shared reservations changed")
	}
}

func mustGet(t *testing.T, d *Domain, id string) *Reservation {
	t.Helper()
	r, ok := d.db.Reservations.Get(id)
	if !ok {
		t.Fatalf("reservation %s not in the data", id)
	}
	return r
}

func TestDumpDB(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	e := d.Env()
	mustCall(t, e, "cancel_reservation", `{"reservation_id": "NO6JO3"}`)
	agent, user := e.DumpDB()
	if user != nil {
		t.Errorf("user db = %v; want nil", user)
	}
	b, err := pyjson.Marshal(agent)
	if err != nil {
		t.Fatal(err)
	}
	// Keys in upstream's model_dump order, every reservation with its status.
	s := string(b)
	for _, want := range []string{
		`{"flights": {"HAT001": {"flight_number": "HAT001", "origin": "PHL", "destination": "LGA", "scheduled_departure_time_est": "06:00:00"`,
		`"NO6JO3": {"reservation_id": "NO6JO3"`,
		`"insurance": "yes", "status": "cancelled"}`,
		`"payment_methods": {"credit_card_4421486": {"source": "credit_card", "id": "credit_card_4421486", "brand": "visa", "last_four": "7447"}, "certificate_4856383": {"source": "certificate", "id": "certificate_4856383", "amount": 100.0}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("dump lacks %s", want)
		}
	}
	if n := strings.Count(s, `"status": null`); n != 1999 {
		t.Errorf("%d reservations with null status; want 1999", n)
	}
	// encoding/json gets the same document (compacted, as it does).
	jb, err := json.Marshal(agent)
	var compact bytes.Buffer
	if err != nil || json.Compact(&compact, b) != nil || compact.String() != string(jb) {
		t.Errorf("json.Marshal differs from pyjson (%v)", err)
	}
	// The snapshot does not follow later calls.
	mustCall(t, e, "cancel_reservation", `{"reservation_id": "AIXC49"}`)
	if b2, _ := pyjson.Marshal(agent); string(b2) != s {
		t.Error("dump changed after a later call")
	}
}
