package v1retail

import "github.com/ledgerbench/ledgerbench/internal/core/tool"

// Argument structs, one per tool, in the order of invoke's parameters
// (after data). Every parameter is required; the values are what json.loads
// made of them (tool.Value types: upstream checks no types).

type expressionArgs struct {
	Expression tool.StrValue `json:"expression"`
}

type cancelArgs struct {
	OrderID tool.StrValue `json:"order_id"`
	Reason  tool.StrValue `json:"reason"`
}

type itemsArgs struct {
	OrderID         tool.StrValue     `json:"order_id"`
	ItemIDs         tool.StrListValue `json:"item_ids"`
	NewItemIDs      tool.StrListValue `json:"new_item_ids"`
	PaymentMethodID tool.StrValue     `json:"payment_method_id"`
}

type emailArgs struct {
	Email tool.StrValue `json:"email"`
}

type nameZipArgs struct {
	FirstName tool.StrValue `json:"first_name"`
	LastName  tool.StrValue `json:"last_name"`
	Zip       tool.StrValue `json:"zip"`
}

type orderArgs struct {
	OrderID tool.StrValue `json:"order_id"`
}

type productArgs struct {
	ProductID tool.StrValue `json:"product_id"`
}

type userArgs struct {
	UserID tool.StrValue `json:"user_id"`
}

type noArgs struct{}

type orderAddressArgs struct {
	OrderID  tool.StrValue `json:"order_id"`
	Address1 tool.StrValue `json:"address1"`
	Address2 tool.StrValue `json:"address2"`
	City     tool.StrValue `json:"city"`
	State    tool.StrValue `json:"state"`
	Country  tool.StrValue `json:"country"`
	Zip      tool.StrValue `json:"zip"`
}

type paymentArgs struct {
	OrderID         tool.StrValue `json:"order_id"`
	PaymentMethodID tool.StrValue `json:"payment_method_id"`
}

type userAddressArgs struct {
	UserID   tool.StrValue `json:"user_id"`
	Address1 tool.StrValue `json:"address1"`
	Address2 tool.StrValue `json:"address2"`
	City     tool.StrValue `json:"city"`
	State    tool.StrValue `json:"state"`
	Country  tool.StrValue `json:"country"`
	Zip      tool.StrValue `json:"zip"`
}

type returnArgs struct {
	OrderID         tool.StrValue     `json:"order_id"`
	ItemIDs         tool.StrListValue `json:"item_ids"`
	PaymentMethodID tool.StrValue     `json:"payment_method_id"`
}

type thoughtArgs struct {
	Thought tool.StrValue `json:"thought"`
}

type summaryArgs struct {
	Summary tool.StrValue `json:"summary"`
}
