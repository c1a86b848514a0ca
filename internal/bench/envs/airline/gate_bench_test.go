package airline

import (
	"encoding/json"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
)

// longLedger is the ledger at the end of a long conversation: the user, all
// of their reservations, several searches and flight statuses.
func longLedger(b *testing.B, d *Domain, env envs.Env) *ledger.Ledger {
	l := ledger.New()
	calls := []message.ToolCall{ledger.ToolCall("get_user_details", "user_id", "amelia_davis_8890")}
	u, _ := d.DB().Users.Get("amelia_davis_8890")
	for _, id := range u.Reservations {
		calls = append(calls, ledger.ToolCall("get_reservation_details", "reservation_id", id))
	}
	calls = append(calls,
		ledger.ToolCall("search_direct_flight", "origin", "JFK", "destination", "SEA", "date", "2024-05-20"),
		ledger.ToolCall("search_onestop_flight", "origin", "JFK", "destination", "SEA", "date", "2024-05-20"),
		ledger.ToolCall("search_onestop_flight", "origin", "LGA", "destination", "SFO", "date", "2024-05-10"),
		ledger.ToolCall("get_flight_status", "flight_number", "HAT247", "date", "2024-05-24"))
	readInto(b, d, env, l, calls...)
	return l
}

func BenchmarkLedgerTurn(b *testing.B) {
	d := testDomain(b)
	env := d.NewEnv()
	l := longLedger(b, d, env)
	g := ledgeragent.NewGate(d, d)
	resOut := envs.Respond(b.Context(), env, message.ToolCall{ID: "x", Name: "get_reservation_details", Arguments: json.RawMessage(`{"reservation_id": "8C8K4E"}`), Requestor: message.ByAssistant}).Content
	b.Run("absorb_reservation", func(b *testing.B) {
		args := json.RawMessage(`{"reservation_id": "8C8K4E"}`)
		b.ReportAllocs()
		for b.Loop() {
			l.Absorb(d, "get_reservation_details", args, resOut)
		}
	})
	b.Run("render", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = l.Render()
		}
	})
	for _, c := range []struct{ name, tool, args string }{
		{"gate_cancel", toolCancel, `{"reservation_id": "8C8K4E"}`},
		{"gate_book", toolBook, `{"user_id": "amelia_davis_8890", "origin": "JFK", "destination": "SEA", "flight_type": "one_way", "cabin": "economy", "flights": [{"flight_number": "HAT069", "date": "2024-05-20"}], "passengers": [{"first_name": "Amelia", "last_name": "Davis", "dob": "1990-04-05"}], "payment_methods": [{"payment_id": "gift_card_7478642", "amount": 121}], "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			args := json.RawMessage(c.args)
			b.ReportAllocs()
			for b.Loop() {
				g.Judge(l, c.tool, "c", args)
			}
		})
	}
	// The same calls after a dozen logged writes (changes, bags, a
	// cancellation, certificates), which predicates read back.
	for _, w := range [][2]string{
		{toolFlights, `{"reservation_id": "8C8K4E", "cabin": "economy", "flights": [{"flight_number": "HAT069", "date": "2024-05-20"}], "payment_id": "gift_card_7478642"}`},
		{toolBaggages, `{"reservation_id": "8C8K4E", "total_baggages": 3, "nonfree_baggages": 1, "payment_id": "gift_card_7478642"}`},
		{toolPassengers, `{"reservation_id": "8C8K4E", "passengers": [{"first_name": "Amelia", "last_name": "Davis", "dob": "1990-04-05"}]}`},
		{toolCertificate, `{"user_id": "amelia_davis_8890", "amount": 50}`},
		{toolCancel, `{"reservation_id": "LU15PA"}`},
	} {
		for range 3 {
			args := json.RawMessage(w[1])
			l.Resolve(l.LogWrite(w[0], args, g.Decode(w[0], args)), true)
		}
	}
	for _, c := range []struct{ name, tool, args string }{
		{"gate_cancel_after_writes", toolCancel, `{"reservation_id": "8C8K4E"}`},
		{"gate_certificate_after_writes", toolCertificate, `{"user_id": "amelia_davis_8890", "amount": 100}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			args := json.RawMessage(c.args)
			b.ReportAllocs()
			for b.Loop() {
				g.Judge(l, c.tool, "c", args)
			}
		})
	}
}
