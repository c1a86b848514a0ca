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
//	user_read           all six                             the tool's section       REVISE (get_user_details first)
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
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/clip"
	"github.com/ledgerbench/ledgerbench/internal/pyjson"
	"github.com/ledgerbench/ledgerbench/ledger"
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

type paramKind int

const (
	pStr paramKind = iota
	pInt
	pNum
	pFlights
	pPassengers
	pPayments
)

type param struct {
	name string
	kind paramKind
	enum []string
}

func paramsOf(tool string) []param {
	res := param{name: "reservation_id"}
	switch tool {
	case toolBook:
		return []param{{name: "user_id"}, {name: "origin"}, {name: "destination"},
			{name: "flight_type", enum: flightTypes}, {name: "cabin", enum: cabinTypes},
			{name: "flights", kind: pFlights}, {name: "passengers", kind: pPassengers},
			{name: "payment_methods", kind: pPayments}, {name: "total_baggages", kind: pInt},
			{name: "nonfree_baggages", kind: pInt}, {name: "insurance", enum: insurances}}
	case toolCancel:
		return []param{res}
	case toolBaggages:
		return []param{res, {name: "total_baggages", kind: pInt}, {name: "nonfree_baggages", kind: pInt}, {name: "payment_id"}}
	case toolFlights:
		return []param{res, {name: "cabin", enum: cabinTypes}, {name: "flights", kind: pFlights}, {name: "payment_id"}}
	case toolPassengers:
		return []param{res, {name: "passengers", kind: pPassengers}}
	case toolCertificate:
		return []param{{name: "user_id"}, {name: "amount", kind: pNum}}
	}
	return nil
}

// writeArgs are a write call's decoded arguments (the fields its tool has).
type writeArgs struct {
	UserID, ReservationID, Origin, Destination string
	FlightType, Cabin, Insurance, PaymentID    string
	Flights                                    []FlightInfo
	Passengers                                 []Passenger
	Payments                                   []Payment
	TotalBaggages, NonfreeBaggages             int
	Amount                                     float64
}

// decodeWrite reads a write call's arguments leniently: it never fails hard,
// it describes what is wrong (a missing or unknown argument, a number where a
// string is expected, a malformed list).
func decodeWrite(tool string, raw json.RawMessage) (writeArgs, string) {
	var a writeArgs
	params := paramsOf(tool)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return a, fmt.Sprintf("the arguments of %s must be a JSON object", tool)
	}
	var problems []string
	for k := range m {
		if !slices.ContainsFunc(params, func(p param) bool { return p.name == k }) {
			problems = append(problems, fmt.Sprintf("unknown argument %s", q(k)))
		}
	}
	slices.Sort(problems)
	for _, p := range params {
		v, ok := m[p.name]
		if !ok {
			problems = append(problems, fmt.Sprintf("missing argument %s", q(p.name)))
			continue
		}
		if msg := decodeParam(&a, p, v); msg != "" {
			problems = append(problems, msg)
		}
	}
	return a, strings.Join(problems, "; ")
}

func decodeParam(a *writeArgs, p param, v json.RawMessage) string {
	switch p.kind {
	case pStr:
		var s string
		if err := json.Unmarshal(v, &s); err != nil || v[0] != '"' {
			return fmt.Sprintf("%s must be a string, got %s", p.name, short(v))
		}
		if p.enum != nil && !slices.Contains(p.enum, s) {
			return fmt.Sprintf("%s must be one of %s, got %s", p.name, pyjson.Repr(p.enum), q(s))
		}
		switch p.name {
		case "user_id":
			a.UserID = s
		case "reservation_id":
			a.ReservationID = s
		case "origin":
			a.Origin = s
		case "destination":
			a.Destination = s
		case "flight_type":
			a.FlightType = s
		case "cabin":
			a.Cabin = s
		case "insurance":
			a.Insurance = s
		case "payment_id":
			a.PaymentID = s
		}
	case pInt:
		var n int
		if err := json.Unmarshal(v, &n); err != nil || n < 0 {
			return fmt.Sprintf("%s must be a non-negative integer, got %s", p.name, short(v))
		}
		if p.name == "total_baggages" {
			a.TotalBaggages = n
		} else {
			a.NonfreeBaggages = n
		}
	case pNum:
		var f float64
		if err := json.Unmarshal(v, &f); err != nil || f <= 0 {
			return fmt.Sprintf("%s must be a positive number, got %s", p.name, short(v))
		}
		a.Amount = f
	case pFlights:
		var fs []struct {
			FlightNumber *string `json:"flight_number"`
			Date         *string `json:"date"`
		}
		if err := json.Unmarshal(v, &fs); err != nil || len(fs) == 0 {
			return fmt.Sprintf("flights must be a non-empty list of {flight_number, date} objects, got %s", short(v))
		}
		for _, f := range fs {
			if f.FlightNumber == nil || f.Date == nil {
				return "every flight needs a flight_number and a date string"
			}
			a.Flights = append(a.Flights, FlightInfo{FlightNumber: *f.FlightNumber, Date: *f.Date})
		}
	case pPassengers:
		var ps []struct {
			FirstName *string `json:"first_name"`
			LastName  *string `json:"last_name"`
			DOB       *string `json:"dob"`
		}
		if err := json.Unmarshal(v, &ps); err != nil {
			return fmt.Sprintf("passengers must be a list of {first_name, last_name, dob} objects, got %s", short(v))
		}
		for _, p := range ps {
			if p.FirstName == nil || p.LastName == nil || p.DOB == nil {
				return "every passenger needs first_name, last_name and dob strings"
			}
			a.Passengers = append(a.Passengers, Passenger{FirstName: *p.FirstName, LastName: *p.LastName, DOB: *p.DOB})
		}
	case pPayments:
		var ps []struct {
			PaymentID *string `json:"payment_id"`
			Amount    *int    `json:"amount"`
		}
		if err := json.Unmarshal(v, &ps); err != nil {
			return fmt.Sprintf("payment_methods must be a list of {payment_id, amount} objects with integer amounts, got %s", short(v))
		}
		for _, p := range ps {
			if p.PaymentID == nil || p.Amount == nil {
				return "every payment method needs a payment_id string and an integer amount"
			}
			a.Payments = append(a.Payments, Payment{PaymentID: *p.PaymentID, Amount: *p.Amount})
		}
	}
	return ""
}

func short(v json.RawMessage) string {
	return clip.Runes(strings.TrimSpace(string(v)), 40, "…")
}

func q(s string) string { return pyjson.ReprString(s) }

// proposal is one proposed write with its ledger.
type proposal struct {
	l    *ledger.Ledger
	tool string
	a    writeArgs
}

type check func(c *proposal) ledger.Outcome

func predicate(tool, rule, clause string, fn check) ledger.Predicate {
	return ledger.Typed("airline."+tool+"."+rule, tool, clause, func(l *ledger.Ledger, a *writeArgs) ledger.Outcome {
		return fn(&proposal{l: l, tool: tool, a: *a})
	})
}

// DecodeArgs implements ledgeragent.Policy: a write's arguments decoded once
// into writeArgs for all its predicates.
func (d *Domain) DecodeArgs(tool string, raw json.RawMessage) (any, *ledger.Failure) {
	return ledger.DecodeWith("airline", tool, raw, decodeWrite, argsClause)
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

// writeReservationID reads the reservation id of a logged write.
func writeReservationID(raw json.RawMessage) string {
	var a struct {
		ReservationID string `json:"reservation_id"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return ""
	}
	return a.ReservationID
}

// reservation is the proposal's reservation from the ledger corrected by the
// successful writes logged on it since it was read (nil when not read).
func (c *proposal) reservation() *Reservation {
	return effectiveReservation(c.l, c.a.ReservationID)
}

func effectiveReservation(l *ledger.Ledger, id string) *Reservation {
	r := ledgerReservation(l, id)
	if r == nil {
		return nil
	}
	var e *Reservation
	read := l.Seq(prefixReservations + id)
	for _, w := range l.Writes() {
		if !w.Done || !w.Succeeded || w.Seq < read || w.Tool == toolBook || w.Tool == toolCertificate || writeReservationID(w.Args) != id {
			continue // a record read after the write already shows it
		}
		a, problem := decodeWrite(w.Tool, w.Args)
		if problem != "" {
			continue
		}
		if e == nil {
			e = cloneReservation(r)
		}
		switch w.Tool {
		case toolCancel:
			s := StatusCancelled
			e.Status = &s
		case toolFlights:
			var fs []ReservationFlight
			for _, f := range a.Flights {
				rf := ReservationFlight{FlightNumber: f.FlightNumber, Date: f.Date}
				if j := segmentIndex(e.Flights, f); j >= 0 && a.Cabin == e.Cabin {
					rf = e.Flights[j]
				} else if lf := ledgerFlight(l, f.FlightNumber, f.Date); lf != nil {
					rf.Origin, rf.Destination = lf.Origin, lf.Destination
					if p, ok := lf.Prices.At(a.Cabin); ok {
						rf.Price = *p
					}
				} else if j >= 0 {
					rf.Origin, rf.Destination = e.Flights[j].Origin, e.Flights[j].Destination
				}
				fs = append(fs, rf)
			}
			e.Flights, e.Cabin = fs, a.Cabin
		case toolBaggages:
			e.TotalBaggages, e.NonfreeBaggages = Int(int64(a.TotalBaggages)), Int(int64(a.NonfreeBaggages))
		case toolPassengers:
			e.Passengers = a.Passengers
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

// ownedReservation is the reservation when the user is read and owns it.
func (c *proposal) ownedReservation() *Reservation {
	u := ledgerUser(c.l)
	r := c.reservation()
	if u == nil || r == nil || r.UserID != u.UserID {
		return nil
	}
	return r
}

// activeReservation is ownedReservation when it is not cancelled.
func (c *proposal) activeReservation() *Reservation {
	r := c.ownedReservation()
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

func checkUserRead(c *proposal) ledger.Outcome {
	if ledgerUser(c.l) != nil {
		return ledger.OK
	}
	hint := "ask the user for their user id and call get_user_details first"
	if c.a.UserID != "" {
		hint = fmt.Sprintf("call get_user_details(user_id=%s) first", q(c.a.UserID))
	} else if r := ledgerReservation(c.l, c.a.ReservationID); r != nil {
		hint = fmt.Sprintf("obtain the user id from the user and call get_user_details(user_id=%s) first", q(r.UserID))
	}
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, %s depends on %s of the user's profile, which has not been read: %s.", c.tool, profileFacts[c.tool], hint))
}

func checkOwnUser(c *proposal) ledger.Outcome {
	u := ledgerUser(c.l)
	if u == nil || u.UserID == c.a.UserID {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, you can only act for the user %s in this conversation; %s is another user.", u.UserID, q(c.a.UserID)))
}

func checkReservationRead(c *proposal) ledger.Outcome {
	if ledgerReservation(c.l, c.a.ReservationID) != nil {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, check reservation %s before acting on it: call get_reservation_details(reservation_id=%s) first.", c.a.ReservationID, q(c.a.ReservationID)))
}

func checkOwnReservation(c *proposal) ledger.Outcome {
	u := ledgerUser(c.l)
	r := c.reservation()
	if u == nil || r == nil || r.UserID == u.UserID {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, you can only act on reservations of the user %s; reservation %s belongs to another user (%s).", u.UserID, r.ReservationID, r.UserID))
}

func checkNotCancelled(c *proposal) ledger.Outcome {
	r := c.ownedReservation()
	if r == nil || r.Status == nil || *r.Status != StatusCancelled {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Reservation %s is already cancelled; it cannot be cancelled or modified.", r.ReservationID))
}

func checkNotFlown(c *proposal) ledger.Outcome {
	r := c.activeReservation()
	if r == nil {
		return ledger.OK
	}
	var done, unknown []string
	for _, f := range r.Flights {
		if c.tool == toolFlights && r.Cabin == c.a.Cabin && slices.ContainsFunc(c.a.Flights, func(fi FlightInfo) bool {
			return fi.FlightNumber == f.FlightNumber && fi.Date == f.Date
		}) {
			continue // a kept segment in the same cabin is not modified
		}
		yes, unk := flown(c.l, f.FlightNumber, f.Date)
		switch {
		case unk:
			unknown = append(unknown, fmt.Sprintf("get_flight_status(flight_number=%s, date=%s)", q(f.FlightNumber), q(f.Date)))
		case yes:
			done = append(done, f.FlightNumber+" on "+f.Date)
		}
	}
	if len(done) > 0 {
		if c.tool == toolCancel {
			return ledger.Refuse(fmt.Sprintf("Per airline policy, reservation %s cannot be cancelled: part of it has already been flown (%s); the agent cannot help, transfer the user to a human agent.", r.ReservationID, strings.Join(done, ", ")))
		}
		return ledger.Refuse(fmt.Sprintf("Per airline policy, flights or cabin of reservation %s cannot be changed: part of it has already been flown (%s).", r.ReservationID, strings.Join(done, ", ")))
	}
	if len(unknown) > 0 {
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, a reservation with flights already flown cannot be changed or cancelled; reservation %s has flights before %s: check them first: call %s.", r.ReservationID, today, strings.Join(unknown, ", ")))
	}
	return ledger.OK
}

func checkCancelBasis(c *proposal) ledger.Outcome {
	r := c.activeReservation()
	if r == nil {
		return ledger.OK
	}
	if r.CreatedAt >= bookingWindow || r.Cabin == "business" || r.Insurance == "yes" {
		return ledger.OK
	}
	var unknown []string
	for _, f := range r.Flights {
		switch knownStatus(c.l, f.FlightNumber, f.Date) {
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

func checkBasicEconomy(c *proposal) ledger.Outcome {
	r := c.activeReservation()
	if r == nil || r.Cabin != "basic_economy" || !flightsChange(r, c.a.Flights) {
		return ledger.OK
	}
	if c.a.Cabin != "basic_economy" && !hasNewFlight(r, c.a.Flights) {
		return ledger.OK // cabin_all_segments reports dropped segments
	}
	if c.a.Cabin != "basic_economy" {
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

func checkSameTrip(c *proposal) ledger.Outcome {
	r := c.activeReservation()
	if r == nil {
		return ledger.OK
	}
	if p, _ := tripProblem(c.l, r, c.a.Flights, r.Origin, r.Destination, r.FlightType); p != "" {
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, reservation %s can be modified without changing its origin (%s), destination (%s) and trip type (%s): %s.", r.ReservationID, r.Origin, r.Destination, r.FlightType, p))
	}
	return ledger.OK
}

func checkCabinAllSegments(c *proposal) ledger.Outcome {
	r := c.activeReservation()
	if r == nil || c.a.Cabin == r.Cabin || hasNewFlight(r, c.a.Flights) || !flightsChange(r, c.a.Flights) {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, the cabin must be the same across all flights of reservation %s: a cabin change applies to every segment (%s); include them all.", r.ReservationID, segments(r)))
}

func checkRoute(c *proposal) ledger.Outcome {
	if p, _ := tripProblem(c.l, nil, c.a.Flights, c.a.Origin, c.a.Destination, c.a.FlightType); p != "" {
		return ledger.NeedRevise(fmt.Sprintf("The flights must make a %s trip from %s to %s: %s.", c.a.FlightType, c.a.Origin, c.a.Destination, p))
	}
	return ledger.OK
}

func checkPassengerLimit(c *proposal) ledger.Outcome {
	switch n := len(c.a.Passengers); {
	case n == 0:
		return ledger.NeedRevise("Per airline policy, collect the first name, last name and date of birth of each passenger; the passenger list is empty.")
	case n > maxPassengers:
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, each reservation can have at most five passengers; this booking has %d.", n))
	}
	return ledger.OK
}

// chosenFlights lists the proposed flights the agent chose, which must come
// from a search: all for a booking; for a change, the new segments only (a
// cabin change keeps its flights and chooses none; the API prices it and
// checks its seats).
func (c *proposal) chosenFlights(r *Reservation) []FlightInfo {
	if c.tool == toolBook {
		return c.a.Flights
	}
	var out []FlightInfo
	for _, f := range c.a.Flights {
		if segmentIndex(r.Flights, f) < 0 {
			out = append(out, f)
		}
	}
	return out
}

func checkFlightsSearched(c *proposal) ledger.Outcome {
	n := len(c.a.Passengers)
	var r *Reservation
	if c.tool == toolFlights {
		if r = c.activeReservation(); r == nil {
			return ledger.OK
		}
		n = len(r.Passengers)
	}
	var missing, bad []string
	for _, f := range c.chosenFlights(r) {
		lf := ledgerFlight(c.l, f.FlightNumber, f.Date)
		if lf == nil {
			missing = append(missing, f.FlightNumber+" on "+f.Date)
			continue
		}
		if st := knownStatus(c.l, f.FlightNumber, f.Date); st != StatusAvailable {
			bad = append(bad, fmt.Sprintf("%s on %s is %s, not available", f.FlightNumber, f.Date, q(st)))
			continue
		}
		if seats, ok := lf.AvailableSeats.At(c.a.Cabin); ok && *seats < n {
			bad = append(bad, fmt.Sprintf("%s on %s has %d %s seats left for %d passengers", f.FlightNumber, f.Date, *seats, c.a.Cabin, n))
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
func (c *proposal) bookTotal() (int, bool) {
	n := len(c.a.Passengers)
	total := 0
	for _, f := range c.a.Flights {
		lf := ledgerFlight(c.l, f.FlightNumber, f.Date)
		if lf == nil {
			return 0, false
		}
		p, ok := lf.Prices.At(c.a.Cabin)
		if !ok {
			return 0, false
		}
		total += *p * n
	}
	if c.a.Insurance == "yes" {
		total += 30 * n
	}
	return total + 50*c.a.NonfreeBaggages, true
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
		a, problem := decodeWrite(w.Tool, w.Args)
		if problem != "" {
			continue
		}
		switch w.Tool {
		case toolFlights, toolBaggages:
			if a.PaymentID == id {
				return true
			}
		case toolBook:
			if slices.ContainsFunc(a.Payments, func(p Payment) bool { return p.PaymentID == id }) {
				return true
			}
		case toolCancel:
			r := ledgerReservation(l, a.ReservationID)
			if r == nil || slices.ContainsFunc(r.PaymentHistory, func(p Payment) bool { return p.PaymentID == id }) {
				return true
			}
		}
	}
	return false
}

func checkBookPayments(c *proposal) ledger.Outcome {
	u := ledgerUser(c.l)
	if u == nil || u.UserID != c.a.UserID {
		return ledger.OK
	}
	var bad []string
	count := map[string]int{}
	for _, p := range c.a.Payments {
		pm, ok := u.PaymentMethods.Get(p.PaymentID)
		if !ok || pm == nil {
			bad = append(bad, fmt.Sprintf("%s is not among the user's payment methods %s", q(p.PaymentID), pyjson.Repr(paymentIDs(u))))
			continue
		}
		count[pm.PaymentSource()]++
		if bal, ok := balance(pm); ok && bal < float64(p.Amount) && !balanceStale(c.l, p.PaymentID) {
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

func checkBookTotal(c *proposal) ledger.Outcome {
	total, ok := c.bookTotal()
	if !ok {
		return ledger.OK
	}
	paid := 0
	for _, p := range c.a.Payments {
		paid += p.Amount
	}
	if paid == total {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("The payments must add up to the total price: %s for %d passenger(s) in %s%s, plus %s for %d paid bag(s); they add up to %s.", money(float64(total)), len(c.a.Passengers), c.a.Cabin, insuranceNote(c.a), money(float64(50*c.a.NonfreeBaggages)), c.a.NonfreeBaggages, money(float64(paid))))
}

func insuranceNote(a writeArgs) string {
	if a.Insurance == "yes" {
		return " with insurance ($30 per passenger)"
	}
	return ""
}

func checkBaggageAllowance(c *proposal) ledger.Outcome {
	u := ledgerUser(c.l)
	if u == nil {
		return ledger.OK
	}
	cabin, n, who := c.a.Cabin, len(c.a.Passengers), "booking"
	if c.tool == toolBaggages {
		r := c.activeReservation()
		if r == nil {
			return ledger.OK
		}
		cabin, n, who = r.Cabin, len(r.Passengers), "reservation "+r.ReservationID
	} else if u.UserID != c.a.UserID {
		return ledger.OK
	}
	free := freeBagsPer(u.Membership, cabin) * n
	want := max(0, c.a.TotalBaggages-free)
	if c.a.NonfreeBaggages == want {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, a %s member gets %d free checked bag(s) per %s passenger: the %s (%d passenger(s)) has %d free bag(s), so %d total bag(s) means %d non-free bag(s), not %d.", u.Membership, freeBagsPer(u.Membership, cabin), cabin, who, n, free, c.a.TotalBaggages, want, c.a.NonfreeBaggages))
}

func checkAddOnly(c *proposal) ledger.Outcome {
	r := c.activeReservation()
	if r == nil {
		return ledger.OK
	}
	// The rule is about bags, not the paid count: a lower non-free count
	// with more bags (a membership upgrade) removes none.
	if float64(c.a.TotalBaggages) >= r.TotalBaggages.Float64() {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, checked bags can be added but not removed: reservation %s has %s bag(s); you asked for %d.", r.ReservationID, r.TotalBaggages, c.a.TotalBaggages))
}

// updateCost is what the change costs (negative: a refund), if known.
func (c *proposal) updateCost(r *Reservation) (int, bool) {
	n := len(r.Passengers)
	if c.tool == toolBaggages {
		return 50 * max(0, c.a.NonfreeBaggages-int(r.NonfreeBaggages.Float64())), true
	}
	total := 0
	for _, f := range c.a.Flights {
		if j := segmentIndex(r.Flights, f); j >= 0 && r.Cabin == c.a.Cabin {
			total += r.Flights[j].Price * n
			continue
		}
		lf := ledgerFlight(c.l, f.FlightNumber, f.Date)
		if lf == nil {
			return 0, false
		}
		p, ok := lf.Prices.At(c.a.Cabin)
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

func checkUpdatePayment(c *proposal) ledger.Outcome {
	r := c.activeReservation()
	u := ledgerUser(c.l)
	if r == nil || u == nil {
		return ledger.OK
	}
	pm, ok := u.PaymentMethods.Get(c.a.PaymentID)
	if !ok || pm == nil {
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, the payment method must already be in the user's profile: %s is not among %s.", q(c.a.PaymentID), pyjson.Repr(paymentIDs(u))))
	}
	if pm.PaymentSource() == SourceCertificate {
		var ok []string
		for id, m := range u.PaymentMethods.All() {
			if m.PaymentSource() != SourceCertificate {
				ok = append(ok, id)
			}
		}
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, changes are paid or refunded with a single gift card or credit card, not a travel certificate (%s); the user has %s.", q(c.a.PaymentID), pyjson.Repr(ok)))
	}
	if g, isGift := pm.(*GiftCard); isGift {
		if cost, known := c.updateCost(r); known && float64(cost) > g.Amount && !balanceStale(c.l, c.a.PaymentID) {
			return ledger.NeedRevise(fmt.Sprintf("Gift card %s has %s, less than the %s this change costs; choose another payment method.", q(c.a.PaymentID), money(g.Amount), money(float64(cost))))
		}
	}
	return ledger.OK
}

func checkPassengerCount(c *proposal) ledger.Outcome {
	r := c.activeReservation()
	if r == nil || len(c.a.Passengers) == len(r.Passengers) {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, passengers can be modified but not their number, even by a human agent: reservation %s has %d passenger(s), not %d.", r.ReservationID, len(r.Passengers), len(c.a.Passengers)))
}

// modifiedOrCancelled reports whether a change or cancellation of the
// reservation succeeded in this conversation.
func modifiedOrCancelled(l *ledger.Ledger, id string) bool {
	for _, w := range l.Writes() {
		if w.Done && w.Succeeded && w.Tool != toolBook && w.Tool != toolCertificate && writeReservationID(w.Args) == id {
			return true
		}
	}
	return false
}

// checkCompensation judges a certificate against the user's reservations
// as they were read, before any change logged since: the delay or
// cancellation the user complains about is a fact of the trip as booked, and
// the $50 case comes only after the reservation was changed or cancelled.
func checkCompensation(c *proposal) ledger.Outcome {
	u := ledgerUser(c.l)
	if u == nil || u.UserID != c.a.UserID {
		return ledger.OK
	}
	var allowed []string
	amounts := map[float64]bool{}
	var ineligible, delayedPending, unknown, unread []string
	for _, id := range u.Reservations {
		r := ledgerReservation(c.l, id)
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
			switch knownStatus(c.l, f.FlightNumber, f.Date) {
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
		case delayed && modifiedOrCancelled(c.l, r.ReservationID):
			amounts[50*n] = true
			allowed = append(allowed, fmt.Sprintf("%s for reservation %s (delayed flight, %d passenger(s))", money(50*n), r.ReservationID, len(r.Passengers)))
		case delayed:
			delayedPending = append(delayedPending, r.ReservationID)
		default:
			unknown = append(unknown, unk...)
		}
	}
	switch {
	case amounts[c.a.Amount]:
		return ledger.OK
	case len(allowed) > 0:
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, a certificate is $100 per passenger for cancelled flights and $50 per passenger for delayed ones: the facts allow %s, not %s.", strings.Join(allowed, " or "), money(c.a.Amount)))
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

func checkNotRepeated(c *proposal) ledger.Outcome {
	for _, w := range c.l.Writes() {
		if w.Tool != c.tool || !w.Done || !w.Succeeded {
			continue
		}
		if c.tool == toolCertificate {
			prev, problem := decodeWrite(w.Tool, w.Args)
			if problem == "" && prev.UserID == c.a.UserID {
				return ledger.Refuse(fmt.Sprintf("A certificate was already sent to %s in this conversation; compensation is given once.", c.a.UserID))
			}
			continue
		}
		if prev, problem := decodeWrite(w.Tool, w.Args); problem == "" && sameBooking(prev, c.a) {
			return ledger.Refuse("This exact booking already succeeded in this conversation; do not book it again.")
		}
	}
	return ledger.OK
}

func sameBooking(a, b writeArgs) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}
