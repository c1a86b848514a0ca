package airline

import (
	"strconv"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pydantic"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// The argument types are tool's argument model (tool.Value: the value as
// json.loads hands it over, checked later by the tool itself, see
// pyvalue.go); they differ only in the schema they advertise.
type (
	strArg        = tool.StrValue
	intArg        = tool.IntValue
	flightsArg    struct{ tool.Value }
	passengersArg struct{ tool.Value }
	paymentsArg   struct{ tool.Value }
)

func (flightsArg) JSONSchema() *pyjson.Dict {
	return listOf(object(
		prop{"flight_number", typed("string")},
		prop{"date", typed("string")},
	))
}

func (passengersArg) JSONSchema() *pyjson.Dict {
	return listOf(object(
		prop{"first_name", typed("string")},
		prop{"last_name", typed("string")},
		prop{"dob", typed("string")},
	))
}

func (paymentsArg) JSONSchema() *pyjson.Dict {
	return listOf(object(
		prop{"payment_id", typed("string")},
		prop{"amount", typed("integer")},
	))
}

func typed(t string) *pyjson.Dict {
	d := &pyjson.Dict{}
	d.Set("type", t)
	return d
}

type prop struct {
	name   string
	schema *pyjson.Dict
}

// object is the schema of a pydantic model whose fields are all required.
func object(props ...prop) *pyjson.Dict {
	ps := &pyjson.Dict{}
	var req []any
	for _, p := range props {
		ps.Set(p.name, p.schema)
		req = append(req, p.name)
	}
	d := typed("object")
	d.Set("properties", ps)
	d.Set("required", req)
	return d
}

// listOf is upstream's List[Model | dict] parameter: items are the model or
// any object.
func listOf(model *pyjson.Dict) *pyjson.Dict {
	anyObj := typed("object")
	anyObj.Set("additionalProperties", true)
	items := &pyjson.Dict{}
	items.Set("anyOf", []any{model, anyObj})
	d := typed("array")
	d.Set("items", items)
	return d
}

// FlightInfo is one requested flight segment.
type FlightInfo struct {
	FlightNumber string
	Date         string
}

func flightInfoOf(d *pyjson.Dict) (FlightInfo, error) {
	var v pydantic.Validator
	var f FlightInfo
	if x, ok := v.Field(d, "flight_number"); ok {
		f.FlightNumber = v.Str("flight_number", x)
	}
	if x, ok := v.Field(d, "date"); ok {
		f.Date = v.Str("date", x)
	}
	return f, v.Err("FlightInfo")
}

// passenger validates a Passenger from a dict into v.
func passengerField(v *pydantic.Validator, d *pyjson.Dict) Passenger {
	var p Passenger
	if x, ok := v.Field(d, "first_name"); ok {
		p.FirstName = v.Str("first_name", x)
	}
	if x, ok := v.Field(d, "last_name"); ok {
		p.LastName = v.Str("last_name", x)
	}
	if x, ok := v.Field(d, "dob"); ok {
		p.DOB = v.Str("dob", x)
	}
	return p
}

func passengerOf(d *pyjson.Dict) (Passenger, error) {
	var v pydantic.Validator
	p := passengerField(&v, d)
	return p, v.Err("Passenger")
}

func paymentField(v *pydantic.Validator, d *pyjson.Dict) Payment {
	var p Payment
	if x, ok := v.Field(d, "payment_id"); ok {
		p.PaymentID = v.Str("payment_id", x)
	}
	if x, ok := v.Field(d, "amount"); ok {
		p.Amount = v.Int("amount", x)
	}
	return p
}

func paymentOf(d *pyjson.Dict) (Payment, error) {
	var v pydantic.Validator
	p := paymentField(&v, d)
	return p, v.Err("Payment")
}

// modelList is a list argument after upstream's
// `if all(isinstance(x, dict) for x in xs): xs = [Model(**x) for x in xs]`.
type modelList[T any] struct {
	orig      any   // the argument as given
	items     []any // what iterating it yields (len() of the argument)
	converted bool  // every item was a dict and became a model
	models    []T
}

func asModels[T any](v any, conv func(*pyjson.Dict) (T, error)) (modelList[T], error) {
	items, err := pyjson.Iterate(v)
	if err != nil {
		return modelList[T]{}, err
	}
	ml := modelList[T]{orig: v, items: items}
	for _, it := range items {
		if _, ok := it.(*pyjson.Dict); !ok {
			return ml, nil
		}
	}
	ml.converted = true
	ml.models = make([]T, len(items))
	for i, it := range items {
		m, err := conv(it.(*pyjson.Dict))
		if err != nil {
			return ml, err
		}
		ml.models[i] = m
	}
	return ml, nil
}

// modelField validates a list[Model] field of an enclosing model: converted
// lists pass; anything else is validated item by item as pydantic would.
func modelField[T any](v *pydantic.Validator, loc, model string, ml modelList[T], item func(*pydantic.Validator, *pyjson.Dict) T) []T {
	if ml.converted {
		return ml.models
	}
	list, ok := ml.orig.([]any)
	if !ok {
		v.Add(loc, "list_type", "Input should be a valid list", ml.orig)
		return nil
	}
	out := make([]T, 0, len(list))
	for i, it := range list {
		at := loc + "." + strconv.Itoa(i)
		d, ok := it.(*pyjson.Dict)
		if !ok {
			v.Add(at, "model_type", "Input should be a valid dictionary or instance of "+model, it)
			continue
		}
		sub := pydantic.Validator{Prefix: v.Prefix + at + "."}
		out = append(out, item(&sub, d))
		v.Lines = append(v.Lines, sub.Lines...)
	}
	return out
}
