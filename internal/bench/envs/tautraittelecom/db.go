package tautraittelecom

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// The database is load_data()'s dict of five tables, each a JSON object of
// records. Records are kept as decoded JSON trees (*pyjson.Dict, []any,
// string, json.Number, float64, bool, nil): upstream's tools read and
// change them as plain dicts, store whatever the model passes, and dump
// them with json.dumps, so the tree keeps key order, value types and
// Python's texts without a typed model to diverge from.

// tableFiles are the tables in load_data's order, each read from
// <name>.json (support_tickets from support_tickets.json).
var tableFiles = []string{"customers", "services", "devices", "billing", "support_tickets"}

// DB is the loaded database, shared read-only by all simulations.
type DB struct {
	Customers omap.Map[*pyjson.Dict]
	Services  omap.Map[*pyjson.Dict]
	Devices   omap.Map[*pyjson.Dict]
	Billing   omap.Map[*pyjson.Dict]
	Tickets   omap.Map[*pyjson.Dict]
}

// LoadDB reads the five table files from dir (upstream's data folder). Each
// must be a JSON object whose values are objects (the tools call .get on
// every record); anything else is an error naming the file and the key.
func LoadDB(dir string) (*DB, error) {
	db := &DB{}
	dst := []*omap.Map[*pyjson.Dict]{&db.Customers, &db.Services, &db.Devices, &db.Billing, &db.Tickets}
	for i, name := range tableFiles {
		path := filepath.Join(dir, name+".json")
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: read data: %w", Name, err)
		}
		if err := decodeTable(raw, dst[i]); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", Name, path, err)
		}
	}
	return db, nil
}

func decodeTable(raw []byte, dst *omap.Map[*pyjson.Dict]) error {
	v, err := pyjson.Decode(raw)
	if err != nil {
		return err
	}
	top, ok := v.(*pyjson.Dict)
	if !ok {
		return fmt.Errorf("want a JSON object of records, got %s", pyjson.TypeName(v))
	}
	for i, k := range top.Keys {
		rec, ok := top.Values[i].(*pyjson.Dict)
		if !ok {
			return fmt.Errorf("record %q: want a JSON object, got %s", k, pyjson.TypeName(top.Values[i]))
		}
		dst.Set(k, rec)
	}
	return nil
}

// deepCopy copies a decoded tree: dicts and lists are new, scalars shared.
func deepCopy(v any) any {
	switch x := v.(type) {
	case *pyjson.Dict:
		return cloneDict(x)
	case []any:
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = deepCopy(el)
		}
		return out
	}
	return v
}

// cloneDict is a record's deep copy (table.New's clone).
func cloneDict(d *pyjson.Dict) *pyjson.Dict {
	out := &pyjson.Dict{Keys: append([]string(nil), d.Keys...), Values: make([]any, len(d.Values))}
	for i, v := range d.Values {
		out.Values[i] = deepCopy(v)
	}
	return out
}
