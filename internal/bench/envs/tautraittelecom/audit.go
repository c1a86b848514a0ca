package tautraittelecom

// Gate audits for tautrait-telecom (ledgeragent.Auditor): the reads a
// careful agent makes before each write, and gold writes turned into named
// policy violations. Each kind applies only where the call has the argument
// and the ledger or the data offers a realistic wrong value:
//
//	kind                    tools                        the violation
//	----------------------  ---------------------------  ---------------------------------------------------------
//	foreign_customer        all but modify_ticket;       another customer, whom the conversation has not looked up
//	                        not manage_service list
//	unlisted_device         manage_service add           the next device id, which the customer's details do not show
//	switch_without_remove   manage_service add           a device of the customer still on another of their services
//	service_not_on_record   manage_service remove        a service of the same category the customer does not have
//	repeat_write            all six                      the last earlier write of the conversation that returned
//	                                                     without an exception, sent again (a second ticket for
//	                                                     the same issue when it was create_support_ticket)
//
// (Every listed write of the gold tasks comes after the evidence reads, so
// the ledger holds the customer's details as the write finds them.)

import (
	"encoding/json"
	"strconv"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Mutation kinds.
const (
	MutForeignCustomer     = "foreign_customer"
	MutUnlistedDevice      = "unlisted_device"
	MutSwitchWithoutRemove = "switch_without_remove"
	MutServiceNotOnRecord  = "service_not_on_record"
	MutRepeatWrite         = "repeat_write"
)

// EvidenceReads implements ledgeragent.Auditor: before a write for a
// customer a careful agent reads the customer's details (their services and
// devices, as the write finds them); before a payment also the billing;
// before changing a ticket the ticket and its customer. Listing services
// needs nothing.
func (d *Domain) EvidenceReads(name string, args json.RawMessage) []message.ToolCall {
	a, _ := d.decodeWrite(name, args)
	switch {
	case name == toolManageService && a.Action == "list":
		return nil
	case name == toolModifyTicket:
		out := []message.ToolCall{ledger.ToolCall("get_support_ticket_details", "ticket_id", a.TicketID)}
		if t, ok := d.ticket(a.TicketID); ok {
			out = append(out, ledger.ToolCall("get_customer_details", "customer_id", t))
		}
		return out
	case a.CustomerID == "":
		return nil
	case name == toolRecordPayment:
		return []message.ToolCall{ledger.ToolCall("get_customer_details", "customer_id", a.CustomerID), ledger.ToolCall("get_billing_details", "customer_id", a.CustomerID)}
	}
	return []message.ToolCall{ledger.ToolCall("get_customer_details", "customer_id", a.CustomerID)}
}

// ticket is the customer of a ticket in the data as loaded.
func (d *Domain) ticket(id string) (string, bool) {
	t, ok := d.DB().Table("support_tickets")
	if !ok {
		return "", false
	}
	rec, ok := t.Get(id)
	if !ok || rec == nil {
		return "", false
	}
	c, _ := rec.Get("customer_id")
	s, ok := c.(string)
	return s, ok
}

// withArg is a call's arguments with one of them replaced.
func withArg(args json.RawMessage, key string, v any) json.RawMessage {
	tree, err := pyjson.Decode(args)
	d, ok := tree.(*pyjson.Dict)
	if err != nil || !ok {
		return nil
	}
	c := &pyjson.Dict{Keys: append([]string(nil), d.Keys...), Values: append([]any(nil), d.Values...)}
	c.Set(key, v)
	b, err := c.MarshalJSON()
	if err != nil {
		return nil
	}
	return b
}

// Mutations implements ledgeragent.Auditor.
func (d *Domain) Mutations(name string, args json.RawMessage, l *ledger.Ledger) []ledger.Mutation {
	a, problem := d.decodeWrite(name, args)
	if problem != "" || (name == toolManageService && a.Action == "list") {
		return nil
	}
	var out []ledger.Mutation
	add := func(kind string, raw json.RawMessage) {
		if raw != nil {
			out = append(out, ledger.Mutation{Kind: kind, Tool: name, Args: raw})
		}
	}
	if name != toolModifyTicket {
		if other := d.otherCustomer(l); other != "" {
			add(MutForeignCustomer, withArg(args, "customer_id", other))
		}
	}
	cv := ledgerCustomer(l, a.CustomerID)
	switch {
	case name == toolManageService && a.Action == "add" && cv != nil:
		if len(a.DeviceIDs) > 0 {
			add(MutUnlistedDevice, withArg(args, "devices_ids", []any{strconv.Itoa(len(cv.Devices) + 1)}))
		}
		for _, dv := range cv.Devices {
			if dv.Service != "" && dv.Service != a.ServiceID && contains(cv.Services, dv.Service) && !removed(l, cv.CustomerID, dv.Service) {
				add(MutSwitchWithoutRemove, withArg(args, "devices_ids", []any{dv.DeviceID}))
				break
			}
		}
	case name == toolManageService && a.Action == "remove" && cv != nil:
		if s := d.serviceNotHeld(a.ServiceID, cv); s != "" {
			add(MutServiceNotOnRecord, withArg(args, "service_id", s))
		}
	}
	if ws := l.Writes(); len(ws) > 0 {
		if last := ws[len(ws)-1]; last.Done && last.Succeeded && !isListing(last) {
			out = append(out, ledger.Mutation{Kind: MutRepeatWrite, Tool: last.Tool, Args: last.Args})
		}
	}
	return out
}

func isListing(w ledger.WriteRecord) bool {
	a, _ := w.Decoded.(*writeArgs)
	return a != nil && a.Action == "list"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// otherCustomer is the first customer of the data the conversation has not
// looked up.
func (d *Domain) otherCustomer(l *ledger.Ledger) string {
	t, ok := d.DB().Table("customers")
	if !ok {
		return ""
	}
	for _, id := range t.Keys() {
		if !known(l, id) {
			return id
		}
	}
	return ""
}

// serviceNotHeld is a catalog service of the removed service's category that
// the customer's details do not list.
func (d *Domain) serviceNotHeld(service string, cv *CustomerView) string {
	t, ok := d.DB().Table("services")
	if !ok {
		return ""
	}
	cat := ""
	if rec, ok := t.Get(service); ok && rec != nil {
		v, _ := rec.Get("category")
		cat, _ = v.(string)
	}
	for id, rec := range t.All() {
		v, _ := rec.Get("category")
		if c, _ := v.(string); c == cat && !contains(cv.Services, id) {
			return id
		}
	}
	return ""
}
