package telecom

// LedgerAgent's telecom policy, part 2: the gate predicates over the agent's
// six write tools. Each cites a heading of the composed policy (main_policy.md
// and tech_support_manual.md); every rule below is derived from that text.
//
//	predicate                                     clause                            verdicts
//	--------------------------------------------  --------------------------------  -------------
//	telecom.<write>.customer_identified (all 6)   Customer Lookup                   REVISE
//	telecom.<line write>.line_owned (5 tools)     Customer                          REVISE
//	telecom.suspend_line.line_active              Line Suspension                   REVISE, BLOCK
//	telecom.suspend_line.basis                    Line Suspension                   REVISE, BLOCK
//	telecom.resume_line.line_suspended            Line Suspension                   REVISE, BLOCK
//	telecom.resume_line.overdue_paid              Line Suspension                   REVISE
//	telecom.resume_line.contract_not_ended        Line Suspension                   BLOCK
//	telecom.send_payment_request.bill_owned       Overdue Bill Payment              REVISE
//	telecom.send_payment_request.bill_overdue     Overdue Bill Payment              REVISE, BLOCK
//	telecom.send_payment_request.single_awaiting  Overdue Bill Payment              BLOCK
//	telecom.send_payment_request.once             Overdue Bill Payment              REVISE, BLOCK
//	telecom.enable_roaming.user_line              Addressing Data Roaming Problems  REVISE
//	                                              (telecom-workflow: Step 2.1.2: Verify if user is traveling)
//	telecom.enable_roaming.not_enabled            Data Roaming                      REVISE (a no-op)
//	telecom.enable_roaming.once                   Data Roaming                      BLOCK
//	telecom.disable_roaming.enabled               Data Roaming                      REVISE (a no-op)
//	telecom.refuel_data.user_line                 Data Refueling                    REVISE
//	telecom.refuel_data.amount                    Data Refueling                    REVISE, BLOCK
//	telecom.refuel_data.price_known               Data Refueling                    REVISE
//	telecom.refuel_data.once                      Data Refueling                    BLOCK
//
// Readings of the policy the predicates commit to:
//   - "You must first identify the customer" (Technical Support) and the
//     Customer Lookup section: a write needs the customer's record in the
//     ledger (read by phone, id, or name with date of birth).
//   - A line or bill acted on must be one of the customer's (the profile's
//     line IDs and bill IDs, Domain Basics › Customer).
//   - Line Suspension: a line can be suspended only for an overdue bill or a
//     contract end date in the past; a suspension may be lifted only after
//     every overdue bill is paid (a bill still Overdue or Awaiting Payment
//     counts as unpaid) and never when the contract end date is in the past
//     (today is 2025-02-25 in the policy). resume_line only lifts a
//     suspension: an Active, Pending Activation or Closed line is blocked.
//     Dual control: the user pays on their phone (make_payment is a user
//     tool), so the agent learns of the payment only by reading the bill
//     again, as Overdue Bill Payment asks ("Always check that the bill
//     status is updated to PAID"): a bill read as Overdue before its payment
//     request went out still counts as unpaid, and the REVISE asks for that
//     read, not for another request.
//   - Overdue Bill Payment: the bill must have been read and be Overdue; one
//     bill in AWAITING PAYMENT per customer; a request already sent is not
//     sent again (loop prevention).
//   - Data Refueling: at most 2 GB — read as the line's total refuel in the
//     cycle (data_refueling_gb already on the line plus the new amount);
//     the amount must be a positive number; the price must be known (the
//     line's plan read) so it can be confirmed; one refuel per line per
//     conversation (loop prevention).
//   - Data Roaming / Addressing Data Roaming Problems: enable roaming only on
//     a line read as not roaming enabled, once; refuels and roaming go to
//     "the line associated with the phone number the user provided" — when
//     the agent looked the customer up by a number that is another line's
//     number, acting on a different line is revised.
//
// Missing evidence (a record a predicate needs is not in the ledger) is a
// REVISE naming the read to make. To keep the gate's joined message short,
// only one predicate of a tool reports a given missing record or malformed
// argument; the others allow and let it speak.

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/clip"
	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Policy clauses: headings of the composed policy text.
const (
	clauseLookup     = "Customer Lookup"                  // main_policy.md
	clauseCustomer   = "Customer"                         // main_policy.md, Domain Basics
	clauseSuspension = "Line Suspension"                  // main_policy.md
	clausePayment    = "Overdue Bill Payment"             // main_policy.md
	clauseRefuel     = "Data Refueling"                   // main_policy.md
	clauseRoaming    = "Data Roaming"                     // main_policy.md
	clauseRoamingFix = "Addressing Data Roaming Problems" // tech_support_manual.md
	// The same rule in tech_support_workflow.md (domain telecom-workflow).
	clauseRoamingStep = "Step 2.1.2: Verify if user is traveling"
)

// MaxRefuelGB is the policy's refuel cap ("The maximum amount of data that
// can be refueled is 2GB").
const MaxRefuelGB = 2.0

// refuelEps absorbs float noise when comparing GB amounts.
const refuelEps = 1e-9

// DecodeArgs implements ledgeragent.Policy: a write's arguments decoded once,
// by its tool (tools.go), for all its predicates; what the tool rejects is
// the failure telecom.<tool>.arguments.
func (d *Domain) DecodeArgs(tool string, raw json.RawMessage) (any, *ledger.Failure) {
	return ledger.DecodeTool("telecom", tool, raw, d.decodeArgs, argsClause)
}

// decodeArgs decodes a write's arguments as its tool does and asks for the
// documented types (the tools take any JSON value, as upstream's do);
// gb_amount has its own rule (refuel_amount).
func (d *Domain) decodeArgs(name string, raw json.RawMessage) (any, error) {
	a, err := d.agent.Decode(name, raw)
	if err != nil {
		return nil, err
	}
	if err := tool.CheckTypes(a, tool.Except("gb_amount")...); err != nil {
		return nil, err
	}
	return a, nil
}

// argsClause is the policy section of a write tool's arguments.
func argsClause(tool string) string {
	switch tool {
	case "suspend_line", "resume_line":
		return clauseSuspension
	case "send_payment_request":
		return clausePayment
	case "enable_roaming", "disable_roaming":
		return clauseRoaming
	case "refuel_data":
		return clauseRefuel
	}
	return ""
}

// GatePredicates returns the telecom gate's predicates, grouped by write
// tool in upstream tool order (ledgeragent.Policy).
func (d *Domain) GatePredicates() []ledger.Predicate {
	p := func(tool, rule, clause string, check func(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome) ledger.Predicate {
		return ledger.Typed("telecom."+tool+"."+rule, tool, clause, func(l *ledger.Ledger, a callArgs) ledger.Outcome {
			return check(tool, l, a)
		})
	}
	roamingFix := clauseRoamingFix
	if d.name == WorkflowName {
		roamingFix = clauseRoamingStep
	}
	return []ledger.Predicate{
		p("suspend_line", "customer_identified", clauseLookup, checkIdentified),
		p("suspend_line", "line_owned", clauseCustomer, checkLineOwned),
		p("suspend_line", "line_active", clauseSuspension, checkSuspendActive),
		p("suspend_line", "basis", clauseSuspension, checkSuspendBasis),

		p("resume_line", "customer_identified", clauseLookup, checkIdentified),
		p("resume_line", "line_owned", clauseCustomer, checkLineOwned),
		p("resume_line", "line_suspended", clauseSuspension, checkResumeSuspended),
		p("resume_line", "overdue_paid", clauseSuspension, checkResumePaid),
		p("resume_line", "contract_not_ended", clauseSuspension, checkResumeContract),

		p("send_payment_request", "customer_identified", clauseLookup, checkIdentified),
		p("send_payment_request", "bill_owned", clausePayment, checkBillOwned),
		p("send_payment_request", "bill_overdue", clausePayment, checkBillOverdue),
		p("send_payment_request", "single_awaiting", clausePayment, checkSingleAwaiting),
		p("send_payment_request", "once", clausePayment, checkPaymentOnce),

		p("enable_roaming", "customer_identified", clauseLookup, checkIdentified),
		p("enable_roaming", "line_owned", clauseCustomer, checkLineOwned),
		p("enable_roaming", "user_line", roamingFix, checkUserLine),
		p("enable_roaming", "not_enabled", clauseRoaming, checkRoamingOff),
		p("enable_roaming", "once", clauseRoaming, checkOnce),

		p("disable_roaming", "customer_identified", clauseLookup, checkIdentified),
		p("disable_roaming", "line_owned", clauseCustomer, checkLineOwned),
		p("disable_roaming", "enabled", clauseRoaming, checkRoamingOn),

		p("refuel_data", "customer_identified", clauseLookup, checkIdentified),
		p("refuel_data", "line_owned", clauseCustomer, checkLineOwned),
		p("refuel_data", "user_line", clauseRefuel, checkUserLine),
		p("refuel_data", "amount", clauseRefuel, checkRefuelAmount),
		p("refuel_data", "price_known", clauseRefuel, checkRefuelPrice),
		p("refuel_data", "once", clauseRefuel, checkOnce),
	}
}

// --- arguments ---

// callArgs is a proposed write's arguments: the tool's own argument struct
// (tools.go) as the tool decodes it, read through accessors ("" for an
// argument the tool does not have).
type callArgs interface {
	customer() string
	line() string
	bill() string
}

func (a *suspendArgs) customer() string { return a.CustomerID.Text() }
func (a *suspendArgs) line() string     { return a.LineID.Text() }
func (a *suspendArgs) bill() string     { return "" }
func (a *lineArgs) customer() string    { return a.CustomerID.Text() }
func (a *lineArgs) line() string        { return a.LineID.Text() }
func (a *lineArgs) bill() string        { return "" }
func (a *paymentArgs) customer() string { return a.CustomerID.Text() }
func (a *paymentArgs) line() string     { return "" }
func (a *paymentArgs) bill() string     { return a.BillID.Text() }
func (a *refuelArgs) customer() string  { return a.CustomerID.Text() }
func (a *refuelArgs) line() string      { return a.LineID.Text() }
func (a *refuelArgs) bill() string      { return "" }

func compact(raw json.RawMessage) string {
	return clip.Runes(strings.TrimSpace(string(raw)), 40, "…")
}

// --- ledger access ---

func customerIn(l *ledger.Ledger, id string) *Customer {
	return ledger.Lookup[Customer](l, pathCustomers+id)
}

func lineIn(l *ledger.Ledger, id string) *Line { return ledger.Lookup[Line](l, pathLines+id) }

func billIn(l *ledger.Ledger, id string) *Bill { return ledger.Lookup[Bill](l, pathBills+id) }

func planIn(l *ledger.Ledger, id string) *Plan { return ledger.Lookup[Plan](l, pathPlans+id) }

func usageIn(l *ledger.Ledger, lineID string) *DataUsage {
	return ledger.Lookup[DataUsage](l, pathUsage+lineID)
}

// customerBills returns the customer's bills as the ledger knows them: those
// listed on the customer's record (read or not) and any read bill whose
// customer_id is the customer's. unread lists the listed ids not yet read.
func customerBills(l *ledger.Ledger, c *Customer) (known []*Bill, unread []string) {
	for _, id := range c.BillIDs {
		if b := billIn(l, id); b != nil {
			known = append(known, b)
		} else {
			unread = append(unread, id)
		}
	}
	l.Prefix(pathBills, func(_ string, v any) {
		if b, ok := v.(*Bill); ok && b.CustomerID == c.CustomerID && !slices.Contains(c.BillIDs, b.BillID) {
			known = append(known, b)
		}
	})
	return known, unread
}

func billIDs(bs []*Bill) string {
	ids := make([]string, len(bs))
	for i, b := range bs {
		ids[i] = b.BillID
	}
	return strings.Join(ids, ", ")
}

// contractEnded reports whether the line's contract end date is in the
// past.
func contractEnded(x *Line) bool {
	return x.ContractEndDate != nil && *x.ContractEndDate < today
}

// sentBefore lists the earlier writes of tool that may have taken effect
// (allowed and not known to have failed) and match.
func sentBefore(l *ledger.Ledger, tool string, match func(callArgs) bool) []callArgs {
	var out []callArgs
	for _, w := range l.Writes() {
		if w.Tool != tool || (w.Done && !w.Succeeded) {
			continue
		}
		if a, ok := w.Decoded.(callArgs); ok && match(a) {
			out = append(out, a)
		}
	}
	return out
}

// foreignLine reports whether the ledger shows the line is not the
// customer's (line_owned reports it; line-state predicates then stay quiet).
func foreignLine(l *ledger.Ledger, cid, lid string) bool {
	c := customerIn(l, cid)
	return c != nil && !slices.Contains(c.LineIDs, lid)
}

func missingLine(tool, lid string) ledger.Outcome {
	return ledger.NeedRevise(fmt.Sprintf("Line %s has not been read in this conversation: read it with get_details_by_id (id %s) to check its current state before calling %s.", lid, lid, tool))
}

// --- shared predicates ---

// checkIdentified: the customer's record is in the ledger. It also reports
// a malformed customer_id or argument object for every tool.
func checkIdentified(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid := a.customer()
	if customerIn(l, cid) == nil {
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, identify the customer before changing their account: customer %s has not been looked up in this conversation. Look them up first (get_customer_by_phone with the number the user gave, get_customer_by_id, or get_customer_by_name with their date of birth).", cid))
	}
	return ledger.OK
}

// checkLineOwned: the line is one of the customer's lines. It also reports a
// malformed line_id.
func checkLineOwned(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid, lid := a.customer(), a.line()
	c := customerIn(l, cid)
	if c == nil {
		return ledger.OK
	}
	if !slices.Contains(c.LineIDs, lid) {
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, line %s is not a line of customer %s (%s); the customer's lines are %s. Use one of them.", lid, cid, c.FullName, pyjson.Repr(c.LineIDs)))
	}
	return ledger.OK
}

// checkUserLine: refuels and roaming go to the line of the phone number the
// user provided. The numbers the agent looked this customer up by are the
// numbers the user gave; when one of them is the number of another of the
// customer's lines, acting on this line is revised.
func checkUserLine(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid, lid := a.customer(), a.line()
	c := customerIn(l, cid)
	if c == nil || !slices.Contains(c.LineIDs, lid) {
		return ledger.OK
	}
	var given []string
	l.Prefix(pathPhoneLookups, func(_ string, v any) {
		if p, ok := v.(*PhoneLookup); ok && p.CustomerID == cid {
			given = append(given, p.PhoneNumber)
		}
	})
	if len(given) == 0 {
		return ledger.OK
	}
	target := lineIn(l, lid)
	if target != nil && slices.Contains(given, target.PhoneNumber) {
		return ledger.OK
	}
	var unread []string
	for _, other := range c.LineIDs {
		if other == lid {
			continue
		}
		o := lineIn(l, other)
		if o == nil {
			unread = append(unread, other)
			continue
		}
		if slices.Contains(given, o.PhoneNumber) {
			have := ""
			if target != nil {
				have = fmt.Sprintf(" (line %s is %s)", lid, target.PhoneNumber)
			}
			return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, %s applies to the line associated with the phone number the user provided: %s is line %s, not line %s%s. Use line %s, or if the user asked about another number, look that number up first.", tool, o.PhoneNumber, other, lid, have, other))
		}
	}
	if target != nil && len(unread) > 0 {
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, %s applies to the line associated with the phone number the user provided (%s), but line %s is %s. Read the customer's other lines (%s) to find the line with that number.", tool, strings.Join(given, ", "), lid, target.PhoneNumber, strings.Join(unread, ", ")))
	}
	return ledger.OK
}

// checkOnce: loop prevention for enable_roaming and refuel_data: one call per
// line per conversation.
func checkOnce(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	lid := a.line()
	prev := sentBefore(l, tool, func(p callArgs) bool { return p.line() == lid })
	if len(prev) == 0 {
		return ledger.OK
	}
	if tool == "refuel_data" {
		amount := ""
		if _, text, prob := gbAmount(tool, prev[0]); prob == "" {
			amount = " (" + text + " GB)"
		}
		return ledger.Refuse(fmt.Sprintf("Per telecom policy, data was already refueled for line %s in this conversation%s; do not refuel it again.", lid, amount))
	}
	return ledger.Refuse(fmt.Sprintf("Roaming was already enabled for line %s in this conversation; do not call %s again. Read the line to see its state.", lid, tool))
}

// --- suspend_line ---

func checkSuspendActive(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid, lid := a.customer(), a.line()
	if foreignLine(l, cid, lid) {
		return ledger.OK
	}
	x := lineIn(l, lid)
	switch {
	case x == nil:
		return missingLine(tool, lid)
	case x.Status != LineActive:
		return ledger.Refuse(fmt.Sprintf("Per telecom policy, line %s is %s; only an active line can be suspended.", lid, x.Status))
	}
	return ledger.OK
}

func checkSuspendBasis(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid, lid := a.customer(), a.line()
	c, x := customerIn(l, cid), lineIn(l, lid)
	if c == nil || x == nil || contractEnded(x) {
		return ledger.OK
	}
	known, unread := customerBills(l, c)
	for _, b := range known {
		if b.Status == BillOverdue {
			return ledger.OK
		}
	}
	if len(unread) > 0 {
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, a line can be suspended only for an overdue bill or a past contract end date; read the bills of customer %s (get_bills_for_customer) to check for an overdue bill (not yet read: %s).", cid, strings.Join(unread, ", ")))
	}
	end := "no end date"
	if x.ContractEndDate != nil {
		end = "an end date of " + string(*x.ContractEndDate)
	}
	return ledger.Refuse(fmt.Sprintf("Per telecom policy, a line can be suspended only when the customer has an overdue bill or the line's contract end date is in the past: customer %s has no overdue bill and line %s's contract has %s.", cid, lid, end))
}

// --- resume_line ---

func checkResumeSuspended(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid, lid := a.customer(), a.line()
	if foreignLine(l, cid, lid) {
		return ledger.OK
	}
	x := lineIn(l, lid)
	switch {
	case x == nil:
		return missingLine(tool, lid)
	case x.Status == LineSuspended:
		return ledger.OK
	case x.Status == LineActive:
		return ledger.Refuse(fmt.Sprintf("Per telecom policy, line %s is already Active: there is no suspension to lift.", lid))
	}
	return ledger.Refuse(fmt.Sprintf("Per telecom policy, line %s is %s, not Suspended: resuming only lifts a suspension, which this line does not have.", lid, x.Status))
}

func checkResumePaid(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid := a.customer()
	c := customerIn(l, cid)
	if c == nil {
		return ledger.OK
	}
	known, unread := customerBills(l, c)
	var overdue, waiting []*Bill
	for _, b := range known {
		switch b.Status {
		case BillOverdue:
			overdue = append(overdue, b)
		case BillAwaitingPayment:
			waiting = append(waiting, b)
		}
	}
	// A bill read as Overdue whose payment request went out after that read
	// is awaiting the user's payment, made on their side: only a new read
	// can show it PAID ("Always check that the bill status is updated to
	// PAID", Overdue Bill Payment).
	var requested []*Bill
	overdue = slices.DeleteFunc(overdue, func(b *Bill) bool {
		if requestedSinceRead(l, b) {
			requested = append(requested, b)
			return true
		}
		return false
	})
	switch {
	case len(overdue) > 0:
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, a suspension can be lifted only after the customer has paid all overdue bills: bill %s is Overdue as last read. Send the user a payment request for it and, once they have paid, read the bill again to confirm it is PAID.", billIDs(overdue)))
	case len(requested) > 0:
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, a suspension can be lifted only after the customer has paid all overdue bills: a payment request for bill %s was sent after it was last read (Overdue). Once the user has paid, read the bill again (get_details_by_id) to confirm it is PAID.", billIDs(requested)))
	case len(waiting) > 0:
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, a suspension can be lifted only after the customer has paid all overdue bills: bill %s is Awaiting Payment as last read. Wait for the user to pay, then read the bill again to confirm it is PAID.", billIDs(waiting)))
	case len(unread) > 0:
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, a suspension can be lifted only after the customer has paid all overdue bills: read the bills of customer %s (get_bills_for_customer) to check that none is overdue (not yet read: %s).", cid, strings.Join(unread, ", ")))
	}
	return ledger.OK
}

// requestedSinceRead reports whether a payment request for bill b that did
// not fail was sent after b was last read.
func requestedSinceRead(l *ledger.Ledger, b *Bill) bool {
	read := l.Seq(pathBills + b.BillID)
	for _, w := range l.Writes() {
		if w.Tool != "send_payment_request" || (w.Done && !w.Succeeded) || w.Seq < read {
			continue
		}
		if a, ok := w.Decoded.(callArgs); ok && a.bill() == b.BillID {
			return true
		}
	}
	return false
}

func checkResumeContract(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	lid := a.line()
	if x := lineIn(l, lid); x != nil && contractEnded(x) {
		return ledger.Refuse(fmt.Sprintf("Per telecom policy, the suspension of line %s cannot be lifted: its contract end date (%s) is in the past, even if all overdue bills are paid. Transfer the user to a human agent.", lid, *x.ContractEndDate))
	}
	return ledger.OK
}

// --- send_payment_request ---

func checkBillOwned(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid, bid := a.customer(), a.bill()
	c := customerIn(l, cid)
	if c == nil {
		return ledger.OK
	}
	if slices.Contains(c.BillIDs, bid) {
		return ledger.OK
	}
	if b := billIn(l, bid); b != nil && b.CustomerID == cid {
		return ledger.OK
	}
	return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, bill %s is not a bill of customer %s (%s); the customer's bills are %s.", bid, cid, c.FullName, pyjson.Repr(c.BillIDs)))
}

func checkBillOverdue(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid, bid := a.customer(), a.bill()
	b := billIn(l, bid)
	if c := customerIn(l, cid); c != nil && !slices.Contains(c.BillIDs, bid) && (b == nil || b.CustomerID != cid) {
		return ledger.OK // not the customer's bill: bill_owned reports it
	}
	if b == nil {
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, check that the bill is overdue before sending a payment request: bill %s has not been read. Read it with get_details_by_id (id %s) or get_bills_for_customer.", bid, bid))
	}
	switch b.Status {
	case BillOverdue:
		return ledger.OK
	case BillAwaitingPayment:
		return ledger.Refuse(fmt.Sprintf("Per telecom policy, bill %s is already Awaiting Payment: the user has a payment request for it. Ask them to check their payment requests instead of sending another.", bid))
	}
	c := customerIn(l, cid)
	if c == nil {
		return ledger.Refuse(fmt.Sprintf("Per telecom policy, payment requests are only for overdue bills; bill %s is %s.", bid, b.Status))
	}
	known, unread := customerBills(l, c)
	var overdue []*Bill
	for _, o := range known {
		if o.Status == BillOverdue {
			overdue = append(overdue, o)
		}
	}
	switch {
	case len(overdue) > 0:
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, payment requests are only for overdue bills; bill %s is %s. The customer's overdue bill is %s.", bid, b.Status, billIDs(overdue)))
	case len(unread) > 0:
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, payment requests are only for overdue bills; bill %s is %s. Read the customer's other bills (%s) to find an overdue one.", bid, b.Status, strings.Join(unread, ", ")))
	}
	return ledger.Refuse(fmt.Sprintf("Per telecom policy, payment requests are only for overdue bills; bill %s is %s and customer %s has no overdue bill.", bid, b.Status, cid))
}

func checkSingleAwaiting(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid, bid := a.customer(), a.bill()
	c := customerIn(l, cid)
	if c == nil {
		return ledger.OK
	}
	known, _ := customerBills(l, c)
	for _, b := range known {
		if b.BillID != bid && b.Status == BillAwaitingPayment {
			return ledger.Refuse(fmt.Sprintf("Per telecom policy, a customer can have only one bill awaiting payment at a time: bill %s of customer %s is already Awaiting Payment. Wait until the user has paid it.", b.BillID, cid))
		}
	}
	return ledger.OK
}

// checkPaymentOnce: loop prevention. A request already sent for this bill is
// not sent again unless the bill has since been read as Paid; a request for
// another bill of the customer waits until the earlier bill is read as Paid.
func checkPaymentOnce(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid, bid := a.customer(), a.bill()
	for _, p := range sentBefore(l, tool, func(callArgs) bool { return true }) {
		pb, pc := p.bill(), p.customer()
		if pb != bid && pc != cid {
			continue
		}
		if b := billIn(l, pb); b != nil && b.Status == BillPaid {
			continue
		}
		if pb == bid {
			return ledger.Refuse(fmt.Sprintf("Per telecom policy, a payment request for bill %s was already sent in this conversation; do not send it again. Ask the user to check their payment requests and accept it, then read the bill to confirm it is PAID.", bid))
		}
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, a customer can have only one bill awaiting payment at a time: a payment request for bill %s was already sent in this conversation and the bill has not been read as PAID since. Read bill %s again before requesting another payment.", pb, pb))
	}
	return ledger.OK
}

// --- roaming ---

func checkRoamingOff(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid, lid := a.customer(), a.line()
	if foreignLine(l, cid, lid) {
		return ledger.OK
	}
	x := lineIn(l, lid)
	switch {
	case x == nil:
		return missingLine(tool, lid)
	case x.RoamingEnabled:
		// A harmless no-op, not a forbidden action: REVISE, so the model
		// keeps its turn and looks elsewhere.
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, line %s is already roaming enabled; there is nothing to enable. If data still fails abroad, check the roaming setting on the user's phone.", lid))
	}
	return ledger.OK
}

func checkRoamingOn(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid, lid := a.customer(), a.line()
	if foreignLine(l, cid, lid) {
		return ledger.OK
	}
	x := lineIn(l, lid)
	switch {
	case x == nil:
		return missingLine(tool, lid)
	case !x.RoamingEnabled:
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, line %s is not roaming enabled; there is nothing to disable.", lid))
	}
	return ledger.OK
}

// --- refuel_data ---

// gbAmount reads gb_amount: a number, or a problem sentence (the tool
// takes any JSON value and fails on one that is not a number).
func gbAmount(tool string, a callArgs) (float64, string, string) {
	r, ok := a.(*refuelArgs)
	if !ok {
		return 0, "", "bad"
	}
	f, text, typ := numberValue(r.GBAmount)
	if (typ != "int" && typ != "float") || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, "", fmt.Sprintf("The argument gb_amount of %s must be a number of GB such as 2.0; got %s.", tool, compact(json.RawMessage(pyjson.String(r.GBAmount.V))))
	}
	return f, text, ""
}

func gbText(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}

func checkRefuelAmount(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	gb, text, prob := gbAmount(tool, a)
	switch {
	case prob == "bad":
		return ledger.OK
	case prob != "":
		return ledger.NeedRevise(prob)
	case gb <= 0:
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, the refuel amount must be a positive number of GB; you asked for %s GB.", text))
	case gb > MaxRefuelGB+refuelEps:
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, the maximum amount of data that can be refueled is %s GB; you asked for %s GB.", gbText(MaxRefuelGB), text))
	}
	lid := a.line()
	// Refuels only add up within a cycle, so the larger of the line's and
	// the usage record's figures is the latest one.
	already := -1.0
	if x := lineIn(l, lid); x != nil {
		already = x.DataRefuelingGB
	}
	if u := usageIn(l, lid); u != nil {
		already = max(already, u.DataRefuelingGB)
	}
	switch {
	case already < 0 || already+gb <= MaxRefuelGB+refuelEps:
		return ledger.OK
	case already >= MaxRefuelGB-refuelEps:
		return ledger.Refuse(fmt.Sprintf("Per telecom policy, the maximum amount of data that can be refueled is %s GB, and line %s already has %s GB refueled this cycle.", gbText(MaxRefuelGB), lid, gbText(already)))
	}
	return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, the maximum amount of data that can be refueled is %s GB; line %s already has %s GB refueled this cycle, so at most %s GB more can be added (you asked for %s GB).", gbText(MaxRefuelGB), lid, gbText(already), gbText(MaxRefuelGB-already), text))
}

func checkRefuelPrice(tool string, l *ledger.Ledger, a callArgs) ledger.Outcome {
	cid, lid := a.customer(), a.line()
	if foreignLine(l, cid, lid) {
		return ledger.OK
	}
	x := lineIn(l, lid)
	if x == nil {
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, confirm the refuel price with the user before refueling: read line %s (get_details_by_id) to learn its plan, then the plan's price per GB.", lid))
	}
	if planIn(l, x.PlanID) == nil {
		return ledger.NeedRevise(fmt.Sprintf("Per telecom policy, confirm the refuel price with the user before refueling: read plan %s of line %s (get_details_by_id, id %s) for its price per GB.", x.PlanID, lid, x.PlanID))
	}
	return ledger.OK
}
