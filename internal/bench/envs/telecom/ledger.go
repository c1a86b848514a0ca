package telecom

// LedgerAgent's telecom policy, part 1: the ledger path map.
//
// # What the agent's ledger may hold
//
// Telecom is dual-control: the carrier's records (customers, lines, bills,
// plans, devices) sit behind the agent's tools, while the phone (airplane
// mode, SIM, APN, data and roaming switches, VPN, app permissions, payment
// requests shown on the device, whether the user is abroad) belongs to the
// simulated user and is changed only by the user's own tools. The agent
// never sees those tool returns: it learns the device state only from what
// the user says. So the ledger holds exactly the agent's own successful
// read returns and nothing else:
//
//   - never the user's device state or the user tools' outputs (not
//     observable by the agent, and a ledger that claimed them would invent
//     state);
//   - never write returns (observe, don't assume: after suspend_line,
//     resume_line, send_payment_request, enable_roaming, disable_roaming or
//     refuel_data the agent must read the record again to see its new
//     state);
//   - never facts stated only in the conversation (the user's location, the
//     amount of data they asked for, whether they accepted a payment
//     request). The predicates therefore cannot check them: enabling roaming
//     "for a user who is traveling" and "ask how much data, confirm the
//     price" stay the model's job.
//
// The one piece of a read's arguments the ledger keeps is the phone number
// the agent looked a customer up by: it is the number the user gave, and the
// policy ties refuels and roaming to "the line associated with the phone
// number the user provided".
//
// # Tool path map
//
//	read tool (successful return)          path(s)                        value
//	-------------------------------------  -----------------------------  -------------
//	get_customer_by_phone(phone_number)    customers.<customer_id>        *Customer
//	                                       phone_lookups.<phone_number>   *PhoneLookup
//	get_customer_by_id(customer_id)        customers.<customer_id>        *Customer
//	get_customer_by_name(full_name, dob)   customers.<customer_id> each   *Customer
//	get_details_by_id(id)   L…             lines.<line_id>                *Line
//	                        B…             bills.<bill_id>                *Bill
//	                        C…             customers.<customer_id>        *Customer
//	                        P…             plans.<plan_id>                *Plan
//	                        D…             devices.<device_id>            *Device
//	get_bills_for_customer(customer_id)    bills.<bill_id> each           *Bill
//	get_data_usage(customer_id, line_id)   usage.<line_id>                *DataUsage
//
// Paths use the record's own id (the returned customer_id, line_id, …), so
// a record read through two tools lands at one path and the later read
// replaces the earlier one. Nested values (a customer's payment methods,
// line and bill ids, a bill's line items) stay inside the record. A return
// that does not decode as the tool's record type is not absorbed.

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
)

// Ledger path prefixes.
const (
	pathCustomers    = "customers."
	pathLines        = "lines."
	pathBills        = "bills."
	pathPlans        = "plans."
	pathDevices      = "devices."
	pathUsage        = "usage."
	pathPhoneLookups = "phone_lookups."
)

// PhoneLookup records that the agent looked a customer up by a phone number
// (the number the user gave) and which customer it found.
type PhoneLookup struct {
	PhoneNumber string `json:"phone_number"`
	CustomerID  string `json:"customer_id"`
}

// DataUsage is get_data_usage's return: one line's usage in the current
// billing cycle. Upstream returns the numbers as strings; here they are
// numbers again.
type DataUsage struct {
	LineID          string     `json:"line_id"`
	DataUsedGB      FloatOrInt `json:"data_used_gb"`
	DataLimitGB     float64    `json:"data_limit_gb"`
	DataRefuelingGB float64    `json:"data_refueling_gb"`
	CycleEndDate    Date       `json:"cycle_end_date"`
}

// Route maps a successful agent read return onto ledger entries (the
// ledger.Router of LedgerAgent). Writes, generic tools, user tools and
// unknown tools give nothing.
func (d *Domain) Route(tool string, args json.RawMessage, output string) []ledger.Entry {
	out := []byte(output)
	switch tool {
	case "get_customer_by_phone":
		c := decodeCustomer(out)
		if c == nil {
			return nil
		}
		entries := []ledger.Entry{{Path: pathCustomers + c.CustomerID, Value: c}}
		if phone, ok := stringArg(args, "phone_number"); ok && phone != "" {
			entries = append(entries, ledger.Entry{Path: pathPhoneLookups + phone, Value: &PhoneLookup{PhoneNumber: phone, CustomerID: c.CustomerID}})
		}
		return entries
	case "get_customer_by_id":
		if c := decodeCustomer(out); c != nil {
			return []ledger.Entry{{Path: pathCustomers + c.CustomerID, Value: c}}
		}
	case "get_customer_by_name":
		var cs []*Customer
		if json.Unmarshal(out, &cs) != nil {
			return nil
		}
		var entries []ledger.Entry
		for _, c := range cs {
			if c != nil && c.CustomerID != "" {
				entries = append(entries, ledger.Entry{Path: pathCustomers + c.CustomerID, Value: c})
			}
		}
		return entries
	case "get_details_by_id":
		id, _ := stringArg(args, "id")
		return routeDetails(id, out)
	case "get_bills_for_customer":
		var bs []*Bill
		if json.Unmarshal(out, &bs) != nil {
			return nil
		}
		var entries []ledger.Entry
		for _, b := range bs {
			if b != nil && b.BillID != "" {
				entries = append(entries, ledger.Entry{Path: pathBills + b.BillID, Value: b})
			}
		}
		return entries
	case "get_data_usage":
		if u := decodeUsage(out); u != nil {
			return []ledger.Entry{{Path: pathUsage + u.LineID, Value: u}}
		}
	}
	return nil
}

// routeDetails routes get_details_by_id by the id's first letter, as the
// tool dispatches.
func routeDetails(id string, out []byte) []ledger.Entry {
	if id == "" {
		return nil
	}
	switch id[0] {
	case 'L':
		if l := decodeLine(out); l != nil {
			return []ledger.Entry{{Path: pathLines + l.LineID, Value: l}}
		}
	case 'B':
		var b Bill
		if json.Unmarshal(out, &b) == nil && b.BillID != "" {
			return []ledger.Entry{{Path: pathBills + b.BillID, Value: &b}}
		}
	case 'C':
		if c := decodeCustomer(out); c != nil {
			return []ledger.Entry{{Path: pathCustomers + c.CustomerID, Value: c}}
		}
	case 'P':
		var p Plan
		if json.Unmarshal(out, &p) == nil && p.PlanID != "" {
			return []ledger.Entry{{Path: pathPlans + p.PlanID, Value: &p}}
		}
	case 'D':
		var dv Device
		if json.Unmarshal(out, &dv) == nil && dv.DeviceID != "" {
			return []ledger.Entry{{Path: pathDevices + dv.DeviceID, Value: &dv}}
		}
	}
	return nil
}

func decodeCustomer(out []byte) *Customer {
	var c Customer
	if json.Unmarshal(out, &c) != nil || c.CustomerID == "" {
		return nil
	}
	return &c
}

// decodeLine decodes a line; data_used_gb may be a Python int or float.
func decodeLine(out []byte) *Line {
	type plain Line
	var w struct {
		plain
		DataUsedGB json.Number `json:"data_used_gb"`
	}
	if json.Unmarshal(out, &w) != nil || w.LineID == "" {
		return nil
	}
	l := Line(w.plain)
	used, ok := parseFloatOrInt(string(w.DataUsedGB))
	if !ok {
		return nil
	}
	l.DataUsedGB = used
	return &l
}

// decodeUsage decodes get_data_usage's dict, whose numbers are strings.
func decodeUsage(out []byte) *DataUsage {
	var w struct {
		LineID          string `json:"line_id"`
		DataUsedGB      string `json:"data_used_gb"`
		DataLimitGB     string `json:"data_limit_gb"`
		DataRefuelingGB string `json:"data_refueling_gb"`
		CycleEndDate    Date   `json:"cycle_end_date"`
	}
	if json.Unmarshal(out, &w) != nil || w.LineID == "" {
		return nil
	}
	used, ok1 := parseFloatOrInt(w.DataUsedGB)
	limit, ok2 := parseFloatOrInt(w.DataLimitGB)
	refuel, ok3 := parseFloatOrInt(w.DataRefuelingGB)
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	return &DataUsage{LineID: w.LineID, DataUsedGB: used, DataLimitGB: limit.V, DataRefuelingGB: refuel.V, CycleEndDate: w.CycleEndDate}
}

// parseFloatOrInt reads a number as Python's str() prints it; digits only
// mean an int.
func parseFloatOrInt(s string) (FloatOrInt, bool) {
	if s == "" {
		return FloatOrInt{}, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return FloatOrInt{}, false
	}
	if strings.Trim(s, "-0123456789") == "" {
		return FloatOrInt{V: f, IntText: s}, true
	}
	return Float(f), true
}

// stringArg reads a string argument of a call; ok is false when the
// arguments are not an object or the key is absent or not a string.
func stringArg(args json.RawMessage, key string) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return "", false
	}
	raw, ok := m[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
