package airline

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/table"
)

// FuzzToolArgs calls tools with arbitrary argument bytes: a call must return
// a result that formats, or an error, and never panic. A second call on the
// same environment checks that a failed call left it usable.
func FuzzToolArgs(f *testing.F) {
	d := testDomain(f)
	seeds := []struct {
		tool int
		args string
	}{
		{0, `{"user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA", "flight_type": "one_way", "cabin": "economy", "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}, {"flight_number": "HAT039", "date": "2024-05-20"}], "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}], "payment_methods": [{"payment_id": "certificate_7504069", "amount": 250}, {"payment_id": "credit_card_4421486", "amount": 5}], "total_baggages": 3, "nonfree_baggages": 0, "insurance": "no"}`},
		{0, `{"user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA", "flight_type": "one_way", "cabin": "economy", "flights": "HAT136", "passengers": "", "payment_methods": {}, "total_baggages": 1.5, "nonfree_baggages": "2", "insurance": true}`},
		{1, `{"expression": "2 * ((350 - 122) + (499 - 127))"}`},
		{1, `{"expression": ["12"]}`},
		{2, `{"reservation_id": "NO6JO3"}`},
		{3, `{"reservation_id": null}`},
		{4, `{"user_id": ["a"]}`},
		{5, `{}`},
		{6, `{"origin": null, "destination": "SEA", "date": "2024-05-20"}`},
		{7, `{"origin": "LGA", "destination": "SFO", "date": "2024-05-10"}`},
		{8, `{"user_id": "mia_li_3668", "amount": 150.5}`},
		{9, `{"summary": 42}`},
		{10, `{"reservation_id": "79G8A9", "total_baggages": 3, "nonfree_baggages": 1.25, "payment_id": "gift_card_5309492"}`},
		{11, `{"reservation_id": "1AKIA8", "cabin": "business", "flights": [{"flight_number": "HAT070", "date": "2024-05-22"}, {"flight_number": "HAT297", "date": "2024-05-23"}], "payment_id": "credit_card_6082923"}`},
		{11, `{"reservation_id": "1AKIA8", "cabin": 5, "flights": [], "payment_id": "gift_card_5309492"}`},
		{12, `{"reservation_id": "07S7FC", "passengers": [{"first_name": "A", "last_name": "B", "dob": "2000-01-01"}, {"first_name": "C"}]}`},
		{13, `{"flight_number": "HAT018", "date": "2024-05-11"}`},
		{14, `[1, 2]`},
		{15, `{"x": 1e999}`},
	}
	for _, s := range seeds {
		f.Add(uint8(s.tool), []byte(s.args))
	}
	infos := d.AgentTools()
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		name := "no_such_tool"
		if int(which) < len(infos) {
			name = infos[which].Name
		}
		env := d.Env()
		call := message.ToolCall{ID: "f", Name: name, Arguments: json.RawMessage(args), Requestor: message.ByAssistant}
		res, err := env.Call(ctx, message.ByAssistant, name, call.Arguments)
		if err == nil {
			_ = pyjson.String(res)
		} else if err.Error() == "" {
			t.Errorf("%s(%s): empty error text", name, args)
		}
		// The environment still works and still encodes.
		if m := envs.Respond(ctx, env, message.ToolCall{ID: "g", Name: "get_user_details", Arguments: json.RawMessage(`{"user_id": "mia_li_3668"}`)}); m.Error {
			t.Errorf("after %s(%s): get_user_details failed: %s", name, args, m.Content)
		}
		for _, err := range []error{encodeTouched(&env.flights), encodeTouched(&env.users), encodeTouched(&env.reservations)} {
			if err != nil {
				t.Errorf("after %s(%s): a changed record does not encode: %v", name, args, err)
			}
		}
	})
}

func encodeTouched[V any](t *table.Table[V]) error {
	for _, k := range t.Touched() {
		v, _ := t.Get(k)
		if _, err := pyjson.Marshal(v); err != nil {
			return err
		}
	}
	return nil
}
