package airline

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
)

// Regression tests built from synthetic ledgers: small records
// absorbed through the path map, writes logged as a live agent logs them.

// synthUser is a member with a gift card worth $10 and a credit card.
func synthUser(membership string, reservations ...string) string {
	b, _ := json.Marshal(reservations)
	return `{"user_id": "u1", "name": {"first_name": "Ann", "last_name": "Lee"}, "address": {}, "email": "a@x", "dob": "1990-01-01",
"payment_methods": {"gift_card_1": {"source": "gift_card", "id": "gift_card_1", "amount": 10.0},
 "credit_card_1": {"source": "credit_card", "id": "credit_card_1", "brand": "visa", "last_four": "1234"}},
"saved_passengers": [], "membership": "` + membership + `", "reservations": ` + string(b) + `}`
}

// synthReservation is a one-way economy trip of two passengers on flight
// number on date, paid with payment, with bags total (nonfree non-free).
func synthReservation(id, number, date, payment, bags string) string {
	return `{"reservation_id": "` + id + `", "user_id": "u1", "origin": "JFK", "destination": "LAX", "flight_type": "one_way", "cabin": "economy",
"flights": [{"flight_number": "` + number + `", "origin": "JFK", "destination": "LAX", "date": "` + date + `", "price": 100}],
"passengers": [{"first_name": "Ann", "last_name": "Lee", "dob": "1990-01-01"}, {"first_name": "Bo", "last_name": "Lee", "dob": "1991-01-01"}],
"payment_history": [{"payment_id": "` + payment + `", "amount": 200}], "created_at": "2024-05-01T10:00:00", ` + bags + `, "insurance": "no", "status": null}`
}

type synthStep struct {
	read  string // tool name of a read, or "" for a write
	args  string
	out   string
	write string // a write logged and resolved as succeeded
}

func synthLedger(t *testing.T, d *Domain, steps []synthStep) *ledger.Ledger {
	t.Helper()
	l := ledger.New()
	for _, s := range steps {
		if s.write != "" {
			args := json.RawMessage(s.args)
			decoded, fail := d.DecodeArgs(s.write, args)
			if fail != nil {
				t.Fatalf("%s %s: %s", s.write, s.args, fail.Reason)
			}
			l.Resolve(l.LogWrite(s.write, args, decoded), true)
			continue
		}
		if l.Absorb(d, s.read, json.RawMessage(s.args), s.out) == 0 {
			t.Fatalf("%s %s: not absorbed", s.read, s.args)
		}
	}
	return l
}

func readUser(membership string, res ...string) synthStep {
	return synthStep{read: "get_user_details", args: `{"user_id": "u1"}`, out: synthUser(membership, res...)}
}

func readRes(id, number, date, payment, bags string) synthStep {
	return synthStep{read: "get_reservation_details", args: `{"reservation_id": "` + id + `"}`, out: synthReservation(id, number, date, payment, bags)}
}

func readStatus(number, date, status string) synthStep {
	return synthStep{read: "get_flight_status", args: `{"flight_number": "` + number + `", "date": "` + date + `"}`, out: status}
}

func logged(tool, args string) synthStep { return synthStep{write: tool, args: args} }

const (
	bags21     = `"total_baggages": 2, "nonfree_baggages": 1`
	changeR1   = `{"reservation_id": "R1", "cabin": "economy", "flights": [{"flight_number": "HAT002", "date": "2024-05-17"}], "payment_id": "credit_card_1"}`
	cabinOnly  = `{"reservation_id": "R1", "cabin": "business", "flights": [{"flight_number": "HAT001", "date": "2024-05-16"}], "payment_id": "credit_card_1"}`
	renameR1   = `{"reservation_id": "R1", "passengers": [{"first_name": "Ann", "last_name": "Lee", "dob": "1990-01-01"}, {"first_name": "Cy", "last_name": "Lee", "dob": "1992-01-01"}]}`
	cert100    = `{"user_id": "u1", "amount": 100}`
	bagsGift   = `{"reservation_id": "R1", "total_baggages": 4, "nonfree_baggages": 2, "payment_id": "gift_card_1"}`
	cancelR2   = `{"reservation_id": "R2"}`
	cancelR1   = `{"reservation_id": "R1"}`
	delayedDay = "2024-05-16"
)

func TestGateRegressions(t *testing.T) {
	t.Parallel()
	d := testDomain(t)
	g := ledger.NewGate(d.GatePredicates(), []string{toolBook, toolCancel, toolBaggages, toolFlights, toolPassengers, toolCertificate}, d.DecodeArgs)
	cases := []struct {
		name  string
		steps []synthStep
		tool  string
		args  string
		want  ledger.Decision
		// fails must all fail; passes must not
		fails, passes []string
		reason        string // a substring of some failing reason
	}{
		// cause 3: the delay stays visible after the delayed segment is changed away
		{"delay compensation after the change", []synthStep{readUser("silver", "R1"), readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21),
			readStatus("HAT001", delayedDay, "delayed"), logged(toolFlights, changeR1)},
			toolCertificate, cert100, ledger.Allow, nil, nil, ""},
		{"delay compensation before the change", []synthStep{readUser("silver", "R1"), readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21),
			readStatus("HAT001", delayedDay, "delayed")},
			toolCertificate, cert100, ledger.Revise, []string{"airline.send_certificate.compensation"}, nil, "only after changing or cancelling"},
		{"compensation names the statuses to check", []synthStep{readUser("silver", "R1"), readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21)},
			toolCertificate, cert100, ledger.Revise, []string{"airline.send_certificate.compensation"}, nil, `get_flight_status(flight_number='HAT001', date='2024-05-16')`},
		{"compensation names unread reservations", []synthStep{readUser("silver", "R1", "R2"), readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21),
			readStatus("HAT001", delayedDay, "available")},
			toolCertificate, cert100, ledger.Revise, []string{"airline.send_certificate.compensation"}, nil, "not yet read: R2"},
		{"no compensation without a cancelled or delayed flight", []synthStep{readUser("silver", "R1"), readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21),
			readStatus("HAT001", delayedDay, "on time")},
			toolCertificate, cert100, ledger.Block, []string{"airline.send_certificate.compensation"}, nil, ""},
		// cause 4: fewer paid bags with more bags removes none
		{"more bags, fewer paid", []synthStep{readUser("gold", "R1"), readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21)},
			toolBaggages, `{"reservation_id": "R1", "total_baggages": 3, "nonfree_baggages": 0, "payment_id": "credit_card_1"}`, ledger.Allow, nil, []string{"airline.update_reservation_baggages.add_only"}, ""},
		{"fewer bags", []synthStep{readUser("gold", "R1"), readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21)},
			toolBaggages, `{"reservation_id": "R1", "total_baggages": 1, "nonfree_baggages": 0, "payment_id": "credit_card_1"}`, ledger.Block, []string{"airline.update_reservation_baggages.add_only"}, nil, ""},
		// cause 5: no profile read where no rule reads the profile
		{"passenger change without profile", []synthStep{readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21)},
			toolPassengers, renameR1, ledger.Allow, nil, []string{"airline.update_reservation_passengers.user_read"}, ""},
		{"cancel without profile", []synthStep{readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21), readStatus("HAT001", delayedDay, "cancelled")},
			toolCancel, cancelR1, ledger.Allow, nil, nil, ""},
		{"bags without profile name the facts", []synthStep{readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21)},
			toolBaggages, bagsGift, ledger.Revise, []string{"airline.update_reservation_baggages.user_read"}, nil, "membership level"},
		{"cabin-only change needs no search", []synthStep{readUser("silver", "R1"), readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21)},
			toolFlights, cabinOnly, ledger.Allow, nil, []string{"airline.update_reservation_flights.flights_searched"}, ""},
		{"a new flight needs a search", []synthStep{readUser("silver", "R1"), readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21)},
			toolFlights, changeR1, ledger.Revise, []string{"airline.update_reservation_flights.flights_searched"}, nil, "HAT002 on 2024-05-17"},
		// cause 6: a gift card refunded since the profile was read
		{"gift card short as read", []synthStep{readUser("regular", "R1", "R2"), readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21)},
			toolBaggages, bagsGift, ledger.Revise, []string{"airline.update_reservation_baggages.payment"}, nil, "has $10"},
		{"gift card refunded by an earlier cancellation", []synthStep{readUser("regular", "R1", "R2"), readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21),
			readRes("R2", "HAT003", "2024-05-20", "gift_card_1", bags21), logged(toolCancel, cancelR2)},
			toolBaggages, bagsGift, ledger.Allow, nil, []string{"airline.update_reservation_baggages.payment"}, ""},
		{"gift card re-read after the refund", []synthStep{readRes("R2", "HAT003", "2024-05-20", "gift_card_1", bags21), logged(toolCancel, cancelR2),
			readUser("regular", "R1", "R2"), readRes("R1", "HAT001", delayedDay, "credit_card_1", bags21)},
			toolBaggages, bagsGift, ledger.Revise, []string{"airline.update_reservation_baggages.payment"}, nil, "has $10"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := synthLedger(t, d, tc.steps)
			v := g.Judge(l, tc.tool, "c", json.RawMessage(tc.args))
			if v.Decision != tc.want {
				t.Errorf("verdict %s %v: %+v; want %s", v.Decision, v.Failed, v.Predicates, tc.want)
			}
			for _, p := range tc.fails {
				if !slices.Contains(v.Failed, p) {
					t.Errorf("%s did not fail: %v", p, v.Failed)
				}
			}
			for _, p := range tc.passes {
				if slices.Contains(v.Failed, p) {
					t.Errorf("%s failed: %+v", p, v.Predicates)
				}
			}
			if tc.reason != "" && !slices.ContainsFunc(v.Predicates, func(f ledger.Failure) bool { return strings.Contains(f.Reason, tc.reason) }) {
				t.Errorf("no reason contains %q: %+v", tc.reason, v.Predicates)
			}
		})
	}
}
