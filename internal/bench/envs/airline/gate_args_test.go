package airline

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// withArg is args with one argument replaced by the JSON value raw (removed
// when raw is "", added when absent).
func withArg(t testing.TB, args, name, raw string) json.RawMessage {
	t.Helper()
	v, err := pyjson.Decode([]byte(args))
	if err != nil {
		t.Fatal(err)
	}
	d := v.(*pyjson.Dict)
	if raw == "" {
		i := slices.Index(d.Keys, name)
		d.Keys, d.Values = slices.Delete(d.Keys, i, i+1), slices.Delete(d.Values, i, i+1)
	} else {
		x, err := pyjson.Decode([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		d.Set(name, x)
	}
	b, err := d.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOddArgumentsRevise: a call the gate allows, with one argument of
// another type than documented (a number where a string is expected, a
// float or a string where an integer is, a malformed list, a value outside
// the listed ones), is a REVISE by the arguments check alone: an odd type
// never slips past the predicates.
func TestOddArgumentsRevise(t *testing.T) {
	t.Parallel()
	d, g := testGate(t)
	user := func(id string) message.ToolCall { return ledger.ToolCall("get_user_details", "user_id", id) }
	res := func(id string) message.ToolCall {
		return ledger.ToolCall("get_reservation_details", "reservation_id", id)
	}
	direct := func(o, dst, date string) message.ToolCall {
		return ledger.ToolCall("search_direct_flight", "origin", o, "destination", dst, "date", date)
	}
	const miaBook = `{"user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA", "flight_type": "one_way", "cabin": "economy", "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}, {"flight_number": "HAT039", "date": "2024-05-20"}], "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}], "payment_methods": [{"payment_id": "certificate_7504069", "amount": 250}, {"payment_id": "credit_card_4421486", "amount": 5}], "total_baggages": 3, "nonfree_baggages": 0, "insurance": "no"}`
	cases := []struct {
		tool  string
		reads []message.ToolCall
		args  string
		odd   [][2]string // argument, JSON value ("" removes it)
	}{
		{toolBook, []message.ToolCall{user("mia_li_3668"), direct("JFK", "ATL", "2024-05-20"), direct("ATL", "SEA", "2024-05-20")}, miaBook, [][2]string{
			{"user_id", `5`}, {"user_id", `null`}, {"user_id", `["mia_li_3668"]`}, {"origin", `{"code": "JFK"}`},
			{"flight_type", `"oneway"`}, {"cabin", `"first"`}, {"insurance", `true`},
			{"flights", `"HAT136"`}, {"flights", `[]`}, {"flights", `null`}, {"flights", `[{"flight_number": 136, "date": "2024-05-20"}]`},
			{"flights", `[{"flight_number": "HAT136"}]`}, {"flights", `[null]`}, {"flights", `["HAT136"]`},
			{"passengers", `{}`}, {"passengers", `null`}, {"passengers", `[null]`}, {"passengers", `[{"first_name": "Mia", "last_name": "Li", "dob": 1990}]`},
			{"payment_methods", `[{"payment_id": "certificate_7504069", "amount": "250"}, {"payment_id": "credit_card_4421486", "amount": 5}]`},
			{"payment_methods", `[{"payment_id": "certificate_7504069", "amount": 250.0}, {"payment_id": "credit_card_4421486", "amount": 5}]`},
			{"payment_methods", `[{"payment_id": "certificate_7504069"}, {"payment_id": "credit_card_4421486", "amount": 5}]`},
			{"total_baggages", `3.0`}, {"total_baggages", `"3"`}, {"total_baggages", `true`}, {"nonfree_baggages", `-1`}, {"nonfree_baggages", `1e999`},
			{"insurance", ""}, {"seat", `"1A"`},
		}},
		{toolCancel, []message.ToolCall{user("mohamed_silva_9265"), res("K1NW8N")}, `{"reservation_id": "K1NW8N"}`, [][2]string{
			{"reservation_id", `5`}, {"reservation_id", `["K1NW8N"]`}, {"reservation_id", `null`}, {"reservation_id", ""},
		}},
		{toolBaggages, []message.ToolCall{user("sophia_taylor_9065"), res("PEP4E0")}, `{"reservation_id": "PEP4E0", "total_baggages": 1, "nonfree_baggages": 0, "payment_id": "credit_card_9302073"}`, [][2]string{
			{"total_baggages", `1.5`}, {"total_baggages", `"1"`}, {"nonfree_baggages", `false`}, {"payment_id", `9302073`},
		}},
		{toolFlights, []message.ToolCall{user("daiki_muller_1116"), res("XEHM4B"), direct("LAS", "ATL", "2024-05-20"), direct("ATL", "LAS", "2024-05-30")},
			`{"reservation_id": "XEHM4B", "cabin": "business", "flights": [{"flight_number": "HAT005", "date": "2024-05-20"}, {"flight_number": "HAT178", "date": "2024-05-30"}], "payment_id": "credit_card_2408938"}`, [][2]string{
				{"cabin", `5`}, {"cabin", `"Business"`}, {"flights", `null`}, {"flights", `{"flight_number": "HAT005", "date": "2024-05-20"}`},
				{"flights", `[{"flight_number": "HAT005", "date": 20240520}, {"flight_number": "HAT178", "date": "2024-05-30"}]`},
			}},
		{toolPassengers, []message.ToolCall{user("anya_garcia_5901"), res("3RK2T9")},
			`{"reservation_id": "3RK2T9", "passengers": [{"first_name": "Anya", "last_name": "Garcia", "dob": "1992-11-12"}, {"first_name": "Mei", "last_name": "Garcia", "dob": "1989-12-13"}]}`, [][2]string{
				{"passengers", `null`}, {"passengers", `"Anya Garcia, Mei Garcia"`}, {"passengers", `[{"first_name": "Anya", "last_name": "Garcia", "dob": "1992-11-12"}, {"first_name": ["Mei"], "last_name": "Garcia", "dob": "1989-12-13"}]`},
			}},
		{toolCertificate, []message.ToolCall{user("mia_li_3668")}, `{"user_id": "mia_li_3668", "amount": 100}`, [][2]string{
			{"amount", `"100"`}, {"amount", `0`}, {"amount", `-50`}, {"amount", `true`}, {"amount", `1e999`}, {"user_id", `3668`},
		}},
	}
	for _, tc := range cases {
		l := ledger.New()
		readInto(t, d, d.NewEnv(), l, tc.reads...)
		if v := g.Judge(l, tc.tool, "c", json.RawMessage(tc.args)); slices.Contains(v.Failed, "airline."+tc.tool+".arguments") {
			t.Errorf("%s %s: the documented arguments fail to decode: %s", tc.tool, tc.args, v.Reason)
		}
		for _, o := range tc.odd {
			args := withArg(t, tc.args, o[0], o[1])
			v := g.Judge(l, tc.tool, "c", args)
			if v.Decision != ledger.Revise || !slices.Equal(v.Failed, []string{"airline." + tc.tool + ".arguments"}) || !strings.Contains(v.Reason, o[0]) {
				t.Errorf("%s %s: %s %v %q; want REVISE by the arguments check naming %s", tc.tool, args, v.Decision, v.Failed, v.Reason, o[0])
			}
			if g.Decode(tc.tool, args) != nil {
				t.Errorf("%s %s: decoded for the write log", tc.tool, args)
			}
		}
	}
}

// documented is the JSON type of each argument of the write tools: "s" a
// string, "n" a non-negative integer, "p" a positive number, "f", "P" and
// "$" a non-empty flight list, a passenger list and a payment list.
var documented = map[string]map[string]string{
	toolBook: {"user_id": "s", "origin": "s", "destination": "s", "flight_type": "s", "cabin": "s", "flights": "f", "passengers": "P",
		"payment_methods": "$", "total_baggages": "n", "nonfree_baggages": "n", "insurance": "s"},
	toolCancel:      {"reservation_id": "s"},
	toolBaggages:    {"reservation_id": "s", "total_baggages": "n", "nonfree_baggages": "n", "payment_id": "s"},
	toolFlights:     {"reservation_id": "s", "cabin": "s", "flights": "f", "payment_id": "s"},
	toolPassengers:  {"reservation_id": "s", "passengers": "P"},
	toolCertificate: {"user_id": "s", "amount": "p"},
}

// strictlyDocumented reports whether raw is an object with exactly the
// tool's arguments, each of its documented JSON type, as encoding/json reads
// them.
func strictlyDocumented(tool string, raw []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil || len(m) != len(documented[tool]) {
		return false
	}
	isStr := func(v json.RawMessage) bool {
		var s string
		return json.Unmarshal(v, &s) == nil && strings.HasPrefix(strings.TrimSpace(string(v)), `"`)
	}
	// objects is the length of a list of objects with fields of the given
	// types (-1 for anything else).
	objects := func(v json.RawMessage, fields map[string]func(json.RawMessage) bool) int {
		var items []map[string]json.RawMessage
		if !strings.HasPrefix(strings.TrimSpace(string(v)), "[") || json.Unmarshal(v, &items) != nil {
			return -1
		}
		for _, it := range items {
			for f, ok := range fields {
				if it[f] == nil || !ok(it[f]) {
					return -1
				}
			}
		}
		return len(items)
	}
	for name, kind := range documented[tool] {
		v, ok := m[name]
		if !ok {
			return false
		}
		var good bool
		switch kind {
		case "s":
			good = isStr(v)
		case "n":
			var n int
			good = json.Unmarshal(v, &n) == nil && n >= 0
		case "p":
			var f float64
			good = json.Unmarshal(v, &f) == nil && f > 0
		case "f":
			good = objects(v, map[string]func(json.RawMessage) bool{"flight_number": isStr, "date": isStr}) > 0
		case "P":
			good = objects(v, map[string]func(json.RawMessage) bool{"first_name": isStr, "last_name": isStr, "dob": isStr}) >= 0
		case "$":
			good = objects(v, map[string]func(json.RawMessage) bool{"payment_id": isStr, "amount": func(v json.RawMessage) bool {
				var n int
				return json.Unmarshal(v, &n) == nil
			}}) >= 0
		}
		if !good {
			return false
		}
	}
	return true
}

// FuzzGateArgs: the arguments check accepts only calls whose arguments have
// their documented types (as encoding/json reads them; the listed values
// aside), reports every other call as the arguments failure, and no
// predicate panics on what it accepts, whatever the ledger holds (each is
// called directly, without the gate's recover).
func FuzzGateArgs(f *testing.F) {
	d, g := testGate(f)
	full := ledger.New()
	readInto(f, d, d.NewEnv(), full, si5ukwReads()...)
	for _, w := range [][2]string{{toolCancel, `{"reservation_id": "SI5UKW"}`}, {toolCertificate, `{"user_id": "amelia_rossi_1297", "amount": 50}`}} {
		args := json.RawMessage(w[1])
		full.Resolve(full.LogWrite(w[0], args, g.Decode(w[0], args)), true)
	}
	full.Resolve(full.LogWrite(toolBaggages, json.RawMessage(`{"reservation_id": 5}`), nil), true)
	leds := []*ledger.Ledger{ledger.New(), full}
	tools := []string{toolBook, toolCancel, toolBaggages, toolFlights, toolPassengers, toolCertificate}
	for _, s := range []string{`{"reservation_id": "SI5UKW"}`, `{"user_id": "amelia_rossi_1297", "amount": 150.5}`, `null`, `[]`, `{}`, `{"reservation_id": 5}`,
		`{"reservation_id": "SI5UKW", "total_baggages": 2, "nonfree_baggages": -0, "payment_id": "gift_card_1"}`,
		`{"reservation_id": "SI5UKW", "cabin": "economy", "flights": [{"flight_number": "HAT062", "date": "2024-05-16", "x": 1}], "payment_id": "credit_card_1"}`,
		`{"reservation_id": "SI5UKW", "passengers": [{"first_name": "A", "last_name": "B", "dob": "2000-01-01"}, null]}`,
		`{"user_id": "amelia_rossi_1297", "origin": "JFK", "destination": "SEA", "flight_type": "one_way", "cabin": "economy", "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}], "passengers": [], "payment_methods": [{"payment_id": "p", "amount": -3}], "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no"}`} {
		for i := range tools {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, raw string) {
		tool := tools[int(which)%len(tools)]
		decoded, fail := d.DecodeArgs(tool, json.RawMessage(raw))
		if fail != nil {
			if fail.ID != "airline."+tool+".arguments" || fail.Reason == "" || fail.Decision != ledger.Revise {
				t.Fatalf("%s %q: arguments failure %+v", tool, raw, fail)
			}
			return
		}
		if !strictlyDocumented(tool, []byte(raw)) {
			t.Fatalf("%s %q: accepted, but encoding/json does not read the documented types", tool, raw)
		}
		for _, l := range leds {
			for _, p := range g.Predicates(tool) {
				if o := p.Check(l, decoded); o.Decision != ledger.Allow && o.Reason == "" {
					t.Errorf("%s: %s without a reason", p.ID, o.Decision)
				}
			}
		}
	})
}
