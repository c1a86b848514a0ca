package retail

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

var update = flag.Bool("update", false, "update golden files")

// fixtureDomain builds a domain over testdata/fixture_db.json, a small
// database written for these tests: duplicate items in an order, a product
// name used twice, an item id shared by two products, a non-ASCII name,
// int prices, extra keys, an order paid twice, an order paid with a method
// the user no longer has, an order without payments, an order of an
// unknown user, and gift cards with small balances.
func fixtureDomain(tb testing.TB) *Domain {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "fixture_db.json"))
	if err != nil {
		tb.Fatal(err)
	}
	db, err := DecodeDB(raw)
	if err != nil {
		tb.Fatalf("DecodeDB: %v", err)
	}
	return New(db, "policy", nil)
}

type call struct {
	name string
	args string
}

type toolCase struct {
	name  string
	calls []call
}

func c(name, args string) call { return call{name, args} }

// toolCases run on a fresh fixture environment each; every call's tool
// message goes to testdata/tools.golden. Cases are grouped by tool and cover
// every error path and quirk.
var toolCases = []toolCase{
	// calculate
	{"calculate/sum", []call{c("calculate", `{"expression": "3131.1 + 4777.75 + 367.38"}`)}},
	{"calculate/percent", []call{c("calculate", `{"expression": "(1200 - 300) * 0.1"}`)}},
	{"calculate/true-division", []call{c("calculate", `{"expression": "10 / 4"}`)}},
	{"calculate/floor-division", []call{c("calculate", `{"expression": "-7 // 2"}`)}},
	{"calculate/power", []call{c("calculate", `{"expression": "2 ** -1 + 2 ** 10"}`)}},
	{"calculate/float-noise", []call{c("calculate", `{"expression": "0.1 + 0.2"}`)}},
	{"calculate/round-half-even-binary", []call{c("calculate", `{"expression": "2.675 * 1"}`)}},
	{"calculate/big-int", []call{c("calculate", `{"expression": "10 ** 400 / 10 ** 399"}`)}},
	{"calculate/negative-zero", []call{c("calculate", `{"expression": "0 / -7"}`)}},
	{"calculate/invalid-characters", []call{c("calculate", `{"expression": "2 + x"}`)}},
	{"calculate/division-by-zero", []call{c("calculate", `{"expression": "1 / 0"}`)}},
	{"calculate/float-division-by-zero", []call{c("calculate", `{"expression": "1.5 / 0"}`)}},
	{"calculate/unclosed", []call{c("calculate", `{"expression": "3 * (4 + 5"}`)}},
	{"calculate/leading-zero", []call{c("calculate", `{"expression": "01 + 2"}`)}},
	{"calculate/empty", []call{c("calculate", `{"expression": ""}`)}},
	{"calculate/null", []call{c("calculate", `{"expression": null}`)}},
	{"calculate/missing-arg", []call{c("calculate", `{}`)}},
	{"calculate/unexpected-arg", []call{c("calculate", `{"expression": "1", "precision": 2}`)}},

	// cancel_pending_order
	{"cancel/gift-card-refund", []call{
		c("cancel_pending_order", `{"order_id": "#W1", "reason": "no longer needed"}`),
		c("get_user_details", `{"user_id": "alice_1"}`),
		c("cancel_pending_order", `{"order_id": "#W1", "reason": "no longer needed"}`),
	}},
	{"cancel/two-payments", []call{
		c("cancel_pending_order", `{"order_id": "#W5", "reason": "ordered by mistake"}`),
		c("get_user_details", `{"user_id": "bob_2"}`),
	}},
	{"cancel/strict-pending", []call{c("cancel_pending_order", `{"order_id": "#W4", "reason": "no longer needed"}`)}},
	{"cancel/delivered", []call{c("cancel_pending_order", `{"order_id": "#W2", "reason": "no longer needed"}`)}},
	{"cancel/invalid-reason", []call{c("cancel_pending_order", `{"order_id": "#W1", "reason": "other"}`)}},
	{"cancel/order-not-found", []call{c("cancel_pending_order", `{"order_id": "W1", "reason": "other"}`)}},
	{"cancel/payment-method-gone", []call{
		c("cancel_pending_order", `{"order_id": "#W6", "reason": "no longer needed"}`),
		c("get_order_details", `{"order_id": "#W6"}`),
	}},
	{"cancel/user-not-found", []call{c("cancel_pending_order", `{"order_id": "#W8", "reason": "no longer needed"}`)}},
	{"cancel/missing-args", []call{c("cancel_pending_order", `{}`)}},

	// exchange_delivered_order_items
	{"exchange/one-item", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["2000000002"], "new_item_ids": ["2000000004"], "payment_method_id": "credit_card_1"}`),
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["2000000002"], "new_item_ids": ["2000000004"], "payment_method_id": "credit_card_1"}`),
	}},
	{"exchange/two-items-sorted", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["4000000001", "2000000002"], "new_item_ids": ["4000000002", "2000000001"], "payment_method_id": "paypal_1"}`),
		c("get_user_details", `{"user_id": "alice_1"}`),
	}},
	{"exchange/gift-card-insufficient", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["4000000001"], "new_item_ids": ["4000000002"], "payment_method_id": "gift_card_1"}`),
	}},
	{"exchange/gift-card-refund-no-balance-change", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["2000000002"], "new_item_ids": ["2000000001"], "payment_method_id": "gift_card_1"}`),
		c("get_user_details", `{"user_id": "alice_1"}`),
	}},
	{"exchange/same-item", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["2000000002"], "new_item_ids": ["2000000002"], "payment_method_id": "credit_card_1"}`),
	}},
	{"exchange/no-items-int-difference", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": [], "new_item_ids": [], "payment_method_id": "credit_card_1"}`),
	}},
	{"exchange/not-delivered", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W1", "item_ids": ["2000000001"], "new_item_ids": ["2000000002"], "payment_method_id": "gift_card_1"}`),
	}},
	{"exchange/count", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["2000000002", "2000000002"], "new_item_ids": ["2000000001", "2000000004"], "payment_method_id": "credit_card_1"}`),
	}},
	{"exchange/length", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["2000000002"], "new_item_ids": [], "payment_method_id": "credit_card_1"}`),
	}},
	{"exchange/unavailable", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["2000000002"], "new_item_ids": ["2000000003"], "payment_method_id": "credit_card_1"}`),
	}},
	{"exchange/other-product", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["2000000002"], "new_item_ids": ["3000000001"], "payment_method_id": "credit_card_1"}`),
	}},
	{"exchange/payment-method-not-found", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["2000000002"], "new_item_ids": ["2000000001"], "payment_method_id": "paypal_2"}`),
	}},
	{"exchange/null-items", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": null, "new_item_ids": [], "payment_method_id": "credit_card_1"}`),
	}},
	{"exchange/null-new-items", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": [], "new_item_ids": null, "payment_method_id": "credit_card_1"}`),
	}},
	{"exchange/order-not-found", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W0", "item_ids": [], "new_item_ids": [], "payment_method_id": "credit_card_1"}`),
	}},

	// find_user_id_by_name_zip, find_user_id_by_email
	{"find-name-zip/first-match-case-insensitive", []call{c("find_user_id_by_name_zip", `{"first_name": "alice", "last_name": "SMITH", "zip": "78701"}`)}},
	{"find-name-zip/zip-mismatch", []call{c("find_user_id_by_name_zip", `{"first_name": "Alice", "last_name": "Smith", "zip": "78702"}`)}},
	{"find-name-zip/python-lower", []call{
		c("find_user_id_by_name_zip", `{"first_name": "\u0130ris", "last_name": "Kaya", "zip": "02108"}`),
		c("find_user_id_by_name_zip", `{"first_name": "IRIS", "last_name": "kaya", "zip": "02108"}`),
	}},
	{"find-name-zip/null-first-name", []call{c("find_user_id_by_name_zip", `{"first_name": null, "last_name": "Kaya", "zip": "02108"}`)}},
	{"find-name-zip/null-last-name-no-first-match", []call{c("find_user_id_by_name_zip", `{"first_name": "Zed", "last_name": null, "zip": "02108"}`)}},
	{"find-name-zip/null-last-name", []call{c("find_user_id_by_name_zip", `{"first_name": "Bob", "last_name": null, "zip": "02108"}`)}},
	{"find-name-zip/missing-args", []call{c("find_user_id_by_name_zip", `{"first_name": "Bob"}`)}},
	{"find-email/found", []call{c("find_user_id_by_email", `{"email": "alice.smith@EXAMPLE.com"}`)}},
	{"find-email/not-found", []call{c("find_user_id_by_email", `{"email": "nobody@example.com"}`)}},
	{"find-email/null", []call{c("find_user_id_by_email", `{"email": null}`)}},
	{"find-email/wrong-type", []call{c("find_user_id_by_email", `{"email": 42}`)}},

	// reads
	{"get-order/loaded-optional-fields", []call{c("get_order_details", `{"order_id": "#W9"}`)}},
	{"get-order/not-found", []call{c("get_order_details", `{"order_id": "W9"}`)}},
	{"get-product/int-price-extra-key", []call{c("get_product_details", `{"product_id": "1000000002"}`)}},
	{"get-product/not-found", []call{c("get_product_details", `{"product_id": "2000000001"}`)}},
	{"get-item/first-product-wins", []call{c("get_item_details", `{"item_id": "2000000001"}`)}},
	{"get-item/not-found", []call{c("get_item_details", `{"item_id": "1000000001"}`)}},
	{"get-user/payment-methods", []call{c("get_user_details", `{"user_id": "alice_1"}`)}},
	{"get-user/not-found", []call{c("get_user_details", `{"user_id": "alice"}`)}},
	{"list-product-types", []call{c("list_all_product_types", `{}`)}},
	{"list-product-types/unexpected-arg", []call{c("list_all_product_types", `{"limit": 5}`)}},

	// modify_pending_order_address
	{"order-address/pending", []call{
		c("modify_pending_order_address", `{"order_id": "#W1", "address1": "5 New Rd", "address2": "", "city": "Reno", "state": "NV", "country": "USA", "zip": "89501"}`),
	}},
	{"order-address/loose-pending", []call{
		c("modify_pending_order_address", `{"order_id": "#W4", "address1": "5 New Rd", "address2": "Unit \u00e9", "city": "Reno", "state": "NV", "country": "USA", "zip": "89501"}`),
	}},
	{"order-address/not-pending", []call{
		c("modify_pending_order_address", `{"order_id": "#W2", "address1": "5 New Rd", "address2": "", "city": "Reno", "state": "NV", "country": "USA", "zip": "89501"}`),
	}},
	{"order-address/null-field", []call{
		c("modify_pending_order_address", `{"order_id": "#W1", "address1": "5 New Rd", "address2": null, "city": "Reno", "state": "NV", "country": "USA", "zip": "89501"}`),
	}},
	{"order-address/missing-args", []call{
		c("modify_pending_order_address", `{"order_id": "#W1", "address1": "5 New Rd", "city": "Reno", "state": "NV", "country": "USA"}`),
	}},
	{"order-address/not-found", []call{
		c("modify_pending_order_address", `{"order_id": "#W0", "address1": null, "address2": null, "city": "Reno", "state": "NV", "country": "USA", "zip": "89501"}`),
	}},

	// modify_pending_order_items
	{"modify-items/gift-card-payment-unrounded", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["2000000001"], "new_item_ids": ["2000000004"], "payment_method_id": "gift_card_1"}`),
		c("get_user_details", `{"user_id": "alice_1"}`),
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["2000000004"], "new_item_ids": ["2000000001"], "payment_method_id": "gift_card_1"}`),
	}},
	{"modify-items/last-variant-quirk", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["2000000001", "3000000001"], "new_item_ids": ["2000000002", "3000000002"], "payment_method_id": "credit_card_1"}`),
	}},
	{"modify-items/duplicate-items", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["2000000001", "2000000001"], "new_item_ids": ["2000000002", "2000000004"], "payment_method_id": "paypal_1"}`),
	}},
	{"modify-items/gift-card-refund", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["2000000001"], "new_item_ids": ["2000000002"], "payment_method_id": "gift_card_1"}`),
		c("get_user_details", `{"user_id": "alice_1"}`),
	}},
	{"modify-items/small-gift-card", []call{
		c("modify_pending_order_items", `{"order_id": "#W10", "item_ids": ["3000000001"], "new_item_ids": ["3000000003"], "payment_method_id": "gift_card_3"}`),
		c("get_user_details", `{"user_id": "iris_3"}`),
	}},
	{"modify-items/gift-card-insufficient", []call{
		c("modify_pending_order_items", `{"order_id": "#W10", "item_ids": ["2000000002"], "new_item_ids": ["2000000004"], "payment_method_id": "gift_card_3"}`),
	}},
	{"modify-items/no-items", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": [], "new_item_ids": [], "payment_method_id": "gift_card_1"}`),
	}},
	{"modify-items/strict-pending", []call{
		c("modify_pending_order_items", `{"order_id": "#W4", "item_ids": ["3000000002"], "new_item_ids": ["3000000001"], "payment_method_id": "credit_card_1"}`),
	}},
	{"modify-items/count", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["3000000001", "3000000001"], "new_item_ids": ["3000000002", "3000000003"], "payment_method_id": "credit_card_1"}`),
	}},
	{"modify-items/length", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["3000000001"], "new_item_ids": ["3000000002", "3000000003"], "payment_method_id": "credit_card_1"}`),
	}},
	{"modify-items/same-id", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["3000000001"], "new_item_ids": ["3000000001"], "payment_method_id": "credit_card_1"}`),
	}},
	{"modify-items/unavailable", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["2000000001"], "new_item_ids": ["2000000003"], "payment_method_id": "credit_card_1"}`),
	}},
	{"modify-items/variant-not-found", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["2000000001"], "new_item_ids": ["4000000001"], "payment_method_id": "credit_card_1"}`),
	}},
	{"modify-items/payment-method-not-found", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["2000000001"], "new_item_ids": ["2000000002"], "payment_method_id": "gift_card_2"}`),
	}},
	{"modify-items/null-new-items", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": [], "new_item_ids": null, "payment_method_id": "credit_card_1"}`),
	}},
	{"modify-items/items-not-a-list", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": "2000000001", "new_item_ids": ["2000000002"], "payment_method_id": "credit_card_1"}`),
	}},

	// modify_pending_order_payment
	{"modify-payment/from-gift-card", []call{
		c("modify_pending_order_payment", `{"order_id": "#W1", "payment_method_id": "credit_card_1"}`),
		c("get_user_details", `{"user_id": "alice_1"}`),
		c("modify_pending_order_payment", `{"order_id": "#W1", "payment_method_id": "paypal_1"}`),
	}},
	{"modify-payment/to-gift-card-loose-pending", []call{
		c("modify_pending_order_payment", `{"order_id": "#W4", "payment_method_id": "gift_card_1"}`),
		c("get_user_details", `{"user_id": "alice_1"}`),
	}},
	{"modify-payment/two-payments", []call{c("modify_pending_order_payment", `{"order_id": "#W5", "payment_method_id": "gift_card_2"}`)}},
	{"modify-payment/method-checked-first", []call{c("modify_pending_order_payment", `{"order_id": "#W5", "payment_method_id": "credit_card_1"}`)}},
	{"modify-payment/same-method", []call{c("modify_pending_order_payment", `{"order_id": "#W1", "payment_method_id": "gift_card_1"}`)}},
	{"modify-payment/gift-card-insufficient", []call{c("modify_pending_order_payment", `{"order_id": "#W6", "payment_method_id": "gift_card_2"}`)}},
	{"modify-payment/old-method-gone-partial-write", []call{
		c("modify_pending_order_payment", `{"order_id": "#W6", "payment_method_id": "paypal_2"}`),
		c("get_order_details", `{"order_id": "#W6"}`),
	}},
	{"modify-payment/not-pending", []call{c("modify_pending_order_payment", `{"order_id": "#W2", "payment_method_id": "paypal_1"}`)}},
	{"modify-payment/user-not-found", []call{c("modify_pending_order_payment", `{"order_id": "#W8", "payment_method_id": "paypal_0"}`)}},

	// modify_user_address
	{"user-address/ok", []call{
		c("modify_user_address", `{"user_id": "bob_2", "address1": "7 Pine St", "address2": "Floor 3", "city": "Boulder", "state": "CO", "country": "USA", "zip": "80301"}`),
	}},
	{"user-address/not-found", []call{
		c("modify_user_address", `{"user_id": "bob", "address1": null, "address2": "", "city": "Boulder", "state": "CO", "country": "USA", "zip": "80301"}`),
	}},
	{"user-address/two-null-fields", []call{
		c("modify_user_address", `{"user_id": "bob_2", "address1": null, "address2": "", "city": "Boulder", "state": "CO", "country": "USA", "zip": null}`),
	}},
	{"user-address/unexpected-arg", []call{
		c("modify_user_address", `{"user_id": "bob_2", "address": "7 Pine St"}`),
	}},

	// return_delivered_order_items
	{"return/original-method", []call{
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": ["4000000001"], "payment_method_id": "credit_card_1"}`),
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": ["4000000001"], "payment_method_id": "credit_card_1"}`),
	}},
	{"return/gift-card-sorted", []call{
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": ["4000000001", "2000000002"], "payment_method_id": "gift_card_1"}`),
		c("get_user_details", `{"user_id": "alice_1"}`),
	}},
	{"return/not-original-method", []call{
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": ["4000000001"], "payment_method_id": "paypal_1"}`),
	}},
	{"return/count", []call{
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": ["4000000001", "4000000001"], "payment_method_id": "credit_card_1"}`),
	}},
	{"return/not-delivered", []call{
		c("return_delivered_order_items", `{"order_id": "#W1", "item_ids": ["3000000001"], "payment_method_id": "gift_card_1"}`),
	}},
	{"return/no-payment-history", []call{
		c("return_delivered_order_items", `{"order_id": "#W7", "item_ids": ["3000000001"], "payment_method_id": "paypal_2"}`),
		c("return_delivered_order_items", `{"order_id": "#W7", "item_ids": ["3000000001"], "payment_method_id": "gift_card_2"}`),
	}},
	{"return/no-items", []call{
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": [], "payment_method_id": "credit_card_1"}`),
	}},
	{"return/null-items", []call{
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": null, "payment_method_id": "credit_card_1"}`),
	}},
	{"return/payment-method-not-found", []call{
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": ["4000000001"], "payment_method_id": "gift_card_2"}`),
	}},

	// arguments of other JSON types than documented: upstream's code gets
	// them as json.loads made them and fails, or not, on its own
	{"types/calculate", []call{
		c("calculate", `{"expression": 12}`),
		c("calculate", `{"expression": ["1", "+", "2"]}`),
		c("calculate", `{"expression": ["1", 2]}`),
		c("calculate", `{"expression": ["1", "x"]}`),
		c("calculate", `{"expression": {"2*3": 1}}`),
	}},
	{"types/ids", []call{
		c("get_order_details", `{"order_id": 1}`),
		c("get_order_details", `{"order_id": ["#W1"]}`),
		c("get_order_details", `{"order_id": {"#W1": 1}}`),
		c("get_product_details", `{"product_id": 1000000001}`),
		c("get_product_details", `{"product_id": true}`),
		c("get_item_details", `{"item_id": 2000000001}`),
		c("get_item_details", `{"item_id": ["2000000001"]}`),
		c("get_user_details", `{"user_id": 1.5}`),
		c("get_user_details", `{"user_id": {}}`),
	}},
	{"types/find-user", []call{
		c("find_user_id_by_email", `{"email": ["alice.smith@example.com"]}`),
		c("find_user_id_by_email", `{"email": 4.5}`),
		c("find_user_id_by_email", `{"email": false}`),
		c("find_user_id_by_name_zip", `{"first_name": 7, "last_name": "Smith", "zip": "78701"}`),
		c("find_user_id_by_name_zip", `{"first_name": "Alice", "last_name": ["Smith"], "zip": "78701"}`),
		c("find_user_id_by_name_zip", `{"first_name": "Alice", "last_name": "Smith", "zip": 78701}`),
	}},
	{"types/cancel", []call{
		c("cancel_pending_order", `{"order_id": "#W1", "reason": ["no longer needed"]}`),
		c("cancel_pending_order", `{"order_id": "#W1", "reason": 1}`),
		c("cancel_pending_order", `{"order_id": 1, "reason": "no longer needed"}`),
	}},
	{"types/item-lists", []call{
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": "4000000001", "payment_method_id": "credit_card_1"}`),
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": {"4000000001": 1}, "payment_method_id": "credit_card_1"}`),
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": [4000000001], "payment_method_id": "credit_card_1"}`),
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": 4000000001, "payment_method_id": "credit_card_1"}`),
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": ["4000000001"], "payment_method_id": ["credit_card_1"]}`),
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["2000000002"], "new_item_ids": 2000000001, "payment_method_id": "credit_card_1"}`),
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["2000000002"], "new_item_ids": [["2000000001"]], "payment_method_id": "credit_card_1"}`),
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["2000000002"], "new_item_ids": "x", "payment_method_id": "credit_card_1"}`),
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": ["2000000002"], "new_item_ids": [2000000001], "payment_method_id": "credit_card_1"}`),
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": [true], "new_item_ids": ["2000000002"], "payment_method_id": "credit_card_1"}`),
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["2000000001"], "new_item_ids": ["2000000002"], "payment_method_id": 5}`),
	}},
	{"types/empty-non-lists", []call{
		c("exchange_delivered_order_items", `{"order_id": "#W2", "item_ids": {}, "new_item_ids": "", "payment_method_id": "credit_card_1"}`),
		c("return_delivered_order_items", `{"order_id": "#W2", "item_ids": "", "payment_method_id": "credit_card_1"}`),
	}},
	{"types/new-items-dict", []call{
		c("modify_pending_order_items", `{"order_id": "#W1", "item_ids": ["2000000001"], "new_item_ids": {"2000000002": null}, "payment_method_id": "credit_card_1"}`),
	}},
	{"types/addresses", []call{
		c("modify_pending_order_address", `{"order_id": "#W1", "address1": 5, "address2": ["Apt 2"], "city": "Reno", "state": true, "country": "USA", "zip": 89501}`),
		c("modify_user_address", `{"user_id": ["alice_1"], "address1": "5 New Rd", "address2": "", "city": "Reno", "state": "NV", "country": "USA", "zip": "89501"}`),
		c("modify_user_address", `{"user_id": "alice_1", "address1": "5 New Rd", "address2": "", "city": {"name": "Reno"}, "state": "NV", "country": "USA", "zip": 1.5}`),
	}},

	// transfer_to_human_agents and dispatch
	{"transfer/ok", []call{c("transfer_to_human_agents", `{"summary": "The user wants a refund to a new card."}`)}},
	{"transfer/any-summary-type", []call{c("transfer_to_human_agents", `{"summary": {"issue": 1}}`)}},
	{"transfer/missing-summary", []call{c("transfer_to_human_agents", `{}`)}},
	{"dispatch/unknown-tool", []call{c("think", `{"thought": "hmm"}`)}},
	{"dispatch/two-missing", []call{c("modify_pending_order_payment", `{}`)}},
	{"dispatch/three-missing", []call{c("find_user_id_by_name_zip", `{}`)}},
}

// runCase runs a case on a fresh environment and renders its tool messages.
func runCase(ctx context.Context, d *Domain, tc toolCase) []message.Message {
	env := d.NewEnv()
	out := make([]message.Message, len(tc.calls))
	for i, cl := range tc.calls {
		out[i] = envs.Respond(ctx, env, message.ToolCall{ID: fmt.Sprint(i), Name: cl.name, Arguments: json.RawMessage(cl.args)})
	}
	return out
}

func TestToolsGolden(t *testing.T) {
	t.Parallel()
	d := fixtureDomain(t)
	ctx := context.Background()
	var b strings.Builder
	names := make(map[string]bool)
	for _, tc := range toolCases {
		if names[tc.name] {
			t.Fatalf("duplicate case %s", tc.name)
		}
		names[tc.name] = true
		fmt.Fprintf(&b, "=== %s\n", tc.name)
		for i, m := range runCase(ctx, d, tc) {
			status := "ok"
			if m.Error {
				status = "error"
			}
			fmt.Fprintf(&b, "> %s %s\n< %s: %s\n", tc.calls[i].name, tc.calls[i].args, status, m.Content)
		}
	}
	golden(t, "tools.golden", b.String())
}
