package retail

// LedgerAgent's policy gate for retail: Go predicates over the typed ledger
// (see ledger.go for the paths), grouped per write tool. Each cites the
// heading of policy.md it enforces. Verdicts: REVISE when the call can be
// fixed (missing evidence → the read to make; a wrong payment method, item,
// reason or argument type), BLOCK when policy leaves no valid alternative
// (another user's order or profile, an order whose status does not allow the
// action, an action the policy allows only once and that already succeeded).
//
// The tool's section is the heading of its action: Cancel pending order,
// Modify pending order (address), Modify payment, Modify items, Return
// delivered order, Exchange delivered order; modify_user_address cites
// Retail agent policy. *The status section is the tool's section, except
// Modify pending order for the payment and item changes.
//
//	rule                tools                                clause                verdict
//	------------------  -----------------------------------  --------------------  ------------------------------
//	arguments           all seven                            the tool's section    REVISE
//	authenticated       all seven                            Retail agent policy   REVISE (find the user id first)
//	order_read          the six order tools                  the status section*   REVISE (read the order first)
//	own_order           the six order tools                  Retail agent policy   BLOCK
//	status              the six order tools                  the status section*   BLOCK
//	once_per_order      exchange, modify items/address/pay.  Generic action rules  BLOCK (REVISE while in flight)
//	reason              cancel                               Cancel pending order  REVISE
//	items_in_order      return, exchange, modify items       the tool's section    REVISE
//	same_product        exchange, modify items               the tool's section    REVISE (or read the product)
//	payment_owned       exchange, modify items, modify pay.  the tool's section    REVISE (or read the user)
//	payment_different   modify payment                       Modify payment        REVISE
//	gift_card_balance   exchange, modify items, modify pay.  the tool's section    REVISE (or read the user)
//	refund_destination  return                               Return delivered      REVISE (or read the user)
//	                                                         order
//	own_user            modify_user_address                  Retail agent policy   BLOCK
//	not_repeated        modify_user_address                  loop prevention       BLOCK
//
// status: cancel, modify items and modify payment need 'pending'; an
// address change needs 'pending' or 'pending (item modified)' (upstream's
// tool allows it after an item change, and the policy's "not able to modify
// or cancel the order anymore" is read as the item change, the payment and
// the cancellation); return and exchange need 'delivered'. once_per_order reads
// "Exchange or modify order tools can only be called once per order" per
// tool: a second call of the same tool on an order after one succeeded.
//
// Order status is the ledger's record corrected by the write log: a write the
// gate let through that succeeded changes the status as the tool does
// (cancel → cancelled, modify items → pending (item modified), return →
// return requested, exchange → exchange requested), so a stale record cannot
// re-open an action. Predicates that need a record another predicate reports
// missing (authentication, the order) allow, so each problem is named once;
// likewise only `arguments` reports arguments that do not decode.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Write tool names.
const (
	toolCancel        = "cancel_pending_order"
	toolExchange      = "exchange_delivered_order_items"
	toolModifyAddress = "modify_pending_order_address"
	toolModifyItems   = "modify_pending_order_items"
	toolModifyPayment = "modify_pending_order_payment"
	toolUserAddress   = "modify_user_address"
	toolReturn        = "return_delivered_order_items"
)

// Policy headings cited by the predicates (exact headings of policy.md).
const (
	clauseIntro    = "Retail agent policy"
	clauseGeneric  = "Generic action rules"
	clauseCancel   = "Cancel pending order"
	clauseModify   = "Modify pending order"
	clausePayment  = "Modify payment"
	clauseItems    = "Modify items"
	clauseReturn   = "Return delivered order"
	clauseExchange = "Exchange delivered order"
	// clauseLoop names a rule, not a heading: repeating a write that already
	// succeeded with the same arguments.
	clauseLoop = "loop prevention"
)

// The gate judges a write on the tool's own argument struct (tools.go),
// decoded once per call by the tool set as the tool would decode it
// (DecodeArgs), and reads logged writes from the same structs in the write
// log. Predicates shared by several tools read them through these accessors.

// orderCall is a call on one order: the six order tools.
type orderCall interface{ orderID() string }

// paidCall is an order call that names a payment method.
type paidCall interface {
	orderCall
	paymentMethod() string
}

// itemsCall is a call over some items of an order: return, exchange,
// modify items (newItems is nil for a return).
type itemsCall interface {
	paidCall
	items() []string
	newItems() []string
}

func (a *cancelArgs) orderID() string        { return a.OrderID.Text() }
func (a *orderAddressArgs) orderID() string  { return a.OrderID.Text() }
func (a *modifyPaymentArgs) orderID() string { return a.OrderID.Text() }
func (a *exchangeArgs) orderID() string      { return a.OrderID.Text() }
func (a *modifyItemsArgs) orderID() string   { return a.OrderID.Text() }
func (a *returnArgs) orderID() string        { return a.OrderID.Text() }

func (a *modifyPaymentArgs) paymentMethod() string { return a.PaymentMethodID.Text() }
func (a *exchangeArgs) paymentMethod() string      { return a.PaymentMethodID.Text() }
func (a *modifyItemsArgs) paymentMethod() string   { return a.PaymentMethodID.Text() }
func (a *returnArgs) paymentMethod() string        { return a.PaymentMethodID.Text() }

func (a *exchangeArgs) items() []string       { return a.ItemIDs.Texts() }
func (a *exchangeArgs) newItems() []string    { return a.NewItemIDs.Texts() }
func (a *modifyItemsArgs) items() []string    { return a.ItemIDs.Texts() }
func (a *modifyItemsArgs) newItems() []string { return a.NewItemIDs.Texts() }
func (a *returnArgs) items() []string         { return a.ItemIDs.Texts() }
func (a *returnArgs) newItems() []string      { return nil }

// validateArgs is what the gate rejects in a write's arguments before its
// predicates read them: a value of another type than the documented one, or
// null (tool.CheckTypes), then what the tool rejects before it reads the
// database: an address pydantic refuses. DecodeArgs reports it as the
// arguments failure.
func validateArgs(args any) error {
	if err := tool.CheckTypes(args); err != nil {
		return err
	}
	switch a := args.(type) {
	case *orderAddressArgs:
		_, err := a.address()
		return err
	case *userAddressArgs:
		_, err := a.address()
		return err
	}
	return nil
}

// decodeArgs decodes a write's arguments as its tool does.
func (d *Domain) decodeArgs(tool string, raw json.RawMessage) (any, error) {
	a, err := d.Toolset().Decode(tool, raw)
	if err != nil {
		return nil, err
	}
	if err := validateArgs(a); err != nil {
		return nil, err
	}
	return a, nil
}

// predicate is the rule retail.<tool>.<rule> over the tool's arguments A (its
// argument struct pointer or an accessor interface).
func predicate[A any](tool, rule, clause string, check func(c ledger.Call[A]) ledger.Outcome) ledger.Predicate {
	return ledger.Rule("retail", tool, rule, clause, check)
}

// DecodeArgs implements ledgeragent.Policy: a write's arguments decoded once,
// by its tool, for all its predicates.
func (d *Domain) DecodeArgs(tool string, raw json.RawMessage) (any, *ledger.Failure) {
	return ledger.DecodeTool("retail", tool, raw, d.decodeArgs, argsClause)
}

// argsClause is the policy section of a write tool's arguments.
func argsClause(tool string) string {
	switch tool {
	case toolCancel:
		return clauseCancel
	case toolModifyAddress:
		return clauseModify
	case toolModifyPayment:
		return clausePayment
	case toolModifyItems:
		return clauseItems
	case toolExchange:
		return clauseExchange
	case toolReturn:
		return clauseReturn
	case toolUserAddress:
		return clauseIntro
	}
	return ""
}

// GatePredicates implements ledgeragent.Policy: the predicates of the seven
// write tools.
func (d *Domain) GatePredicates() []ledger.Predicate {
	var out []ledger.Predicate
	orderTool := func(tool, section string, extra ...ledger.Predicate) {
		statusClause := section // where the status rule is written
		if tool == toolModifyPayment || tool == toolModifyItems {
			statusClause = clauseModify
		}
		out = append(out,
			predicate(tool, "authenticated", clauseIntro, checkAuthenticated),
			predicate(tool, "order_read", statusClause, checkOrderRead),
			predicate(tool, "own_order", clauseIntro, checkOwnOrder),
			predicate(tool, "status", statusClause, checkStatus),
		)
		out = append(out, extra...)
	}
	orderTool(toolCancel, clauseCancel,
		predicate(toolCancel, "reason", clauseCancel, checkReason))
	orderTool(toolModifyAddress, clauseModify,
		predicate(toolModifyAddress, "once_per_order", clauseGeneric, checkOnce))
	orderTool(toolModifyPayment, clausePayment,
		predicate(toolModifyPayment, "once_per_order", clauseGeneric, checkOnce),
		predicate(toolModifyPayment, "payment_owned", clausePayment, checkPaymentOwned),
		predicate(toolModifyPayment, "payment_different", clausePayment, checkPaymentDifferent),
		predicate(toolModifyPayment, "gift_card_balance", clausePayment, checkGiftCardBalance))
	for _, t := range []struct{ tool, section string }{{toolModifyItems, clauseItems}, {toolExchange, clauseExchange}} {
		orderTool(t.tool, t.section,
			predicate(t.tool, "once_per_order", clauseGeneric, checkOnce),
			predicate(t.tool, "items_in_order", t.section, checkItemsInOrder),
			predicate(t.tool, "same_product", t.section, func(c ledger.Call[itemsCall]) ledger.Outcome { return checkSameProduct(c, d.sameItem) }),
			predicate(t.tool, "payment_owned", t.section, checkPaymentOwned),
			predicate(t.tool, "gift_card_balance", t.section, checkGiftCardBalance))
	}
	orderTool(toolReturn, clauseReturn,
		predicate(toolReturn, "items_in_order", clauseReturn, checkItemsInOrder),
		predicate(toolReturn, "refund_destination", clauseReturn, checkRefundDestination))
	out = append(out,
		predicate(toolUserAddress, "authenticated", clauseIntro, checkAuthenticated),
		predicate(toolUserAddress, "own_user", clauseIntro, checkOwnUser),
		predicate(toolUserAddress, "not_repeated", clauseLoop, checkNotRepeated),
	)
	return out
}

// --- helpers over the ledger -------------------------------------------

// callOrder returns the proposed call's order from the ledger when the call
// is authenticated (other predicates report the missing pieces).
func callOrder(l *ledger.Ledger, a orderCall) *Order {
	if authUserID(l) == "" {
		return nil
	}
	return ledgerOrder(l, a.orderID())
}

// ownedOrder is callOrder when the order belongs to the authenticated user.
func ownedOrder(l *ledger.Ledger, a orderCall) *Order {
	o := callOrder(l, a)
	if o == nil || o.UserID != authUserID(l) {
		return nil
	}
	return o
}

func q(s string) string { return pyjson.ReprString(s) }

// statusAfter is the status a successful write of tool leaves an order in
// ("" for writes that keep it).
func statusAfter(tool string) string {
	switch tool {
	case toolCancel:
		return StatusCancelled
	case toolModifyItems:
		return StatusPendingModified
	case toolReturn:
		return StatusReturnRequested
	case toolExchange:
		return StatusExchangeRequested
	}
	return ""
}

// writeOrderID is the order id of a logged write ("" if it has none or its
// arguments did not decode).
func writeOrderID(w ledger.WriteRecord) string {
	if a, ok := w.Decoded.(orderCall); ok {
		return a.orderID()
	}
	return ""
}

// effectiveStatus is the order's ledger status corrected by the successful
// writes logged since (statuses only move forward), and the tool of the
// write that set it ("" when it is the ledger's).
func effectiveStatus(l *ledger.Ledger, o *Order) (status, by string) {
	status = o.Status
	for _, w := range l.Writes() {
		if !w.Done || !w.Succeeded {
			continue
		}
		if s := statusAfter(w.Tool); s != "" && writeOrderID(w) == o.OrderID {
			status, by = s, w.Tool
		}
	}
	return status, by
}

// originalPayments lists the payment methods an order was paid with.
func originalPayments(o *Order) []string {
	var ids []string
	for _, p := range o.PaymentHistory {
		if p.TransactionType == "payment" && !slices.Contains(ids, p.PaymentMethodID) {
			ids = append(ids, p.PaymentMethodID)
		}
	}
	return ids
}

func giftCards(u *User) []string {
	ids := []string{}
	for id, pm := range u.PaymentMethods.All() {
		if pm.IsGiftCard() {
			ids = append(ids, id)
		}
	}
	return ids
}

func readUserHint(l *ledger.Ledger) string {
	return fmt.Sprintf("call get_user_details(user_id=%s) first", q(authUserID(l)))
}

// --- predicates -----------------------------------------------------------

func checkAuthenticated(c ledger.Call[any]) ledger.Outcome {
	if authUserID(c.Ledger) != "" {
		return ledger.OK
	}
	return ledger.NeedRevise("Per retail policy, authenticate the user before any action that changes the database: locate their user id with find_user_id_by_email or find_user_id_by_name_zip (required even when the user gives their user id).")
}

func checkOrderRead(c ledger.Call[orderCall]) ledger.Outcome {
	id := c.Args.orderID()
	if authUserID(c.Ledger) == "" || ledgerOrder(c.Ledger, id) != nil {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per retail policy, check order %s before acting on it: call get_order_details(order_id=%s) first.", id, q(id)))
}

func checkOwnOrder(c ledger.Call[orderCall]) ledger.Outcome {
	o := callOrder(c.Ledger, c.Args)
	if o == nil {
		return ledger.OK
	}
	if auth := authUserID(c.Ledger); o.UserID != auth {
		return ledger.Refuse(fmt.Sprintf("Per retail policy, you can only help the authenticated user %s in this conversation; order %s belongs to another user (%s).", auth, o.OrderID, o.UserID))
	}
	return ledger.OK
}

// actionOf names a write tool's action for messages.
func actionOf(tool string) (verb, need string) {
	switch tool {
	case toolCancel:
		return "cancelled", StatusPending
	case toolModifyAddress, toolModifyPayment, toolModifyItems:
		return "modified", StatusPending
	case toolReturn:
		return "returned", StatusDelivered
	case toolExchange:
		return "exchanged", StatusDelivered
	}
	return "changed", ""
}

// statusFits reports whether an order in status allows the tool's action.
// An address change stays possible after an item modification ("pending
// (item modified)"), as upstream's tool allows; cancelling, modifying items
// again and changing the payment are refused (the payment tool also rejects
// an order with more than one payment, which an item change always adds).
func statusFits(tool, status string) bool {
	_, need := actionOf(tool)
	return status == need || (status == StatusPendingModified && tool == toolModifyAddress)
}

func hasOncePredicate(tool string) bool {
	switch tool {
	case toolExchange, toolModifyItems, toolModifyAddress, toolModifyPayment:
		return true
	}
	return false
}

func checkStatus(c ledger.Call[orderCall]) ledger.Outcome {
	o := ownedOrder(c.Ledger, c.Args)
	if o == nil {
		return ledger.OK
	}
	status, by := effectiveStatus(c.Ledger, o)
	verb, need := actionOf(c.Tool)
	if statusFits(c.Tool, status) {
		return ledger.OK
	}
	if by == c.Tool && hasOncePredicate(c.Tool) {
		return ledger.OK // once_per_order names the earlier write
	}
	if status == StatusPendingModified && need == StatusPending {
		return ledger.Refuse(fmt.Sprintf("Per retail policy, order %s cannot be %s anymore: its items were already modified (status %s), after which the order can no longer be modified or cancelled.", o.OrderID, verb, q(status)))
	}
	return ledger.Refuse(fmt.Sprintf("Per retail policy, only %s orders can be %s; order %s is %s.", q(need), verb, o.OrderID, q(status)))
}

func checkOnce(c ledger.Call[orderCall]) ledger.Outcome {
	id := c.Args.orderID()
	if id == "" {
		return ledger.OK
	}
	for _, w := range c.Ledger.Writes() {
		if w.Tool != c.Tool || writeOrderID(w) != id {
			continue
		}
		switch {
		case !w.Done:
			return ledger.NeedRevise(fmt.Sprintf("An earlier %s on order %s has not returned yet; wait for its result before trying again.", c.Tool, id))
		case w.Succeeded:
			return ledger.Refuse(fmt.Sprintf("Per retail policy, %s can be called only once per order, and it already succeeded on order %s.", c.Tool, id))
		}
	}
	return ledger.OK
}

func checkReason(c ledger.Call[*cancelArgs]) ledger.Outcome {
	if slices.Contains(cancelReasons, c.Args.Reason.Text()) {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per retail policy, the cancellation reason must be either 'no longer needed' or 'ordered by mistake'; other reasons are not acceptable. You gave %s.", q(c.Args.Reason.Text())))
}

func checkItemsInOrder(c ledger.Call[itemsCall]) ledger.Outcome {
	o := ownedOrder(c.Ledger, c.Args)
	if o == nil {
		return ledger.OK
	}
	ids, newIDs := c.Args.items(), c.Args.newItems()
	if len(ids) == 0 {
		return ledger.NeedRevise(fmt.Sprintf("Per retail policy, list the items of order %s to act on in item_ids (all of them in one call); the list is empty.", o.OrderID))
	}
	if c.Tool != toolReturn && len(newIDs) != len(ids) {
		return ledger.NeedRevise(fmt.Sprintf("new_item_ids must give one new item per entry of item_ids, in the same order: got %d item ids and %d new item ids.", len(ids), len(newIDs)))
	}
	all := itemIDs(o)
	var bad []string
	for i, id := range ids {
		if slices.Index(ids, id) != i {
			continue
		}
		have, want := countOf(all, id), countOf(ids, id)
		switch {
		case have == 0:
			bad = append(bad, fmt.Sprintf("%s is not an item of the order", q(id)))
		case want > have:
			bad = append(bad, fmt.Sprintf("%s is listed %d times but the order has %d", q(id), want, have))
		}
	}
	if len(bad) == 0 {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per retail policy, the items must be items of order %s (%s): %s.", o.OrderID, pyjson.Repr(all), strings.Join(bad, "; ")))
}

// checkSameProduct: each new item is an available variant of the old item's
// product, other than the old item unless sameOK.
func checkSameProduct(c ledger.Call[itemsCall], sameOK bool) ledger.Outcome {
	o := ownedOrder(c.Ledger, c.Args)
	ids, newIDs := c.Args.items(), c.Args.newItems()
	if o == nil || len(newIDs) != len(ids) {
		return ledger.OK
	}
	var missing, bad []string
	for i, id := range ids {
		k := firstItem(o, id)
		if k < 0 {
			continue // items_in_order
		}
		old, newID := &o.Items[k], newIDs[i]
		p := ledgerProduct(c.Ledger, old.ProductID)
		if p == nil {
			missing = append(missing, fmt.Sprintf("whether new item %s is an available variant of %s (product %s): call get_product_details(product_id=%s)", q(newID), old.Name, old.ProductID, q(old.ProductID)))
			continue
		}
		v, ok := p.Variants.Get(newID)
		switch {
		case newID == id && sameOK:
		case newID == id:
			bad = append(bad, fmt.Sprintf("new item %s is the same as the item it replaces; choose a different option", q(newID)))
		case !ok || v == nil:
			bad = append(bad, fmt.Sprintf("new item %s is not a variant of %s (product %s) like item %s; there cannot be any change of product type", q(newID), old.Name, p.ProductID, q(id)))
		case !v.Available:
			bad = append(bad, fmt.Sprintf("new item %s of %s is not available", q(newID), old.Name))
		}
	}
	switch {
	case len(bad) > 0:
		return ledger.NeedRevise("Per retail policy, each item can only become an available item of the same product with different options: " + strings.Join(bad, "; ") + ".")
	case len(missing) > 0:
		return ledger.NeedRevise("Per retail policy, the new items must be available items of the same product; the ledger does not show " + strings.Join(missing, "; ") + ".")
	}
	return ledger.OK
}

func checkPaymentOwned(c ledger.Call[paidCall]) ledger.Outcome {
	o := ownedOrder(c.Ledger, c.Args)
	if o == nil {
		return ledger.OK
	}
	pm := c.Args.paymentMethod()
	if u := authUser(c.Ledger); u != nil {
		if u.PaymentMethods.Has(pm) {
			return ledger.OK
		}
		return ledger.NeedRevise(fmt.Sprintf("Per retail policy, the payment method must be one of the user's own: %s is not among %s.", q(pm), pyjson.Repr(u.PaymentMethods.Keys())))
	}
	if slices.ContainsFunc(o.PaymentHistory, func(p Payment) bool { return p.PaymentMethodID == pm }) {
		return ledger.OK // the order itself shows the method is the user's
	}
	return ledger.NeedRevise(fmt.Sprintf("Per retail policy, the payment method must be one of the user's own: to check %s, %s.", q(pm), readUserHint(c.Ledger)))
}

// amountDue is what the chosen payment method must cover: the order total
// for a payment change, the price difference (if positive) for an item
// change. ok is false when it cannot be computed from the ledger (other
// predicates report why).
func amountDue(l *ledger.Ledger, tool string, o *Order, ids, newIDs []string) (float64, bool) {
	if tool == toolModifyPayment {
		if len(o.PaymentHistory) != 1 {
			return 0, false
		}
		return o.PaymentHistory[0].Amount, true
	}
	if len(newIDs) != len(ids) {
		return 0, false
	}
	diff := 0.0
	for i, id := range ids {
		k := firstItem(o, id)
		if k < 0 {
			return 0, false
		}
		p := ledgerProduct(l, o.Items[k].ProductID)
		if p == nil {
			return 0, false
		}
		v, ok := p.Variants.Get(newIDs[i])
		if !ok || v == nil {
			return 0, false
		}
		diff += v.Price - o.Items[k].Price
	}
	if tool == toolExchange {
		diff = pyjson.Round(diff, 2) // as the exchange tool compares it
	}
	return diff, true
}

func checkGiftCardBalance(c ledger.Call[paidCall]) ledger.Outcome {
	o := ownedOrder(c.Ledger, c.Args)
	if o == nil {
		return ledger.OK
	}
	var ids, newIDs []string
	if ic, ok := c.Args.(itemsCall); ok {
		ids, newIDs = ic.items(), ic.newItems()
	}
	due, ok := amountDue(c.Ledger, c.Tool, o, ids, newIDs)
	if !ok || due <= 0 {
		return ledger.OK
	}
	pmID := c.Args.paymentMethod()
	u := authUser(c.Ledger)
	if u == nil {
		inHistory := slices.ContainsFunc(o.PaymentHistory, func(p Payment) bool { return p.PaymentMethodID == pmID })
		if inHistory && strings.HasPrefix(pmID, "gift_card") {
			return ledger.NeedRevise(fmt.Sprintf("Per retail policy, a gift card must have enough balance to cover $%s: to check the balance of %s, %s.", pyjson.FormatFixed(due, 2), q(pmID), readUserHint(c.Ledger)))
		}
		return ledger.OK // payment_owned asks for the user record otherwise
	}
	pm, ok := u.PaymentMethods.Get(pmID)
	if !ok || pm == nil || !pm.IsGiftCard() || pm.Balance >= due {
		return ledger.OK
	}
	what := "the price difference"
	if c.Tool == toolModifyPayment {
		what = "the order total"
	}
	return ledger.NeedRevise(fmt.Sprintf("Per retail policy, a gift card must have enough balance to cover %s: %s has $%s, and %s is $%s. Choose another payment method.", what, q(pmID), pyjson.FormatFixed(pm.Balance, 2), what, pyjson.FormatFixed(due, 2)))
}

func checkPaymentDifferent(c ledger.Call[*modifyPaymentArgs]) ledger.Outcome {
	o := ownedOrder(c.Ledger, c.Args)
	if o == nil {
		return ledger.OK
	}
	if orig := originalPayments(o); slices.Contains(orig, c.Args.PaymentMethodID.Text()) {
		return ledger.NeedRevise(fmt.Sprintf("Per retail policy, the new payment method must be different from the original payment method: order %s is already paid with %s.", o.OrderID, q(c.Args.PaymentMethodID.Text())))
	}
	return ledger.OK
}

func checkRefundDestination(c ledger.Call[paidCall]) ledger.Outcome {
	o := ownedOrder(c.Ledger, c.Args)
	if o == nil {
		return ledger.OK
	}
	pm := c.Args.paymentMethod()
	orig := originalPayments(o)
	if slices.Contains(orig, pm) {
		return ledger.OK
	}
	u := authUser(c.Ledger)
	if u == nil {
		return ledger.NeedRevise(fmt.Sprintf("Per retail policy, refunds must go to the original payment (%s) or an existing gift card: to check whether %s is one of the user's gift cards, %s.", pyjson.Repr(orig), q(pm), readUserHint(c.Ledger)))
	}
	cards := giftCards(u)
	if slices.Contains(cards, pm) {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per retail policy, refunds must go to the original payment (%s) or an existing gift card (%s). You chose %s.", pyjson.Repr(orig), pyjson.Repr(cards), q(pm)))
}

func checkOwnUser(c ledger.Call[*userAddressArgs]) ledger.Outcome {
	auth := authUserID(c.Ledger)
	if auth == "" || c.Args.UserID.Text() == auth {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per retail policy, you can only help the authenticated user %s in this conversation; %s is another user.", auth, q(c.Args.UserID.Text())))
}

func checkNotRepeated(c ledger.Call[*userAddressArgs]) ledger.Outcome {
	ws := c.Ledger.Writes()
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i]
		if w.Tool != c.Tool || !w.Done || !w.Succeeded {
			continue
		}
		prev, ok := w.Decoded.(*userAddressArgs)
		if !ok || prev.UserID.Text() != c.Args.UserID.Text() {
			continue
		}
		before, _ := prev.address() // both validated by DecodeArgs
		after, _ := c.Args.address()
		if before == after {
			return ledger.Refuse(fmt.Sprintf("This exact %s for %s already succeeded; do not repeat it.", c.Tool, c.Args.UserID.Text()))
		}
		return ledger.OK
	}
	return ledger.OK
}
