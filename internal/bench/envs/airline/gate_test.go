package airline

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

func testGate(t testing.TB) (*Domain, *ledger.Gate) {
	d := testDomain(t)
	return d, ledgeragent.NewGate(d, d)
}

// TestCancelSI5UKWGolden is the paper's BLOCK message, on the ledger built
// from the real tool outputs.
func TestCancelSI5UKWGolden(t *testing.T) {
	t.Parallel()
	d, g := testGate(t)
	l := ledger.New()
	readInto(t, d, d.NewEnv(), l, si5ukwReads()...)
	v := g.Judge(l, toolCancel, "c1", json.RawMessage(`{"reservation_id": "SI5UKW"}`))
	const want = "Per airline policy, reservation SI5UKW (basic_economy) cannot be cancelled outside the 24-hour booking window without travel insurance and without an airline-cancelled flight."
	if v.Decision != ledger.Block || v.Reason != want || v.Predicate != "airline.cancel_reservation.basis" || v.Clause != "Cancel flight" {
		t.Errorf("verdict = %+v\nwant BLOCK %q", v, want)
	}
}

func TestPredicates(t *testing.T) {
	t.Parallel()
	d, g := testGate(t)
	user := func(id string) message.ToolCall { return ledger.ToolCall("get_user_details", "user_id", id) }
	res := func(id string) message.ToolCall {
		return ledger.ToolCall("get_reservation_details", "reservation_id", id)
	}
	status := func(n, date string) message.ToolCall {
		return ledger.ToolCall("get_flight_status", "flight_number", n, "date", date)
	}
	direct := func(o, dst, date string) message.ToolCall {
		return ledger.ToolCall("search_direct_flight", "origin", o, "destination", dst, "date", date)
	}
	mia := []message.ToolCall{user("mia_li_3668"), direct("JFK", "ATL", "2024-05-20"), direct("ATL", "SEA", "2024-05-20")}
	const miaBook = `{"user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA", "flight_type": "one_way", "cabin": "economy", "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}, {"flight_number": "HAT039", "date": "2024-05-20"}], "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}], "payment_methods": [{"payment_id": "certificate_7504069", "amount": 250}, {"payment_id": "credit_card_4421486", "amount": 5}], "total_baggages": 3, "nonfree_baggages": 0, "insurance": "no"}`
	type prior struct {
		tool, args string
	}
	cases := []struct {
		name   string
		reads  []message.ToolCall
		writes []prior
		tool   string
		args   string
		want   ledger.Decision
		pred   string // a predicate that must fail ("" for allow)
	}{
		{"book ok", mia, nil, toolBook, miaBook, ledger.Allow, ""},
		{"book bad types", mia, nil, toolBook, `{"user_id": 5}`, ledger.Revise, "airline.book_reservation.arguments"},
		{"book no user", mia[1:], nil, toolBook, miaBook, ledger.Revise, "airline.book_reservation.user_read"},
		{"book other user", mia, nil, toolBook, replace(miaBook, "mia_li_3668", "sara_doe_496"), ledger.Block, "airline.book_reservation.own_user"},
		{"book unsearched", mia[:2], nil, toolBook, miaBook, ledger.Revise, "airline.book_reservation.flights_searched"},
		{"book route", mia, nil, toolBook, replace(miaBook, `"destination": "SEA"`, `"destination": "LAX"`), ledger.Revise, "airline.book_reservation.route"},
		{"book foreign payment", mia, nil, toolBook, replace(miaBook, "credit_card_4421486", "credit_card_0000000"), ledger.Revise, "airline.book_reservation.payment_methods"},
		{"book total", mia, nil, toolBook, replace(miaBook, `"amount": 5}`, `"amount": 6}`), ledger.Revise, "airline.book_reservation.payment_total"},
		{"book bags", mia, nil, toolBook, replace(miaBook, `"total_baggages": 3`, `"total_baggages": 4`), ledger.Revise, "airline.book_reservation.baggage_allowance"},
		{"book six", mia, nil, toolBook, replace(miaBook, `"passengers": [`, `"passengers": [{"first_name": "A", "last_name": "B", "dob": "2000-01-01"}, {"first_name": "A", "last_name": "B", "dob": "2000-01-01"}, {"first_name": "A", "last_name": "B", "dob": "2000-01-01"}, {"first_name": "A", "last_name": "B", "dob": "2000-01-01"}, {"first_name": "A", "last_name": "B", "dob": "2000-01-01"}, `), ledger.Revise, "airline.book_reservation.passenger_limit"},
		{"book repeat", mia, []prior{{toolBook, miaBook}}, toolBook, miaBook, ledger.Block, "airline.book_reservation.not_repeated"},
		{"cancel within 24h", []message.ToolCall{user("mohamed_silva_9265"), res("K1NW8N")}, nil, toolCancel, `{"reservation_id": "K1NW8N"}`, ledger.Allow, ""},
		{"cancel business", []message.ToolCall{user("amelia_davis_8890"), res("LU15PA")}, nil, toolCancel, `{"reservation_id": "LU15PA"}`, ledger.Allow, ""},
		{"cancel insured", []message.ToolCall{user("daiki_muller_1116"), res("59XX6W")}, nil, toolCancel, `{"reservation_id": "59XX6W"}`, ledger.Allow, ""},
		{"cancel no status", []message.ToolCall{user("amelia_rossi_1297"), res("SI5UKW")}, nil, toolCancel, `{"reservation_id": "SI5UKW"}`, ledger.Revise, "airline.cancel_reservation.basis"},
		{"cancel unread", []message.ToolCall{user("amelia_rossi_1297")}, nil, toolCancel, `{"reservation_id": "SI5UKW"}`, ledger.Revise, "airline.cancel_reservation.reservation_read"},
		{"cancel foreign", []message.ToolCall{user("mia_li_3668"), res("SI5UKW")}, nil, toolCancel, `{"reservation_id": "SI5UKW"}`, ledger.Block, "airline.cancel_reservation.own_reservation"},
		{"cancel flown", []message.ToolCall{user("amelia_davis_8890"), res("I6M8JQ"), status("HAT115", "2024-05-09"), status("HAT192", "2024-05-09")}, nil, toolCancel, `{"reservation_id": "I6M8JQ"}`, ledger.Block, "airline.cancel_reservation.not_flown"},
		{"cancel twice", []message.ToolCall{user("amelia_davis_8890"), res("LU15PA")}, []prior{{toolCancel, `{"reservation_id": "LU15PA"}`}}, toolCancel, `{"reservation_id": "LU15PA"}`, ledger.Block, "airline.cancel_reservation.not_cancelled"},
		{"cabin change ok", []message.ToolCall{user("daiki_muller_1116"), res("XEHM4B"), direct("LAS", "ATL", "2024-05-20"), direct("ATL", "LAS", "2024-05-30")}, nil, toolFlights,
			`{"reservation_id": "XEHM4B", "cabin": "business", "flights": [{"flight_number": "HAT005", "date": "2024-05-20"}, {"flight_number": "HAT178", "date": "2024-05-30"}], "payment_id": "credit_card_2408938"}`, ledger.Allow, ""},
		{"cabin one segment", []message.ToolCall{user("daiki_muller_1116"), res("XEHM4B"), direct("LAS", "ATL", "2024-05-20")}, nil, toolFlights,
			`{"reservation_id": "XEHM4B", "cabin": "business", "flights": [{"flight_number": "HAT005", "date": "2024-05-20"}], "payment_id": "credit_card_2408938"}`, ledger.Revise, "airline.update_reservation_flights.cabin_all_segments"},
		{"basic economy change", []message.ToolCall{user("daiki_muller_1116"), res("XEHM4B")}, nil, toolFlights,
			`{"reservation_id": "XEHM4B", "cabin": "basic_economy", "flights": [{"flight_number": "HAT005", "date": "2024-05-21"}, {"flight_number": "HAT178", "date": "2024-05-30"}], "payment_id": "credit_card_2408938"}`, ledger.Block, "airline.update_reservation_flights.basic_economy"},
		{"change after upgrade", []message.ToolCall{user("ivan_rossi_8555"), res("OWZ4XL"), direct("EWR", "LAX", "2024-05-21")},
			[]prior{{toolFlights, `{"reservation_id": "OWZ4XL", "cabin": "economy", "flights": [{"flight_number": "HAT202", "date": "2024-05-21"}, {"flight_number": "HAT232", "date": "2024-05-21"}], "payment_id": "credit_card_9659780"}`}},
			toolFlights, `{"reservation_id": "OWZ4XL", "cabin": "economy", "flights": [{"flight_number": "HAT041", "date": "2024-05-21"}], "payment_id": "credit_card_9659780"}`, ledger.Allow, ""},
		{"change trip", []message.ToolCall{user("ivan_rossi_8555"), res("OWZ4XL"), direct("EWR", "MIA", "2024-05-21")},
			[]prior{{toolFlights, `{"reservation_id": "OWZ4XL", "cabin": "economy", "flights": [{"flight_number": "HAT202", "date": "2024-05-21"}, {"flight_number": "HAT232", "date": "2024-05-21"}], "payment_id": "credit_card_9659780"}`}},
			toolFlights, `{"reservation_id": "OWZ4XL", "cabin": "economy", "flights": [{"flight_number": "HAT202", "date": "2024-05-21"}], "payment_id": "credit_card_9659780"}`, ledger.Revise, "airline.update_reservation_flights.same_trip"},
		{"change certificate", []message.ToolCall{user("mia_li_3668"), res("NO6JO3")}, nil, toolBaggages,
			`{"reservation_id": "NO6JO3", "total_baggages": 2, "nonfree_baggages": 0, "payment_id": "certificate_7504069"}`, ledger.Revise, "airline.update_reservation_baggages.payment"},
		{"bags ok", []message.ToolCall{user("sophia_taylor_9065"), res("PEP4E0")}, nil, toolBaggages,
			`{"reservation_id": "PEP4E0", "total_baggages": 1, "nonfree_baggages": 0, "payment_id": "credit_card_9302073"}`, ledger.Allow, ""},
		{"bags remove", []message.ToolCall{user("omar_davis_3817"), res("JG7FMM")}, nil, toolBaggages,
			`{"reservation_id": "JG7FMM", "total_baggages": 1, "nonfree_baggages": 0, "payment_id": "credit_card_2929732"}`, ledger.Block, "airline.update_reservation_baggages.add_only"},
		{"passengers count", []message.ToolCall{user("anya_garcia_5901"), res("3RK2T9")}, nil, toolPassengers,
			`{"reservation_id": "3RK2T9", "passengers": [{"first_name": "Anya", "last_name": "Garcia", "dob": "1992-11-12"}]}`, ledger.Block, "airline.update_reservation_passengers.passenger_count"},
		{"passengers ok", []message.ToolCall{user("anya_garcia_5901"), res("3RK2T9")}, nil, toolPassengers,
			`{"reservation_id": "3RK2T9", "passengers": [{"first_name": "Anya", "last_name": "Garcia", "dob": "1992-11-12"}, {"first_name": "Mei", "last_name": "Garcia", "dob": "1989-12-13"}]}`, ledger.Allow, ""},
		{"certificate no facts", []message.ToolCall{user("mia_li_3668")}, nil, toolCertificate, `{"user_id": "mia_li_3668", "amount": 100}`, ledger.Revise, "airline.send_certificate.compensation"},
		{"certificate other user", []message.ToolCall{user("mia_li_3668")}, nil, toolCertificate, `{"user_id": "sara_doe_496", "amount": 100}`, ledger.Block, "airline.send_certificate.own_user"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := ledger.New()
			readInto(t, d, d.NewEnv(), l, tc.reads...)
			for _, w := range tc.writes {
				args := json.RawMessage(w.args)
				l.Resolve(l.LogWrite(w.tool, args, g.Decode(w.tool, args)), true)
			}
			v := g.Judge(l, tc.tool, "c", json.RawMessage(tc.args))
			if v.Decision != tc.want || (tc.pred != "" && !slices.Contains(v.Failed, tc.pred)) {
				t.Errorf("verdict %s %v: %s; want %s from %s", v.Decision, v.Failed, v.Reason, tc.want, tc.pred)
			}
		})
	}
}

func replace(s, old, new string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + new + s[i+len(old):]
		}
	}
	panic("replace: " + old + " not in " + s)
}

// TestPredicateIDs: every predicate is named and cites a policy heading.
func TestPredicateIDs(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	seen := map[string]bool{}
	for _, p := range d.GatePredicates() {
		if seen[p.ID] || p.Check == nil || p.Clause == "" {
			t.Errorf("predicate %q duplicated or incomplete", p.ID)
		}
		seen[p.ID] = true
		if p.Clause != clauseLoop && !containsHeading(d.Policy(), p.Clause) {
			t.Errorf("%s cites %q, not a heading of policy.md", p.ID, p.Clause)
		}
		// Odd arguments never panic.
		for _, raw := range []string{`null`, `[]`, `{"reservation_id": 5}`, `{"flights": "x", "passengers": {}, "payment_methods": [1]}`} {
			if args, f := d.DecodeArgs(p.Tool, json.RawMessage(raw)); f == nil {
				p.Check(ledger.New(), args)
			}
		}
	}
}

func containsHeading(policy, h string) bool {
	for _, prefix := range []string{"## ", "### "} {
		if slices.Contains(splitLines(policy), prefix+h) {
			return true
		}
	}
	return false
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := range len(s) {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

var allKinds = []string{MutAlreadyCancelled, MutBasicEconomyModify, MutCabinMismatch, MutCancelWithoutBasis, MutCertificateUpdate,
	MutExcessCertificate, MutExcessPassengers, MutFlownReservation, MutForeignPayment, MutForeignReservation,
	MutNonfreeBagMiscount, MutPassengerCount, MutPaymentSumMismatch, MutUnsearchedFlight}

// TestGateAuditMutations: the gate catches at least 95% of every kind.
func TestGateAuditMutations(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	ts, err := d.Tasks().Select(tasks.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	reps, err := ledgeragent.AuditMutations(context.Background(), d, ts)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range reps {
		kinds = append(kinds, r.Kind)
		if r.Total == 0 || float64(r.Caught) < 0.95*float64(r.Total) {
			t.Errorf("%s: caught %d of %d (missed in tasks %v)", r.Kind, r.Caught, r.Total, r.Missed)
		}
	}
	if !slices.Equal(kinds, allKinds) {
		t.Errorf("kinds %v; want %v", kinds, allKinds)
	}
}
