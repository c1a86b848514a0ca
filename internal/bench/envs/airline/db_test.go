package airline

import (
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// TestPinnedDBLazy is what lets Load trust the pinned db.json: decoded in
// full by the validating decoder and lazily, it gives the same tables in the
// same order, record for record, and the same canonical hash string.
func TestPinnedDBLazy(t *testing.T) {
	t.Parallel()
	eager, lazy := datatest.PinnedDB(t, Name, DecodeDB, loadDB)
	if lazy.Flights.Len() != eager.Flights.Len() || lazy.Users.Len() != eager.Users.Len() || lazy.Reservations.Len() != eager.Reservations.Len() {
		t.Fatalf("table sizes differ")
	}
	for _, k := range eager.Flights.Keys() {
		a, _ := eager.Flights.Get(k)
		b, _ := lazy.Flights.Get(k)
		if pyjson.String(a) != pyjson.String(b) {
			t.Fatalf("flight %s: lazy %s; eager %s", k, pyjson.String(b), pyjson.String(a))
		}
	}
	for _, pair := range [][2]any{{eager.Users, lazy.Users}, {eager.Reservations, lazy.Reservations}} {
		if a, b := pyjson.String(pair[0]), pyjson.String(pair[1]); a != b {
			t.Errorf("a lazily decoded table differs from the eager one")
		}
	}
	if canonicalDB(eager) != canonicalDB(lazy) {
		t.Errorf("canonical dumps differ")
	}
}

// TestLoadDBValidatesOtherContent: a db.json that is not the pinned file is
// decoded in full, so a bad record is a load error, not a later panic.
func TestLoadDBValidatesOtherContent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in string }{
		{"bad flight status", `{"flights": {"F": {"flight_number": "F", "origin": "A", "destination": "B", "scheduled_departure_time_est": "", "scheduled_arrival_time_est": "", "dates": {"2024-05-01": {"status": "gone"}}}}, "users": {}, "reservations": {}}`},
		{"wrong type", `{"flights": {}, "users": {"u": {"user_id": 1}}, "reservations": {}}`},
		{"missing table", `{"flights": {}, "users": {}}`},
		{"unknown table", `{"flights": {}, "users": {}, "reservations": {}, "extra": {}}`},
	} {
		if _, err := loadDB([]byte(tc.in)); err == nil {
			t.Errorf("%s: loadDB accepted %s", tc.name, tc.in)
		}
	}
	ok := `{"flights": {}, "users": {}, "reservations": {"R": {"reservation_id": "R", "user_id": "u", "origin": "A", "destination": "B", "flight_type": "one_way", "cabin": "economy", "flights": [], "passengers": [], "payment_history": [], "created_at": "", "total_baggages": 1.0, "nonfree_baggages": 0, "insurance": "no", "status": null}}}`
	db, err := loadDB([]byte(ok))
	if err != nil {
		t.Fatalf("loadDB: %v", err)
	}
	r, _ := db.Reservations.Get("R")
	if got := pyjson.String(r.TotalBaggages); got != "1.0" {
		t.Errorf("total_baggages = %s; want 1.0 (the float kept)", got)
	}
}

func BenchmarkLoadDB(b *testing.B) { datatest.BenchmarkDB(b, Name, DecodeDB, loadDB) }
