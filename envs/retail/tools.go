package retail

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ledgerbench/ledgerbench/internal/pycalc"
	"github.com/ledgerbench/ledgerbench/pyjson"
	"github.com/ledgerbench/ledgerbench/tool"
)

// Argument structs. Field order is upstream's parameter order. String and
// list parameters whose null value Python treats differently from an empty
// one (a list that is iterated, an address line that pydantic validates) are
// pointers, so a JSON null reaches the tool as nil.

type calculateArgs struct {
	Expression *string `json:"expression"`
}

type cancelArgs struct {
	OrderID string `json:"order_id"`
	Reason  string `json:"reason"`
}

type exchangeArgs struct {
	OrderID         string    `json:"order_id"`
	ItemIDs         *[]string `json:"item_ids"`
	NewItemIDs      *[]string `json:"new_item_ids"`
	PaymentMethodID string    `json:"payment_method_id"`
}

type nameZipArgs struct {
	FirstName *string `json:"first_name"`
	LastName  *string `json:"last_name"`
	Zip       string  `json:"zip"`
}

type emailArgs struct {
	Email *string `json:"email"`
}

type orderArgs struct {
	OrderID string `json:"order_id"`
}

type productArgs struct {
	ProductID string `json:"product_id"`
}

type itemArgs struct {
	ItemID string `json:"item_id"`
}

type userArgs struct {
	UserID string `json:"user_id"`
}

type noArgs struct{}

type orderAddressArgs struct {
	OrderID  string  `json:"order_id"`
	Address1 *string `json:"address1"`
	Address2 *string `json:"address2"`
	City     *string `json:"city"`
	State    *string `json:"state"`
	Country  *string `json:"country"`
	Zip      *string `json:"zip"`
}

type modifyItemsArgs struct {
	OrderID         string    `json:"order_id"`
	ItemIDs         *[]string `json:"item_ids"`
	NewItemIDs      *[]string `json:"new_item_ids"`
	PaymentMethodID string    `json:"payment_method_id"`
}

type modifyPaymentArgs struct {
	OrderID         string `json:"order_id"`
	PaymentMethodID string `json:"payment_method_id"`
}

type userAddressArgs struct {
	UserID   string  `json:"user_id"`
	Address1 *string `json:"address1"`
	Address2 *string `json:"address2"`
	City     *string `json:"city"`
	State    *string `json:"state"`
	Country  *string `json:"country"`
	Zip      *string `json:"zip"`
}

type returnArgs struct {
	OrderID         string    `json:"order_id"`
	ItemIDs         *[]string `json:"item_ids"`
	PaymentMethodID string    `json:"payment_method_id"`
}

type transferArgs struct {
	Summary tool.StrValue `json:"summary"` // never inspected: any JSON value, as in Python
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
	if a.Expression == nil {
		return nil, errNotIterable
	}
	return pycalc.Tau2(*a.Expression)
}

func transferToHumanAgents(_ context.Context, _ *Env, _ transferArgs) (any, error) {
	return "Transfer successful", nil
}

// Lookup helpers with upstream's exception texts. The get* helpers return
// read-only records.

func (e *Env) getOrder(id string) (*Order, error) {
	o, ok := e.orders.Get(id)
	if !ok {
		return nil, errors.New("Order not found")
	}
	return o, nil
}

func (e *Env) getUser(id string) (*User, error) {
	u, ok := e.users.Get(id)
	if !ok {
		return nil, errors.New("User not found")
	}
	return u, nil
}

func (e *Env) getProduct(id string) (*Product, error) {
	p, ok := e.d.db.Products.Get(id)
	if !ok {
		return nil, errors.New("Product not found")
	}
	return p, nil
}

func (e *Env) getVariant(productID, itemID string) (*Variant, error) {
	p, err := e.getProduct(productID)
	if err != nil {
		return nil, err
	}
	v, ok := p.Variants.Get(itemID)
	if !ok {
		return nil, errors.New("Variant not found")
	}
	return v, nil
}

func (e *Env) getPaymentMethod(userID, id string) (*PaymentMethod, error) {
	u, err := e.getUser(userID)
	if err != nil {
		return nil, err
	}
	pm, ok := u.PaymentMethods.Get(id)
	if !ok {
		return nil, errors.New("Payment method not found")
	}
	return pm, nil
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

// Python errors for a null list argument.
var (
	errNotIterable = errors.New("'NoneType' object is not iterable")
	errNoLen       = errors.New("object of type 'NoneType' has no len()")
)

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

// checkCounts fails when an id is listed more often than the order has it.
func checkCounts(o *Order, ids []string, errf func(id string) error) error {
	all := itemIDs(o)
	for _, id := range ids {
		if countOf(ids, id) > countOf(all, id) {
			return errf(id)
		}
	}
	return nil
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
	o, err := e.getOrder(a.OrderID)
	if err != nil {
		return nil, err
	}
	if o.Status != StatusPending {
		return nil, errors.New("Non-pending order cannot be cancelled")
	}
	if !slices.Contains(cancelReasons, a.Reason) {
		return nil, errors.New("Invalid reason")
	}
	refunds := make([]Payment, 0, len(o.PaymentHistory))
	for _, p := range o.PaymentHistory {
		refunds = append(refunds, Payment{TransactionType: "refund", Amount: p.Amount, PaymentMethodID: p.PaymentMethodID})
		if _, err := e.getUser(o.UserID); err != nil {
			return nil, err
		}
		pm, err := e.getPaymentMethod(o.UserID, p.PaymentMethodID)
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
	om := e.mutOrder(a.OrderID)
	om.Status = StatusCancelled
	reason := a.Reason
	om.CancelReason = &reason
	om.PaymentHistory = append(om.PaymentHistory, refunds...)
	return om, nil
}

func exchangeDeliveredOrderItems(_ context.Context, e *Env, a exchangeArgs) (any, error) {
	o, err := e.getOrder(a.OrderID)
	if err != nil {
		return nil, err
	}
	if o.Status != StatusDelivered {
		return nil, errors.New("Non-delivered order cannot be exchanged")
	}
	if a.ItemIDs == nil {
		return nil, errNotIterable
	}
	ids := *a.ItemIDs
	if err := checkCounts(o, ids, func(id string) error { return fmt.Errorf("Number of %s not found.", id) }); err != nil {
		return nil, err
	}
	if a.NewItemIDs == nil {
		return nil, errNoLen
	}
	newIDs := *a.NewItemIDs
	if len(ids) != len(newIDs) {
		return nil, errors.New("The number of items to be exchanged should match.")
	}
	// Python starts the sum at the int 0: with no items the difference
	// stays an int.
	diff := Number{Int: true}
	for i, id := range ids {
		k := firstItem(o, id)
		if k < 0 {
			return nil, fmt.Errorf("Item %s not found", id)
		}
		v, err := e.getVariant(o.Items[k].ProductID, newIDs[i])
		if err != nil {
			return nil, err
		}
		if !v.Available {
			return nil, fmt.Errorf("New item %s not found or available", newIDs[i])
		}
		diff = Number{Value: diff.Value + (v.Price - o.Items[k].Price)}
	}
	if !diff.Int {
		diff.Value = pyjson.Round(diff.Value, 2)
	}
	pm, err := e.getPaymentMethod(o.UserID, a.PaymentMethodID)
	if err != nil {
		return nil, err
	}
	if pm.IsGiftCard() && pm.Balance < diff.Value {
		return nil, errors.New("Insufficient gift card balance to pay for the price difference")
	}
	om := e.mutOrder(a.OrderID)
	om.Status = StatusExchangeRequested
	om.ExchangeItems = sortedCopy(ids)
	om.ExchangeNewItems = sortedCopy(newIDs)
	pmID := a.PaymentMethodID
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

// errNoneLower is Python's error for calling .lower() on a null argument.
var errNoneLower = errors.New("'NoneType' object has no attribute 'lower'")

func findUserIDByNameZip(_ context.Context, e *Env, a nameZipArgs) (any, error) {
	// Python evaluates first_name.lower() for every user, and
	// last_name.lower() only once a first name matches.
	for id, u := range e.users.All() {
		if a.FirstName == nil {
			return nil, errNoneLower
		}
		if !lowerEqual(u.Name.FirstName, *a.FirstName) {
			continue
		}
		if a.LastName == nil {
			return nil, errNoneLower
		}
		if lowerEqual(u.Name.LastName, *a.LastName) && u.Address.Zip == a.Zip {
			return id, nil
		}
	}
	return nil, errors.New("User not found")
}

func findUserIDByEmail(_ context.Context, e *Env, a emailArgs) (any, error) {
	for id, u := range e.users.All() {
		if a.Email == nil {
			return nil, errNoneLower
		}
		if lowerEqual(u.Email, *a.Email) {
			return id, nil
		}
	}
	return nil, errors.New("User not found")
}

func getOrderDetails(_ context.Context, e *Env, a orderArgs) (any, error) {
	return e.getOrder(a.OrderID)
}

func getProductDetails(_ context.Context, e *Env, a productArgs) (any, error) {
	return e.getProduct(a.ProductID)
}

func getItemDetails(_ context.Context, e *Env, a itemArgs) (any, error) {
	for _, p := range e.d.db.Products.All() {
		if v, ok := p.Variants.Get(a.ItemID); ok {
			return v, nil
		}
	}
	return nil, errors.New("Item not found")
}

func getUserDetails(_ context.Context, e *Env, a userArgs) (any, error) {
	return e.getUser(a.UserID)
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

// newAddress builds a UserAddress; pydantic rejects null fields.
func newAddress(address1, address2, city, state, country, zip *string) (Address, error) {
	fields := []struct {
		name string
		v    *string
	}{{"address1", address1}, {"address2", address2}, {"city", city}, {"country", country}, {"state", state}, {"zip", zip}}
	var bad []string
	for _, f := range fields {
		if f.v == nil {
			bad = append(bad, f.name)
		}
	}
	if len(bad) > 0 {
		var b strings.Builder
		plural := "s"
		if len(bad) == 1 {
			plural = ""
		}
		fmt.Fprintf(&b, "%d validation error%s for UserAddress", len(bad), plural)
		for _, n := range bad {
			fmt.Fprintf(&b, "\n%s\n  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]\n"+
				"    For further information visit https://errors.pydantic.dev/2.12/v/string_type", n)
		}
		return Address{}, errors.New(b.String())
	}
	return Address{Address1: *address1, Address2: *address2, City: *city, Country: *country, State: *state, Zip: *zip}, nil
}

func modifyPendingOrderAddress(_ context.Context, e *Env, a orderAddressArgs) (any, error) {
	o, err := e.getOrder(a.OrderID)
	if err != nil {
		return nil, err
	}
	if !isPending(o) {
		return nil, errors.New("Non-pending order cannot be modified")
	}
	addr, err := newAddress(a.Address1, a.Address2, a.City, a.State, a.Country, a.Zip)
	if err != nil {
		return nil, err
	}
	om := e.mutOrder(a.OrderID)
	om.Address = addr
	return om, nil
}

func modifyPendingOrderItems(_ context.Context, e *Env, a modifyItemsArgs) (any, error) {
	o, err := e.getOrder(a.OrderID)
	if err != nil {
		return nil, err
	}
	if o.Status != StatusPending {
		return nil, errors.New("Non-pending order cannot be modified")
	}
	if a.ItemIDs == nil {
		return nil, errNotIterable
	}
	ids := *a.ItemIDs
	if err := checkCounts(o, ids, func(id string) error { return fmt.Errorf("%s not found", id) }); err != nil {
		return nil, err
	}
	if a.NewItemIDs == nil {
		return nil, errNoLen
	}
	newIDs := *a.NewItemIDs
	if len(ids) != len(newIDs) {
		return nil, errors.New("The number of items to be exchanged should match")
	}
	diff := 0.0
	// QUIRK: upstream writes the price and options of the last variant it
	// looked up into every modified item.
	var last *Variant
	for i, id := range ids {
		if id == newIDs[i] {
			return nil, errors.New("The new item id should be different from the old item id")
		}
		k := firstItem(o, id)
		if k < 0 {
			return nil, fmt.Errorf("Item %s not found", id)
		}
		v, err := e.getVariant(o.Items[k].ProductID, newIDs[i])
		if err != nil {
			return nil, err
		}
		if !v.Available {
			return nil, fmt.Errorf("New item %s not found or available", newIDs[i])
		}
		diff += v.Price - o.Items[k].Price
		last = v
	}
	pm, err := e.getPaymentMethod(o.UserID, a.PaymentMethodID)
	if err != nil {
		return nil, err
	}
	if pm.IsGiftCard() && pm.Balance < diff {
		return nil, errors.New("Insufficient gift card balance to pay for the new item")
	}
	om := e.mutOrder(a.OrderID)
	kind := "refund"
	if diff > 0 {
		kind = "payment"
	}
	// QUIRK: the amount is abs(diff), not rounded.
	om.PaymentHistory = append(om.PaymentHistory, Payment{TransactionType: kind, Amount: math.Abs(diff), PaymentMethodID: a.PaymentMethodID})
	if pm.IsGiftCard() {
		pm = e.mutPaymentMethod(o.UserID, a.PaymentMethodID)
		pm.Balance = pyjson.Round(pm.Balance-diff, 2)
	}
	for i, id := range ids {
		k := firstItem(om, id)
		if k < 0 {
			return nil, fmt.Errorf("Item %s not found", id)
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
	o, err := e.getOrder(a.OrderID)
	if err != nil {
		return nil, err
	}
	if !isPending(o) {
		return nil, errors.New("Non-pending order cannot be modified")
	}
	pm, err := e.getPaymentMethod(o.UserID, a.PaymentMethodID)
	if err != nil {
		return nil, err
	}
	if len(o.PaymentHistory) != 1 || o.PaymentHistory[0].TransactionType != "payment" {
		return nil, errors.New("There should be exactly one payment for a pending order")
	}
	oldID := o.PaymentHistory[0].PaymentMethodID
	if oldID == a.PaymentMethodID {
		return nil, errors.New("The new payment method should be different from the current one")
	}
	amount := o.PaymentHistory[0].Amount
	if pm.IsGiftCard() && pm.Balance < amount {
		return nil, errors.New("Insufficient gift card balance to pay for the order")
	}
	om := e.mutOrder(a.OrderID)
	om.PaymentHistory = append(om.PaymentHistory,
		Payment{TransactionType: "payment", Amount: amount, PaymentMethodID: a.PaymentMethodID},
		Payment{TransactionType: "refund", Amount: amount, PaymentMethodID: oldID})
	if pm.IsGiftCard() {
		pm = e.mutPaymentMethod(o.UserID, a.PaymentMethodID)
		pm.Balance = pyjson.Round(pm.Balance-amount, 2)
	}
	old, err := e.getPaymentMethod(o.UserID, oldID)
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
	if _, err := e.getUser(a.UserID); err != nil {
		return nil, err
	}
	addr, err := newAddress(a.Address1, a.Address2, a.City, a.State, a.Country, a.Zip)
	if err != nil {
		return nil, err
	}
	u, _ := e.users.Mut(a.UserID)
	u.Address = addr
	return u, nil
}

func returnDeliveredOrderItems(_ context.Context, e *Env, a returnArgs) (any, error) {
	o, err := e.getOrder(a.OrderID)
	if err != nil {
		return nil, err
	}
	if o.Status != StatusDelivered {
		return nil, errors.New("Non-delivered order cannot be returned")
	}
	if _, err := e.getUser(o.UserID); err != nil {
		return nil, err
	}
	pm, err := e.getPaymentMethod(o.UserID, a.PaymentMethodID)
	if err != nil {
		return nil, err
	}
	if !pm.IsGiftCard() {
		if len(o.PaymentHistory) == 0 {
			return nil, errors.New("list index out of range")
		}
		if a.PaymentMethodID != o.PaymentHistory[0].PaymentMethodID {
			return nil, errors.New("Payment method should be the original payment method")
		}
	}
	if a.ItemIDs == nil {
		return nil, errNotIterable
	}
	ids := *a.ItemIDs
	if err := checkCounts(o, ids, func(string) error { return errors.New("Some item not found") }); err != nil {
		return nil, err
	}
	om := e.mutOrder(a.OrderID)
	om.Status = StatusReturnRequested
	om.ReturnItems = sortedCopy(ids)
	pmID := a.PaymentMethodID
	om.ReturnPaymentMethodID = &pmID
	return om, nil
}
