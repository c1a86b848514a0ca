package airline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pycalc"
	"github.com/ledgerbench/ledgerbench/internal/py/pydantic"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// now is upstream's fixed current time (created_at of new reservations).
const now = "2024-05-15T15:00:00"

// newToolSet builds the agent toolkit in upstream's method order.
func newToolSet() *tool.Set[*Env] {
	return tool.NewSet(toolkitClass,
		tool.New("book_reservation", tool.Write, "",
			bookReservation),
		tool.New("calculate", tool.Generic, "",
			calculate),
		tool.New("cancel_reservation", tool.Write, "",
			cancelReservation),
		tool.New("get_reservation_details", tool.Read, "",
			getReservationDetails),
		tool.New("get_user_details", tool.Read, "",
			getUserDetails),
		tool.New("list_all_airports", tool.Read, "",
			listAllAirports),
		tool.New("search_direct_flight", tool.Read, "",
			searchDirectFlight),
		tool.New("search_onestop_flight", tool.Read, "",
			searchOnestopFlight),
		tool.New("send_certificate", tool.Write, "",
			sendCertificate),
		tool.New("transfer_to_human_agents", tool.Generic, "",
			transferToHumanAgents),
		tool.New("update_reservation_baggages", tool.Write, "",
			updateReservationBaggages),
		tool.New("update_reservation_flights", tool.Write, "",
			updateReservationFlights),
		tool.New("update_reservation_passengers", tool.Write, "",
			updateReservationPassengers),
		tool.New("get_flight_status", tool.Read, "",
			getFlightStatus),
	)
}

// Lookups (upstream's _get_* helpers).

func (e *Env) getUser(id any) (string, *User, error) {
	k, ok, err := pyjson.DictKey(id)
	if err != nil {
		return "", nil, err
	}
	if ok {
		if u, found := e.users.Get(k); found {
			return k, u, nil
		}
	}
	return "", nil, fmt.Errorf("User %s not found", pyjson.Str(id))
}

func (e *Env) getReservation(id any) (string, *Reservation, error) {
	k, ok, err := pyjson.DictKey(id)
	if err != nil {
		return "", nil, err
	}
	if ok {
		if r, found := e.reservations.Get(k); found {
			return k, r, nil
		}
	}
	return "", nil, fmt.Errorf("Reservation %s not found", pyjson.Str(id))
}

func (e *Env) getFlight(number any) (*Flight, error) {
	k, ok, err := pyjson.DictKey(number)
	if err != nil {
		return nil, err
	}
	if ok {
		if f, found := e.flights.Get(k); found {
			return f, nil
		}
	}
	return nil, fmt.Errorf("Flight %s not found", pyjson.Str(number))
}

func (e *Env) getFlightInstance(number, date any) (FlightStatus, error) {
	f, err := e.getFlight(number)
	if err != nil {
		return nil, err
	}
	k, ok, err := pyjson.DictKey(date)
	if err != nil {
		return nil, err
	}
	if ok {
		if s, found := f.Dates.Get(k); found {
			return s, nil
		}
	}
	return nil, fmt.Errorf("Flight %s not found on date %s", pyjson.Str(number), pyjson.Str(date))
}

// newReservationID returns the first unused of upstream's three fixed ids.
func (e *Env) newReservationID() (string, error) {
	for _, id := range [...]string{"HATHAT", "HATHAU", "HATHAV"} {
		if !e.reservations.Has(id) {
			return id, nil
		}
	}
	return "", errors.New("Too many reservations")
}

// mutAvailable returns the simulation's own copy of an available flight date.
func (e *Env) mutAvailable(number, date string) *Available {
	f, _ := e.flights.Mut(number)
	s, _ := f.Dates.Get(date)
	return s.(*Available)
}

type bookArgs struct {
	UserID          strArg        `json:"user_id"`
	Origin          strArg        `json:"origin"`
	Destination     strArg        `json:"destination"`
	FlightType      strArg        `json:"flight_type" enum:"round_trip,one_way"`
	Cabin           strArg        `json:"cabin" enum:"business,economy,basic_economy"`
	Flights         flightsArg    `json:"flights"`
	Passengers      passengersArg `json:"passengers"`
	PaymentMethods  paymentsArg   `json:"payment_methods"`
	TotalBaggages   intArg        `json:"total_baggages"`
	NonfreeBaggages intArg        `json:"nonfree_baggages"`
	Insurance       strArg        `json:"insurance" enum:"yes,no"`
}

func bookReservation(_ context.Context, e *Env, a bookArgs) (any, error) {
	flights, err := asModels(a.Flights.V, flightInfoOf)
	if err != nil {
		return nil, err
	}
	passengers, err := asModels(a.Passengers.V, passengerOf)
	if err != nil {
		return nil, err
	}
	payments, err := asModels(a.PaymentMethods.V, paymentOf)
	if err != nil {
		return nil, err
	}
	userID, user, err := e.getUser(a.UserID.V)
	if err != nil {
		return nil, err
	}
	resID, err := e.newReservationID()
	if err != nil {
		return nil, err
	}

	// Reservation(...): pydantic validates every field, reporting all errors.
	var v pydantic.Validator
	r := &Reservation{ReservationID: resID, UserID: userID, CreatedAt: now, Flights: []ReservationFlight{}}
	r.Origin = v.Str("origin", a.Origin.V)
	r.Destination = v.Str("destination", a.Destination.V)
	r.FlightType = v.Literal("flight_type", a.FlightType.V, flightTypes...)
	r.Cabin = v.Literal("cabin", a.Cabin.V, cabinTypes...)
	r.Passengers = modelField(&v, "passengers", "Passenger", passengers, passengerField)
	r.PaymentHistory = modelField(&v, "payment_history", "Payment", payments, paymentField)
	r.TotalBaggages = Int(int64(v.Int("total_baggages", a.TotalBaggages.V)))
	r.NonfreeBaggages = Int(int64(v.Int("nonfree_baggages", a.NonfreeBaggages.V)))
	r.Insurance = v.Literal("insurance", a.Insurance.V, insurances...)
	if err := v.Err("Reservation"); err != nil {
		return nil, err
	}
	// From here passengers and payments are models (a raw list always fails
	// the validation above).
	n := len(passengers.models)

	total := Int(0)
	for i, item := range flights.items {
		if !flights.converted {
			return nil, fmt.Errorf("'%s' object has no attribute 'flight_number'", pyjson.TypeName(item))
		}
		fi := flights.models[i]
		flight, err := e.getFlight(fi.FlightNumber)
		if err != nil {
			return nil, err
		}
		st, err := e.getFlightInstance(fi.FlightNumber, fi.Date)
		if err != nil {
			return nil, err
		}
		av, ok := st.(*Available)
		if !ok {
			return nil, fmt.Errorf("Flight %s not available on date %s", fi.FlightNumber, fi.Date)
		}
		if seats, _ := av.AvailableSeats.At(r.Cabin); *seats < n {
			return nil, fmt.Errorf("Not enough seats on flight %s", fi.FlightNumber)
		}
		price, _ := av.Prices.At(r.Cabin)
		r.Flights = append(r.Flights, ReservationFlight{
			FlightNumber: fi.FlightNumber, Origin: flight.Origin, Destination: flight.Destination,
			Date: fi.Date, Price: *price,
		})
		total = total.add(Int(int64(*price * n)))
	}
	if r.Insurance == "yes" {
		total = total.add(Int(int64(30 * n)))
	}
	// The baggage fee uses the argument as given, not the validated field:
	// a float count makes the total a float.
	fee, err := baggageFee(a.NonfreeBaggages.V)
	if err != nil {
		return nil, err
	}
	total = total.add(fee)

	for _, p := range payments.models {
		pm, ok := user.PaymentMethods.Get(p.PaymentID)
		if !ok {
			return nil, fmt.Errorf("Payment method %s not found", p.PaymentID)
		}
		if bal, ok := balance(pm); ok && bal < float64(p.Amount) {
			return nil, fmt.Errorf("Not enough balance in payment method %s", p.PaymentID)
		}
	}
	paid := 0
	for _, p := range payments.models {
		paid += p.Amount
	}
	if !total.equals(Int(int64(paid))) {
		return nil, fmt.Errorf("Payment amount does not add up, total price is %s, but paid %d", total, paid)
	}

	// Commit: charge gift cards, consume certificates whole, take the seats.
	u, _ := e.users.Mut(userID)
	for _, p := range payments.models {
		pm, ok := u.PaymentMethods.Get(p.PaymentID)
		if !ok { // a certificate listed twice: popped already
			return nil, pyjson.KeyError(p.PaymentID)
		}
		switch m := pm.(type) {
		case *GiftCard:
			m.Amount -= float64(p.Amount)
		case *Certificate:
			u.PaymentMethods.Delete(p.PaymentID)
		}
	}
	for _, f := range r.Flights {
		seats, _ := e.mutAvailable(f.FlightNumber, f.Date).AvailableSeats.At(r.Cabin)
		*seats -= n
	}
	e.reservations.Add(resID, r)
	u.Reservations = append(u.Reservations, resID)
	return r, nil
}

// baggageFee is 50 * nonfree_baggages with Python's operators (the count has
// already passed int validation, so it is a number, a bool or a numeric
// string; a string repeats and then fails to add).
func baggageFee(x any) (Num, error) {
	if b, ok := x.(bool); ok {
		if b {
			return Int(50), nil
		}
		return Int(0), nil
	}
	if n, ok := numOf(x); ok {
		return Int(50).mul(n), nil
	}
	return Num{}, fmt.Errorf("unsupported operand type(s) for +=: 'int' and '%s'", pyjson.TypeName(x))
}

// balance is the amount of a gift card or certificate.
func balance(pm PaymentMethod) (float64, bool) {
	switch m := pm.(type) {
	case *GiftCard:
		return m.Amount, true
	case *Certificate:
		return m.Amount, true
	}
	return 0, false
}

type expressionArgs struct {
	Expression strArg `json:"expression"`
}

func calculate(_ context.Context, _ *Env, a expressionArgs) (any, error) {
	return pycalc.Tau2Value(a.Expression.V)
}

type reservationArgs struct {
	ReservationID strArg `json:"reservation_id"`
}

func cancelReservation(_ context.Context, e *Env, a reservationArgs) (any, error) {
	k, _, err := e.getReservation(a.ReservationID.V)
	if err != nil {
		return nil, err
	}
	r, _ := e.reservations.Mut(k)
	// Refunds are negative copies of every payment so far; seats are not
	// released and balances are not restored (upstream).
	refunds := make([]Payment, len(r.PaymentHistory))
	for i, p := range r.PaymentHistory {
		refunds[i] = Payment{PaymentID: p.PaymentID, Amount: -p.Amount}
	}
	r.PaymentHistory = append(r.PaymentHistory, refunds...)
	cancelled := "cancelled"
	r.Status = &cancelled
	return r, nil
}

func getReservationDetails(_ context.Context, e *Env, a reservationArgs) (any, error) {
	_, r, err := e.getReservation(a.ReservationID.V)
	if err != nil {
		return nil, err
	}
	return r, nil
}

type userArgs struct {
	UserID strArg `json:"user_id"`
}

func getUserDetails(_ context.Context, e *Env, a userArgs) (any, error) {
	_, u, err := e.getUser(a.UserID.V)
	if err != nil {
		return nil, err
	}
	return u, nil
}

type noArgs struct{}

func listAllAirports(context.Context, *Env, noArgs) (any, error) {
	return []AirportCode{
		{"SFO", "San Francisco"}, {"JFK", "New York"}, {"LAX", "Los Angeles"}, {"ORD", "Chicago"},
		{"DFW", "Dallas"}, {"DEN", "Denver"}, {"SEA", "Seattle"}, {"ATL", "Atlanta"},
		{"MIA", "Miami"}, {"BOS", "Boston"}, {"PHX", "Phoenix"}, {"IAH", "Houston"},
		{"LAS", "Las Vegas"}, {"MCO", "Orlando"}, {"EWR", "Newark"}, {"CLT", "Charlotte"},
		{"MSP", "Minneapolis"}, {"DTW", "Detroit"}, {"PHL", "Philadelphia"}, {"LGA", "LaGuardia"},
	}, nil
}

type searchArgs struct {
	Origin      strArg `json:"origin"`
	Destination strArg `json:"destination"`
	Date        strArg `json:"date"`
}

// matches is upstream's `x is None or flight.x == x`.
func matches(field string, want any) bool {
	if want == nil {
		return true
	}
	s, ok := want.(string)
	return ok && s == field
}

// searchDirect is upstream's _search_direct_flight: flights in DB order that
// match and are available on date. leaveAfter, if set, is compared with the
// scheduled departure as plain strings.
func (e *Env) searchDirect(date, origin, destination any, leaveAfter *string) ([]*DirectFlight, error) {
	var out []*DirectFlight
	for _, f := range e.flights.All() {
		if !matches(f.Origin, origin) || !matches(f.Destination, destination) {
			continue
		}
		k, ok, err := pyjson.DictKey(date)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		st, found := f.Dates.Get(k)
		if !found {
			continue
		}
		av, ok := st.(*Available)
		if !ok {
			continue
		}
		if leaveAfter != nil && f.ScheduledDepartureTimeEST < *leaveAfter {
			continue
		}
		out = append(out, &DirectFlight{
			FlightNumber: f.FlightNumber, Origin: f.Origin, Destination: f.Destination,
			Status:                    StatusAvailable,
			ScheduledDepartureTimeEST: f.ScheduledDepartureTimeEST,
			ScheduledArrivalTimeEST:   f.ScheduledArrivalTimeEST,
			AvailableSeats:            av.AvailableSeats, Prices: av.Prices,
		})
	}
	return out, nil
}

func searchDirectFlight(_ context.Context, e *Env, a searchArgs) (any, error) {
	res, err := e.searchDirect(a.Date.V, a.Origin.V, a.Destination.V, nil)
	if err != nil {
		return nil, err
	}
	return res, nil
}

func searchOnestopFlight(_ context.Context, e *Env, a searchArgs) (any, error) {
	first, err := e.searchDirect(a.Date.V, a.Origin.V, nil, nil)
	if err != nil {
		return nil, err
	}
	results := [][2]*DirectFlight{}
	for _, leg1 := range first {
		date := a.Date.V.(string) // it matched a date key
		leg1.Date = &date
		date2 := date
		if strings.Contains(leg1.ScheduledArrivalTimeEST, "+1") {
			// Upstream builds the next day as f"2024-05-{int(date[-2:]) + 1}":
			// hard-coded month, no zero padding.
			tail := string([]rune(date)[max(0, len([]rune(date))-2):])
			day, err := strconv.Atoi(strings.TrimSpace(tail))
			if err != nil {
				return nil, fmt.Errorf("invalid literal for int() with base 10: %s", pyjson.ReprString(tail))
			}
			date2 = fmt.Sprintf("2024-05-%d", day+1)
		}
		second, err := e.searchDirect(date2, leg1.Destination, a.Destination.V, &leg1.ScheduledArrivalTimeEST)
		if err != nil {
			return nil, err
		}
		for _, leg2 := range second {
			leg2.Date = &date2
			results = append(results, [2]*DirectFlight{leg1, leg2})
		}
	}
	return results, nil
}

type certificateArgs struct {
	UserID strArg `json:"user_id"`
	Amount intArg `json:"amount"`
}

func sendCertificate(_ context.Context, e *Env, a certificateArgs) (any, error) {
	userID, user, err := e.getUser(a.UserID.V)
	if err != nil {
		return nil, err
	}
	for _, n := range [...]int{3221322, 3221323, 3221324} {
		id := "certificate_" + strconv.Itoa(n)
		if user.PaymentMethods.Has(id) {
			continue
		}
		var v pydantic.Validator
		amount := v.Float("amount", a.Amount.V)
		if err := v.Err("Certificate"); err != nil {
			return nil, err
		}
		u, _ := e.users.Mut(userID)
		u.PaymentMethods.Set(id, &Certificate{Source: SourceCertificate, ID: id, Amount: amount})
		return fmt.Sprintf("Certificate %s added to user %s with amount %s.", id, userID, pyjson.Str(a.Amount.V)), nil
	}
	return nil, errors.New("Too many certificates")
}

type transferArgs struct {
	Summary strArg `json:"summary"`
}

func transferToHumanAgents(context.Context, *Env, transferArgs) (any, error) {
	return "Transfer successful", nil
}

// paymentForUpdate is upstream's _payment_for_update: check the method, debit
// a gift card (a negative total credits it), and return the payment to record
// (nil for a zero total). A non-nil refuse is returned once the checks have
// passed, before anything changes (for values the port cannot store).
func (e *Env) paymentForUpdate(userID string, user *User, paymentID any, total Num, refuse error) (*Payment, error) {
	k, ok, err := pyjson.DictKey(paymentID)
	if err != nil {
		return nil, err
	}
	var pm PaymentMethod
	if ok {
		pm, ok = user.PaymentMethods.Get(k)
	}
	if !ok {
		return nil, errors.New("Payment method not found")
	}
	switch m := pm.(type) {
	case *Certificate:
		return nil, errors.New("Certificate cannot be used to update reservation")
	case *GiftCard:
		if total.greater(m.Amount) {
			return nil, errors.New("Gift card balance is not enough")
		}
	}
	if refuse != nil {
		return nil, refuse
	}
	if _, ok := pm.(*GiftCard); ok {
		u, _ := e.users.Mut(userID)
		g, _ := u.PaymentMethods.Get(k)
		g.(*GiftCard).Amount -= total.Float64()
	}
	if total.isZero() {
		return nil, nil
	}
	var v pydantic.Validator
	amount := v.Int("amount", total.value())
	if err := v.Err("Payment"); err != nil {
		return nil, err // after the gift card was debited, as upstream
	}
	return &Payment{PaymentID: k, Amount: amount}, nil
}

type baggagesArgs struct {
	ReservationID   strArg `json:"reservation_id"`
	TotalBaggages   intArg `json:"total_baggages"`
	NonfreeBaggages intArg `json:"nonfree_baggages"`
	PaymentID       strArg `json:"payment_id"`
}

func updateReservationBaggages(_ context.Context, e *Env, a baggagesArgs) (any, error) {
	resID, r, err := e.getReservation(a.ReservationID.V)
	if err != nil {
		return nil, err
	}
	userID, user, err := e.getUser(r.UserID)
	if err != nil {
		return nil, err
	}
	nonfree, ok := numOrBool(a.NonfreeBaggages.V)
	if !ok {
		return nil, fmt.Errorf("unsupported operand type(s) for -: '%s' and '%s'", pyjson.TypeName(a.NonfreeBaggages.V), r.NonfreeBaggages.typeName())
	}
	// 50 * max(0, new - old): max returns the int 0 unless the difference is
	// positive.
	extra := nonfree.sub(r.NonfreeBaggages)
	if !extra.greater(0) {
		extra = Int(0)
	}
	total := Int(50).mul(extra)
	// Upstream assigns total_baggages unvalidated: whatever was sent is kept.
	totalBags, ok := numOrBool(a.TotalBaggages.V)
	if !ok {
		totalBags = Raw(a.TotalBaggages.V)
	}
	payment, err := e.paymentForUpdate(userID, user, a.PaymentID.V, total, nil)
	if err != nil {
		return nil, err
	}
	m, _ := e.reservations.Mut(resID)
	if payment != nil {
		m.PaymentHistory = append(m.PaymentHistory, *payment)
	}
	m.TotalBaggages = totalBags
	m.NonfreeBaggages = nonfree
	return m, nil
}

// numOrBool is a number argument as Python arithmetic sees it (bool is an
// int).
func numOrBool(x any) (Num, bool) {
	if b, ok := x.(bool); ok {
		return Bool(b), true
	}
	return numOf(x)
}

type flightsUpdateArgs struct {
	ReservationID strArg     `json:"reservation_id"`
	Cabin         strArg     `json:"cabin" enum:"business,economy,basic_economy"`
	Flights       flightsArg `json:"flights"`
	PaymentID     strArg     `json:"payment_id"`
}

func updateReservationFlights(_ context.Context, e *Env, a flightsUpdateArgs) (any, error) {
	flights, err := asModels(a.Flights.V, flightInfoOf)
	if err != nil {
		return nil, err
	}
	resID, r, err := e.getReservation(a.ReservationID.V)
	if err != nil {
		return nil, err
	}
	userID, user, err := e.getUser(r.UserID)
	if err != nil {
		return nil, err
	}
	n := len(r.Passengers)
	reqCabin, isStr := a.Cabin.V.(string)
	sameCabin := isStr && reqCabin == r.Cabin
	total := 0
	newFlights := []ReservationFlight{}
	for i, item := range flights.items {
		if !flights.converted {
			return nil, fmt.Errorf("'%s' object has no attribute 'flight_number'", pyjson.TypeName(item))
		}
		fi := flights.models[i]
		// A segment already on the reservation keeps its price, unless the
		// cabin changes.
		if sameCabin {
			j := slices.IndexFunc(r.Flights, func(rf ReservationFlight) bool {
				return rf.FlightNumber == fi.FlightNumber && rf.Date == fi.Date
			})
			if j >= 0 {
				total += r.Flights[j].Price * n
				newFlights = append(newFlights, r.Flights[j])
				continue
			}
		}
		flight, err := e.getFlight(fi.FlightNumber)
		if err != nil {
			return nil, err
		}
		st, err := e.getFlightInstance(fi.FlightNumber, fi.Date)
		if err != nil {
			return nil, err
		}
		av, ok := st.(*Available)
		if !ok {
			return nil, fmt.Errorf("Flight %s not available on date %s", fi.FlightNumber, fi.Date)
		}
		seats, price, err := cabinEntry(av, a.Cabin.V)
		if err != nil {
			return nil, err
		}
		if seats < n {
			return nil, fmt.Errorf("Not enough seats on flight %s", fi.FlightNumber)
		}
		newFlights = append(newFlights, ReservationFlight{
			FlightNumber: fi.FlightNumber, Origin: flight.Origin, Destination: flight.Destination,
			Date: fi.Date, Price: price,
		})
		total += price * n
	}
	old := 0
	for _, f := range r.Flights {
		old += f.Price
	}
	total -= old * n
	// A cabin that is not a string gets here only with no flights; upstream
	// would store it, the port refuses once the payment checks have passed.
	var refuse error
	if !isStr {
		refuse = fmt.Errorf("cabin must be a string, not %s (ledgerbench does not store other values)", pyjson.TypeName(a.Cabin.V))
	}
	payment, err := e.paymentForUpdate(userID, user, a.PaymentID.V, Int(int64(total)), refuse)
	if err != nil {
		return nil, err
	}
	m, _ := e.reservations.Mut(resID)
	if payment != nil {
		m.PaymentHistory = append(m.PaymentHistory, *payment)
	}
	// Seats are not taken or released on a change (upstream).
	m.Flights = newFlights
	m.Cabin = reqCabin
	return m, nil
}

// cabinEntry is available_seats[cabin] and prices[cabin] with Python's dict
// errors for a bad key.
func cabinEntry(av *Available, cabin any) (seats, price int, err error) {
	k, ok, err := pyjson.DictKey(cabin)
	if err != nil {
		return 0, 0, err
	}
	if ok {
		if s, found := av.AvailableSeats.At(k); found {
			p, _ := av.Prices.At(k)
			return *s, *p, nil
		}
	}
	return 0, 0, pyjson.KeyError(cabin)
}

type passengersUpdateArgs struct {
	ReservationID strArg        `json:"reservation_id"`
	Passengers    passengersArg `json:"passengers"`
}

func updateReservationPassengers(_ context.Context, e *Env, a passengersUpdateArgs) (any, error) {
	ps, err := asModels(a.Passengers.V, passengerOf)
	if err != nil {
		return nil, err
	}
	resID, r, err := e.getReservation(a.ReservationID.V)
	if err != nil {
		return nil, err
	}
	if len(ps.items) != len(r.Passengers) {
		return nil, errors.New("Number of passengers does not match")
	}
	if !ps.converted {
		return nil, fmt.Errorf("passengers must be objects (ledgerbench does not store other values)")
	}
	m, _ := e.reservations.Mut(resID)
	m.Passengers = slices.Clone(ps.models)
	return m, nil
}

type flightStatusArgs struct {
	FlightNumber strArg `json:"flight_number"`
	Date         strArg `json:"date"`
}

func getFlightStatus(_ context.Context, e *Env, a flightStatusArgs) (any, error) {
	s, err := e.getFlightInstance(a.FlightNumber.V, a.Date.V)
	if err != nil {
		return nil, err
	}
	return s.State(), nil
}
