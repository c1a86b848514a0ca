package banking

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// The agent's debit card tools (ordering, activation, closing, freezing,
// PINs, limits).

func orderDebitCard(_ context.Context, e *Env, a dargs) (string, error) {
	aid, uid, opt, design, addr := a.get("account_id"), a.get("user_id"), a.get("delivery_option"), a.get("card_design"), a.get("shipping_address")
	excessArg := a.get("excess_replacement_fee")
	if !truthy(excessArg) {
		excessArg = 0
	}
	var deliveryFee, designFee *float64
	if v := a.get("delivery_fee"); v != nil {
		f, err := toFloat(v)
		if err != nil {
			return "Error: delivery_fee must be a number.", nil
		}
		deliveryFee = &f
	}
	if v := a.get("design_fee"); v != nil {
		f, err := toFloat(v)
		if err != nil {
			return "Error: design_fee must be a number.", nil
		}
		designFee = &f
	}
	var excess any = 0
	if f, err := toFloat(excessArg); err == nil {
		excess = f
	}
	if !truthy(aid) || !truthy(uid) || !truthy(opt) || deliveryFee == nil || !truthy(design) || designFee == nil || !truthy(addr) {
		return "Error: Missing required parameters. Required: account_id, user_id, delivery_option, delivery_fee, card_design, design_fee, shipping_address.", nil
	}
	optS, err := strArg(opt, "upper")
	if err != nil {
		return "", err
	}
	valid := []string{"STANDARD", "EXPEDITED", "RUSH"}
	if !slices.Contains(valid, strings.ToUpper(optS)) {
		return "Error: Invalid delivery_option. Must be one of: " + pyList(valid), nil
	}
	optS = strings.ToUpper(optS)
	designS, err := strArg(design, "upper")
	if err != nil {
		return "", err
	}
	designs := []string{"CLASSIC", "PREMIUM", "CUSTOM"}
	if !slices.Contains(designs, strings.ToUpper(designS)) {
		return "Error: Invalid card_design. Must be one of: " + pyList(designs), nil
	}
	designS = strings.ToUpper(designS)
	acc, ok, err := e.rec(tAccounts, aid)
	if err != nil {
		return "", err
	}
	if !ok {
		return fmt.Sprintf("Error: Account '%s' not found.", str(aid)), nil
	}
	if !eq(field(acc, "class", nil), "checking") {
		return fmt.Sprintf("Error: Debit cards can only be ordered for checking accounts. Account '%s' is a %s account.", str(aid), str(field(acc, "class", nil))), nil
	}
	if !eq(field(acc, "status", nil), "OPEN") {
		return fmt.Sprintf("Error: Account must be OPEN. Account '%s' has status: %s", str(aid), str(field(acc, "status", nil))), nil
	}
	if !eq(field(acc, "user_id", nil), uid) {
		return fmt.Sprintf("Error: Account '%s' does not belong to user '%s'.", str(aid), str(uid)), nil
	}
	holdings, err := toFloat(strings.ReplaceAll(str(field(acc, "current_holdings", "0")), ",", ""))
	if err != nil {
		if !isValueError(err) {
			return "", err
		}
		holdings = 0
	}
	if holdings < 25.0 {
		return fmt.Sprintf("Error: Account must have a minimum balance of $25. Current balance: $%s", mustFixed(holdings, 2)), nil
	}
	for _, o := range e.db.tables[tDebitCardOrders].All() {
		if eq(field(o, "account_id", nil), aid) && eq(field(o, "status", nil), "PENDING") {
			return fmt.Sprintf("Error: There is already a pending debit card order for account '%s'.", str(aid)), nil
		}
	}
	active := 0
	for _, c := range e.db.tables[tDebitCards].All() {
		if eq(field(c, "account_id", nil), aid) && eq(field(c, "status", nil), "ACTIVE") {
			active++
		}
	}
	if active >= 1 {
		return fmt.Sprintf("Error: Account '%s' already has an active debit card. Maximum 1 active card per checking account.", str(aid)), nil
	}
	excessF, _, _ := number(excess)
	total := *deliveryFee + *designFee + excessF
	if total > 0 && holdings < total {
		return fmt.Sprintf("Error: Insufficient funds for fees. Total fees: $%s. Current balance: $%s", mustFixed(total, 2), mustFixed(holdings, 2)), nil
	}
	expected := map[string]string{"STANDARD": "7-10 business days", "EXPEDITED": "3-5 business days", "RUSH": "1-2 business days"}[optS]
	orderID := "dcord_" + deterministicID("debit_card_order:"+str(aid)+":"+str(uid)+":"+optS, 12)
	rec := dict("order_id", orderID, "account_id", aid, "user_id", uid, "delivery_option", optS, "card_design", designS,
		"shipping_address", addr, "delivery_fee", *deliveryFee, "design_fee", *designFee, "excess_replacement_fee", excess,
		"total_fee", total, "order_date", today, "expected_delivery", expected, "status", "PENDING")
	if !e.add(tDebitCardOrders, orderID, rec) {
		return "Error: Failed to create debit card order. Order may already exist.", nil
	}
	if total > 0 {
		accM, _, _ := e.mutRecord(tAccounts, aid)
		accM.Set("current_holdings", mustFixed(holdings-total, 2))
		var desc []string
		if *deliveryFee > 0 {
			desc = append(desc, "Delivery $"+str(*deliveryFee))
		}
		if *designFee > 0 {
			desc = append(desc, "Design $"+str(*designFee))
		}
		if excessF > 0 {
			desc = append(desc, "Excess Replacement $"+mustFixed(excessF, 0))
		}
		feeID := "btxn_dcfee_" + orderID[len(orderID)-8:]
		e.add(tBankTransactions, feeID, dict("transaction_id", feeID, "account_id", aid, "date", today,
			"description", "DEBIT CARD ORDER FEE - "+strings.Join(desc, ", "), "amount", -total,
			"type", "debit_card_fee", "status", "posted"))
	}
	cardID := "dbc_" + deterministicID("debit_card:"+str(aid)+":"+str(uid)+":"+today, 12)
	seed := "card_details:" + cardID
	last4 := zfill(firstDigits(deterministicID(seed+":last4", 8), 4), 4)
	cvv := zfill(firstDigits(deterministicID(seed+":cvv", 6), 3), 3)
	holder := any("CARDHOLDER")
	u, ok, err := e.rec(tUsers, uid)
	if err != nil {
		return "", err
	}
	if ok {
		n, err := strArg(field(u, "name", "CARDHOLDER"), "upper")
		if err != nil {
			return "", err
		}
		holder = strings.ToUpper(n)
	}
	expiration := expiryOf(today)
	var existing []*pyjson.Dict
	for _, c := range e.db.tables[tDebitCards].All() {
		if eq(field(c, "account_id", nil), aid) {
			existing = append(existing, c)
		}
	}
	reason := "new_account"
	if len(existing) > 0 {
		reason = "first_card"
	}
	if i := slices.IndexFunc(existing, func(c *pyjson.Dict) bool { return eq(field(c, "status", nil), "CLOSED") }); i >= 0 {
		cr := field(existing[i], "closure_reason", "first_card")
		switch {
		case eq(cr, "fraud_suspected"):
			reason = "fraud"
		case oneOf(cr, "lost", "stolen", "fraud"):
			reason = cr.(string)
		default:
			reason = "first_card"
		}
	}
	e.add(tDebitCards, cardID, dict("card_id", cardID, "account_id", aid, "user_id", uid, "cardholder_name", holder,
		"last_4_digits", last4, "cvv", cvv, "status", "PENDING", "issue_date", today, "expiration_date", expiration,
		"card_design", designS, "issue_reason", reason))
	parts := []string{
		"Debit Card Order Confirmed",
		"Order ID: " + orderID,
		"Card ID: " + cardID,
		"Linked Account: " + str(aid),
		"Delivery Option: " + optS,
		"Card Design: " + designS,
		"Shipping Address: " + str(addr),
		"Expected Delivery: " + expected,
		"",
		"Note: Card will arrive with status PENDING. Customer must call to activate after receiving the card.",
	}
	if total > 0 {
		var details []string
		if *deliveryFee > 0 {
			details = append(details, "Delivery: $"+str(*deliveryFee))
		}
		if *designFee > 0 {
			details = append(details, "Design: $"+str(*designFee))
		}
		if excessF > 0 {
			details = append(details, "Excess Replacement: $"+mustFixed(excessF, 0))
		}
		parts = append(parts,
			fmt.Sprintf("Total Fees: $%s (%s) - CHARGED to account %s", mustFixed(total, 2), strings.Join(details, ", "), str(aid)),
			"New Account Balance: $"+mustFixed(holdings-total, 2))
	} else {
		parts = append(parts, "Total Fees: $0 (No additional charges)")
	}
	return strings.Join(parts, "\n"), nil
}

// firstDigits is "".join(c for c in s if c.isdigit())[:n].
func firstDigits(s string, n int) string {
	var b strings.Builder
	for _, c := range s {
		if c >= '0' && c <= '9' && b.Len() < n {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// zfill is str.zfill for a digit string.
func zfill(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}

// expiryOf is order_debit_card_5739's expiration date: four years on, at
// the end of the order's month (February always 28).
func expiryOf(orderDate string) string {
	parts := strings.Split(orderDate, "/")
	if len(parts) < 3 {
		return "12/31/2029"
	}
	y, err := strconv.Atoi(parts[2])
	if err != nil {
		return "12/31/2029"
	}
	day := "30"
	switch parts[0] {
	case "01", "03", "05", "07", "08", "10", "12":
		day = "31"
	case "02":
		day = "28"
	}
	return parts[0] + "/" + day + "/" + strconv.Itoa(y+4)
}

// validatePIN is _validate_pin ("" when valid).
func validatePIN(pin any) (string, error) {
	if !truthy(pin) {
		return "PIN must be exactly 4 digits.", nil
	}
	s, err := strArg(pin, "isdigit")
	if err != nil {
		return "", err
	}
	if !isDigit(s) || strLen(s) != 4 {
		return "PIN must be exactly 4 digits.", nil
	}
	if slices.Contains([]string{"0123", "1234", "2345", "3456", "4567", "5678", "6789", "9876", "8765", "7654", "6543", "5432", "4321", "3210"}, s) {
		return "PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN.", nil
	}
	first := []rune(s)[0]
	same := true
	for _, r := range s {
		if r != first {
			same = false
		}
	}
	if same {
		return "PIN cannot be all the same digit (e.g., 1111). Please choose a more secure PIN.", nil
	}
	return "", nil
}

// digits checks v.isdigit() and len(v) == n (v used as a str).
func digits(v any, n int) (bool, error) {
	s, err := strArg(v, "isdigit")
	if err != nil {
		return false, err
	}
	return isDigit(s) && strLen(s) == n, nil
}

// activation is what distinguishes the three activation tools.
type activation struct {
	name    string
	allowed []string
	apply   func(e *Env, cardID string, card *pyjson.Dict) []string
}

// reasonTool maps an issue reason to the activation tool for it.
var reasonTool = map[string]string{
	"new_account": "activate_debit_card_8291", "first_card": "activate_debit_card_8291",
	"lost": "activate_debit_card_8292", "stolen": "activate_debit_card_8292", "fraud": "activate_debit_card_8292",
	"expired": "activate_debit_card_8293", "damaged": "activate_debit_card_8293", "upgrade": "activate_debit_card_8293", "bank_reissue": "activate_debit_card_8293",
}

// validateActivation is _validate_activation_common.
func (e *Env) validateActivation(a dargs, act activation) (string, string, error) {
	cid, last4, exp, cvv, pin := a.get("card_id"), a.get("last_4_digits"), a.get("expiration_date"), a.get("cvv"), a.get("pin")
	for _, v := range []any{cid, last4, exp, cvv, pin} {
		if !truthy(v) {
			return "Error: Missing required parameters. Required: card_id, last_4_digits, expiration_date, cvv, pin.", "", nil
		}
	}
	msg, err := validatePIN(pin)
	if err != nil {
		return "", "", err
	}
	if msg != "" {
		return "Error: " + msg, "", nil
	}
	if ok, err := digits(cvv, 3); err != nil {
		return "", "", err
	} else if !ok {
		return "Error: CVV must be exactly 3 digits.", "", nil
	}
	if ok, err := digits(last4, 4); err != nil {
		return "", "", err
	} else if !ok {
		return "Error: Last 4 digits must be exactly 4 digits.", "", nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", "", err
	}
	if !ok {
		return fmt.Sprintf("Error: Debit card '%s' not found.", str(cid)), "", nil
	}
	reason := field(card, "issue_reason", "new_account")
	if !oneOf(reason, act.allowed...) {
		correct := "unknown"
		if s, ok := reason.(string); ok {
			if t, ok := reasonTool[s]; ok {
				correct = t
			}
		}
		return fmt.Sprintf("Error: Wrong activation tool. This card has issue_reason='%s'. Please use %s instead of %s.", str(reason), correct, act.name), "", nil
	}
	if eq(field(card, "status", nil), "ACTIVE") {
		return fmt.Sprintf("Error: Debit card '%s' is already active.", str(cid)), "", nil
	}
	if !eq(field(card, "status", nil), "PENDING") {
		return fmt.Sprintf("Error: Debit card '%s' cannot be activated. Current status: %s. Only PENDING cards can be activated.", str(cid), str(field(card, "status", nil))), "", nil
	}
	if !eq(field(card, "last_4_digits", nil), last4) {
		return "Error: Card verification failed. The last 4 digits do not match our records.", "", nil
	}
	if acc := field(card, "account_id", nil); truthy(acc) {
		if ar, ok, err := e.rec(tAccounts, acc); err != nil {
			return "", "", err
		} else if ok && !eq(field(ar, "status", nil), "OPEN") {
			return fmt.Sprintf("Error: The linked checking account '%s' is no longer open. Card cannot be activated.", str(acc)), "", nil
		}
	}
	return "", cid.(string), nil
}

// otherActive lists the other ACTIVE cards of the card's account, owned
// by this state so they may change.
func (e *Env) otherActive(cardID string, account any) []string {
	var ids []string
	for id, c := range e.db.tables[tDebitCards].All() {
		if id != cardID && eq(field(c, "account_id", nil), account) && eq(field(c, "status", nil), "ACTIVE") {
			ids = append(ids, id)
		}
	}
	return ids
}

var (
	activateNew = activation{name: "activate_debit_card_8291", allowed: []string{"new_account", "first_card"},
		apply: func(e *Env, cardID string, card *pyjson.Dict) []string {
			var off []string
			for _, id := range e.otherActive(cardID, field(card, "account_id", nil)) {
				c, _ := e.db.tables[tDebitCards].Mut(id)
				c.Set("status", "DEACTIVATED")
				c.Set("deactivated_date", today)
				c.Set("deactivation_reason", "New card activated")
				off = append(off, id)
			}
			parts := []string{"New Debit Card Activation Successful", "Card ID: " + cardID, "Status: ACTIVE", "Activation Date: " + today, "",
				"Your card is now ready to use at any ATM or point of sale terminal.", "For security, please sign the back of your card."}
			if len(off) > 0 {
				parts = append(parts, "\nNote: Previous card(s) have been deactivated: "+strings.Join(off, ", "))
			}
			return parts
		}}
	activateReplacement = activation{name: "activate_debit_card_8292", allowed: []string{"lost", "stolen", "fraud"},
		apply: func(e *Env, cardID string, card *pyjson.Dict) []string {
			reason := str(field(card, "issue_reason", "lost"))
			var off []string
			for _, id := range e.otherActive(cardID, field(card, "account_id", nil)) {
				c, _ := e.db.tables[tDebitCards].Mut(id)
				c.Set("status", "DEACTIVATED")
				c.Set("deactivated_date", today)
				c.Set("deactivation_reason", "Replacement card activated ("+reason+")")
				off = append(off, id)
			}
			rd, _ := display(reason)
			parts := []string{"Replacement Debit Card Activation Successful", "Card ID: " + cardID, "Replacement Reason: " + rd, "Status: ACTIVE",
				"Activation Date: " + today, "", "Your replacement card is now ready to use.", "", "IMPORTANT SECURITY REMINDERS:",
				"- Please review your recent transactions for any unauthorized charges", "- Report any suspicious activity immediately"}
			if reason == "fraud" {
				parts = append(parts, "- Since fraud was suspected, we recommend changing your online banking password")
			}
			if len(off) > 0 {
				parts = append(parts, "\nPrevious card(s) have been deactivated for security: "+strings.Join(off, ", "))
			}
			return parts
		}}
	activateReissued = activation{name: "activate_debit_card_8293", allowed: []string{"expired", "damaged", "upgrade", "bank_reissue"},
		apply: func(e *Env, cardID string, card *pyjson.Dict) []string {
			reason := str(field(card, "issue_reason", "expired"))
			var grace []string
			for _, id := range e.otherActive(cardID, field(card, "account_id", nil)) {
				c, _ := e.db.tables[tDebitCards].Mut(id)
				c.Set("status", "GRACE_PERIOD")
				c.Set("grace_period_ends", today)
				c.Set("deactivation_reason", "Reissued card activated ("+reason+")")
				grace = append(grace, id)
			}
			rd, _ := display(reason)
			parts := []string{"Reissued Debit Card Activation Successful", "Card ID: " + cardID, "Reissue Reason: " + rd, "Status: ACTIVE",
				"Activation Date: " + today, "", "Your reissued card is now ready to use."}
			if len(grace) > 0 {
				parts = append(parts, "\nNote: Your previous card(s) ("+strings.Join(grace, ", ")+") will remain active for 24 hours as a grace period.",
					"After 24 hours, the old card(s) will be automatically deactivated.")
			}
			if reason == "expired" || reason == "bank_reissue" {
				parts = append(parts, "\nReminder: If your card number changed, please update any recurring payments with your new card details.")
			}
			return parts
		}}
)

func activateDebitCard(act activation) func(context.Context, *Env, dargs) (string, error) {
	return func(_ context.Context, e *Env, a dargs) (string, error) {
		msg, cardID, err := e.validateActivation(a, act)
		if err != nil || msg != "" {
			return msg, err
		}
		card, _ := e.db.tables[tDebitCards].Mut(cardID)
		card.Set("status", "ACTIVE")
		card.Set("activated_date", today)
		return strings.Join(act.apply(e, cardID, card), "\n"), nil
	}
}

func closeDebitCard(_ context.Context, e *Env, a dargs) (string, error) {
	cid, reasonArg := a.get("card_id"), a.get("reason")
	if !truthy(cid) || !truthy(reasonArg) {
		return "Error: Missing required parameters. Required: card_id, reason.", nil
	}
	r, err := strArg(reasonArg, "lower")
	if err != nil {
		return "", err
	}
	valid := []string{"lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed", "account_closing"}
	reason := pyjson.Lower(r)
	if !slices.Contains(valid, reason) {
		return "Error: Invalid reason. Must be one of: " + pyList(valid), nil
	}
	card, ok, err := e.mutRecord(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return fmt.Sprintf("Error: Debit card '%s' not found.", str(cid)), nil
	}
	prev := field(card, "status", nil)
	if !oneOf(prev, "ACTIVE", "PENDING") {
		return fmt.Sprintf("Error: Debit card '%s' cannot be closed. Current status: %s. Only ACTIVE or PENDING cards can be closed.", str(cid), str(prev)), nil
	}
	card.Set("status", "CLOSED")
	card.Set("closed_date", today)
	card.Set("closure_reason", reason)
	rd, _ := display(reason)
	parts := []string{"Debit Card Closed Successfully", "Card ID: " + str(cid), "Previous Status: " + str(prev), "New Status: CLOSED",
		"Closure Reason: " + rd, "Closure Date: " + today, ""}
	if reason == "lost" || reason == "stolen" || reason == "fraud_suspected" {
		parts = append(parts, "IMPORTANT: This card has been immediately deactivated for security.", "Any pending transactions may still be processed.")
		if reason == "fraud_suspected" {
			parts = append(parts, "Please advise the customer to review recent transactions and file disputes for any unauthorized charges.",
				"Also recommend changing their online banking password.")
		}
	}
	parts = append(parts, "",
		"Note: This card cannot be reactivated. If the customer needs a new card, they can order one through the standard ordering process.",
		"Any recurring payments linked to this card will need to be updated with new payment information.")
	return strings.Join(parts, "\n"), nil
}

func freezeDebitCard(_ context.Context, e *Env, a dargs) (string, error) {
	cid := a.get("card_id")
	if !truthy(cid) {
		return "Error: Missing required parameter: card_id.", nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return fmt.Sprintf("Error: Debit card '%s' not found.", str(cid)), nil
	}
	st := field(card, "status", nil)
	if eq(st, "FROZEN") {
		return fmt.Sprintf("Error: Debit card '%s' is already frozen.", str(cid)), nil
	}
	if !eq(st, "ACTIVE") {
		return fmt.Sprintf("Error: Debit card '%s' cannot be frozen. Current status: %s. Only ACTIVE cards can be frozen.", str(cid), str(st)), nil
	}
	card, _, _ = e.mutRecord(tDebitCards, cid)
	card.Set("status", "FROZEN")
	card.Set("frozen_date", today)
	return strings.Join([]string{"Debit Card Frozen Successfully", "Card ID: " + str(cid), "Status: FROZEN", "Frozen Date: " + today, "",
		"While frozen:", "- All new purchase transactions will be declined", "- Recurring payments and subscriptions will be declined",
		"- Pending transactions already authorized may still process", "",
		"To unfreeze, the customer can call customer service or use the mobile app.",
		"If the card is confirmed lost or stolen, recommend closing the card permanently instead."}, "\n"), nil
}

func unfreezeDebitCard(_ context.Context, e *Env, a dargs) (string, error) {
	cid := a.get("card_id")
	if !truthy(cid) {
		return "Error: Missing required parameter: card_id.", nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return fmt.Sprintf("Error: Debit card '%s' not found.", str(cid)), nil
	}
	st := field(card, "status", nil)
	if eq(st, "ACTIVE") {
		return fmt.Sprintf("Error: Debit card '%s' is already active.", str(cid)), nil
	}
	if !eq(st, "FROZEN") {
		return fmt.Sprintf("Error: Debit card '%s' cannot be unfrozen. Current status: %s. Only FROZEN cards can be unfrozen.", str(cid), str(st)), nil
	}
	if acc := field(card, "account_id", nil); truthy(acc) {
		if ar, ok, err := e.rec(tAccounts, acc); err != nil {
			return "", err
		} else if ok && !eq(field(ar, "status", nil), "OPEN") {
			return fmt.Sprintf("Error: The linked checking account '%s' is no longer open. Card cannot be unfrozen.", str(acc)), nil
		}
	}
	card, _, _ = e.mutRecord(tDebitCards, cid)
	card.Set("status", "ACTIVE")
	card.Set("unfrozen_date", today)
	return strings.Join([]string{"Debit Card Unfrozen Successfully", "Card ID: " + str(cid), "Status: ACTIVE", "Unfrozen Date: " + today, "",
		"The card is now active and ready to use immediately.", "All transactions will process normally."}, "\n"), nil
}

func clearFraudAlert(_ context.Context, e *Env, a dargs) (string, error) {
	cid, reason := a.get("card_id"), a.get("reason")
	if !truthy(cid) {
		return "Error: Missing required parameter: card_id.", nil
	}
	if !truthy(reason) {
		return "Error: Missing required parameter: reason.", nil
	}
	valid := []string{"customer_verified", "velocity_clear"}
	if !oneOf(reason, valid...) {
		return fmt.Sprintf("Error: Invalid reason '%s'. Must be one of: %s", str(reason), strings.Join(valid, ", ")), nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return fmt.Sprintf("Error: Debit card '%s' not found.", str(cid)), nil
	}
	if eq(reason, "velocity_clear") {
		if !truthy(field(card, "velocity_blocked", false)) {
			return fmt.Sprintf("Error: Debit card '%s' does not have an active velocity block.", str(cid)), nil
		}
		card, _, _ = e.mutRecord(tDebitCards, cid)
		card.Set("velocity_blocked", false)
		card.Set("velocity_cleared_date", today)
		return strings.Join([]string{"Velocity Block Cleared Successfully", "Card ID: " + str(cid), "Cleared Date: " + today, "",
			"The card is now unblocked and ready for normal use.",
			"The velocity monitoring will continue - if the same unusual patterns recur,",
			"the card may be blocked again automatically."}, "\n"), nil
	}
	if !truthy(field(card, "fraud_alert_active", false)) {
		return fmt.Sprintf("Error: Debit card '%s' does not have an active fraud alert.", str(cid)), nil
	}
	if eq(field(card, "alert_source", nil), "bank_initiated") {
		return "Error: BANK_INITIATED_ALERT - This fraud alert was initiated by the bank's fraud detection system and cannot be cleared by customer service agents. Please transfer the customer to the security team using transfer_to_human_agents.", nil
	}
	card, _, _ = e.mutRecord(tDebitCards, cid)
	card.Set("fraud_alert_active", false)
	card.Set("alert_source", nil)
	card.Set("fraud_alert_cleared_date", today)
	return strings.Join([]string{"Fraud Alert Cleared Successfully", "Card ID: " + str(cid), "Cleared Date: " + today, "",
		"The fraud alert has been removed from the card.", "All transactions will process normally.", "",
		"Remind the customer to review recent transactions and report any unauthorized charges."}, "\n"), nil
}

func resetPIN(_ context.Context, e *Env, a dargs) (string, error) {
	cid, last4, pin := a.get("card_id"), a.get("last_4_digits"), a.get("new_pin")
	if !truthy(cid) || !truthy(last4) || !truthy(pin) {
		return "Error: Missing required parameters. Required: card_id, last_4_digits, new_pin.", nil
	}
	if ok, err := digits(last4, 4); err != nil {
		return "", err
	} else if !ok {
		return "Error: Last 4 digits must be exactly 4 digits.", nil
	}
	msg, err := validatePIN(pin)
	if err != nil {
		return "", err
	}
	if msg != "" {
		return "Error: " + msg, nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return fmt.Sprintf("Error: Debit card '%s' not found.", str(cid)), nil
	}
	if !eq(field(card, "last_4_digits", nil), last4) {
		return "Error: Card verification failed. The last 4 digits do not match our records.", nil
	}
	if !eq(field(card, "status", nil), "ACTIVE") {
		return fmt.Sprintf("Error: Cannot reset PIN. Card status is %s. Only ACTIVE cards can have their PIN reset.", str(field(card, "status", nil))), nil
	}
	card, _, _ = e.mutRecord(tDebitCards, cid)
	card.Set("pin_last_changed", today)
	card.Set("pin_locked", false)
	card.Set("pin_attempts_remaining", 3)
	return strings.Join([]string{"Debit Card PIN Reset Successfully", "Card ID: " + str(cid), "PIN Changed: " + today, "",
		"The new PIN is effective immediately.", "Your card has been unlocked and is ready to use.",
		"Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.", "",
		"Security reminder: Never share your PIN with anyone."}, "\n"), nil
}

func changePIN(_ context.Context, e *Env, a dargs) (string, error) {
	cid, cur, pin := a.get("card_id"), a.get("current_pin"), a.get("new_pin")
	if !truthy(cid) || !truthy(cur) || !truthy(pin) {
		return "Error: Missing required parameters. Required: card_id, current_pin, new_pin.", nil
	}
	if ok, err := digits(cur, 4); err != nil {
		return "", err
	} else if !ok {
		return "Error: Current PIN must be exactly 4 digits.", nil
	}
	msg, err := validatePIN(pin)
	if err != nil {
		return "", err
	}
	if msg != "" {
		return "Error: " + msg, nil
	}
	if eq(cur, pin) {
		return "Error: New PIN must be different from current PIN.", nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return fmt.Sprintf("Error: Debit card '%s' not found.", str(cid)), nil
	}
	if !eq(field(card, "status", nil), "ACTIVE") {
		return fmt.Sprintf("Error: Cannot change PIN. Card status is %s. Only ACTIVE cards can have their PIN changed.", str(field(card, "status", nil))), nil
	}
	card, _, _ = e.mutRecord(tDebitCards, cid)
	card.Set("pin_last_changed", today)
	return strings.Join([]string{"Debit Card PIN Changed Successfully", "Card ID: " + str(cid), "PIN Changed: " + today, "",
		"The new PIN is effective immediately.",
		"Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.", "",
		"Security reminder: Never share your PIN with anyone."}, "\n"), nil
}

func getDebitCardsByAccount(_ context.Context, e *Env, a dargs) (string, error) {
	aid := a.get("account_id")
	if !truthy(aid) {
		return "Error: Missing required parameter 'account_id'.", nil
	}
	acc, ok, err := e.rec(tAccounts, aid)
	if err != nil {
		return "", err
	}
	if !ok {
		return fmt.Sprintf("Error: Account '%s' not found.", str(aid)), nil
	}
	class, err := strArg(field(acc, "class", ""), "lower")
	if err != nil {
		return "", err
	}
	if c := pyjson.Lower(class); c != "checking" && c != "business_checking" {
		return fmt.Sprintf("Error: Account '%s' is not a checking account. Debit cards are only available for checking accounts.", str(aid)), nil
	}
	var cards []*pyjson.Dict
	for id, c := range e.db.tables[tDebitCards].All() {
		if !eq(field(c, "account_id", nil), aid) {
			continue
		}
		info := dict("card_id", id)
		for i, k := range c.Keys {
			info.Set(k, c.Values[i])
		}
		if _, has := info.Get("card_number_last_4"); !has {
			if v, ok := info.Get("last_4_digits"); ok {
				pop(info, "last_4_digits")
				info.Set("card_number_last_4", v)
			}
		}
		if _, has := info.Get("date_issued"); !has {
			if v, ok := info.Get("issue_date"); ok {
				pop(info, "issue_date")
				info.Set("date_issued", v)
			} else if v, ok := info.Get("created_date"); ok {
				pop(info, "created_date")
				info.Set("date_issued", v)
			}
		}
		cards = append(cards, info)
	}
	if len(cards) == 0 {
		return fmt.Sprintf("No debit cards found for account '%s'.", str(aid)), nil
	}
	keys := make([]any, len(cards))
	for i, c := range cards {
		k := field(c, "date_issued", nil)
		if !truthy(k) {
			k = ""
		}
		keys[i] = k
	}
	if err := sortByKeyDesc(cards, keys); err != nil {
		return "", err
	}
	list := make([]any, len(cards))
	for i, c := range cards {
		list[i] = c
	}
	return jsonIndent(list), nil
}

// pop removes a key from a dict (dict.pop).
func pop(d *pyjson.Dict, k string) {
	for i, kk := range d.Keys {
		if kk == k {
			d.Keys = append(d.Keys[:i], d.Keys[i+1:]...)
			d.Values = append(d.Values[:i], d.Values[i+1:]...)
			return
		}
	}
}

func requestTemporaryLimit(_ context.Context, e *Env, a dargs) (string, error) {
	cid, lt, nlArg := a.get("card_id"), a.get("limit_type"), a.get("new_limit")
	if !truthy(cid) {
		return "Error: Missing required parameter: card_id.", nil
	}
	if !truthy(lt) {
		return "Error: Missing required parameter: limit_type.", nil
	}
	if !oneOf(lt, "atm", "purchase") {
		return fmt.Sprintf("Error: Invalid limit_type '%s'. Must be 'atm' or 'purchase'.", str(lt)), nil
	}
	if nlArg == nil {
		return "Error: Missing required parameter: new_limit.", nil
	}
	f, err := toFloat(nlArg)
	if err != nil {
		return fmt.Sprintf("Error: new_limit must be an integer, got '%s'.", str(nlArg)), nil
	}
	if f != float64(int64(f)) {
		return fmt.Sprintf("Error: new_limit must be an integer, got '%s'.", str(f)), nil
	}
	newLimit := int64(f)
	if newLimit <= 0 {
		return "Error: new_limit must be a positive amount.", nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return fmt.Sprintf("Error: Debit card '%s' not found.", str(cid)), nil
	}
	if !eq(field(card, "status", nil), "ACTIVE") {
		return fmt.Sprintf("Error: Debit card '%s' is not active. Current status: %s. Only ACTIVE cards can have limit increases.", str(cid), str(field(card, "status", nil))), nil
	}
	aid := field(card, "account_id", nil)
	acc, ok, err := e.rec(tAccounts, aid)
	if err != nil {
		return "", err
	}
	if !truthy(aid) || !ok {
		return fmt.Sprintf("Error: Could not find linked account for debit card '%s'.", str(cid)), nil
	}
	if !eq(field(acc, "status", nil), "OPEN") {
		return fmt.Sprintf("Error: The linked account '%s' is not in good standing. Account status: %s.", str(aid), str(field(acc, "status", nil))), nil
	}
	if opened := field(acc, "date_opened", nil); truthy(opened) {
		t, err := strptime(opened, fmtMDY)
		switch {
		case err == nil:
			if age := daysBetween(todayTime, t); age < 60 {
				return fmt.Sprintf("Error: Account must be at least 60 days old for a temporary limit increase. Account age: %d days.", age), nil
			}
		case !isValueError(err):
			return "", err
		}
	}
	var current any
	limitField, limitName := "daily_purchase_limit", "Daily Purchase Limit"
	if eq(lt, "atm") {
		limitField, limitName = "daily_atm_limit", "Daily ATM Withdrawal Limit"
		current = field(card, limitField, nil)
		if current == nil {
			level, err := strArg(field(acc, "level", ""), "lower")
			if err != nil {
				return "", err
			}
			level = pyjson.Lower(level)
			if strings.Contains(level, "light green") {
				return "Error: Light Green Account (teen checking) cards have policy-based limits that cannot be modified. The daily ATM withdrawal limit of $150 is fixed by account policy for safety reasons. The customer may request the parent/guardian to withdraw cash from their own account if needed.", nil
			}
			if v, ok := e.d.src.defaultATMLimits.Get(level); ok {
				current = v
			}
			if current == nil {
				return fmt.Sprintf("Error: Could not determine the default ATM limit for account type '%s'. Please verify the account type.", str(field(acc, "level", nil))), nil
			}
		}
	} else {
		current = field(card, limitField, nil)
	}
	if current == nil {
		return fmt.Sprintf("Error: The card does not have a %s configured. This may be a restricted account type where limits are set by account policy and cannot be modified.", pyjson.Lower(limitName)), nil
	}
	cur, _, ok := number(current)
	if !ok {
		return "", typeErr("can't multiply sequence by non-int of type 'float'")
	}
	maxAllowed := int64(cur * 1.5)
	if newLimit > maxAllowed {
		return fmt.Sprintf("Error: Requested limit $%d exceeds the maximum allowed temporary increase. Maximum temporary limit is $%d (150%% of current $%s limit).", newLimit, maxAllowed, str(current)), nil
	}
	if float64(newLimit) <= cur {
		return fmt.Sprintf("Error: Requested limit $%d is not higher than the current limit of $%s.", newLimit, str(current)), nil
	}
	cardM, _, _ := e.mutRecord(tDebitCards, cid)
	ltS := lt.(string)
	cardM.Set(limitField, int(newLimit))
	cardM.Set("temporary_"+ltS+"_limit_increase", true)
	cardM.Set("original_"+ltS+"_limit", current)
	cardM.Set("temporary_"+ltS+"_limit_expires", today)
	return strings.Join([]string{
		"Temporary " + limitName + " Increase Granted Successfully",
		"Card ID: " + str(cid),
		"Previous Limit: $" + str(current),
		"New Temporary Limit: $" + strconv.FormatInt(newLimit, 10),
		"Increase Amount: $" + subInt(newLimit, current),
		"",
		"Important Information:",
		"- This temporary increase expires in 24 hours",
		"- After expiration, the limit will revert to $" + str(current),
		"- Only one temporary increase is allowed per 24-hour period",
		"",
		"Note: If the customer is at a third-party (non-Rho-Bank) ATM, that ATM may have its own",
		"per-transaction or daily limits that Rho-Bank cannot override. The customer may need to",
		"use a Rho-Bank ATM or make multiple smaller withdrawals at third-party ATMs.",
	}, "\n"), nil
}

// subInt is str(n - v) for an int n and a number v.
func subInt(n int64, v any) string {
	f, isInt, _ := number(v)
	if isInt {
		return strconv.FormatInt(n-int64(f), 10)
	}
	return str(float64(n) - f)
}
