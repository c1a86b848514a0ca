package v1retail

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyops"
)

// Tool names of the write tools (the gate guards them).
const (
	toolCancel        = "cancel_pending_order"
	toolExchange      = "exchange_delivered_order_items"
	toolModifyAddress = "modify_pending_order_address"
	toolModifyItems   = "modify_pending_order_items"
	toolModifyPayment = "modify_pending_order_payment"
	toolUserAddress   = "modify_user_address"
	toolReturn        = "return_delivered_order_items"
)

// newTools builds the 16 tools in upstream's ALL_TOOLS order. Descriptions
// and parameter schemas are upstream's get_info() dicts, read at load time.
func newTools() []tauv1.Def {
	return []tauv1.Def{
		{Class: "Calculate", Tool: tool.New("calculate", tool.Generic, "", calculate)},
		{Class: "CancelPendingOrder", Tool: tool.New(toolCancel, tool.Write, "", cancelPendingOrder)},
		{Class: "ExchangeDeliveredOrderItems", Tool: tool.New(toolExchange, tool.Write, "", exchangeDeliveredOrderItems)},
		{Class: "FindUserIdByEmail", Tool: tool.New("find_user_id_by_email", tool.Read, "", findUserIDByEmail)},
		{Class: "FindUserIdByNameZip", Tool: tool.New("find_user_id_by_name_zip", tool.Read, "", findUserIDByNameZip)},
		{Class: "GetOrderDetails", Tool: tool.New("get_order_details", tool.Read, "", getOrderDetails)},
		{Class: "GetProductDetails", Tool: tool.New("get_product_details", tool.Read, "", getProductDetails)},
		{Class: "GetUserDetails", Tool: tool.New("get_user_details", tool.Read, "", getUserDetails)},
		{Class: "ListAllProductTypes", Tool: tool.New("list_all_product_types", tool.Read, "", listAllProductTypes)},
		{Class: "ModifyPendingOrderAddress", Tool: tool.New(toolModifyAddress, tool.Write, "", modifyPendingOrderAddress)},
		{Class: "ModifyPendingOrderItems", Tool: tool.New(toolModifyItems, tool.Write, "", modifyPendingOrderItems)},
		{Class: "ModifyPendingOrderPayment", Tool: tool.New(toolModifyPayment, tool.Write, "", modifyPendingOrderPayment)},
		{Class: "ModifyUserAddress", Tool: tool.New(toolUserAddress, tool.Write, "", modifyUserAddress)},
		{Class: "ReturnDeliveredOrderItems", Tool: tool.New(toolReturn, tool.Write, "", returnDeliveredOrderItems)},
		{Class: "Think", Tool: tool.New("think", tool.Think, "", think)},
		{Class: "TransferToHumanAgents", Tool: tool.New(TerminateTool, tool.Generic, "", transfer)},
	}
}

func get(d any, k string) (any, error) { return pyops.GetItem(d, k) }

func get2(d any, a, b any) (any, error) {
	v, err := pyops.GetItem(d, a)
	if err != nil {
		return nil, err
	}
	return pyops.GetItem(v, b)
}

func eqStr(v any, s string) bool { return pyops.Eq(v, s) }

func str(v any) string { return pyjson.Str(v) }

// roundSet is d[k] = round(d[k], 2).
func roundSet(d any, k string) error {
	v, err := get(d, k)
	if err != nil {
		return err
	}
	r, err := pyops.Round(v, 2)
	if err != nil {
		return err
	}
	return pyops.SetItem(d, k, r)
}

func calculate(_ context.Context, _ *tauv1.Env, a expressionArgs) (any, error) {
	return tauv1.Calculate(a.Expression.V)
}

// pendingOrder finds an order for a tool that changes it: the order (owned
// by the simulation), or the message upstream returns.
func order(e *tauv1.Env, id any) (*pyjson.Dict, string, error) {
	orders := e.View("orders")
	oid, ok, err := tauv1.Key(orders, id)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "Error: order not found", nil
	}
	o, _ := orders.Mut(oid)
	return o, "", nil
}

// orderUser is users[order["user_id"]], owned by the simulation.
func orderUser(e *tauv1.Env, o *pyjson.Dict) (*pyjson.Dict, error) {
	uid, err := get(o, "user_id")
	if err != nil {
		return nil, err
	}
	return tauv1.MutLookup(e.View("users"), uid)
}

func cancelPendingOrder(_ context.Context, e *tauv1.Env, a cancelArgs) (any, error) {
	// check order exists and is pending
	o, msg, err := order(e, a.OrderID.V)
	if err != nil || o == nil {
		return msgOr(msg, err)
	}
	status, err := get(o, "status")
	if err != nil {
		return nil, err
	}
	if !eqStr(status, "pending") {
		return "Error: non-pending order cannot be cancelled", nil
	}

	// check reason
	if in, err := pyops.Contains([]any{"no longer needed", "ordered by mistake"}, a.Reason.V); err != nil {
		return nil, err
	} else if !in {
		return "Error: invalid reason", nil
	}

	// handle refund
	history, err := get(o, "payment_history")
	if err != nil {
		return nil, err
	}
	payments, err := pyops.Iter(history)
	if err != nil {
		return nil, err
	}
	var refunds []any
	for _, p := range payments {
		paymentID, err := get(p, "payment_method_id")
		if err != nil {
			return nil, err
		}
		amount, err := get(p, "amount")
		if err != nil {
			return nil, err
		}
		refund := &pyjson.Dict{}
		refund.Set("transaction_type", "refund")
		refund.Set("amount", amount)
		refund.Set("payment_method_id", paymentID)
		refunds = append(refunds, refund)
		gift, err := pyops.Contains(paymentID, "gift_card")
		if err != nil {
			return nil, err
		}
		if gift { // refund to gift card immediately
			user, err := orderUser(e, o)
			if err != nil {
				return nil, err
			}
			method, err := get2(user, "payment_methods", paymentID)
			if err != nil {
				return nil, err
			}
			balance, err := get(method, "balance")
			if err != nil {
				return nil, err
			}
			add, err := get(p, "amount")
			if err != nil {
				return nil, err
			}
			sum, err := pyops.Add(balance, add, true)
			if err != nil {
				return nil, err
			}
			if err := pyops.SetItem(method, "balance", sum); err != nil {
				return nil, err
			}
			if err := roundSet(method, "balance"); err != nil {
				return nil, err
			}
		}
	}

	// update order status
	o.Set("status", "cancelled")
	o.Set("cancel_reason", a.Reason.V)
	if err := tauv1.Extend(o, "payment_history", refunds); err != nil {
		return nil, err
	}
	return tauv1.Dumps(o)
}

func msgOr(msg string, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return msg, nil
}

// itemChanges checks the items of an exchange or modification as both
// tools do and returns the price difference (unrounded).
func itemChanges(e *tauv1.Env, o *pyjson.Dict, itemIDs, newItemIDs any) (diff any, msg string, err error) {
	products := e.View("products")
	items, err := get(o, "items")
	if err != nil {
		return nil, "", err
	}
	itemList, err := pyops.Iter(items)
	if err != nil {
		return nil, "", err
	}
	all := make([]any, 0, len(itemList))
	for _, it := range itemList {
		id, err := get(it, "item_id")
		if err != nil {
			return nil, "", err
		}
		all = append(all, id)
	}
	ids, err := pyops.Iter(itemIDs)
	if err != nil {
		return nil, "", err
	}
	for _, id := range ids {
		n, err := pyops.Count(itemIDs, id)
		if err != nil {
			return nil, "", err
		}
		m, _ := pyops.Count(all, id)
		if n > m {
			return nil, "Error: " + str(id) + " not found", nil
		}
	}
	// check new items exist and match old items and are available
	n, err := pyops.Len(itemIDs)
	if err != nil {
		return nil, "", err
	}
	m, err := pyops.Len(newItemIDs)
	if err != nil {
		return nil, "", err
	}
	if n != m {
		return nil, "Error: the number of items to be exchanged should match", nil
	}
	newIDs, err := pyops.Iter(newItemIDs)
	if err != nil {
		return nil, "", err
	}
	diff = json.Number("0")
	for k := range min(len(ids), len(newIDs)) {
		id, newID := ids[k], newIDs[k]
		item, err := firstItem(itemList, id)
		if err != nil {
			return nil, "", err
		}
		productID, err := get(item, "product_id")
		if err != nil {
			return nil, "", err
		}
		product, err := tauv1.Lookup(products, productID)
		if err != nil {
			return nil, "", err
		}
		variants, err := get(product, "variants")
		if err != nil {
			return nil, "", err
		}
		in, err := pyops.Contains(variants, newID)
		if err != nil {
			return nil, "", err
		}
		ok := in
		if in {
			avail, err := get2(variants, newID, "available")
			if err != nil {
				return nil, "", err
			}
			ok = pyjson.Truthy(avail)
		}
		if !ok {
			return nil, "Error: new item " + str(newID) + " not found or available", nil
		}
		oldPrice, err := get(item, "price")
		if err != nil {
			return nil, "", err
		}
		newPrice, err := get2(variants, newID, "price")
		if err != nil {
			return nil, "", err
		}
		d, err := pyops.Sub(newPrice, oldPrice, false)
		if err != nil {
			return nil, "", err
		}
		if diff, err = pyops.Add(diff, d, true); err != nil {
			return nil, "", err
		}
	}
	return diff, "", nil
}

// firstItem is [item for item in order["items"] if item["item_id"] == id][0].
func firstItem(items []any, id any) (any, error) {
	var found any
	ok := false
	for _, it := range items {
		v, err := get(it, "item_id")
		if err != nil {
			return nil, err
		}
		if pyops.Eq(v, id) && !ok {
			found, ok = it, true
		}
	}
	if !ok {
		return nil, pyops.IndexError("list index out of range")
	}
	return found, nil
}

func exchangeDeliveredOrderItems(_ context.Context, e *tauv1.Env, a itemsArgs) (any, error) {
	// check order exists and is delivered
	o, msg, err := order(e, a.OrderID.V)
	if err != nil || o == nil {
		return msgOr(msg, err)
	}
	status, err := get(o, "status")
	if err != nil {
		return nil, err
	}
	if !eqStr(status, "delivered") {
		return "Error: non-delivered order cannot be exchanged", nil
	}
	diff, msg, err := itemChanges(e, o, a.ItemIDs.V, a.NewItemIDs.V)
	if err != nil || msg != "" {
		return msgOr(msg, err)
	}
	if diff, err = pyops.Round(diff, 2); err != nil {
		return nil, err
	}

	// check payment method exists and can cover the price difference if gift card
	user, err := orderUser(e, o)
	if err != nil {
		return nil, err
	}
	methods, err := get(user, "payment_methods")
	if err != nil {
		return nil, err
	}
	if in, err := pyops.Contains(methods, a.PaymentMethodID.V); err != nil {
		return nil, err
	} else if !in {
		return "Error: payment method not found", nil
	}
	method, err := pyops.GetItem(methods, a.PaymentMethodID.V)
	if err != nil {
		return nil, err
	}
	source, err := get(method, "source")
	if err != nil {
		return nil, err
	}
	if eqStr(source, "gift_card") {
		balance, err := get(method, "balance")
		if err != nil {
			return nil, err
		}
		if lt, err := pyops.Compare("<", balance, diff); err != nil {
			return nil, err
		} else if lt {
			return "Error: insufficient gift card balance to pay for the price difference", nil
		}
	}

	// modify the order
	o.Set("status", "exchange requested")
	oldSorted, err := pyops.Sorted(a.ItemIDs.V)
	if err != nil {
		return nil, err
	}
	o.Set("exchange_items", oldSorted)
	newSorted, err := pyops.Sorted(a.NewItemIDs.V)
	if err != nil {
		return nil, err
	}
	o.Set("exchange_new_items", newSorted)
	o.Set("exchange_payment_method_id", a.PaymentMethodID.V)
	o.Set("exchange_price_difference", diff)
	return tauv1.Dumps(o)
}

func findUserIDByEmail(_ context.Context, e *tauv1.Env, a emailArgs) (any, error) {
	for id, profile := range e.View("users").All() {
		email, err := get(profile, "email")
		if err != nil {
			return nil, err
		}
		l, err := pyops.Lower(email)
		if err != nil {
			return nil, err
		}
		r, err := pyops.Lower(a.Email.V)
		if err != nil {
			return nil, err
		}
		if l == r {
			return id, nil
		}
	}
	return "Error: user not found", nil
}

func findUserIDByNameZip(_ context.Context, e *tauv1.Env, a nameZipArgs) (any, error) {
	for id, profile := range e.View("users").All() {
		first, err := get2(profile, "name", "first_name")
		if err != nil {
			return nil, err
		}
		l, err := pyops.Lower(first)
		if err != nil {
			return nil, err
		}
		r, err := pyops.Lower(a.FirstName.V)
		if err != nil {
			return nil, err
		}
		if l != r {
			continue
		}
		last, err := get2(profile, "name", "last_name")
		if err != nil {
			return nil, err
		}
		if l, err = pyops.Lower(last); err != nil {
			return nil, err
		}
		if r, err = pyops.Lower(a.LastName.V); err != nil {
			return nil, err
		}
		if l != r {
			continue
		}
		zip, err := get2(profile, "address", "zip")
		if err != nil {
			return nil, err
		}
		if pyops.Eq(zip, a.Zip.V) {
			return id, nil
		}
	}
	return "Error: user not found", nil
}

// details is json.dumps(table[id]) when id is in the table, else msg.
func details(e *tauv1.Env, table string, id any, msg string) (any, error) {
	t := e.View(table)
	k, ok, err := tauv1.Key(t, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return msg, nil
	}
	rec, _ := t.Get(k)
	return tauv1.Dumps(rec)
}

func getOrderDetails(_ context.Context, e *tauv1.Env, a orderArgs) (any, error) {
	return details(e, "orders", a.OrderID.V, "Error: order not found")
}

func getProductDetails(_ context.Context, e *tauv1.Env, a productArgs) (any, error) {
	return details(e, "products", a.ProductID.V, "Error: product not found")
}

func getUserDetails(_ context.Context, e *tauv1.Env, a userArgs) (any, error) {
	return details(e, "users", a.UserID.V, "Error: user not found")
}

func listAllProductTypes(_ context.Context, e *tauv1.Env, _ noArgs) (any, error) {
	type pair struct {
		name any
		id   any
	}
	var pairs []pair
	index := map[string]int{}
	for _, p := range e.View("products").All() {
		name, err := get(p, "name")
		if err != nil {
			return nil, err
		}
		id, err := get(p, "product_id")
		if err != nil {
			return nil, err
		}
		key, ok, err := pyjson.DictKey(name)
		if err != nil {
			return nil, pyops.TypeError("%s", err.Error())
		}
		if !ok {
			key = "\x00" + pyjson.Repr(name)
		}
		if i, dup := index[key]; dup {
			pairs[i].id = id
			continue
		}
		index[key] = len(pairs)
		pairs = append(pairs, pair{name, id})
	}
	// dict(sorted(product_dict.items())): pairs compare by name (names are
	// unique), then id.
	keys := make([]any, len(pairs))
	for i, p := range pairs {
		keys[i] = p.name
	}
	sorted, err := pyops.Sorted(keys)
	if err != nil {
		return nil, err
	}
	out := &pyjson.Dict{}
	for _, k := range sorted {
		for _, p := range pairs {
			if pyops.Eq(p.name, k) {
				s, ok := k.(string)
				if !ok {
					return nil, pyops.TypeError("keys must be str, int, float, bool or None, not %s", pyjson.TypeName(k))
				}
				out.Set(s, p.id)
				break
			}
		}
	}
	return tauv1.Dumps(out)
}

// pendingForChange finds a pending order for a modification.
func pendingForChange(e *tauv1.Env, id any) (*pyjson.Dict, string, error) {
	o, msg, err := order(e, id)
	if err != nil || o == nil {
		return nil, msg, err
	}
	status, err := get(o, "status")
	if err != nil {
		return nil, "", err
	}
	if !eqStr(status, "pending") {
		return nil, "Error: non-pending order cannot be modified", nil
	}
	return o, "", nil
}

func address(a1, a2, city, state, country, zip any) *pyjson.Dict {
	d := &pyjson.Dict{}
	d.Set("address1", a1)
	d.Set("address2", a2)
	d.Set("city", city)
	d.Set("state", state)
	d.Set("country", country)
	d.Set("zip", zip)
	return d
}

func modifyPendingOrderAddress(_ context.Context, e *tauv1.Env, a orderAddressArgs) (any, error) {
	o, msg, err := pendingForChange(e, a.OrderID.V)
	if err != nil || o == nil {
		return msgOr(msg, err)
	}
	o.Set("address", address(a.Address1.V, a.Address2.V, a.City.V, a.State.V, a.Country.V, a.Zip.V))
	return tauv1.Dumps(o)
}

func modifyPendingOrderItems(_ context.Context, e *tauv1.Env, a itemsArgs) (any, error) {
	o, msg, err := pendingForChange(e, a.OrderID.V)
	if err != nil || o == nil {
		return msgOr(msg, err)
	}
	diff, msg, err := itemChanges(e, o, a.ItemIDs.V, a.NewItemIDs.V)
	if err != nil || msg != "" {
		return msgOr(msg, err)
	}

	// Check if the payment method exists
	user, err := orderUser(e, o)
	if err != nil {
		return nil, err
	}
	methods, err := get(user, "payment_methods")
	if err != nil {
		return nil, err
	}
	if in, err := pyops.Contains(methods, a.PaymentMethodID.V); err != nil {
		return nil, err
	} else if !in {
		return "Error: payment method not found", nil
	}
	// If the new item is more expensive, check if the gift card has enough balance
	method, err := pyops.GetItem(methods, a.PaymentMethodID.V)
	if err != nil {
		return nil, err
	}
	source, err := get(method, "source")
	if err != nil {
		return nil, err
	}
	if eqStr(source, "gift_card") {
		balance, err := get(method, "balance")
		if err != nil {
			return nil, err
		}
		if lt, err := pyops.Compare("<", balance, diff); err != nil {
			return nil, err
		} else if lt {
			return "Error: insufficient gift card balance to pay for the new item", nil
		}
	}

	// Handle the payment or refund
	kind := "refund"
	if gt, err := pyops.Compare(">", diff, json.Number("0")); err != nil {
		return nil, err
	} else if gt {
		kind = "payment"
	}
	amount, err := pyops.Abs(diff)
	if err != nil {
		return nil, err
	}
	p := &pyjson.Dict{}
	p.Set("transaction_type", kind)
	p.Set("amount", amount)
	p.Set("payment_method_id", a.PaymentMethodID.V)
	if err := tauv1.Append(o, "payment_history", p); err != nil {
		return nil, err
	}
	if eqStr(source, "gift_card") {
		balance, err := get(method, "balance")
		if err != nil {
			return nil, err
		}
		left, err := pyops.Sub(balance, diff, true)
		if err != nil {
			return nil, err
		}
		if err := pyops.SetItem(method, "balance", left); err != nil {
			return nil, err
		}
		if err := roundSet(method, "balance"); err != nil {
			return nil, err
		}
	}

	// Modify the order
	products := e.View("products")
	ids, _ := pyops.Iter(a.ItemIDs.V)
	newIDs, _ := pyops.Iter(a.NewItemIDs.V)
	for k := range min(len(ids), len(newIDs)) {
		items, err := get(o, "items")
		if err != nil {
			return nil, err
		}
		itemList, err := pyops.Iter(items)
		if err != nil {
			return nil, err
		}
		item, err := firstItem(itemList, ids[k])
		if err != nil {
			return nil, err
		}
		if err := pyops.SetItem(item, "item_id", newIDs[k]); err != nil {
			return nil, err
		}
		for _, field := range []string{"price", "options"} {
			productID, err := get(item, "product_id")
			if err != nil {
				return nil, err
			}
			product, err := tauv1.Lookup(products, productID)
			if err != nil {
				return nil, err
			}
			v, err := get(product, "variants")
			if err != nil {
				return nil, err
			}
			val, err := get2(v, newIDs[k], field)
			if err != nil {
				return nil, err
			}
			if err := pyops.SetItem(item, field, val); err != nil {
				return nil, err
			}
		}
	}
	o.Set("status", "pending (item modified)")
	return tauv1.Dumps(o)
}

func modifyPendingOrderPayment(_ context.Context, e *tauv1.Env, a paymentArgs) (any, error) {
	o, msg, err := pendingForChange(e, a.OrderID.V)
	if err != nil || o == nil {
		return msgOr(msg, err)
	}
	// Check if the payment method exists
	user, err := orderUser(e, o)
	if err != nil {
		return nil, err
	}
	methods, err := get(user, "payment_methods")
	if err != nil {
		return nil, err
	}
	if in, err := pyops.Contains(methods, a.PaymentMethodID.V); err != nil {
		return nil, err
	} else if !in {
		return "Error: payment method not found", nil
	}

	// Check that the payment history should only have one payment
	history, err := get(o, "payment_history")
	if err != nil {
		return nil, err
	}
	n, err := pyops.Len(history)
	if err != nil {
		return nil, err
	}
	first := func(k string) (any, error) {
		h, err := get(o, "payment_history")
		if err != nil {
			return nil, err
		}
		return get2(h, json.Number("0"), k)
	}
	bad := n > 1
	if !bad {
		tt, err := first("transaction_type")
		if err != nil {
			return nil, err
		}
		bad = !eqStr(tt, "payment")
	}
	if bad {
		return "Error: there should be exactly one payment for a pending order", nil
	}

	// Check that the payment method is different
	oldID, err := first("payment_method_id")
	if err != nil {
		return nil, err
	}
	if pyops.Eq(oldID, a.PaymentMethodID.V) {
		return "Error: the new payment method should be different from the current one", nil
	}
	amount, err := first("amount")
	if err != nil {
		return nil, err
	}
	method, err := pyops.GetItem(methods, a.PaymentMethodID.V)
	if err != nil {
		return nil, err
	}

	// Check if the new payment method has enough balance if it is a gift card
	source, err := get(method, "source")
	if err != nil {
		return nil, err
	}
	if eqStr(source, "gift_card") {
		balance, err := get(method, "balance")
		if err != nil {
			return nil, err
		}
		if lt, err := pyops.Compare("<", balance, amount); err != nil {
			return nil, err
		} else if lt {
			return "Error: insufficient gift card balance to pay for the order", nil
		}
	}

	// Modify the payment method
	pay := &pyjson.Dict{}
	pay.Set("transaction_type", "payment")
	pay.Set("amount", amount)
	pay.Set("payment_method_id", a.PaymentMethodID.V)
	refund := &pyjson.Dict{}
	refund.Set("transaction_type", "refund")
	refund.Set("amount", amount)
	oldAgain, err := first("payment_method_id")
	if err != nil {
		return nil, err
	}
	refund.Set("payment_method_id", oldAgain)
	if err := tauv1.Extend(o, "payment_history", []any{pay, refund}); err != nil {
		return nil, err
	}

	// If payment is made by gift card, update the balance
	if eqStr(source, "gift_card") {
		balance, err := get(method, "balance")
		if err != nil {
			return nil, err
		}
		left, err := pyops.Sub(balance, amount, true)
		if err != nil {
			return nil, err
		}
		if err := pyops.SetItem(method, "balance", left); err != nil {
			return nil, err
		}
		if err := roundSet(method, "balance"); err != nil {
			return nil, err
		}
	}

	// If refund is made to a gift card, update the balance
	oldID, err = first("payment_method_id")
	if err != nil {
		return nil, err
	}
	gift, err := pyops.Contains(oldID, "gift_card")
	if err != nil {
		return nil, err
	}
	if gift {
		old, err := pyops.GetItem(methods, oldID)
		if err != nil {
			return nil, err
		}
		balance, err := get(old, "balance")
		if err != nil {
			return nil, err
		}
		sum, err := pyops.Add(balance, amount, true)
		if err != nil {
			return nil, err
		}
		if err := pyops.SetItem(old, "balance", sum); err != nil {
			return nil, err
		}
		if err := roundSet(old, "balance"); err != nil {
			return nil, err
		}
	}
	return tauv1.Dumps(o)
}

func modifyUserAddress(_ context.Context, e *tauv1.Env, a userAddressArgs) (any, error) {
	users := e.View("users")
	uid, ok, err := tauv1.Key(users, a.UserID.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: user not found", nil
	}
	user, _ := users.Mut(uid)
	user.Set("address", address(a.Address1.V, a.Address2.V, a.City.V, a.State.V, a.Country.V, a.Zip.V))
	return tauv1.Dumps(user)
}

func returnDeliveredOrderItems(_ context.Context, e *tauv1.Env, a returnArgs) (any, error) {
	// Check if the order exists and is delivered
	o, msg, err := order(e, a.OrderID.V)
	if err != nil || o == nil {
		return msgOr(msg, err)
	}
	status, err := get(o, "status")
	if err != nil {
		return nil, err
	}
	if !eqStr(status, "delivered") {
		return "Error: non-delivered order cannot be returned", nil
	}

	// Check if the payment method exists and is either the original payment method or a gift card
	uid, err := get(o, "user_id")
	if err != nil {
		return nil, err
	}
	user, err := tauv1.Lookup(e.View("users"), uid)
	if err != nil {
		return nil, err
	}
	methods, err := get(user, "payment_methods")
	if err != nil {
		return nil, err
	}
	if in, err := pyops.Contains(methods, a.PaymentMethodID.V); err != nil {
		return nil, err
	} else if !in {
		return "Error: payment method not found", nil
	}
	gift, err := pyops.Contains(a.PaymentMethodID.V, "gift_card")
	if err != nil {
		return nil, err
	}
	if !gift {
		orig, err := get(o, "payment_history")
		if err != nil {
			return nil, err
		}
		origID, err := get2(orig, json.Number("0"), "payment_method_id")
		if err != nil {
			return nil, err
		}
		if !pyops.Eq(a.PaymentMethodID.V, origID) {
			return "Error: payment method should be either the original payment method or a gift card", nil
		}
	}

	// Check if the items to be returned exist (there could be duplicate items in either list)
	items, err := get(o, "items")
	if err != nil {
		return nil, err
	}
	itemList, err := pyops.Iter(items)
	if err != nil {
		return nil, err
	}
	all := make([]any, 0, len(itemList))
	for _, it := range itemList {
		id, err := get(it, "item_id")
		if err != nil {
			return nil, err
		}
		all = append(all, id)
	}
	ids, err := pyops.Iter(a.ItemIDs.V)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		n, err := pyops.Count(a.ItemIDs.V, id)
		if err != nil {
			return nil, err
		}
		if m, _ := pyops.Count(all, id); n > m {
			return "Error: some item not found", nil
		}
	}

	// Update the order status
	o.Set("status", "return requested")
	sorted, err := pyops.Sorted(a.ItemIDs.V)
	if err != nil {
		return nil, err
	}
	o.Set("return_items", slices.Clip(sorted))
	o.Set("return_payment_method_id", a.PaymentMethodID.V)
	return tauv1.Dumps(o)
}

func think(context.Context, *tauv1.Env, thoughtArgs) (any, error) { return "", nil }

func transfer(context.Context, *tauv1.Env, summaryArgs) (any, error) {
	return "Transfer successful", nil
}
