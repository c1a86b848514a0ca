package retail

// Gate audits for retail (ledgeragent.Auditor): the reads a careful agent
// makes before each write, and gold writes turned into named policy
// violations. Mutation kinds (each applies only where the call has the
// arguments and the ledger or database offers a realistic wrong value):
//
//	kind                    tools                                   the violation
//	----------------------  --------------------------------------  ------------------------------------------------
//	foreign_order           the six order tools                     another user's order (same status as the gold one)
//	wrong_status            the six order tools                     an order of the same user whose status does not
//	                                                                fit (delivered for pending-only actions, pending
//	                                                                or processed for delivered-only ones)
//	invalid_cancel_reason   cancel_pending_order                    a reason other than the two allowed
//	item_not_in_order       return, exchange, modify items          an item id that is not in the order
//	cross_product_item      exchange, modify items                  a new item of another product type
//	unavailable_item        exchange, modify items                  an unavailable variant of the same product
//	foreign_payment_method  return, exchange, modify items/payment  another user's payment method of the same kind
//	refund_to_other_method  return                                  a method of the user that is neither the original
//	                                                                payment nor a gift card
//	insufficient_gift_card  exchange, modify items/payment          a gift card of the user whose balance does not
//	                                                                cover the amount due
//	same_payment_method     modify payment                          the order's current payment method
//	repeat_write            exchange, modify items/address/payment, the last write of the same tool that already
//	                        modify_user_address                     succeeded, sent again
//	other_user              modify_user_address                     another user's id

import (
	"encoding/json"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Mutation kinds.
const (
	MutForeignOrder         = "foreign_order"
	MutWrongStatus          = "wrong_status"
	MutInvalidCancelReason  = "invalid_cancel_reason"
	MutItemNotInOrder       = "item_not_in_order"
	MutCrossProductItem     = "cross_product_item"
	MutUnavailableItem      = "unavailable_item"
	MutForeignPayment       = "foreign_payment_method"
	MutRefundToOtherMethod  = "refund_to_other_method"
	MutInsufficientGiftCard = "insufficient_gift_card"
	MutSamePaymentMethod    = "same_payment_method"
	MutRepeatWrite          = "repeat_write"
	MutOtherUser            = "other_user"
)

// EvidenceReads implements ledgeragent.Auditor: before a write, a careful
// agent authenticates the user (by email), reads their details and the
// order, and for item changes the products of the items it changes.
func (d *Domain) EvidenceReads(tool string, args json.RawMessage) []message.ToolCall {
	a, ok := d.template(tool, args)
	if !ok {
		return nil
	}
	uid := a.UserID
	o, _ := d.db.Orders.Get(a.OrderID)
	if o != nil && uid == "" {
		uid = o.UserID
	}
	var calls []message.ToolCall
	if u, ok := d.db.Users.Get(uid); ok && u != nil {
		calls = append(calls,
			ledger.ToolCall("find_user_id_by_email", "email", u.Email),
			ledger.ToolCall("get_user_details", "user_id", uid))
	}
	if a.OrderID != "" {
		calls = append(calls, ledger.ToolCall("get_order_details", "order_id", a.OrderID))
	}
	if o != nil && (tool == toolExchange || tool == toolModifyItems) {
		var seen []string
		for _, id := range a.ItemIDs {
			if k := firstItem(o, id); k >= 0 && !slices.Contains(seen, o.Items[k].ProductID) {
				seen = append(seen, o.Items[k].ProductID)
				calls = append(calls, ledger.ToolCall("get_product_details", "product_id", o.Items[k].ProductID))
			}
		}
	}
	return calls
}

// writeArgs is a write's arguments as the mutation generator edits them:
// the fields of the seven write tools' argument structs, taken from the
// struct the tool decodes (template) and written back in the tool's
// parameter order (encodeWrite).
type writeArgs struct {
	OrderID         string
	UserID          string
	Reason          string
	ItemIDs         []string
	NewItemIDs      []string
	PaymentMethodID string
	Address         Address
}

// template decodes a write's arguments with its tool (as the gate does) into
// the editable form; ok is false for a call that is not a valid write.
func (d *Domain) template(tool string, args json.RawMessage) (writeArgs, bool) {
	var a writeArgs
	if ti, ok := d.Toolset().Lookup(tool); !ok || !ti.Mutates() {
		return a, false
	}
	v, err := d.decodeArgs(tool, args)
	if err != nil {
		return a, false
	}
	return templateOf(v), true
}

// templateOf is a decoded write's editable form.
func templateOf(v any) writeArgs {
	var a writeArgs
	if c, ok := v.(orderCall); ok {
		a.OrderID = c.orderID()
	}
	if c, ok := v.(paidCall); ok {
		a.PaymentMethodID = c.paymentMethod()
	}
	if c, ok := v.(itemsCall); ok {
		a.ItemIDs, a.NewItemIDs = c.items(), c.newItems()
	}
	switch v := v.(type) {
	case *cancelArgs:
		a.Reason = v.Reason.Text()
	case *orderAddressArgs:
		a.Address, _ = v.address() // validated by decodeArgs
	case *userAddressArgs:
		a.UserID = v.UserID.Text()
		a.Address, _ = v.address()
	}
	return a
}

// encodeWrite writes arguments back as the tool's JSON object.
func (d *Domain) encodeWrite(tool string, a writeArgs) json.RawMessage {
	ti, ok := d.Toolset().Lookup(tool)
	if !ok {
		return nil
	}
	out := &pyjson.Dict{}
	for _, p := range ti.Params {
		var v any
		switch p.Name {
		case "order_id":
			v = a.OrderID
		case "user_id":
			v = a.UserID
		case "reason":
			v = a.Reason
		case "item_ids":
			v = a.ItemIDs
		case "new_item_ids":
			v = a.NewItemIDs
		case "payment_method_id":
			v = a.PaymentMethodID
		case "address1":
			v = a.Address.Address1
		case "address2":
			v = a.Address.Address2
		case "city":
			v = a.Address.City
		case "state":
			v = a.Address.State
		case "country":
			v = a.Address.Country
		case "zip":
			v = a.Address.Zip
		}
		out.Set(p.Name, v)
	}
	b, err := out.MarshalJSON()
	if err != nil {
		return nil
	}
	return b
}

// offset picks a deterministic starting point for scans of the database, so
// that different calls draw different wrong values.

// Mutations implements ledgeragent.Auditor.
func (d *Domain) Mutations(tool string, args json.RawMessage, l *ledger.Ledger) []ledger.Mutation {
	a, ok := d.template(tool, args)
	if !ok {
		return nil
	}
	auth := authUserID(l)
	var out []ledger.Mutation
	add := func(kind string, m writeArgs) {
		raw := d.encodeWrite(tool, m)
		if raw == nil || string(raw) == string(d.encodeWrite(tool, a)) {
			return
		}
		out = append(out, ledger.Mutation{Kind: kind, Tool: tool, Args: raw})
	}
	clone := func() writeArgs {
		m := a
		m.ItemIDs = slices.Clone(a.ItemIDs)
		m.NewItemIDs = slices.Clone(a.NewItemIDs)
		return m
	}

	if tool == toolUserAddress {
		users := d.db.Users.Keys()
		ledger.Scan(users, a.UserID, func(id string) bool {
			if id == a.UserID || id == auth {
				return false
			}
			m := clone()
			m.UserID = id
			add(MutOtherUser, m)
			return true
		})
		d.repeatWrite(l, tool, a, add)
		return out
	}

	o := ledgerOrder(l, a.OrderID)
	if o == nil || auth == "" || o.UserID != auth {
		return out // the gold call itself lacks its evidence
	}
	status, _ := effectiveStatus(l, o)

	// foreign_order: another user's order in the same status.
	orders := d.db.Orders.Keys()
	ledger.Scan(orders, a.OrderID, func(id string) bool {
		other, _ := d.db.Orders.Get(id)
		if other == nil || other.UserID == auth || other.Status != status {
			return false
		}
		m := clone()
		m.OrderID = id
		add(MutForeignOrder, m)
		return true
	})

	// wrong_status: prefer an order of the user already in the ledger.
	wrong := ""
	l.Prefix(prefixOrders, func(_ string, v any) {
		if lo, ok := v.(*Order); ok && wrong == "" && lo.UserID == auth {
			if st, _ := effectiveStatus(l, lo); !statusFits(tool, st) {
				wrong = lo.OrderID
			}
		}
	})
	if wrong == "" {
		if u, ok := d.db.Users.Get(auth); ok && u != nil {
			for _, id := range u.Orders {
				if do, ok := d.db.Orders.Get(id); ok && do != nil && !statusFits(tool, do.Status) && ledgerOrder(l, id) == nil {
					wrong = id
					break
				}
			}
		}
	}
	if wrong != "" {
		m := clone()
		m.OrderID = wrong
		add(MutWrongStatus, m)
	}

	if tool == toolCancel {
		m := clone()
		m.Reason = "changed my mind"
		add(MutInvalidCancelReason, m)
	}

	itemTool := tool == toolExchange || tool == toolModifyItems
	if (itemTool || tool == toolReturn) && len(a.ItemIDs) > 0 {
		d.itemNotInOrder(l, o, a, clone, add)
	}
	if itemTool && len(a.ItemIDs) > 0 && len(a.NewItemIDs) == len(a.ItemIDs) {
		d.newItemMutations(l, o, a, clone, add)
	}

	u := authUser(l)
	if tool != toolCancel && tool != toolModifyAddress {
		d.foreignPayment(auth, a, clone, add)
	}
	if tool == toolReturn && u != nil {
		orig := originalPayments(o)
		for id, pm := range u.PaymentMethods.All() {
			if !pm.IsGiftCard() && !slices.Contains(orig, id) {
				m := clone()
				m.PaymentMethodID = id
				add(MutRefundToOtherMethod, m)
				break
			}
		}
	}
	if (itemTool || tool == toolModifyPayment) && u != nil {
		d.insufficientGiftCard(l, o, u, tool, a, clone, add)
	}
	if tool == toolModifyPayment {
		if orig := originalPayments(o); len(orig) > 0 {
			m := clone()
			m.PaymentMethodID = orig[0]
			add(MutSamePaymentMethod, m)
		}
	}
	if hasOncePredicate(tool) {
		d.repeatWrite(l, tool, a, add)
	}
	return out
}

// insufficientGiftCard pays the amount due with a gift card of the user that
// does not cover it. For item changes whose difference no gift card fails to
// cover, the first new item is first upgraded to the priciest available
// variant of its product (a valid choice on its own).
func (d *Domain) insufficientGiftCard(l *ledger.Ledger, o *Order, u *User, tool string, a writeArgs, clone func() writeArgs, add func(string, writeArgs)) {
	orig := originalPayments(o)
	try := func(m writeArgs) bool {
		due, ok := amountDue(l, tool, o, m.ItemIDs, m.NewItemIDs)
		if !ok || due <= 0 {
			return false
		}
		for id, pm := range u.PaymentMethods.All() {
			if pm.IsGiftCard() && pm.Balance < due && (tool != toolModifyPayment || !slices.Contains(orig, id)) {
				m.PaymentMethodID = id
				add(MutInsufficientGiftCard, m)
				return true
			}
		}
		return false
	}
	if try(clone()) || tool == toolModifyPayment || len(a.ItemIDs) == 0 || len(a.NewItemIDs) != len(a.ItemIDs) {
		return
	}
	k := firstItem(o, a.ItemIDs[0])
	if k < 0 {
		return
	}
	p := ledgerProduct(l, o.Items[k].ProductID)
	if p == nil {
		return
	}
	best, price := "", 0.0
	for id, v := range p.Variants.All() {
		if v != nil && v.Available && id != a.ItemIDs[0] && v.Price > price {
			best, price = id, v.Price
		}
	}
	if best != "" {
		m := clone()
		m.NewItemIDs[0] = best
		try(m)
	}
}

// repeatWrite sends again the last write of the same tool that succeeded.
func (d *Domain) repeatWrite(l *ledger.Ledger, tool string, a writeArgs, add func(string, writeArgs)) {
	ws := l.Writes()
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i]
		if w.Tool != tool || !w.Done || !w.Succeeded {
			continue
		}
		if w.Decoded == nil {
			return
		}
		prev := templateOf(w.Decoded)
		if tool == toolUserAddress && prev.UserID != a.UserID {
			return
		}
		add(MutRepeatWrite, prev)
		return
	}
}

// itemNotInOrder replaces the first item id by one the order does not have:
// an item of another order of the user in the ledger, or another variant of
// the same product.
func (d *Domain) itemNotInOrder(l *ledger.Ledger, o *Order, a writeArgs, clone func() writeArgs, add func(string, writeArgs)) {
	have := itemIDs(o)
	pick := ""
	l.Prefix(prefixOrders, func(_ string, v any) {
		if other, ok := v.(*Order); ok && pick == "" && other.OrderID != o.OrderID && other.UserID == o.UserID {
			for _, it := range other.Items {
				if !slices.Contains(have, it.ItemID) {
					pick = it.ItemID
					return
				}
			}
		}
	})
	if pick == "" {
		if k := firstItem(o, a.ItemIDs[0]); k >= 0 {
			if p, ok := d.db.Products.Get(o.Items[k].ProductID); ok && p != nil {
				for id := range p.Variants.All() {
					if !slices.Contains(have, id) && !slices.Contains(a.NewItemIDs, id) {
						pick = id
						break
					}
				}
			}
		}
	}
	if pick != "" {
		m := clone()
		m.ItemIDs[0] = pick
		add(MutItemNotInOrder, m)
	}
}

// newItemMutations replaces the first new item by an item of another product
// (cross_product_item) and by an unavailable variant of the same product
// (unavailable_item).
func (d *Domain) newItemMutations(l *ledger.Ledger, o *Order, a writeArgs, clone func() writeArgs, add func(string, writeArgs)) {
	k := firstItem(o, a.ItemIDs[0])
	if k < 0 {
		return
	}
	pid := o.Items[k].ProductID
	// cross_product_item: an available item of another product, preferring
	// products the agent has read.
	cross := ""
	l.Prefix(prefixProducts, func(_ string, v any) {
		if p, ok := v.(*Product); ok && cross == "" && p.ProductID != pid {
			cross = firstAvailable(p)
		}
	})
	if cross == "" {
		ledger.Scan(d.db.Products.Keys(), pid, func(id string) bool {
			if p, ok := d.db.Products.Get(id); ok && p != nil && id != pid {
				cross = firstAvailable(p)
			}
			return cross != ""
		})
	}
	if cross != "" {
		m := clone()
		m.NewItemIDs[0] = cross
		add(MutCrossProductItem, m)
	}
	if p := ledgerProduct(l, pid); p != nil {
		for id, v := range p.Variants.All() {
			if v != nil && !v.Available && id != a.ItemIDs[0] {
				m := clone()
				m.NewItemIDs[0] = id
				add(MutUnavailableItem, m)
				break
			}
		}
	}
}

func firstAvailable(p *Product) string {
	for id, v := range p.Variants.All() {
		if v != nil && v.Available {
			return id
		}
	}
	return ""
}

// foreignPayment replaces the payment method by another user's method of the
// same kind.
func (d *Domain) foreignPayment(auth string, a writeArgs, clone func() writeArgs, add func(string, writeArgs)) {
	source := ""
	if u, ok := d.db.Users.Get(auth); ok && u != nil {
		if pm, ok := u.PaymentMethods.Get(a.PaymentMethodID); ok && pm != nil {
			source = pm.Source
		}
	}
	own, _ := d.db.Users.Get(auth)
	ledger.Scan(d.db.Users.Keys(), a.PaymentMethodID, func(uid string) bool {
		if uid == auth {
			return false
		}
		u, _ := d.db.Users.Get(uid)
		if u == nil {
			return false
		}
		for id, pm := range u.PaymentMethods.All() {
			if (source == "" || pm.Source == source) && (own == nil || !own.PaymentMethods.Has(id)) {
				m := clone()
				m.PaymentMethodID = id
				add(MutForeignPayment, m)
				return true
			}
		}
		return false
	})
}
