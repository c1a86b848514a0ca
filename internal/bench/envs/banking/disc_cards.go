package banking

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// The agent's debit card tools (ordering, activation, closing, freezing,
// PINs, limits).

func orderDebitCard(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.order_debit_card_5739"]
	aid, uid, opt, design, addr := a.get("account_id"), a.get("user_id"), a.get("delivery_option"), a.get("card_design"), a.get("shipping_address")
	excessArg := a.get("excess_replacement_fee")
	if !truthy(excessArg) {
		excessArg = 0
	}
	var deliveryFee, designFee *float64
	if v := a.get("delivery_fee"); v != nil {
		f, err := toFloat(v)
		if err != nil {
			return tx.s(1), nil
		}
		deliveryFee = &f
	}
	if v := a.get("design_fee"); v != nil {
		f, err := toFloat(v)
		if err != nil {
			return tx.s(2), nil
		}
		designFee = &f
	}
	var excess any = 0
	if f, err := toFloat(excessArg); err == nil {
		excess = f
	}
	if a.missing("account_id", "user_id", "delivery_option") || a.none("delivery_fee") || a.missing("card_design") || a.none("design_fee") || a.missing("shipping_address") {
		return tx.s(3), nil
	}
	optS, err := strArg(opt, "upper")
	if err != nil {
		return "", err
	}
	valid := []string{"STANDARD", "EXPEDITED", "RUSH"}
	if !slices.Contains(valid, strings.ToUpper(optS)) {
		return tx.f(7, pyList(valid)), nil
	}
	optS = strings.ToUpper(optS)
	designS, err := strArg(design, "upper")
	if err != nil {
		return "", err
	}
	designs := []string{"CLASSIC", "PREMIUM", "CUSTOM"}
	if !slices.Contains(designs, strings.ToUpper(designS)) {
		return tx.f(11, pyList(designs)), nil
	}
	designS = strings.ToUpper(designS)
	acc, ok, err := e.rec(tAccounts, aid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(12, str(aid)), nil
	}
	if !eq(field(acc, "class", nil), "checking") {
		return tx.f(15, str(aid), str(field(acc, "class", nil))), nil
	}
	if !eq(field(acc, "status", nil), "OPEN") {
		return tx.f(18, str(aid), str(field(acc, "status", nil))), nil
	}
	if !eq(field(acc, "user_id", nil), uid) {
		return tx.f(20, str(aid), str(uid)), nil
	}
	holdings, err := toFloat(strings.ReplaceAll(str(field(acc, "current_holdings", "0")), ",", ""))
	if err != nil {
		if !isValueError(err) {
			return "", err
		}
		holdings = 0
	}
	if holdings < 25.0 {
		return tx.f(25, mustFixed(holdings, 2)), nil
	}
	for _, o := range e.db.tables[tDebitCardOrders].All() {
		if eq(field(o, "account_id", nil), aid) && eq(field(o, "status", nil), "PENDING") {
			return tx.f(29, str(aid)), nil
		}
	}
	active := 0
	for _, c := range e.db.tables[tDebitCards].All() {
		if eq(field(c, "account_id", nil), aid) && eq(field(c, "status", nil), "ACTIVE") {
			active++
		}
	}
	if active >= 1 {
		return tx.f(33, str(aid)), nil
	}
	excessF, _, _ := number(excess)
	total := *deliveryFee + *designFee + excessF
	if total > 0 && holdings < total {
		return tx.f(34, mustFixed(total, 2), mustFixed(holdings, 2)), nil
	}
	expected := map[string]string{"STANDARD": tx.s(36), "EXPEDITED": tx.s(38), "RUSH": tx.s(40)}[optS]
	orderID := "dcord_" + deterministicID("debit_card_order:"+str(aid)+":"+str(uid)+":"+optS, 12)
	rec := dict("order_id", orderID, "account_id", aid, "user_id", uid, "delivery_option", optS, "card_design", designS,
		"shipping_address", addr, "delivery_fee", *deliveryFee, "design_fee", *designFee, "excess_replacement_fee", excess,
		"total_fee", total, "order_date", today, "expected_delivery", expected, "status", "PENDING")
	if !e.add(tDebitCardOrders, orderID, rec) {
		return tx.s(56), nil
	}
	if total > 0 {
		accM, _, _ := e.mutRecord(tAccounts, aid)
		accM.Set("current_holdings", mustFixed(holdings-total, 2))
		var desc []string
		if *deliveryFee > 0 {
			desc = append(desc, tx.f(59, str(*deliveryFee)))
		}
		if *designFee > 0 {
			desc = append(desc, tx.f(60, str(*designFee)))
		}
		if excessF > 0 {
			desc = append(desc, tx.f(61, mustFixed(excessF, 0)))
		}
		feeID := "btxn_dcfee_" + orderID[len(orderID)-8:]
		e.add(tBankTransactions, feeID, dict("transaction_id", feeID, "account_id", aid, "date", today,
			"description", tx.f(62, strings.Join(desc, ", ")), "amount", -total,
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
		tx.s(123),
		tx.f(124, orderID),
		tx.f(125, cardID),
		tx.f(126, str(aid)),
		tx.f(127, optS),
		tx.f(128, designS),
		tx.f(129, str(addr)),
		tx.f(130, expected),
		"",
		tx.s(132),
	}
	if total > 0 {
		var details []string
		if *deliveryFee > 0 {
			details = append(details, tx.f(133, str(*deliveryFee)))
		}
		if *designFee > 0 {
			details = append(details, tx.f(134, str(*designFee)))
		}
		if excessF > 0 {
			details = append(details, tx.f(135, mustFixed(excessF, 0)))
		}
		parts = append(parts,
			tx.f(136, mustFixed(total, 2), strings.Join(details, ", "), str(aid)),
			tx.f(137, mustFixed(holdings-total, 2)))
	} else {
		parts = append(parts, tx.s(138))
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

// validatePIN is _validate_pin ("" when valid), tx its literals.
func validatePIN(tx lits, pin any) (string, error) {
	if !truthy(pin) {
		return tx.s(1), nil
	}
	s, err := strArg(pin, "isdigit")
	if err != nil {
		return "", err
	}
	if !isDigit(s) || strLen(s) != 4 {
		return tx.s(1), nil
	}
	if slices.Contains([]string{"0123", "1234", "2345", "3456", "4567", "5678", "6789", "9876", "8765", "7654", "6543", "5432", "4321", "3210"}, s) {
		return tx.s(16), nil
	}
	first := []rune(s)[0]
	same := true
	for _, r := range s {
		if r != first {
			same = false
		}
	}
	if same {
		return tx.s(17), nil
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
	tx := e.d.src.texts["_validate_activation_common"]
	cid, last4, cvv, pin := a.get("card_id"), a.get("last_4_digits"), a.get("cvv"), a.get("pin")
	if a.missing("card_id", "last_4_digits", "expiration_date", "cvv", "pin") {
		return tx.s(7), "", nil
	}
	msg, err := validatePIN(e.d.src.texts["_validate_pin"], pin)
	if err != nil {
		return "", "", err
	}
	if msg != "" {
		return tx.f(8, msg), "", nil
	}
	if ok, err := digits(cvv, 3); err != nil {
		return "", "", err
	} else if !ok {
		return tx.s(9), "", nil
	}
	if ok, err := digits(last4, 4); err != nil {
		return "", "", err
	} else if !ok {
		return tx.s(10), "", nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", "", err
	}
	if !ok {
		return tx.f(11, str(cid)), "", nil
	}
	reason := field(card, "issue_reason", "new_account")
	if !oneOf(reason, act.allowed...) {
		correct := "unknown"
		if s, ok := reason.(string); ok {
			if t, ok := reasonTool[s]; ok {
				correct = t
			}
		}
		return tx.f(33, str(reason), correct, act.name), "", nil
	}
	if eq(field(card, "status", nil), "ACTIVE") {
		return tx.f(36, str(cid)), "", nil
	}
	if !eq(field(card, "status", nil), "PENDING") {
		return tx.f(39, str(cid), str(field(card, "status", nil))), "", nil
	}
	if !eq(field(card, "last_4_digits", nil), last4) {
		return tx.s(41), "", nil
	}
	if acc := field(card, "account_id", nil); truthy(acc) {
		if ar, ok, err := e.rec(tAccounts, acc); err != nil {
			return "", "", err
		} else if ok && !eq(field(ar, "status", nil), "OPEN") {
			return tx.f(45, str(acc)), "", nil
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
			tx := e.d.src.texts["KnowledgeTools.activate_debit_card_8291"]
			var off []string
			for _, id := range e.otherActive(cardID, field(card, "account_id", nil)) {
				c, _ := e.db.tables[tDebitCards].Mut(id)
				c.Set("status", "DEACTIVATED")
				c.Set("deactivated_date", today)
				c.Set("deactivation_reason", tx.s(20))
				off = append(off, id)
			}
			parts := []string{tx.s(21), tx.f(22, cardID), tx.s(23), tx.f(24, today), "",
				tx.s(26), tx.s(27)}
			if len(off) > 0 {
				parts = append(parts, tx.f(28, strings.Join(off, ", ")))
			}
			return parts
		}}
	activateReplacement = activation{name: "activate_debit_card_8292", allowed: []string{"lost", "stolen", "fraud"},
		apply: func(e *Env, cardID string, card *pyjson.Dict) []string {
			tx := e.d.src.texts["KnowledgeTools.activate_debit_card_8292"]
			reason := str(field(card, "issue_reason", "lost"))
			var off []string
			for _, id := range e.otherActive(cardID, field(card, "account_id", nil)) {
				c, _ := e.db.tables[tDebitCards].Mut(id)
				c.Set("status", "DEACTIVATED")
				c.Set("deactivated_date", today)
				c.Set("deactivation_reason", tx.f(23, reason))
				off = append(off, id)
			}
			rd, _ := display(reason)
			parts := []string{tx.s(24), tx.f(25, cardID), tx.f(26, rd), tx.s(27),
				tx.f(28, today), "", tx.s(30), "", tx.s(32),
				tx.s(33), tx.s(34)}
			if reason == "fraud" {
				parts = append(parts, tx.s(36))
			}
			if len(off) > 0 {
				parts = append(parts, tx.f(37, strings.Join(off, ", ")))
			}
			return parts
		}}
	activateReissued = activation{name: "activate_debit_card_8293", allowed: []string{"expired", "damaged", "upgrade", "bank_reissue"},
		apply: func(e *Env, cardID string, card *pyjson.Dict) []string {
			tx := e.d.src.texts["KnowledgeTools.activate_debit_card_8293"]
			reason := str(field(card, "issue_reason", "expired"))
			var grace []string
			for _, id := range e.otherActive(cardID, field(card, "account_id", nil)) {
				c, _ := e.db.tables[tDebitCards].Mut(id)
				c.Set("status", "GRACE_PERIOD")
				c.Set("grace_period_ends", today)
				c.Set("deactivation_reason", tx.f(24, reason))
				grace = append(grace, id)
			}
			rd, _ := display(reason)
			parts := []string{tx.s(25), tx.f(26, cardID), tx.f(27, rd), tx.s(28),
				tx.f(29, today), "", tx.s(31)}
			if len(grace) > 0 {
				parts = append(parts, tx.f(32, strings.Join(grace, ", ")),
					tx.s(33))
			}
			if reason == "expired" || reason == "bank_reissue" {
				parts = append(parts, tx.s(36))
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
	tx := e.d.src.texts["KnowledgeTools.close_debit_card_4721"]
	cid, reasonArg := a.get("card_id"), a.get("reason")
	if a.missing("card_id", "reason") {
		return tx.s(1), nil
	}
	r, err := strArg(reasonArg, "lower")
	if err != nil {
		return "", err
	}
	valid := []string{"lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed", "account_closing"}
	reason := pyjson.Lower(r)
	if !slices.Contains(valid, reason) {
		return tx.f(8, pyList(valid)), nil
	}
	card, ok, err := e.mutRecord(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(9, str(cid)), nil
	}
	prev := field(card, "status", nil)
	if !oneOf(prev, "ACTIVE", "PENDING") {
		return tx.f(13, str(cid), str(prev)), nil
	}
	card.Set("status", "CLOSED")
	card.Set("closed_date", today)
	card.Set("closure_reason", reason)
	rd, _ := display(reason)
	parts := []string{tx.s(19), tx.f(20, str(cid)), tx.f(21, str(prev)), tx.s(22),
		tx.f(23, rd), tx.f(24, today), ""}
	if reason == "lost" || reason == "stolen" || reason == "fraud_suspected" {
		parts = append(parts, tx.s(29), tx.s(30))
		if reason == "fraud_suspected" {
			parts = append(parts, tx.s(32),
				tx.s(33))
		}
	}
	parts = append(parts, "",
		tx.s(35),
		tx.s(36))
	return strings.Join(parts, "\n"), nil
}

func freezeDebitCard(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.freeze_debit_card_3892"]
	cid := a.get("card_id")
	if a.missing("card_id") {
		return tx.s(1), nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(2, str(cid)), nil
	}
	st := field(card, "status", nil)
	if eq(st, "FROZEN") {
		return tx.f(5, str(cid)), nil
	}
	if !eq(st, "ACTIVE") {
		return tx.f(8, str(cid), str(st)), nil
	}
	card, _, _ = e.mutRecord(tDebitCards, cid)
	card.Set("status", "FROZEN")
	card.Set("frozen_date", today)
	return strings.Join([]string{tx.s(12), tx.f(13, str(cid)), tx.s(14), tx.f(15, today), "",
		tx.s(17), tx.s(18), tx.s(19),
		tx.s(20), "",
		tx.s(22),
		tx.s(23)}, "\n"), nil
}

func unfreezeDebitCard(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.unfreeze_debit_card_3893"]
	cid := a.get("card_id")
	if a.missing("card_id") {
		return tx.s(1), nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(2, str(cid)), nil
	}
	st := field(card, "status", nil)
	if eq(st, "ACTIVE") {
		return tx.f(5, str(cid)), nil
	}
	if !eq(st, "FROZEN") {
		return tx.f(8, str(cid), str(st)), nil
	}
	if acc := field(card, "account_id", nil); truthy(acc) {
		if ar, ok, err := e.rec(tAccounts, acc); err != nil {
			return "", err
		} else if ok && !eq(field(ar, "status", nil), "OPEN") {
			return tx.f(12, str(acc)), nil
		}
	}
	card, _, _ = e.mutRecord(tDebitCards, cid)
	card.Set("status", "ACTIVE")
	card.Set("unfrozen_date", today)
	return strings.Join([]string{tx.s(16), tx.f(17, str(cid)), tx.s(18), tx.f(19, today), "",
		tx.s(21), tx.s(22)}, "\n"), nil
}

func clearFraudAlert(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.clear_debit_card_fraud_alert_4892"]
	cid, reason := a.get("card_id"), a.get("reason")
	if a.missing("card_id") {
		return tx.s(1), nil
	}
	if a.missing("reason") {
		return tx.s(2), nil
	}
	valid := []string{"customer_verified", "velocity_clear"}
	if !oneOf(reason, valid...) {
		return tx.f(5, str(reason), strings.Join(valid, ", ")), nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(6, str(cid)), nil
	}
	if eq(reason, "velocity_clear") {
		if !truthy(field(card, "velocity_blocked", false)) {
			return tx.f(9, str(cid)), nil
		}
		card, _, _ = e.mutRecord(tDebitCards, cid)
		card.Set("velocity_blocked", false)
		card.Set("velocity_cleared_date", today)
		return strings.Join([]string{tx.s(12), tx.f(13, str(cid)), tx.f(14, today), "",
			tx.s(16),
			tx.s(17),
			tx.s(18)}, "\n"), nil
	}
	if !truthy(field(card, "fraud_alert_active", false)) {
		return tx.f(22, str(cid)), nil
	}
	if eq(field(card, "alert_source", nil), "bank_initiated") {
		return tx.s(25), nil
	}
	card, _, _ = e.mutRecord(tDebitCards, cid)
	card.Set("fraud_alert_active", false)
	card.Set("alert_source", nil)
	card.Set("fraud_alert_cleared_date", today)
	return strings.Join([]string{tx.s(29), tx.f(13, str(cid)), tx.f(14, today), "",
		tx.s(33), tx.s(34), "",
		tx.s(36)}, "\n"), nil
}

func resetPIN(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.reset_debit_card_pin_6284"]
	cid, last4, pin := a.get("card_id"), a.get("last_4_digits"), a.get("new_pin")
	if a.missing("card_id", "last_4_digits", "new_pin") {
		return tx.s(1), nil
	}
	if ok, err := digits(last4, 4); err != nil {
		return "", err
	} else if !ok {
		return tx.s(2), nil
	}
	msg, err := validatePIN(e.d.src.texts["_validate_pin"], pin)
	if err != nil {
		return "", err
	}
	if msg != "" {
		return tx.f(3, msg), nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(4, str(cid)), nil
	}
	if !eq(field(card, "last_4_digits", nil), last4) {
		return tx.s(6), nil
	}
	if !eq(field(card, "status", nil), "ACTIVE") {
		return tx.f(9, str(field(card, "status", nil))), nil
	}
	card, _, _ = e.mutRecord(tDebitCards, cid)
	card.Set("pin_last_changed", today)
	card.Set("pin_locked", false)
	card.Set("pin_attempts_remaining", 3)
	return strings.Join([]string{tx.s(13), tx.f(14, str(cid)), tx.f(15, today), "",
		tx.s(17), tx.s(18),
		tx.s(19), "",
		tx.s(21)}, "\n"), nil
}

func changePIN(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.change_debit_card_pin_6285"]
	cid, cur, pin := a.get("card_id"), a.get("current_pin"), a.get("new_pin")
	if a.missing("card_id", "current_pin", "new_pin") {
		return tx.s(1), nil
	}
	if ok, err := digits(cur, 4); err != nil {
		return "", err
	} else if !ok {
		return tx.s(2), nil
	}
	msg, err := validatePIN(e.d.src.texts["_validate_pin"], pin)
	if err != nil {
		return "", err
	}
	if msg != "" {
		return tx.f(3, msg), nil
	}
	if eq(cur, pin) {
		return tx.s(4), nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(5, str(cid)), nil
	}
	if !eq(field(card, "status", nil), "ACTIVE") {
		return tx.f(8, str(field(card, "status", nil))), nil
	}
	card, _, _ = e.mutRecord(tDebitCards, cid)
	card.Set("pin_last_changed", today)
	return strings.Join([]string{tx.s(10), tx.f(11, str(cid)), tx.f(12, today), "",
		tx.s(14),
		tx.s(15), "",
		tx.s(17)}, "\n"), nil
}

func getDebitCardsByAccount(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.get_debit_cards_by_account_id_7823"]
	aid := a.get("account_id")
	if a.missing("account_id") {
		return tx.s(1), nil
	}
	acc, ok, err := e.rec(tAccounts, aid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(2, str(aid)), nil
	}
	class, err := strArg(field(acc, "class", ""), "lower")
	if err != nil {
		return "", err
	}
	if c := pyjson.Lower(class); c != "checking" && c != "business_checking" {
		return tx.f(7, str(aid)), nil
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
		return tx.f(22, str(aid)), nil
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
	tx := e.d.src.texts["KnowledgeTools.request_temporary_debit_card_limit_increase_8374"]
	cid, lt, nlArg := a.get("card_id"), a.get("limit_type"), a.get("new_limit")
	if a.missing("card_id") {
		return tx.s(1), nil
	}
	if a.missing("limit_type") {
		return tx.s(2), nil
	}
	if !oneOf(lt, "atm", "purchase") {
		return tx.f(5, str(lt)), nil
	}
	if a.none("new_limit") {
		return tx.s(6), nil
	}
	f, err := toFloat(nlArg)
	if err != nil {
		return tx.f(7, str(nlArg)), nil
	}
	if f != float64(int64(f)) {
		return tx.f(7, str(f)), nil
	}
	newLimit := int64(f)
	if newLimit <= 0 {
		return tx.s(9), nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(10, str(cid)), nil
	}
	if !eq(field(card, "status", nil), "ACTIVE") {
		return tx.f(13, str(cid), str(field(card, "status", nil))), nil
	}
	aid := field(card, "account_id", nil)
	acc, ok, err := e.rec(tAccounts, aid)
	if err != nil {
		return "", err
	}
	if !truthy(aid) || !ok {
		return tx.f(15, str(cid)), nil
	}
	if !eq(field(acc, "status", nil), "OPEN") {
		return tx.f(18, str(aid), str(field(acc, "status", nil))), nil
	}
	if opened := field(acc, "date_opened", nil); truthy(opened) {
		t, err := strptime(opened, fmtMDY)
		switch {
		case err == nil:
			if age := daysBetween(todayTime, t); age < 60 {
				return tx.f(22, age), nil
			}
		case !isValueError(err):
			return "", err
		}
	}
	var current any
	limitField, limitName := "daily_purchase_limit", tx.s(43)
	if eq(lt, "atm") {
		limitField, limitName = "daily_atm_limit", tx.s(26)
		current = field(card, limitField, nil)
		if current == nil {
			level, err := strArg(field(acc, "level", ""), "lower")
			if err != nil {
				return "", err
			}
			level = pyjson.Lower(level)
			if strings.Contains(level, tx.s(38)) {
				return tx.s(39), nil
			}
			if v, ok := e.d.src.defaultATMLimits.Get(level); ok {
				current = v
			}
			if current == nil {
				return tx.f(40, str(field(acc, "level", nil))), nil
			}
		}
	} else {
		current = field(card, limitField, nil)
	}
	if current == nil {
		return tx.f(44, pyjson.Lower(limitName)), nil
	}
	cur, _, ok := number(current)
	if !ok {
		return "", typeErr("can't multiply sequence by non-int of type 'float'")
	}
	maxAllowed := int64(cur * 1.5)
	if newLimit > maxAllowed {
		return tx.f(45, newLimit, maxAllowed, str(current)), nil
	}
	if float64(newLimit) <= cur {
		return tx.f(46, newLimit, str(current)), nil
	}
	cardM, _, _ := e.mutRecord(tDebitCards, cid)
	ltS := lt.(string)
	cardM.Set(limitField, int(newLimit))
	cardM.Set("temporary_"+ltS+"_limit_increase", true)
	cardM.Set("original_"+ltS+"_limit", current)
	cardM.Set("temporary_"+ltS+"_limit_expires", today)
	return strings.Join([]string{
		tx.f(50, limitName),
		tx.f(51, str(cid)),
		tx.f(52, str(current)),
		tx.f(53, strconv.FormatInt(newLimit, 10)),
		tx.f(54, subInt(newLimit, current)),
		"",
		tx.s(56),
		tx.s(57),
		tx.f(58, str(current)),
		tx.s(59),
		"",
		tx.s(61),
		tx.s(62),
		tx.s(63),
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
