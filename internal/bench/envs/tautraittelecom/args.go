package tautraittelecom

import "github.com/ledgerbench/ledgerbench/internal/core/tool"

// Argument structs, one per tool, in the parameter order of upstream's
// invoke. A field with omitempty is an optional parameter. Arguments are
// tool.Value types: upstream checks no types, so each tool meets a value of
// the wrong type where and as its Python code does.

type emailArgs struct {
	Email tool.StrValue `json:"email"`
}

type phoneArgs struct {
	Phone tool.StrValue `json:"phone"`
}

type customerArgs struct {
	CustomerID tool.StrValue `json:"customer_id"`
}

type serviceArgs struct {
	ServiceID tool.StrValue `json:"service_id"`
}

type deviceArgs struct {
	DeviceName tool.StrValue `json:"device_name"`
}

type ticketArgs struct {
	TicketID tool.StrValue `json:"ticket_id"`
}

type noArgs struct{}

type discountArgs struct {
	OriginalPrice tool.StrValue `json:"original_price"`
}

type manageServiceArgs struct {
	CustomerID tool.StrValue     `json:"customer_id"`
	Action     tool.StrValue     `json:"action"`
	ServiceID  tool.StrValue     `json:"service_id,omitempty"`
	DevicesIDs tool.StrListValue `json:"devices_ids,omitempty"`
}

type troubleshootArgs struct {
	DeviceName tool.StrValue `json:"device_name"`
	Issue      tool.StrValue `json:"issue"`
}

type createTicketArgs struct {
	CustomerID tool.StrValue `json:"customer_id"`
	Category   tool.StrValue `json:"category"`
	Priority   tool.StrValue `json:"priority,omitempty"`
}

type addDeviceArgs struct {
	CustomerID tool.StrValue `json:"customer_id"`
	DeviceName tool.StrValue `json:"device_name"`
}

type manageBillingArgs struct {
	CustomerID   tool.StrValue  `json:"customer_id"`
	Paperless    tool.BoolValue `json:"paperless"`
	AutoPay      tool.BoolValue `json:"auto_pay"`
	BillingCycle tool.StrValue  `json:"billing_cycle"`
}

type modifyTicketArgs struct {
	TicketID tool.StrValue `json:"ticket_id"`
	Status   tool.StrValue `json:"status"`
	Priority tool.StrValue `json:"priority"`
}

type paymentArgs struct {
	CustomerID tool.StrValue `json:"customer_id"`
	Amount     tool.NumValue `json:"amount"`
	Method     tool.StrValue `json:"method"`
	Date       tool.StrValue `json:"date"`
}

type calculateArgs struct {
	Expression tool.StrValue `json:"expression"`
}

type thinkArgs struct {
	Thought tool.StrValue `json:"thought"`
}
