package retail

// LedgerAgent's tool path map for retail: where each successful read return
// is stored in the ledger, as the domain's own typed records.
//
//	read tool                 arguments      ledger path             value
//	------------------------  -------------  ----------------------  --------------------------------
//	find_user_id_by_email     email          auth.user_id            string (the user id found)
//	find_user_id_by_name_zip  name, zip      auth.user_id            string (the user id found)
//	get_user_details          user_id        user                    *User (payment methods, orders)
//	get_order_details         order_id       orders.<order_id>       *Order (items, status, payments)
//	get_product_details       product_id     products.<product_id>   *Product (variants by item id)
//	get_item_details          item_id        items.<item_id>         *Variant (options, price, availability)
//	list_all_product_types    -              product_types           omap.Map[string] (name → product id)
//
// Ids in paths come from the returned record (the record's own id), not from
// the call's arguments. calculate and transfer_to_human_agents are not reads
// and have no path; write returns (the updated order or user) are never
// stored: after a write the agent reads the record again.
//
// `auth.user_id` is the authentication the policy asks for (locating the user
// id by email or by name and zip); a later lookup replaces it. `user` holds
// the last user record read; predicates use it only when its user_id is the
// authenticated one (one user per conversation).

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Ledger paths.
const (
	pathAuth         = "auth.user_id"
	pathUser         = "user"
	pathProductTypes = "product_types"
	prefixOrders     = "orders."
	prefixProducts   = "products."
	prefixItems      = "items."
)

// Route implements ledger.Router: the static tool path map above. Outputs
// that do not decode as the tool's record give no entries.
func (d *Domain) Route(tool string, _ json.RawMessage, output string) []ledger.Entry {
	switch tool {
	case "find_user_id_by_email", "find_user_id_by_name_zip":
		id := strings.TrimSpace(output)
		if id == "" || strings.ContainsAny(id, " \t\n{}[]\"") {
			return nil
		}
		return []ledger.Entry{{Path: pathAuth, Value: id}}
	case "get_user_details":
		u, err := decodeUser([]byte(output))
		if err != nil || u.UserID == "" {
			return nil
		}
		return []ledger.Entry{{Path: pathUser, Value: u}}
	case "get_order_details":
		o, err := routeOrder([]byte(output))
		if err != nil || o.OrderID == "" {
			return nil
		}
		return []ledger.Entry{{Path: prefixOrders + o.OrderID, Value: o}}
	case "get_product_details":
		p, err := routeProduct([]byte(output))
		if err != nil || p.ProductID == "" {
			return nil
		}
		return []ledger.Entry{{Path: prefixProducts + p.ProductID, Value: p}}
	case "get_item_details":
		v, err := decodeVariant([]byte(output))
		if err != nil || v.ItemID == "" {
			return nil
		}
		return []ledger.Entry{{Path: prefixItems + v.ItemID, Value: v}}
	case "list_all_product_types":
		var o object
		if err := o.UnmarshalJSON([]byte(output)); err != nil {
			return nil
		}
		m, err := stringMap(o)
		if err != nil {
			return nil
		}
		return []ledger.Entry{{Path: pathProductTypes, Value: &m}}
	}
	return nil
}

func decodeVariant(b []byte) (*Variant, error) {
	var vj variantJSON
	if err := json.Unmarshal(b, &vj); err != nil {
		return nil, err
	}
	opts, err := stringMap(vj.Options)
	if err != nil {
		return nil, err
	}
	return &Variant{ItemID: vj.ItemID, Options: opts, Available: vj.Available, Price: vj.Price}, nil
}

// Typed ledger lookups for the predicates. Each returns nil (or "") when the
// record is absent or holds another type.

func authUserID(l *ledger.Ledger) string {
	v, _ := l.Get(pathAuth)
	s, _ := v.(string)
	return s
}

// authUser returns the user record when it is the authenticated user's.
func authUser(l *ledger.Ledger) *User {
	v, _ := l.Get(pathUser)
	u, _ := v.(*User)
	if u == nil || u.UserID != authUserID(l) {
		return nil
	}
	return u
}

func ledgerOrder(l *ledger.Ledger, id string) *Order {
	v, _ := l.Get(prefixOrders + id)
	o, _ := v.(*Order)
	return o
}

func ledgerProduct(l *ledger.Ledger, id string) *Product {
	v, _ := l.Get(prefixProducts + id)
	p, _ := v.(*Product)
	return p
}

// Orders and products are the records an agent reads most, so Route decodes
// them with the package's JSON scanner (members) instead of reflection; the
// result is the same record (TestRouteFastDecode compares both on the whole
// database). Any shape the fast path does not expect (a null where a value
// belongs, a wrong type) falls back to the reflective decoder, which decides.

func routeOrder(b []byte) (*Order, error) {
	if o, err := fastOrder(b); err == nil {
		return o, nil
	}
	return decodeOrder(b)
}

func routeProduct(b []byte) (*Product, error) {
	if p, err := fastProduct(b); err == nil {
		return p, nil
	}
	return decodeProduct(b)
}

var errShape = errors.New("unexpected JSON shape")

func isNullValue(v []byte) bool { return bytes.Equal(v, []byte("null")) }

func fastString(v []byte) (string, error) {
	if len(v) == 0 || v[0] != '"' {
		return "", errShape
	}
	return pyjson.DecodeString(v)
}

func fastStrings(v []byte) ([]string, error) {
	l, ok := stringList(v)
	if !ok {
		return nil, errShape
	}
	return l, nil
}

// fastNumber reads a JSON number; isInt reports an integer literal.
func fastNumber(v []byte) (f float64, isInt bool, err error) {
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, false, errShape
	}
	isInt = true
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9', c == '-', c == '+':
		case c == '.', c == 'e', c == 'E':
			isInt = false
		default:
			return 0, false, errShape
		}
	}
	f, err = strconv.ParseFloat(string(v), 64)
	return f, isInt, err
}

func fastStringMap(v []byte) (m omap.Map[string], err error) {
	err = fields(v, func(k string, v []byte) error {
		s, err := fastString(v)
		m.Set(k, s)
		return err
	})
	return m, err
}

// elements splits a JSON array into its raw values (null is not an array
// here: the reflective decoder decides it).
func elements(b []byte) ([][]byte, error) {
	if isNullValue(bytes.TrimSpace(b)) {
		return nil, errShape
	}
	return pyjson.Elements(b)
}

// fields calls fn for each member of a JSON object in order (null is not an
// object here: the reflective decoder decides it).
func fields(b []byte, fn func(k string, v []byte) error) error {
	if isNullValue(bytes.TrimSpace(b)) {
		return errShape
	}
	return pyjson.Object(b, fn)
}

func fastAddress(v []byte) (a Address, err error) {
	err = fields(v, func(k string, v []byte) error {
		var dst *string
		switch k {
		case "address1":
			dst = &a.Address1
		case "address2":
			dst = &a.Address2
		case "city":
			dst = &a.City
		case "country":
			dst = &a.Country
		case "state":
			dst = &a.State
		case "zip":
			dst = &a.Zip
		default:
			return nil
		}
		s, err := fastString(v)
		*dst = s
		return err
	})
	return a, err
}

func fastOrder(b []byte) (*Order, error) {
	o := &Order{}
	optStrings := func(v []byte) (*[]string, error) {
		if isNullValue(v) {
			return nil, nil
		}
		l, err := fastStrings(v)
		return &l, err
	}
	optString := func(v []byte) (*string, error) {
		if isNullValue(v) {
			return nil, nil
		}
		s, err := fastString(v)
		return &s, err
	}
	err := fields(bytes.TrimSpace(b), func(k string, v []byte) error {
		var err error
		switch k {
		case "order_id":
			o.OrderID, err = fastString(v)
		case "user_id":
			o.UserID, err = fastString(v)
		case "status":
			o.Status, err = fastString(v)
		case "address":
			o.Address, err = fastAddress(v)
		case "items":
			o.Items, err = fastItems(v)
		case "fulfillments":
			o.Fulfillments, err = fastFulfillments(v)
		case "payment_history":
			o.PaymentHistory, err = fastPayments(v)
		case "cancel_reason":
			o.CancelReason, err = optString(v)
		case "exchange_items":
			o.ExchangeItems, err = optStrings(v)
		case "exchange_new_items":
			o.ExchangeNewItems, err = optStrings(v)
		case "exchange_payment_method_id":
			o.ExchangePaymentMethodID, err = optString(v)
		case "exchange_price_difference":
			if !isNullValue(v) {
				f, isInt, ferr := fastNumber(v)
				o.ExchangePriceDifference, err = &Number{Value: f, Int: isInt}, ferr
			}
		case "return_items":
			o.ReturnItems, err = optStrings(v)
		case "return_payment_method_id":
			o.ReturnPaymentMethodID, err = optString(v)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

func fastItems(v []byte) ([]OrderItem, error) {
	els, err := elements(v)
	if err != nil {
		return nil, err
	}
	items := make([]OrderItem, len(els))
	for i, el := range els {
		it := &items[i]
		err := fields(el, func(k string, v []byte) error {
			var err error
			switch k {
			case "name":
				it.Name, err = fastString(v)
			case "product_id":
				it.ProductID, err = fastString(v)
			case "item_id":
				it.ItemID, err = fastString(v)
			case "price":
				it.Price, _, err = fastNumber(v)
			case "options":
				it.Options, err = fastStringMap(v)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return items, nil
}

func fastFulfillments(v []byte) ([]Fulfillment, error) {
	els, err := elements(v)
	if err != nil {
		return nil, err
	}
	out := make([]Fulfillment, len(els))
	for i, el := range els {
		f := &out[i]
		err := fields(el, func(k string, v []byte) error {
			var err error
			switch k {
			case "tracking_id":
				f.TrackingID, err = fastStrings(v)
			case "item_ids":
				f.ItemIDs, err = fastStrings(v)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func fastPayments(v []byte) ([]Payment, error) {
	els, err := elements(v)
	if err != nil {
		return nil, err
	}
	out := make([]Payment, len(els))
	for i, el := range els {
		p := &out[i]
		err := fields(el, func(k string, v []byte) error {
			var err error
			switch k {
			case "transaction_type":
				p.TransactionType, err = fastString(v)
			case "amount":
				p.Amount, _, err = fastNumber(v)
			case "payment_method_id":
				p.PaymentMethodID, err = fastString(v)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func fastProduct(b []byte) (*Product, error) {
	p := &Product{}
	err := fields(bytes.TrimSpace(b), func(k string, v []byte) error {
		var err error
		switch k {
		case "name":
			p.Name, err = fastString(v)
		case "product_id":
			p.ProductID, err = fastString(v)
		case "variants":
			err = fields(v, func(id string, v []byte) error {
				vr := &Variant{}
				err := fields(v, func(k string, v []byte) error {
					var err error
					switch k {
					case "item_id":
						vr.ItemID, err = fastString(v)
					case "options":
						vr.Options, err = fastStringMap(v)
					case "available":
						switch string(v) {
						case "true":
							vr.Available = true
						case "false":
						default:
							err = errShape
						}
					case "price":
						vr.Price, _, err = fastNumber(v)
					}
					return err
				})
				p.Variants.Set(id, vr)
				return err
			})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// stringList decodes a JSON array of strings (not null).
func stringList(b []byte) ([]string, bool) {
	if isNullValue(bytes.TrimSpace(b)) {
		return nil, false
	}
	out := []string{}
	err := pyjson.Array(b, func(_ int, e []byte) error {
		s, err := fastString(e)
		out = append(out, s)
		return err
	})
	return out, err == nil
}
