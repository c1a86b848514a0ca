package retail

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Fast decoding of db.json. omap.Map's UnmarshalJSON runs a json.Decoder per
// map, which rescans every nesting level (about 0.35 s for the 2.8 MB file).
// Here each object whose key order matters is split into its members by a
// small scanner and only the leaves go through encoding/json, so the file is
// read a few times in total. The result is the same DB (TestDumpDBMatchesFile
// compares it with the file).

// object is a JSON object's members in order, values still raw.
type object struct {
	keys []string
	vals [][]byte
}

// UnmarshalJSON splits the object (null gives no members).
func (o *object) UnmarshalJSON(data []byte) error {
	var err error
	o.keys, o.vals, err = members(data)
	return err
}

// orderedOf decodes every member value into V, keeping key order.
func orderedOf[V any](o object, decode func([]byte) (V, error)) (omap.Map[V], error) {
	var m omap.Map[V]
	for i, k := range o.keys {
		v, err := decode(o.vals[i])
		if err != nil {
			return omap.Map[V]{}, fmt.Errorf("%s: %w", k, err)
		}
		m.Set(k, v)
	}
	return m, nil
}

func stringMap(o object) (omap.Map[string], error) {
	return orderedOf(o, pyjson.DecodeString)
}

type variantJSON struct {
	ItemID    string  `json:"item_id"`
	Options   object  `json:"options"`
	Available bool    `json:"available"`
	Price     float64 `json:"price"`
}

type productJSON struct {
	Name      string `json:"name"`
	ProductID string `json:"product_id"`
	Variants  object `json:"variants"`
}

type userJSON struct {
	UserID         string   `json:"user_id"`
	Name           UserName `json:"name"`
	Address        Address  `json:"address"`
	Email          string   `json:"email"`
	PaymentMethods object   `json:"payment_methods"`
	Orders         []string `json:"orders"`
}

type orderItemJSON struct {
	Name      string  `json:"name"`
	ProductID string  `json:"product_id"`
	ItemID    string  `json:"item_id"`
	Price     float64 `json:"price"`
	Options   object  `json:"options"`
}

type orderJSON struct {
	Order
	Items []orderItemJSON `json:"items"`
}

func decodeProduct(b []byte) (*Product, error) {
	var pj productJSON
	if err := json.Unmarshal(b, &pj); err != nil {
		return nil, err
	}
	vs, err := orderedOf(pj.Variants, func(b []byte) (*Variant, error) {
		var vj variantJSON
		if err := json.Unmarshal(b, &vj); err != nil {
			return nil, err
		}
		opts, err := stringMap(vj.Options)
		if err != nil {
			return nil, err
		}
		return &Variant{ItemID: vj.ItemID, Options: opts, Available: vj.Available, Price: vj.Price}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Product{Name: pj.Name, ProductID: pj.ProductID, Variants: vs}, nil
}

func decodeUser(b []byte) (*User, error) {
	var uj userJSON
	if err := json.Unmarshal(b, &uj); err != nil {
		return nil, err
	}
	pms, err := orderedOf(uj.PaymentMethods, func(b []byte) (*PaymentMethod, error) {
		var pm PaymentMethod
		if err := json.Unmarshal(b, &pm); err != nil {
			return nil, err
		}
		return &pm, nil
	})
	if err != nil {
		return nil, err
	}
	return &User{UserID: uj.UserID, Name: uj.Name, Address: uj.Address, Email: uj.Email, PaymentMethods: pms, Orders: uj.Orders}, nil
}

func decodeOrder(b []byte) (*Order, error) {
	var oj orderJSON
	if err := json.Unmarshal(b, &oj); err != nil {
		return nil, err
	}
	o := oj.Order
	o.Items = make([]OrderItem, len(oj.Items))
	for i, it := range oj.Items {
		opts, err := stringMap(it.Options)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		o.Items[i] = OrderItem{Name: it.Name, ProductID: it.ProductID, ItemID: it.ItemID, Price: it.Price, Options: opts}
	}
	return &o, nil
}

// nullOr decodes a value, mapping JSON null to nil as pydantic would reject
// it later (validate reports it).
func nullOr[V any](decode func([]byte) (*V, error)) func([]byte) (*V, error) {
	return func(b []byte) (*V, error) {
		if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
			return nil, nil
		}
		return decode(b)
	}
}

// decodeDB reads the top-level object: only products, users and orders are
// allowed (RetailDB forbids extra keys).
func decodeDB(data []byte) (*DB, error) {
	var top object
	if err := top.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	var db DB
	for i, k := range top.keys {
		var inner object
		if err := inner.UnmarshalJSON(top.vals[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		var err error
		switch k {
		case "products":
			db.Products, err = orderedOf(inner, nullOr(decodeProduct))
		case "users":
			db.Users, err = orderedOf(inner, nullOr(decodeUser))
		case "orders":
			db.Orders, err = orderedOf(inner, nullOr(decodeOrder))
		default:
			err = errors.New("extra inputs are not permitted")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	return &db, nil
}

// members splits a JSON object into keys and raw values. null is an empty
// object.
func members(b []byte) ([]string, [][]byte, error) {
	var keys []string
	var vals [][]byte
	err := pyjson.Object(b, func(k string, v []byte) error {
		keys = append(keys, k)
		vals = append(vals, v)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return keys, vals, nil
}
