package v1airline

// LedgerAgent's tool path map for v1 airline: where each successful read
// return is stored in the ledger, as typed records.
//
//	read tool                arguments                  ledger path                                     value
//	-----------------------  -------------------------  ----------------------------------------------  --------------------------------------
//	get_user_details         user_id                    user                                            *User (membership, payment methods, ids)
//	get_reservation_details  reservation_id             reservations.<reservation_id>                   *Reservation
//	search_direct_flight     origin, destination, date  flights.<flight_number>.<date>                  *Flight (status, seats, prices, date)
//	                                                    searches.direct.<origin>-<destination>-<date>   []string (flight numbers found)
//	search_onestop_flight    origin, destination, date  flights.<flight_number>.<date>  (each leg)      *Flight
//	                                                    searches.onestop.<origin>-<destination>-<date>  []string ("HAT001+HAT002" per itinerary)
//	list_all_airports        -                          airports                                        map of code → city
//
// v1's user records do not carry their id: it comes from the call. A
// direct search's results carry no date (the call's is used); a one-stop
// search's carry each leg's. A search that finds nothing still records its
// key with an empty list. calculate, think and transfer_to_human_agents have
// no path; write returns are never stored (after a write the agent reads
// the record again). `user` is the last user read: the policy identifies a
// user by the id they give, so predicates treat it as the conversation's
// user (one user per conversation).

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
)

// User is a user record as get_user_details returns it, with its id.
type User struct {
	UserID         string                   `json:"user_id"`
	Membership     string                   `json:"membership"`
	PaymentMethods map[string]PaymentMethod `json:"payment_methods"`
	Reservations   []string                 `json:"reservations"`
}

// PaymentMethod is one of a user's payment methods; Amount is a gift card's
// balance or a certificate's value.
type PaymentMethod struct {
	Source string   `json:"source"`
	Amount *float64 `json:"amount,omitempty"`
	ID     string   `json:"id"`
}

// Reservation is a reservation record.
type Reservation struct {
	ReservationID   string      `json:"reservation_id"`
	UserID          string      `json:"user_id"`
	Origin          string      `json:"origin"`
	Destination     string      `json:"destination"`
	FlightType      string      `json:"flight_type"`
	Cabin           string      `json:"cabin"`
	Flights         []Leg       `json:"flights"`
	Passengers      []Passenger `json:"passengers"`
	PaymentHistory  []Payment   `json:"payment_history"`
	CreatedAt       string      `json:"created_at"`
	TotalBaggages   int         `json:"total_baggages"`
	NonfreeBaggages int         `json:"nonfree_baggages"`
	Insurance       string      `json:"insurance"`
	Status          string      `json:"status,omitempty"`
}

// Leg is one flight of a reservation.
type Leg struct {
	FlightNumber string  `json:"flight_number"`
	Date         string  `json:"date"`
	Price        float64 `json:"price"`
	Origin       string  `json:"origin"`
	Destination  string  `json:"destination"`
}

// Passenger is one passenger of a reservation.
type Passenger struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	DOB       string `json:"dob"`
}

// Payment is one entry of a reservation's payment history.
type Payment struct {
	PaymentID string  `json:"payment_id"`
	Amount    float64 `json:"amount"`
}

// Flight is one flight on one date as a search returns it.
type Flight struct {
	FlightNumber   string             `json:"flight_number"`
	Origin         string             `json:"origin"`
	Destination    string             `json:"destination"`
	Status         string             `json:"status"`
	AvailableSeats map[string]int     `json:"available_seats"`
	Prices         map[string]float64 `json:"prices"`
	Date           string             `json:"date"`
}

// Route implements ledger.Router: the static tool path map above. Outputs
// that do not decode as the tool's record give no entries.
func (d *Domain) Route(tool string, args json.RawMessage, output string) []ledger.Entry {
	switch tool {
	case "get_user_details":
		var a struct {
			UserID string `json:"user_id"`
		}
		var u User
		if json.Unmarshal(args, &a) != nil || a.UserID == "" || json.Unmarshal([]byte(output), &u) != nil || u.PaymentMethods == nil {
			return nil
		}
		u.UserID = a.UserID
		return []ledger.Entry{{Path: pathUser, Value: &u}}
	case "get_reservation_details":
		var r Reservation
		if err := json.Unmarshal([]byte(output), &r); err != nil || r.ReservationID == "" {
			return nil
		}
		return []ledger.Entry{{Path: prefixReservations + r.ReservationID, Value: &r}}
	case "search_direct_flight", "search_onestop_flight":
		var a struct {
			Origin      string `json:"origin"`
			Destination string `json:"destination"`
			Date        string `json:"date"`
		}
		if json.Unmarshal(args, &a) != nil || a.Origin == "" || a.Destination == "" || a.Date == "" {
			return nil
		}
		key := a.Origin + "-" + a.Destination + "-" + a.Date
		var its [][]*Flight
		if tool == "search_direct_flight" {
			var fs []*Flight
			if err := json.Unmarshal([]byte(output), &fs); err != nil {
				return nil
			}
			for _, f := range fs {
				if f != nil {
					f.Date = a.Date
				}
				its = append(its, []*Flight{f})
			}
			key = "direct." + key
		} else {
			if err := json.Unmarshal([]byte(output), &its); err != nil {
				return nil
			}
			key = "onestop." + key
		}
		found := make([]string, 0, len(its))
		var out []ledger.Entry
		seen := map[string]bool{}
		for _, it := range its {
			var nums []string
			for _, f := range it {
				if f == nil || f.FlightNumber == "" || f.Date == "" {
					return nil
				}
				nums = append(nums, f.FlightNumber)
				if p := flightPath(f.FlightNumber, f.Date); !seen[p] {
					seen[p] = true
					out = append(out, ledger.Entry{Path: p, Value: f})
				}
			}
			found = append(found, strings.Join(nums, "+"))
		}
		return append(out, ledger.Entry{Path: prefixSearches + key, Value: found})
	case "list_all_airports":
		var m map[string]string
		if err := json.Unmarshal([]byte(output), &m); err != nil {
			return nil
		}
		return []ledger.Entry{{Path: pathAirports, Value: m}}
	}
	return nil
}

func flightPath(number, date string) string { return prefixFlights + number + "." + date }

func ledgerUser(l *ledger.Ledger) *User { return ledger.Lookup[User](l, pathUser) }

func ledgerReservation(l *ledger.Ledger, id string) *Reservation {
	return ledger.Lookup[Reservation](l, prefixReservations+id)
}

func ledgerFlight(l *ledger.Ledger, number, date string) *Flight {
	return ledger.Lookup[Flight](l, flightPath(number, date))
}
