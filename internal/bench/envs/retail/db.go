package retail

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/py/omap"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

// DB is upstream's RetailDB: products, users and orders keyed by id, in file
// order. The loaded DB is shared by every simulation and never modified;
// simulations change users and orders through copy-on-write tables (see Env).
type DB struct {
	Products omap.Map[*Product] `json:"products"`
	Users    omap.Map[*User]    `json:"users"`
	Orders   omap.Map[*Order]   `json:"orders"`
}

// Product is a product type with its variants (items) in file order.
type Product struct {
	Name      string             `json:"name"`
	ProductID string             `json:"product_id"`
	Variants  omap.Map[*Variant] `json:"variants"`
}

// Variant is one purchasable item of a product.
type Variant struct {
	ItemID    string           `json:"item_id"`
	Options   omap.Map[string] `json:"options"`
	Available bool             `json:"available"`
	Price     float64          `json:"price"`
}

// UserName is a user's name.
type UserName struct {
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

// Address is upstream's UserAddress (also used for order shipping addresses).
type Address struct {
	Address1 string `json:"address1"`
	Address2 string `json:"address2"`
	City     string `json:"city"`
	Country  string `json:"country"`
	State    string `json:"state"`
	Zip      string `json:"zip"`
}

// User is a customer with payment methods (in file order) and order ids.
type User struct {
	UserID         string                   `json:"user_id"`
	Name           UserName                 `json:"name"`
	Address        Address                  `json:"address"`
	Email          string                   `json:"email"`
	PaymentMethods omap.Map[*PaymentMethod] `json:"payment_methods"`
	Orders         []string                 `json:"orders"`
}

// Payment method sources (upstream's discriminating literal).
const (
	SourceCreditCard = "credit_card"
	SourcePaypal     = "paypal"
	SourceGiftCard   = "gift_card"
)

// PaymentMethod is upstream's PaymentMethod union (CreditCard | GiftCard |
// Paypal) tagged by Source. Each kind dumps only its own fields, in upstream's
// field order: credit_card {source, id, brand, last_four}, gift_card {source,
// id, balance}, paypal {source, id}.
type PaymentMethod struct {
	Source   string
	ID       string
	Brand    string  // credit_card
	LastFour string  // credit_card
	Balance  float64 // gift_card
}

// IsGiftCard reports whether the method is a gift card (the only kind with a
// balance that tools change).
func (p *PaymentMethod) IsGiftCard() bool { return p.Source == SourceGiftCard }

// EncodePy writes the method as its pydantic model dumps.
func (p *PaymentMethod) EncodePy(e *pyjson.Encoder) {
	e.BeginObject()
	e.Key("source", true)
	e.String(p.Source)
	e.Key("id", false)
	e.String(p.ID)
	switch p.Source {
	case SourceCreditCard:
		e.Key("brand", false)
		e.String(p.Brand)
		e.Key("last_four", false)
		e.String(p.LastFour)
	case SourceGiftCard:
		e.Key("balance", false)
		e.Float(p.Balance)
	}
	e.EndObject(false)
}

// UnmarshalJSON validates the union like pydantic: the source literal picks
// the model, that model's fields are required, extra keys are ignored.
func (p *PaymentMethod) UnmarshalJSON(data []byte) error {
	var raw struct {
		Source   *string  `json:"source"`
		ID       *string  `json:"id"`
		Brand    *string  `json:"brand"`
		LastFour *string  `json:"last_four"`
		Balance  *float64 `json:"balance"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw.Source == nil || raw.ID == nil {
		return fmt.Errorf("payment method: source and id are required")
	}
	*p = PaymentMethod{Source: *raw.Source, ID: *raw.ID}
	switch p.Source {
	case SourceCreditCard:
		if raw.Brand == nil || raw.LastFour == nil {
			return fmt.Errorf("credit card %s: brand and last_four are required", p.ID)
		}
		p.Brand, p.LastFour = *raw.Brand, *raw.LastFour
	case SourceGiftCard:
		if raw.Balance == nil {
			return fmt.Errorf("gift card %s: balance is required", p.ID)
		}
		p.Balance = *raw.Balance
	case SourcePaypal:
	default:
		return fmt.Errorf("payment method %s: unknown source %q", p.ID, p.Source)
	}
	return nil
}

// MarshalJSON writes the same JSON as EncodePy (for encoding/json users).
func (p *PaymentMethod) MarshalJSON() ([]byte, error) { return pyjson.Marshal(p) }

// OrderItem is one item of an order.
type OrderItem struct {
	Name      string  `json:"name"`
	ProductID string  `json:"product_id"`
	ItemID    string  `json:"item_id"`
	Price     float64 `json:"price"`
	// Options maps are never modified in place (tools replace them whole),
	// so clones may share them.
	Options omap.Map[string] `json:"options"`
}

// Fulfillment is one shipment of an order.
type Fulfillment struct {
	TrackingID []string `json:"tracking_id"`
	ItemIDs    []string `json:"item_ids"`
}

// Payment is one entry of an order's payment history.
type Payment struct {
	TransactionType string  `json:"transaction_type"`
	Amount          float64 `json:"amount"`
	PaymentMethodID string  `json:"payment_method_id"`
}

// Order is upstream's Order. Optional fields are nil until a tool sets them
// and are dumped as null (pydantic's model_dump keeps unset optional fields).
type Order struct {
	OrderID                 string        `json:"order_id"`
	UserID                  string        `json:"user_id"`
	Address                 Address       `json:"address"`
	Items                   []OrderItem   `json:"items"`
	Status                  string        `json:"status"`
	Fulfillments            []Fulfillment `json:"fulfillments"`
	PaymentHistory          []Payment     `json:"payment_history"`
	CancelReason            *string       `json:"cancel_reason"`
	ExchangeItems           *[]string     `json:"exchange_items"`
	ExchangeNewItems        *[]string     `json:"exchange_new_items"`
	ExchangePaymentMethodID *string       `json:"exchange_payment_method_id"`
	ExchangePriceDifference *Number       `json:"exchange_price_difference"`
	ReturnItems             *[]string     `json:"return_items"`
	ReturnPaymentMethodID   *string       `json:"return_payment_method_id"`
}

// Number is a float field that Python may hold as an int: upstream assigns
// round(0, 2) == 0 (an int, printed "0") to exchange_price_difference when an
// exchange lists no items, because pydantic does not validate assignments.
// Values loaded from the DB are always floats.
type Number struct {
	Value float64
	Int   bool
}

// EncodePy writes the number as Python prints it.
func (n Number) EncodePy(e *pyjson.Encoder) {
	if n.Int {
		e.Value(int64(n.Value))
		return
	}
	e.Float(n.Value)
}

// UnmarshalJSON reads a number; pydantic coerces ints into float fields.
func (n *Number) UnmarshalJSON(data []byte) error {
	*n = Number{}
	return json.Unmarshal(data, &n.Value)
}

// MarshalJSON writes the same JSON as EncodePy.
func (n Number) MarshalJSON() ([]byte, error) { return pyjson.Marshal(n) }

// Order statuses (upstream's OrderStatus literal).
const (
	StatusProcessed         = "processed"
	StatusPending           = "pending"
	StatusPendingModified   = "pending (item modified)"
	StatusDelivered         = "delivered"
	StatusCancelled         = "cancelled"
	StatusExchangeRequested = "exchange requested"
	StatusReturnRequested   = "return requested"
)

var (
	orderStatuses    = []string{StatusProcessed, StatusPending, StatusPendingModified, StatusDelivered, StatusCancelled, StatusExchangeRequested, StatusReturnRequested}
	cancelReasons    = []string{"no longer needed", "ordered by mistake"}
	transactionTypes = []string{"payment", "refund"}
)

// DecodeDB parses db.json. Like upstream's RetailDB (extra="forbid") it
// rejects unknown top-level keys; inner models ignore unknown keys, and
// literal fields (status, cancel reason, transaction type, payment source)
// must hold one of their values.
func DecodeDB(data []byte) (*DB, error) {
	db, err := decodeDB(data)
	if err != nil {
		return nil, err
	}
	if err := db.validate(); err != nil {
		return nil, err
	}
	return db, nil
}

// loadDB decodes db.json: lazily when it is the pinned file (checked by
// hash while the records are split), else in full, validating every record.
func loadDB(raw []byte) (*DB, error) {
	return data.DecodePinned(data.Tau2, path.Join(data.Tau2DomainPath(Name), "db.json"), raw, decodePinnedDB, DecodeDB)
}

// decodePinnedDB reads the pinned db.json, which the tests decode in full
// (TestPinnedDBLazy): one pass splits the tables into records, each decoded
// when first used.
func decodePinnedDB(raw []byte) (*DB, error) {
	t, err := omap.Tables(raw, "products", "users", "orders")
	if err != nil {
		return nil, err
	}
	return &DB{
		Products: omap.LazyFrom(t[0], nullOr(decodeProduct)),
		Users:    omap.LazyFrom(t[1], nullOr(decodeUser)),
		Orders:   omap.LazyFrom(t[2], nullOr(decodeOrder)),
	}, nil
}

func (db *DB) validate() error {
	for id, p := range db.Products.All() {
		if p == nil {
			return fmt.Errorf("product %s: null", id)
		}
		for vid, v := range p.Variants.All() {
			if v == nil {
				return fmt.Errorf("product %s variant %s: null", id, vid)
			}
		}
	}
	for id, u := range db.Users.All() {
		if u == nil {
			return fmt.Errorf("user %s: null", id)
		}
		for pid, pm := range u.PaymentMethods.All() {
			if pm == nil {
				return fmt.Errorf("user %s payment method %s: null", id, pid)
			}
		}
	}
	for id, o := range db.Orders.All() {
		if o == nil {
			return fmt.Errorf("order %s: null", id)
		}
		if !slices.Contains(orderStatuses, o.Status) {
			return fmt.Errorf("order %s: invalid status %q", id, o.Status)
		}
		if o.CancelReason != nil && !slices.Contains(cancelReasons, *o.CancelReason) {
			return fmt.Errorf("order %s: invalid cancel_reason %q", id, *o.CancelReason)
		}
		for _, p := range o.PaymentHistory {
			if !slices.Contains(transactionTypes, p.TransactionType) {
				return fmt.Errorf("order %s: invalid transaction_type %q", id, p.TransactionType)
			}
		}
	}
	return nil
}

// EncodePy writes the whole DB as upstream's model_dump.
func (db *DB) EncodePy(e *pyjson.Encoder) {
	e.BeginObject()
	e.Key("products", true)
	e.Value(&db.Products)
	e.Key("users", false)
	e.Value(&db.Users)
	e.Key("orders", false)
	e.Value(&db.Orders)
	e.EndObject(false)
}

func cloneUser(u *User) *User {
	c := *u
	c.PaymentMethods = u.PaymentMethods.Clone(func(p *PaymentMethod) *PaymentMethod {
		pc := *p
		return &pc
	})
	c.Orders = slices.Clone(u.Orders)
	return &c
}

func cloneOrder(o *Order) *Order {
	c := *o
	c.Items = slices.Clone(o.Items)
	c.Fulfillments = make([]Fulfillment, len(o.Fulfillments))
	for i, f := range o.Fulfillments {
		c.Fulfillments[i] = Fulfillment{TrackingID: slices.Clone(f.TrackingID), ItemIDs: slices.Clone(f.ItemIDs)}
	}
	c.PaymentHistory = slices.Clone(o.PaymentHistory)
	c.CancelReason = clonePtr(o.CancelReason)
	c.ExchangeItems = cloneList(o.ExchangeItems)
	c.ExchangeNewItems = cloneList(o.ExchangeNewItems)
	c.ExchangePaymentMethodID = clonePtr(o.ExchangePaymentMethodID)
	c.ExchangePriceDifference = clonePtr(o.ExchangePriceDifference)
	c.ReturnItems = cloneList(o.ReturnItems)
	c.ReturnPaymentMethodID = clonePtr(o.ReturnPaymentMethodID)
	return &c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func cloneList(p *[]string) *[]string {
	if p == nil {
		return nil
	}
	l := slices.Clone(*p)
	return &l
}
