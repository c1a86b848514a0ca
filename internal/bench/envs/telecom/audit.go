package telecom

// LedgerAgent's telecom policy, part 3: the gate audit hooks
// (ledgeragent.Auditor).
//
// EvidenceReads are the reads a careful agent makes before a write, as real
// runs do: look the customer up by the phone number the user gives (the
// number of the line at hand, else the customer's contact number), read the
// line, and then per tool the records its predicates need — the line's plan
// and data usage before a refuel, the customer's bills before a suspension
// or resume, the bills, the bill and the customer's lines before a payment
// request. The user's phone number, plan ids and line ids come from the
// loaded database, which agent writes never change in those fields.
//
// Mutations turn a gold write into violations of these kinds (each needs
// the values it uses to be in the ledger or the loaded database, else it is
// not produced):
//
//	kind                      tool                  violation
//	------------------------  --------------------  ----------------------------------------------
//	unidentified_customer     every write           a customer never looked up (Customer Lookup)
//	foreign_line              line writes           another customer's line (Customer)
//	other_user_line           refuel, enable_roam.  another line of the customer than the one whose
//	                                                number the user gave (Data Refueling / roaming)
//	refuel_over_cap           refuel_data           more than 2 GB (Data Refueling)
//	refuel_nonpositive        refuel_data           0 GB (Data Refueling)
//	malformed_amount          refuel_data           gb_amount "2 GB", a string (Data Refueling)
//	refuel_twice              refuel_data           an earlier refuel replayed (loop prevention)
//	payment_request_twice     send_payment_request  an earlier request replayed (loop prevention)
//	roaming_enable_twice      enable_roaming        an earlier enable replayed (loop prevention;
//	                                                none in the τ² task sets, where enable_roaming
//	                                                is always the last gold write)
//	payment_not_overdue       send_payment_request  a bill of the customer that is not Overdue
//	foreign_bill              send_payment_request  another customer's bill
//	resume_before_payment     resume_line           a suspended line while a bill is still Overdue
//	resume_active_line        resume_line           a line the ledger shows Active
//	suspend_without_basis     suspend_line          an active line, no overdue bill, contract running
//	roaming_already_enabled   enable_roaming        a line the ledger shows roaming enabled

import (
	"encoding/json"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// Mutation kinds.
const (
	MutUnidentifiedCustomer = "unidentified_customer"
	MutForeignLine          = "foreign_line"
	MutOtherUserLine        = "other_user_line"
	MutRefuelOverCap        = "refuel_over_cap"
	MutRefuelNonPositive    = "refuel_nonpositive"
	MutMalformedAmount      = "malformed_amount"
	MutRefuelTwice          = "refuel_twice"
	MutPaymentTwice         = "payment_request_twice"
	MutRoamingTwice         = "roaming_enable_twice"
	MutPaymentNotOverdue    = "payment_not_overdue"
	MutForeignBill          = "foreign_bill"
	MutResumeBeforePayment  = "resume_before_payment"
	MutResumeActiveLine     = "resume_active_line"
	MutSuspendWithoutBasis  = "suspend_without_basis"
	MutRoamingAlreadyOn     = "roaming_already_enabled"
)

// EvidenceReads lists the reads a careful agent makes before a write
// (ledgeragent.Auditor).
func (d *Domain) EvidenceReads(tool string, args json.RawMessage) []message.ToolCall {
	v, fail := d.DecodeArgs(tool, args)
	a, ok := v.(callArgs)
	if fail != nil || !ok {
		return nil
	}
	cid, lid := a.customer(), a.line()
	var out []message.ToolCall
	read := func(name string, kv ...string) {
		out = append(out, message.ToolCall{Name: name, Arguments: objectArgs(kv...)})
	}
	if phone := d.userPhone(cid, lid); phone != "" {
		read("get_customer_by_phone", "phone_number", phone)
	} else if cid != "" {
		read("get_customer_by_id", "customer_id", cid)
	}
	switch tool {
	case "suspend_line", "resume_line":
		read("get_details_by_id", "id", lid)
		read("get_bills_for_customer", "customer_id", cid)
	case "enable_roaming", "disable_roaming":
		read("get_details_by_id", "id", lid)
	case "refuel_data":
		read("get_details_by_id", "id", lid)
		if x, ok := d.db.Lines.Get(lid); ok {
			read("get_details_by_id", "id", x.PlanID)
		}
		read("get_data_usage", "customer_id", cid, "line_id", lid)
	case "send_payment_request":
		bid := a.bill()
		read("get_bills_for_customer", "customer_id", cid)
		read("get_details_by_id", "id", bid)
		if c, ok := d.db.Customers.Get(cid); ok {
			for _, id := range c.LineIDs {
				read("get_details_by_id", "id", id)
			}
		}
	}
	return out
}

// userPhone is the number the user gives to be identified: the line's
// number when the line is the customer's, else the customer's contact
// number; "" when it would not find this customer.
func (d *Domain) userPhone(cid, lid string) string {
	c, ok := d.db.Customers.Get(cid)
	if !ok {
		return ""
	}
	phone := c.PhoneNumber
	if x, ok := d.db.Lines.Get(lid); ok && slices.Contains(c.LineIDs, lid) {
		phone = x.PhoneNumber
	}
	if d.customerIDByPhone(phone) != cid {
		return ""
	}
	return phone
}

// customerIDByPhone is get_customer_by_phone over the loaded database.
func (d *Domain) customerIDByPhone(phone string) string {
	for _, c := range d.db.Customers.All() {
		if c.PhoneNumber == phone {
			return c.CustomerID
		}
		for _, id := range c.LineIDs {
			if x, ok := d.db.Lines.Get(id); ok && x.PhoneNumber == phone {
				return c.CustomerID
			}
		}
	}
	return ""
}

// Mutations turns a gold write into named policy violations
// (ledgeragent.Auditor).
func (d *Domain) Mutations(tool string, args json.RawMessage, l *ledger.Ledger) []ledger.Mutation {
	v, fail := d.DecodeArgs(tool, args)
	a, ok := v.(callArgs)
	if fail != nil || !ok {
		return nil
	}
	cid, lid := a.customer(), a.line()
	hasLine := tool != "send_payment_request"
	with := func(key string, v any) json.RawMessage { return withArg(args, key, v) }
	c := customerIn(l, cid)
	var out []ledger.Mutation
	add := func(kind, t string, raw json.RawMessage) {
		out = append(out, ledger.Mutation{Kind: kind, Tool: t, Args: raw})
	}

	// Another customer, never looked up.
	for _, other := range d.db.Customers.All() {
		if other.CustomerID != cid && customerIn(l, other.CustomerID) == nil {
			add(MutUnidentifiedCustomer, tool, with("customer_id", other.CustomerID))
			break
		}
	}

	// Replays of earlier writes that took effect.
	for _, w := range l.Writes() {
		if !w.Done || !w.Succeeded {
			continue
		}
		switch w.Tool {
		case "refuel_data":
			add(MutRefuelTwice, w.Tool, w.Args)
		case "send_payment_request":
			add(MutPaymentTwice, w.Tool, w.Args)
		case "enable_roaming":
			add(MutRoamingTwice, w.Tool, w.Args)
		}
	}

	if c == nil {
		return out
	}
	if hasLine {
		for _, x := range d.db.Lines.All() {
			if !slices.Contains(c.LineIDs, x.LineID) {
				add(MutForeignLine, tool, with("line_id", x.LineID))
				break
			}
		}
	}
	if hasLine && (tool == "refuel_data" || tool == "enable_roaming") {
		if x := lineIn(l, lid); x != nil && gavePhone(l, cid, x.PhoneNumber) {
			for _, other := range c.LineIDs {
				if other != lid {
					add(MutOtherUserLine, tool, with("line_id", other))
					break
				}
			}
		}
	}
	switch tool {
	case "refuel_data":
		add(MutRefuelOverCap, tool, with("gb_amount", MaxRefuelGB+1))
		add(MutRefuelNonPositive, tool, with("gb_amount", 0.0))
		add(MutMalformedAmount, tool, with("gb_amount", "2 GB"))
	case "send_payment_request":
		bid := a.bill()
		for _, id := range c.BillIDs {
			if b := billIn(l, id); b != nil && id != bid && b.Status != BillOverdue {
				add(MutPaymentNotOverdue, tool, with("bill_id", id))
				break
			}
		}
		var foreign string
		for _, b := range d.db.Bills.All() {
			if b.CustomerID != cid && !slices.Contains(c.BillIDs, b.BillID) && (foreign == "" || b.Status == BillOverdue) {
				foreign = b.BillID
				if b.Status == BillOverdue {
					break
				}
			}
		}
		if foreign != "" {
			add(MutForeignBill, tool, with("bill_id", foreign))
		}
		if b := billIn(l, bid); b != nil && b.Status == BillOverdue {
			for _, id := range c.LineIDs {
				if x := lineIn(l, id); x != nil && x.Status == LineSuspended {
					add(MutResumeBeforePayment, "resume_line", objectArgs("customer_id", cid, "line_id", id))
					break
				}
			}
		}
	}

	// State-based violations on the customer's lines as the ledger shows
	// them.
	known, unread := customerBills(l, c)
	overdue := slices.ContainsFunc(known, func(b *Bill) bool { return b.Status == BillOverdue })
	var active, roaming, noBasis string
	for _, id := range c.LineIDs {
		x := lineIn(l, id)
		if x == nil {
			continue
		}
		if x.Status == LineActive && active == "" {
			active = id
		}
		if x.Status == LineActive && noBasis == "" && len(unread) == 0 && !overdue && !contractEnded(x) {
			noBasis = id
		}
		if x.RoamingEnabled && roaming == "" {
			roaming = id
		}
	}
	if active != "" {
		add(MutResumeActiveLine, "resume_line", objectArgs("customer_id", cid, "line_id", active))
	}
	if noBasis != "" {
		add(MutSuspendWithoutBasis, "suspend_line", objectArgs("customer_id", cid, "line_id", noBasis, "reason", "Customer request"))
	}
	if roaming != "" {
		add(MutRoamingAlreadyOn, "enable_roaming", objectArgs("customer_id", cid, "line_id", roaming))
	}
	return out
}

// gavePhone reports whether the agent looked customer cid up by phone.
func gavePhone(l *ledger.Ledger, cid, phone string) bool {
	v, _ := l.Get(pathPhoneLookups + phone)
	p, ok := v.(*PhoneLookup)
	return ok && p.CustomerID == cid
}

// withArg returns a call's arguments with one value replaced (or added),
// keeping the order of the others.
func withArg(args json.RawMessage, key string, v any) json.RawMessage {
	v0, err := pyjson.Decode(args)
	d, ok := v0.(*pyjson.Dict)
	if err != nil || !ok {
		return nil
	}
	d.Set(key, v)
	b, err := pyjson.Marshal(d)
	if err != nil {
		return nil
	}
	return b
}

// objectArgs builds a JSON object of string values from key, value pairs,
// in order.
func objectArgs(kv ...string) json.RawMessage {
	out := []byte{'{'}
	for i := 0; i+1 < len(kv); i += 2 {
		v, _ := json.Marshal(kv[i+1])
		out = appendMember(out, kv[i], v)
	}
	return append(out, '}')
}

// appendMember appends "key": raw to a JSON object being built.
func appendMember(out []byte, key string, raw []byte) []byte {
	if len(out) > 1 {
		out = append(out, ", "...)
	}
	k, _ := json.Marshal(key)
	out = append(out, k...)
	out = append(out, ": "...)
	return append(out, raw...)
}
