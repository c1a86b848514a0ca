package airline

// LedgerAgent's tool path map for airline: where each successful read return
// is stored in the ledger, as the domain's own typed records.
//
//	read tool                arguments                  ledger path                                 value
//	-----------------------  -------------------------  ------------------------------------------  ------------------------------------------
//	get_user_details         user_id                    user                                        *User (membership, payment methods, ids)
//	get_reservation_details  reservation_id             reservations.<reservation_id>               *Reservation (flights, cabin, passengers…)
//	search_direct_flight     origin, destination, date  flights.<flight_number>.<date>              *DirectFlight (status, seats, prices; date set)
//	                                                    searches.direct.<origin>-<destination>-<date>   []string (flight numbers found, in order)
//	search_onestop_flight    origin, destination, date  flights.<flight_number>.<date>  (each leg)  *DirectFlight
//	                                                    searches.onestop.<origin>-<destination>-<date>  []string ("HAT001+HAT002" per itinerary)
//	get_flight_status        flight_number, date        flight_status.<flight_number>.<date>        string (available, delayed, cancelled, …)
//	list_all_airports        -                          airports                                    []AirportCode
//
// Ids in paths come from the returned record where it has them (user,
// reservation, flight number, leg date); the search key and the direct
// search's date (upstream leaves a direct result's date null) come from the
// call's arguments. A search that finds nothing still records its key with
// an empty list: the agent knows there is nothing on that route and date.
// calculate and transfer_to_human_agents have no path; write returns are never
// stored (after a write the agent reads the record again).
//
// `user` is the last user record read; the policy authenticates a user by the
// user id they give, so predicates treat `user` as the authenticated user
// (one user per conversation).

import (
	"encoding/json"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
)

// Ledger paths.
const (
	pathUser           = "user"
	pathAirports       = "airports"
	prefixReservations = "reservations."
	prefixFlights      = "flights."
	prefixSearches     = "searches."
	prefixFlightStatus = "flight_status."
)

// Route implements ledger.Router: the static tool path map above. Outputs
// that do not decode as the tool's record give no entries.
func (d *Domain) Route(tool string, args json.RawMessage, output string) []ledger.Entry {
	switch tool {
	case "get_user_details":
		var u User
		if err := json.Unmarshal([]byte(output), &u); err != nil || u.UserID == "" {
			return nil
		}
		return []ledger.Entry{{Path: pathUser, Value: &u}}
	case "get_reservation_details":
		var r Reservation
		if err := json.Unmarshal([]byte(output), &r); err != nil || r.ReservationID == "" {
			return nil
		}
		return []ledger.Entry{{Path: prefixReservations + r.ReservationID, Value: &r}}
	case "search_direct_flight":
		key, date, ok := searchKey(args)
		if !ok {
			return nil
		}
		var fs []*DirectFlight
		if err := json.Unmarshal([]byte(output), &fs); err != nil {
			return nil
		}
		found := make([]string, 0, len(fs))
		out := make([]ledger.Entry, 0, len(fs)+1)
		for _, f := range fs {
			if f == nil || f.FlightNumber == "" {
				return nil
			}
			dt := date
			f.Date = &dt
			found = append(found, f.FlightNumber)
			out = append(out, ledger.Entry{Path: flightPath(f.FlightNumber, date), Value: f})
		}
		return append(out, ledger.Entry{Path: prefixSearches + "direct." + key, Value: found})
	case "search_onestop_flight":
		key, _, ok := searchKey(args)
		if !ok {
			return nil
		}
		var its [][]*DirectFlight
		if err := json.Unmarshal([]byte(output), &its); err != nil {
			return nil
		}
		found := make([]string, 0, len(its))
		var out []ledger.Entry
		seen := map[string]bool{}
		for _, it := range its {
			var nums []string
			for _, f := range it {
				if f == nil || f.FlightNumber == "" || f.Date == nil {
					return nil
				}
				nums = append(nums, f.FlightNumber)
				p := flightPath(f.FlightNumber, *f.Date)
				if !seen[p] {
					seen[p] = true
					out = append(out, ledger.Entry{Path: p, Value: f})
				}
			}
			found = append(found, strings.Join(nums, "+"))
		}
		return append(out, ledger.Entry{Path: prefixSearches + "onestop." + key, Value: found})
	case "get_flight_status":
		var a struct {
			FlightNumber string `json:"flight_number"`
			Date         string `json:"date"`
		}
		st := strings.TrimSpace(output)
		if json.Unmarshal(args, &a) != nil || a.FlightNumber == "" || a.Date == "" || st == "" || strings.ContainsAny(st, "{}[]\"\n") {
			return nil
		}
		return []ledger.Entry{{Path: prefixFlightStatus + a.FlightNumber + "." + a.Date, Value: st}}
	case "list_all_airports":
		var as []AirportCode
		if err := json.Unmarshal([]byte(output), &as); err != nil {
			return nil
		}
		return []ledger.Entry{{Path: pathAirports, Value: as}}
	}
	return nil
}

// searchKey is "<origin>-<destination>-<date>" of a search call, and its date.
func searchKey(args json.RawMessage) (key, date string, ok bool) {
	var a struct {
		Origin      string `json:"origin"`
		Destination string `json:"destination"`
		Date        string `json:"date"`
	}
	if json.Unmarshal(args, &a) != nil || a.Origin == "" || a.Destination == "" || a.Date == "" {
		return "", "", false
	}
	return a.Origin + "-" + a.Destination + "-" + a.Date, a.Date, true
}

func flightPath(number, date string) string { return prefixFlights + number + "." + date }

// Typed ledger lookups for the predicates. Each returns nil (or "") when the
// record is absent or holds another type.

func ledgerUser(l *ledger.Ledger) *User {
	v, _ := l.Get(pathUser)
	u, _ := v.(*User)
	return u
}

func ledgerReservation(l *ledger.Ledger, id string) *Reservation {
	v, _ := l.Get(prefixReservations + id)
	r, _ := v.(*Reservation)
	return r
}

func ledgerFlight(l *ledger.Ledger, number, date string) *DirectFlight {
	v, _ := l.Get(flightPath(number, date))
	f, _ := v.(*DirectFlight)
	return f
}

// knownStatus is a flight date's status as the ledger shows it: a
// get_flight_status result, else "available" when a search listed it ("" when
// unknown).
func knownStatus(l *ledger.Ledger, number, date string) string {
	if v, ok := l.Get(prefixFlightStatus + number + "." + date); ok {
		if s, ok := v.(string); ok {
			return s
		}
	}
	if f := ledgerFlight(l, number, date); f != nil {
		return f.Status
	}
	return ""
}
