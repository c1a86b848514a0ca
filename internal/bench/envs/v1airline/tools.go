package v1airline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyops"
)

// Tool names of the write tools (the gate guards them).
const (
	toolBook        = "book_reservation"
	toolCancel      = "cancel_reservation"
	toolBaggages    = "update_reservation_baggages"
	toolFlights     = "update_reservation_flights"
	toolPassengers  = "update_reservation_passengers"
	toolCertificate = "send_certificate"
)

// newTools builds the 14 tools in upstream's ALL_TOOLS order. Descriptions
// and parameter schemas are upstream's get_info() dicts, read at load time.
func newTools() []tauv1.Def {
	return []tauv1.Def{
		{Class: "BookReservation", Tool: tool.New(toolBook, tool.Write, "", bookReservation)},
		{Class: "Calculate", Tool: tool.New("calculate", tool.Generic, "", calculate)},
		{Class: "CancelReservation", Tool: tool.New(toolCancel, tool.Write, "", cancelReservation)},
		{Class: "GetReservationDetails", Tool: tool.New("get_reservation_details", tool.Read, "", getReservationDetails)},
		{Class: "GetUserDetails", Tool: tool.New("get_user_details", tool.Read, "", getUserDetails)},
		{Class: "ListAllAirports", Tool: tool.New("list_all_airports", tool.Read, "", listAllAirports)},
		{Class: "SearchDirectFlight", Tool: tool.New("search_direct_flight", tool.Read, "", searchDirectFlight)},
		{Class: "SearchOnestopFlight", Tool: tool.New("search_onestop_flight", tool.Read, "", searchOnestopFlight)},
		{Class: "SendCertificate", Tool: tool.New(toolCertificate, tool.Write, "", sendCertificate)},
		{Class: "Think", Tool: tool.New("think", tool.Think, "", think)},
		{Class: "TransferToHumanAgents", Tool: tool.New(TerminateTool, tool.Generic, "", transfer)},
		{Class: "UpdateReservationBaggages", Tool: tool.New(toolBaggages, tool.Write, "", updateBaggages)},
		{Class: "UpdateReservationFlights", Tool: tool.New(toolFlights, tool.Write, "", updateFlights)},
		{Class: "UpdateReservationPassengers", Tool: tool.New(toolPassengers, tool.Write, "", updatePassengers)},
	}
}

// get is d[k] for a str key.
func get(d any, k string) (any, error) { return pyops.GetItem(d, k) }

// get2 is d[a][b].
func get2(d any, a, b any) (any, error) {
	v, err := pyops.GetItem(d, a)
	if err != nil {
		return nil, err
	}
	return pyops.GetItem(v, b)
}

// eqStr is v == s.
func eqStr(v any, s string) bool { return pyops.Eq(v, s) }

func str(v any) string { return pyjson.Str(v) }

func bookReservation(_ context.Context, e *tauv1.Env, a bookArgs) (any, error) {
	reservations, users := e.View("reservations"), e.View("users")
	uid, ok, err := tauv1.Key(users, a.UserID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: user not found", nil
	}
	user, _ := users.Mut(uid)

	// assume each task makes at most 3 reservations
	reservationID := "HATHAT"
	if reservations.Has(reservationID) {
		reservationID = "HATHAU"
		if reservations.Has(reservationID) {
			reservationID = "HATHAV"
		}
	}
	passengers, payments := a.Passengers.V, a.PaymentMethods.V
	reservation := &pyjson.Dict{}
	for _, kv := range []struct {
		k string
		v any
	}{
		{"reservation_id", reservationID},
		{"user_id", a.UserID.V},
		{"origin", a.Origin.V},
		{"destination", a.Destination.V},
		{"flight_type", a.FlightType.V},
		{"cabin", a.Cabin.V},
		{"flights", pyops.DeepCopy(a.Flights.V)},
		{"passengers", passengers},
		{"payment_history", payments},
		{"created_at", "2024-05-15T15:00:00"},
		{"total_baggages", a.TotalBaggages.V},
		{"nonfree_baggages", a.NonfreeBags.V},
		{"insurance", a.Insurance.V},
	} {
		reservation.Set(kv.k, kv.v)
	}

	// update flights and calculate price
	var totalPrice any = json.Number("0")
	flightsTable := e.View("flights")
	resFlights, _ := reservation.Get("flights")
	items, err := pyops.Iter(resFlights)
	if err != nil {
		return nil, err
	}
	for _, flight := range items {
		flightNumber, err := get(flight, "flight_number")
		if err != nil {
			return nil, err
		}
		fn, ok, err := tauv1.Key(flightsTable, flightNumber)
		if err != nil {
			return nil, err
		}
		if !ok {
			return "Error: flight " + str(flightNumber) + " not found", nil
		}
		flightData, _ := flightsTable.Get(fn)
		date, err := get(flight, "date")
		if err != nil {
			return nil, err
		}
		dates, err := get(flightData, "dates")
		if err != nil {
			return nil, err
		}
		if in, err := pyops.Contains(dates, date); err != nil {
			return nil, err
		} else if !in {
			date, _ := get(flight, "date")
			return "Error: flight " + str(flightNumber) + " not found on date " + str(date), nil
		}
		dateData, err := pyops.GetItem(dates, date)
		if err != nil {
			return nil, err
		}
		status, err := get(dateData, "status")
		if err != nil {
			return nil, err
		}
		if !eqStr(status, "available") {
			date, _ := get(flight, "date")
			return "Error: flight " + str(flightNumber) + " not available on date " + str(date), nil
		}
		seats, err := get2(dateData, "available_seats", a.Cabin.V)
		if err != nil {
			return nil, err
		}
		n, err := pyops.Len(passengers)
		if err != nil {
			return nil, err
		}
		if lt, err := pyops.Compare("<", seats, pyops.Int(int64(n))); err != nil {
			return nil, err
		} else if lt {
			return "Error: not enough seats on flight " + str(flightNumber), nil
		}
		price, err := get2(dateData, "prices", a.Cabin.V)
		if err != nil {
			return nil, err
		}
		if err := pyops.SetItem(flight, "price", price); err != nil {
			return nil, err
		}
		for _, k := range []string{"origin", "destination"} {
			v, err := get(flightData, k)
			if err != nil {
				return nil, err
			}
			if err := pyops.SetItem(flight, k, v); err != nil {
				return nil, err
			}
		}
		p, err := get(flight, "price")
		if err != nil {
			return nil, err
		}
		n, err = pyops.Len(passengers)
		if err != nil {
			return nil, err
		}
		cost, err := pyops.Mul(p, pyops.Int(int64(n)))
		if err != nil {
			return nil, err
		}
		if totalPrice, err = pyops.Add(totalPrice, cost, true); err != nil {
			return nil, err
		}
	}
	if eqStr(a.Insurance.V, "yes") {
		n, err := pyops.Len(passengers)
		if err != nil {
			return nil, err
		}
		if totalPrice, err = pyops.Add(totalPrice, pyops.Int(30*int64(n)), true); err != nil {
			return nil, err
		}
	}
	bags, err := pyops.Mul(pyops.Int(50), a.NonfreeBags.V)
	if err != nil {
		return nil, err
	}
	if totalPrice, err = pyops.Add(totalPrice, bags, true); err != nil {
		return nil, err
	}

	payItems, err := pyops.Iter(payments)
	if err != nil {
		return nil, err
	}
	var methods any
	for _, pm := range payItems {
		paymentID, err := get(pm, "payment_id")
		if err != nil {
			return nil, err
		}
		amount, err := get(pm, "amount")
		if err != nil {
			return nil, err
		}
		if methods, err = get(user, "payment_methods"); err != nil {
			return nil, err
		}
		if in, err := pyops.Contains(methods, paymentID); err != nil {
			return nil, err
		} else if !in {
			return "Error: payment method " + str(paymentID) + " not found", nil
		}
		source, err := get2(methods, paymentID, "source")
		if err != nil {
			return nil, err
		}
		if eqStr(source, "gift_card") || eqStr(source, "certificate") {
			balance, err := get2(methods, paymentID, "amount")
			if err != nil {
				return nil, err
			}
			if lt, err := pyops.Compare("<", balance, amount); err != nil {
				return nil, err
			} else if lt {
				return "Error: not enough balance in payment method " + str(paymentID), nil
			}
		}
	}
	paid := func() (any, error) {
		var sum any = json.Number("0")
		for _, pm := range payItems {
			amount, err := get(pm, "amount")
			if err != nil {
				return nil, err
			}
			if sum, err = pyops.Add(sum, amount, false); err != nil {
				return nil, err
			}
		}
		return sum, nil
	}
	total, err := paid()
	if err != nil {
		return nil, err
	}
	if !pyops.Eq(total, totalPrice) {
		again, err := paid()
		if err != nil {
			return nil, err
		}
		return fmt.Sprintf("Error: payment amount does not add up, total price is %s, but paid %s", str(totalPrice), str(again)), nil
	}

	// if checks pass, deduct payment and update seats
	for _, pm := range payItems {
		paymentID, err := get(pm, "payment_id")
		if err != nil {
			return nil, err
		}
		amount, err := get(pm, "amount")
		if err != nil {
			return nil, err
		}
		method, err := pyops.GetItem(methods, paymentID)
		if err != nil {
			return nil, err
		}
		source, err := get(method, "source")
		if err != nil {
			return nil, err
		}
		switch {
		case eqStr(source, "gift_card"):
			balance, err := get(method, "amount")
			if err != nil {
				return nil, err
			}
			left, err := pyops.Sub(balance, amount, true)
			if err != nil {
				return nil, err
			}
			if err := pyops.SetItem(method, "amount", left); err != nil {
				return nil, err
			}
		case eqStr(source, "certificate"):
			md, ok := methods.(*pyjson.Dict)
			key, isStr := paymentID.(string)
			if !ok || !isStr {
				return nil, pyops.KeyError(paymentID)
			}
			if err := pyops.Delete(md, key); err != nil {
				return nil, err
			}
		}
	}
	reservations.Add(reservationID, reservation)
	if err := tauv1.Append(user, "reservations", reservationID); err != nil {
		return nil, err
	}
	return tauv1.Dumps(reservation)
}

func calculate(_ context.Context, _ *tauv1.Env, a expressionArgs) (any, error) {
	return tauv1.Calculate(a.Expression.V)
}

func cancelReservation(_ context.Context, e *tauv1.Env, a reservationArgs) (any, error) {
	reservations := e.View("reservations")
	rid, ok, err := tauv1.Key(reservations, a.ReservationID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: reservation not found", nil
	}
	reservation, _ := reservations.Mut(rid)

	// reverse the payment
	history, err := get(reservation, "payment_history")
	if err != nil {
		return nil, err
	}
	payments, err := pyops.Iter(history)
	if err != nil {
		return nil, err
	}
	var refunds []any
	for _, p := range payments {
		id, err := get(p, "payment_id")
		if err != nil {
			return nil, err
		}
		amount, err := get(p, "amount")
		if err != nil {
			return nil, err
		}
		neg, err := pyops.Neg(amount)
		if err != nil {
			return nil, err
		}
		refund := &pyjson.Dict{}
		refund.Set("payment_id", id)
		refund.Set("amount", neg)
		refunds = append(refunds, refund)
	}
	if err := tauv1.Extend(reservation, "payment_history", refunds); err != nil {
		return nil, err
	}
	reservation.Set("status", "cancelled")
	return tauv1.Dumps(reservation)
}

func getReservationDetails(_ context.Context, e *tauv1.Env, a reservationArgs) (any, error) {
	reservations := e.View("reservations")
	rid, ok, err := tauv1.Key(reservations, a.ReservationID.V)
	if err != nil {
		return nil, err
	}
	if ok {
		r, _ := reservations.Get(rid)
		return tauv1.Dumps(r)
	}
	return "Error: user not found", nil
}

func getUserDetails(_ context.Context, e *tauv1.Env, a userArgs) (any, error) {
	users := e.View("users")
	uid, ok, err := tauv1.Key(users, a.UserID.V)
	if err != nil {
		return nil, err
	}
	if ok {
		u, _ := users.Get(uid)
		return tauv1.Dumps(u)
	}
	return "Error: user not found", nil
}

// airports are list_all_airports' codes and cities, in its order.
var airports = [][2]string{
	{"SFO", "San Francisco"}, {"JFK", "New York"}, {"LAX", "Los Angeles"}, {"ORD", "Chicago"},
	{"DFW", "Dallas"}, {"DEN", "Denver"}, {"SEA", "Seattle"}, {"ATL", "Atlanta"}, {"MIA", "Miami"},
	{"BOS", "Boston"}, {"PHX", "Phoenix"}, {"IAH", "Houston"}, {"LAS", "Las Vegas"}, {"MCO", "Orlando"},
	{"EWR", "Newark"}, {"CLT", "Charlotte"}, {"MSP", "Minneapolis"}, {"DTW", "Detroit"},
	{"PHL", "Philadelphia"}, {"LGA", "LaGuardia"},
}

func listAllAirports(_ context.Context, _ *tauv1.Env, _ noArgs) (any, error) {
	d := &pyjson.Dict{}
	for _, a := range airports {
		d.Set(a[0], a[1])
	}
	return tauv1.Dumps(d)
}

// withDate is {k: v for k, v in flight.items() if k != "dates"} updated
// with the date's entry.
func withDate(flight *pyjson.Dict, dateData any) (*pyjson.Dict, error) {
	out := &pyjson.Dict{}
	for i, k := range flight.Keys {
		if k != "dates" {
			out.Set(k, flight.Values[i])
		}
	}
	if err := update(out, dateData); err != nil {
		return nil, err
	}
	return out, nil
}

// update is d.update(other) for a dict other.
func update(d *pyjson.Dict, other any) error {
	o, ok := other.(*pyjson.Dict)
	if !ok {
		if _, err := pyops.Iter(other); err != nil {
			return err
		}
		return pyops.TypeError("cannot convert dictionary update sequence element #0 to a sequence")
	}
	for i, k := range o.Keys {
		d.Set(k, o.Values[i])
	}
	return nil
}

func searchDirectFlight(_ context.Context, e *tauv1.Env, a searchArgs) (any, error) {
	results := []any{}
	for _, flight := range e.View("flights").All() {
		o, err := get(flight, "origin")
		if err != nil {
			return nil, err
		}
		if !pyops.Eq(o, a.Origin.V) {
			continue
		}
		d, err := get(flight, "destination")
		if err != nil {
			return nil, err
		}
		if !pyops.Eq(d, a.Destination.V) {
			continue
		}
		dates, err := get(flight, "dates")
		if err != nil {
			return nil, err
		}
		in, err := pyops.Contains(dates, a.Date.V)
		if err != nil {
			return nil, err
		}
		if !in {
			continue
		}
		dateData, err := pyops.GetItem(dates, a.Date.V)
		if err != nil {
			return nil, err
		}
		status, err := get(dateData, "status")
		if err != nil {
			return nil, err
		}
		if !eqStr(status, "available") {
			continue
		}
		r, err := withDate(flight, dateData)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return tauv1.Dumps(results)
}

func searchOnestopFlight(_ context.Context, e *tauv1.Env, a searchArgs) (any, error) {
	flights := e.View("flights")
	date := a.Date.V
	results := []any{}
	for _, f1 := range flights.All() {
		o, err := get(f1, "origin")
		if err != nil {
			return nil, err
		}
		if !pyops.Eq(o, a.Origin.V) {
			continue
		}
		for _, f2 := range flights.All() {
			d2, err := get(f2, "destination")
			if err != nil {
				return nil, err
			}
			if !pyops.Eq(d2, a.Destination.V) {
				continue
			}
			d1, err := get(f1, "destination")
			if err != nil {
				return nil, err
			}
			o2, err := get(f2, "origin")
			if err != nil {
				return nil, err
			}
			if !pyops.Eq(d1, o2) {
				continue
			}
			arrival, err := get(f1, "scheduled_arrival_time_est")
			if err != nil {
				return nil, err
			}
			nextDay, err := pyops.Contains(arrival, "+1")
			if err != nil {
				return nil, err
			}
			date2 := date
			if nextDay {
				lo := -2
				tail, err := pyops.Slice(date, &lo, nil)
				if err != nil {
					return nil, err
				}
				day, err := pyops.ParseInt(tail)
				if err != nil {
					return nil, err
				}
				next, err := pyops.Add(day, pyops.Int(1), false)
				if err != nil {
					return nil, err
				}
				date2 = "2024-05-" + str(next)
			}
			departure, err := get(f2, "scheduled_departure_time_est")
			if err != nil {
				return nil, err
			}
			if later, err := pyops.Compare(">", arrival, departure); err != nil {
				return nil, err
			} else if later {
				continue
			}
			dates1, err := get(f1, "dates")
			if err != nil {
				return nil, err
			}
			in1, err := pyops.Contains(dates1, date)
			if err != nil {
				return nil, err
			}
			if !in1 {
				continue
			}
			dates2, err := get(f2, "dates")
			if err != nil {
				return nil, err
			}
			in2, err := pyops.Contains(dates2, date2)
			if err != nil {
				return nil, err
			}
			if !in2 {
				continue
			}
			s1, err := get2(dates1, date, "status")
			if err != nil {
				return nil, err
			}
			if !eqStr(s1, "available") {
				continue
			}
			s2, err := get2(dates2, date2, "status")
			if err != nil {
				return nil, err
			}
			if !eqStr(s2, "available") {
				continue
			}
			dd1, _ := pyops.GetItem(dates1, date)
			r1, err := withDate(f1, dd1)
			if err != nil {
				return nil, err
			}
			r1.Set("date", date)
			// Upstream updates the second leg with its entry for the first
			// leg's date (not date2).
			dd2, err := pyops.GetItem(dates2, date)
			if err != nil {
				return nil, err
			}
			r2, err := withDate(f2, dd2)
			if err != nil {
				return nil, err
			}
			r2.Set("date", date2)
			results = append(results, []any{r1, r2})
		}
	}
	return tauv1.Dumps(results)
}

func sendCertificate(_ context.Context, e *tauv1.Env, a certificateArgs) (any, error) {
	users := e.View("users")
	uid, ok, err := tauv1.Key(users, a.UserID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: user not found", nil
	}
	user, _ := users.Mut(uid)
	methods, err := get(user, "payment_methods")
	if err != nil {
		return nil, err
	}
	// add a certificate, assume at most 3 cases per task
	for _, id := range []string{"3221322", "3221323", "3221324"} {
		paymentID := "certificate_" + id
		in, err := pyops.Contains(methods, paymentID)
		if err != nil {
			return nil, err
		}
		if in {
			continue
		}
		cert := &pyjson.Dict{}
		cert.Set("source", "certificate")
		cert.Set("amount", a.Amount.V)
		cert.Set("id", paymentID)
		if err := pyops.SetItem(methods, paymentID, cert); err != nil {
			return nil, err
		}
		return "Certificate " + paymentID + " added to user " + str(a.UserID.V) + " with amount " + str(a.Amount.V) + ".", nil
	}
	// Upstream returns None here, which Env.step's EnvResponse(observation:
	// str) refuses: its episode ends with pydantic's validation error. Here
	// the agent is told.
	return nil, fmt.Errorf("send_certificate returned None (the user already holds certificates %s, %s and %s)",
		"certificate_3221322", "certificate_3221323", "certificate_3221324")
}

func think(context.Context, *tauv1.Env, thoughtArgs) (any, error) { return "", nil }

func transfer(context.Context, *tauv1.Env, summaryArgs) (any, error) {
	return "Transfer successful", nil
}

func updateBaggages(_ context.Context, e *tauv1.Env, a baggagesArgs) (any, error) {
	users, reservations := e.View("users"), e.View("reservations")
	rid, ok, err := tauv1.Key(reservations, a.ReservationID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: reservation not found", nil
	}
	reservation, _ := reservations.Mut(rid)

	had, err := get(reservation, "nonfree_baggages")
	if err != nil {
		return nil, err
	}
	extra, err := pyops.Sub(a.NonfreeBags.V, had, false)
	if err != nil {
		return nil, err
	}
	extra, err = pyops.Max2(pyops.Int(0), extra)
	if err != nil {
		return nil, err
	}
	totalPrice, err := pyops.Mul(pyops.Int(50), extra)
	if err != nil {
		return nil, err
	}
	userID, err := get(reservation, "user_id")
	if err != nil {
		return nil, err
	}
	user, err := tauv1.MutLookup(users, userID)
	if err != nil {
		return nil, err
	}
	methods, err := get(user, "payment_methods")
	if err != nil {
		return nil, err
	}
	if in, err := pyops.Contains(methods, a.PaymentID.V); err != nil {
		return nil, err
	} else if !in {
		return "Error: payment method not found", nil
	}
	method, err := pyops.GetItem(methods, a.PaymentID.V)
	if err != nil {
		return nil, err
	}
	source, err := get(method, "source")
	if err != nil {
		return nil, err
	}
	if eqStr(source, "certificate") {
		return "Error: certificate cannot be used to update reservation", nil
	}
	if eqStr(source, "gift_card") {
		balance, err := get(method, "amount")
		if err != nil {
			return nil, err
		}
		if lt, err := pyops.Compare("<", balance, totalPrice); err != nil {
			return nil, err
		} else if lt {
			return "Error: gift card balance is not enough", nil
		}
	}
	reservation.Set("total_baggages", a.TotalBaggages.V)
	reservation.Set("nonfree_baggages", a.NonfreeBags.V)
	if eqStr(source, "gift_card") {
		balance, err := get(method, "amount")
		if err != nil {
			return nil, err
		}
		left, err := pyops.Sub(balance, totalPrice, true)
		if err != nil {
			return nil, err
		}
		if err := pyops.SetItem(method, "amount", left); err != nil {
			return nil, err
		}
	}
	if !pyops.Eq(totalPrice, pyops.Int(0)) {
		p := &pyjson.Dict{}
		p.Set("payment_id", a.PaymentID.V)
		p.Set("amount", totalPrice)
		if err := tauv1.Append(reservation, "payment_history", p); err != nil {
			return nil, err
		}
	}
	return tauv1.Dumps(reservation)
}

func updateFlights(_ context.Context, e *tauv1.Env, a flightsArgs) (any, error) {
	users, reservations := e.View("users"), e.View("reservations")
	rid, ok, err := tauv1.Key(reservations, a.ReservationID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: reservation not found", nil
	}
	reservation, _ := reservations.Mut(rid)

	// update flights and calculate price
	var totalPrice any = json.Number("0")
	flights := pyops.DeepCopy(a.Flights.V)
	newItems, err := pyops.Iter(flights)
	if err != nil {
		return nil, err
	}
	passengerCount := func() (any, error) {
		ps, err := get(reservation, "passengers")
		if err != nil {
			return nil, err
		}
		n, err := pyops.Len(ps)
		if err != nil {
			return nil, err
		}
		return pyops.Int(int64(n)), nil
	}
	flightsTable := e.View("flights")
	for _, flight := range newItems {
		// if existing flight, ignore
		current, err := get(reservation, "flights")
		if err != nil {
			return nil, err
		}
		old, err := pyops.Iter(current)
		if err != nil {
			return nil, err
		}
		var kept []any
		for _, f := range old {
			fNum, err := get(f, "flight_number")
			if err != nil {
				return nil, err
			}
			num, err := get(flight, "flight_number")
			if err != nil {
				return nil, err
			}
			if !pyops.Eq(fNum, num) {
				continue
			}
			fDate, err := get(f, "date")
			if err != nil {
				return nil, err
			}
			date, err := get(flight, "date")
			if err != nil {
				return nil, err
			}
			if !pyops.Eq(fDate, date) {
				continue
			}
			cabin, err := get(reservation, "cabin")
			if err != nil {
				return nil, err
			}
			if !pyops.Eq(a.Cabin.V, cabin) {
				continue
			}
			kept = append(kept, f)
		}
		if len(kept) > 0 {
			price, err := get(kept[0], "price")
			if err != nil {
				return nil, err
			}
			n, err := passengerCount()
			if err != nil {
				return nil, err
			}
			cost, err := pyops.Mul(price, n)
			if err != nil {
				return nil, err
			}
			if totalPrice, err = pyops.Add(totalPrice, cost, true); err != nil {
				return nil, err
			}
			for _, k := range []string{"price", "origin", "destination"} {
				v, err := get(kept[0], k)
				if err != nil {
					return nil, err
				}
				if err := pyops.SetItem(flight, k, v); err != nil {
					return nil, err
				}
			}
			continue
		}
		flightNumber, err := get(flight, "flight_number")
		if err != nil {
			return nil, err
		}
		fn, ok, err := tauv1.Key(flightsTable, flightNumber)
		if err != nil {
			return nil, err
		}
		if !ok {
			return "Error: flight " + str(flightNumber) + " not found", nil
		}
		flightData, _ := flightsTable.Get(fn)
		date, err := get(flight, "date")
		if err != nil {
			return nil, err
		}
		dates, err := get(flightData, "dates")
		if err != nil {
			return nil, err
		}
		if in, err := pyops.Contains(dates, date); err != nil {
			return nil, err
		} else if !in {
			return "Error: flight " + str(flightNumber) + " not found on date " + str(date), nil
		}
		dateData, err := pyops.GetItem(dates, date)
		if err != nil {
			return nil, err
		}
		status, err := get(dateData, "status")
		if err != nil {
			return nil, err
		}
		if !eqStr(status, "available") {
			return "Error: flight " + str(flightNumber) + " not available on date " + str(date), nil
		}
		seats, err := get2(dateData, "available_seats", a.Cabin.V)
		if err != nil {
			return nil, err
		}
		n, err := passengerCount()
		if err != nil {
			return nil, err
		}
		if lt, err := pyops.Compare("<", seats, n); err != nil {
			return nil, err
		} else if lt {
			return "Error: not enough seats on flight " + str(flightNumber), nil
		}
		price, err := get2(dateData, "prices", a.Cabin.V)
		if err != nil {
			return nil, err
		}
		if err := pyops.SetItem(flight, "price", price); err != nil {
			return nil, err
		}
		for _, k := range []string{"origin", "destination"} {
			v, err := get(flightData, k)
			if err != nil {
				return nil, err
			}
			if err := pyops.SetItem(flight, k, v); err != nil {
				return nil, err
			}
		}
		p, err := get(flight, "price")
		if err != nil {
			return nil, err
		}
		n, err = passengerCount()
		if err != nil {
			return nil, err
		}
		cost, err := pyops.Mul(p, n)
		if err != nil {
			return nil, err
		}
		if totalPrice, err = pyops.Add(totalPrice, cost, true); err != nil {
			return nil, err
		}
	}
	current, err := get(reservation, "flights")
	if err != nil {
		return nil, err
	}
	old, err := pyops.Iter(current)
	if err != nil {
		return nil, err
	}
	var oldSum any = json.Number("0")
	for _, f := range old {
		p, err := get(f, "price")
		if err != nil {
			return nil, err
		}
		if oldSum, err = pyops.Add(oldSum, p, false); err != nil {
			return nil, err
		}
	}
	n, err := passengerCount()
	if err != nil {
		return nil, err
	}
	oldCost, err := pyops.Mul(oldSum, n)
	if err != nil {
		return nil, err
	}
	if totalPrice, err = pyops.Sub(totalPrice, oldCost, true); err != nil {
		return nil, err
	}

	// check payment
	userID, err := get(reservation, "user_id")
	if err != nil {
		return nil, err
	}
	user, err := tauv1.MutLookup(users, userID)
	if err != nil {
		return nil, err
	}
	methods, err := get(user, "payment_methods")
	if err != nil {
		return nil, err
	}
	if in, err := pyops.Contains(methods, a.PaymentID.V); err != nil {
		return nil, err
	} else if !in {
		return "Error: payment method not found", nil
	}
	method, err := pyops.GetItem(methods, a.PaymentID.V)
	if err != nil {
		return nil, err
	}
	source, err := get(method, "source")
	if err != nil {
		return nil, err
	}
	if eqStr(source, "certificate") {
		return "Error: certificate cannot be used to update reservation", nil
	}
	if eqStr(source, "gift_card") {
		balance, err := get(method, "amount")
		if err != nil {
			return nil, err
		}
		if lt, err := pyops.Compare("<", balance, totalPrice); err != nil {
			return nil, err
		} else if lt {
			return "Error: gift card balance is not enough", nil
		}
	}

	// if checks pass, deduct payment and update seats
	if eqStr(source, "gift_card") {
		balance, err := get(method, "amount")
		if err != nil {
			return nil, err
		}
		left, err := pyops.Sub(balance, totalPrice, true)
		if err != nil {
			return nil, err
		}
		if err := pyops.SetItem(method, "amount", left); err != nil {
			return nil, err
		}
	}
	reservation.Set("flights", flights)
	if !pyops.Eq(totalPrice, pyops.Int(0)) {
		p := &pyjson.Dict{}
		p.Set("payment_id", a.PaymentID.V)
		p.Set("amount", totalPrice)
		if err := tauv1.Append(reservation, "payment_history", p); err != nil {
			return nil, err
		}
	}
	// do not make flight database update here, assume it takes time to be updated
	return tauv1.Dumps(reservation)
}

func updatePassengers(_ context.Context, e *tauv1.Env, a passengersArgs) (any, error) {
	reservations := e.View("reservations")
	rid, ok, err := tauv1.Key(reservations, a.ReservationID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: reservation not found", nil
	}
	reservation, _ := reservations.Mut(rid)
	n, err := pyops.Len(a.Passengers.V)
	if err != nil {
		return nil, err
	}
	current, err := get(reservation, "passengers")
	if err != nil {
		return nil, err
	}
	m, err := pyops.Len(current)
	if err != nil {
		return nil, err
	}
	if n != m {
		return "Error: number of passengers does not match", nil
	}
	reservation.Set("passengers", a.Passengers.V)
	return tauv1.Dumps(reservation)
}
