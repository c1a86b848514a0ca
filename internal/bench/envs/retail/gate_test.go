package retail

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

// paperRevise is the REVISE message of the paper's retail case study.
const paperRevise = "Per retail policy, refunds must go to the original payment (['gift_card_7250692']) or an existing gift card (['gift_card_7250692']). You chose 'credit_card_1565124'."

// TestPaperRevise replays the paper's retail case: Chen Silva returns the
// tablet of order #W9571698 (paid with gift_card_7250692) and asks for the
// refund on her Mastercard credit_card_1565124. The gate revises the call
// with the paper's message; the resubmitted call to the gift card is allowed.
func TestPaperRevise(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	l := ledger.New()
	readInto(t, d, d.NewEnv(), l, chenSilvaReads()...)
	gate := ledger.NewGate(d.GatePredicates(), writeTools(d), d.DecodeArgs)

	v := gate.Judge(l, toolReturn, "call_1", json.RawMessage(`{"order_id": "#W9571698", "item_ids": ["6065192424"], "payment_method_id": "credit_card_1565124"}`))
	if v.Decision != ledger.Revise || v.Reason != paperRevise || v.Predicate != "retail.return_delivered_order_items.refund_destination" || v.Clause != "Return delivered order" {
		t.Errorf("verdict %+v\nwant REVISE %q", v, paperRevise)
	}
	v = gate.Judge(l, toolReturn, "call_2", json.RawMessage(`{"order_id": "#W9571698", "item_ids": ["6065192424"], "payment_method_id": "gift_card_7250692"}`))
	if v.Decision != ledger.Allow {
		t.Errorf("resubmitted return: %+v", v)
	}
}

// oliviaReads authenticate olivia_ito_3591 and read her profile, her two
// pending orders (#W5442520 paid by credit card, #W3657213 by gift card), a
// delivered one (#W5866402, paypal), a processed one (#W5353646), and the
// products of the gaming mouse and the espresso machine. Her gift card
// gift_card_7794233 holds $56.
func oliviaReads() []message.ToolCall {
	return []message.ToolCall{
		ledger.ToolCall("find_user_id_by_email", "email", "olivia.ito5204@example.com"),
		ledger.ToolCall("get_user_details", "user_id", "olivia_ito_3591"),
		ledger.ToolCall("get_order_details", "order_id", "#W5442520"),
		ledger.ToolCall("get_order_details", "order_id", "#W3657213"),
		ledger.ToolCall("get_order_details", "order_id", "#W5866402"),
		ledger.ToolCall("get_order_details", "order_id", "#W5353646"),
		ledger.ToolCall("get_product_details", "product_id", "5713490933"),
		ledger.ToolCall("get_product_details", "product_id", "4354588079"),
	}
}

// without drops the reads of the named tools (or with the given argument).
func without(reads []message.ToolCall, drop ...string) []message.ToolCall {
	var out []message.ToolCall
	for _, r := range reads {
		if slices.ContainsFunc(drop, func(s string) bool { return r.Name == s || strings.Contains(string(r.Arguments), s) }) {
			continue
		}
		out = append(out, r)
	}
	return out
}

type loggedWrite struct {
	tool, args string
	done, ok   bool
}

func succeeded(tool, args string) loggedWrite { return loggedWrite{tool, args, true, true} }
func failed(tool, args string) loggedWrite    { return loggedWrite{tool, args, true, false} }
func inFlight(tool, args string) loggedWrite  { return loggedWrite{tool: tool, args: args} }

const (
	mouseToBlack   = `{"order_id": "#W5442520", "item_ids": ["3330317167"], "new_item_ids": ["8214883393"], "payment_method_id": "credit_card_9753331"}`
	addressW544    = `{"order_id": "#W5442520", "address1": "1 Main St", "address2": "", "city": "Denver", "state": "CO", "country": "USA", "zip": "80218"}`
	userAddress    = `{"user_id": "olivia_ito_3591", "address1": "1 Main St", "address2": "", "city": "Denver", "state": "CO", "country": "USA", "zip": "80218"}`
	returnEspresso = `{"order_id": "#W5866402", "item_ids": ["6242772310"], "payment_method_id": "paypal_8049766"}`
	exchangeShoes  = `{"order_id": "#W5866402", "item_ids": ["9727387530"], "new_item_ids": ["2509076505"], "payment_method_id": "paypal_8049766"}`
)

func TestGatePredicates(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	gate := ledger.NewGate(d.GatePredicates(), writeTools(d), d.DecodeArgs)
	all := oliviaReads()
	withShoes := append(slices.Clone(all), ledger.ToolCall("get_product_details", "product_id", "7471004230"))
	cases := []struct {
		name   string
		reads  []message.ToolCall // nil: oliviaReads()
		writes []loggedWrite
		tool   string
		args   string
		want   ledger.Decision
		rule   string // the one failing rule
		reason string // a substring of the reason
	}{
		// arguments
		{name: "arguments/number-for-string", tool: toolCancel, args: `{"order_id": 5442520, "reason": "no longer needed"}`,
			want: ledger.Revise, rule: "arguments", reason: "argument 'order_id' must be str"},
		{name: "arguments/string-for-list", tool: toolReturn, args: `{"order_id": "#W5866402", "item_ids": "6242772310", "payment_method_id": "paypal_8049766"}`,
			want: ledger.Revise, rule: "arguments", reason: "argument 'item_ids' must be list, not str"},
		{name: "arguments/numbers-in-list", tool: toolReturn, args: `{"order_id": "#W5866402", "item_ids": [6242772310], "payment_method_id": "paypal_8049766"}`,
			want: ledger.Revise, rule: "arguments", reason: "argument 'item_ids' must be str"},
		{name: "arguments/null", tool: toolModifyAddress, args: `{"order_id": "#W5442520", "address1": "1 Main St", "address2": null, "city": "Denver", "state": "CO", "country": "USA", "zip": "80218"}`,
			want: ledger.Revise, rule: "arguments", reason: "argument 'address2' must be str, not None"},
		{name: "arguments/missing-and-unknown", tool: toolCancel, args: `{"order": "#W5442520", "reason": "no longer needed"}`,
			want: ledger.Revise, rule: "arguments", reason: "got an unexpected keyword argument 'order'"},
		{name: "arguments/not-an-object", tool: toolModifyPayment, args: `["#W5442520"]`,
			want: ledger.Revise, rule: "arguments", reason: "argument after ** must be a mapping, not list"},
		{name: "arguments/empty", tool: toolUserAddress, args: ``,
			want: ledger.Revise, rule: "arguments"},
		{name: "arguments/null-list", tool: toolReturn, args: `{"order_id": "#W5866402", "item_ids": null, "payment_method_id": "paypal_8049766"}`,
			want: ledger.Revise, rule: "arguments", reason: "argument 'item_ids' must be list, not None"},
		// other JSON types the tool takes (as upstream's does) are still
		// asked for as documented
		{name: "arguments/dict-for-list", tool: toolModifyItems, args: `{"order_id": "#W5442520", "item_ids": [], "new_item_ids": {}, "payment_method_id": "paypal_8049766"}`,
			want: ledger.Revise, rule: "arguments", reason: "argument 'new_item_ids' must be list, not dict"},
		{name: "arguments/empty-string-for-list", tool: toolReturn, args: `{"order_id": "#W5866402", "item_ids": "", "payment_method_id": "paypal_8049766"}`,
			want: ledger.Revise, rule: "arguments", reason: "argument 'item_ids' must be list, not str"},
		{name: "arguments/list-for-string", tool: toolModifyPayment, args: `{"order_id": ["#W5442520"], "payment_method_id": "paypal_8049766"}`,
			want: ledger.Revise, rule: "arguments", reason: "argument 'order_id' must be str, not list"},
		{name: "arguments/number-for-address-line", tool: toolUserAddress, args: `{"user_id": "olivia_ito_5484", "address1": "1 Main St", "address2": "", "city": "Denver", "state": "CO", "country": "USA", "zip": 80218}`,
			want: ledger.Revise, rule: "arguments", reason: "argument 'zip' must be str, not int"},
		// a value the tool accepts is judged as the tool reads it: of a
		// repeated key the last one counts (the processed order)
		{name: "arguments/repeated-key", tool: toolCancel, args: `{"order_id": "#W5442520", "order_id": "#W5353646", "reason": "no longer needed"}`,
			want: ledger.Block, rule: "status", reason: "order #W5353646 is 'processed'"},
		// authenticated
		{name: "authenticated/allow", tool: toolCancel, args: `{"order_id": "#W5442520", "reason": "no longer needed"}`, want: ledger.Allow},
		{name: "authenticated/no-lookup", reads: without(all, "find_user_id_by_email"), tool: toolCancel, args: `{"order_id": "#W5442520", "reason": "no longer needed"}`,
			want: ledger.Revise, rule: "authenticated", reason: "find_user_id_by_email or find_user_id_by_name_zip"},
		{name: "authenticated/user-address", reads: without(all, "find_user_id_by_email"), tool: toolUserAddress, args: userAddress,
			want: ledger.Revise, rule: "authenticated"},
		// order_read
		{name: "order_read/unread-order", tool: toolCancel, args: `{"order_id": "#W7941031", "reason": "ordered by mistake"}`,
			want: ledger.Revise, rule: "order_read", reason: "call get_order_details(order_id='#W7941031') first"},
		// own_order
		{name: "own_order/other-users-order", reads: append(slices.Clone(all), ledger.ToolCall("get_order_details", "order_id", "#W9571698")),
			tool: toolReturn, args: `{"order_id": "#W9571698", "item_ids": ["6065192424"], "payment_method_id": "gift_card_7250692"}`,
			want: ledger.Block, rule: "own_order", reason: "order #W9571698 belongs to another user (chen_silva_7485)"},
		// status
		{name: "status/cancel-processed", tool: toolCancel, args: `{"order_id": "#W5353646", "reason": "no longer needed"}`,
			want: ledger.Block, rule: "status", reason: "only 'pending' orders can be cancelled; order #W5353646 is 'processed'"},
		{name: "status/cancel-delivered", tool: toolCancel, args: `{"order_id": "#W5866402", "reason": "no longer needed"}`,
			want: ledger.Block, rule: "status"},
		{name: "status/return-pending", tool: toolReturn, args: `{"order_id": "#W5442520", "item_ids": ["3330317167"], "payment_method_id": "credit_card_9753331"}`,
			want: ledger.Block, rule: "status", reason: "only 'delivered' orders can be returned"},
		{name: "status/exchange-pending", tool: toolExchange, args: mouseToBlack,
			want: ledger.Block, rule: "status", reason: "only 'delivered' orders can be exchanged"},
		{name: "status/address-delivered", tool: toolModifyAddress, args: strings.Replace(addressW544, "#W5442520", "#W5866402", 1),
			want: ledger.Block, rule: "status"},
		{name: "status/cancel-after-item-modification", writes: []loggedWrite{succeeded(toolModifyItems, mouseToBlack)},
			tool: toolCancel, args: `{"order_id": "#W5442520", "reason": "no longer needed"}`,
			want: ledger.Block, rule: "status", reason: "its items were already modified (status 'pending (item modified)')"},
		{name: "status/payment-after-item-modification", writes: []loggedWrite{succeeded(toolModifyItems, mouseToBlack)},
			tool: toolModifyPayment, args: `{"order_id": "#W5442520", "payment_method_id": "paypal_8049766"}`,
			want: ledger.Block, rule: "status", reason: "its items were already modified"},
		{name: "status/address-after-item-modification", writes: []loggedWrite{succeeded(toolModifyItems, mouseToBlack)},
			tool: toolModifyAddress, args: addressW544, want: ledger.Allow},
		{name: "status/return-after-return", writes: []loggedWrite{succeeded(toolReturn, returnEspresso)},
			tool: toolReturn, args: returnEspresso, want: ledger.Block, rule: "status", reason: "order #W5866402 is 'return requested'"},
		{name: "status/exchange-after-return", reads: withShoes, writes: []loggedWrite{succeeded(toolReturn, returnEspresso)},
			tool: toolExchange, args: exchangeShoes, want: ledger.Block, rule: "status"},
		{name: "status/cancel-after-failed-cancel", writes: []loggedWrite{failed(toolCancel, `{"order_id": "#W5442520", "reason": "no longer needed"}`)},
			tool: toolCancel, args: `{"order_id": "#W5442520", "reason": "no longer needed"}`, want: ledger.Allow},
		{name: "status/exchange-delivered", reads: withShoes, tool: toolExchange, args: exchangeShoes, want: ledger.Allow},
		// once_per_order
		{name: "once_per_order/items-twice", writes: []loggedWrite{succeeded(toolModifyItems, mouseToBlack)},
			tool: toolModifyItems, args: strings.Replace(mouseToBlack, "8214883393", "2193628750", 1),
			want: ledger.Block, rule: "once_per_order", reason: "modify_pending_order_items can be called only once per order"},
		{name: "once_per_order/in-flight", writes: []loggedWrite{inFlight(toolModifyItems, mouseToBlack)},
			tool: toolModifyItems, args: mouseToBlack, want: ledger.Revise, rule: "once_per_order", reason: "has not returned yet"},
		{name: "once_per_order/after-failure", writes: []loggedWrite{failed(toolModifyItems, mouseToBlack)},
			tool: toolModifyItems, args: mouseToBlack, want: ledger.Allow},
		{name: "once_per_order/address-twice", writes: []loggedWrite{succeeded(toolModifyAddress, addressW544)},
			tool: toolModifyAddress, args: strings.Replace(addressW544, "1 Main St", "2 Main St", 1), want: ledger.Block, rule: "once_per_order"},
		{name: "once_per_order/address-other-order", writes: []loggedWrite{succeeded(toolModifyAddress, addressW544)},
			tool: toolModifyAddress, args: strings.Replace(addressW544, "#W5442520", "#W3657213", 1), want: ledger.Allow},
		{name: "once_per_order/exchange-twice", reads: withShoes, writes: []loggedWrite{succeeded(toolExchange, exchangeShoes)},
			tool: toolExchange, args: exchangeShoes, want: ledger.Block, rule: "once_per_order"},
		{name: "once_per_order/payment-twice", writes: []loggedWrite{succeeded(toolModifyPayment, `{"order_id": "#W5442520", "payment_method_id": "paypal_8049766"}`)},
			tool: toolModifyPayment, args: `{"order_id": "#W5442520", "payment_method_id": "paypal_8049766"}`, want: ledger.Block, rule: "once_per_order"},
		// reason
		{name: "reason/mistake", tool: toolCancel, args: `{"order_id": "#W5442520", "reason": "ordered by mistake"}`, want: ledger.Allow},
		{name: "reason/other", tool: toolCancel, args: `{"order_id": "#W5442520", "reason": "changed my mind"}`,
			want: ledger.Revise, rule: "reason", reason: "You gave 'changed my mind'"},
		// items_in_order
		{name: "items_in_order/allow", tool: toolReturn, args: returnEspresso, want: ledger.Allow},
		{name: "items_in_order/foreign-item", tool: toolReturn, args: `{"order_id": "#W5866402", "item_ids": ["3330317167"], "payment_method_id": "paypal_8049766"}`,
			want: ledger.Revise, rule: "items_in_order", reason: "'3330317167' is not an item of the order"},
		{name: "items_in_order/too-many", tool: toolReturn, args: `{"order_id": "#W5866402", "item_ids": ["6242772310", "6242772310"], "payment_method_id": "paypal_8049766"}`,
			want: ledger.Revise, rule: "items_in_order", reason: "listed 2 times but the order has 1"},
		{name: "items_in_order/empty", tool: toolReturn, args: `{"order_id": "#W5866402", "item_ids": [], "payment_method_id": "paypal_8049766"}`,
			want: ledger.Revise, rule: "items_in_order", reason: "the list is empty"},
		{name: "items_in_order/length-mismatch", tool: toolModifyItems, args: `{"order_id": "#W5442520", "item_ids": ["3330317167"], "new_item_ids": [], "payment_method_id": "credit_card_9753331"}`,
			want: ledger.Revise, rule: "items_in_order", reason: "got 1 item ids and 0 new item ids"},
		// same_product
		{name: "same_product/allow", tool: toolModifyItems, args: mouseToBlack, want: ledger.Allow},
		{name: "same_product/other-product", tool: toolModifyItems, args: strings.Replace(mouseToBlack, "8214883393", "3709608322", 1),
			want: ledger.Revise, rule: "same_product", reason: "'3709608322' is not a variant of Gaming Mouse (product 5713490933)"},
		{name: "same_product/unavailable", tool: toolModifyItems, args: strings.Replace(mouseToBlack, "8214883393", "7420906769", 1),
			want: ledger.Revise, rule: "same_product", reason: "'7420906769' of Gaming Mouse is not available"},
		{name: "same_product/unchanged", tool: toolModifyItems, args: strings.Replace(mouseToBlack, "8214883393", "3330317167", 1),
			want: ledger.Revise, rule: "same_product", reason: "the same as the item it replaces"},
		{name: "same_product/product-unread", reads: without(all, "5713490933"), tool: toolModifyItems, args: mouseToBlack,
			want: ledger.Revise, rule: "same_product", reason: "call get_product_details(product_id='5713490933')"},
		// payment_owned
		{name: "payment_owned/other-users-card", tool: toolModifyItems, args: strings.Replace(mouseToBlack, "credit_card_9753331", "credit_card_1565124", 1),
			want: ledger.Revise, rule: "payment_owned", reason: "'credit_card_1565124' is not among ['gift_card_7794233', 'paypal_8049766', 'credit_card_9753331']"},
		{name: "payment_owned/order-shows-it", reads: without(all, "get_user_details"), tool: toolModifyItems, args: mouseToBlack, want: ledger.Allow},
		{name: "payment_owned/needs-user", reads: without(all, "get_user_details"), tool: toolModifyItems, args: strings.Replace(mouseToBlack, "credit_card_9753331", "paypal_8049766", 1),
			want: ledger.Revise, rule: "payment_owned", reason: "call get_user_details(user_id='olivia_ito_3591') first"},
		// payment_different
		{name: "payment_different/allow", tool: toolModifyPayment, args: `{"order_id": "#W5442520", "payment_method_id": "paypal_8049766"}`, want: ledger.Allow},
		{name: "payment_different/same", tool: toolModifyPayment, args: `{"order_id": "#W5442520", "payment_method_id": "credit_card_9753331"}`,
			want: ledger.Revise, rule: "payment_different", reason: "already paid with 'credit_card_9753331'"},
		// gift_card_balance
		{name: "gift_card_balance/order-total", tool: toolModifyPayment, args: `{"order_id": "#W5442520", "payment_method_id": "gift_card_7794233"}`,
			want: ledger.Revise, rule: "gift_card_balance", reason: "'gift_card_7794233' has $56.00, and the order total is $663.85"},
		{name: "gift_card_balance/price-difference", tool: toolExchange,
			args: `{"order_id": "#W5866402", "item_ids": ["6242772310"], "new_item_ids": ["3379843752"], "payment_method_id": "gift_card_7794233"}`,
			want: ledger.Revise, rule: "gift_card_balance", reason: "the price difference is $207.73"},
		{name: "gift_card_balance/covered", tool: toolModifyItems, args: strings.Replace(mouseToBlack, "credit_card_9753331", "gift_card_7794233", 1), want: ledger.Allow},
		{name: "gift_card_balance/refund", tool: toolExchange,
			args: `{"order_id": "#W5866402", "item_ids": ["6242772310"], "new_item_ids": ["3709608322"], "payment_method_id": "gift_card_7794233"}`, want: ledger.Allow},
		{name: "gift_card_balance/needs-user", reads: without(all, "get_user_details"), tool: toolExchange,
			args: `{"order_id": "#W5866402", "item_ids": ["6242772310"], "new_item_ids": ["3379843752"], "payment_method_id": "gift_card_7794233"}`,
			want: ledger.Revise, rule: "payment_owned", reason: "get_user_details"},
		{name: "gift_card_balance/original-gift-card-needs-user",
			reads: append(without(all, "get_user_details"), ledger.ToolCall("get_product_details", "product_id", "3377618313")), tool: toolModifyItems,
			args: `{"order_id": "#W3657213", "item_ids": ["6700049080"], "new_item_ids": ["7523669277"], "payment_method_id": "gift_card_7794233"}`,
			want: ledger.Revise, rule: "gift_card_balance", reason: "to check the balance of 'gift_card_7794233', call get_user_details(user_id='olivia_ito_3591') first"},
		// refund_destination
		{name: "refund_destination/original", tool: toolReturn, args: returnEspresso, want: ledger.Allow},
		{name: "refund_destination/gift-card", tool: toolReturn, args: strings.Replace(returnEspresso, "paypal_8049766", "gift_card_7794233", 1), want: ledger.Allow},
		{name: "refund_destination/credit-card", tool: toolReturn, args: strings.Replace(returnEspresso, "paypal_8049766", "credit_card_9753331", 1),
			want: ledger.Revise, rule: "refund_destination",
			reason: "Per retail policy, refunds must go to the original payment (['paypal_8049766']) or an existing gift card (['gift_card_7794233']). You chose 'credit_card_9753331'."},
		{name: "refund_destination/needs-user", reads: without(all, "get_user_details"), tool: toolReturn,
			args: strings.Replace(returnEspresso, "paypal_8049766", "gift_card_7794233", 1), want: ledger.Revise, rule: "refund_destination", reason: "get_user_details"},
		// own_user
		{name: "own_user/allow", tool: toolUserAddress, args: userAddress, want: ledger.Allow},
		{name: "own_user/other-user", tool: toolUserAddress, args: strings.Replace(userAddress, "olivia_ito_3591", "chen_silva_7485", 1),
			want: ledger.Block, rule: "own_user", reason: "'chen_silva_7485' is another user"},
		// not_repeated
		{name: "not_repeated/identical", writes: []loggedWrite{succeeded(toolUserAddress, userAddress)}, tool: toolUserAddress, args: userAddress,
			want: ledger.Block, rule: "not_repeated"},
		{name: "not_repeated/changed-back", writes: []loggedWrite{succeeded(toolUserAddress, userAddress)},
			tool: toolUserAddress, args: strings.Replace(userAddress, "1 Main St", "9 Elm St", 1), want: ledger.Allow},
		{name: "not_repeated/after-failure", writes: []loggedWrite{failed(toolUserAddress, userAddress)}, tool: toolUserAddress, args: userAddress, want: ledger.Allow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reads := tc.reads
			if reads == nil {
				reads = all
			}
			l := ledger.New()
			readInto(t, d, d.NewEnv(), l, reads...)
			for _, w := range tc.writes {
				i := l.LogWrite(w.tool, json.RawMessage(w.args), gate.Decode(w.tool, json.RawMessage(w.args)))
				if w.done {
					l.Resolve(i, w.ok)
				}
			}
			v := gate.Judge(l, tc.tool, "", json.RawMessage(tc.args))
			if v.Decision != tc.want {
				t.Fatalf("verdict %s (%v: %s); want %s", v.Decision, v.Failed, v.Reason, tc.want)
			}
			if tc.want == ledger.Allow {
				return
			}
			if tc.rule != "" {
				id := "retail." + tc.tool + "." + tc.rule
				if len(v.Failed) != 1 || v.Failed[0] != id || v.Predicate != id {
					t.Errorf("failed %v (first %s); want only %s", v.Failed, v.Predicate, id)
				}
			}
			if !strings.Contains(v.Reason, tc.reason) {
				t.Errorf("reason %q\nwant it to contain %q", v.Reason, tc.reason)
			}
		})
	}
}

// TestGatePredicateList checks the predicate set: unique ids of the form
// retail.<tool>.<rule> over the seven write tools, every clause a heading of
// policy.md (or the named loop-prevention rule), and a golden listing.
func TestGatePredicateList(t *testing.T) {
	t.Parallel()
	d := domainForTest(t)
	preds := d.GatePredicates()
	headings := map[string]bool{clauseLoop: true}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(d.Policy(), -1) {
		headings[strings.TrimSpace(m[1])] = true
	}
	writes := writeTools(d)
	seen := map[string]bool{}
	tools := map[string]int{}
	var b strings.Builder
	for _, p := range preds {
		if seen[p.ID] {
			t.Errorf("duplicate predicate %s", p.ID)
		}
		seen[p.ID] = true
		if !strings.HasPrefix(p.ID, "retail."+p.Tool+".") || !slices.Contains(writes, p.Tool) || p.Check == nil {
			t.Errorf("predicate %s guards %q", p.ID, p.Tool)
		}
		if !headings[p.Clause] {
			t.Errorf("predicate %s cites %q, not a heading of policy.md", p.ID, p.Clause)
		}
		if tools[p.Tool] == 0 {
			// the arguments check, made once per call by DecodeArgs
			if !headings[argsClause(p.Tool)] {
				t.Errorf("%s arguments cite %q, not a heading of policy.md", p.Tool, argsClause(p.Tool))
			}
			fmt.Fprintf(&b, "%-55s %s\n", "retail."+p.Tool+".arguments", argsClause(p.Tool))
		}
		tools[p.Tool]++
		fmt.Fprintf(&b, "%-55s %s\n", p.ID, p.Clause)
	}
	if len(tools) != 7 || len(writes) != 7 {
		t.Errorf("predicates cover %d of %d write tools", len(tools), len(writes))
	}
	golden(t, "predicates.golden", b.String())
}

// FuzzGateArgs: predicates never panic on any arguments, whatever the
// ledger holds (each is called directly, without the gate's recover).
func FuzzGateArgs(f *testing.F) {
	d := domainForTest(f)
	l := ledger.New()
	readInto(f, d, d.NewEnv(), l, oliviaReads()...)
	l.Resolve(l.LogWrite(toolModifyItems, json.RawMessage(`{"order_id": 5}`), nil), true)
	l.Resolve(l.LogWrite(toolUserAddress, json.RawMessage(`null`), nil), true)
	preds := d.GatePredicates()
	for _, s := range []string{mouseToBlack, addressW544, userAddress, returnEspresso, exchangeShoes, `{}`, `null`, `{"order_id": null}`,
		`{"order_id": "#W5442520", "item_ids": ["3330317167", null], "new_item_ids": [], "payment_method_id": 1}`} {
		f.Add(uint8(0), s)
		f.Add(uint8(7), s)
	}
	f.Fuzz(func(t *testing.T, which uint8, args string) {
		p := preds[int(which)%len(preds)]
		decoded, fail := d.DecodeArgs(p.Tool, json.RawMessage(args))
		if fail != nil {
			if fail.Reason == "" {
				t.Errorf("%s: arguments failure without a reason", p.ID)
			}
			return
		}
		o := p.Check(l, decoded)
		if o.Decision != ledger.Allow && o.Decision != ledger.Revise && o.Decision != ledger.Block {
			t.Errorf("%s: decision %q", p.ID, o.Decision)
		}
		if o.Decision != ledger.Allow && o.Reason == "" {
			t.Errorf("%s: %s without a reason", p.ID, o.Decision)
		}
	})
}
