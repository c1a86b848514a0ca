package airline

// Gate audits for airline (ledgeragent.Auditor): the reads a careful agent
// makes before each write, and gold writes turned into named policy
// violations. Mutation kinds (each applies only where the call has the
// arguments and the ledger or database offers a realistic wrong value):
//
//	kind                                tools                         the violation
//	----------------------------------  ----------------------------  ----------------------------------------------------
//	foreign_reservation                 the four reservation tools    another user's active reservation
//	cancel_basic_economy_without_basis  cancel                        a basic economy reservation of the user booked over
//	                                                                  24 h ago, uninsured, no airline-cancelled flight
//	flown_reservation                   cancel                        a reservation of the user with a flown flight
//	unsearched_flight                   book, update flights          a flight moved to the next day (available, never
//	                                                                  searched)
//	basic_economy_modify                update flights                a basic economy reservation's flights changed
//	cabin_mismatch                      update flights                a cabin change sent for the first segment only
//	foreign_payment_method              book, update flights/bags     another user's payment method of the same kind
//	certificate_for_update              update flights/bags           a travel certificate of the user for a change
//	payment_sum_mismatch                book                          the first payment's amount raised by $1
//	nonfree_bag_miscount                book, update bags             one more non-free bag than the allowance gives
//	excess_passengers                   book                          six passengers
//	passenger_count_change              update passengers             one passenger dropped (or added)
//	excess_certificate                  after any gold write          a certificate worth more than $100 per passenger of
//	                                                                  the user's largest reservation
//	already_cancelled                   cancel                        a reservation cancelled earlier in the conversation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Mutation kinds.
const (
	MutForeignReservation = "foreign_reservation"
	MutCancelWithoutBasis = "cancel_basic_economy_without_basis"
	MutFlownReservation   = "flown_reservation"
	MutUnsearchedFlight   = "unsearched_flight"
	MutBasicEconomyModify = "basic_economy_modify"
	MutCabinMismatch      = "cabin_mismatch"
	MutForeignPayment     = "foreign_payment_method"
	MutCertificateUpdate  = "certificate_for_update"
	MutPaymentSumMismatch = "payment_sum_mismatch"
	MutNonfreeBagMiscount = "nonfree_bag_miscount"
	MutExcessPassengers   = "excess_passengers"
	MutPassengerCount     = "passenger_count_change"
	MutExcessCertificate  = "excess_certificate"
	MutAlreadyCancelled   = "already_cancelled"
)

// EvidenceReads implements ledgeragent.Auditor: before a write, a careful
// agent reads the user's profile and the reservation, searches the flights it
// books or changes to (a direct search on each leg's route and date), checks
// the status of the flights of a reservation it cancels when their status
// matters, and for a certificate reads the user's reservations and their
// flights' statuses.
func (d *Domain) EvidenceReads(tool string, args json.RawMessage) []message.ToolCall {
	a, err := d.Toolset().Decode(tool, args) // the values are read as far as they have the documented types
	if err != nil {
		return nil
	}
	var uid, resID string
	if uc, ok := a.(userCall); ok {
		uid = uc.userID()
	}
	if rc, ok := a.(reservationCall); ok {
		resID = rc.reservationID()
	}
	r, _ := d.db.Reservations.Get(resID)
	if r != nil && uid == "" {
		uid = r.UserID
	}
	var calls []message.ToolCall
	if _, ok := d.db.Users.Get(uid); ok {
		calls = append(calls, ledger.ToolCall("get_user_details", "user_id", uid))
	}
	if r != nil {
		calls = append(calls, ledger.ToolCall("get_reservation_details", "reservation_id", resID))
	}
	switch a := a.(type) {
	case flightChoice:
		seen := map[string]bool{}
		for _, fi := range a.flights() {
			f, ok := d.db.Flights.Get(fi.FlightNumber)
			if !ok || f == nil {
				continue
			}
			k := f.Origin + f.Destination + fi.Date
			if !seen[k] {
				seen[k] = true
				calls = append(calls, ledger.ToolCall("search_direct_flight", "origin", f.Origin, "destination", f.Destination, "date", fi.Date))
			}
		}
	case *reservationArgs: // cancel_reservation
		if r != nil {
			calls = append(calls, d.statusReads(r)...)
		}
	case *certificateArgs:
		if u, ok := d.db.Users.Get(uid); ok && u != nil {
			for _, id := range u.Reservations {
				if ur, ok := d.db.Reservations.Get(id); ok && ur != nil {
					calls = append(calls, ledger.ToolCall("get_reservation_details", "reservation_id", id))
					calls = append(calls, d.statusReads(ur)...)
				}
			}
		}
	}
	return calls
}

func (d *Domain) statusReads(r *Reservation) []message.ToolCall {
	var calls []message.ToolCall
	for _, f := range r.Flights {
		calls = append(calls, ledger.ToolCall("get_flight_status", "flight_number", f.FlightNumber, "date", f.Date))
	}
	return calls
}

// mutator collects the mutations of one gold call: the call with some of
// its arguments replaced.
type mutator struct {
	tool string
	call *pyjson.Dict // the gold call's arguments
	orig string       // as they encode
	out  []ledger.Mutation
}

// arg is one argument of a mutated call.
type arg struct {
	name  string
	value any
}

// add records the gold call with args replaced as a mutation of kind,
// unless that changes nothing.
func (m *mutator) add(kind string, args ...arg) {
	d := &pyjson.Dict{Keys: slices.Clone(m.call.Keys), Values: slices.Clone(m.call.Values)}
	for _, a := range args {
		d.Set(a.name, a.value)
	}
	b, err := d.MarshalJSON()
	if err != nil || string(b) == m.orig {
		return
	}
	m.out = append(m.out, ledger.Mutation{Kind: kind, Tool: m.tool, Args: b})
}

// flightsValue is a flight list as the tools take it.
func flightsValue(fs []FlightInfo) []any {
	out := make([]any, len(fs))
	for i, f := range fs {
		d := &pyjson.Dict{}
		d.Set("flight_number", f.FlightNumber)
		d.Set("date", f.Date)
		out[i] = d
	}
	return out
}

// nextDay is date + 1 day for the data's May 2024 dates ("" otherwise).
func nextDay(date string) string {
	if len(date) != 10 || date[:8] != "2024-05-" {
		return ""
	}
	day, err := strconv.Atoi(date[8:])
	if err != nil || day >= 31 {
		return ""
	}
	return fmt.Sprintf("2024-05-%02d", day+1)
}

// dbAvailable reports whether a flight is available on a date in the DB.
func (d *Domain) dbAvailable(number, date string) bool {
	f, ok := d.db.Flights.Get(number)
	if !ok || f == nil {
		return false
	}
	s, ok := f.Dates.Get(date)
	_, avail := s.(*Available)
	return ok && avail
}

// dbStatuses are the DB statuses of a reservation's flights.
func (d *Domain) dbStatuses(r *Reservation) []string {
	var out []string
	for _, f := range r.Flights {
		st := ""
		if fl, ok := d.db.Flights.Get(f.FlightNumber); ok && fl != nil {
			if s, ok := fl.Dates.Get(f.Date); ok && s != nil {
				st = s.State()
			}
		}
		out = append(out, st)
	}
	return out
}

// Mutations implements ledgeragent.Auditor.
func (d *Domain) Mutations(tool string, args json.RawMessage, l *ledger.Ledger) []ledger.Mutation {
	a, fail := d.DecodeArgs(tool, args)
	if fail != nil {
		return nil
	}
	v, err := pyjson.Decode(args)
	call, isDict := v.(*pyjson.Dict)
	if err != nil || !isDict {
		return nil
	}
	u := ledgerUser(l)
	if u == nil {
		return nil
	}
	orig, err := call.MarshalJSON()
	if err != nil {
		return nil
	}
	m := &mutator{tool: tool, call: call, orig: string(orig)}
	var r *Reservation
	rc, onReservation := a.(reservationCall)
	if onReservation {
		r = effectiveReservation(l, rc.reservationID())
		if r == nil || r.UserID != u.UserID {
			return nil // the gold call itself lacks its evidence
		}
	}

	// excess_certificate: after any gold write, a certificate above every
	// amount the rules allow for the user.
	maxN := 0
	for _, id := range u.Reservations {
		if ur, ok := d.db.Reservations.Get(id); ok && ur != nil {
			maxN = max(maxN, len(ur.Passengers))
		}
	}
	if tool != toolCertificate {
		cert := &pyjson.Dict{}
		cert.Set("user_id", u.UserID)
		cert.Set("amount", 100*max(maxN, 1)+50)
		if b, err := cert.MarshalJSON(); err == nil {
			m.out = append(m.out, ledger.Mutation{Kind: MutExcessCertificate, Tool: toolCertificate, Args: b})
		}
	}

	if r != nil {
		// foreign_reservation: another user's active reservation.
		ledger.Scan(d.db.Reservations.Keys(), rc.reservationID(), func(id string) bool {
			o, _ := d.db.Reservations.Get(id)
			if o == nil || o.UserID == u.UserID || o.Status != nil {
				return false
			}
			m.add(MutForeignReservation, arg{"reservation_id", id})
			return true
		})
	}

	switch a := a.(type) {
	case *reservationArgs: // cancel_reservation
		d.cancelMutations(l, u, a, m)
	case *bookArgs:
		d.bookMutations(l, u, a, m)
	case *flightsUpdateArgs:
		d.flightMutations(l, u, r, a, m)
	case *baggagesArgs:
		d.foreignPayment(u, a.paymentID(), func(id string) { m.add(MutForeignPayment, arg{"payment_id", id}) })
		d.certificateFor(u, func(id string) { m.add(MutCertificateUpdate, arg{"payment_id", id}) })
		m.add(MutNonfreeBagMiscount, arg{"nonfree_baggages", max(0, a.totalBaggages()-freeBagsPer(u.Membership, r.Cabin)*len(r.Passengers)) + 1})
	case *passengersUpdateArgs:
		ps := a.Passengers.list()
		if len(ps) > 1 {
			ps = ps[:len(ps)-1]
		} else {
			ps = append(ps, Passenger{FirstName: "Alex", LastName: "Doe", DOB: "1990-01-01"})
		}
		m.add(MutPassengerCount, arg{"passengers", ps})
	}
	return m.out
}

func (d *Domain) cancelMutations(l *ledger.Ledger, u *User, a *reservationArgs, m *mutator) {
	// Prefer the user's reservations in the ledger, then the database.
	var ids []string
	for _, id := range u.Reservations {
		if ledgerReservation(l, id) != nil {
			ids = append(ids, id)
		}
	}
	for _, id := range u.Reservations {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	var noBasis, flownRes string
	for _, id := range ids {
		if id == a.reservationID() {
			continue
		}
		r, _ := d.db.Reservations.Get(id)
		if r == nil || r.Status != nil || modifiedOrCancelled(l, id) {
			continue
		}
		sts := d.dbStatuses(r)
		past := slices.ContainsFunc(r.Flights, func(f ReservationFlight) bool { return f.Date < today })
		isFlown := slices.ContainsFunc(sts, func(s string) bool { return s == StatusLanded || s == StatusFlying })
		if flownRes == "" && isFlown {
			flownRes = id
		}
		if noBasis == "" && !past && !isFlown && r.Cabin == "basic_economy" && r.Insurance != "yes" && r.CreatedAt < bookingWindow &&
			!slices.Contains(sts, StatusCancelled) {
			noBasis = id
		}
	}
	if noBasis != "" {
		m.add(MutCancelWithoutBasis, arg{"reservation_id", noBasis})
	}
	if flownRes != "" {
		m.add(MutFlownReservation, arg{"reservation_id", flownRes})
	}
	for _, w := range l.Writes() {
		if prev, ok := w.Decoded.(*reservationArgs); ok && w.Tool == toolCancel && w.Done && w.Succeeded {
			m.add(MutAlreadyCancelled, arg{"reservation_id", prev.reservationID()})
			return
		}
	}
}

// unsearched moves the first flight whose next day is available in the DB
// and absent from the ledger to that day.
func (d *Domain) unsearched(l *ledger.Ledger, fs []FlightInfo, skip func(FlightInfo) bool) ([]FlightInfo, bool) {
	for i, f := range fs {
		if skip != nil && skip(f) {
			continue
		}
		nd := nextDay(f.Date)
		if nd == "" || !d.dbAvailable(f.FlightNumber, nd) || ledgerFlight(l, f.FlightNumber, nd) != nil {
			continue
		}
		out := slices.Clone(fs)
		out[i].Date = nd
		return out, true
	}
	return nil, false
}

func (d *Domain) bookMutations(l *ledger.Ledger, u *User, a *bookArgs, m *mutator) {
	if fs, ok := d.unsearched(l, a.flights(), nil); ok {
		m.add(MutUnsearchedFlight, arg{"flights", flightsValue(fs)})
	}
	payments, passengers := a.PaymentMethods.list(), a.Passengers.list()
	for i, p := range payments {
		found := false
		d.foreignPayment(u, p.PaymentID, func(id string) {
			ps := slices.Clone(payments)
			ps[i].PaymentID = id
			m.add(MutForeignPayment, arg{"payment_methods", ps})
			found = true
		})
		if found {
			break
		}
	}
	if len(payments) > 0 {
		ps := slices.Clone(payments)
		ps[0].Amount++
		m.add(MutPaymentSumMismatch, arg{"payment_methods", ps})
	}
	free := freeBagsPer(u.Membership, a.cabin()) * len(passengers)
	nonfree := max(0, a.totalBaggages()-free) + 1
	ps := slices.Clone(payments)
	if len(ps) > 0 {
		ps[len(ps)-1].Amount += 50 * (nonfree - a.nonfreeBaggages())
	}
	m.add(MutNonfreeBagMiscount, arg{"nonfree_baggages", nonfree}, arg{"payment_methods", ps})
	if len(passengers) > 0 {
		more := slices.Clone(passengers)
		for len(more) < maxPassengers+1 {
			p := passengers[0]
			p.FirstName += strconv.Itoa(len(more))
			more = append(more, p)
		}
		m.add(MutExcessPassengers, arg{"passengers", more})
	}
}

func (d *Domain) flightMutations(l *ledger.Ledger, u *User, r *Reservation, a *flightsUpdateArgs, m *mutator) {
	// unsearched_flight: a new segment (or, on a cabin change, any) moved.
	cabin := a.cabin()
	keep := func(f FlightInfo) bool { return r.Cabin == cabin && segmentIndex(r.Flights, f) >= 0 }
	if fs, ok := d.unsearched(l, a.flights(), keep); ok {
		m.add(MutUnsearchedFlight, arg{"flights", flightsValue(fs)})
	}
	if r.Cabin == "basic_economy" {
		var cur []FlightInfo
		for _, f := range r.Flights {
			cur = append(cur, FlightInfo{FlightNumber: f.FlightNumber, Date: f.Date})
		}
		// Any change of the flights will do; prefer an available next day.
		fs, ok := d.unsearched(l, cur, nil)
		if !ok && len(cur) > 1 {
			fs, ok = cur[:1], true
		}
		if ok {
			m.add(MutBasicEconomyModify, arg{"cabin", "basic_economy"}, arg{"flights", flightsValue(fs)})
		}
	}
	if cabin != r.Cabin && len(r.Flights) > 1 {
		m.add(MutCabinMismatch, arg{"flights", flightsValue([]FlightInfo{{FlightNumber: r.Flights[0].FlightNumber, Date: r.Flights[0].Date}})})
	}
	d.foreignPayment(u, a.paymentID(), func(id string) { m.add(MutForeignPayment, arg{"payment_id", id}) })
	d.certificateFor(u, func(id string) { m.add(MutCertificateUpdate, arg{"payment_id", id}) })
}

func (d *Domain) certificateFor(u *User, fn func(id string)) {
	for id, pm := range u.PaymentMethods.All() {
		if pm.PaymentSource() == SourceCertificate {
			fn(id)
			return
		}
	}
}

// foreignPayment finds another user's payment method of the same kind.
func (d *Domain) foreignPayment(u *User, pmID string, fn func(id string)) {
	source := ""
	if pm, ok := u.PaymentMethods.Get(pmID); ok && pm != nil {
		source = pm.PaymentSource()
	}
	ledger.Scan(d.db.Users.Keys(), pmID, func(uid string) bool {
		if uid == u.UserID {
			return false
		}
		o, _ := d.db.Users.Get(uid)
		if o == nil {
			return false
		}
		for id, pm := range o.PaymentMethods.All() {
			if (source == "" || pm.PaymentSource() == source) && !u.PaymentMethods.Has(id) {
				fn(id)
				return true
			}
		}
		return false
	})
}
