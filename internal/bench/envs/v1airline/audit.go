package v1airline

// Gate audits for v1 airline (ledgeragent.Auditor): the reads a careful
// agent makes before each write, and gold writes turned into named policy
// violations. Mutation kinds (each applies only where the call has the
// argument and the data offers a realistic wrong value):
//
//	kind                     tools                          the violation
//	-----------------------  -----------------------------  ------------------------------------------------
//	foreign_reservation      the four reservation tools     another user's reservation
//	foreign_user             book, send_certificate         another user's id
//	foreign_payment_method   book, update flights/baggages  another user's payment method of the same kind
//	certificate_for_update   update flights/baggages        a travel certificate of the user
//	payment_sum_mismatch     book                           the first payment's amount raised by $1
//	excess_passengers        book                           six passengers
//	unsearched_flight        book, update flights           a new flight moved to the next day
//	basic_economy_modify     update flights                 a basic economy reservation's flights changed
//	passenger_count_change   update passengers              one passenger dropped (or one added)
//	remove_bags              update baggages                one bag fewer than the reservation has
//	undercharged_bags        book, update baggages          one non-free bag fewer than the allowance leaves
//	excess_certificate       send_certificate               an amount no reservation of the user justifies
//	cancelled_reservation    the four reservation tools     a reservation cancelled earlier in the
//	                                                        conversation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Mutation kinds.
const (
	MutForeignReservation = "foreign_reservation"
	MutForeignUser        = "foreign_user"
	MutForeignPayment     = "foreign_payment_method"
	MutCertificateUpdate  = "certificate_for_update"
	MutPaymentSumMismatch = "payment_sum_mismatch"
	MutExcessPassengers   = "excess_passengers"
	MutUnsearchedFlight   = "unsearched_flight"
	MutBasicEconomyModify = "basic_economy_modify"
	MutPassengerCount     = "passenger_count_change"
	MutRemoveBags         = "remove_bags"
	MutUnderchargedBags   = "undercharged_bags"
	MutExcessCertificate  = "excess_certificate"
	MutCancelled          = "cancelled_reservation"
)

// record is a loaded record of a table (nil when absent).
func (d *Domain) record(table, key string) *pyjson.Dict {
	t, ok := d.DB().Table(table)
	if !ok {
		return nil
	}
	r, _ := t.Get(key)
	return r
}

func field(r *pyjson.Dict, key string) string {
	v, _ := r.Get(key)
	s, _ := v.(string)
	return s
}

// EvidenceReads implements ledgeragent.Auditor: before a write, a careful
// agent reads the user's profile and the reservation; it searches the new
// flights it books or changes to (a one-stop search for two connecting
// legs, a direct search for a leg alone); before a certificate it reads a
// reservation of the user that justifies the amount.
func (d *Domain) EvidenceReads(name string, args json.RawMessage) []message.ToolCall {
	w, err := d.decodeWrite(name, args)
	if err != nil {
		return nil
	}
	var out []message.ToolCall
	uid := w.UserID
	var res *pyjson.Dict
	if w.ReservationID != "" {
		if res = d.record("reservations", w.ReservationID); res != nil {
			uid = field(res, "user_id")
		}
	}
	if uid != "" {
		out = append(out, ledger.ToolCall("get_user_details", "user_id", uid))
	}
	if w.ReservationID != "" {
		out = append(out, ledger.ToolCall("get_reservation_details", "reservation_id", w.ReservationID))
	}
	switch name {
	case toolBook, toolFlights:
		legs := w.Flights
		if name == toolFlights && res != nil {
			legs = d.newLegsOf(res, w)
		}
		out = append(out, d.searches(legs)...)
	case toolCertificate:
		if r := d.justifyingReservation(w); r != "" {
			out = append(out, ledger.ToolCall("get_reservation_details", "reservation_id", r))
		}
	}
	return out
}

// newLegsOf are the call's flights a loaded reservation does not hold in
// the call's cabin.
func (d *Domain) newLegsOf(res *pyjson.Dict, w *write) []legRef {
	var r Reservation
	b, _ := pyjson.Marshal(res)
	if json.Unmarshal(b, &r) != nil {
		return w.Flights
	}
	var out []legRef
	for _, f := range w.Flights {
		kept := false
		if r.Cabin == w.Cabin {
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

// searches finds the legs as upstream's search tools list them: two
// connecting legs that search_onestop_flight pairs (the first's arrival not
// after the second's departure, the second on the same day or the next when
// the first lands after midnight) by one one-stop search, any other leg by a
// direct search.
func (d *Domain) searches(legs []legRef) []message.ToolCall {
	var out []message.ToolCall
	seen := map[string]bool{}
	add := func(tc message.ToolCall) {
		if k := tc.Name + string(tc.Arguments); !seen[k] {
			seen[k] = true
			out = append(out, tc)
		}
	}
	for i := 0; i < len(legs); i++ {
		f1 := d.record("flights", legs[i].Number)
		if f1 == nil {
			continue
		}
		if i+1 < len(legs) {
			if f2 := d.record("flights", legs[i+1].Number); f2 != nil && pairs(f1, f2, legs[i].Date, legs[i+1].Date) {
				add(ledger.ToolCall("search_onestop_flight", "origin", field(f1, "origin"), "destination", field(f2, "destination"), "date", legs[i].Date))
				i++
				continue
			}
		}
		add(ledger.ToolCall("search_direct_flight", "origin", field(f1, "origin"), "destination", field(f1, "destination"), "date", legs[i].Date))
	}
	return out
}

// pairs reports whether search_onestop_flight lists f1 and f2 on one date
// as one itinerary with the right data for both: the first's arrival (the
// same day) not after the second's departure, both available. (For a
// second leg on the next day the tool shows the first day's prices and
// status for it: such legs get direct searches.)
func pairs(f1, f2 *pyjson.Dict, date1, date2 string) bool {
	arr, dep := field(f1, "scheduled_arrival_time_est"), field(f2, "scheduled_departure_time_est")
	if date1 != date2 || field(f1, "destination") != field(f2, "origin") || strings.Contains(arr, "+1") || arr > dep {
		return false
	}
	status := func(f *pyjson.Dict, date string) string {
		dates, _ := f.Get("dates")
		dd, _ := dates.(*pyjson.Dict)
		e, _ := dd.Get(date)
		ed, _ := e.(*pyjson.Dict)
		if ed == nil {
			return ""
		}
		return field(ed, "status")
	}
	return status(f1, date1) == "available" && status(f2, date2) == "available"
}

// justifyingReservation is a reservation of the user whose passenger count
// the certificate's amount fits ($50 or $100 each), preferring one with
// insurance or in business.
func (d *Domain) justifyingReservation(w *write) string {
	u := d.record("users", w.UserID)
	if u == nil {
		return ""
	}
	ids, _ := u.Get("reservations")
	list, _ := ids.([]any)
	best, bestScore := "", -1
	for _, v := range list {
		id, _ := v.(string)
		r := d.record("reservations", id)
		if r == nil {
			continue
		}
		ps, _ := r.Get("passengers")
		n := len(ps.([]any))
		if w.Amount != float64(50*n) && w.Amount != float64(100*n) {
			continue
		}
		score := 0
		if field(r, "insurance") == "yes" || field(r, "cabin") == "business" {
			score = 1
		}
		if score > bestScore {
			best, bestScore = id, score
		}
	}
	return best
}

// Mutations implements ledgeragent.Auditor.
func (d *Domain) Mutations(name string, args json.RawMessage, l *ledger.Ledger) []ledger.Mutation {
	v, err := pyjson.Decode(args)
	base, ok := v.(*pyjson.Dict)
	if err != nil || !ok {
		return nil
	}
	w, err := d.decodeWrite(name, args)
	if err != nil {
		return nil
	}
	var out []ledger.Mutation
	add := func(kind string, set func(a *pyjson.Dict) bool) {
		a := cloneDict(base)
		if !set(a) {
			return
		}
		b, err := a.MarshalJSON()
		if err != nil {
			return
		}
		out = append(out, ledger.Mutation{Kind: kind, Tool: name, Args: b})
	}
	seed := name + string(args)
	u := ledgerUser(l)
	users, _ := d.DB().Table("users")
	reservations, _ := d.DB().Table("reservations")

	if w.ReservationID != "" {
		owner := ""
		if r := d.record("reservations", w.ReservationID); r != nil {
			owner = field(r, "user_id")
		}
		keys := reservations.Keys()
		for k := range keys {
			id := keys[(ledger.Offset(seed, len(keys))+k)%len(keys)]
			if r, _ := reservations.Get(id); r != nil && field(r, "user_id") != owner && owner != "" {
				add(MutForeignReservation, func(a *pyjson.Dict) bool { a.Set("reservation_id", id); return true })
				break
			}
		}
		for _, wr := range l.Writes() {
			if c, ok := wr.Decoded.(*write); ok && c.tool == toolCancel && wr.Succeeded && c.ReservationID != w.ReservationID {
				id := c.ReservationID
				add(MutCancelled, func(a *pyjson.Dict) bool { a.Set("reservation_id", id); return true })
				break
			}
		}
	}
	if w.UserID != "" {
		keys := users.Keys()
		other := keys[ledger.Offset(seed, len(keys))]
		if other == w.UserID {
			other = keys[(ledger.Offset(seed, len(keys))+1)%len(keys)]
		}
		add(MutForeignUser, func(a *pyjson.Dict) bool { a.Set("user_id", other); return true })
	}
	if u != nil && (name == toolBook || name == toolFlights || name == toolBaggages) {
		id := w.PaymentID
		if name == toolBook && len(w.Payments) > 0 {
			id = w.Payments[0].ID
		}
		if pm, ok := u.PaymentMethods[id]; ok {
			if other := d.otherUsersMethod(u.UserID, pm.Source, seed); other != "" {
				add(MutForeignPayment, func(a *pyjson.Dict) bool { return setPayment(a, name, other) })
			}
		}
		if name != toolBook {
			for _, mid := range sortedKeys(u.PaymentMethods) {
				if u.PaymentMethods[mid].Source == "certificate" {
					add(MutCertificateUpdate, func(a *pyjson.Dict) bool { a.Set("payment_id", mid); return true })
					break
				}
			}
		}
	}
	switch name {
	case toolBook:
		add(MutPaymentSumMismatch, func(a *pyjson.Dict) bool {
			pays, _ := a.Get("payment_methods")
			list, _ := pays.([]any)
			if len(list) == 0 {
				return false
			}
			p := cloneDict(list[0].(*pyjson.Dict))
			amt, _ := p.Get("amount")
			n, ok := amt.(json.Number)
			if !ok {
				return false
			}
			p.Set("amount", json.Number(pyjson.Float(pyjson.NumberFloat(n)+1)))
			nl := slices.Clone(list)
			nl[0] = p
			a.Set("payment_methods", nl)
			return true
		})
		add(MutExcessPassengers, func(a *pyjson.Dict) bool {
			ps, _ := a.Get("passengers")
			list, _ := ps.([]any)
			if len(list) == 0 {
				return false
			}
			nl := slices.Clone(list)
			for len(nl) < maxPassengers+1 {
				nl = append(nl, list[0])
			}
			a.Set("passengers", nl)
			return true
		})
	case toolPassengers:
		add(MutPassengerCount, func(a *pyjson.Dict) bool {
			ps, _ := a.Get("passengers")
			list, _ := ps.([]any)
			switch {
			case len(list) > 1:
				a.Set("passengers", slices.Clone(list[:len(list)-1]))
			case len(list) == 1:
				a.Set("passengers", []any{list[0], list[0]})
			default:
				return false
			}
			return true
		})
	case toolBaggages:
		if r := reservation(l, w.ReservationID); r != nil && r.TotalBaggages > 0 {
			total := r.TotalBaggages - 1
			add(MutRemoveBags, func(a *pyjson.Dict) bool {
				a.Set("total_baggages", json.Number(fmt.Sprint(total)))
				a.Set("nonfree_baggages", json.Number(fmt.Sprint(min(r.NonfreeBaggages, total))))
				return true
			})
		}
	case toolCertificate:
		amt := w.Amount + 7
		add(MutExcessCertificate, func(a *pyjson.Dict) bool {
			a.Set("amount", json.Number(pyjson.Float(amt)))
			return true
		})
	}
	if name == toolBook || name == toolFlights {
		legs := newLegs(l, w)
		if len(legs) > 0 {
			idx := slices.IndexFunc(w.Flights, func(f legRef) bool { return f == legs[0] })
			if next, ok := nextDay(legs[0].Date); ok && idx >= 0 {
				add(MutUnsearchedFlight, func(a *pyjson.Dict) bool { return moveLeg(a, idx, next) })
			}
		}
		if name == toolFlights {
			if r := reservation(l, w.ReservationID); r != nil && r.Cabin == "basic_economy" && len(w.Flights) > 0 {
				if next, ok := nextDay(w.Flights[0].Date); ok {
					add(MutBasicEconomyModify, func(a *pyjson.Dict) bool {
						a.Set("cabin", "basic_economy")
						return moveLeg(a, 0, next)
					})
				}
			}
		}
	}
	if (name == toolBook || name == toolBaggages) && u != nil {
		cabin, n := w.Cabin, w.Passengers
		if name == toolBaggages {
			if r := reservation(l, w.ReservationID); r != nil {
				cabin, n = r.Cabin, len(r.Passengers)
			} else {
				n = -1
			}
		}
		if free, ok := freeBags[u.Membership][cabin]; ok && n > 0 {
			if need := max(0, w.TotalBags-free*n); need > 0 {
				add(MutUnderchargedBags, func(a *pyjson.Dict) bool {
					a.Set("nonfree_baggages", json.Number(fmt.Sprint(need-1)))
					return true
				})
			}
		}
	}
	return out
}

func cloneDict(d *pyjson.Dict) *pyjson.Dict {
	return &pyjson.Dict{Keys: slices.Clone(d.Keys), Values: slices.Clone(d.Values)}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// setPayment puts a payment method into a write's arguments.
func setPayment(a *pyjson.Dict, name, id string) bool {
	if name != toolBook {
		a.Set("payment_id", id)
		return true
	}
	pays, _ := a.Get("payment_methods")
	list, _ := pays.([]any)
	if len(list) == 0 {
		return false
	}
	p := cloneDict(list[0].(*pyjson.Dict))
	p.Set("payment_id", id)
	nl := slices.Clone(list)
	nl[0] = p
	a.Set("payment_methods", nl)
	return true
}

// moveLeg sets flights[i]'s date.
func moveLeg(a *pyjson.Dict, i int, date string) bool {
	fs, _ := a.Get("flights")
	list, _ := fs.([]any)
	if i >= len(list) {
		return false
	}
	f, ok := list[i].(*pyjson.Dict)
	if !ok {
		return false
	}
	nf := cloneDict(f)
	nf.Set("date", date)
	nl := slices.Clone(list)
	nl[i] = nf
	a.Set("flights", nl)
	return true
}

func nextDay(date string) (string, bool) {
	t, err := time.Parse("2006-01-02", date)
	if err != nil {
		return "", false
	}
	return t.AddDate(0, 0, 1).Format("2006-01-02"), true
}

// otherUsersMethod is another user's payment method of the given source.
func (d *Domain) otherUsersMethod(uid, source, seed string) string {
	users, _ := d.DB().Table("users")
	keys := users.Keys()
	for k := range keys {
		id := keys[(ledger.Offset(seed, len(keys))+k)%len(keys)]
		if id == uid {
			continue
		}
		u, _ := users.Get(id)
		pms, _ := u.Get("payment_methods")
		pd, _ := pms.(*pyjson.Dict)
		for i, mid := range pd.Keys {
			m, _ := pd.Values[i].(*pyjson.Dict)
			if m != nil && field(m, "source") == source {
				return mid
			}
		}
	}
	return ""
}
