package v1airline

// LedgerAgent's policy gate for v1 airline: Go predicates over the typed
// ledger (ledger.go), grouped per write tool, each citing the heading of
// wiki.md whose rule it enforces. Verdicts: REVISE when the call can be
// fixed (missing evidence → the read to make; a payment method, amount, bag
// count, flight or argument type the policy does not allow), BLOCK when the
// policy leaves no valid alternative (another user's reservation or profile,
// a cancelled reservation, flight changes of basic economy, removing bags,
// changing the number of passengers, compensation the user is not due, a
// second certificate).
//
//	rule               tools                             clause                verdict
//	-----------------  --------------------------------  --------------------  ------------------------------------
//	arguments          all six                           the tool's section    REVISE
//	user_read          all six                           the tool's section    REVISE (get_user_details first)
//	own_user           book, send_certificate            Airline Agent Policy  BLOCK
//	reservation_read   the four reservation tools        the tool's section    REVISE (get_reservation_details first)
//	own_reservation    the four reservation tools        Airline Agent Policy  BLOCK
//	not_cancelled      the four reservation tools        the tool's section    BLOCK
//	passenger_limit    book                              Book flight           REVISE
//	flights_searched   book, update flights              the tool's section    REVISE (search first)
//	route              book                              Book flight           REVISE
//	payment_methods    book                              Book flight           REVISE
//	payment_total      book                              Book flight           REVISE
//	bags_charged       book, update baggages             Book flight           REVISE
//	basic_economy      update flights                    Modify flight         BLOCK
//	payment            update flights, update baggages   Modify flight         REVISE
//	add_only           update baggages                   Modify flight         BLOCK
//	passenger_count    update passengers                 Modify flight         BLOCK
//	compensation       send_certificate                  Refund                BLOCK (REVISE: read the reservation)
//	amount             send_certificate                  Refund                REVISE
//	not_repeated       send_certificate                  loop prevention       BLOCK
//
// wiki.md against τ²'s policy.md, clause by clause: the two state the same
// booking limits (five passengers; one certificate, one credit card, three
// gift cards; payment methods from the profile), the same modification
// rules (no flight changes in basic economy; bags added, never removed; the
// passenger count fixed) and the same 24-hour/insurance/business
// cancellation rule, but differ where the gate would decide: v1 gives a
// gold member's business passenger 3 free bags (τ²: 4), lets any
// reservation change cabin (τ² forbids it once a flight is flown), asks for
// the payment method only when flights change, and offers certificates of
// $100 (cancelled flights) or $50 (delayed) per passenger where τ² words
// its compensation rules otherwise. v1 airline also has no flight-status
// tool, so a cancellation's basis (an airline-cancelled flight, a health or
// weather reason under insurance) and whether a flight was flown are facts
// no read shows: the gate cannot decide those clauses and does not guess
// (τ²'s basis and not_flown rules read get_flight_status). The predicates
// are therefore this package's, over its own records.
//
// Where v1's gold trajectories depart from the wiki the gate's rules are
// read as the gold reads them, so that gold earns its reward through the
// gate: bags_charged refuses charging fewer bags than the allowance leaves
// (gold overcharges now and then, never under), and the route of a flight
// change is not checked (task 19's gold changes a round trip's
// destination), nor a trip type the policy does not name beyond its origin
// (task 59's gold books a "multi_city" trip). A reservation is the ledger's
// record corrected by the
// successful writes logged since it was read (cancel → cancelled; flight,
// bag and passenger updates → the new values; a cabin change whenever it
// was made, since upstream's tool does not store it), so a stale record
// neither re-opens nor blocks an action.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Headings of wiki.md the predicates cite.
const (
	clauseIntro  = "Airline Agent Policy"
	clauseBook   = "Book flight"
	clauseModify = "Modify flight"
	clauseCancel = "Cancel flight"
	clauseRefund = "Refund"
	// clauseLoop names a rule, not a heading.
	clauseLoop = "loop prevention"
)

// freeBags is the checked-bag allowance per passenger (Book flight).
var freeBags = map[string]map[string]int{
	"regular": {"basic_economy": 0, "economy": 1, "business": 2},
	"silver":  {"basic_economy": 1, "economy": 2, "business": 3},
	"gold":    {"basic_economy": 2, "economy": 3, "business": 3},
}

// Price facts of the policy (Book flight).
const (
	bagPrice       = 50
	insurancePrice = 30
	maxPassengers  = 5
)

// write is a write call's arguments as the gate reads them (their
// documented types).
type write struct {
	tool          string
	UserID        string
	ReservationID string
	Origin        string
	Destination   string
	FlightType    string
	Cabin         string
	Insurance     string
	PaymentID     string
	Flights       []legRef
	Passengers    int
	Payments      []payRef
	TotalBags     int
	NonfreeBags   int
	Amount        float64
}

type legRef struct{ Number, Date string }

type payRef struct {
	ID     string
	Amount float64
}

// decodeWrite reads a write's arguments with their documented types.
func (d *Domain) decodeWrite(name string, raw json.RawMessage) (*write, error) {
	a, err := d.Toolset().Decode(name, raw)
	if err != nil {
		return nil, err
	}
	if err := tool.CheckTypes(a); err != nil {
		return nil, err
	}
	w := &write{tool: name}
	intOf := func(v tool.IntValue, param string) (int, error) {
		n, ok := v.V.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil {
			return 0, fmt.Errorf("argument '%s' must be int, not %s", param, pyjson.TypeName(v.V))
		}
		return int(i), nil
	}
	switch x := a.(type) {
	case *bookArgs:
		w.UserID, w.Origin, w.Destination, w.FlightType, w.Cabin, w.Insurance =
			x.UserID.Text(), x.Origin.Text(), x.Destination.Text(), x.FlightType.Text(), x.Cabin.Text(), x.Insurance.Text()
		if w.Flights, err = legRefs(x.Flights.V); err != nil {
			return nil, err
		}
		ps, ok := x.Passengers.V.([]any)
		if !ok {
			return nil, fmt.Errorf("argument 'passengers' must be list, not %s", pyjson.TypeName(x.Passengers.V))
		}
		for i, p := range ps {
			pd, ok := p.(*pyjson.Dict)
			if !ok {
				return nil, fmt.Errorf("passengers[%d] must be dict, not %s", i, pyjson.TypeName(p))
			}
			for _, k := range []string{"first_name", "last_name", "dob"} {
				if v, ok := pd.Get(k); !ok || pyjson.TypeName(v) != "str" {
					return nil, fmt.Errorf("passengers[%d] needs a str %s", i, k)
				}
			}
		}
		w.Passengers = len(ps)
		pays, ok := x.PaymentMethods.V.([]any)
		if !ok {
			return nil, fmt.Errorf("argument 'payment_methods' must be list, not %s", pyjson.TypeName(x.PaymentMethods.V))
		}
		for i, p := range pays {
			pd, ok := p.(*pyjson.Dict)
			if !ok {
				return nil, fmt.Errorf("payment_methods[%d] must be dict, not %s", i, pyjson.TypeName(p))
			}
			id, _ := pd.Get("payment_id")
			amt, _ := pd.Get("amount")
			ids, okID := id.(string)
			n, okAmt := amt.(json.Number)
			if !okID || !okAmt {
				return nil, fmt.Errorf("payment_methods[%d] needs a str payment_id and a number amount", i)
			}
			w.Payments = append(w.Payments, payRef{ID: ids, Amount: pyjson.NumberFloat(n)})
		}
		if w.TotalBags, err = intOf(x.TotalBaggages, "total_baggages"); err != nil {
			return nil, err
		}
		if w.NonfreeBags, err = intOf(x.NonfreeBags, "nonfree_baggages"); err != nil {
			return nil, err
		}
	case *reservationArgs:
		w.ReservationID = x.ReservationID.Text()
	case *baggagesArgs:
		w.ReservationID, w.PaymentID = x.ReservationID.Text(), x.PaymentID.Text()
		if w.TotalBags, err = intOf(x.TotalBaggages, "total_baggages"); err != nil {
			return nil, err
		}
		if w.NonfreeBags, err = intOf(x.NonfreeBags, "nonfree_baggages"); err != nil {
			return nil, err
		}
	case *flightsArgs:
		w.ReservationID, w.Cabin, w.PaymentID = x.ReservationID.Text(), x.Cabin.Text(), x.PaymentID.Text()
		if w.Flights, err = legRefs(x.Flights.V); err != nil {
			return nil, err
		}
	case *passengersArgs:
		w.ReservationID = x.ReservationID.Text()
		ps, ok := x.Passengers.V.([]any)
		if !ok {
			return nil, fmt.Errorf("argument 'passengers' must be list, not %s", pyjson.TypeName(x.Passengers.V))
		}
		w.Passengers = len(ps)
	case *certificateArgs:
		w.UserID = x.UserID.Text()
		n, ok := x.Amount.V.(json.Number)
		if !ok {
			return nil, fmt.Errorf("argument 'amount' must be a number, not %s", pyjson.TypeName(x.Amount.V))
		}
		w.Amount = pyjson.NumberFloat(n)
	default:
		return nil, errors.New("not a write tool")
	}
	return w, nil
}

// legRefs reads a flights argument: a list of {flight_number, date}.
func legRefs(v any) ([]legRef, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("argument 'flights' must be list, not %s", pyjson.TypeName(v))
	}
	out := make([]legRef, len(l))
	for i, it := range l {
		d, ok := it.(*pyjson.Dict)
		if !ok {
			return nil, fmt.Errorf("flights[%d] must be dict, not %s", i, pyjson.TypeName(it))
		}
		n, _ := d.Get("flight_number")
		dt, _ := d.Get("date")
		ns, ok1 := n.(string)
		ds, ok2 := dt.(string)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("flights[%d] needs a str flight_number and date", i)
		}
		out[i] = legRef{ns, ds}
	}
	return out, nil
}

// DecodeArgs implements ledgeragent.Policy: a write's arguments decoded
// once for all its predicates.
func (d *Domain) DecodeArgs(name string, raw json.RawMessage) (any, *ledger.Failure) {
	return ledger.DecodeTool("v1airline", name, raw, func(name string, raw json.RawMessage) (any, error) {
		return d.decodeWrite(name, raw)
	}, argsClause)
}

func argsClause(name string) string {
	switch name {
	case toolBook:
		return clauseBook
	case toolCancel:
		return clauseCancel
	case toolCertificate:
		return clauseRefund
	}
	return clauseModify
}

func predicate(name, rule, clause string, check func(c ledger.Call[*write]) ledger.Outcome) ledger.Predicate {
	return ledger.Rule("v1airline", name, rule, clause, check)
}

// GatePredicates implements ledgeragent.Policy: the predicates of the six
// write tools.
func (d *Domain) GatePredicates() []ledger.Predicate {
	var out []ledger.Predicate
	resTool := func(name string, extra ...ledger.Predicate) {
		section := argsClause(name)
		out = append(out,
			predicate(name, "user_read", section, checkUserRead),
			predicate(name, "reservation_read", section, checkReservationRead),
			predicate(name, "own_reservation", clauseIntro, checkOwnReservation),
			predicate(name, "not_cancelled", section, checkNotCancelled))
		out = append(out, extra...)
	}
	out = append(out,
		predicate(toolBook, "user_read", clauseBook, checkUserRead),
		predicate(toolBook, "own_user", clauseIntro, checkOwnUser),
		predicate(toolBook, "passenger_limit", clauseBook, checkPassengerLimit),
		predicate(toolBook, "flights_searched", clauseBook, checkFlightsSearched),
		predicate(toolBook, "route", clauseBook, checkRoute),
		predicate(toolBook, "payment_methods", clauseBook, checkBookPayments),
		predicate(toolBook, "payment_total", clauseBook, checkBookTotal),
		predicate(toolBook, "bags_charged", clauseBook, checkBagsCharged))
	resTool(toolCancel)
	resTool(toolFlights,
		predicate(toolFlights, "basic_economy", clauseModify, checkBasicEconomy),
		predicate(toolFlights, "flights_searched", clauseModify, checkFlightsSearched),
		predicate(toolFlights, "payment", clauseModify, checkUpdatePayment))
	resTool(toolBaggages,
		predicate(toolBaggages, "add_only", clauseModify, checkAddOnly),
		predicate(toolBaggages, "bags_charged", clauseBook, checkBagsCharged),
		predicate(toolBaggages, "payment", clauseModify, checkUpdatePayment))
	resTool(toolPassengers,
		predicate(toolPassengers, "passenger_count", clauseModify, checkPassengerCount))
	out = append(out,
		predicate(toolCertificate, "user_read", clauseRefund, checkUserRead),
		predicate(toolCertificate, "own_user", clauseIntro, checkOwnUser),
		predicate(toolCertificate, "compensation", clauseRefund, checkCompensation),
		predicate(toolCertificate, "amount", clauseRefund, checkCertificateAmount),
		predicate(toolCertificate, "not_repeated", clauseLoop, checkNotRepeated))
	return out
}

// ---- the reservation as corrected by the write log ----

// reservation is the call's reservation in the ledger, with the successful
// writes logged since it was read applied (nil when not read). A cabin
// change applies whenever it was made: upstream's update_reservation_flights
// never writes the new cabin into the reservation, so no read shows it.
func reservation(l *ledger.Ledger, id string) *Reservation {
	r := ledgerReservation(l, id)
	if r == nil {
		return nil
	}
	c := *r
	c.Flights = slices.Clone(r.Flights)
	read := l.Seq(prefixReservations + id)
	for _, w := range l.Writes() {
		a, ok := w.Decoded.(*write)
		if !ok || !w.Done || !w.Succeeded || a.ReservationID != id {
			continue
		}
		if a.tool == toolFlights {
			c.Cabin = a.Cabin
		}
		if w.Seq < read {
			continue
		}
		switch a.tool {
		case toolCancel:
			c.Status = "cancelled"
		case toolFlights:
			c.Cabin = a.Cabin
			c.Flights = c.Flights[:0:0]
			for _, f := range a.Flights {
				c.Flights = append(c.Flights, Leg{FlightNumber: f.Number, Date: f.Date})
			}
		case toolBaggages:
			c.TotalBaggages, c.NonfreeBaggages = a.TotalBags, a.NonfreeBags
		case toolPassengers:
			c.Passengers = make([]Passenger, a.Passengers)
		}
	}
	return &c
}

func q(s string) string { return pyjson.ReprString(s) }

// ---- predicates ----

// callUserID is whose profile the call acts on: the call's user, or the
// reservation's owner.
func callUserID(l *ledger.Ledger, a *write) string {
	if a.UserID != "" {
		return a.UserID
	}
	if r := ledgerReservation(l, a.ReservationID); r != nil {
		return r.UserID
	}
	return ""
}

func checkUserRead(c ledger.Call[*write]) ledger.Outcome {
	if ledgerUser(c.Ledger) != nil {
		return ledger.OK
	}
	if id := callUserID(c.Ledger, c.Args); id != "" {
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, the agent must first obtain the user id: call get_user_details(user_id=%s) before %s.", q(id), c.Tool))
	}
	return ledger.NeedRevise("Per airline policy, the agent must first obtain the user id: call get_user_details with the user's id before " + c.Tool + ".")
}

func checkOwnUser(c ledger.Call[*write]) ledger.Outcome {
	u := ledgerUser(c.Ledger)
	if u == nil || u.UserID == c.Args.UserID {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, the agent serves one user per conversation: %s acts on user %s, not %s.", c.Tool, q(c.Args.UserID), q(u.UserID)))
}

func checkReservationRead(c ledger.Call[*write]) ledger.Outcome {
	if ledgerReservation(c.Ledger, c.Args.ReservationID) != nil {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, the agent must first obtain the reservation: call get_reservation_details(reservation_id=%s) before %s.", q(c.Args.ReservationID), c.Tool))
}

func checkOwnReservation(c ledger.Call[*write]) ledger.Outcome {
	u, r := ledgerUser(c.Ledger), ledgerReservation(c.Ledger, c.Args.ReservationID)
	if u == nil || r == nil || r.UserID == u.UserID {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, the agent serves one user per conversation: reservation %s belongs to %s, not %s.", q(r.ReservationID), q(r.UserID), q(u.UserID)))
}

func checkNotCancelled(c ledger.Call[*write]) ledger.Outcome {
	r := reservation(c.Ledger, c.Args.ReservationID)
	if r == nil || r.Status != "cancelled" {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Reservation %s is cancelled: %s cannot apply to it.", q(r.ReservationID), c.Tool))
}

func checkPassengerLimit(c ledger.Call[*write]) ledger.Outcome {
	if n := c.Args.Passengers; n >= 1 && n <= maxPassengers {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, each reservation can have at most five passengers (and at least one); this booking has %d.", c.Args.Passengers))
}

// newLegs are the call's flights that its reservation does not already
// hold in the same cabin (those keep their price; upstream's tool reads no
// flight data for them).
func newLegs(l *ledger.Ledger, a *write) []legRef {
	if a.tool == toolBook {
		return a.Flights
	}
	r := reservation(l, a.ReservationID)
	var out []legRef
	for _, f := range a.Flights {
		kept := false
		if r != nil && r.Cabin == a.Cabin {
			for _, g := range r.Flights {
				kept = kept || (g.FlightNumber == f.Number && g.Date == f.Date)
			}
		}
		if !kept {
			out = append(out, f)
		}
	}
	return out
}

func checkFlightsSearched(c ledger.Call[*write]) ledger.Outcome {
	var missing, bad []string
	n := c.Args.Passengers
	if r := reservation(c.Ledger, c.Args.ReservationID); c.Args.tool != toolBook && r != nil {
		n = len(r.Passengers)
	}
	for _, f := range newLegs(c.Ledger, c.Args) {
		fl := ledgerFlight(c.Ledger, f.Number, f.Date)
		switch {
		case fl == nil:
			missing = append(missing, f.Number+" on "+f.Date)
		case fl.Status != "available":
			bad = append(bad, fmt.Sprintf("%s on %s is %s", f.Number, f.Date, fl.Status))
		case fl.AvailableSeats[c.Args.Cabin] < n:
			bad = append(bad, fmt.Sprintf("%s on %s has %d %s seats for %d passengers", f.Number, f.Date, fl.AvailableSeats[c.Args.Cabin], c.Args.Cabin, n))
		}
	}
	switch {
	case len(bad) > 0:
		return ledger.NeedRevise("Per airline policy, only available flights can be booked: " + strings.Join(bad, "; ") + ".")
	case len(missing) > 0:
		return ledger.NeedRevise("Per airline policy, flights must be found with the tools before they are booked; the ledger does not show " +
			strings.Join(missing, ", ") + ": search them (search_direct_flight or search_onestop_flight) first.")
	}
	return ledger.OK
}

func checkRoute(c ledger.Call[*write]) ledger.Outcome {
	legs := make([]*Flight, len(c.Args.Flights))
	for i, f := range c.Args.Flights {
		if legs[i] = ledgerFlight(c.Ledger, f.Number, f.Date); legs[i] == nil {
			return ledger.OK // flights_searched
		}
	}
	if len(legs) == 0 {
		return ledger.NeedRevise("Per airline policy, a booking needs its flights.")
	}
	a := c.Args
	first, last := legs[0], legs[len(legs)-1]
	var problem string
	switch {
	case first.Origin != a.Origin:
		problem = fmt.Sprintf("the first flight leaves from %s, not the origin %s", first.Origin, a.Origin)
	case a.FlightType != "one_way" && a.FlightType != "round_trip":
		return ledger.OK // a trip type the policy does not name (a gold booking's multi_city): its origin only
	case a.FlightType == "one_way" && last.Destination != a.Destination:
		problem = fmt.Sprintf("the last flight arrives at %s, not the destination %s", last.Destination, a.Destination)
	case a.FlightType == "round_trip" && last.Destination != a.Origin:
		problem = fmt.Sprintf("a round trip must return to %s; the last flight arrives at %s", a.Origin, last.Destination)
	case a.FlightType == "round_trip" && !slices.ContainsFunc(legs, func(f *Flight) bool { return f.Destination == a.Destination }):
		problem = fmt.Sprintf("no flight arrives at the destination %s", a.Destination)
	}
	for i := 1; i < len(legs) && problem == ""; i++ {
		if legs[i].Origin != legs[i-1].Destination && !(a.FlightType == "round_trip" && legs[i-1].Destination == a.Destination) {
			problem = fmt.Sprintf("flight %s leaves from %s, where flight %s does not arrive", legs[i].FlightNumber, legs[i].Origin, legs[i-1].FlightNumber)
		}
	}
	if problem == "" {
		return ledger.OK
	}
	return ledger.NeedRevise("Per airline policy, the flights must make the trip the user asked for: " + problem + ".")
}

func checkBookPayments(c ledger.Call[*write]) ledger.Outcome {
	u := ledgerUser(c.Ledger)
	if u == nil {
		return ledger.OK // user_read
	}
	count := map[string]int{}
	var problems []string
	for _, p := range c.Args.Payments {
		pm, ok := u.PaymentMethods[p.ID]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s is not in the user's profile", q(p.ID)))
			continue
		}
		count[pm.Source]++
		if (pm.Source == "gift_card" || pm.Source == "certificate") && pm.Amount != nil && *pm.Amount < p.Amount {
			problems = append(problems, fmt.Sprintf("%s holds %s, less than %s", q(p.ID), pyjson.Float(*pm.Amount), pyjson.Float(p.Amount)))
		}
	}
	for src, most := range map[string]int{"certificate": 1, "credit_card": 1, "gift_card": 3} {
		if count[src] > most {
			problems = append(problems, fmt.Sprintf("%d %ss (at most %d)", count[src], strings.ReplaceAll(src, "_", " "), most))
		}
	}
	if len(problems) == 0 {
		return ledger.OK
	}
	slices.Sort(problems)
	return ledger.NeedRevise("Per airline policy, a reservation can use at most one travel certificate, one credit card and three gift cards, all from the user's profile: " + strings.Join(problems, "; ") + ".")
}

func checkBookTotal(c ledger.Call[*write]) ledger.Outcome {
	a := c.Args
	total := 0.0
	for _, f := range a.Flights {
		fl := ledgerFlight(c.Ledger, f.Number, f.Date)
		if fl == nil {
			return ledger.OK // flights_searched
		}
		p, ok := fl.Prices[a.Cabin]
		if !ok {
			return ledger.NeedRevise(fmt.Sprintf("Per airline policy, the cabin must be one the flights sell: %s has no %s price.", f.Number, a.Cabin))
		}
		total += p * float64(a.Passengers)
	}
	if a.Insurance == "yes" {
		total += insurancePrice * float64(a.Passengers)
	}
	total += bagPrice * float64(a.NonfreeBags)
	paid := 0.0
	for _, p := range a.Payments {
		paid += p.Amount
	}
	if math.Abs(paid-total) < 0.005 {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, the payments must add up to the price: flights at the %s prices for %d passengers, $%d per passenger for insurance if bought and $%d per non-free bag make %s; the payments sum to %s.",
		a.Cabin, a.Passengers, insurancePrice, bagPrice, pyjson.Float(total), pyjson.Float(paid)))
}

func checkBagsCharged(c ledger.Call[*write]) ledger.Outcome {
	u := ledgerUser(c.Ledger)
	a := c.Args
	cabin, n := a.Cabin, a.Passengers
	if a.tool == toolBaggages {
		r := reservation(c.Ledger, a.ReservationID)
		if r == nil {
			return ledger.OK // reservation_read
		}
		cabin, n = r.Cabin, len(r.Passengers)
	}
	if u == nil {
		return ledger.OK // user_read
	}
	free, ok := freeBags[u.Membership][cabin]
	if !ok {
		return ledger.OK
	}
	need := max(0, a.TotalBags-free*n)
	if a.NonfreeBags >= need {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, a %s member gets %d free checked bags per %s passenger: %d bags for %d passengers leave %d non-free (each $%d), not %d.",
		u.Membership, free, strings.ReplaceAll(cabin, "_", " "), a.TotalBags, n, need, bagPrice, a.NonfreeBags))
}

func checkBasicEconomy(c ledger.Call[*write]) ledger.Outcome {
	r := reservation(c.Ledger, c.Args.ReservationID)
	if r == nil || r.Cabin != "basic_economy" {
		return ledger.OK
	}
	same := len(r.Flights) == len(c.Args.Flights)
	for i := 0; same && i < len(r.Flights); i++ {
		same = r.Flights[i].FlightNumber == c.Args.Flights[i].Number && r.Flights[i].Date == c.Args.Flights[i].Date
	}
	if same {
		return ledger.OK // a cabin change
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, basic economy flights cannot be modified: reservation %s is basic economy (its cabin can change, with the same flights).", q(r.ReservationID)))
}

func checkUpdatePayment(c ledger.Call[*write]) ledger.Outcome {
	u := ledgerUser(c.Ledger)
	if u == nil {
		return ledger.OK // user_read
	}
	pm, ok := u.PaymentMethods[c.Args.PaymentID]
	switch {
	case !ok:
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, the payment method must be in the user's profile: %s is not.", q(c.Args.PaymentID)))
	case pm.Source != "gift_card" && pm.Source != "credit_card":
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, changes are paid or refunded with one gift card or credit card: %s is a %s.", q(c.Args.PaymentID), strings.ReplaceAll(pm.Source, "_", " ")))
	}
	if pm.Source == "gift_card" && pm.Amount != nil && c.Args.tool == toolBaggages {
		r := reservation(c.Ledger, c.Args.ReservationID)
		if r != nil {
			due := float64(bagPrice * max(0, c.Args.NonfreeBags-r.NonfreeBaggages))
			if *pm.Amount < due {
				return ledger.NeedRevise(fmt.Sprintf("Gift card %s holds %s, less than the $%s the added bags cost.", q(c.Args.PaymentID), pyjson.Float(*pm.Amount), pyjson.Float(due)))
			}
		}
	}
	return ledger.OK
}

func checkAddOnly(c ledger.Call[*write]) ledger.Outcome {
	r := reservation(c.Ledger, c.Args.ReservationID)
	if r == nil || (c.Args.TotalBags >= r.TotalBaggages && c.Args.NonfreeBags >= r.NonfreeBaggages) {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, checked bags can be added but not removed: reservation %s has %d bags (%d non-free); the call asks for %d (%d non-free).",
		q(r.ReservationID), r.TotalBaggages, r.NonfreeBaggages, c.Args.TotalBags, c.Args.NonfreeBags))
}

func checkPassengerCount(c ledger.Call[*write]) ledger.Outcome {
	r := reservation(c.Ledger, c.Args.ReservationID)
	if r == nil || len(r.Passengers) == c.Args.Passengers {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per airline policy, the number of passengers cannot change (even a human agent cannot do it): reservation %s has %d, the call %d.",
		q(r.ReservationID), len(r.Passengers), c.Args.Passengers))
}

// userReservations are the read reservations of the ledger's user.
func userReservations(l *ledger.Ledger, u *User) []*Reservation {
	var out []*Reservation
	for _, id := range u.Reservations {
		if r := reservation(l, id); r != nil && r.UserID == u.UserID {
			out = append(out, r)
		}
	}
	return out
}

func checkCompensation(c ledger.Call[*write]) ledger.Outcome {
	u := ledgerUser(c.Ledger)
	if u == nil || u.UserID != c.Args.UserID {
		return ledger.OK // user_read, own_user
	}
	if u.Membership == "silver" || u.Membership == "gold" {
		return ledger.OK
	}
	rs := userReservations(c.Ledger, u)
	for _, r := range rs {
		if r.Insurance == "yes" || r.Cabin == "business" {
			return ledger.OK
		}
	}
	if len(rs) == 0 {
		return ledger.NeedRevise(fmt.Sprintf("Per airline policy, a certificate is due only to silver or gold members or for a reservation with travel insurance or in business: read the reservation the user complains about (get_reservation_details) before %s.", c.Tool))
	}
	return ledger.Refuse("Per airline policy, do not compensate a regular member without travel insurance flying (basic) economy.")
}

func checkCertificateAmount(c ledger.Call[*write]) ledger.Outcome {
	u := ledgerUser(c.Ledger)
	if u == nil || u.UserID != c.Args.UserID {
		return ledger.OK
	}
	rs := userReservations(c.Ledger, u)
	if len(rs) == 0 {
		return ledger.OK // compensation asks for the reservation
	}
	var allowed []string
	for _, r := range rs {
		n := float64(len(r.Passengers))
		for _, per := range []float64{50, 100} {
			if math.Abs(c.Args.Amount-per*n) < 0.005 {
				return ledger.OK
			}
			allowed = append(allowed, pyjson.Float(per*n))
		}
	}
	slices.Sort(allowed)
	allowed = slices.Compact(allowed)
	return ledger.NeedRevise(fmt.Sprintf("Per airline policy, a certificate is $100 per passenger for cancelled flights or $50 per passenger for delayed ones, for the reservation concerned: %s is none of %s.",
		pyjson.Float(c.Args.Amount), strings.Join(allowed, ", ")))
}

func checkNotRepeated(c ledger.Call[*write]) ledger.Outcome {
	for _, w := range c.Ledger.Writes() {
		if w.Tool == c.Tool && (!w.Done || w.Succeeded) {
			return ledger.Refuse("A certificate was already sent in this conversation: the policy's gesture is one certificate per complaint.")
		}
	}
	return ledger.OK
}
