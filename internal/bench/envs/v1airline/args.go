package v1airline

import "github.com/ledgerbench/ledgerbench/internal/core/tool"

// Argument structs, one per tool, in the order of invoke's parameters
// (after data). Every parameter is required; the values are what json.loads
// made of them (tool.Value types: upstream checks no types).

type bookArgs struct {
	UserID         tool.StrValue `json:"user_id"`
	Origin         tool.StrValue `json:"origin"`
	Destination    tool.StrValue `json:"destination"`
	FlightType     tool.StrValue `json:"flight_type"`
	Cabin          tool.StrValue `json:"cabin"`
	Flights        tool.Value    `json:"flights"`
	Passengers     tool.Value    `json:"passengers"`
	PaymentMethods tool.Value    `json:"payment_methods"`
	TotalBaggages  tool.IntValue `json:"total_baggages"`
	NonfreeBags    tool.IntValue `json:"nonfree_baggages"`
	Insurance      tool.StrValue `json:"insurance"`
}

type expressionArgs struct {
	Expression tool.StrValue `json:"expression"`
}

type reservationArgs struct {
	ReservationID tool.StrValue `json:"reservation_id"`
}

type userArgs struct {
	UserID tool.StrValue `json:"user_id"`
}

type noArgs struct{}

type searchArgs struct {
	Origin      tool.StrValue `json:"origin"`
	Destination tool.StrValue `json:"destination"`
	Date        tool.StrValue `json:"date"`
}

type certificateArgs struct {
	UserID tool.StrValue `json:"user_id"`
	Amount tool.NumValue `json:"amount"`
}

type thoughtArgs struct {
	Thought tool.StrValue `json:"thought"`
}

type summaryArgs struct {
	Summary tool.StrValue `json:"summary"`
}

type baggagesArgs struct {
	ReservationID tool.StrValue `json:"reservation_id"`
	TotalBaggages tool.IntValue `json:"total_baggages"`
	NonfreeBags   tool.IntValue `json:"nonfree_baggages"`
	PaymentID     tool.StrValue `json:"payment_id"`
}

type flightsArgs struct {
	ReservationID tool.StrValue `json:"reservation_id"`
	Cabin         tool.StrValue `json:"cabin"`
	Flights       tool.Value    `json:"flights"`
	PaymentID     tool.StrValue `json:"payment_id"`
}

type passengersArgs struct {
	ReservationID tool.StrValue `json:"reservation_id"`
	Passengers    tool.Value    `json:"passengers"`
}
