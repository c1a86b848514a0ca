package airline

import (
	"encoding/json"
	"strconv"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Upstream calls tools with the model's JSON arguments as Python keyword
// arguments and never checks them against the schema, so a tool sees whatever
// json.loads produced. The airline tools therefore take their arguments as
// decoded JSON values (see pyjson.Decode: *pyjson.Dict, []any, json.Number,
// string, bool, nil) and check them where and as upstream's Python would,
// with the same error texts. Package pyjson gives those values Python's type
// names, str(), repr(), hashing and iteration, package pydantic the model
// validation upstream runs on them; numOf below gives the numbers upstream's
// arithmetic sees.

// numOf returns v as a Python number if it is one (bool is not accepted
// here).
func numOf(v any) (Num, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return Num{}, false
	}
	if !pyjson.IsInt(n) {
		return Float(pyjson.NumberFloat(n)), true
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil { // beyond int64: keep the magnitude as a float
		return Float(pyjson.NumberFloat(n)), true
	}
	return Int(i), true
}

// Upstream's Literal types, in declaration order (it shows in messages).
var (
	flightTypes = []string{"round_trip", "one_way"}
	cabinTypes  = []string{"business", "economy", "basic_economy"}
	insurances  = []string{"yes", "no"}
)
