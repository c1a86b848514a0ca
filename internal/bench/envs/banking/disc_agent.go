package banking

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyops"
)

// The agent's discoverable tools (KnowledgeTools' @is_discoverable_tool
// methods), in upstream's order. Kinds, signatures and descriptions are
// read from the pulled source (dset.bindSource); the behaviour is here.

func agentDiscoverable() *dset {
	t := func(name string, run func(ctx context.Context, e *Env, a dargs) (string, error)) *dtool {
		return &dtool{name: name, run: run}
	}
	return &dset{class: agentClass, tools: []*dtool{
		t("example_agent_tool_0000", fixedReply("example_agent_tool_0000")),
		t("update_transaction_rewards_3847", updateTransactionRewards),
		t("initial_transfer_to_human_agent_0218", fixedReply("initial_transfer_to_human_agent_0218")),
		t("initial_transfer_to_human_agent_1822", fixedReply("initial_transfer_to_human_agent_1822")),
		t("emergency_credit_bureau_incident_transfer_1114", fixedReply("emergency_credit_bureau_incident_transfer_1114")),
		t("file_credit_card_transaction_dispute_4829", fileCreditCardDispute),
		t("file_debit_card_transaction_dispute_6281", fileDebitCardDispute),
		t("set_debit_card_recurring_block_7382", setRecurringBlock),
		t("get_debit_dispute_status_7483", getDebitDisputeStatus),
		t("get_atm_deposit_images_8473", getATMDepositImages),
		t("order_replacement_credit_card_7291", orderReplacementCreditCard),
		t("get_user_dispute_history_7291", getUserDisputeHistory),
		t("get_pending_replacement_orders_5765", getPendingReplacementOrders),
		t("log_credit_card_closure_reason_4521", logClosureReason),
		t("get_closure_reason_history_8293", getClosureReasonHistory),
		t("apply_statement_credit_8472", applyStatementCredit),
		t("apply_credit_card_account_flag_6147", applyAccountFlag),
		t("close_credit_card_account_7834", closeCreditCardAccount),
		t("pay_credit_card_from_checking_9182", payCreditCardFromChecking),
		t("submit_credit_limit_increase_request_7392", submitCreditLimitIncrease),
		t("get_credit_limit_increase_history_4829", getCreditLimitHistory),
		t("get_payment_history_6183", getPaymentHistory),
		t("approve_credit_limit_increase_5847", approveCreditLimitIncrease),
		t("deny_credit_limit_increase_5848", denyCreditLimitIncrease),
		t("open_bank_account_4821", openBankAccount),
		t("close_bank_account_7392", closeBankAccount),
		t("get_all_user_accounts_by_user_id_3847", getAllUserAccounts),
		t("transfer_funds_between_bank_accounts_7291", transferFunds),
		t("apply_checking_account_credit_5829", applyCheckingCredit),
		t("apply_savings_account_credit_6831", applySavingsCredit),
		t("submit_interest_discrepancy_report_7294", submitInterestReport),
		t("get_bank_account_transactions_9173", getBankTransactions),
		t("order_debit_card_5739", orderDebitCard),
		t("activate_debit_card_8291", activateDebitCard(activateNew)),
		t("activate_debit_card_8292", activateDebitCard(activateReplacement)),
		t("activate_debit_card_8293", activateDebitCard(activateReissued)),
		t("close_debit_card_4721", closeDebitCard),
		t("freeze_debit_card_3892", freezeDebitCard),
		t("unfreeze_debit_card_3893", unfreezeDebitCard),
		t("clear_debit_card_fraud_alert_4892", clearFraudAlert),
		t("reset_debit_card_pin_6284", resetPIN),
		t("change_debit_card_pin_6285", changePIN),
		t("get_debit_cards_by_account_id_7823", getDebitCardsByAccount),
		t("request_temporary_debit_card_limit_increase_8374", requestTemporaryLimit),
	}}
}

// --- helpers: Python operations on argument values ---

// strArg is a value used as a str (a str method called on it): its text,
// or the AttributeError for another type.
func strArg(v any, method string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", pyops.AttributeError(v, method)
	}
	return s, nil
}

// display is v.replace('_', ' ').title().
func display(v any) (string, error) {
	s, err := strArg(v, "replace")
	if err != nil {
		return "", err
	}
	return title(strings.ReplaceAll(s, "_", " ")), nil
}

// oneOf is `v in list`.
func oneOf(v any, list ...string) bool {
	for _, s := range list {
		if eq(v, s) {
			return true
		}
	}
	return false
}

// recordKey is the key `x in table.data` looks up: a str, or no key for
// another hashable value; an unhashable one raises TypeError.
func recordKey(id any) (string, bool, error) {
	k, ok, err := pyjson.DictKey(id)
	if err != nil {
		return "", false, typeErr("%s", err.Error())
	}
	return k, ok, nil
}

// rec is table.data[id] when present.
func (e *Env) rec(t tableID, id any) (*pyjson.Dict, bool, error) {
	k, ok, err := recordKey(id)
	if err != nil || !ok {
		return nil, false, err
	}
	r, ok := e.db.tables[t].Get(k)
	return r, ok, nil
}

// mutRecord is table.data[id] when present, owned by this state so it may
// change.
func (e *Env) mutRecord(t tableID, id any) (*pyjson.Dict, bool, error) {
	k, ok, err := recordKey(id)
	if err != nil || !ok {
		return nil, false, err
	}
	r, ok := e.db.tables[t].Mut(k)
	return r, ok, nil
}

// add is add_to_db: false when the id exists.
func (e *Env) add(t tableID, id string, rec *pyjson.Dict) bool {
	tb := &e.db.tables[t]
	if tb.Has(id) {
		return false
	}
	tb.Add(id, rec)
	return true
}

// field is record.get(name, def).
func field(r *pyjson.Dict, name string, def any) any {
	if v, ok := r.Get(name); ok {
		return v
	}
	return def
}

// dict builds a record from alternating keys and values.
func dict(kv ...any) *pyjson.Dict {
	d := &pyjson.Dict{}
	for i := 0; i+1 < len(kv); i += 2 {
		d.Set(kv[i].(string), kv[i+1])
	}
	return d
}

// parseBalance is _parse_balance.
func parseBalance(v any) (float64, error) {
	if f, _, ok := number(v); ok {
		return f, nil
	}
	if s, ok := v.(string); ok {
		return toFloat(strings.ReplaceAll(strings.ReplaceAll(s, "$", ""), ",", ""))
	}
	return 0, nil
}

// accountBalance is _get_account_balance.
func accountBalance(acc *pyjson.Dict) (float64, error) {
	return parseBalance(field(acc, "current_holdings", field(acc, "balance", 0)))
}

// money parses a "$1,234.56" field: float(str(v).replace("$","").replace(",","")), def when that fails.
func money(v any, def float64) float64 {
	f, err := toFloat(strings.ReplaceAll(strings.ReplaceAll(str(v), "$", ""), ",", ""))
	if err != nil {
		return def
	}
	return f
}

// fixedReply is a tool that only answers its text (the example tool, the
// transfer protocol tools): the method's literal after its docstring.
func fixedReply(name string) func(context.Context, *Env, dargs) (string, error) {
	return func(_ context.Context, e *Env, _ dargs) (string, error) {
		return e.d.src.texts[agentClass+"."+name].s(1), nil
	}
}

// listing is the shape of the history tools: a header, then the query
// text, or a line saying there is none.
func listing(head []string, result, none string) string {
	if notFound(result) {
		head = append(head, none)
	} else {
		head = append(head, result)
	}
	return strings.Join(head, "\n")
}

// --- the tools ---

func updateTransactionRewards(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.update_transaction_rewards_3847"]
	tid, nre := a.get("transaction_id"), a.get("new_rewards_earned")
	if a.missing("transaction_id", "new_rewards_earned") {
		return tx.s(1), nil
	}
	r, ok, err := e.mutRecord(tCreditCardTransactions, tid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(4, str(tid)), nil
	}
	r.Set("rewards_earned", nre)
	return tx.executed(5,
		dict("transaction_id", tid, "new_rewards_earned", nre), str(tid), str(nre)), nil
}

func disputeID(userID, txnID any) string {
	return "dsp_" + deterministicID("dispute:"+str(userID)+":"+str(txnID), 12)
}

var (
	ccCardActions = []string{"keep_active", "cancel_and_reissue"}
	ccReasons     = []string{"unauthorized_fraudulent_charge", "duplicate_charge", "incorrect_amount", "goods_services_not_received", "goods_services_not_as_described", "canceled_subscription_still_charging", "refund_never_processed"}
	ccResolutions = []string{"full_refund", "partial_refund"}
)

func fileCreditCardDispute(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.file_credit_card_transaction_dispute_4829"]
	tid, uid := a.get("transaction_id"), a.get("user_id")
	if a.missing("transaction_id", "user_id") {
		return tx.s(1), nil
	}
	action, reason, resolution := a.get("card_action"), a.get("dispute_reason"), a.get("resolution_requested")
	if !oneOf(action, ccCardActions...) {
		return tx.f(4, pyList(ccCardActions)), nil
	}
	if !oneOf(reason, ccReasons...) {
		return tx.f(12, pyList(ccReasons)), nil
	}
	if !oneOf(resolution, ccResolutions...) {
		return tx.f(15, pyList(ccResolutions)), nil
	}
	partial := a.get("partial_refund_amount")
	if eq(resolution, "partial_refund") && partial == nil {
		return tx.s(17), nil
	}
	id := disputeID(uid, tid)
	eligible := a.get("eligible_for_provisional_credit")
	rec := dict("dispute_id", id, "transaction_id", tid, "user_id", uid, "card_action", action,
		"card_last_4_digits", a.get("card_last_4_digits"), "full_name", a.get("full_name"),
		"phone", a.get("phone"), "email", a.get("email"), "address", a.get("address"),
		"contacted_merchant", a.get("contacted_merchant"), "purchase_date", a.get("purchase_date"),
		"issue_noticed_date", a.get("issue_noticed_date"), "dispute_reason", reason,
		"resolution_requested", resolution, "partial_refund_amount", partial,
		"eligible_for_provisional_credit", eligible, "provisional_credit_given", eligible,
		"submitted_at", today, "status", "SUBMITTED")
	if !e.add(tTransactionDisputes, id, rec) {
		return tx.s(39), nil
	}
	rd, _ := display(reason)
	rs, _ := display(resolution)
	parts := []string{
		tx.s(40),
		"",
		tx.s(42),
		tx.f(43, id),
		tx.f(44, str(tid)),
		tx.f(45, rd),
		tx.f(46, rs),
	}
	if truthy(partial) {
		d, err := fixed(partial, 2)
		if err != nil {
			return "", err
		}
		parts = append(parts, tx.f(47, d))
	}
	if truthy(eligible) {
		parts = append(parts, tx.s(48))
	} else {
		parts = append(parts, tx.s(49))
	}
	return strings.Join(parts, "\n"), nil
}

var (
	dcCategories = []string{"unauthorized_transaction", "atm_cash_discrepancy", "atm_deposit_not_credited", "duplicate_charge", "incorrect_amount", "goods_services_not_received", "recurring_charge_after_cancellation", "card_present_fraud", "card_not_present_fraud"}
	dcTxnTypes   = []string{"pin_purchase", "signature_purchase", "online_purchase", "atm_withdrawal", "atm_deposit", "recurring_payment", "person_to_person"}
	dcPIN        = []string{"yes_shared", "yes_observed", "no", "unknown"}
	dcActions    = []string{"keep_active", "freeze_pending_investigation", "close_and_reissue"}
)

func fileDebitCardDispute(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.file_debit_card_transaction_dispute_6281"]
	if a.missing("transaction_id", "account_id", "card_id", "user_id", "dispute_category", "transaction_date", "discovery_date", "disputed_amount", "transaction_type", "pin_compromised", "card_action") {
		return tx.s(1), nil
	}
	if a.none("customer_max_liability_amount") {
		return tx.s(2), nil
	}
	if a.none("card_in_possession", "contacted_merchant", "police_report_filed", "written_statement_provided") {
		return tx.s(3), nil
	}
	cat, ttype, pin, action := a.get("dispute_category"), a.get("transaction_type"), a.get("pin_compromised"), a.get("card_action")
	if !oneOf(cat, dcCategories...) {
		return tx.f(13, pyList(dcCategories)), nil
	}
	if !oneOf(ttype, dcTxnTypes...) {
		return tx.f(21, pyList(dcTxnTypes)), nil
	}
	if !oneOf(pin, dcPIN...) {
		return tx.f(26, pyList(dcPIN)), nil
	}
	if !oneOf(action, dcActions...) {
		return tx.f(30, pyList(dcActions)), nil
	}
	amount := a.get("disputed_amount")
	nonPositive, err := compare(amount, 0, "<=")
	if err != nil {
		return "", err
	}
	if nonPositive {
		return tx.s(31), nil
	}
	tid, uid := a.get("transaction_id"), a.get("user_id")
	id := disputeID(uid, tid)
	fraud := oneOf(cat, "unauthorized_transaction", "card_present_fraud", "card_not_present_fraud")
	shared := eq(pin, "yes_shared")
	eligible := a.get("provisional_credit_eligible")
	var credit any
	if truthy(eligible) {
		credit = amount
	}
	police := a.get("police_report_filed")
	rec := dict("dispute_id", id, "transaction_id", tid, "account_id", a.get("account_id"), "card_id", a.get("card_id"),
		"user_id", uid, "dispute_category", cat, "transaction_date", a.get("transaction_date"),
		"discovery_date", a.get("discovery_date"), "disputed_amount", amount, "transaction_type", ttype,
		"card_in_possession", a.get("card_in_possession"), "pin_compromised", pin,
		"contacted_merchant", a.get("contacted_merchant"), "police_report_filed", police,
		"written_statement_provided", a.get("written_statement_provided"),
		"provisional_credit_eligible", eligible, "provisional_credit_issued", eligible,
		"provisional_credit_amount", credit, "customer_max_liability_amount", a.get("customer_max_liability_amount"),
		"card_action", action, "is_fraud_category", fraud, "pin_shared_voluntarily", shared,
		"submitted_at", today, "status", "OPEN")
	if !e.add(tDebitCardDisputes, id, rec) {
		return tx.s(62), nil
	}
	cd, _ := display(cat)
	ad, _ := display(action)
	amt, err := fixed(amount, 2)
	if err != nil {
		return "", err
	}
	parts := []string{
		tx.f(63, id),
		tx.f(64, str(tid)),
		tx.f(65, str(a.get("account_id"))),
		tx.f(66, cd),
		tx.f(67, amt),
		tx.f(68, ad),
	}
	if truthy(eligible) {
		parts = append(parts, tx.f(69, amt))
	} else {
		parts = append(parts, tx.s(70))
	}
	if shared {
		parts = append(parts, tx.s(71))
	}
	if fraud && !truthy(police) {
		over, err := compare(amount, 500, ">")
		if err != nil {
			return "", err
		}
		if over {
			parts = append(parts, tx.s(72))
		}
	}
	return strings.Join(parts, "\n"), nil
}

func setRecurringBlock(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.set_debit_card_recurring_block_7382"]
	cid := a.get("card_id")
	if a.missing("card_id") {
		return tx.s(1), nil
	}
	card, ok, err := e.rec(tDebitCards, cid)
	if err != nil {
		return "", err
	}
	if !ok || card.Len() == 0 {
		return tx.f(2, str(cid)), nil
	}
	st, err := strArg(field(card, "status", ""), "upper")
	if err != nil {
		return "", err
	}
	st = strings.ToUpper(st)
	if st != "ACTIVE" {
		return tx.f(6, st), nil
	}
	card, _, _ = e.mutRecord(tDebitCards, cid)
	block := a.get("block_recurring")
	card.Set("recurring_blocked", block)
	if truthy(block) {
		return tx.f(8, str(cid)), nil
	}
	return tx.f(9, str(cid)), nil
}

// history is the shape of the history tools: their first line, the tool's
// name, a heading, then the records found by one field or a line saying
// there are none.
func (e *Env) history(first, executed, table, field, none string, value any, head string) string {
	res := e.queryField(table, field, value)
	return listing([]string{first, "", executed, head}, res, none)
}

func getDebitDisputeStatus(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.get_debit_dispute_status_7483"]
	uid := a.get("user_id")
	if a.missing("user_id") {
		return tx.s(1), nil
	}
	return e.history(tx.s(4), tx.s(6), "debit_card_disputes", "user_id",
		tx.s(10), uid,
		tx.f(7, str(uid))), nil
}

func getUserDisputeHistory(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.get_user_dispute_history_7291"]
	uid := a.get("user_id")
	if a.missing("user_id") {
		return tx.s(1), nil
	}
	return e.history(tx.s(4), tx.s(6), "transaction_disputes", "user_id",
		tx.s(10), uid,
		tx.f(7, str(uid))), nil
}

func getPendingReplacementOrders(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.get_pending_replacement_orders_5765"]
	id := a.get("credit_card_account_id")
	if a.missing("credit_card_account_id") {
		return tx.s(1), nil
	}
	return e.history(tx.s(4), tx.s(6), "credit_card_orders", "credit_card_account_id",
		tx.s(10), id,
		tx.f(7, str(id))), nil
}

func getClosureReasonHistory(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.get_closure_reason_history_8293"]
	id := a.get("credit_card_account_id")
	if a.missing("credit_card_account_id") {
		return tx.s(1), nil
	}
	return e.history(tx.s(4), tx.s(6), "credit_card_closure_reasons", "credit_card_account_id",
		tx.s(10), id,
		tx.f(7, str(id))), nil
}

func getCreditLimitHistory(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.get_credit_limit_increase_history_4829"]
	id := a.get("credit_card_account_id")
	if a.missing("credit_card_account_id") {
		return tx.s(1), nil
	}
	return e.history(tx.s(4), tx.s(6), "credit_limit_increase_requests", "credit_card_account_id",
		tx.s(10), id,
		tx.f(7, str(id))), nil
}

func getATMDepositImages(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.get_atm_deposit_images_8473"]
	tid := a.get("transaction_id")
	if a.missing("transaction_id") {
		return tx.s(1), nil
	}
	txn, ok, err := e.rec(tBankTransactions, tid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(2, str(tid)), nil
	}
	if !eq(field(txn, "type", nil), "atm_deposit") {
		return tx.f(5, str(tid)), nil
	}
	desc := field(txn, "description", "")
	ds, err := strArg(desc, "upper")
	if err != nil {
		return "", err
	}
	up := strings.ToUpper(ds)
	if !strings.Contains(up, "RHO-BANK") && !strings.Contains(up, "RHOBANK") {
		return tx.f(10, str(tid)), nil
	}
	date := str(field(txn, "date", "Unknown"))
	if img, ok := e.d.src.depositImages[str(tid)]; ok && isStr(tid) {
		return tx.f(41,
			str(tid), img.atmID, date, img.envelope, img.notes), nil
	}
	amt, err := absFixed(field(txn, "amount", 0))
	if err != nil {
		return "", err
	}
	return tx.f(42, str(tid), ds, date, amt), nil
}

func isStr(v any) bool { _, ok := v.(string); return ok }

// absFixed is f"{abs(v):.2f}".
func absFixed(v any) (string, error) {
	f, _, ok := number(v)
	if !ok {
		return "", typeErr("bad operand type for abs(): '%s'", typeName(v))
	}
	return mustFixed(math.Abs(f), 2), nil
}

var replacementReasons = []string{"fraud_suspected", "lost", "stolen", "damaged", "expired", "other"}

// ccAccountMissing is the existence check several tools make through a
// query on account_id.
func (e *Env) ccAccountMissing(id any) bool {
	return notFound(e.queryField("credit_card_accounts", "account_id", id))
}

func orderReplacementCreditCard(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.order_replacement_credit_card_7291"]
	ccid, uid, addr, reason := a.get("credit_card_account_id"), a.get("user_id"), a.get("shipping_address"), a.get("reason")
	if a.missing("credit_card_account_id", "user_id", "shipping_address", "reason") {
		return tx.s(1), nil
	}
	if !oneOf(reason, replacementReasons...) {
		return tx.f(8, pyList(replacementReasons)), nil
	}
	if e.ccAccountMissing(ccid) {
		return tx.f(13, str(ccid)), nil
	}
	id := "ccord_" + deterministicID("credit_card_order:"+str(ccid)+":"+str(uid)+":"+str(reason), 12)
	exp := a.get("expedited_shipping")
	rec := dict("order_id", id, "credit_card_account_id", ccid, "user_id", uid, "shipping_address", addr,
		"reason", reason, "expedited_shipping", exp, "order_date", today, "status", "ORDERED", "old_card_cancelled", true)
	if !e.add(tCreditCardOrders, id, rec) {
		return tx.s(25), nil
	}
	if acc, ok, _ := e.mutRecord(tCreditCardAccounts, ccid); ok {
		acc.Set("status", "CLOSED")
		acc.Set("closed_date", today)
	}
	method, delivery := "Standard", tx.s(32)
	if truthy(exp) {
		method, delivery = "Expedited", tx.s(31)
	}
	rd, _ := display(reason)
	return strings.Join([]string{
		tx.f(33, id),
		tx.f(34, str(ccid)),
		tx.f(35, rd),
		tx.f(36, str(addr)),
		tx.f(37, method),
		tx.f(38, delivery),
		"",
		tx.s(40),
	}, "\n"), nil
}

var closureReasons = []string{"annual_fee", "not_using_card", "found_better_card", "unhappy_with_rewards", "simplifying_finances", "negative_experience", "other"}

func logClosureReason(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.log_credit_card_closure_reason_4521"]
	ccid, uid, reason := a.get("credit_card_account_id"), a.get("user_id"), a.get("closure_reason")
	if a.missing("credit_card_account_id", "user_id", "closure_reason") {
		return tx.s(1), nil
	}
	if !oneOf(reason, closureReasons...) {
		return tx.f(9, pyList(closureReasons)), nil
	}
	id := "clsr_" + deterministicID("closure_reason:"+str(ccid)+":"+str(uid), 12)
	e.add(tClosureReasons, id, dict("record_id", id, "credit_card_account_id", ccid, "user_id", uid,
		"closure_reason", reason, "logged_at", today, "status", "LOGGED"))
	return tx.executed(18,
		dict("credit_card_account_id", ccid, "user_id", uid, "closure_reason", reason), str(reason), str(ccid)), nil
}

var statementCreditReasons = []string{"goodwill_adjustment", "promotional_credit", "annual_fee_reversal", "late_fee_reversal", "interest_charge_reversal", "dispute_resolution", "price_match", "retention_offer", "error_correction", "other"}

// transactionID is generate_transaction_id (no date).
func transactionID(userID, cardType, merchant, amount, category any) (string, error) {
	amt, err := fixed(amount, 2)
	if err != nil {
		return "", err
	}
	seed, err := joinStr(":", "transaction", userID, cardType, merchant, amt, category)
	if err != nil {
		return "", err
	}
	return "txn_" + deterministicID(seed, 12), nil
}

// joinStr is sep.join(items): every item must be a str.
func joinStr(sep string, items ...any) (string, error) {
	parts := make([]string, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok {
			return "", typeErr("sequence item %d: expected str instance, %s found", i, typeName(it))
		}
		parts[i] = s
	}
	return strings.Join(parts, sep), nil
}

func applyStatementCredit(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.apply_statement_credit_8472"]
	uid, ccid, amount, reason := a.get("user_id"), a.get("credit_card_account_id"), a.get("amount"), a.get("reason")
	if a.missing("user_id", "credit_card_account_id", "reason") || a.none("amount") {
		return tx.s(1), nil
	}
	nonPositive, err := compare(amount, 0, "<=")
	if err != nil {
		return "", err
	}
	if nonPositive {
		return tx.s(2), nil
	}
	if !oneOf(reason, statementCreditReasons...) {
		return tx.f(13, pyList(statementCreditReasons)), nil
	}
	if e.ccAccountMissing(ccid) {
		return tx.f(18, str(ccid)), nil
	}
	tid, err := transactionID(uid, "STATEMENT_CREDIT", reason, amount, tx.s(20))
	if err != nil {
		return "", err
	}
	amt, _ := fixed(amount, 2)
	rec := dict("transaction_id", tid, "user_id", uid, "credit_card_account_id", ccid, "credit_card_type", "N/A",
		"merchant_name", tx.s(27), "transaction_amount", "-$"+amt, "transaction_date", today,
		"category", tx.s(20), "status", "COMPLETED", "rewards_earned", tx.s(36), "credit_reason", reason)
	if !e.add(tCreditCardTransactions, tid, rec) {
		return tx.f(39, tid), nil
	}
	rd, _ := display(reason)
	return tx.f(40,
		tid, str(uid), str(ccid), amt, rd, today), nil
}

var (
	flagTypes   = []string{"annual_fee_waived", "promotional_apr", "rewards_bonus", "other"}
	flagReasons = []string{"retention_offer", "loyalty_benefit", "promotional", "error_correction", "other"}
)

func applyAccountFlag(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.apply_credit_card_account_flag_6147"]
	ccid, uid, ft, exp, reason := a.get("credit_card_account_id"), a.get("user_id"), a.get("flag_type"), a.get("expiration_date"), a.get("reason")
	if a.missing("credit_card_account_id", "user_id", "flag_type", "expiration_date", "reason") {
		return tx.s(1), nil
	}
	if !oneOf(ft, flagTypes...) {
		return tx.f(6, pyList(flagTypes)), nil
	}
	if !oneOf(reason, flagReasons...) {
		return tx.f(12, pyList(flagReasons)), nil
	}
	if e.ccAccountMissing(ccid) {
		return tx.f(17, str(ccid)), nil
	}
	id := "ccflag_" + deterministicID("account_flag:"+str(ccid)+":"+str(ft)+":"+str(exp), 12)
	rec := dict("flag_id", id, "credit_card_account_id", ccid, "user_id", uid, "flag_type", ft,
		"effective_date", today, "expiration_date", exp, "reason", reason, "applied_at", today, "status", "ACTIVE")
	if !e.add(tAccountFlags, id, rec) {
		return tx.f(29, id), nil
	}
	fd, _ := display(ft)
	rd, _ := display(reason)
	return tx.f(34,
		id, str(ccid), str(uid), fd, today, str(exp), rd), nil
}

func closeCreditCardAccount(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.close_credit_card_account_7834"]
	ccid, uid := a.get("credit_card_account_id"), a.get("user_id")
	if a.missing("credit_card_account_id", "user_id") {
		return tx.s(1), nil
	}
	if e.ccAccountMissing(ccid) {
		return tx.f(6, str(ccid)), nil
	}
	acc, ok, err := e.mutRecord(tCreditCardAccounts, ccid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(12, str(ccid)), nil
	}
	acc.Set("status", "CLOSED")
	acc.Set("closed_date", today)
	acc.Set("closed_by", uid)
	return tx.executed(13,
		dict("credit_card_account_id", ccid, "user_id", uid), str(ccid)), nil
}

func payCreditCardFromChecking(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.pay_credit_card_from_checking_9182"]
	uid, chk, ccid, amountArg := a.get("user_id"), a.get("checking_account_id"), a.get("credit_card_account_id"), a.get("amount")
	if a.missing("user_id", "checking_account_id", "credit_card_account_id") || a.none("amount") {
		return tx.s(1), nil
	}
	amount, err := toFloat(amountArg)
	if err != nil {
		return tx.s(3), nil
	}
	if amount <= 0 {
		return tx.s(2), nil
	}
	acc, ok, err := e.rec(tAccounts, chk)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(4, str(chk)), nil
	}
	if !eq(field(acc, "user_id", nil), uid) {
		return tx.f(6, str(chk), str(uid)), nil
	}
	if !eq(field(acc, "class", nil), "checking") {
		return tx.f(9, str(chk)), nil
	}
	bal, err := accountBalance(acc)
	if err != nil {
		return "", err
	}
	if amount > bal {
		return tx.f(10, mustFixed(bal, 2), mustFixed(amount, 2)), nil
	}
	cc, ok, err := e.rec(tCreditCardAccounts, ccid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(11, str(ccid)), nil
	}
	if !eq(field(cc, "user_id", nil), uid) {
		return tx.f(13, str(ccid), str(uid)), nil
	}
	ccBal := money(field(cc, "current_balance", "$0.00"), 0)
	if amount > ccBal {
		return tx.f(20, mustFixed(amount, 2), mustFixed(ccBal, 2)), nil
	}
	newChk, newCC := bal-amount, ccBal-amount
	accM, _, _ := e.mutRecord(tAccounts, chk)
	accM.Set("current_holdings", mustFixed(newChk, 2))
	ccM, _, _ := e.mutRecord(tCreditCardAccounts, ccid)
	ccM.Set("current_balance", "$"+mustFixed(newCC, 2))
	return tx.f(25,
		mustFixed(amount, 2), str(chk), str(ccid), mustFixed(newChk, 2), mustFixed(newCC, 2)), nil
}

// cliRequestID is generate_credit_limit_increase_request_id.
func cliRequestID(ccid, uid any, amount float64) string {
	return "cli_" + deterministicID("cli_request:"+str(ccid)+":"+str(uid)+":"+mustFixed(amount, 2), 12)
}

// thousands is f"{n:,}" of an int.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func submitCreditLimitIncrease(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.submit_credit_limit_increase_request_7392"]
	ccid, uid, req := a.get("credit_card_account_id"), a.get("user_id"), a.get("requested_increase_amount")
	if a.missing("credit_card_account_id", "user_id") || a.none("requested_increase_amount") {
		return tx.s(1), nil
	}
	f, err := toFloat(req)
	if err != nil {
		return tx.s(2), nil
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) {
		return tx.s(3), nil
	}
	n := int64(f)
	if n <= 0 {
		return tx.s(4), nil
	}
	cc, ok, err := e.rec(tCreditCardAccounts, ccid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(5, str(ccid)), nil
	}
	if !eq(field(cc, "user_id", nil), uid) {
		return tx.f(7, str(ccid), str(uid)), nil
	}
	id := cliRequestID(ccid, uid, float64(n))
	rec := dict("request_id", id, "credit_card_account_id", ccid, "user_id", uid,
		"requested_increase_amount", int(n), "submitted_at", today, "status", "PENDING")
	if !e.add(tCreditLimitRequests, id, rec) {
		return tx.s(16), nil
	}
	return tx.f(17,
		id, str(ccid), thousands(n)), nil
}

func getPaymentHistory(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.get_payment_history_6183"]
	ccid, monthsArg := a.get("credit_card_account_id"), a.get("months")
	if a.missing("credit_card_account_id") || a.none("months") {
		return tx.s(1), nil
	}
	months, err := toInt(monthsArg)
	if err != nil {
		if isTypeError(err) || isValueError(err) {
			return tx.s(3), nil
		}
		return "", err
	}
	if months <= 0 {
		return tx.s(2), nil
	}
	var pays []*pyjson.Dict
	for _, p := range e.db.tables[tPaymentHistory].All() {
		if eq(field(p, "credit_card_account_id", nil), ccid) {
			pays = append(pays, p)
		}
	}
	if len(pays) == 0 {
		return tx.f(5, str(ccid)), nil
	}
	keys := make([]any, len(pays))
	for i, p := range pays {
		k := field(p, "payment_date", nil)
		if !truthy(k) {
			k = ""
		}
		keys[i] = k
	}
	if err := sortByKeyDesc(pays, keys); err != nil {
		return "", err
	}
	if int64(len(pays)) > months {
		pays = pays[:months]
	}
	onTime := 0
	for _, p := range pays {
		if !eq(field(p, "status", nil), "ON_TIME") {
			break
		}
		onTime++
	}
	parts := []string{
		tx.f(10, str(ccid), months),
		tx.f(11, onTime),
	}
	for _, p := range pays {
		parts = append(parts, tx.f(12,
			str(field(p, "payment_date", nil)), str(field(p, "amount", nil)), str(field(p, "status", nil))))
	}
	return strings.Join(parts, "\n"), nil
}

func isValueError(err error) bool {
	return pyops.IsType(err, "ValueError")
}

// sortByKeyDesc is list.sort(key=..., reverse=True): stable, so equal keys
// keep their order; keys of types that do not compare raise TypeError.
func sortByKeyDesc[T any](items []T, keys []any) error {
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	var sortErr error
	slices.SortStableFunc(idx, func(x, y int) int {
		if sortErr != nil {
			return 0
		}
		lt, err := pyops.Compare("<", keys[y], keys[x])
		if err != nil {
			sortErr = err
			return 0
		}
		if lt {
			return -1
		}
		if gt, _ := pyops.Compare("<", keys[x], keys[y]); gt {
			return 1
		}
		return 0 // equal, or a NaN
	})
	if sortErr != nil {
		return sortErr
	}
	out := make([]T, len(items))
	for i, j := range idx {
		out[i] = items[j]
	}
	copy(items, out)
	return nil
}

func approveCreditLimitIncrease(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.approve_credit_limit_increase_5847"]
	ccid, uid, newLimitArg := a.get("credit_card_account_id"), a.get("user_id"), a.get("new_credit_limit")
	if a.missing("credit_card_account_id", "user_id") || a.none("new_credit_limit") {
		return tx.s(1), nil
	}
	cc, ok, err := e.rec(tCreditCardAccounts, ccid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(2, str(ccid)), nil
	}
	if !eq(field(cc, "user_id", nil), uid) {
		return tx.f(4, str(ccid), str(uid)), nil
	}
	ineligible := false
	for _, d := range e.db.tables[tTransactionDisputes].All() {
		if eq(field(d, "user_id", nil), uid) && oneOf(field(d, "status", nil), "SUBMITTED", "UNDER_REVIEW", "PENDING") {
			ineligible = true
			break
		}
	}
	if !ineligible {
		for _, o := range e.db.tables[tCreditCardOrders].All() {
			if eq(field(o, "credit_card_account_id", nil), ccid) && oneOf(field(o, "status", nil), "PENDING", "PROCESSING", "SHIPPED") {
				ineligible = true
				break
			}
		}
	}
	if !ineligible {
		st, err := strArg(field(cc, "account_status", ""), "upper")
		if err != nil {
			return "", err
		}
		if slices.Contains([]string{"PAST_DUE", "DELINQUENT", "COLLECTIONS", "CLOSED"}, strings.ToUpper(st)) {
			ineligible = true
		}
	}
	if ineligible {
		return tx.s(23), nil
	}
	current := money(field(cc, "credit_limit", "$0.00"), 0)
	newLimit, err := toFloat(newLimitArg)
	if err != nil {
		return "", err
	}
	ccM, _, _ := e.mutRecord(tCreditCardAccounts, ccid)
	ccM.Set("credit_limit", "$"+mustFixed(newLimit, 2))
	id := cliRequestID(ccid, uid, newLimit-current)
	e.add(tCreditLimitRequests, id, dict("request_id", id, "credit_card_account_id", ccid, "user_id", uid,
		"previous_limit", "$"+mustFixed(current, 2), "new_limit", "$"+mustFixed(newLimit, 2),
		"increase_amount", "$"+mustFixed(newLimit-current, 2), "decision_date", today, "status", "APPROVED"))
	return tx.f(45,
		str(ccid), mustFixed(current, 2), mustFixed(newLimit, 2), mustFixed(newLimit-current, 2), today), nil
}

var denialReasons = []string{"insufficient_account_age", "cooldown_period_active", "pending_disputes", "pending_replacement_card", "past_due_balance", "high_utilization", "insufficient_payment_history", "requested_amount_exceeds_limit", "other"}

func denyCreditLimitIncrease(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.deny_credit_limit_increase_5848"]
	ccid, uid, reason := a.get("credit_card_account_id"), a.get("user_id"), a.get("denial_reason")
	if a.missing("credit_card_account_id", "user_id", "denial_reason") {
		return tx.s(1), nil
	}
	if !oneOf(reason, denialReasons...) {
		return tx.f(11, strings.Join(denialReasons, ", ")), nil
	}
	if _, ok, err := e.rec(tCreditCardAccounts, ccid); err != nil {
		return "", err
	} else if !ok {
		return tx.f(12, str(ccid)), nil
	}
	id := cliRequestID(ccid, uid, 0)
	e.add(tCreditLimitRequests, id, dict("request_id", id, "credit_card_account_id", ccid, "user_id", uid,
		"denial_reason", reason, "decision_date", today, "status", "DENIED"))
	return tx.f(21,
		str(ccid), str(reason), today), nil
}

// accountAgeDays is open_bank_account_4821's get_account_age_days: days
// since date_opened, 0 when it does not parse as MM/DD/YYYY (a non-str
// raises TypeError, which is not caught).
func accountAgeDays(acc *pyjson.Dict) (int, error) {
	t, err := strptime(field(acc, "date_opened", ""), fmtMDY)
	if err != nil {
		if isValueError(err) {
			return 0, nil
		}
		return 0, err
	}
	return daysBetween(nowTime, t), nil
}

func openBankAccount(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.open_bank_account_4821"]
	uid, atype, aclass := a.get("user_id"), a.get("account_type"), a.get("account_class")
	if a.missing("user_id", "account_type", "account_class") {
		return tx.s(1), nil
	}
	types := []string{"checking", "savings", "business_checking", "business_savings"}
	if !oneOf(atype, types...) {
		return tx.f(6, pyList(types)), nil
	}
	var accs []*pyjson.Dict
	for _, acc := range e.db.tables[tAccounts].All() {
		if eq(field(acc, "user_id", nil), uid) {
			accs = append(accs, acc)
		}
	}
	kindOf := func(acc *pyjson.Dict) any { return field(acc, "account_type", field(acc, "class", "")) }
	notMet := tx.s(21)
	switch {
	case eq(atype, "savings"):
		ok := false
		for _, acc := range accs {
			if oneOf(kindOf(acc), "checking", "personal_checking") && oneOf(field(acc, "status", ""), "OPEN", "ACTIVE") {
				age, err := accountAgeDays(acc)
				if err != nil {
					return "", err
				}
				if age >= 14 {
					ok = true
					break
				}
			}
		}
		if !ok {
			return notMet, nil
		}
	case eq(atype, "business_checking"):
		for _, acc := range accs {
			if eq(field(acc, "status", nil), "CLOSED") {
				return notMet, nil
			}
		}
		ok := false
		for _, acc := range accs {
			if oneOf(kindOf(acc), "checking", "personal_checking") && oneOf(field(acc, "status", ""), "OPEN", "ACTIVE") {
				ok = true
				break
			}
		}
		if !ok {
			return notMet, nil
		}
	case eq(atype, "business_savings"):
		for _, acc := range accs {
			bal, err := parseBalance(field(acc, "current_holdings", field(acc, "balance", 0)))
			if err != nil {
				return "", err
			}
			if bal < 0 {
				return notMet, nil
			}
		}
		ok := false
		for _, acc := range accs {
			if eq(kindOf(acc), "business_checking") && oneOf(field(acc, "status", ""), "OPEN", "ACTIVE") {
				age, err := accountAgeDays(acc)
				if err != nil {
					return "", err
				}
				if age >= 30 {
					ok = true
					break
				}
			}
		}
		if !ok {
			return notMet, nil
		}
	}
	id := deterministicID("account:"+str(uid)+":"+str(atype)+":"+str(aclass), 16)
	rec := dict("account_id", id, "user_id", uid, "account_type", atype, "account_class", aclass,
		"current_holdings", "0.00", "status", "OPEN", "date_opened", today)
	if !e.add(tAccounts, id, rec) {
		return tx.f(60, id), nil
	}
	return tx.f(61,
		id, str(uid), str(atype), str(aclass), today), nil
}

func closeBankAccount(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.close_bank_account_7392"]
	aid, reason, waive := a.get("account_id"), a.get("reason"), a.get("waive_early_closure_fee")
	if a.missing("account_id") {
		return tx.s(50), nil
	}
	acc, ok, err := e.rec(tAccounts, aid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(51, str(aid)), nil
	}
	if eq(field(acc, "status", nil), "CLOSED") {
		return tx.f(54, str(aid)), nil
	}
	bal, err := accountBalance(acc)
	if err != nil {
		return "", err
	}
	fee := 0.0
	if !truthy(waive) {
		level, class, opened := field(acc, "level", ""), field(acc, "class", ""), field(acc, "date_opened", "")
		var cfg *earlyClosure
		switch {
		case eq(class, "checking"):
			cfg = e.d.src.earlyClosure("PERSONAL_CHECKING_EARLY_CLOSURE", level)
		case eq(class, "savings"):
			cfg = e.d.src.earlyClosure("PERSONAL_SAVINGS_EARLY_CLOSURE", level)
		}
		if cfg != nil && truthy(opened) {
			t, err := strptime(opened, fmtMDY)
			switch {
			case err == nil:
				if daysBetween(nowTime, t) < cfg.windowDays {
					if bal < cfg.fee {
						return tx.s(66), nil
					}
					fee = cfg.fee
				}
			case !isValueError(err):
				return "", err
			}
		}
	}
	if bal-fee != 0 {
		return tx.f(67, mustFixed(bal, 2)), nil
	}
	accM, _, _ := e.mutRecord(tAccounts, aid)
	accM.Set("status", "CLOSED")
	accM.Set("date_closed", today)
	accM.Set("closure_reason", reason)
	accM.Set("early_closure_fee_waived", waive)
	waived := "No"
	if truthy(waive) {
		waived = "Yes"
	}
	return tx.f(73,
		str(aid), str(field(accM, "account_type", "N/A")), str(field(accM, "account_class", "N/A")), today, str(reason), waived), nil
}

func getAllUserAccounts(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.get_all_user_accounts_by_user_id_3847"]
	uid := a.get("user_id")
	if a.missing("user_id") {
		return tx.s(1), nil
	}
	accs := e.queryField("accounts", "user_id", uid)
	ccs := e.queryField("credit_card_accounts", "user_id", uid)
	parts := []string{tx.s(6), "", tx.s(8),
		tx.f(9, str(uid)), "", tx.s(11)}
	if notFound(accs) {
		parts = append(parts, tx.s(14))
	} else {
		parts = append(parts, accs)
	}
	parts = append(parts, tx.s(15))
	if notFound(ccs) {
		parts = append(parts, tx.s(18))
	} else {
		parts = append(parts, ccs)
	}
	return strings.Join(parts, "\n"), nil
}

func transferFunds(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.transfer_funds_between_bank_accounts_7291"]
	src, dst, amountArg := a.get("source_account_id"), a.get("destination_account_id"), a.get("amount")
	if a.missing("source_account_id", "destination_account_id") || a.none("amount") {
		return tx.s(1), nil
	}
	amount, err := toFloat(amountArg)
	if err != nil {
		return tx.f(2, str(amountArg)), nil
	}
	if amount <= 0 {
		return tx.s(3), nil
	}
	if eq(src, dst) {
		return tx.s(4), nil
	}
	s, ok, err := e.rec(tAccounts, src)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(5, str(src)), nil
	}
	d, ok, err := e.rec(tAccounts, dst)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(6, str(dst)), nil
	}
	if !oneOf(field(s, "status", nil), "ACTIVE", "OPEN") {
		return tx.f(10, str(src)), nil
	}
	if !oneOf(field(d, "status", nil), "ACTIVE", "OPEN") {
		return tx.f(14, str(dst)), nil
	}
	sb, err := accountBalance(s)
	if err != nil {
		return "", err
	}
	if sb < amount {
		return tx.f(15, mustFixed(sb, 2), mustFixed(amount, 2)), nil
	}
	db, err := accountBalance(d)
	if err != nil {
		return "", err
	}
	ns, nd := sb-amount, db+amount
	sm, _, _ := e.mutRecord(tAccounts, src)
	sm.Set("current_holdings", "$"+mustFixed(ns, 2))
	dm, _, _ := e.mutRecord(tAccounts, dst)
	dm.Set("current_holdings", "$"+mustFixed(nd, 2))
	return tx.f(20,
		mustFixed(amount, 2), str(src), mustFixed(ns, 2), str(dst), mustFixed(nd, 2)), nil
}

// applyCredit is apply_checking_account_credit_5829 and
// apply_savings_account_credit_6831.
type creditKind struct {
	// tx are the method's literals, at the ordinals of its texts.
	tx        lits
	at        creditTexts
	classes   []string
	types     []string
	seed      string
	holdings  string // prefix of the stored balance ("$" or "")
	describes map[string]string
	fallback  string
}

// creditTexts are the ordinals of a credit method's texts.
type creditTexts struct{ missing, amount, positive, types, notFound, class, inactive, done int }

func applyCredit(e *Env, a dargs, k creditKind) (string, error) {
	tx, at := k.tx, k.at
	aid, amountArg, ct := a.get("account_id"), a.get("amount"), a.get("credit_type")
	if a.missing("account_id", "credit_type") || a.none("amount") {
		return tx.s(at.missing), nil
	}
	amount, err := toFloat(amountArg)
	if err != nil {
		return tx.s(at.amount), nil
	}
	if amount <= 0 {
		return tx.s(at.positive), nil
	}
	if !oneOf(ct, k.types...) {
		return tx.f(at.types, pyList(k.types)), nil
	}
	acc, ok, err := e.rec(tAccounts, aid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(at.notFound, str(aid)), nil
	}
	class, err := strArg(field(acc, "class", ""), "lower")
	if err != nil {
		return "", err
	}
	if !slices.Contains(k.classes, pyjson.Lower(class)) {
		return tx.f(at.class, str(aid)), nil
	}
	if !oneOf(field(acc, "status", nil), "ACTIVE", "OPEN") {
		return tx.f(at.inactive, str(aid)), nil
	}
	cur, err := accountBalance(acc)
	if err != nil {
		return "", err
	}
	nb := cur + amount
	accM, _, _ := e.mutRecord(tAccounts, aid)
	accM.Set("current_holdings", k.holdings+mustFixed(nb, 2))
	tid := "txn_" + deterministicID(k.seed+":"+str(aid)+":"+str(ct)+":"+str(amount)+":"+today, 16)
	desc, ok := k.describes[str(ct)]
	if !ok {
		desc = k.fallback
	}
	e.db.tables[tBankTransactions].Add(tid, dict("transaction_id", tid, "account_id", aid, "date", today,
		"description", desc, "amount", amount, "type", ct, "status", "posted"))
	return tx.f(at.done, tid, str(aid), str(ct), amount, cur, nb), nil
}

func applyCheckingCredit(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.apply_checking_account_credit_5829"]
	return applyCredit(e, a, creditKind{
		tx:        tx,
		at:        creditTexts{1, 2, 3, 6, 7, 11, 15, 30},
		classes:   []string{"checking"},
		types:     []string{"rebate_credit", "fee_refund"},
		seed:      "checking_credit",
		holdings:  "$",
		describes: map[string]string{"rebate_credit": tx.s(20)},
		fallback:  tx.s(21),
	})
}

func applySavingsCredit(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.apply_savings_account_credit_6831"]
	return applyCredit(e, a, creditKind{
		tx:        tx,
		at:        creditTexts{1, 2, 3, 7, 8, 13, 17, 34},
		classes:   []string{"saving", "savings"},
		types:     []string{"interest_correction", "fee_refund", "goodwill_credit"},
		seed:      "savings_credit",
		holdings:  "",
		describes: map[string]string{"interest_correction": tx.s(22), "fee_refund": tx.s(24)},
		fallback:  tx.s(25),
	})
}

func submitInterestReport(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.submit_interest_discrepancy_report_7294"]
	aid, uid := a.get("account_id"), a.get("user_id")
	ea, aa, ad := a.get("expected_apy"), a.get("actual_apy"), a.get("amount_difference")
	if a.missing("account_id", "user_id") || a.none("expected_apy", "actual_apy", "amount_difference") {
		return tx.s(1), nil
	}
	bad := tx.s(2)
	expected, err := toFloat(ea)
	if err != nil {
		return bad, nil
	}
	actual, err := toFloat(aa)
	if err != nil {
		return bad, nil
	}
	diff, err := toFloat(ad)
	if err != nil {
		return bad, nil
	}
	acc, ok, err := e.rec(tAccounts, aid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(3, str(aid)), nil
	}
	user, ok, err := e.rec(tUsers, uid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(4, str(uid)), nil
	}
	id := "IDR_" + deterministicID("interest_report:"+str(aid)+":"+str(uid)+":"+str(expected)+":"+str(actual)+":"+today, 16)
	apyDiff := pyjson.Round(expected-actual, 4)
	// add_to_db on a table TransactionalDB does not have stores nothing.
	level := str(field(acc, "level", "Unknown"))
	return tx.f(20,
		id, str(aid), level, str(field(user, "name", "Unknown")), str(expected), str(actual), str(apyDiff), mustFixed(diff, 2)), nil
}

// txnTime is get_bank_account_transactions_9173's sort key: the date as a
// datetime (with or without a time), datetime.min when neither parses.
func txnTime(rec *pyjson.Dict) (int64, error) {
	s := str(field(rec, "date", ""))
	for _, f := range []string{fmtMDYHMS, fmtMDY} {
		if t, err := strptime(s, f); err == nil {
			return t.Unix(), nil
		}
	}
	return math.MinInt64, nil
}

func getBankTransactions(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeTools.get_bank_account_transactions_9173"]
	aid := a.get("account_id")
	if a.missing("account_id") {
		return tx.s(1), nil
	}
	if _, ok, err := e.rec(tAccounts, aid); err != nil {
		return "", err
	} else if !ok {
		return tx.f(2, str(aid)), nil
	}
	ms := query(&e.db.tables[tBankTransactions], []constraint{{field: "account_id", op: "eq", value: aid}}, 0)
	keys := make([]any, len(ms))
	for i, m := range ms {
		t, _ := txnTime(m.rec)
		keys[i] = int(t)
	}
	if err := sortByKeyDesc(ms, keys); err != nil {
		return "", err
	}
	parts := []string{tx.s(8), "", tx.s(10),
		tx.f(11, str(aid))}
	if len(ms) > 0 {
		parts = append(parts, formatRecords(tx, recordTexts{13, 14, 15, 16}, tx.f(12, len(ms)), ms))
	} else {
		parts = append(parts, tx.s(17))
	}
	return strings.Join(parts, "\n"), nil
}
