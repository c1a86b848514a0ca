package retail

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pycalc"
	"github.com/ledgerbench/ledgerbench/internal/py/pydantic"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Argument structs. Field order is upstream's parameter order. Every
// argument is a tool.Value: upstream's tools receive the decoded JSON value
// whatever its type, and fail on it (or not) where their Python code does
// (the gate asks for the documented types, see validateArgs).

type calculateArgs struct {
	Expression tool.StrValue `json:"expression"`
}

type cancelArgs struct {
	OrderID tool.StrValue `json:"order_id"`
	Reason  tool.StrValue `json:"reason"`
}

type exchangeArgs struct {
	OrderID         tool.StrValue     `json:"order_id"`
	ItemIDs         tool.StrListValue `json:"item_ids"`
	NewItemIDs      tool.StrListValue `json:"new_item_ids"`
	PaymentMethodID tool.StrValue     `json:"payment_method_id"`
}

type nameZipArgs struct {
	FirstName tool.StrValue `json:"first_name"`
	LastName  tool.StrValue `json:"last_name"`
	Zip       tool.StrValue `json:"zip"`
}

type emailArgs struct {
	Email tool.StrValue `json:"email"`
}

type orderArgs struct {
	OrderID tool.StrValue `json:"order_id"`
}

type productArgs struct {
	ProductID tool.StrValue `json:"product_id"`
}

type itemArgs struct {
	ItemID tool.StrValue `json:"item_id"`
}

type userArgs struct {
	UserID tool.StrValue `json:"user_id"`
}

type noArgs struct{}

type orderAddressArgs struct {
	OrderID  tool.StrValue `json:"order_id"`
	Address1 tool.StrValue `json:"address1"`
	Address2 tool.StrValue `json:"address2"`
	City     tool.StrValue `json:"city"`
	State    tool.StrValue `json:"state"`
	Country  tool.StrValue `json:"country"`
	Zip      tool.StrValue `json:"zip"`
}

type modifyItemsArgs struct {
	OrderID         tool.StrValue     `json:"order_id"`
	ItemIDs         tool.StrListValue `json:"item_ids"`
	NewItemIDs      tool.StrListValue `json:"new_item_ids"`
	PaymentMethodID tool.StrValue     `json:"payment_method_id"`
}

type modifyPaymentArgs struct {
	OrderID         tool.StrValue `json:"order_id"`
	PaymentMethodID tool.StrValue `json:"payment_method_id"`
}

type userAddressArgs struct {
	UserID   tool.StrValue `json:"user_id"`
	Address1 tool.StrValue `json:"address1"`
	Address2 tool.StrValue `json:"address2"`
	City     tool.StrValue `json:"city"`
	State    tool.StrValue `json:"state"`
	Country  tool.StrValue `json:"country"`
	Zip      tool.StrValue `json:"zip"`
}

type returnArgs struct {
	OrderID         tool.StrValue     `json:"order_id"`
	ItemIDs         tool.StrListValue `json:"item_ids"`
	PaymentMethodID tool.StrValue     `json:"payment_method_id"`
}

type transferArgs struct {
	Summary tool.StrValue `json:"summary"` // never inspected
}

func newToolSet() *tool.Set[*Env] {
	return tool.NewSet(toolkitClass,
		tool.New("calculate", tool.Generic, "",
			calculate),
		tool.New("cancel_pending_order", tool.Write, "",
			cancelPendingOrder),
		tool.New("exchange_delivered_order_items", tool.Write, "",
			exchangeDeliveredOrderItems),
		tool.New("find_user_id_by_name_zip", tool.Read, "",
			findUserIDByNameZip),
		tool.New("find_user_id_by_email", tool.Read, "",
			findUserIDByEmail),
		tool.New("get_order_details", tool.Read, "",
			getOrderDetails),
		tool.New("get_product_details", tool.Read, "",
			getProductDetails),
		tool.New("get_item_details", tool.Read, "",
			getItemDetails),
		tool.New("get_user_details", tool.Read, "",
			getUserDetails),
		tool.New("list_all_product_types", tool.Read, "",
			listAllProductTypes),
		tool.New("modify_pending_order_address", tool.Write, "",
			modifyPendingOrderAddress),
		tool.New("modify_pending_order_items", tool.Write, "",
			modifyPendingOrderItems),
		tool.New("modify_pending_order_payment", tool.Write, "",
			modifyPendingOrderPayment),
		tool.New("modify_user_address", tool.Write, "",
			modifyUserAddress),
		tool.New("return_delivered_order_items", tool.Write, "",
			returnDeliveredOrderItems),
		tool.New("transfer_to_human_agents", tool.Generic, "",
			transferToHumanAgents),
	)
}

func calculate(_ context.Context, _ *Env, a calculateArgs) (any, error) {
	return pycalc.Tau2Value(a.Expression.V)
}

func transferToHumanAgents(_ context.Context, _ *Env, _ transferArgs) (any, error) {
	return "Transfer successful", nil
}

// Lookup helpers with upstream's exception texts. An id is any decoded JSON
// value: `id in d` raises for a list or dict and is false for any other
// non-string. They return the key found and a read-only record.

// lookup is upstream's `if id not in d: raise ValueError(notFound)` then
// `d[id]`, for any of the DB's mappings (get is its Get).
func lookup[V any](get func(string) (V, bool), id any, notFound string) (string, V, error) {
	var zero V
	k, ok, err := pyjson.DictKey(id)
	if err != nil {
		return "", zero, err
	}
	if v, found := get(k); ok && found {
		return k, v, nil
	}
	return "", zero, errors.New(notFound)
}

func (e *Env) getOrder(id any) (string, *Order, error) {
	return lookup(e.orders.Get, id, "Order not found")
}

func (e *Env) getUser(id any) (string, *User, error) {
	return lookup(e.users.Get, id, "User not found")
}

func (e *Env) getProduct(id any) (*Product, error) {
	_, p, err := lookup(e.d.db.Products.Get, id, "Product not found")
	return p, err
}

func (e *Env) getVariant(productID string, itemID any) (*Variant, error) {
	p, err := e.getProduct(productID)
	if err != nil {
		return nil, err
	}
	_, v, err := lookup(p.Variants.Get, itemID, "Variant not found")
	return v, err
}

func (e *Env) getPaymentMethod(userID string, id any) (string, *PaymentMethod, error) {
	_, u, err := e.getUser(userID)
	if err != nil {
		return "", nil, err
	}
	return lookup(u.PaymentMethods.Get, id, "Payment method not found")
}

// mutOrder and mutPaymentMethod return records this environment owns. They are
// called only after a successful lookup of the same record.
func (e *Env) mutOrder(id string) *Order {
	o, _ := e.orders.Mut(id)
	return o
}

func (e *Env) mutPaymentMethod(userID, id string) *PaymentMethod {
	u, _ := e.users.Mut(userID)
	pm, _ := u.PaymentMethods.Get(id)
	return pm
}

// isPending is upstream's loose check (status contains "pending"), used by
// the address and payment modifications; the others require "pending".
func isPending(o *Order) bool { return strings.Contains(o.Status, "pending") }

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

func itemIDs(o *Order) []string {
	ids := make([]string, len(o.Items))
	for i, it := range o.Items {
		ids[i] = it.ItemID
	}
	return ids
}

// checkCounts is upstream's check of an item list argument:
//
//	for item_id in item_ids:
//	    if item_ids.count(item_id) > all_item_ids.count(item_id): raise errf(item_id)
//
// on any decoded JSON value. Once it passes, every item is an item id of
// the order (a str), which it returns.
func checkCounts(o *Order, ids any, errf func(id any) error) ([]string, error) {
	items, err := pyjson.Iterate(ids)
	if err != nil {
		return nil, err
	}
	all := itemIDs(o)
	out := make([]string, 0, len(items))
	for _, it := range items {
		n, err := pyCount(ids, it)
		if err != nil {
			return nil, err
		}
		s, ok := it.(string)
		if !ok || n > countOf(all, s) { // a non-str is in no order
			return nil, errf(it)
		}
		out = append(out, s)
	}
	return out, nil
}

// pyCount is seq.count(x) for an item x of seq (a list or a str; a dict has
// no count method).
func pyCount(seq, x any) (int, error) {
	switch l := seq.(type) {
	case []any:
		n := 0
		for _, y := range l {
			if pyjson.Equal(y, x) {
				n++
			}
		}
		return n, nil
	case string:
		return strings.Count(l, x.(string)), nil // x is one of its characters
	}
	return 0, fmt.Errorf("'%s' object has no attribute 'count'", pyjson.TypeName(seq))
}

// newItems is the new_item_ids argument paired with the checked item_ids
// (zip after upstream's `len(item_ids) != len(new_item_ids)` check, whose
// error text is mismatch): its items, which any JSON value with a len()
// can iterate.
func newItems(ids []string, newIDs any, mismatch string) ([]any, error) {
	n, err := pyjson.Len(newIDs)
	if err != nil {
		return nil, err
	}
	if len(ids) != n {
		return nil, errors.New(mismatch)
	}
	return pyjson.Iterate(newIDs)
}

func firstItem(o *Order, itemID string) int {
	for i := range o.Items {
		if o.Items[i].ItemID == itemID {
			return i
		}
	}
	return -1
}

func cancelPendingOrder(_ context.Context, e *Env, a cancelArgs) (any, error) {
	id, o, err := e.getOrder(a.OrderID.V)
	if err != nil {
		return nil, err
	}
	if o.Status != StatusPending {
		return nil, errors.New("Non-pending order cannot be cancelled")
	}
	reason, ok, err := pyjson.DictKey(a.Reason.V) // `reason not in {...}`
	if err != nil {
		return nil, err
	}
	if !ok || !slices.Contains(cancelReasons, reason) {
		return nil, errors.New("Invalid reason")
	}
	refunds := make([]Payment, 0, len(o.PaymentHistory))
	for _, p := range o.PaymentHistory {
		refunds = append(refunds, Payment{TransactionType: "refund", Amount: p.Amount, PaymentMethodID: p.PaymentMethodID})
		if _, _, err := e.getUser(o.UserID); err != nil {
			return nil, err
		}
		_, pm, err := e.getPaymentMethod(o.UserID, p.PaymentMethodID)
		if err != nil {
			// Gift cards refunded by earlier iterations stay refunded, as
			// upstream mutates them in the loop.
			return nil, err
		}
		if pm.IsGiftCard() {
			pm = e.mutPaymentMethod(o.UserID, p.PaymentMethodID)
			pm.Balance = pyjson.Round(pm.Balance+p.Amount, 2)
		}
	}
	om := e.mutOrder(id)
	om.Status = StatusCancelled
	om.CancelReason = &reason
	om.PaymentHistory = append(om.PaymentHistory, refunds...)
	return om, nil
}

func exchangeDeliveredOrderItems(_ context.Context, e *Env, a exchangeArgs) (any, error) {
	id, o, err := e.getOrder(a.OrderID.V)
	if err != nil {
		return nil, err
	}
	if o.Status != StatusDelivered {
		return nil, errors.New("Non-delivered order cannot be exchanged")
	}
	ids, err := checkCounts(o, a.ItemIDs.V, func(id any) error { return fmt.Errorf("Number of %s not found.", pyjson.Str(id)) })
	if err != nil {
		return nil, err
	}
	news, err := newItems(ids, a.NewItemIDs.V, "The number of items to be exchanged should match.")
	if err != nil {
		return nil, err
	}
	// Python starts the sum at the int 0: with no items the difference
	// stays an int.
	diff := Number{Int: true}
	newIDs := make([]string, 0, len(news))
	for i, itemID := range ids {
		k := firstItem(o, itemID)
		if k < 0 {
			return nil, fmt.Errorf("Item %s not found", itemID)
		}
		v, err := e.getVariant(o.Items[k].ProductID, news[i])
		if err != nil {
			return nil, err
		}
		newID := news[i].(string) // a variant's key
		if !v.Available {
			return nil, fmt.Errorf("New item %s not found or available", newID)
		}
		diff = Number{Value: diff.Value + (v.Price - o.Items[k].Price)}
		newIDs = append(newIDs, newID)
	}
	if !diff.Int {
		diff.Value = pyjson.Round(diff.Value, 2)
	}
	pmID, pm, err := e.getPaymentMethod(o.UserID, a.PaymentMethodID.V)
	if err != nil {
		return nil, err
	}
	if pm.IsGiftCard() && pm.Balance < diff.Value {
		return nil, errors.New("Insufficient gift card balance to pay for the price difference")
	}
	om := e.mutOrder(id)
	om.Status = StatusExchangeRequested
	om.ExchangeItems = sortedCopy(ids)
	om.ExchangeNewItems = sortedCopy(newIDs)
	om.ExchangePaymentMethodID = &pmID
	om.ExchangePriceDifference = &diff
	return om, nil
}

func sortedCopy(ids []string) *[]string {
	s := slices.Clone(ids)
	if s == nil {
		s = []string{}
	}
	slices.Sort(s)
	return &s
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lowerEqual reports a.lower() == b.lower() in Python, without allocating
// for ASCII strings.
func lowerEqual(a, b string) bool {
	if isASCII(a) && isASCII(b) {
		if len(a) != len(b) {
			return false
		}
		for i := 0; i < len(a); i++ {
			x, y := a[i], b[i]
			if 'A' <= x && x <= 'Z' {
				x += 'a' - 'A'
			}
			if 'A' <= y && y <= 'Z' {
				y += 'a' - 'A'
			}
			if x != y {
				return false
			}
		}
		return true
	}
	return pyjson.Lower(a) == pyjson.Lower(b)
}

// lowerable is v for a call of v.lower(): Python's error for a value that
// is not a str.
func lowerable(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("'%s' object has no attribute 'lower'", pyjson.TypeName(v))
	}
	return s, nil
}

func findUserIDByNameZip(_ context.Context, e *Env, a nameZipArgs) (any, error) {
	// Python evaluates first_name.lower() for every user, and
	// last_name.lower() only once a first name matches; zip is compared
	// with == (a non-str never matches).
	for id, u := range e.users.All() {
		first, err := lowerable(a.FirstName.V)
		if err != nil {
			return nil, err
		}
		if !lowerEqual(u.Name.FirstName, first) {
			continue
		}
		last, err := lowerable(a.LastName.V)
		if err != nil {
			return nil, err
		}
		if zip, ok := a.Zip.V.(string); ok && lowerEqual(u.Name.LastName, last) && u.Address.Zip == zip {
			return id, nil
		}
	}
	return nil, errors.New("User not found")
}

func findUserIDByEmail(_ context.Context, e *Env, a emailArgs) (any, error) {
	for id, u := range e.users.All() {
		email, err := lowerable(a.Email.V)
		if err != nil {
			return nil, err
		}
		if lowerEqual(u.Email, email) {
			return id, nil
		}
	}
	return nil, errors.New("User not found")
}

func getOrderDetails(_ context.Context, e *Env, a orderArgs) (any, error) {
	_, o, err := e.getOrder(a.OrderID.V)
	return o, err
}

func getProductDetails(_ context.Context, e *Env, a productArgs) (any, error) {
	return e.getProduct(a.ProductID.V)
}

func getItemDetails(_ context.Context, e *Env, a itemArgs) (any, error) {
	for _, p := range e.d.db.Products.All() {
		k, ok, err := pyjson.DictKey(a.ItemID.V)
		if err != nil {
			return nil, err
		}
		if v, found := p.Variants.Get(k); ok && found {
			return v, nil
		}
	}
	return nil, errors.New("Item not found")
}

func getUserDetails(_ context.Context, e *Env, a userArgs) (any, error) {
	_, u, err := e.getUser(a.UserID.V)
	return u, err
}

func listAllProductTypes(_ context.Context, e *Env, _ noArgs) (any, error) {
	return e.d.productTypes, nil
}

// productTypes is json.dumps({name: product_id}, sort_keys=True): a later
// product with the same name replaces an earlier one's id.
func productTypes(db *DB) string {
	d := &pyjson.Dict{}
	for _, p := range db.Products.All() {
		d.Set(p.Name, p.ProductID)
	}
	b, err := pyjson.MarshalOptions(d, pyjson.Options{SortKeys: true})
	if err != nil {
		return "{}"
	}
	return string(b)
}

// newAddress is UserAddress(address1=..., ...): pydantic validates the
// lines, in the model's field order.
func newAddress(address1, address2, city, state, country, zip tool.StrValue) (Address, error) {
	var v pydantic.Validator
	addr := Address{
		Address1: v.Str("address1", address1.V),
		Address2: v.Str("address2", address2.V),
		City:     v.Str("city", city.V),
		Country:  v.Str("country", country.V),
		State:    v.Str("state", state.V),
		Zip:      v.Str("zip", zip.V),
	}
	return addr, v.Err("UserAddress")
}

func (a *orderAddressArgs) address() (Address, error) {
	return newAddress(a.Address1, a.Address2, a.City, a.State, a.Country, a.Zip)
}

func (a *userAddressArgs) address() (Address, error) {
	return newAddress(a.Address1, a.Address2, a.City, a.State, a.Country, a.Zip)
}

func modifyPendingOrderAddress(_ context.Context, e *Env, a orderAddressArgs) (any, error) {
	id, o, err := e.getOrder(a.OrderID.V)
	if err != nil {
		return nil, err
	}
	if !isPending(o) {
		return nil, errors.New("Non-pending order cannot be modified")
	}
	addr, err := a.address()
	if err != nil {
		return nil, err
	}
	om := e.mutOrder(id)
	om.Address = addr
	return om, nil
}

func modifyPendingOrderItems(_ context.Context, e *Env, a modifyItemsArgs) (any, error) {
	id, o, err := e.getOrder(a.OrderID.V)
	if err != nil {
		return nil, err
	}
	if o.Status != StatusPending {
		return nil, errors.New("Non-pending order cannot be modified")
	}
	ids, err := checkCounts(o, a.ItemIDs.V, func(id any) error { return fmt.Errorf("%s not found", pyjson.Str(id)) })
	if err != nil {
		return nil, err
	}
	news, err := newItems(ids, a.NewItemIDs.V, "The number of items to be exchanged should match")
	if err != nil {
		return nil, err
	}
	diff := 0.0
	// QUIRK: upstream writes the price and options of the last variant it
	// looked up into every modified item.
	var last *Variant
	newIDs := make([]string, 0, len(news))
	for i, itemID := range ids {
		if s, ok := news[i].(string); ok && s == itemID {
			return nil, errors.New("The new item id should be different from the old item id")
		}
		k := firstItem(o, itemID)
		if k < 0 {
			return nil, fmt.Errorf("Item %s not found", itemID)
		}
		v, err := e.getVariant(o.Items[k].ProductID, news[i])
		if err != nil {
			return nil, err
		}
		newID := news[i].(string) // a variant's key
		if !v.Available {
			return nil, fmt.Errorf("New item %s not found or available", newID)
		}
		diff += v.Price - o.Items[k].Price
		last = v
		newIDs = append(newIDs, newID)
	}
	pmID, pm, err := e.getPaymentMethod(o.UserID, a.PaymentMethodID.V)
	if err != nil {
		return nil, err
	}
	if pm.IsGiftCard() && pm.Balance < diff {
		return nil, errors.New("Insufficient gift card balance to pay for the new item")
	}
	om := e.mutOrder(id)
	kind := "refund"
	if diff > 0 {
		kind = "payment"
	}
	// QUIRK: the amount is abs(diff), not rounded.
	om.PaymentHistory = append(om.PaymentHistory, Payment{TransactionType: kind, Amount: math.Abs(diff), PaymentMethodID: pmID})
	if pm.IsGiftCard() {
		pm = e.mutPaymentMethod(o.UserID, pmID)
		pm.Balance = pyjson.Round(pm.Balance-diff, 2)
	}
	for i, itemID := range ids {
		k := firstItem(om, itemID)
		if k < 0 {
			return nil, fmt.Errorf("Item %s not found", itemID)
		}
		it := &om.Items[k]
		it.ItemID = newIDs[i]
		it.Price = last.Price
		it.Options = last.Options
	}
	om.Status = StatusPendingModified
	return om, nil
}

func modifyPendingOrderPayment(_ context.Context, e *Env, a modifyPaymentArgs) (any, error) {
	id, o, err := e.getOrder(a.OrderID.V)
	if err != nil {
		return nil, err
	}
	if !isPending(o) {
		return nil, errors.New("Non-pending order cannot be modified")
	}
	pmID, pm, err := e.getPaymentMethod(o.UserID, a.PaymentMethodID.V)
	if err != nil {
		return nil, err
	}
	if len(o.PaymentHistory) != 1 || o.PaymentHistory[0].TransactionType != "payment" {
		return nil, errors.New("There should be exactly one payment for a pending order")
	}
	oldID := o.PaymentHistory[0].PaymentMethodID
	if oldID == pmID {
		return nil, errors.New("The new payment method should be different from the current one")
	}
	amount := o.PaymentHistory[0].Amount
	if pm.IsGiftCard() && pm.Balance < amount {
		return nil, errors.New("Insufficient gift card balance to pay for the order")
	}
	om := e.mutOrder(id)
	om.PaymentHistory = append(om.PaymentHistory,
		Payment{TransactionType: "payment", Amount: amount, PaymentMethodID: pmID},
		Payment{TransactionType: "refund", Amount: amount, PaymentMethodID: oldID})
	if pm.IsGiftCard() {
		pm = e.mutPaymentMethod(o.UserID, pmID)
		pm.Balance = pyjson.Round(pm.Balance-amount, 2)
	}
	_, old, err := e.getPaymentMethod(o.UserID, oldID)
	if err != nil {
		// Upstream has already recorded the new payment (and charged a new
		// gift card) when this lookup fails.
		return nil, err
	}
	if old.IsGiftCard() {
		old = e.mutPaymentMethod(o.UserID, oldID)
		old.Balance = pyjson.Round(old.Balance+amount, 2)
	}
	return om, nil
}

func modifyUserAddress(_ context.Context, e *Env, a userAddressArgs) (any, error) {
	id, _, err := e.getUser(a.UserID.V)
	if err != nil {
		return nil, err
	}
	addr, err := a.address()
	if err != nil {
		return nil, err
	}
	u, _ := e.users.Mut(id)
	u.Address = addr
	return u, nil
}

func returnDeliveredOrderItems(_ context.Context, e *Env, a returnArgs) (any, error) {
	id, o, err := e.getOrder(a.OrderID.V)
	if err != nil {
		return nil, err
	}
	if o.Status != StatusDelivered {
		return nil, errors.New("Non-delivered order cannot be returned")
	}
	if _, _, err := e.getUser(o.UserID); err != nil {
		return nil, err
	}
	pmID, pm, err := e.getPaymentMethod(o.UserID, a.PaymentMethodID.V)
	if err != nil {
		return nil, err
	}
	if !pm.IsGiftCard() {
		if len(o.PaymentHistory) == 0 {
			return nil, errors.New("list index out of range")
		}
		if pmID != o.PaymentHistory[0].PaymentMethodID {
			return nil, errors.New("Payment method should be the original payment method")
		}
	}
	ids, err := checkCounts(o, a.ItemIDs.V, func(any) error { return errors.New("Some item not found") })
	if err != nil {
		return nil, err
	}
	om := e.mutOrder(id)
	om.Status = StatusReturnRequested
	om.ReturnItems = sortedCopy(ids)
	om.ReturnPaymentMethodID = &pmID
	return om, nil
}
