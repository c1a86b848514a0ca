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
	"hash/fnv"
	"slices"
	"strconv"

	"github.com/ledgerbench/ledgerbench/internal/pyjson"
	"github.com/ledgerbench/ledgerbench/ledger"
	"github.com/ledgerbench/ledgerbench/message"
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

func toolCall(name string, kv ...string) message.ToolCall {
	d := &pyjson.Dict{}
	for i := 0; i+1 < len(kv); i += 2 {
		d.Set(kv[i], kv[i+1])
	}
	b, err := d.MarshalJSON()
	if err != nil {
		b = []byte("{}")
	}
	return message.ToolCall{Name: name, Arguments: b}
}

// EvidenceReads implements ledgeragent.Auditor: before a write, a careful
// agent reads the user's profile and the reservation, searches the flights it
// books or changes to (a direct search on each leg's route and date), checks
// the status of the flights of a reservation it cancels when their status
// matters, and for a certificate reads the user's reservations and their
// flights' statuses.
func (d *Domain) EvidenceReads(tool string, args json.RawMessage) []message.ToolCall {
	if paramsOf(tool) == nil {
		return nil
	}
	a, _ := decodeWrite(tool, args)
	uid := a.UserID
	r, _ := d.db.Reservations.Get(a.ReservationID)
	if r != nil && uid == "" {
		uid = r.UserID
	}
	var calls []message.ToolCall
	if _, ok := d.db.Users.Get(uid); ok {
		calls = append(calls, toolCall("get_user_details", "user_id", uid))
	}
	if r != nil {
		calls = append(calls, toolCall("get_reservation_details", "reservation_id", a.ReservationID))
	}
	switch tool {
	case toolBook, toolFlights:
		seen := map[string]bool{}
		for _, fi := range a.Flights {
			f, ok := d.db.Flights.Get(fi.FlightNumber)
			if !ok || f == nil {
				continue
			}
			k := f.Origin + f.Destination + fi.Date
			if !seen[k] {
				seen[k] = true
				calls = append(calls, toolCall("search_direct_flight", "origin", f.Origin, "destination", f.Destination, "date", fi.Date))
			}
		}
	case toolCancel:
		if r != nil {
			calls = append(calls, d.statusReads(r)...)
		}
	case toolCertificate:
		if u, ok := d.db.Users.Get(uid); ok && u != nil {
			for _, id := range u.Reservations {
				if ur, ok := d.db.Reservations.Get(id); ok && ur != nil {
					calls = append(calls, toolCall("get_reservation_details", "reservation_id", id))
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
		calls = append(calls, toolCall("get_flight_status", "flight_number", f.FlightNumber, "date", f.Date))
	}
	return calls
}

// encodeWrite writes arguments back as the tool's JSON object.
func encodeWrite(tool string, a writeArgs) json.RawMessage {
	d := &pyjson.Dict{}
	for _, p := range paramsOf(tool) {
		var v any
		switch p.name {
		case "user_id":
			v = a.UserID
		case "reservation_id":
			v = a.ReservationID
		case "origin":
			v = a.Origin
		case "destination":
			v = a.Destination
		case "flight_type":
			v = a.FlightType
		case "cabin":
			v = a.Cabin
		case "insurance":
			v = a.Insurance
		case "payment_id":
			v = a.PaymentID
		case "total_baggages":
			v = a.TotalBaggages
		case "nonfree_baggages":
			v = a.NonfreeBaggages
		case "amount":
			v = json.Number(strconv.FormatFloat(a.Amount, 'f', -1, 64))
		case "flights":
			fs := make([]any, len(a.Flights))
			for i, f := range a.Flights {
				fd := &pyjson.Dict{}
				fd.Set("flight_number", f.FlightNumber)
				fd.Set("date", f.Date)
				fs[i] = fd
			}
			v = fs
		case "passengers":
			v = a.Passengers
		case "payment_methods":
			v = a.Payments
		}
		d.Set(p.name, v)
	}
	b, err := d.MarshalJSON()
	if err != nil {
		return nil
	}
	return b
}

func offset(s string, n int) int {
	if n == 0 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(s))
	return int(h.Sum32() % uint32(n))
}

// scan visits keys starting at offset(seed), wrapping around, until fn
// returns true.
func scan(keys []string, seed string, fn func(k string) bool) {
	start := offset(seed, len(keys))
	for i := range keys {
		if fn(keys[(start+i)%len(keys)]) {
			return
		}
	}
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
	a, problem := decodeWrite(tool, args)
	if problem != "" || paramsOf(tool) == nil {
		return nil
	}
	u := ledgerUser(l)
	if u == nil {
		return nil
	}
	var out []ledger.Mutation
	orig := string(encodeWrite(tool, a))
	addTo := func(t, kind string, m writeArgs) {
		raw := encodeWrite(t, m)
		if raw == nil || (t == tool && string(raw) == orig) {
			return
		}
		out = append(out, ledger.Mutation{Kind: kind, Tool: t, Args: raw})
	}
	add := func(kind string, m writeArgs) { addTo(tool, kind, m) }
	clone := func() writeArgs {
		m := a
		m.Flights = slices.Clone(a.Flights)
		m.Passengers = slices.Clone(a.Passengers)
		m.Payments = slices.Clone(a.Payments)
		return m
	}
	var r *Reservation
	if a.ReservationID != "" {
		r = effectiveReservation(l, a.ReservationID)
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
		addTo(toolCertificate, MutExcessCertificate, writeArgs{UserID: u.UserID, Amount: float64(100*max(maxN, 1) + 50)})
	}

	if r != nil {
		// foreign_reservation: another user's active reservation.
		scan(d.db.Reservations.Keys(), a.ReservationID, func(id string) bool {
			o, _ := d.db.Reservations.Get(id)
			if o == nil || o.UserID == u.UserID || o.Status != nil {
				return false
			}
			m := clone()
			m.ReservationID = id
			add(MutForeignReservation, m)
			return true
		})
	}

	switch tool {
	case toolCancel:
		d.cancelMutations(l, u, a, clone, add)
	case toolBook:
		d.bookMutations(l, u, a, clone, add)
	case toolFlights:
		d.flightMutations(l, u, r, a, clone, add)
	case toolBaggages:
		d.foreignPayment(u, a.PaymentID, func(id string) { m := clone(); m.PaymentID = id; add(MutForeignPayment, m) })
		d.certificateFor(u, func(id string) { m := clone(); m.PaymentID = id; add(MutCertificateUpdate, m) })
		m := clone()
		m.NonfreeBaggages = max(0, m.TotalBaggages-freeBagsPer(u.Membership, r.Cabin)*len(r.Passengers)) + 1
		add(MutNonfreeBagMiscount, m)
	case toolPassengers:
		m := clone()
		if len(m.Passengers) > 1 {
			m.Passengers = m.Passengers[:len(m.Passengers)-1]
		} else {
			m.Passengers = append(m.Passengers, Passenger{FirstName: "Alex", LastName: "Doe", DOB: "1990-01-01"})
		}
		add(MutPassengerCount, m)
	}
	return out
}

func (d *Domain) cancelMutations(l *ledger.Ledger, u *User, a writeArgs, clone func() writeArgs, add func(string, writeArgs)) {
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
		if id == a.ReservationID {
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
		m := clone()
		m.ReservationID = noBasis
		add(MutCancelWithoutBasis, m)
	}
	if flownRes != "" {
		m := clone()
		m.ReservationID = flownRes
		add(MutFlownReservation, m)
	}
	for _, w := range l.Writes() {
		if w.Tool == toolCancel && w.Done && w.Succeeded {
			if prev, problem := decodeWrite(w.Tool, w.Args); problem == "" {
				add(MutAlreadyCancelled, prev)
				return
			}
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

func (d *Domain) bookMutations(l *ledger.Ledger, u *User, a writeArgs, clone func() writeArgs, add func(string, writeArgs)) {
	if fs, ok := d.unsearched(l, a.Flights, nil); ok {
		m := clone()
		m.Flights = fs
		add(MutUnsearchedFlight, m)
	}
	for i, p := range a.Payments {
		found := false
		d.foreignPayment(u, p.PaymentID, func(id string) {
			m := clone()
			m.Payments[i].PaymentID = id
			add(MutForeignPayment, m)
			found = true
		})
		if found {
			break
		}
	}
	if len(a.Payments) > 0 {
		m := clone()
		m.Payments[0].Amount++
		add(MutPaymentSumMismatch, m)
	}
	m := clone()
	free := freeBagsPer(u.Membership, a.Cabin) * len(a.Passengers)
	m.NonfreeBaggages = max(0, a.TotalBaggages-free) + 1
	if len(m.Payments) > 0 {
		m.Payments[len(m.Payments)-1].Amount += 50 * (m.NonfreeBaggages - a.NonfreeBaggages)
	}
	add(MutNonfreeBagMiscount, m)
	if len(a.Passengers) > 0 {
		m := clone()
		for len(m.Passengers) < maxPassengers+1 {
			p := a.Passengers[0]
			p.FirstName += strconv.Itoa(len(m.Passengers))
			m.Passengers = append(m.Passengers, p)
		}
		add(MutExcessPassengers, m)
	}
}

func (d *Domain) flightMutations(l *ledger.Ledger, u *User, r *Reservation, a writeArgs, clone func() writeArgs, add func(string, writeArgs)) {
	// unsearched_flight: a new segment (or, on a cabin change, any) moved.
	keep := func(f FlightInfo) bool { return r.Cabin == a.Cabin && segmentIndex(r.Flights, f) >= 0 }
	if fs, ok := d.unsearched(l, a.Flights, keep); ok {
		m := clone()
		m.Flights = fs
		add(MutUnsearchedFlight, m)
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
			m := clone()
			m.Cabin, m.Flights = "basic_economy", fs
			add(MutBasicEconomyModify, m)
		}
	}
	if a.Cabin != r.Cabin && len(r.Flights) > 1 {
		m := clone()
		m.Flights = []FlightInfo{{FlightNumber: r.Flights[0].FlightNumber, Date: r.Flights[0].Date}}
		add(MutCabinMismatch, m)
	}
	d.foreignPayment(u, a.PaymentID, func(id string) { m := clone(); m.PaymentID = id; add(MutForeignPayment, m) })
	d.certificateFor(u, func(id string) { m := clone(); m.PaymentID = id; add(MutCertificateUpdate, m) })
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
	scan(d.db.Users.Keys(), pmID, func(uid string) bool {
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
