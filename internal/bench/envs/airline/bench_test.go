package airline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// BenchmarkToolCall measures one tool call through envs.Respond (dispatch,
// argument decoding, the tool, formatting the tool message). Write tools run
// on a fresh environment each iteration, so copy-on-write costs are included.
func BenchmarkToolCall(b *testing.B) {
	d := testDomain(b)
	ctx := context.Background()
	for _, bc := range []struct {
		name, tool, args string
		fresh            bool
	}{
		{"get_reservation_details", "get_reservation_details", `{"reservation_id": "4WQ150"}`, false},
		{"get_user_details", "get_user_details", `{"user_id": "mia_li_3668"}`, false},
		{"search_direct_flight", "search_direct_flight", `{"origin": "JFK", "destination": "ATL", "date": "2024-05-20"}`, false},
		{"search_onestop_flight", "search_onestop_flight", `{"origin": "LGA", "destination": "SFO", "date": "2024-05-10"}`, false},
		{"calculate", "calculate", `{"expression": "2 * ((350 - 122) + (499 - 127))"}`, false},
		{"book_reservation", "book_reservation", `{"user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA", "flight_type": "one_way", "cabin": "economy", "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}, {"flight_number": "HAT039", "date": "2024-05-20"}], "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}], "payment_methods": [{"payment_id": "certificate_7504069", "amount": 250}, {"payment_id": "credit_card_4421486", "amount": 5}], "total_baggages": 3, "nonfree_baggages": 0, "insurance": "no"}`, true},
		{"update_reservation_flights", "update_reservation_flights", `{"reservation_id": "1AKIA8", "cabin": "business", "flights": [{"flight_number": "HAT070", "date": "2024-05-22"}, {"flight_number": "HAT297", "date": "2024-05-23"}], "payment_id": "credit_card_6082923"}`, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			call := message.ToolCall{ID: "b", Name: bc.tool, Arguments: json.RawMessage(bc.args), Requestor: message.ByAssistant}
			env := d.Env()
			b.ReportAllocs()
			for b.Loop() {
				if bc.fresh {
					env = d.Env()
				}
				if m := envs.Respond(ctx, env, call); m.Error {
					b.Fatal(m.Content)
				}
			}
		})
	}
}

// BenchmarkNewEnv measures a fresh simulation state.
func BenchmarkNewEnv(b *testing.B) {
	d := testDomain(b)
	b.ReportAllocs()
	var e envs.Env
	for b.Loop() {
		e = d.NewEnv()
	}
	_ = e
}

// BenchmarkLoad measures decoding db.json (7 MB) into the typed database.
func BenchmarkLoad(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join(data.Tau2Domain(datatest.Root(b), Name), "db.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeDB(raw); err != nil {
			b.Fatal(err)
		}
	}
}
