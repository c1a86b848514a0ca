package airline

// LedgerAgent's policy gate for airline: Go predicates over the typed ledger
// (see ledger.go for the paths), grouped per write tool. Each cites the
// heading of policy.md it enforces. Verdicts: REVISE when the call can be
// fixed (missing evidence → the read to make; a wrong payment method, amount,
// bag count, flight or argument type), BLOCK when policy leaves no valid
// alternative (another user's reservation or profile, a cancelled or flown
// reservation, no cancellation basis, basic economy flight changes, removing
// bags, changing the passenger count, no compensation due, a repeat).
//
//	rule                tools                               clause                   verdict
//	------------------  ----------------------------------  -----------------------  --------------------------------------
//	arguments           all six                             the tool's section       REVISE
//	user_read           book, update flights and baggages,  the tool's section       REVISE (get_user_details first)
//	                    send_certificate (profileFacts)
//	own_user            book, send_certificate              the tool's section       BLOCK
//	reservation_read    the four reservation tools          the tool's section       REVISE (get_reservation_details first)
//	own_reservation     the four reservation tools          the tool's section       BLOCK
//	not_cancelled       the four reservation tools          the tool's section       BLOCK
//	not_flown           cancel, update flights              the tool's section       BLOCK (REVISE: check a past flight)
//	basis               cancel                              Cancel flight            BLOCK (REVISE: check flight status)
//	basic_economy       update flights                      Modify flight            BLOCK (REVISE: change cabin first)
//	same_trip           update flights                      Modify flight            REVISE
//	cabin_all_segments  update flights                      Modify flight            REVISE
//	flights_searched    book, update flights                the tool's section       REVISE (search first / other flight)
//	passenger_limit     book                                Book flight              REVISE
//	route               book                                Book flight              REVISE
//	payment_methods     book                                Book flight              REVISE
//	payment_total       book                                Book flight              REVISE
//	baggage_allowance   book, update baggages               Book flight              REVISE
//	add_only            update baggages                     Modify flight            BLOCK
//	payment             update flights, update baggages     Modify flight            REVISE
//	passenger_count     update passengers                   Modify flight            BLOCK
//	compensation        send_certificate                    Refunds and Compensation REVISE / BLOCK
//	not_repeated        book, send_certificate              loop prevention          BLOCK
//
// The current time is the policy's 2024-05-15 15:00 EST. A reservation is the
// ledger's record corrected by the successful writes logged since it was read
// (cancel → cancelled; flight, cabin, bag and passenger updates → the new
// values), so a stale record neither re-opens nor blocks an action. A flight
// date before 2024-05-15 counts as flown unless the ledger shows it cancelled
// by the airline; on 2024-05-15 only a flying or landed status does.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Write tool names.
const (
	toolBook        = "book_reservation"
	toolCancel      = "cancel_reservation"
	toolBaggages    = "update_reservation_baggages"
	toolFlights     = "update_reservation_flights"
	toolPassengers  = "update_reservation_passengers"
	toolCertificate = "send_certificate"
)

// Policy headings cited by the predicates (exact headings of policy.md).
const (
	clauseBook         = "Book flight"
	clauseModify       = "Modify flight"
	clauseCancel       = "Cancel flight"
	clauseCompensation = "Refunds and Compensation"
	// clauseLoop names a rule, not a heading.
	clauseLoop = "loop prevention"
)

// Policy facts.
const (
	today         = "2024-05-15"
	bookingWindow = "2024-05-14T15:00:00" // created at or after: within 24 h of now
	maxPassengers = 5
)

// The gate judges a write on its tool's own argument struct (tools.go),
// decoded once per call by the tool set as the tool would decode it, and
// checked for the documented types (DecodeArgs): strings where the schema
// says string (one of the listed values where it lists them), JSON integers
// for bag counts, a positive number for a certificate, lists of objects whose
// fields have those types. Logged writes are read from the same structs in
// the write log. Predicates shared by several tools read them through the
// accessors and interfaces below; on values DecodeArgs did not check they
// give zero values, never a panic.

// reservationCall is a call on one reservation: cancel and the three
// updates.
type reservationCall interface{ reservationID() string }

// userCall is a call for one user: book and send_certificate.
type userCall interface{ userID() string }

// paidChange is a change paid or refunded with one payment method: the
// flight and the bag updates.
type paidChange interface {
	reservationCall
	paymentID() string
}

// flightChoice is a call that names flights in a cabin: book and the flight
// update.
type flightChoice interface {
	cabin() string
	flights() []FlightInfo
}

// bagCounts is a call that sets the checked bags: book and the bag update.
type bagCounts interface {
	totalBaggages() int
	nonfreeBaggages() int
}

func (a *reservationArgs) reservationID() string      { return a.ReservationID.Text() }
func (a *baggagesArgs) reservationID() string         { return a.ReservationID.Text() }
func (a *flightsUpdateArgs) reservationID() string    { return a.ReservationID.Text() }
func (a *passengersUpdateArgs) reservationID() string { return a.ReservationID.Text() }

func (a *bookArgs) userID() string        { return a.UserID.Text() }
func (a *certificateArgs) userID() string { return a.UserID.Text() }

func (a *baggagesArgs) paymentID() string      { return a.PaymentID.Text() }
func (a *flightsUpdateArgs) paymentID() string { return a.PaymentID.Text() }

func (a *bookArgs) cabin() string                  { return a.Cabin.Text() }
func (a *bookArgs) flights() []FlightInfo          { return a.Flights.list() }
func (a *flightsUpdateArgs) cabin() string         { return a.Cabin.Text() }
func (a *flightsUpdateArgs) flights() []FlightInfo { return a.Flights.list() }

func (a *bookArgs) totalBaggages() int       { return countOf(a.TotalBaggages.V) }
func (a *bookArgs) nonfreeBaggages() int     { return countOf(a.NonfreeBaggages.V) }
func (a *baggagesArgs) totalBaggages() int   { return countOf(a.TotalBaggages.V) }
func (a *baggagesArgs) nonfreeBaggages() int { return countOf(a.NonfreeBaggages.V) }

// amount is the certificate's amount.
func (a *certificateArgs) amount() float64 { return numberOf(a.Amount.V) }

// countOf is an integer argument (0 for another value).
func countOf(v any) int {
	n, _ := v.(json.Number)
	i, _ := strconv.Atoi(string(n))
	return i
}

// numberOf is a numeric argument (0 for another value).
func numberOf(v any) float64 {
	n, _ := v.(json.Number)
	f, _ := strconv.ParseFloat(string(n), 64)
	return f
}

// itemsOf reads a list argument item by item (a missing or null item or
// field, or one of another type, reads as its zero value).
func itemsOf[T any](v any, item func(d *pyjson.Dict) T) []T {
	list, _ := v.([]any)
	out := make([]T, len(list))
	for i, it := range list {
		d, _ := it.(*pyjson.Dict)
		out[i] = item(d)
	}
	return out
}

// field is a string field of a list item ("" for another value).
func field(d *pyjson.Dict, name string) string {
	v, _ := d.Get(name)
	s, _ := v.(string)
	return s
}

func (a flightsArg) list() []FlightInfo {
	return itemsOf(a.V, func(d *pyjson.Dict) FlightInfo {
		return FlightInfo{FlightNumber: field(d, "flight_number"), Date: field(d, "date")}
	})
}

func (a passengersArg) list() []Passenger {
	return itemsOf(a.V, func(d *pyjson.Dict) Passenger {
		return Passenger{FirstName: field(d, "first_name"), LastName: field(d, "last_name"), DOB: field(d, "dob")}
	})
}

func (a paymentsArg) list() []Payment {
	return itemsOf(a.V, func(d *pyjson.Dict) Payment {
		n, _ := d.Get("amount")
		return Payment{PaymentID: field(d, "payment_id"), Amount: countOf(n)}
	})
}

// argRules are what the gate asks of a write's arguments beyond their
// documented types (tool.CheckTypes; enums come from the argument structs'
// tags): JSON integers for bag counts, a positive number for a certificate,
// lists of objects whose fields have their types.
var argRules = []tool.Rule{
	tool.Objects("flights", true, tool.Field{Name: "flight_number", Type: "str"}, tool.Field{Name: "date", Type: "str"}),
	tool.Objects("passengers", false, tool.Field{Name: "first_name", Type: "str"}, tool.Field{Name: "last_name", Type: "str"}, tool.Field{Name: "dob", Type: "str"}),
	tool.Objects("payment_methods", false, tool.Field{Name: "payment_id", Type: "str"}, tool.Field{Name: "amount", Type: "int"}),
	tool.NonNegative("total_baggages"),
	tool.NonNegative("nonfree_baggages"),
	tool.Positive("amount"),
}

func q(s string) string { return pyjson.ReprString(s) }

// decodeArgs decodes a write's arguments as its tool does and checks their
// types.
func (d *Domain) decodeArgs(name string, raw json.RawMessage) (any, error) {
	a, err := d.Toolset().Decode(name, raw)
	if err != nil {
		return nil, err
	}
	if err := tool.CheckTypes(a, argRules...); err != nil {
		return nil, err
	}
	return a, nil
}

// predicate is the rule airline.<tool>.<rule> over the tool's arguments A (its
// argument struct pointer or an accessor interface).
func predicate[A any](tool, rule, clause string, check func(c ledger.Call[A]) ledger.Outcome) ledger.Predicate {
	return ledger.Rule("airline", tool, rule, clause, check)
}

// DecodeArgs implements ledgeragent.Policy: a write's arguments decoded
// once, by its tool, for all its predicates.
func (d *Domain) DecodeArgs(tool string, raw json.RawMessage) (any, *ledger.Failure) {
	return ledger.DecodeTool("airline", tool, raw, d.decodeArgs, argsClause)
}

// argsClause is the policy section of a write tool's arguments.
func argsClause(tool string) string {
	switch tool {
	case toolBook:
		return clauseBook
	case toolCancel:
		return clauseCancel
	case toolBaggages, toolFlights, toolPassengers:
		return clauseModify
	case toolCertificate:
		return clauseCompensation
	}
	return ""
}

// GatePredicates implements ledgeragent.Policy: the predicates of the six
// write tools.
func (d *Domain) GatePredicates() []ledger.Predicate {
	var out []ledger.Predicate
	resTool := func(tool, clause string, extra ...ledger.Predicate) {
		if profileFacts[tool] != "" {
			out = append(out, predicate(tool, "user_read", clause, checkUserRead))
		}
		out = append(out,
			predicate(tool, "reservation_read", clause, checkReservationRead),
			predicate(tool, "own_reservation", clause, checkOwnReservation),
			predicate(tool, "not_cancelled", clause, checkNotCancelled),
		)
		out = append(out, extra...)
	}
	out = append(out,
		predicate(toolBook, "user_read", clauseBook, checkUserRead),
		predicate(toolBook, "own_user", clauseBook, checkOwnUser),
		predicate(toolBook, "passenger_limit", clauseBook, checkPassengerLimit),
		predicate(toolBook, "flights_searched", clauseBook, checkFlightsSearched),
		predicate(toolBook, "route", clauseBook, checkRoute),
		predicate(toolBook, "payment_methods", clauseBook, checkBookPayments),
		predicate(toolBook, "payment_total", clauseBook, checkBookTotal),
		predicate(toolBook, "baggage_allowance", clauseBook, checkBaggageAllowance),
		predicate(toolBook, "not_repeated", clauseLoop, checkNotRepeated),
	)
	resTool(toolCancel, clauseCancel,
		predicate(toolCancel, "not_flown", clauseCancel, checkNotFlown),
		predicate(toolCancel, "basis", clauseCancel, checkCancelBasis))
	resTool(toolFlights, clauseModify,
		predicate(toolFlights, "not_flown", clauseModify, checkNotFlown),
		predicate(toolFlights, "basic_economy", clauseModify, checkBasicEconomy),
		predicate(toolFlights, "same_trip", clauseModify, checkSameTrip),
		predicate(toolFlights, "cabin_all_segments", clauseModify, checkCabinAllSegments),
		predicate(toolFlights, "flights_searched", clauseModify, checkFlightsSearched),
		predicate(toolFlights, "payment", clauseModify, checkUpdatePayment))
	resTool(toolBaggages, clauseModify,
		predicate(toolBaggages, "add_only", clauseModify, checkAddOnly),
		predicate(toolBaggages, "baggage_allowance", clauseBook, checkBaggageAllowance),
		predicate(toolBaggages, "payment", clauseModify, checkUpdatePayment))
	resTool(toolPassengers, clauseModify,
		predicate(toolPassengers, "passenger_count", clauseModify, checkPassengerCount))
	out = append(out,
		predicate(toolCertificate, "user_read", clauseCompensation, checkUserRead),
		predicate(toolCertificate, "own_user", clauseCompensation, checkOwnUser),
		predicate(toolCertificate, "compensation", clauseCompensation, checkCompensation),
		predicate(toolCertificate, "not_repeated", clauseLoop, checkNotRepeated),
	)
	return out
}

// --- the ledger, corrected by the write log -------------------------------

// loggedReservation is the reservation a logged write acted on ("" for a
// booking, a certificate, or arguments that did not decode).
func loggedReservation(w ledger.WriteRecord) string {
	if a, ok := w.Decoded.(reservationCall); ok {
		return a.reservationID()
	}
	return ""
}

// effectiveReservation is reservation id from the ledger corrected by the
// successful writes logged on it since it was read (nil when not read).
func effectiveReservation(l *ledger.Ledger, id string) *Reservation {
	r := ledgerReservation(l, id)
	if r == nil {
		return nil
	}
	var e *Reservation
	read := l.Seq(prefixReservations + id)
	for _, w := range l.Writes() {
		if !w.Done || !w.Succeeded || w.Seq < read || loggedReservation(w) != id {
			continue // a record read after the write already shows it
		}
		if e == nil {
			e = cloneReservation(r)
		}
		switch a := w.Decoded.(type) {
		case *reservationArgs: // cancel_reservation
			s := StatusCancelled
			e.Status = &s
		case *flightsUpdateArgs:
			cabin := a.cabin()
			var fs []ReservationFlight
			for _, f := range a.flights() {
				rf := ReservationFlight{FlightNumber: f.FlightNumber, Date: f.Date}
				if j := segmentIndex(e.Flights, f); j >= 0 && cabin == e.Cabin {
					rf = e.Flights[j]
				} else if lf := ledgerFlight(l, f.FlightNumber, f.Date); lf != nil {
					rf.Origin, rf.Destination = lf.Origin, lf.Destination
					if p, ok := lf.Prices.At(cabin); ok {
						rf.Price = *p
					}
				} else if j >= 0 {
					rf.Origin, rf.Destination = e.Flights[j].Origin, e.Flights[j].Destination
				}
				fs = append(fs, rf)
			}
			e.Flights, e.Cabin = fs, cabin
		case *baggagesArgs:
			e.TotalBaggages, e.NonfreeBaggages = Int(int64(a.totalBaggages())), Int(int64(a.nonfreeBaggages()))
		case *passengersUpdateArgs:
			e.Passengers = a.Passengers.list()
		}
	}
	if e == nil {
		return r
	}
	return e
}

func segmentIndex(fs []ReservationFlight, f FlightInfo) int {
	return slices.IndexFunc(fs, func(rf ReservationFlight) bool {
		return rf.FlightNumber == f.FlightNumber && rf.Date == f.Date
	})
}

// ownedReservation is reservation id (corrected by the write log) when the
// user is read and owns it.
func ownedReservation(l *ledger.Ledger, id string) *Reservation {
	u := ledgerUser(l)
	r := effectiveReservation(l, id)
	if u == nil || r == nil || r.UserID != u.UserID {
		return nil
	}
	return r
}

// activeReservation is ownedReservation when it is not cancelled.
func activeReservation(l *ledger.Ledger, id string) *Reservation {
	r := ownedReservation(l, id)
	if r == nil || (r.Status != nil && *r.Status == StatusCancelled) {
		return nil
	}
	return r
}

// flown reports whether a reservation flight has already been flown (or is
// in the air) and whether the ledger lacks the status to tell.
func flown(l *ledger.Ledger, number, date string) (yes, unknown bool) {
	st := knownStatus(l, number, date)
	switch {
	case st == StatusFlying || st == StatusLanded:
		return true, false
	case date < today:
		if st == StatusCancelled {
			return false, false
		}
		return st == "" || st != StatusAvailable, st == ""
	}
	return false, false
}

func freeBagsPer(membership, cabin string) int {
	base := map[string]int{"basic_economy": 0, "economy": 1, "business": 2}[cabin]
	switch membership {
	case "silver":
		return base + 1
	case "gold":
		return base + 2
	}
	return base
}

func money(n float64) string {
	if n == float64(int64(n)) {
		return fmt.Sprintf("$%d", int64(n))
	}
	return "$" + pyjson.FormatFixed(n, 2)
}

// --- predicates -----------------------------------------------------------

// profileFacts names what each write's rules read from the user's profile;
// a write whose rules read nothing there (cancel, passenger changes) asks
// for no profile read.
var profileFacts = map[string]string{
	toolBook:        "the payment methods (all must already be in the profile) and the membership level (free bag allowance)",
	toolFlights:     "the payment methods (the payment or refund method must already be in the profile)",
	toolBaggages:    "the membership level (free bag allowance) and the payment methods (the payment method must already be in the profile)",
	toolCertificate: "the membership level (only silver/gold members, insured or business travellers are compensated) and the reservations",
}

// checkUserRead guards the user tools (userCall) and the reservation tools
// (reservationCall).
func checkUserRead(c ledger.Call[any]) ledger.Outcome {
	if ledgerUser(c.Ledger) != nil {
		return ledger.OK
	}
	hint := "ask the user for their user id and call get_user_details first"
	switch a := c.Args.(type) {
	case userCall:
		if a.userID() != "" {
			hint = fmt.Sprintf("call get_user_details(user_id=%s) first", q(a.userID()))
		}
	case reservationCall:
		if r := ledgerReservation(c.Ledger, a.reservationID()); r != nil {
			hint = fmt.Sprintf("obtain the user id from the user and call get_user_details(user_id=%s) first", q(r.UserID))
		}
	}
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, %s depends on %s of the user's profile, which has not been read: %s.", c.Tool, profileFacts[c.Tool], hint))
}

func checkOwnUser(c ledger.Call[userCall]) ledger.Outcome {
	u := ledgerUser(c.Ledger)
	if u == nil || u.UserID == c.Args.userID() {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, you can only act for the user %s in this conversation; %s is another user.", u.UserID, q(c.Args.userID())))
}

func checkReservationRead(c ledger.Call[reservationCall]) ledger.Outcome {
	id := c.Args.reservationID()
	if ledgerReservation(c.Ledger, id) != nil {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, check reservation %s before acting on it: call get_reservation_details(reservation_id=%s) first.", id, q(id)))
}

func checkOwnReservation(c ledger.Call[reservationCall]) ledger.Outcome {
	u := ledgerUser(c.Ledger)
	r := effectiveReservation(c.Ledger, c.Args.reservationID())
	if u == nil || r == nil || r.UserID == u.UserID {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, you can only act on reservations of the user %s; reservation %s belongs to another user (%s).", u.UserID, r.ReservationID, r.UserID))
}

func checkNotCancelled(c ledger.Call[reservationCall]) ledger.Outcome {
	r := ownedReservation(c.Ledger, c.Args.reservationID())
	if r == nil || r.Status == nil || *r.Status != StatusCancelled {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Reservation %s is already cancelled; it cannot be cancelled or modified.", r.ReservationID))
}

func checkNotFlown(c ledger.Call[reservationCall]) ledger.Outcome {
	r := activeReservation(c.Ledger, c.Args.reservationID())
	if r == nil {
		return ledger.OK
	}
	var kept []FlightInfo // segments kept in the same cabin are not modified
	if a, ok := c.Args.(*flightsUpdateArgs); ok && a.cabin() == r.Cabin {
		kept = a.flights()
	}
	var done, unknown []string
	for _, f := range r.Flights {
		if slices.Contains(kept, FlightInfo{FlightNumber: f.FlightNumber, Date: f.Date}) {
			continue
		}
		yes, unk := flown(c.Ledger, f.FlightNumber, f.Date)
		switch {
		case unk:
			unknown = append(unknown, fmt.Sprintf("get_flight_status(flight_number=%s, date=%s)", q(f.FlightNumber), q(f.Date)))
		case yes:
			done = append(done, f.FlightNumber+" on "+f.Date)
		}
	}
	if len(done) > 0 {
		if c.Tool == toolCancel {
			return ledger.Refuse(fmt.Sprintf("Per airline policy, reservation %s cannot be cancelled: part of it has already been flown (%s); the agent cannot help, transfer the user to a human agent.", r.ReservationID, strings.Join(done, ", ")))
		}
		return ledger.Refuse(fmt.Sprintf("Per airline policy, flights or cabin of reservation %s cannot be changed: part of it has already been flown (%s).", r.ReservationID, strings.Join(done, ", ")))
	}
	if len(unknown) > 0 {
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, a reservation with flights already flown cannot be changed or cancelled; reservation %s has flights before %s: check them first: call %s.", r.ReservationID, today, strings.Join(unknown, ", ")))
	}
	return ledger.OK
}

func checkCancelBasis(c ledger.Call[*reservationArgs]) ledger.Outcome {
	r := activeReservation(c.Ledger, c.Args.reservationID())
	if r == nil {
		return ledger.OK
	}
	if r.CreatedAt >= bookingWindow || r.Cabin == "business" || r.Insurance == "yes" {
		return ledger.OK
	}
	var unknown []string
	for _, f := range r.Flights {
		switch knownStatus(c.Ledger, f.FlightNumber, f.Date) {
		case StatusCancelled:
			return ledger.OK
		case "":
			unknown = append(unknown, fmt.Sprintf("get_flight_status(flight_number=%s, date=%s)", q(f.FlightNumber), q(f.Date)))
		}
	}
	if len(unknown) > 0 {
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, reservation %s (%s) was booked more than 24 hours ago and has no travel insurance: it can only be cancelled if the airline cancelled a flight. Check first: call %s.", r.ReservationID, r.Cabin, strings.Join(unknown, ", ")))
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, reservation %s (%s) cannot be cancelled outside the 24-hour booking window without travel insurance and without an airline-cancelled flight.", r.ReservationID, r.Cabin))
}

// flightsChange reports whether the proposed flights differ from the
// reservation's (as a set of flight number and date).
func flightsChange(r *Reservation, fs []FlightInfo) bool {
	if len(fs) != len(r.Flights) {
		return true
	}
	for _, f := range fs {
		if segmentIndex(r.Flights, f) < 0 {
			return true
		}
	}
	return false
}

func checkBasicEconomy(c ledger.Call[*flightsUpdateArgs]) ledger.Outcome {
	r := activeReservation(c.Ledger, c.Args.reservationID())
	if r == nil || r.Cabin != "basic_economy" {
		return ledger.OK
	}
	fs, cabin := c.Args.flights(), c.Args.cabin()
	if !flightsChange(r, fs) {
		return ledger.OK
	}
	if cabin != "basic_economy" && !hasNewFlight(r, fs) {
		return ledger.OK // cabin_all_segments reports dropped segments
	}
	if cabin != "basic_economy" {
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, basic economy flights cannot be modified: reservation %s is basic_economy. Change its cabin first, keeping its flights (%s), and only then its flights.", r.ReservationID, segments(r)))
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, basic economy flights cannot be modified: reservation %s is basic_economy, so its flights (%s) cannot be changed.", r.ReservationID, segments(r)))
}

func hasNewFlight(r *Reservation, fs []FlightInfo) bool {
	return slices.ContainsFunc(fs, func(f FlightInfo) bool { return segmentIndex(r.Flights, f) < 0 })
}

func segments(r *Reservation) string {
	var s []string
	for _, f := range r.Flights {
		s = append(s, f.FlightNumber+" "+f.Date)
	}
	return strings.Join(s, ", ")
}

// legEnds returns a proposed flight's origin and destination from the
// reservation or the searches in the ledger.
func legEnds(l *ledger.Ledger, r *Reservation, f FlightInfo) (from, to string, ok bool) {
	if r != nil {
		if j := segmentIndex(r.Flights, f); j >= 0 {
			return r.Flights[j].Origin, r.Flights[j].Destination, true
		}
	}
	if lf := ledgerFlight(l, f.FlightNumber, f.Date); lf != nil {
		return lf.Origin, lf.Destination, true
	}
	return "", "", false
}

// tripProblem checks that flights go from origin to destination (and back for
// a round trip), each leg leaving from where the previous one arrived.
func tripProblem(l *ledger.Ledger, r *Reservation, fs []FlightInfo, origin, destination, flightType string) (string, bool) {
	var stops []string
	for i, f := range fs {
		from, to, ok := legEnds(l, r, f)
		if !ok {
			return "", false // flights_searched asks for the search
		}
		if i > 0 && from != stops[len(stops)-1] {
			return fmt.Sprintf("flight %s leaves from %s but the previous flight arrives at %s", f.FlightNumber, from, stops[len(stops)-1]), true
		}
		if i == 0 {
			stops = append(stops, from)
		}
		stops = append(stops, to)
	}
	if len(stops) == 0 {
		return "", true
	}
	end := destination
	if flightType == "round_trip" {
		end = origin
	}
	switch {
	case stops[0] != origin:
		return fmt.Sprintf("the trip must start at %s, not %s", origin, stops[0]), true
	case stops[len(stops)-1] != end:
		return fmt.Sprintf("the trip must end at %s, not %s", end, stops[len(stops)-1]), true
	case flightType == "round_trip" && !slices.Contains(stops[1:len(stops)-1], destination):
		return fmt.Sprintf("a round trip must reach %s before returning", destination), true
	}
	return "", true
}

func checkSameTrip(c ledger.Call[*flightsUpdateArgs]) ledger.Outcome {
	r := activeReservation(c.Ledger, c.Args.reservationID())
	if r == nil {
		return ledger.OK
	}
	if p, _ := tripProblem(c.Ledger, r, c.Args.flights(), r.Origin, r.Destination, r.FlightType); p != "" {
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, reservation %s can be modified without changing its origin (%s), destination (%s) and trip type (%s): %s.", r.ReservationID, r.Origin, r.Destination, r.FlightType, p))
	}
	return ledger.OK
}

func checkCabinAllSegments(c ledger.Call[*flightsUpdateArgs]) ledger.Outcome {
	r := activeReservation(c.Ledger, c.Args.reservationID())
	if r == nil || c.Args.cabin() == r.Cabin {
		return ledger.OK
	}
	if fs := c.Args.flights(); hasNewFlight(r, fs) || !flightsChange(r, fs) {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, the cabin must be the same across all flights of reservation %s: a cabin change applies to every segment (%s); include them all.", r.ReservationID, segments(r)))
}

func checkRoute(c ledger.Call[*bookArgs]) ledger.Outcome {
	origin, destination, flightType := c.Args.Origin.Text(), c.Args.Destination.Text(), c.Args.FlightType.Text()
	if p, _ := tripProblem(c.Ledger, nil, c.Args.flights(), origin, destination, flightType); p != "" {
		return ledger.NeedRevise(fmt.Sprintf("The flights must make a %s trip from %s to %s: %s.", flightType, origin, destination, p))
	}
	return ledger.OK
}

func checkPassengerLimit(c ledger.Call[*bookArgs]) ledger.Outcome {
	switch n := len(c.Args.Passengers.list()); {
	case n == 0:
		return ledger.NeedRevise("Per airline policy, collect the first name, last name and date of birth of each passenger; the passenger list is empty.")
	case n > maxPassengers:
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, each reservation can have at most five passengers; this booking has %d.", n))
	}
	return ledger.OK
}

// chosenFlights lists the proposed flights the agent chose, which must come
// from a search: all for a booking (r nil); for a change, the new segments
// only (a cabin change keeps its flights and chooses none; the API prices it
// and checks its seats).
func chosenFlights(fs []FlightInfo, r *Reservation) []FlightInfo {
	if r == nil {
		return fs
	}
	var out []FlightInfo
	for _, f := range fs {
		if segmentIndex(r.Flights, f) < 0 {
			out = append(out, f)
		}
	}
	return out
}

// checkFlightsSearched guards a booking (the passengers it names) and a
// flight change (the reservation's passengers).
func checkFlightsSearched(c ledger.Call[flightChoice]) ledger.Outcome {
	var r *Reservation
	n := 0
	switch a := c.Args.(type) {
	case *bookArgs:
		n = len(a.Passengers.list())
	case *flightsUpdateArgs:
		if r = activeReservation(c.Ledger, a.reservationID()); r == nil {
			return ledger.OK
		}
		n = len(r.Passengers)
	}
	cabin := c.Args.cabin()
	var missing, bad []string
	for _, f := range chosenFlights(c.Args.flights(), r) {
		lf := ledgerFlight(c.Ledger, f.FlightNumber, f.Date)
		if lf == nil {
			missing = append(missing, f.FlightNumber+" on "+f.Date)
			continue
		}
		if st := knownStatus(c.Ledger, f.FlightNumber, f.Date); st != StatusAvailable {
			bad = append(bad, fmt.Sprintf("%s on %s is %s, not available", f.FlightNumber, f.Date, q(st)))
			continue
		}
		if seats, ok := lf.AvailableSeats.At(cabin); ok && *seats < n {
			bad = append(bad, fmt.Sprintf("%s on %s has %d %s seats left for %d passengers", f.FlightNumber, f.Date, *seats, cabin, n))
		}
	}
	switch {
	case len(bad) > 0:
		return ledger.NeedRevise("Per airline policy, only available flights with enough seats can be booked: " + strings.Join(bad, "; ") + ". Choose other flights.")
	case len(missing) > 0:
		return ledger.NeedRevise("The flights chosen must come from a search on their date, so that availability, seats and price are known: search first (search_direct_flight or search_onestop_flight) for " + strings.Join(missing, ", ") + ".")
	}
	return ledger.OK
}

// bookTotal is the booking's price, if the ledger has every flight's price.
func bookTotal(l *ledger.Ledger, a *bookArgs) (int, bool) {
	n := len(a.Passengers.list())
	cabin := a.cabin()
	total := 0
	for _, f := range a.flights() {
		lf := ledgerFlight(l, f.FlightNumber, f.Date)
		if lf == nil {
			return 0, false
		}
		p, ok := lf.Prices.At(cabin)
		if !ok {
			return 0, false
		}
		total += *p * n
	}
	if a.Insurance.Text() == "yes" {
		total += 30 * n
	}
	return total + 50*a.nonfreeBaggages(), true
}

func paymentIDs(u *User) []string { return u.PaymentMethods.Keys() }

// balanceStale reports whether a write sent since the user's profile was
// read may have changed the balance of payment method id: a charge or refund
// on it (booking, flight or bag change) or a cancellation refunding it. The
// balance as last read then proves nothing (the API checks the current one).
func balanceStale(l *ledger.Ledger, id string) bool {
	read := l.Seq(pathUser)
	for _, w := range l.Writes() {
		if w.Seq < read || (w.Done && !w.Succeeded) {
			continue
		}
		switch a := w.Decoded.(type) {
		case paidChange:
			if a.paymentID() == id {
				return true
			}
		case *bookArgs:
			if slices.ContainsFunc(a.PaymentMethods.list(), func(p Payment) bool { return p.PaymentID == id }) {
				return true
			}
		case *reservationArgs: // cancel_reservation
			r := ledgerReservation(l, a.reservationID())
			if r == nil || slices.ContainsFunc(r.PaymentHistory, func(p Payment) bool { return p.PaymentID == id }) {
				return true
			}
		}
	}
	return false
}

func checkBookPayments(c ledger.Call[*bookArgs]) ledger.Outcome {
	u := ledgerUser(c.Ledger)
	if u == nil || u.UserID != c.Args.userID() {
		return ledger.OK
	}
	var bad []string
	count := map[string]int{}
	for _, p := range c.Args.PaymentMethods.list() {
		pm, ok := u.PaymentMethods.Get(p.PaymentID)
		if !ok || pm == nil {
			bad = append(bad, fmt.Sprintf("%s is not among the user's payment methods %s", q(p.PaymentID), pyjson.Repr(paymentIDs(u))))
			continue
		}
		count[pm.PaymentSource()]++
		if bal, ok := balance(pm); ok && bal < float64(p.Amount) && !balanceStale(c.Ledger, p.PaymentID) {
			bad = append(bad, fmt.Sprintf("%s has only %s, less than %s", q(p.PaymentID), money(bal), money(float64(p.Amount))))
		}
		if p.Amount < 0 {
			bad = append(bad, fmt.Sprintf("the amount for %s is negative", q(p.PaymentID)))
		}
	}
	if count[SourceCertificate] > 1 || count[SourceCreditCard] > 1 || count[SourceGiftCard] > 3 {
		bad = append(bad, fmt.Sprintf("a reservation can use at most one travel certificate, one credit card and three gift cards (got %d, %d and %d)", count[SourceCertificate], count[SourceCreditCard], count[SourceGiftCard]))
	}
	if len(bad) > 0 {
		return ledger.NeedRevise("Per airline policy, all payment methods must already be in the user's profile: " + strings.Join(bad, "; ") + ".")
	}
	return ledger.OK
}

func checkBookTotal(c ledger.Call[*bookArgs]) ledger.Outcome {
	total, ok := bookTotal(c.Ledger, c.Args)
	if !ok {
		return ledger.OK
	}
	paid := 0
	for _, p := range c.Args.PaymentMethods.list() {
		paid += p.Amount
	}
	if paid == total {
		return ledger.OK
	}
	nonfree := c.Args.nonfreeBaggages()
	return ledger.NeedRevise(fmt.Sprintf("The payments must add up to the total price: %s for %d passenger(s) in %s%s, plus %s for %d paid bag(s); they add up to %s.", money(float64(total)), len(c.Args.Passengers.list()), c.Args.cabin(), insuranceNote(c.Args), money(float64(50*nonfree)), nonfree, money(float64(paid))))
}

func insuranceNote(a *bookArgs) string {
	if a.Insurance.Text() == "yes" {
		return " with insurance ($30 per passenger)"
	}
	return ""
}

// checkBaggageAllowance guards a booking (its cabin and passengers) and a
// bag update (the reservation's).
func checkBaggageAllowance(c ledger.Call[bagCounts]) ledger.Outcome {
	u := ledgerUser(c.Ledger)
	if u == nil {
		return ledger.OK
	}
	var cabin, who string
	var n int
	switch a := c.Args.(type) {
	case *bookArgs:
		if u.UserID != a.userID() {
			return ledger.OK
		}
		cabin, n, who = a.cabin(), len(a.Passengers.list()), "booking"
	case *baggagesArgs:
		r := activeReservation(c.Ledger, a.reservationID())
		if r == nil {
			return ledger.OK
		}
		cabin, n, who = r.Cabin, len(r.Passengers), "reservation "+r.ReservationID
	}
	total, nonfree := c.Args.totalBaggages(), c.Args.nonfreeBaggages()
	free := freeBagsPer(u.Membership, cabin) * n
	want := max(0, total-free)
	if nonfree == want {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, a %s member gets %d free checked bag(s) per %s passenger: the %s (%d passenger(s)) has %d free bag(s), so %d total bag(s) means %d non-free bag(s), not %d.", u.Membership, freeBagsPer(u.Membership, cabin), cabin, who, n, free, total, want, nonfree))
}

func checkAddOnly(c ledger.Call[*baggagesArgs]) ledger.Outcome {
	r := activeReservation(c.Ledger, c.Args.reservationID())
	if r == nil {
		return ledger.OK
	}
	// The rule is about bags, not the paid count: a lower non-free count
	// with more bags (a membership upgrade) removes none.
	total := c.Args.totalBaggages()
	if float64(total) >= r.TotalBaggages.Float64() {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, checked bags can be added but not removed: reservation %s has %s bag(s); you asked for %d.", r.ReservationID, r.TotalBaggages, total))
}

// updateCost is what a change of reservation r costs (negative: a refund),
// if known.
func updateCost(l *ledger.Ledger, a paidChange, r *Reservation) (int, bool) {
	n := len(r.Passengers)
	u, ok := a.(*flightsUpdateArgs)
	if !ok { // update_reservation_baggages
		return 50 * max(0, a.(*baggagesArgs).nonfreeBaggages()-int(r.NonfreeBaggages.Float64())), true
	}
	cabin := u.cabin()
	total := 0
	for _, f := range u.flights() {
		if j := segmentIndex(r.Flights, f); j >= 0 && r.Cabin == cabin {
			total += r.Flights[j].Price * n
			continue
		}
		lf := ledgerFlight(l, f.FlightNumber, f.Date)
		if lf == nil {
			return 0, false
		}
		p, ok := lf.Prices.At(cabin)
		if !ok {
			return 0, false
		}
		total += *p * n
	}
	for _, f := range r.Flights {
		total -= f.Price * n
	}
	return total, true
}

func checkUpdatePayment(c ledger.Call[paidChange]) ledger.Outcome {
	r := activeReservation(c.Ledger, c.Args.reservationID())
	u := ledgerUser(c.Ledger)
	if r == nil || u == nil {
		return ledger.OK
	}
	id := c.Args.paymentID()
	pm, ok := u.PaymentMethods.Get(id)
	if !ok || pm == nil {
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, the payment method must already be in the user's profile: %s is not among %s.", q(id), pyjson.Repr(paymentIDs(u))))
	}
	if pm.PaymentSource() == SourceCertificate {
		var ok []string
		for id, m := range u.PaymentMethods.All() {
			if m.PaymentSource() != SourceCertificate {
				ok = append(ok, id)
			}
		}
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, changes are paid or refunded with a single gift card or credit card, not a travel certificate (%s); the user has %s.", q(id), pyjson.Repr(ok)))
	}
	if g, isGift := pm.(*GiftCard); isGift {
		if cost, known := updateCost(c.Ledger, c.Args, r); known && float64(cost) > g.Amount && !balanceStale(c.Ledger, id) {
			return ledger.NeedRevise(fmt.Sprintf("Gift card %s has %s, less than the %s this change costs; choose another payment method.", q(id), money(g.Amount), money(float64(cost))))
		}
	}
	return ledger.OK
}

func checkPassengerCount(c ledger.Call[*passengersUpdateArgs]) ledger.Outcome {
	r := activeReservation(c.Ledger, c.Args.reservationID())
	n := len(c.Args.Passengers.list())
	if r == nil || n == len(r.Passengers) {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, passengers can be modified but not their number, even by a human agent: reservation %s has %d passenger(s), not %d.", r.ReservationID, len(r.Passengers), n))
}

// modifiedOrCancelled reports whether a change or cancellation of the
// reservation succeeded in this conversation.
func modifiedOrCancelled(l *ledger.Ledger, id string) bool {
	for _, w := range l.Writes() {
		if w.Done && w.Succeeded && loggedReservation(w) == id {
			return true
		}
	}
	return false
}

// checkCompensation judges a certificate against the user's reservations
// as they were read, before any change logged since: the delay or
// cancellation the user complains about is a fact of the trip as booked, and
// the $50 case comes only after the reservation was changed or cancelled.
func checkCompensation(c ledger.Call[*certificateArgs]) ledger.Outcome {
	u := ledgerUser(c.Ledger)
	if u == nil || u.UserID != c.Args.userID() {
		return ledger.OK
	}
	var allowed []string
	amounts := map[float64]bool{}
	var ineligible, delayedPending, unknown, unread []string
	for _, id := range u.Reservations {
		r := ledgerReservation(c.Ledger, id)
		if r == nil {
			unread = append(unread, id)
			continue
		}
		if r.UserID != u.UserID {
			continue
		}
		cancelled, delayed := false, false
		var unk []string
		for _, f := range r.Flights {
			switch knownStatus(c.Ledger, f.FlightNumber, f.Date) {
			case StatusCancelled:
				cancelled = true
			case StatusDelayed:
				delayed = true
			case "":
				unk = append(unk, fmt.Sprintf("get_flight_status(flight_number=%s, date=%s)", q(f.FlightNumber), q(f.Date)))
			}
		}
		n := float64(len(r.Passengers))
		eligible := u.Membership != "regular" || r.Insurance == "yes" || r.Cabin == "business"
		switch {
		case (cancelled || delayed) && !eligible:
			ineligible = append(ineligible, r.ReservationID)
		case cancelled:
			amounts[100*n] = true
			allowed = append(allowed, fmt.Sprintf("%s for reservation %s (cancelled flight, %d passenger(s))", money(100*n), r.ReservationID, len(r.Passengers)))
		case delayed && modifiedOrCancelled(c.Ledger, r.ReservationID):
			amounts[50*n] = true
			allowed = append(allowed, fmt.Sprintf("%s for reservation %s (delayed flight, %d passenger(s))", money(50*n), r.ReservationID, len(r.Passengers)))
		case delayed:
			delayedPending = append(delayedPending, r.ReservationID)
		default:
			unknown = append(unknown, unk...)
		}
	}
	amount := c.Args.amount()
	switch {
	case amounts[amount]:
		return ledger.OK
	case len(allowed) > 0:
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, a certificate is $100 per passenger for cancelled flights and $50 per passenger for delayed ones: the facts allow %s, not %s.", strings.Join(allowed, " or "), money(amount)))
	case len(delayedPending) > 0:
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, a certificate for a delayed flight is offered only after changing or cancelling the reservation (%s), at $50 per passenger.", strings.Join(delayedPending, ", ")))
	case len(ineligible) > 0:
		return ledger.Refuse(fmt.Sprintf("Per airline policy, no compensation for user %s: a regular member without travel insurance flying (basic) economy is not compensated (reservation %s).", u.UserID, strings.Join(ineligible, ", ")))
	}
	var missing []string
	if len(unknown) > 0 {
		missing = append(missing, "the status of the flights not yet checked: call "+strings.Join(unknown, ", "))
	}
	if len(unread) > 0 {
		missing = append(missing, "the reservations not yet read: "+strings.Join(unread, ", ")+" (get_reservation_details)")
	}
	if len(missing) == 0 {
		return ledger.Refuse(fmt.Sprintf("Per airline policy, compensation is only for cancelled or delayed flights: no flight of the reservations of %s read in this conversation is cancelled or delayed.", u.UserID))
	}
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, compensation is only for cancelled or delayed flights, after confirming the facts; the ledger lacks %s.", strings.Join(missing, "; ")))
}

// checkNotRepeated guards a booking (the same booking again) and a
// certificate (a second one for the user).
func checkNotRepeated(c ledger.Call[userCall]) ledger.Outcome {
	for _, w := range c.Ledger.Writes() {
		if w.Tool != c.Tool || !w.Done || !w.Succeeded {
			continue
		}
		switch a := c.Args.(type) {
		case *certificateArgs:
			if prev, ok := w.Decoded.(*certificateArgs); ok && prev.userID() == a.userID() {
				return ledger.Refuse(fmt.Sprintf("A certificate was already sent to %s in this conversation; compensation is given once.", a.userID()))
			}
		case *bookArgs:
			if prev, ok := w.Decoded.(*bookArgs); ok && sameBooking(prev, a) {
				return ledger.Refuse("This exact booking already succeeded in this conversation; do not book it again.")
			}
		}
	}
	return ledger.OK
}

// sameBooking reports whether two bookings have the same arguments.
func sameBooking(a, b *bookArgs) bool {
	return a.userID() == b.userID() && a.Origin.Text() == b.Origin.Text() && a.Destination.Text() == b.Destination.Text() &&
		a.FlightType.Text() == b.FlightType.Text() && a.cabin() == b.cabin() && a.Insurance.Text() == b.Insurance.Text() &&
		a.totalBaggages() == b.totalBaggages() && a.nonfreeBaggages() == b.nonfreeBaggages() &&
		slices.Equal(a.flights(), b.flights()) && slices.Equal(a.Passengers.list(), b.Passengers.list()) &&
		slices.Equal(a.PaymentMethods.list(), b.PaymentMethods.list())
}
