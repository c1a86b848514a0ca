package banking

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// The customer's tools (KnowledgeUserTools). They act on the same
// database as the agent's.

type applyCardArgs struct {
	CardType            tool.StrValue  `json:"card_type"`
	CustomerName        tool.StrValue  `json:"customer_name"`
	AnnualIncome        tool.NumValue  `json:"annual_income"`
	RhoBankSubscription tool.BoolValue `json:"rho_bank_subscription,omitempty"`
}

type referralArgs struct {
	UserID      tool.StrValue `json:"user_id"`
	AccountType tool.StrValue `json:"account_type"`
}

type callUserToolArgs struct {
	DiscoverableToolName tool.StrValue `json:"discoverable_tool_name"`
	Arguments            tool.StrValue `json:"arguments,omitempty"`
}

type transactionArgs struct {
	UserID         tool.StrValue `json:"user_id"`
	CreditCardType tool.StrValue `json:"credit_card_type"`
	MerchantName   tool.StrValue `json:"merchant_name"`
	Amount         tool.NumValue `json:"amount"`
	Category       tool.StrValue `json:"category"`
}

func userTools() *tool.Set[*Env] {
	return tool.NewSet(userClass,
		tool.New("apply_for_credit_card", tool.Write, "", applyForCreditCard),
		tool.New("submit_referral", tool.Write, "", submitReferral),
		tool.New("call_discoverable_user_tool", tool.Write, "", callDiscoverableUserTool),
		tool.New("list_discoverable_user_tools", tool.Read, "", listDiscoverableUserTools),
		tool.New("request_human_agent_transfer", tool.Write, "", requestHumanAgentTransfer),
		tool.New("submit_transaction", tool.Write, "", submitTransaction),
	)
}

func applyForCreditCard(_ context.Context, e *Env, a applyCardArgs) (any, error) {
	tx := e.d.src.texts["KnowledgeUserTools.apply_for_credit_card"]
	valid := e.d.src.cardTypes
	if !oneOf(a.CardType.V, valid...) {
		return tx.f(1, str(a.CardType.V), pyList(valid)), nil
	}
	income, err := toFloat(a.AnnualIncome.V)
	if err != nil {
		return tx.s(2), nil
	}
	sub := a.RhoBankSubscription.Or(false)
	id := deterministicID(fmt.Sprintf("credit_card:%s:%s:%s:%s", str(a.CardType.V), str(a.CustomerName.V), str(income), str(sub)), 16)
	rec := dict("application_id", id, "card_type", a.CardType.V, "customer_name", a.CustomerName.V,
		"annual_income", income, "rho_bank_subscription", sub, "status", "PENDING", "date", today)
	if !e.add(tCreditCardApplications, id, rec) {
		return tx.f(12, id), nil
	}
	return tx.s(13), nil
}

func submitReferral(_ context.Context, e *Env, a referralArgs) (any, error) {
	tx := e.d.src.texts["KnowledgeUserTools.submit_referral"]
	seed, err := joinStr(":", "referral", a.UserID.V, a.AccountType.V)
	if err != nil {
		return nil, err
	}
	id := deterministicID(seed, 16)
	rec := dict("referral_id", id, "referrer_id", a.UserID.V, "referred_account_type", a.AccountType.V,
		"referral_status", "NO_PROGRESS", "date", today)
	if !e.add(tReferrals, id, rec) {
		return tx.f(8, id), nil
	}
	return tx.f(9, id, str(a.UserID.V), str(a.AccountType.V), today), nil
}

func callDiscoverableUserTool(ctx context.Context, e *Env, a callUserToolArgs) (any, error) {
	tx := e.d.src.texts["KnowledgeUserTools.call_discoverable_user_tool"]
	name := a.DiscoverableToolName.V
	spec, ok, err := e.d.userDisc.lookup(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return tx.f(2, str(name)), nil
	}
	args, decErr, err := loadsArgs(a.Arguments.Or("{}"), true)
	if err != nil {
		return nil, err
	}
	if decErr != nil {
		return tx.f(3, decErr.Error()), nil
	}
	for _, p := range spec.params {
		if p.hasDef {
			continue
		}
		in, err := contains(args, p.name)
		if err != nil {
			return nil, err
		}
		if !in {
			return tx.f(5, p.name), nil
		}
	}
	keys, err := pyjson.Iterate(args)
	if err != nil {
		return nil, typeErr("%s", err.Error())
	}
	for _, k := range keys {
		s, isStr := k.(string)
		known := false
		for _, p := range spec.params {
			if isStr && p.name == s {
				known = true
			}
		}
		if !known {
			return tx.f(6, str(k)), nil
		}
	}
	res, err := spec.call(ctx, e, userClass, args)
	if err != nil {
		if isTypeError(err) {
			return tx.f(7, spec.name, err.Error()), nil
		}
		return nil, err
	}
	return res, nil
}

func listDiscoverableUserTools(_ context.Context, e *Env, _ noArgs) (any, error) {
	tx := e.d.src.texts["KnowledgeUserTools.list_discoverable_user_tools"]
	res := e.queryTool("user_discoverable_tools", "{}")
	if strings.Contains(res, tx.s(3)) {
		return tx.s(4), nil
	}
	return tx.f(5, res), nil
}

func requestHumanAgentTransfer(_ context.Context, e *Env, _ noArgs) (any, error) {
	tx := e.d.src.texts["KnowledgeUserTools.request_human_agent_transfer"]
	existing := e.queryTool("human_transfer_requests", "{}")
	n := 1
	if !notFound(existing) {
		n = strings.Count(existing, "request_id") + 1
	}
	id := fmt.Sprintf("transfer_request_%d", n)
	e.add(tHumanTransferRequests, id, dict("request_id", id, "request_number", n, "requested_at", today, "status", "PENDING"))
	return tx.f(13, n), nil
}

func submitTransaction(_ context.Context, e *Env, a transactionArgs) (any, error) {
	tx := e.d.src.texts["KnowledgeUserTools.submit_transaction"]
	rewards := e.d.src.cardRewards
	k, ok, err := pyjson.DictKey(a.CreditCardType.V)
	if err != nil {
		return nil, typeErr("%s", err.Error())
	}
	var card *pyjson.Dict
	if ok {
		if v, found := rewards.Get(k); found {
			card, _ = v.(*pyjson.Dict)
		}
	}
	if card == nil {
		return tx.f(1, str(a.CreditCardType.V), pyList(rewards.Keys)), nil
	}
	tid, err := transactionID(a.UserID.V, a.CreditCardType.V, a.MerchantName.V, a.Amount.V, a.Category.V)
	if err != nil {
		return nil, err
	}
	rate, _ := card.Get("default")
	ck, ok, err := pyjson.DictKey(a.Category.V)
	if err != nil {
		return nil, typeErr("%s", err.Error())
	}
	if ok {
		if v, found := card.Get(ck); found {
			rate = v
		}
	}
	amount, _, _ := number(a.Amount.V)
	rf, _, _ := number(rate)
	points := int64(amount * rf)
	amt, _ := fixed(a.Amount.V, 2)
	rec := dict("transaction_id", tid, "user_id", a.UserID.V, "credit_card_type", a.CreditCardType.V,
		"merchant_name", a.MerchantName.V, "transaction_amount", "$"+amt, "transaction_date", today,
		"category", a.Category.V, "status", "COMPLETED", "rewards_earned", tx.f(14, points))
	if !e.add(tCreditCardTransactions, tid, rec) {
		return tx.f(16, tid), nil
	}
	return tx.f(17,
		tid, str(a.UserID.V), str(a.CreditCardType.V), str(a.MerchantName.V), amt, str(a.Category.V), today, points, str(rate)), nil
}

// --- the customer's discoverable tools ---

func userDiscoverable() *dset {
	t := func(name string, run func(ctx context.Context, e *Env, a dargs) (string, error)) *dtool {
		return &dtool{name: name, run: run}
	}
	return &dset{class: userClass, tools: []*dtool{
		t("submit_cash_back_dispute_0589", submitCashBackDispute),
		t("get_referral_link", getReferralLink),
		t("get_card_last_4_digits", getCardLast4),
		t("deposit_check_3847", depositCheck),
	}}
}

// checkGiven is _check_tool_given: the agent must have given the tool.
func (e *Env) checkGiven(name string) string {
	tx := e.d.src.texts["KnowledgeUserTools._check_tool_given"]
	if strings.Contains(e.queryField("user_discoverable_tools", "tool_name", name), tx.s(3)) {
		return tx.f(4, name)
	}
	return ""
}

// logUserCall is _log_user_tool_call.
func (e *Env) logUserCall(name string, args *pyjson.Dict) {
	b, _ := pyjson.MarshalOptions(args, pyjson.Options{SortKeys: true})
	id := deterministicID("user_discoverable_tool_call:"+name+":"+string(b), 16)
	e.add(tUserDiscoverableToolCalls, id, dict("tool_name", name, "arguments", args, "called_at", today, "status", "CALLED"))
}

func submitCashBackDispute(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeUserTools.submit_cash_back_dispute_0589"]
	const name = "submit_cash_back_dispute_0589"
	if msg := e.checkGiven(name); msg != "" {
		return msg, nil
	}
	uid, tid := a.get("user_id"), a.get("transaction_id")
	args := dict("user_id", uid, "transaction_id", tid)
	e.logUserCall(name, args)
	id := disputeID(uid, tid)
	auto := false
	if cfg, ok := e.db.tables[tTaskConfig].Get("dispute_settings"); ok && e.db.tables[tTaskConfig].Len() > 0 {
		auto = truthy(field(cfg, "auto_resolve_disputes", false))
	}
	rec := dict("dispute_id", id, "user_id", uid, "transaction_id", tid, "submitted_at", today, "status", "SUBMITTED")
	status := tx.s(23)
	if auto {
		rec = dict("dispute_id", id, "user_id", uid, "transaction_id", tid, "submitted_at", today, "status", "RESOLVED", "resolution", "APPROVED")
		status = tx.s(16)
	}
	out := tx.executed(25, args)
	if e.add(tCashBackDisputes, id, rec) {
		return out + tx.f(26, id, status), nil
	}
	return out + tx.s(27), nil
}

func getReferralLink(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeUserTools.get_referral_link"]
	const name = "get_referral_link"
	if msg := e.checkGiven(name); msg != "" {
		return msg, nil
	}
	uid, cn := a.get("user_id"), a.get("card_name")
	args := dict("user_id", uid, "card_name", cn)
	e.logUserCall(name, args)
	id := deterministicID("referral_link:"+str(uid)+":"+str(cn), 16)
	rec := dict("referral_id", id, "referrer_id", uid, "referred_account_type", cn, "referral_status", "NO_PROGRESS", "date", today)
	out := tx.executed(12, args)
	if e.add(tReferrals, id, rec) {
		return out + tx.f(13, id, id), nil
	}
	return out + tx.s(14), nil
}

func getCardLast4(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeUserTools.get_card_last_4_digits"]
	const name = "get_card_last_4_digits"
	if msg := e.checkGiven(name); msg != "" {
		return msg, nil
	}
	ccid := a.get("credit_card_account_id")
	args := dict("credit_card_account_id", ccid)
	e.logUserCall(name, args)
	if e.ccAccountMissing(ccid) {
		return tx.f(8, str(ccid)), nil
	}
	sum := sha256.Sum256([]byte("card_last4:" + str(ccid)))
	last4 := firstDigits(hex.EncodeToString(sum[:]), 4)
	for len(last4) < 4 {
		last4 += "0"
	}
	return tx.executed(12, args, last4), nil
}

func depositCheck(_ context.Context, e *Env, a dargs) (string, error) {
	tx := e.d.src.texts["KnowledgeUserTools.deposit_check_3847"]
	const name = "deposit_check_3847"
	if msg := e.checkGiven(name); msg != "" {
		return msg, nil
	}
	aid, amountArg := a.get("account_id"), a.get("check_amount")
	args := dict("account_id", aid, "check_amount", amountArg)
	e.logUserCall(name, args)
	amount, err := toFloat(amountArg)
	if err != nil {
		return tx.f(5, str(amountArg)), nil
	}
	if amount <= 0 {
		return tx.s(6), nil
	}
	acc, ok, err := e.rec(tAccounts, aid)
	if err != nil {
		return "", err
	}
	if !ok {
		return tx.f(7, str(aid)), nil
	}
	if !oneOf(field(acc, "status", nil), "ACTIVE", "OPEN") {
		return tx.f(11, str(aid)), nil
	}
	cur, err := accountBalance(acc)
	if err != nil {
		return "", err
	}
	nb := cur + amount
	accM, _, _ := e.mutRecord(tAccounts, aid)
	accM.Set("current_holdings", "$"+mustFixed(nb, 2))
	return tx.executed(20, args, str(aid), amount, cur, nb), nil
}
