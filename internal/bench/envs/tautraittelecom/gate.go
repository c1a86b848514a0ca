package tautraittelecom

// LedgerAgent's policy gate for tautrait-telecom: Go predicates over the
// ledger (see ledger.go), grouped per write tool. Each cites the heading of
// wiki.md it enforces ("loop prevention" names a rule, not a heading).
// Verdicts: REVISE when the call can be fixed (a customer not looked up,
// evidence to read, a device or service the customer's details do not
// show, a switch that skips the removal, an argument of the wrong type),
// BLOCK when the policy leaves no alternative (a second ticket for the same
// issue, a write already sent).
//
//	rule                 tools                                  clause                 verdict
//	-------------------  -------------------------------------  ---------------------  -------
//	arguments            all six                                the tool's section     REVISE
//	customer_known       all but modify_ticket; not `list`      Authentication         REVISE
//	devices_on_record    manage_service add                     Services               REVISE
//	switch_removes_old   manage_service add                     Services               REVISE
//	service_on_record    manage_service remove                  Services               REVISE
//	ticket_known         modify_support_ticket                  Domain Basic           REVISE
//	ticket_levels        create, modify_support_ticket          Domain Basic           REVISE
//	one_ticket_per_issue create_support_ticket                  Domain Basic           BLOCK (REVISE while in flight)
//	not_repeated         the other five                         loop prevention        BLOCK (REVISE while in flight)
//
// What wiki.md says and how it is read here:
//   - "Authentication": a customer located by email or phone has their id
//     read back; the id a write acts for must be one this conversation has
//     located (find_customer_by_*) or whose details or billing it has read.
//     The wiki sets no stricter identity check (tasks give the customer id
//     outright), so reading the customer's details counts.
//   - "Services": "The device ids can be found in the customer's information
//     details": a service is added with devices the customer's details show
//     (read after any add_device of this conversation, which assigns the id
//     the next read shows). "When removing a service, all devices
//     associated with that service will be removed from that service": the
//     service removed must be one the details show. "If the user seeks to
//     switch out one service for another, you must remove the old service,
//     then add the new service": a device attached to another of the
//     customer's services may join the new one only after that service was
//     removed (the details read after the removal show the device free, or
//     the removal is in the write log). manage_service's list action changes
//     nothing and is not judged.
//   - "Domain Basic": "Do not make more than one support ticket for the same
//     issue": a second ticket of the same customer and category in one
//     conversation is refused. A ticket is modified only once read (or
//     created here) and only for the customer the conversation is about.
//     "the status of the ticket (open or closed) and its priority level
//     (low, medium, high). Low is non-urgent, medium is standard, high is
//     important, and urgent is critical": a ticket's priority is one of
//     those four, its status open or closed.
//   - The preamble's confirmation rule (list the actions, get an explicit
//     yes) is about the conversation, not about state: the ledger holds read
//     returns only, so no predicate judges it.
//
// Observe, don't assume: a write the gate let through changes no ledger
// entry; the loop predicates treat a logged write as possibly applied.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Policy headings of wiki.md cited by the predicates.
const (
	clausePreamble = "Telecom Agent Policy"
	clauseBasic    = "Domain Basic"
	clauseServices = "Services"
	clauseAuth     = "Authentication"
	// clauseLoop names a rule, not a heading: not sending again a write that
	// was already sent.
	clauseLoop = "loop prevention"
)

// writeTools are the domain's write tools.
var writeTools = []string{toolManageService, toolCreateTicket, toolAddDevice, toolManageBilling, toolModifyTicket, toolRecordPayment}

// writeArgs is a write's arguments as the gate reads them (the strings and
// lists the tools document); a value of another type is the `arguments`
// failure.
type writeArgs struct {
	CustomerID string
	Action     string
	ServiceID  string
	DeviceIDs  []string
	Category   string
	Priority   string
	Status     string
	TicketID   string
	DeviceName string
	// call is the call's arguments, canonically (sorted keys): what the
	// loop predicates compare.
	call string
}

// decodeWrite decodes a write's arguments with the tool's own decoder and
// reads them as writeArgs; problem says what the gate cannot judge.
func (d *Domain) decodeWrite(name string, raw json.RawMessage) (writeArgs, string) {
	v, err := d.Toolset().Decode(name, raw)
	if err != nil {
		return writeArgs{}, err.Error()
	}
	if err := tool.CheckTypes(v); err != nil {
		return writeArgs{}, err.Error()
	}
	var a writeArgs
	switch x := v.(type) {
	case *manageServiceArgs:
		a.CustomerID, a.Action, a.ServiceID = x.CustomerID.Text(), x.Action.Text(), x.ServiceID.Text()
		if list, ok := x.DevicesIDs.V.([]any); ok {
			for _, it := range list {
				s, _ := it.(string)
				a.DeviceIDs = append(a.DeviceIDs, s)
			}
		}
	case *createTicketArgs:
		a.CustomerID, a.Category, a.Priority = x.CustomerID.Text(), x.Category.Text(), x.Priority.Text()
		if !x.Priority.Passed {
			a.Priority = "medium"
		}
	case *addDeviceArgs:
		a.CustomerID, a.DeviceName = x.CustomerID.Text(), x.DeviceName.Text()
	case *manageBillingArgs:
		a.CustomerID = x.CustomerID.Text()
	case *modifyTicketArgs:
		a.TicketID, a.Status, a.Priority = x.TicketID.Text(), x.Status.Text(), x.Priority.Text()
	case *paymentArgs:
		a.CustomerID = x.CustomerID.Text()
	default:
		return a, fmt.Sprintf("%s is not a write tool", name)
	}
	if tree, err := pyjson.Decode(raw); err == nil {
		if b, err := pyjson.MarshalOptions(tree, pyjson.Options{SortKeys: true}); err == nil {
			a.call = string(b)
		}
	}
	return a, ""
}

// DecodeArgs implements ledgeragent.Policy: a write's arguments as
// writeArgs, or the `arguments` failure.
func (d *Domain) DecodeArgs(name string, raw json.RawMessage) (any, *ledger.Failure) {
	return ledger.DecodeTool("telecom", name, raw, func(name string, raw json.RawMessage) (any, error) {
		a, problem := d.decodeWrite(name, raw)
		if problem != "" {
			return nil, errors.New(problem)
		}
		return &a, nil
	}, argsClause)
}

// argsClause is the policy section of a write tool's arguments.
func argsClause(name string) string {
	switch name {
	case toolManageService, toolAddDevice:
		return clauseServices
	case toolCreateTicket, toolModifyTicket:
		return clauseBasic
	}
	return clausePreamble
}

func predicate(name, rule, clause string, check func(c ledger.Call[*writeArgs]) ledger.Outcome) ledger.Predicate {
	return ledger.Rule("telecom", name, rule, clause, check)
}

// GatePredicates implements ledgeragent.Policy.
func (d *Domain) GatePredicates() []ledger.Predicate {
	var out []ledger.Predicate
	for _, w := range []string{toolManageService, toolCreateTicket, toolAddDevice, toolManageBilling, toolRecordPayment} {
		out = append(out, predicate(w, "customer_known", clauseAuth, checkCustomerKnown))
	}
	out = append(out,
		predicate(toolManageService, "devices_on_record", clauseServices, checkDevicesOnRecord),
		predicate(toolManageService, "switch_removes_old", clauseServices, checkSwitchRemovesOld),
		predicate(toolManageService, "service_on_record", clauseServices, checkServiceOnRecord),
		predicate(toolModifyTicket, "ticket_known", clauseBasic, checkTicketKnown),
		predicate(toolCreateTicket, "one_ticket_per_issue", clauseBasic, checkOneTicket),
		predicate(toolCreateTicket, "ticket_levels", clauseBasic, checkTicketLevels),
		predicate(toolModifyTicket, "ticket_levels", clauseBasic, checkTicketLevels),
	)
	for _, w := range []string{toolManageService, toolAddDevice, toolManageBilling, toolModifyTicket, toolRecordPayment} {
		out = append(out, predicate(w, "not_repeated", clauseLoop, checkNotRepeated))
	}
	return out
}

// listing reports a manage_service call that only lists (changes nothing).
func listing(c ledger.Call[*writeArgs]) bool {
	return c.Tool == toolManageService && c.Args.Action == "list"
}

func checkCustomerKnown(c ledger.Call[*writeArgs]) ledger.Outcome {
	if listing(c) || known(c.Ledger, c.Args.CustomerID) {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per the telecom policy (Authentication), act only for the customer this conversation is about: customer %q has not been located (find_customer_by_email / find_customer_by_phone) nor their details read. Locate the customer, or read their details, first.", c.Args.CustomerID))
}

// adding reports a manage_service add this predicate judges: the customer
// is known (customer_known reports otherwise).
func adding(c ledger.Call[*writeArgs], action string) bool {
	return c.Tool == toolManageService && c.Args.Action == action && known(c.Ledger, c.Args.CustomerID)
}

// readSinceWrite reports whether the customer's details were read after
// every logged write for that customer that could change them.
func readSinceWrite(l *ledger.Ledger, cid string) bool {
	seq := l.Seq(prefixCustomers + cid)
	for _, w := range l.Writes() {
		a, _ := w.Decoded.(*writeArgs)
		if a == nil || a.CustomerID != cid || (w.Tool != toolAddDevice && w.Tool != toolManageService) || (w.Tool == toolManageService && a.Action == "list") {
			continue
		}
		if w.Seq > seq {
			return false
		}
	}
	return true
}

func checkDevicesOnRecord(c ledger.Call[*writeArgs]) ledger.Outcome {
	if !adding(c, "add") || len(c.Args.DeviceIDs) == 0 {
		return ledger.OK
	}
	cv := ledgerCustomer(c.Ledger, c.Args.CustomerID)
	if cv == nil {
		return ledger.NeedRevise(fmt.Sprintf("Per the telecom policy (Services), the device ids of a service come from the customer's details: read get_customer_details for %s first.", c.Args.CustomerID))
	}
	for _, id := range c.Args.DeviceIDs {
		if !slices.ContainsFunc(cv.Devices, func(dv DeviceView) bool { return dv.DeviceID == id }) {
			hint := ""
			if !readSinceWrite(c.Ledger, c.Args.CustomerID) {
				hint = " A device added in this conversation gets its id when the details are read again."
			}
			return ledger.NeedRevise(fmt.Sprintf("Per the telecom policy (Services), device ids come from the customer's details: %s's details show no device %q (they show %s).%s Use the ids shown, or read the details again.",
				c.Args.CustomerID, id, deviceList(cv), hint))
		}
	}
	return ledger.OK
}

func deviceList(cv *CustomerView) string {
	if len(cv.Devices) == 0 {
		return "no devices"
	}
	parts := make([]string, len(cv.Devices))
	for i, dv := range cv.Devices {
		parts[i] = dv.DeviceID + " " + dv.Name
	}
	return strings.Join(parts, ", ")
}

// removed reports whether a logged write of this conversation removed the
// customer's service.
func removed(l *ledger.Ledger, cid, service string) bool {
	for _, w := range l.Writes() {
		if a, _ := w.Decoded.(*writeArgs); w.Tool == toolManageService && a != nil && a.CustomerID == cid && a.Action == "remove" && a.ServiceID == service && (!w.Done || w.Succeeded) {
			return true
		}
	}
	return false
}

func checkSwitchRemovesOld(c ledger.Call[*writeArgs]) ledger.Outcome {
	if !adding(c, "add") || len(c.Args.DeviceIDs) == 0 {
		return ledger.OK
	}
	cv := ledgerCustomer(c.Ledger, c.Args.CustomerID)
	if cv == nil {
		return ledger.OK // devices_on_record asks for the read
	}
	for _, id := range c.Args.DeviceIDs {
		for _, dv := range cv.Devices {
			if dv.DeviceID != id || dv.Service == "" || dv.Service == c.Args.ServiceID || !slices.Contains(cv.Services, dv.Service) || removed(c.Ledger, cv.CustomerID, dv.Service) {
				continue
			}
			return ledger.NeedRevise(fmt.Sprintf("Per the telecom policy (Services), switching a service out means removing the old service first, then adding the new one with its devices: device %s (%s) is on %s, which has not been removed. Remove %s first (if the customer wants the switch), or leave the device out.",
				dv.DeviceID, dv.Name, dv.Service, dv.Service))
		}
	}
	return ledger.OK
}

func checkServiceOnRecord(c ledger.Call[*writeArgs]) ledger.Outcome {
	if !adding(c, "remove") {
		return ledger.OK
	}
	cv := ledgerCustomer(c.Ledger, c.Args.CustomerID)
	if cv == nil {
		return ledger.NeedRevise(fmt.Sprintf("Per the telecom policy (Services), a service is removed from the services the customer has: read get_customer_details for %s first.", c.Args.CustomerID))
	}
	if !slices.Contains(cv.Services, c.Args.ServiceID) {
		return ledger.NeedRevise(fmt.Sprintf("Per the telecom policy (Services), only a service the customer has can be removed: %s's details show %s, not %q.",
			c.Args.CustomerID, strings.Join(cv.Services, ", "), c.Args.ServiceID))
	}
	return ledger.OK
}

func checkTicketKnown(c ledger.Call[*writeArgs]) ledger.Outcome {
	t := ledgerTicket(c.Ledger, c.Args.TicketID)
	if t == nil {
		return ledger.NeedRevise(fmt.Sprintf("Per the telecom policy (Domain Basic), a support ticket belongs to a customer: read get_support_ticket_details for %q first.", c.Args.TicketID))
	}
	if !known(c.Ledger, t.CustomerID) {
		return ledger.NeedRevise(fmt.Sprintf("Per the telecom policy (Domain Basic, Authentication), ticket %s is customer %s's, whom this conversation has not located: modify only the tickets of the customer you are helping.", t.TicketID, t.CustomerID))
	}
	return ledger.OK
}

// Ticket priorities and statuses as Domain Basic names them.
var (
	ticketLevels   = []string{"low", "medium", "high", "urgent"}
	ticketStatuses = []string{"open", "closed"}
)

func checkTicketLevels(c ledger.Call[*writeArgs]) ledger.Outcome {
	if !slices.Contains(ticketLevels, c.Args.Priority) {
		return ledger.NeedRevise(fmt.Sprintf("Per the telecom policy (Domain Basic), a ticket's priority is low (non-urgent), medium (standard), high (important) or urgent (critical, within 24 hours), not %q: determine the urgency and use one of them.", c.Args.Priority))
	}
	if c.Tool == toolModifyTicket && !slices.Contains(ticketStatuses, c.Args.Status) {
		return ledger.NeedRevise(fmt.Sprintf("Per the telecom policy (Domain Basic), a ticket's status is open or closed, not %q.", c.Args.Status))
	}
	return ledger.OK
}

func checkOneTicket(c ledger.Call[*writeArgs]) ledger.Outcome {
	for _, w := range c.Ledger.Writes() {
		a, _ := w.Decoded.(*writeArgs)
		if w.Tool != toolCreateTicket || a == nil || a.CustomerID != c.Args.CustomerID || a.Category != c.Args.Category || (w.Done && !w.Succeeded) {
			continue
		}
		if !w.Done {
			return ledger.NeedRevise("Per the telecom policy (Domain Basic), do not make more than one support ticket for the same issue: a " + a.Category + " ticket for " + a.CustomerID + " was just requested; wait for its result.")
		}
		return ledger.Refuse("Per the telecom policy (Domain Basic), do not make more than one support ticket for the same issue: this conversation already created a " + a.Category + " ticket for " + a.CustomerID + ".")
	}
	return ledger.OK
}

func checkNotRepeated(c ledger.Call[*writeArgs]) ledger.Outcome {
	if listing(c) || c.Args.call == "" {
		return ledger.OK
	}
	for _, w := range c.Ledger.Writes() {
		a, _ := w.Decoded.(*writeArgs)
		if w.Tool != c.Tool || a == nil || a.call != c.Args.call || (w.Done && !w.Succeeded) {
			continue
		}
		if !w.Done {
			return ledger.NeedRevise("The same " + c.Tool + " call was just sent; wait for its result instead of sending it again.")
		}
		return ledger.Refuse("This " + c.Tool + " call was already sent in this conversation with the same arguments and returned; sending it again repeats the change. Read the record to see its effect.")
	}
	return ledger.OK
}
