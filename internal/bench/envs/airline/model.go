package airline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// DB is upstream's FlightDB. Records are pointers so a simulation's
// copy-on-write tables can share them; the loaded DB is never modified.
type DB struct {
	Flights      omap.Map[*Flight]      `json:"flights"`
	Users        omap.Map[*User]        `json:"users"`
	Reservations omap.Map[*Reservation] `json:"reservations"`
}

// DecodeDB decodes a db.json file.
func DecodeDB(data []byte) (*DB, error) {
	var raw struct {
		Flights      *omap.Map[*Flight]      `json:"flights"`
		Users        *omap.Map[*User]        `json:"users"`
		Reservations *omap.Map[*Reservation] `json:"reservations"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // FlightDB forbids extra keys
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	if raw.Flights == nil || raw.Users == nil || raw.Reservations == nil {
		return nil, errors.New("flights, users and reservations are all required")
	}
	return &DB{Flights: *raw.Flights, Users: *raw.Users, Reservations: *raw.Reservations}, nil
}

// decodePinnedDB reads the pinned db.json, which the tests decode in full
// (TestPinnedDBLazy): one pass splits the tables into records, and each
// record is decoded when first used — a flight's dates one by one — so a
// job pays only for the records it reads.
func decodePinnedDB(data []byte) (*DB, error) {
	t, err := omap.Tables(data, "flights", "users", "reservations")
	if err != nil {
		return nil, err
	}
	return &DB{
		Flights:      omap.LazyFrom(t[0], decodePinnedFlight),
		Users:        omap.LazyFrom(t[1], decodeRecord[User]),
		Reservations: omap.LazyFrom(t[2], decodeRecord[Reservation]),
	}, nil
}

func decodeRecord[T any](b []byte) (*T, error) {
	v := new(T)
	return v, json.Unmarshal(b, v)
}

// decodePinnedFlight reads a flight of the pinned data, leaving its dates
// to decode on first use.
func decodePinnedFlight(b []byte) (*Flight, error) {
	f := &Flight{}
	err := pyjson.Object(b, func(k string, v []byte) error {
		var dst *string
		switch k {
		case "dates":
			d, err := omap.Lazy(v, decodeFlightStatus)
			f.Dates = d
			return err
		case "flight_number":
			dst = &f.FlightNumber
		case "origin":
			dst = &f.Origin
		case "destination":
			dst = &f.Destination
		case "scheduled_departure_time_est":
			dst = &f.ScheduledDepartureTimeEST
		case "scheduled_arrival_time_est":
			dst = &f.ScheduledArrivalTimeEST
		default:
			return fmt.Errorf("unknown flight field %q", k)
		}
		return json.Unmarshal(v, dst)
	})
	return f, err
}

// Cabins holds one number per cabin class (seats left or prices), in
// upstream's key order. Every flight date in the data has all three classes.
type Cabins struct {
	BasicEconomy int `json:"basic_economy"`
	Economy      int `json:"economy"`
	Business     int `json:"business"`
}

// cabinNames are the cabin classes in the order the data lists them.
var cabinNames = [3]string{"basic_economy", "economy", "business"}

// At returns the entry for a cabin class name.
func (c *Cabins) At(cabin string) (*int, bool) {
	switch cabin {
	case "basic_economy":
		return &c.BasicEconomy, true
	case "economy":
		return &c.Economy, true
	case "business":
		return &c.Business, true
	}
	return nil, false
}

// UnmarshalJSON requires exactly the three classes in the data's order, so
// that encoding the struct reproduces the dict upstream holds.
func (c *Cabins) UnmarshalJSON(b []byte) error {
	type plain Cabins
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	// The values are plain numbers, so keys are the quoted strings before a
	// colon: there must be three, in order.
	last := -1
	for _, k := range cabinNames {
		i := bytes.Index(b, []byte(`"`+k+`"`))
		if i < last {
			return fmt.Errorf("cabin classes in %s: want exactly %v in that order", b, cabinNames)
		}
		last = i
	}
	if bytes.Count(b, []byte(":")) != len(cabinNames) {
		return fmt.Errorf("cabin classes in %s: want exactly %v in that order", b, cabinNames)
	}
	return nil
}

// Flight is a scheduled flight and its status on each date.
type Flight struct {
	FlightNumber              string                 `json:"flight_number"`
	Origin                    string                 `json:"origin"`
	Destination               string                 `json:"destination"`
	ScheduledDepartureTimeEST string                 `json:"scheduled_departure_time_est"`
	ScheduledArrivalTimeEST   string                 `json:"scheduled_arrival_time_est"`
	Dates                     omap.Map[FlightStatus] `json:"dates"`
}

// UnmarshalJSON decodes the tagged union of each date's status.
func (f *Flight) UnmarshalJSON(b []byte) error {
	type plain Flight
	var raw struct {
		plain
		Dates omap.Map[json.RawMessage] `json:"dates"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*f = Flight(raw.plain)
	f.Dates = omap.Map[FlightStatus]{}
	for date, r := range raw.Dates.All() {
		s, err := decodeFlightStatus(r)
		if err != nil {
			return fmt.Errorf("flight %s date %s: %w", f.FlightNumber, date, err)
		}
		f.Dates.Set(date, s)
	}
	return nil
}

func cloneFlight(f *Flight) *Flight {
	c := *f
	c.Dates = f.Dates.Clone(func(s FlightStatus) FlightStatus {
		if a, ok := s.(*Available); ok { // the only mutable status
			ac := *a
			return &ac
		}
		return s
	})
	return &c
}

// FlightStatus is the tagged union of a flight's state on one date (the
// "status" key): *Available, *Landed, *Cancelled, *Delayed, *Flying or
// *OnTime.
type FlightStatus interface {
	// State is the status tag ("available", "on time", ...).
	State() string
}

// Status tags.
const (
	StatusAvailable = "available"
	StatusLanded    = "landed"
	StatusCancelled = "cancelled"
	StatusDelayed   = "delayed"
	StatusFlying    = "flying"
	StatusOnTime    = "on time"
)

// Available is a bookable flight date.
type Available struct {
	Status         string `json:"status"`
	AvailableSeats Cabins `json:"available_seats"`
	Prices         Cabins `json:"prices"`
}

// Landed is a flight date that has landed.
type Landed struct {
	Status                 string `json:"status"`
	ActualDepartureTimeEST string `json:"actual_departure_time_est"`
	ActualArrivalTimeEST   string `json:"actual_arrival_time_est"`
}

// Cancelled is a cancelled flight date.
type Cancelled struct {
	Status string `json:"status"`
}

// Delayed is a delayed flight date.
type Delayed struct {
	Status                    string `json:"status"`
	EstimatedDepartureTimeEST string `json:"estimated_departure_time_est"`
	EstimatedArrivalTimeEST   string `json:"estimated_arrival_time_est"`
}

// Flying is a flight date in the air.
type Flying struct {
	Status                  string `json:"status"`
	ActualDepartureTimeEST  string `json:"actual_departure_time_est"`
	EstimatedArrivalTimeEST string `json:"estimated_arrival_time_est"`
}

// OnTime is a flight date expected on time.
type OnTime struct {
	Status                    string `json:"status"`
	EstimatedDepartureTimeEST string `json:"estimated_departure_time_est"`
	EstimatedArrivalTimeEST   string `json:"estimated_arrival_time_est"`
}

func (s *Available) State() string { return s.Status }
func (s *Landed) State() string    { return s.Status }
func (s *Cancelled) State() string { return s.Status }
func (s *Delayed) State() string   { return s.Status }
func (s *Flying) State() string    { return s.Status }
func (s *OnTime) State() string    { return s.Status }

func decodeFlightStatus(b []byte) (FlightStatus, error) {
	var u struct {
		Status                    string  `json:"status"`
		AvailableSeats            *Cabins `json:"available_seats"`
		Prices                    *Cabins `json:"prices"`
		ActualDepartureTimeEST    *string `json:"actual_departure_time_est"`
		ActualArrivalTimeEST      *string `json:"actual_arrival_time_est"`
		EstimatedDepartureTimeEST *string `json:"estimated_departure_time_est"`
		EstimatedArrivalTimeEST   *string `json:"estimated_arrival_time_est"`
	}
	if err := json.Unmarshal(b, &u); err != nil {
		return nil, err
	}
	missing := func(fields ...*string) bool {
		for _, f := range fields {
			if f == nil {
				return true
			}
		}
		return false
	}
	var s FlightStatus
	var bad bool
	switch u.Status {
	case StatusAvailable:
		bad = u.AvailableSeats == nil || u.Prices == nil
		if !bad {
			s = &Available{Status: u.Status, AvailableSeats: *u.AvailableSeats, Prices: *u.Prices}
		}
	case StatusLanded:
		bad = missing(u.ActualDepartureTimeEST, u.ActualArrivalTimeEST)
		if !bad {
			s = &Landed{Status: u.Status, ActualDepartureTimeEST: *u.ActualDepartureTimeEST, ActualArrivalTimeEST: *u.ActualArrivalTimeEST}
		}
	case StatusCancelled:
		s = &Cancelled{Status: u.Status}
	case StatusDelayed:
		bad = missing(u.EstimatedDepartureTimeEST, u.EstimatedArrivalTimeEST)
		if !bad {
			s = &Delayed{Status: u.Status, EstimatedDepartureTimeEST: *u.EstimatedDepartureTimeEST, EstimatedArrivalTimeEST: *u.EstimatedArrivalTimeEST}
		}
	case StatusFlying:
		bad = missing(u.ActualDepartureTimeEST, u.EstimatedArrivalTimeEST)
		if !bad {
			s = &Flying{Status: u.Status, ActualDepartureTimeEST: *u.ActualDepartureTimeEST, EstimatedArrivalTimeEST: *u.EstimatedArrivalTimeEST}
		}
	case StatusOnTime:
		bad = missing(u.EstimatedDepartureTimeEST, u.EstimatedArrivalTimeEST)
		if !bad {
			s = &OnTime{Status: u.Status, EstimatedDepartureTimeEST: *u.EstimatedDepartureTimeEST, EstimatedArrivalTimeEST: *u.EstimatedArrivalTimeEST}
		}
	default:
		return nil, fmt.Errorf("unknown flight status %q", u.Status)
	}
	if bad {
		return nil, fmt.Errorf("flight status %q: missing fields in %s", u.Status, b)
	}
	return s, nil
}

// FullName is upstream's Name model: a person's name.
type FullName struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

// Address is a user's postal address.
type Address struct {
	Address1 string  `json:"address1"`
	Address2 *string `json:"address2"`
	City     string  `json:"city"`
	Country  string  `json:"country"`
	State    string  `json:"state"`
	Zip      string  `json:"zip"`
}

// Passenger is a traveller on a reservation or saved in a profile.
type Passenger struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	DOB       string `json:"dob"`
}

// PaymentMethod is the tagged union of saved payment methods (the "source"
// key): *CreditCard, *GiftCard or *Certificate.
type PaymentMethod interface {
	// PaymentSource is the source tag.
	PaymentSource() string
	clonePM() PaymentMethod
}

// Payment sources.
const (
	SourceCreditCard  = "credit_card"
	SourceGiftCard    = "gift_card"
	SourceCertificate = "certificate"
)

// CreditCard is a saved credit card.
type CreditCard struct {
	Source   string `json:"source"`
	ID       string `json:"id"`
	Brand    string `json:"brand"`
	LastFour string `json:"last_four"`
}

// GiftCard is a gift card with a balance (a Python float).
type GiftCard struct {
	Source string  `json:"source"`
	ID     string  `json:"id"`
	Amount float64 `json:"amount"`
}

// Certificate is a travel certificate with a value (a Python float).
type Certificate struct {
	Source string  `json:"source"`
	ID     string  `json:"id"`
	Amount float64 `json:"amount"`
}

func (p *CreditCard) PaymentSource() string  { return p.Source }
func (p *GiftCard) PaymentSource() string    { return p.Source }
func (p *Certificate) PaymentSource() string { return p.Source }

func (p *CreditCard) clonePM() PaymentMethod  { c := *p; return &c }
func (p *GiftCard) clonePM() PaymentMethod    { c := *p; return &c }
func (p *Certificate) clonePM() PaymentMethod { c := *p; return &c }

func decodePaymentMethod(b []byte) (PaymentMethod, error) {
	var tag struct {
		Source string `json:"source"`
	}
	if err := json.Unmarshal(b, &tag); err != nil {
		return nil, err
	}
	var p PaymentMethod
	switch tag.Source {
	case SourceCreditCard:
		p = &CreditCard{}
	case SourceGiftCard:
		p = &GiftCard{}
	case SourceCertificate:
		p = &Certificate{}
	default:
		return nil, fmt.Errorf("unknown payment source %q", tag.Source)
	}
	if err := json.Unmarshal(b, p); err != nil {
		return nil, err
	}
	return p, nil
}

// User is a customer profile.
type User struct {
	UserID          string                  `json:"user_id"`
	Name            FullName                `json:"name"`
	Address         Address                 `json:"address"`
	Email           string                  `json:"email"`
	DOB             string                  `json:"dob"`
	PaymentMethods  omap.Map[PaymentMethod] `json:"payment_methods"`
	SavedPassengers []Passenger             `json:"saved_passengers"`
	Membership      string                  `json:"membership"`
	Reservations    []string                `json:"reservations"`
}

// UnmarshalJSON decodes the tagged union of payment methods.
func (u *User) UnmarshalJSON(b []byte) error {
	type plain User
	var raw struct {
		plain
		PaymentMethods omap.Map[json.RawMessage] `json:"payment_methods"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*u = User(raw.plain)
	u.PaymentMethods = omap.Map[PaymentMethod]{}
	for id, r := range raw.PaymentMethods.All() {
		p, err := decodePaymentMethod(r)
		if err != nil {
			return fmt.Errorf("user %s payment method %s: %w", u.UserID, id, err)
		}
		u.PaymentMethods.Set(id, p)
	}
	return nil
}

func cloneUser(u *User) *User {
	c := *u
	c.PaymentMethods = u.PaymentMethods.Clone(PaymentMethod.clonePM)
	c.SavedPassengers = slices.Clone(u.SavedPassengers)
	c.Reservations = slices.Clone(u.Reservations)
	return &c
}

// ReservationFlight is one flight segment of a reservation.
type ReservationFlight struct {
	FlightNumber string `json:"flight_number"`
	Origin       string `json:"origin"`
	Destination  string `json:"destination"`
	Date         string `json:"date"`
	Price        int    `json:"price"`
}

// Payment is one entry of a reservation's payment history (negative amounts
// are refunds).
type Payment struct {
	PaymentID string `json:"payment_id"`
	Amount    int    `json:"amount"`
}

// Reservation is a booking. TotalBaggages and NonfreeBaggages are Nums
// because update_reservation_baggages stores the caller's values unvalidated
// (a float sent by a model stays a float, as upstream).
type Reservation struct {
	ReservationID   string              `json:"reservation_id"`
	UserID          string              `json:"user_id"`
	Origin          string              `json:"origin"`
	Destination     string              `json:"destination"`
	FlightType      string              `json:"flight_type"`
	Cabin           string              `json:"cabin"`
	Flights         []ReservationFlight `json:"flights"`
	Passengers      []Passenger         `json:"passengers"`
	PaymentHistory  []Payment           `json:"payment_history"`
	CreatedAt       string              `json:"created_at"`
	TotalBaggages   Num                 `json:"total_baggages"`
	NonfreeBaggages Num                 `json:"nonfree_baggages"`
	Insurance       string              `json:"insurance"`
	// Status is nil (printed as null) or "cancelled".
	Status *string `json:"status"`
}

func cloneReservation(r *Reservation) *Reservation {
	c := *r
	c.Flights = slices.Clone(r.Flights)
	c.Passengers = slices.Clone(r.Passengers)
	c.PaymentHistory = slices.Clone(r.PaymentHistory)
	return &c
}

// DirectFlight is a search result: a flight on a date with its seats and
// prices. Date is null in direct searches (upstream never sets it there).
type DirectFlight struct {
	FlightNumber              string  `json:"flight_number"`
	Origin                    string  `json:"origin"`
	Destination               string  `json:"destination"`
	Status                    string  `json:"status"`
	ScheduledDepartureTimeEST string  `json:"scheduled_departure_time_est"`
	ScheduledArrivalTimeEST   string  `json:"scheduled_arrival_time_est"`
	Date                      *string `json:"date"`
	AvailableSeats            Cabins  `json:"available_seats"`
	Prices                    Cabins  `json:"prices"`
}

// AirportCode is an airport and its city.
type AirportCode struct {
	IATA string `json:"iata"`
	City string `json:"city"`
}

// Num is the value of an int model field: normally an int, but pydantic
// models do not validate assignment, so upstream keeps whatever a tool
// assigns — a float, a bool (an int that prints as true/false) or, for
// total_baggages, any JSON value the model sent (held in raw).
type Num struct {
	i       int64
	f       float64
	isFloat bool
	isBool  bool
	isRaw   bool
	raw     any // a decoded JSON value (see pyjson.Decode); never modified
}

// Raw returns a Num holding a non-numeric value.
func Raw(v any) Num { return Num{raw: v, isRaw: true} }

// Bool returns a bool Num.
func Bool(b bool) Num {
	if b {
		return Num{i: 1, isBool: true}
	}
	return Num{isBool: true}
}

// Int returns an int Num.
func Int(i int64) Num { return Num{i: i} }

// Float returns a float Num.
func Float(f float64) Num { return Num{f: f, isFloat: true} }

// IsFloat reports whether the number is a Python float.
func (n Num) IsFloat() bool { return n.isFloat }

// Float64 returns the value as a float.
func (n Num) Float64() float64 {
	if n.isFloat {
		return n.f
	}
	return float64(n.i)
}

// String is Python's str().
func (n Num) String() string {
	switch {
	case n.isRaw:
		return pyjson.Str(n.raw)
	case n.isFloat:
		return pyjson.Float(n.f)
	case n.isBool && n.i == 1:
		return "True"
	case n.isBool:
		return "False"
	}
	return fmt.Sprint(n.i)
}

// EncodePy writes the number as json.dumps does.
func (n Num) EncodePy(e *pyjson.Encoder) {
	switch {
	case n.isRaw:
		e.Value(n.raw)
	case n.isFloat:
		e.Float(n.f)
	case n.isBool:
		e.Bool(n.i == 1)
	default:
		e.Value(n.i)
	}
}

// MarshalJSON writes the number as json.dumps does.
func (n Num) MarshalJSON() ([]byte, error) { return pyjson.Marshal(n) }

// UnmarshalJSON reads an int or a float, keeping which it was.
func (n *Num) UnmarshalJSON(b []byte) error {
	v, err := pyjson.Decode(b)
	if err != nil {
		return err
	}
	num, ok := numOf(v)
	if !ok {
		return fmt.Errorf("want a number, got %s", b)
	}
	*n = num
	return nil
}

// Python arithmetic on Nums: int op int stays int, anything with a float is
// a float.

func (n Num) add(m Num) Num {
	if n.isFloat || m.isFloat {
		return Float(n.Float64() + m.Float64())
	}
	return Int(n.i + m.i)
}

func (n Num) sub(m Num) Num {
	if n.isFloat || m.isFloat {
		return Float(n.Float64() - m.Float64())
	}
	return Int(n.i - m.i)
}

func (n Num) mul(m Num) Num {
	if n.isFloat || m.isFloat {
		return Float(n.Float64() * m.Float64())
	}
	return Int(n.i * m.i)
}

// equals is Python ==.
func (n Num) equals(m Num) bool {
	if n.isFloat || m.isFloat {
		return n.Float64() == m.Float64()
	}
	return n.i == m.i
}

// greater is n > f.
func (n Num) greater(f float64) bool { return n.Float64() > f }

func (n Num) isZero() bool { return n.Float64() == 0 }

// typeName is type(n).__name__.
func (n Num) typeName() string {
	switch {
	case n.isRaw:
		return pyjson.TypeName(n.raw)
	case n.isFloat:
		return "float"
	case n.isBool:
		return "bool"
	}
	return "int"
}

// value is the number as a decoded JSON value (for validation messages).
func (n Num) value() any {
	if n.isRaw {
		return n.raw
	}
	if n.isBool {
		return n.i == 1
	}
	if !n.isFloat {
		return json.Number(n.String())
	}
	switch {
	case math.IsInf(n.f, 1):
		return json.Number("1e999")
	case math.IsInf(n.f, -1):
		return json.Number("-1e999")
	}
	return json.Number(pyjson.Float(n.f))
}
