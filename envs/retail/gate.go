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
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/pyjson"
	"github.com/ledgerbench/ledgerbench/ledger"
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

// param is one argument of a write tool.
type param struct {
	name string
	list bool // a list of strings; otherwise a string
}

// paramsOf lists a write tool's parameters in signature order (nil for any
// other tool).
func paramsOf(tool string) []param {
	orderParam := param{name: "order_id"}
	pmParam := param{name: "payment_method_id"}
	itemsParam := param{name: "item_ids", list: true}
	newParam := param{name: "new_item_ids", list: true}
	address := []param{{name: "address1"}, {name: "address2"}, {name: "city"}, {name: "state"}, {name: "country"}, {name: "zip"}}
	switch tool {
	case toolCancel:
		return []param{orderParam, {name: "reason"}}
	case toolExchange, toolModifyItems:
		return []param{orderParam, itemsParam, newParam, pmParam}
	case toolModifyAddress:
		return append([]param{orderParam}, address...)
	case toolModifyPayment:
		return []param{orderParam, pmParam}
	case toolUserAddress:
		return append([]param{{name: "user_id"}}, address...)
	case toolReturn:
		return []param{orderParam, itemsParam, pmParam}
	}
	return nil
}

// writeArgs are a write call's decoded arguments (the fields its tool has).
type writeArgs struct {
	OrderID         string
	UserID          string
	Reason          string
	ItemIDs         []string
	NewItemIDs      []string
	PaymentMethodID string
	Address         Address
}

// decodeWrite reads a write call's arguments leniently: it never fails hard,
// it describes what is wrong (a missing or unknown argument, a number where a
// string is expected, a list that is not a list of strings). It runs once per
// predicate, so it uses the package's JSON scanner rather than reflection.
func decodeWrite(tool string, raw json.RawMessage) (writeArgs, string) {
	var a writeArgs
	params := paramsOf(tool)
	keys, vals, err := members(raw)
	if err != nil || len(bytes.TrimSpace(raw)) == 0 || isNull(raw) {
		return a, fmt.Sprintf("the arguments of %s must be a JSON object", tool)
	}
	var problems []string
	for _, k := range keys {
		if !slices.ContainsFunc(params, func(p param) bool { return p.name == k }) {
			problems = append(problems, fmt.Sprintf("unknown argument %s", pyjson.ReprString(k)))
		}
	}
	for _, p := range params {
		i := slices.Index(keys, p.name)
		if i < 0 {
			problems = append(problems, fmt.Sprintf("missing argument %s", pyjson.ReprString(p.name)))
			continue
		}
		v := vals[i]
		if p.list {
			l, ok := stringList(v)
			if !ok {
				problems = append(problems, fmt.Sprintf("%s must be a list of id strings, got %s", p.name, short(v)))
				continue
			}
			switch p.name {
			case "item_ids":
				a.ItemIDs = l
			case "new_item_ids":
				a.NewItemIDs = l
			}
			continue
		}
		s, err := decodeString(v)
		if err != nil || len(v) == 0 || v[0] != '"' {
			problems = append(problems, fmt.Sprintf("%s must be a string, got %s", p.name, short(v)))
			continue
		}
		switch p.name {
		case "order_id":
			a.OrderID = s
		case "user_id":
			a.UserID = s
		case "reason":
			a.Reason = s
		case "payment_method_id":
			a.PaymentMethodID = s
		case "address1":
			a.Address.Address1 = s
		case "address2":
			a.Address.Address2 = s
		case "city":
			a.Address.City = s
		case "state":
			a.Address.State = s
		case "country":
			a.Address.Country = s
		case "zip":
			a.Address.Zip = s
		}
	}
	if len(problems) > 0 {
		return a, strings.Join(problems, "; ")
	}
	return a, ""
}

// stringList decodes a JSON array of strings.
func stringList(b []byte) ([]string, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, false
	}
	out := []string{}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return out, skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		end, err := skipString(b, i)
		if err != nil {
			return nil, false
		}
		s, err := decodeString(b[i:end])
		if err != nil {
			return nil, false
		}
		out = append(out, s)
		i = skipSpace(b, end)
		switch {
		case i >= len(b):
			return nil, false
		case b[i] == ']':
			return out, skipSpace(b, i+1) == len(b)
		case b[i] != ',':
			return nil, false
		}
		i = skipSpace(b, i+1)
	}
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

func short(v json.RawMessage) string {
	s := strings.TrimSpace(string(v))
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// proposal is one proposed write with its ledger.
type proposal struct {
	l    *ledger.Ledger
	tool string
	a    writeArgs
}

// check is a predicate body over decoded arguments.
type check func(c *proposal) ledger.Outcome

func predicate(tool, rule, clause string, fn check) ledger.Predicate {
	return ledger.Typed("retail."+tool+"."+rule, tool, clause, func(l *ledger.Ledger, a *writeArgs) ledger.Outcome {
		return fn(&proposal{l: l, tool: tool, a: *a})
	})
}

// DecodeArgs implements ledgeragent.Policy: a write's arguments decoded once
// into writeArgs for all its predicates.
func (d *Domain) DecodeArgs(tool string, raw json.RawMessage) (any, *ledger.Failure) {
	return ledger.DecodeWith("retail", tool, raw, decodeWrite, argsClause)
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
			predicate(t.tool, "same_product", t.section, checkSameProduct),
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

// order returns the proposed call's order from the ledger when the call is
// authenticated (other predicates report the missing pieces).
func (c *proposal) order() *Order {
	if authUserID(c.l) == "" {
		return nil
	}
	return ledgerOrder(c.l, c.a.OrderID)
}

// ownedOrder is order() when it belongs to the authenticated user.
func (c *proposal) ownedOrder() *Order {
	o := c.order()
	if o == nil || o.UserID != authUserID(c.l) {
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

// writeOrderID reads the order id of a logged write ("" if it has none).
func writeOrderID(raw json.RawMessage) string {
	keys, vals, err := members(raw)
	if err != nil {
		return ""
	}
	i := slices.Index(keys, "order_id")
	if i < 0 || len(vals[i]) == 0 || vals[i][0] != '"' {
		return ""
	}
	s, _ := decodeString(vals[i])
	return s
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
		if s := statusAfter(w.Tool); s != "" && writeOrderID(w.Args) == o.OrderID {
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

func checkAuthenticated(c *proposal) ledger.Outcome {
	if authUserID(c.l) != "" {
		return ledger.OK
	}
	return ledger.NeedRevise("Per retail policy, authenticate the user before any action that changes the database: locate their user id with find_user_id_by_email or find_user_id_by_name_zip (required even when the user gives their user id).")
}

func checkOrderRead(c *proposal) ledger.Outcome {
	if authUserID(c.l) == "" || ledgerOrder(c.l, c.a.OrderID) != nil {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per retail policy, check order %s before acting on it: call get_order_details(order_id=%s) first.", c.a.OrderID, q(c.a.OrderID)))
}

func checkOwnOrder(c *proposal) ledger.Outcome {
	o := c.order()
	if o == nil {
		return ledger.OK
	}
	if auth := authUserID(c.l); o.UserID != auth {
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

func checkStatus(c *proposal) ledger.Outcome {
	o := c.ownedOrder()
	if o == nil {
		return ledger.OK
	}
	status, by := effectiveStatus(c.l, o)
	verb, need := actionOf(c.tool)
	if statusFits(c.tool, status) {
		return ledger.OK
	}
	if by == c.tool && hasOncePredicate(c.tool) {
		return ledger.OK // once_per_order names the earlier write
	}
	if status == StatusPendingModified && need == StatusPending {
		return ledger.Refuse(fmt.Sprintf("Per retail policy, order %s cannot be %s anymore: its items were already modified (status %s), after which the order can no longer be modified or cancelled.", o.OrderID, verb, q(status)))
	}
	return ledger.Refuse(fmt.Sprintf("Per retail policy, only %s orders can be %s; order %s is %s.", q(need), verb, o.OrderID, q(status)))
}

func checkOnce(c *proposal) ledger.Outcome {
	if c.a.OrderID == "" {
		return ledger.OK
	}
	for _, w := range c.l.Writes() {
		if w.Tool != c.tool || writeOrderID(w.Args) != c.a.OrderID {
			continue
		}
		switch {
		case !w.Done:
			return ledger.NeedRevise(fmt.Sprintf("An earlier %s on order %s has not returned yet; wait for its result before trying again.", c.tool, c.a.OrderID))
		case w.Succeeded:
			return ledger.Refuse(fmt.Sprintf("Per retail policy, %s can be called only once per order, and it already succeeded on order %s.", c.tool, c.a.OrderID))
		}
	}
	return ledger.OK
}

func checkReason(c *proposal) ledger.Outcome {
	if slices.Contains(cancelReasons, c.a.Reason) {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per retail policy, the cancellation reason must be either 'no longer needed' or 'ordered by mistake'; other reasons are not acceptable. You gave %s.", q(c.a.Reason)))
}

func checkItemsInOrder(c *proposal) ledger.Outcome {
	o := c.ownedOrder()
	if o == nil {
		return ledger.OK
	}
	if len(c.a.ItemIDs) == 0 {
		return ledger.NeedRevise(fmt.Sprintf("Per retail policy, list the items of order %s to act on in item_ids (all of them in one call); the list is empty.", o.OrderID))
	}
	if c.tool != toolReturn && len(c.a.NewItemIDs) != len(c.a.ItemIDs) {
		return ledger.NeedRevise(fmt.Sprintf("new_item_ids must give one new item per entry of item_ids, in the same order: got %d item ids and %d new item ids.", len(c.a.ItemIDs), len(c.a.NewItemIDs)))
	}
	all := itemIDs(o)
	var bad []string
	for i, id := range c.a.ItemIDs {
		if slices.Index(c.a.ItemIDs, id) != i {
			continue
		}
		have, want := countOf(all, id), countOf(c.a.ItemIDs, id)
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

func checkSameProduct(c *proposal) ledger.Outcome {
	o := c.ownedOrder()
	if o == nil || len(c.a.NewItemIDs) != len(c.a.ItemIDs) {
		return ledger.OK
	}
	var missing, bad []string
	for i, id := range c.a.ItemIDs {
		k := firstItem(o, id)
		if k < 0 {
			continue // items_in_order
		}
		old, newID := &o.Items[k], c.a.NewItemIDs[i]
		p := ledgerProduct(c.l, old.ProductID)
		if p == nil {
			missing = append(missing, fmt.Sprintf("whether new item %s is an available variant of %s (product %s): call get_product_details(product_id=%s)", q(newID), old.Name, old.ProductID, q(old.ProductID)))
			continue
		}
		v, ok := p.Variants.Get(newID)
		switch {
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

func checkPaymentOwned(c *proposal) ledger.Outcome {
	o := c.ownedOrder()
	if o == nil {
		return ledger.OK
	}
	pm := c.a.PaymentMethodID
	if u := authUser(c.l); u != nil {
		if u.PaymentMethods.Has(pm) {
			return ledger.OK
		}
		return ledger.NeedRevise(fmt.Sprintf("Per retail policy, the payment method must be one of the user's own: %s is not among %s.", q(pm), pyjson.Repr(u.PaymentMethods.Keys())))
	}
	if slices.ContainsFunc(o.PaymentHistory, func(p Payment) bool { return p.PaymentMethodID == pm }) {
		return ledger.OK // the order itself shows the method is the user's
	}
	return ledger.NeedRevise(fmt.Sprintf("Per retail policy, the payment method must be one of the user's own: to check %s, %s.", q(pm), readUserHint(c.l)))
}

// amountDue is what the chosen payment method must cover: the order total
// for a payment change, the price difference (if positive) for an item
// change. ok is false when it cannot be computed from the ledger (other
// predicates report why).
func (c *proposal) amountDue(o *Order) (float64, bool) {
	if c.tool == toolModifyPayment {
		if len(o.PaymentHistory) != 1 {
			return 0, false
		}
		return o.PaymentHistory[0].Amount, true
	}
	if len(c.a.NewItemIDs) != len(c.a.ItemIDs) {
		return 0, false
	}
	diff := 0.0
	for i, id := range c.a.ItemIDs {
		k := firstItem(o, id)
		if k < 0 {
			return 0, false
		}
		p := ledgerProduct(c.l, o.Items[k].ProductID)
		if p == nil {
			return 0, false
		}
		v, ok := p.Variants.Get(c.a.NewItemIDs[i])
		if !ok || v == nil {
			return 0, false
		}
		diff += v.Price - o.Items[k].Price
	}
	if c.tool == toolExchange {
		diff = pyjson.Round(diff, 2) // as the exchange tool compares it
	}
	return diff, true
}

func checkGiftCardBalance(c *proposal) ledger.Outcome {
	o := c.ownedOrder()
	if o == nil {
		return ledger.OK
	}
	due, ok := c.amountDue(o)
	if !ok || due <= 0 {
		return ledger.OK
	}
	pmID := c.a.PaymentMethodID
	u := authUser(c.l)
	if u == nil {
		inHistory := slices.ContainsFunc(o.PaymentHistory, func(p Payment) bool { return p.PaymentMethodID == pmID })
		if inHistory && strings.HasPrefix(pmID, "gift_card") {
			return ledger.NeedRevise(fmt.Sprintf("Per retail policy, a gift card must have enough balance to cover $%s: to check the balance of %s, %s.", pyjson.FormatFixed(due, 2), q(pmID), readUserHint(c.l)))
		}
		return ledger.OK // payment_owned asks for the user record otherwise
	}
	pm, ok := u.PaymentMethods.Get(pmID)
	if !ok || pm == nil || !pm.IsGiftCard() || pm.Balance >= due {
		return ledger.OK
	}
	what := "the price difference"
	if c.tool == toolModifyPayment {
		what = "the order total"
	}
	return ledger.NeedRevise(fmt.Sprintf("Per retail policy, a gift card must have enough balance to cover %s: %s has $%s, and %s is $%s. Choose another payment method.", what, q(pmID), pyjson.FormatFixed(pm.Balance, 2), what, pyjson.FormatFixed(due, 2)))
}

func checkPaymentDifferent(c *proposal) ledger.Outcome {
	o := c.ownedOrder()
	if o == nil {
		return ledger.OK
	}
	if orig := originalPayments(o); slices.Contains(orig, c.a.PaymentMethodID) {
		return ledger.NeedRevise(fmt.Sprintf("Per retail policy, the new payment method must be different from the original payment method: order %s is already paid with %s.", o.OrderID, q(c.a.PaymentMethodID)))
	}
	return ledger.OK
}

func checkRefundDestination(c *proposal) ledger.Outcome {
	o := c.ownedOrder()
	if o == nil {
		return ledger.OK
	}
	pm := c.a.PaymentMethodID
	orig := originalPayments(o)
	if slices.Contains(orig, pm) {
		return ledger.OK
	}
	u := authUser(c.l)
	if u == nil {
		return ledger.NeedRevise(fmt.Sprintf("Per retail policy, refunds must go to the original payment (%s) or an existing gift card: to check whether %s is one of the user's gift cards, %s.", pyjson.Repr(orig), q(pm), readUserHint(c.l)))
	}
	cards := giftCards(u)
	if slices.Contains(cards, pm) {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per retail policy, refunds must go to the original payment (%s) or an existing gift card (%s). You chose %s.", pyjson.Repr(orig), pyjson.Repr(cards), q(pm)))
}

func checkOwnUser(c *proposal) ledger.Outcome {
	auth := authUserID(c.l)
	if auth == "" || c.a.UserID == auth {
		return ledger.OK
	}
	return ledger.Refuse(fmt.Sprintf("Per retail policy, you can only help the authenticated user %s in this conversation; %s is another user.", auth, q(c.a.UserID)))
}

func checkNotRepeated(c *proposal) ledger.Outcome {
	ws := c.l.Writes()
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i]
		if w.Tool != c.tool || !w.Done || !w.Succeeded {
			continue
		}
		prev, problem := decodeWrite(w.Tool, w.Args)
		if problem != "" || prev.UserID != c.a.UserID {
			continue
		}
		if prev.Address == c.a.Address {
			return ledger.Refuse(fmt.Sprintf("This exact %s for %s already succeeded; do not repeat it.", c.tool, c.a.UserID))
		}
		return ledger.OK
	}
	return ledger.OK
}
